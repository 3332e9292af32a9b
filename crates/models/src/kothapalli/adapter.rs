//! Kothapalli MAX/SUM from a profile and a GPU.
//!
//! | symbol | source |
//! |---|---|
//! | `N_B` | `ceil(#blocks / gpu.sm_count)` (models.md 5.1) |
//! | `N_w` | warps per block of the launch |
//! | `N_t` | `gpu.sm.warp_size` |
//! | `N_C` | `gpu.sm.fp32_lanes` |
//! | `D` | `gpu.model_params.kothapalli_pipeline_depth`, **default 4** (the GT200 value of seed 000, assumed for every GPU without one) |
//! | `R` | `derive::clock_hz(gpu)`: the papers' clock where the GPU file records it (GTX 280: 1.3 GHz), else the model clock |
//! | op costs | [`OpCosts::GTX280`], each replaced by `gpu.model_params.kothapalli_*_cycles` where the GPU file states it |
//! | `N_comp` | `analysis.kothapalli.comp_cycles`, else the costliest thread's operations (`per_thread.max`) x op costs |
//! | `N_memory` | `analysis.kothapalli.memory_cycles`, else [`memory_cycles`] |
//!
//! The model uses the occupancy only through the launch: seed 000 argues that
//! time-sharing `b` blocks on an SM divides `N_B` by `b` and multiplies the
//! per-block time by `b`, so equation (4) stands (section 3.4).

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::{ClassMix, KernelProfile};

use super::{KothapalliParams, OpCosts, Variant, evaluate};
use crate::prediction::{ModelError, Prediction, invalid};

/// Default pipeline depth `D` (seed 000, GT200: "a 4 stage pipeline").
pub const DEFAULT_PIPELINE_DEPTH: f64 = 4.0;

/// Threads one transaction serves for a local-memory access: local memory is
/// interleaved per thread, so a warp's access coalesces; on CC 1.x the unit is
/// the half-warp (16 threads). An assumption: seed 000 does not treat local memory.
const LOCAL_THREADS_PER_TRANSACTION: f64 = 16.0;

/// Model name per variant.
pub fn model_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Max => "kothapalli-max",
        Variant::Sum => "kothapalli-sum",
    }
}

/// The op-cost table for `gpu`.
pub fn op_costs(gpu: &Gpu) -> OpCosts {
    let m = &gpu.model_params;
    let base = OpCosts::GTX280;
    OpCosts {
        int_add: m.kothapalli_add_cycles.unwrap_or(base.int_add),
        int_mul: m.kothapalli_int_mul_cycles.unwrap_or(base.int_mul),
        int_div: m.kothapalli_modulus_cycles.unwrap_or(base.int_div),
        global: m.kothapalli_global_cycles.unwrap_or(base.global),
        shared: m.kothapalli_shared_cycles.unwrap_or(base.shared),
        ..base
    }
}

/// `N_comp` of one thread whose operations are `mix`.
pub fn comp_cycles(mix: &ClassMix, c: &OpCosts) -> f64 {
    mix.int_add * c.int_add
        + mix.int_mul * c.int_mul
        + mix.int_div * c.int_div
        + (mix.fp32 + mix.fp32_div + mix.fp32_fma + mix.fp16) * c.fp32
        + (mix.fp64 + mix.fp64_fma) * c.fp64
        + (mix.sfu + mix.sfu_ieee) * c.sfu
        + (mix.convert + mix.control + mix.other) * c.other
}

/// How one thread's memory accesses are charged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryPattern {
    /// Fraction of global accesses that coalesce, in [0, 1].
    pub coalesced_fraction: f64,
    /// Threads served by one transaction of a coalesced access (`k`).
    pub threads_per_transaction: f64,
    /// Shared-memory bank contention (`k` of the QRQW cost `4k`).
    pub shared_conflict_ways: f64,
}

/// `N_memory` of one thread whose accesses are `mix`: coalesced global accesses
/// at `(g + k)/k`, uncoalesced at `g`, shared at `s * ways`, local accesses
/// as coalesced global ones, atomics as uncoalesced global ones (seed 000 does
/// not model atomics; section 6 proposes serialising them) and constant loads
/// at the shared cost (cached). Barriers cost nothing (section 3.1 ignores them).
pub fn memory_cycles(mix: &ClassMix, c: &OpCosts, m: &MemoryPattern) -> f64 {
    let f = m.coalesced_fraction.clamp(0.0, 1.0);
    let global =
        mix.global() * (f * c.global_access(m.threads_per_transaction) + (1.0 - f) * c.global);
    let shared = mix.shared() * c.shared_access(m.shared_conflict_ways);
    let local = mix.local * c.global_access(LOCAL_THREADS_PER_TRANSACTION);
    let atomic = mix.atomic * c.global;
    let constant = (mix.constant + mix.constant_indexed) * c.shared;
    global + shared + local + atomic + constant
}

/// The access pattern the profile's kernel-wide counters describe.
pub fn memory_pattern(profile: &KernelProfile, warp_size: f64) -> MemoryPattern {
    let g = &profile.global;
    let split = g.coalesced_instructions + g.uncoalesced_instructions;
    let coalesced_fraction = if split > 0.0 {
        g.coalesced_instructions / split
    } else {
        1.0
    };
    // Active threads per global warp instruction, then threads per transaction.
    let requests = g.requests().max(profile.warp_instructions.global());
    let threads_per_request = if requests > 0.0 && profile.thread_instructions.global() > 0.0 {
        profile.thread_instructions.global() / requests
    } else {
        warp_size
    };
    let k = if g.coalesced_transactions > 0.0 && g.coalesced_instructions > 0.0 {
        threads_per_request * g.coalesced_instructions / g.coalesced_transactions
    } else if g.transactions() > 0.0 && requests > 0.0 {
        threads_per_request * requests / g.transactions()
    } else {
        1.0
    };
    MemoryPattern {
        coalesced_fraction,
        threads_per_transaction: k.clamp(1.0, warp_size.max(1.0)),
        shared_conflict_ways: profile.shared.mean_conflict_ways(),
    }
}

/// Fill equation (3)'s parameters.
pub fn params(profile: &KernelProfile, gpu: &Gpu) -> Result<KothapalliParams, ModelError> {
    if gpu.sm_count == 0 {
        return Err(invalid("kothapalli", "the GPU has no SM"));
    }
    let costs = op_costs(gpu);
    let warp_size = f64::from(gpu.sm.warp_size);
    let a = &profile.analysis.kothapalli;
    let max = &profile.per_thread.max;
    let pattern = memory_pattern(profile, warp_size);
    Ok(KothapalliParams {
        n_b: profile.launch.blocks().div_ceil(u64::from(gpu.sm_count)) as f64,
        n_w: profile.launch.warps_per_block(gpu.sm.warp_size) as f64,
        n_t: warp_size,
        comp_cycles: a.comp_cycles.unwrap_or_else(|| comp_cycles(max, &costs)),
        memory_cycles: a
            .memory_cycles
            .unwrap_or_else(|| memory_cycles(max, &costs, &pattern)),
        n_c: f64::from(gpu.sm.fp32_lanes),
        d: gpu
            .model_params
            .kothapalli_pipeline_depth
            .unwrap_or(DEFAULT_PIPELINE_DEPTH),
        r_hz: crate::derive::clock_hz(gpu),
    })
}

/// Predict with the MAX or SUM variant.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    _occ: &Occupancy,
    variant: Variant,
) -> Result<Prediction, ModelError> {
    let p = params(profile, gpu)?;
    let r = evaluate(&p, variant)?;
    let bottleneck = if p.memory_cycles >= p.comp_cycles {
        "memory (N_memory >= N_comp per thread)"
    } else {
        "computation (N_comp > N_memory per thread)"
    };
    let breakdown: BTreeMap<String, f64> = [
        ("n_b", p.n_b),
        ("n_w", p.n_w),
        ("n_t", p.n_t),
        ("n_c", p.n_c),
        ("d", p.d),
        ("comp_cycles_per_thread", p.comp_cycles),
        ("memory_cycles_per_thread", p.memory_cycles),
        ("c_t", r.c_t),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Prediction::from_cycles(model_name(variant), r.cycles, p.r_hz, bottleneck, breakdown)
}
