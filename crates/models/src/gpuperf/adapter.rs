//! GPUPerf from a profile, a GPU and an occupancy.
//!
//! | symbol | source |
//! |---|---|
//! | `freq`, `mem_peak_bandwidth` | `derive::clock_mhz(gpu)/1000`, `gpu.memory.bandwidth_gbs` |
//! | `SIMD_width` | `gpu.sm.fp32_lanes` (32 on Fermi, as in models.md 2.5) |
//! | `warp_size`, `SFU_width` | `gpu.sm.warp_size`, `gpu.sm.sfu` |
//! | `transaction_size` | the catalog's `transaction_bytes`: 32 B from CC 3.0, 128 B on CC 1.x and 2.0 (models.md 7.4) |
//! | `DRAM_lat` | `gpu.latencies.dram` |
//! | Δ | `gpu.model_params.departure_del_uncoal` (spacing of transactions), **default 20** (GPUPerf's Fermi value, models.md 2.5; an assumption elsewhere) |
//! | `avg_inst_lat` | `gpu.latencies.fp32` (18 on Fermi, 4 from Volta, models.md 7.4) |
//! | Γ | 64 (models.md 2.5; unverified), `#sync_insts` counted per warp |
//! | `#insts`, `#mem_insts`, `#SFU_insts` | warp instructions per warp (all classes; global loads and stores; SFU) |
//! | `#sync_insts` | `sync.barriers_per_thread` |
//! | `N` | resident warps per SM from the occupancy |
//! | `ILP`, `MLP`, `miss_ratio`, `hit_lat` | `analysis.gpuperf`, **defaults 1, 1, 1, 0** (no static ILP/MLP analysis yet; no cache model) |
//! | `avg_trans_warp` | global transactions per global request, default 1 |
//! | `O_CFdiv` | `analysis.gpuperf.cf_div_cycles`, default 0: the warp instruction counts already include both sides of every divergent branch |
//! | `O_bank` | `analysis.gpuperf.bank_cycles`, else the bank-conflict replays per SM (shared transactions minus requests) x issue cycles (`warp_size / SIMD_width`) |

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::{GpuPerfParams, benefits, evaluate};
use crate::derive::{launch_figures, transaction_bytes};
use crate::prediction::{ModelError, Prediction, invalid};

const MODEL: &str = "gpuperf";

/// Default Δ when the GPU file has no departure delay (GPUPerf's Fermi value), cycles.
pub const DEFAULT_DELTA: f64 = 20.0;
/// Γ of equation (8) (models.md 2.5, unverified).
pub const GAMMA: f64 = 64.0;

/// Fill GPUPerf's parameters.
pub fn params(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<GpuPerfParams, ModelError> {
    let lf = launch_figures(MODEL, profile, gpu, occ)?;
    let warps = lf.total_warps;
    let w = &profile.warp_instructions;
    let g = &profile.global;
    let a = &profile.analysis.gpuperf;
    if w.total() <= 0.0 {
        return Err(invalid(MODEL, "the profile has no warp instruction counts"));
    }
    let per_warp = |x: f64| x / warps;
    let mem_requests = g.requests().max(w.global());
    let simd_width = f64::from(gpu.sm.fp32_lanes);
    let warp_size = f64::from(gpu.sm.warp_size);
    let replays = (profile.shared.transactions() - profile.shared.requests()).max(0.0);
    let default_bank = replays / lf.active_sms * (warp_size / simd_width.max(1.0));
    Ok(GpuPerfParams {
        freq_ghz: crate::derive::clock_mhz(gpu) / 1000.0,
        mem_peak_bandwidth_gbs: gpu.memory.bandwidth_gbs,
        simd_width,
        warp_size,
        sfu_width: f64::from(gpu.sm.sfu),
        transaction_size: transaction_bytes(gpu),
        dram_lat: gpu.latencies.dram,
        delta: gpu
            .model_params
            .departure_del_uncoal
            .unwrap_or(DEFAULT_DELTA),
        avg_inst_lat: gpu.latencies.fp32,
        gamma: GAMMA,
        insts: per_warp(w.total()),
        mem_insts: per_warp(mem_requests),
        sfu_insts: per_warp(w.sfu + w.sfu_ieee),
        sync_insts: profile.sync.barriers_per_thread,
        fp_insts: per_warp(w.fp32 + w.fp32_div + w.fp32_fma + w.fp64 + w.fp64_fma + w.fp16),
        total_warps: warps,
        total_blocks: lf.blocks,
        sync_per_block: false,
        active_sms: lf.active_sms,
        n: lf.active_warps_per_sm,
        ilp: a.ilp.unwrap_or(1.0),
        mlp: a.mlp.unwrap_or(1.0),
        avg_trans_warp: if mem_requests > 0.0 && g.transactions() > 0.0 {
            g.transactions() / mem_requests
        } else {
            1.0
        },
        miss_ratio: a.miss_ratio.unwrap_or(1.0),
        hit_lat: a.hit_latency.unwrap_or(0.0),
        o_cfdiv: a.cf_div_cycles.unwrap_or(0.0),
        o_bank: a.bank_cycles.unwrap_or(default_bank),
    })
}

/// Predict with GPUPerf; the breakdown holds every term and the four benefits.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    let p = params(profile, gpu, occ)?;
    let r = evaluate(&p)?;
    let b = benefits(&p, &r)?;
    let exposed_memory = r.t_mem - r.t_overlap;
    let candidates = [
        ("computation (W_parallel)", r.w_parallel),
        ("memory (exposed T_mem)", exposed_memory),
        ("synchronisation (O_sync)", r.o_sync),
        ("SFU contention (O_SFU)", r.o_sfu),
        ("branch divergence (O_CFdiv)", p.o_cfdiv),
        ("bank conflicts (O_bank)", p.o_bank),
    ];
    let bottleneck = candidates
        .iter()
        .fold(
            ("computation (W_parallel)", f64::NEG_INFINITY),
            |best, &(n, v)| if v > best.1 { (n, v) } else { best },
        )
        .0;
    let breakdown: BTreeMap<String, f64> = [
        ("w_parallel", r.w_parallel),
        ("o_sync", r.o_sync),
        ("o_sfu", r.o_sfu),
        ("o_cfdiv", p.o_cfdiv),
        ("o_bank", p.o_bank),
        ("t_comp", r.t_comp),
        ("t_mem", r.t_mem),
        ("t_overlap", r.t_overlap),
        ("itilp", r.itilp),
        ("itmlp", r.itmlp),
        ("mwp", r.mwp),
        ("cwp", r.cwp),
        ("amat", r.amat),
        ("benefit_itilp", b.itilp),
        ("benefit_serial", b.serial),
        ("benefit_memory", b.memory),
        ("benefit_fp", b.fp),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_finite())
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Prediction::from_cycles(MODEL, r.t_exec, p.freq_ghz * 1e9, bottleneck, breakdown)
}
