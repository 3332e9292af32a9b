//! The bundled hand-written profiles (examples/profiles/) through every model,
//! on the seeds' GPUs and on modern ones, plus the figures the seeds state.

use arch::{Catalog, Gpu, Occupancy, OccupancyInput, occupancy};
use models::mwp_cwp::{self, Mode};
use models::{MODEL_NAMES, predict};
use profile::KernelProfile;

const WORKED_EXAMPLE: &str = include_str!("../../../examples/profiles/mwp-cwp-worked-example.toml");
const LIST_RANKING: &str = include_str!("../../../examples/profiles/kothapalli-list-ranking.toml");
const MATMUL: &str =
    include_str!("../../../examples/profiles/kothapalli-matrix-multiplication.toml");

fn load(text: &str) -> KernelProfile {
    match KernelProfile::from_toml(text) {
        Ok(p) => p,
        Err(e) => panic!("example profile: {e}"),
    }
}

fn gpu(id: &str) -> Gpu {
    match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{id}: {e}"),
    }
}

fn occ(p: &KernelProfile, g: &Gpu) -> Occupancy {
    let input = OccupancyInput {
        threads_per_block: u32::try_from(p.launch.threads_per_block()).unwrap_or(u32::MAX),
        registers_per_thread: p.resources.registers_per_thread,
        shared_per_block_bytes: p.resources.static_shared_per_block + p.launch.dynamic_shared,
    };
    match occupancy(g, &input) {
        Ok(o) => o,
        Err(e) => panic!("{}: {e}", g.id),
    }
}

/// Every model gives a finite positive time for `text` on `gpu_id`.
fn check_all_models(text: &str, gpu_id: &str) {
    let p = load(text);
    let g = gpu(gpu_id);
    let o = occ(&p, &g);
    for name in MODEL_NAMES {
        match predict(name, &p, &g, &o) {
            Ok(pr) => {
                assert!(
                    pr.seconds.is_finite() && pr.seconds > 0.0,
                    "{name} on {gpu_id}: {} s",
                    pr.seconds
                );
                assert!(
                    pr.cycles.is_finite() && pr.cycles > 0.0,
                    "{name} on {gpu_id}: {} cycles",
                    pr.cycles
                );
                assert!(
                    pr.breakdown.values().all(|v| v.is_finite()),
                    "{name} on {gpu_id}: {:?}",
                    pr.breakdown
                );
                assert_eq!(pr.model, name);
            }
            Err(e) => panic!("{name} on {gpu_id}: {e}"),
        }
    }
}

#[test]
fn every_example_on_every_listed_gpu() {
    for gpu_id in [
        "quadro-fx5600",
        "geforce-gtx-280",
        "tesla-v100-sxm2-16gb",
        "a100-pcie-40gb",
        "h100-sxm5-80gb",
    ] {
        for text in [WORKED_EXAMPLE, LIST_RANKING, MATMUL] {
            check_all_models(text, gpu_id);
        }
    }
}

#[test]
fn worked_example_profile_maps_to_the_slide_parameters() {
    let p = load(WORKED_EXAMPLE);
    let g = gpu("quadro-fx5600");
    let o = occ(&p, &g);
    // 12 registers per thread: the occupancy calculator agrees with the slides' 5 blocks.
    assert_eq!(o.active_blocks_per_sm, 5);
    let params = match mwp_cwp::adapter::params(&p, &g, &o) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    let program = (
        params.comp_insts,
        params.uncoal_mem_insts,
        params.coal_mem_insts,
        params.synch_insts,
        params.uncoal_per_mw,
        params.load_bytes_per_warp,
        params.active_blocks_per_sm,
        params.active_sms,
        params.mem_ld,
        params.departure_del_uncoal,
    );
    assert_eq!(
        program,
        (27.0, 6.0, 0.0, 6.0, 32.0, 128.0, 5.0, 16.0, 420.0, 10.0)
    );
    // On the slides' machine (1 GHz, 80 GB/s) the file reproduces the worked example.
    let slides = mwp_cwp::MwpCwpParams {
        freq_ghz: 1.0,
        mem_bandwidth_gbs: 80.0,
        ..params
    };
    let exact = mwp_cwp::evaluate(&slides, Mode::Exact).map(|r| r.exec_cycles);
    let paper = mwp_cwp::evaluate(&slides, Mode::PaperExample).map(|r| r.exec_cycles);
    let klaraptor = mwp_cwp::evaluate(&slides, Mode::Klaraptor).map(|r| r.exec_cycles);
    assert_eq!(
        (exact, paper, klaraptor),
        (Ok(50_728.187_5), Ok(50_738.0), Ok(48_444.0))
    );
}

#[test]
fn list_ranking_on_the_gtx_280_is_about_21_ms() {
    let p = load(LIST_RANKING);
    let g = gpu("geforce-gtx-280");
    let o = occ(&p, &g);
    for name in ["kothapalli-max", "kothapalli-sum"] {
        let s = predict(name, &p, &g, &o).map(|pr| pr.seconds);
        // 13 x 16 x 32 x 132,000 / (8 x 4) / 1.3e9 = 21.12 ms (the paper: about 21.0 ms).
        assert!(
            matches!(s, Ok(s) if (s - 0.021_12).abs() < 1e-5),
            "{name}: {s:?}"
        );
    }
}

#[test]
fn matrix_multiplication_on_the_gtx_280() {
    let p = load(MATMUL);
    let g = gpu("geforce-gtx-280");
    let o = occ(&p, &g);
    // N_B = ceil(64/30) = 3: 3 x 8 x 32 x 6,080 / 32 / 1.3e9 = 112.25 us (MAX); 8,000 cycles per thread for SUM.
    let max = predict("kothapalli-max", &p, &g, &o).map(|pr| pr.seconds);
    let sum = predict("kothapalli-sum", &p, &g, &o).map(|pr| pr.seconds);
    assert!(
        matches!(max, Ok(s) if (s - 3.0 * 8.0 * 6080.0 / 1.3e9).abs() < 1e-12),
        "{max:?}"
    );
    assert!(
        matches!(sum, Ok(s) if (s - 3.0 * 8.0 * 8000.0 / 1.3e9).abs() < 1e-12),
        "{sum:?}"
    );
}
