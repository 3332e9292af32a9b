//! MWP-CWP from a profile, a GPU and an occupancy.
//!
//! Which input feeds which symbol (models.md 1.2):
//!
//! | symbol | source |
//! |---|---|
//! | `#Threads_per_warp` | `gpu.sm.warp_size` |
//! | `#Issue_cycles` | `gpu.issue_cycles()` (model_params.issue_cycles, else warp size / lanes per scheduler) |
//! | `Freq` | `derive::clock_mhz(gpu) / 1000`: `model_params.paper_clock_mhz` where the file has it (GTX 280: 1300), else `gpu.clock_mhz()` |
//! | `Mem_Bandwidth` | `gpu.memory.bandwidth_gbs` |
//! | `Mem_LD` | `gpu.mem_ld()` (model_params.mem_ld, else latencies.dram) |
//! | `Departure_del_uncoal` / `_coal` | `gpu.model_params.departure_del_*`; **default 10 / 4**, the FX5600 values of models.md 1.7 (an assumption on other GPUs: no modern microbenchmark gives them, models.md 7.4) |
//! | `#Threads_per_block`, `#Blocks` | the profile's launch |
//! | `#Active_blocks_per_SM` | `analysis.mwp_cwp.active_blocks_per_sm`, else the occupancy (capped by the blocks the grid gives each SM) |
//! | `#Active_SMs` | `min(#SMs, #Blocks)` (HK-27) |
//! | `#Comp_insts` | `analysis.mwp_cwp.comp_insts`, else warp instructions other than global loads/stores, per warp (shared accesses count as computation, models.md 1.9) |
//! | `#Coal_Mem_insts`, `#Uncoal_Mem_insts` | the analysis figures, else `global.{coalesced,uncoalesced}_instructions` per warp |
//! | `#Synch_insts` | `analysis.mwp_cwp.synch_insts`, else `sync.barriers_per_thread` |
//! | `#Coal_per_mw`, `#Uncoal_per_mw` | the analysis figures, else the profile's transactions per request, else `gpu.model_params`, else 1 and the warp size (the G80 rule: one transaction per thread) |
//! | `Load_bytes_per_warp` | the analysis figure, else global bytes per global request, else 4 B x warp size |

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::{Case, Mode, MwpCwpParams, evaluate};
use crate::derive::{global_split_per_warp, launch_figures, transactions_per_request};
use crate::prediction::{ModelError, Prediction};

/// Default `Departure_del_uncoal` when the GPU file has none (FX5600, models.md 1.7), cycles.
pub const DEFAULT_DEPARTURE_DEL_UNCOAL: f64 = 10.0;
/// Default `Departure_del_coal` when the GPU file has none (FX5600, models.md 1.7), cycles.
pub const DEFAULT_DEPARTURE_DEL_COAL: f64 = 4.0;

/// The model name for each mode, as the command line takes it.
pub fn model_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Exact => "mwp-cwp",
        Mode::PaperExample => "mwp-cwp-paper",
        Mode::Klaraptor => "mwp-cwp-klaraptor",
    }
}

/// Fill the paper's parameters from the profile, the GPU and the occupancy.
pub fn params(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<MwpCwpParams, ModelError> {
    let lf = launch_figures("mwp-cwp", profile, gpu, occ)?;
    let a = &profile.analysis.mwp_cwp;
    let warps = lf.total_warps;
    let (coal, uncoal) = global_split_per_warp(profile, warps);
    let (coal_per_mw, uncoal_per_mw) = transactions_per_request(profile);
    let w = &profile.warp_instructions;
    let comp_per_warp = if warps > 0.0 {
        (w.total() - w.global()) / warps
    } else {
        0.0
    };
    let g = &profile.global;
    let warp_size = f64::from(gpu.sm.warp_size);
    let bytes_per_request = if g.requests() > 0.0 && g.bytes() > 0.0 {
        Some(g.bytes() / g.requests())
    } else {
        None
    };
    Ok(MwpCwpParams {
        threads_per_warp: warp_size,
        issue_cycles: gpu.issue_cycles(),
        freq_ghz: crate::derive::clock_mhz(gpu) / 1000.0,
        mem_bandwidth_gbs: gpu.memory.bandwidth_gbs,
        mem_ld: gpu.mem_ld(),
        departure_del_uncoal: gpu
            .model_params
            .departure_del_uncoal
            .unwrap_or(DEFAULT_DEPARTURE_DEL_UNCOAL),
        departure_del_coal: gpu
            .model_params
            .departure_del_coal
            .unwrap_or(DEFAULT_DEPARTURE_DEL_COAL),
        threads_per_block: lf.threads_per_block,
        blocks: lf.blocks,
        active_blocks_per_sm: a.active_blocks_per_sm.unwrap_or(lf.active_blocks_per_sm),
        active_sms: lf.active_sms,
        comp_insts: a.comp_insts.unwrap_or(comp_per_warp),
        uncoal_mem_insts: a.uncoal_mem_insts.unwrap_or(uncoal),
        coal_mem_insts: a.coal_mem_insts.unwrap_or(coal),
        synch_insts: a.synch_insts.unwrap_or(profile.sync.barriers_per_thread),
        coal_per_mw: a
            .coal_per_mw
            .or(coal_per_mw)
            .or(gpu.model_params.coal_per_mw)
            .unwrap_or(1.0),
        uncoal_per_mw: a
            .uncoal_per_mw
            .or(uncoal_per_mw)
            .or(gpu.model_params.uncoal_per_mw)
            .unwrap_or(warp_size),
        load_bytes_per_warp: a
            .load_bytes_per_warp
            .or(bytes_per_request)
            .unwrap_or(4.0 * warp_size),
        general_coal_latency: false,
    })
}

/// Predict with MWP-CWP in `mode`.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
    mode: Mode,
) -> Result<Prediction, ModelError> {
    let p = params(profile, gpu, occ)?;
    let r = evaluate(&p, mode)?;
    let bottleneck = match r.case {
        Case::NotEnoughWarps => format!("too few warps to hide latency (case 1, N = {:.0})", r.n),
        Case::MemoryBound => format!("memory (case 2, MWP {:.2} <= CWP {:.2})", r.mwp, r.cwp),
        Case::ComputeBound => format!("computation (case 3, MWP {:.2} > CWP {:.2})", r.mwp, r.cwp),
    };
    let breakdown: BTreeMap<String, f64> = [
        ("case", f64::from(r.case.number())),
        ("n_active_warps", r.n),
        ("mem_l", r.mem_l),
        ("departure_delay", r.departure_delay),
        ("mwp_without_bw", r.mwp_without_bw),
        ("mwp_peak_bw", r.mwp_peak_bw),
        ("mwp", r.mwp),
        ("cwp", r.cwp),
        ("comp_cycles_per_warp", r.comp_cycles),
        ("mem_cycles_per_warp", r.mem_cycles),
        ("rep", r.rep),
        ("exec_cycles_app", r.exec_cycles_app),
        ("synch_cost", r.synch_cost),
        ("cpi", r.cpi),
        ("comp_insts", p.comp_insts),
        ("coal_mem_insts", p.coal_mem_insts),
        ("uncoal_mem_insts", p.uncoal_mem_insts),
        ("active_blocks_per_sm", p.active_blocks_per_sm),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_finite())
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Prediction::from_cycles(
        model_name(mode),
        r.exec_cycles,
        p.freq_ghz * 1e9,
        bottleneck,
        breakdown,
    )
}
