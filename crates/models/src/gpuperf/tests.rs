//! models.md 2.6: the self-computed vector on the Tesla C2050 parameters of 2.5.

use super::*;

fn c2050_vector() -> GpuPerfParams {
    GpuPerfParams {
        freq_ghz: 1.15,
        mem_peak_bandwidth_gbs: 144.0,
        simd_width: 32.0,
        warp_size: 32.0,
        sfu_width: 4.0,
        transaction_size: 128.0,
        dram_lat: 440.0,
        delta: 20.0,
        avg_inst_lat: 18.0,
        gamma: 64.0,
        insts: 200.0,
        mem_insts: 20.0,
        sfu_insts: 40.0,
        sync_insts: 0.0,
        fp_insts: 200.0,
        total_warps: 8192.0,
        total_blocks: 1024.0,
        sync_per_block: false,
        active_sms: 14.0,
        n: 48.0,
        ilp: 1.5,
        mlp: 2.0,
        avg_trans_warp: 2.0,
        miss_ratio: 1.0,
        hit_lat: 0.0,
        o_cfdiv: 0.0,
        o_bank: 0.0,
    }
}

/// Evaluate `p` and compare the named terms with `expected` to within `tol` (absolute).
fn check(p: &GpuPerfParams, expected: &[(&str, f64)], tol: f64) {
    let r = match evaluate(p) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    for &(name, want) in expected {
        let got = match name {
            "avg_DRAM_lat" => r.avg_dram_lat,
            "ITILP" => r.itilp,
            "comp_cycles" => r.comp_cycles,
            "mem_cycles" => r.mem_cycles,
            "CWP" => r.cwp,
            "BW_per_warp" => r.bw_per_warp,
            "MWP_peak_bw" => r.mwp_peak_bw,
            "MWP" => r.mwp,
            "MWP_cp" => r.mwp_cp,
            "ITMLP" => r.itmlp,
            "W_parallel" => r.w_parallel,
            "F_SFU" => r.f_sfu,
            "O_SFU" => r.o_sfu,
            "O_sync" => r.o_sync,
            "T_comp" => r.t_comp,
            "T_mem" => r.t_mem,
            "zeta" => r.zeta,
            "T_overlap" => r.t_overlap,
            "T_exec" => r.t_exec,
            other => panic!("unknown term {other}"),
        };
        assert!((got - want).abs() <= tol, "{name} = {got}, expected {want}");
    }
}

#[test]
fn c2050_vector_every_term() {
    check(
        &c2050_vector(),
        &[
            ("avg_DRAM_lat", 460.0),
            ("ITILP", 18.0),
            ("comp_cycles", 200.0),
            ("mem_cycles", 4600.0),
            ("CWP", 24.0),
            ("BW_per_warp", 0.32),
            ("MWP_peak_bw", 32.142857),
            ("MWP", 23.0),
            ("MWP_cp", 23.0),
            ("ITMLP", 32.142857),
            ("W_parallel", 117_028.571),
            ("F_SFU", 0.075),
            ("O_SFU", 14_043.429),
            ("T_comp", 131_072.0),
            ("T_mem", 167_480.889),
            ("zeta", 0.0),
            ("T_overlap", 131_072.0),
            ("T_exec", 167_480.889),
        ],
        1e-3,
    );
}

#[test]
fn c2050_vector_seconds() {
    // 167,480.889 cycles at 1.15 GHz = 145.64 us.
    let r = evaluate(&c2050_vector()).map(|r| r.t_exec / 1.15e9);
    assert!(
        matches!(r, Ok(s) if (s - 145.64e-6).abs() < 0.01e-6),
        "{r:?}"
    );
}

#[test]
fn sync_term_per_warp_and_per_block() {
    // (8): F_sync = 64 * 460 * 20/200 = 2944; (7): 2 * 8192/14 * 2944 per warp, 2 * 1024/14 * 2944 per block.
    let p = GpuPerfParams {
        sync_insts: 2.0,
        ..c2050_vector()
    };
    check(&p, &[("O_sync", 2.0 * 8192.0 / 14.0 * 2944.0)], 1e-6);
    let p = GpuPerfParams {
        sync_per_block: true,
        ..p
    };
    check(&p, &[("O_sync", 2.0 * 1024.0 / 14.0 * 2944.0)], 1e-6);
}

#[test]
fn compute_bound_overlap_keeps_one_warp_exposed() {
    // CWP <= MWP: zeta = 1 and F_overlap = (N - 1)/N. Few memory instructions.
    let p = GpuPerfParams {
        mem_insts: 1.0,
        avg_trans_warp: 1.0,
        ..c2050_vector()
    };
    let r = evaluate(&p).map(|r| (r.zeta, r.f_overlap, r.cwp <= r.mwp));
    assert_eq!(r, Ok((1.0, 47.0 / 48.0, true)));
}

#[test]
fn benefits_are_what_if_differences() {
    let p = GpuPerfParams {
        ilp: 0.1,
        fp_insts: 120.0,
        ..c2050_vector()
    };
    let r = match evaluate(&p) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let b = match benefits(&p, &r) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    };
    // ITILP = min(0.1 * 48, 18) = 4.8: W_parallel = 200 * 8192/14 * 18/4.8; at ITILP_max it is 117,028.571.
    let w = 200.0 * 8192.0 / 14.0 * 18.0 / 4.8;
    assert!((b.itilp - (w - 117_028.571_428)).abs() < 1e-3, "{b:?}");
    assert_eq!(b.serial, r.w_serial);
    assert!(b.fp > 0.0 && b.memory >= 0.0, "{b:?}");
}

#[test]
fn no_memory_instruction_is_pure_computation() {
    let p = GpuPerfParams {
        mem_insts: 0.0,
        ..c2050_vector()
    };
    check(&p, &[("T_mem", 0.0), ("T_exec", 131_072.0)], 1e-3);
}

#[test]
fn bad_inputs_are_errors() {
    assert!(
        evaluate(&GpuPerfParams {
            insts: 0.0,
            ..c2050_vector()
        })
        .is_err()
    );
    assert!(
        evaluate(&GpuPerfParams {
            ilp: f64::NAN,
            ..c2050_vector()
        })
        .is_err()
    );
    assert!(
        evaluate(&GpuPerfParams {
            miss_ratio: -1.0,
            ..c2050_vector()
        })
        .is_err()
    );
}
