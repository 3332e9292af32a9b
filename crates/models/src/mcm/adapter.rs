//! MCM from a profile and a GPU (models.md 4 and 7.4).
//!
//! | symbol | source |
//! |---|---|
//! | `U` | cycles per 4-byte word at full bandwidth for one SM: `clock / (DRAM bandwidth / #SMs / 4)` (models.md 7.4; a latency-dominated U would be larger) |
//! | `K` | `gpu.sm_count` (the alternative reading, the widest anti-chain capped by the SMs, gives the same for grids of at least #SMs blocks) |
//! | `N` | blocks of the grid |
//! | `L` | 1: one kernel, independent blocks |
//! | `W(B)` | thread instructions other than global accesses (local operations), per block |
//! | `S(B)` | the costliest thread's operations other than global accesses (`per_thread.max`) |
//! | `r_B`, `w_B` | global bytes loaded / stored per block / 4 |
//!
//! One time unit is one local operation, taken as one core clock cycle.

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::{McmParams, evaluate};
use crate::prediction::{ModelError, Prediction, invalid};

/// Fill MCM's parameters.
pub fn params(profile: &KernelProfile, gpu: &Gpu) -> Result<McmParams, ModelError> {
    let sms = f64::from(gpu.sm_count);
    let words_per_second_per_sm = gpu.dram_bytes_per_second() / sms / 4.0;
    if words_per_second_per_sm.is_nan()
        || words_per_second_per_sm <= 0.0
        || words_per_second_per_sm.is_infinite()
    {
        return Err(invalid("mcm", "the GPU has no SM or no DRAM bandwidth"));
    }
    let blocks = profile.launch.blocks() as f64;
    let t = &profile.thread_instructions;
    let max = &profile.per_thread.max;
    let g = &profile.global;
    Ok(McmParams {
        u: crate::derive::clock_hz(gpu) / words_per_second_per_sm,
        k: sms,
        blocks,
        critical_path: 1.0,
        block_work: (t.total() - t.global()) / blocks,
        block_span: max.total() - max.global(),
        words_read: g.loads.bytes / 4.0 / blocks,
        words_written: g.stores.bytes / 4.0 / blocks,
    })
}

/// Predict with the MCM Graham-Brent bound.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    _occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    let p = params(profile, gpu)?;
    let r = evaluate(&p)?;
    let bottleneck = if r.block_overhead >= r.span {
        "data transfer (O(B) >= S(B))"
    } else {
        "local computation (S(B) > O(B))"
    };
    let breakdown: BTreeMap<String, f64> = [
        ("u", p.u),
        ("k", p.k),
        ("n_blocks", p.blocks),
        ("work", r.work),
        ("span", r.span),
        ("block_overhead", r.block_overhead),
        ("overhead", r.overhead),
        ("c", r.c),
        ("overhead_ratio", r.overhead_ratio),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_finite())
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Prediction::from_cycles(
        "mcm",
        r.bound,
        crate::derive::clock_hz(gpu),
        bottleneck,
        breakdown,
    )
}
