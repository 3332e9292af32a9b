//! TMM from a profile and a GPU (models.md 3.1 and 7.4).
//!
//! | symbol | source |
//! |---|---|
//! | `L` | `gpu.latencies.dram` |
//! | `P`, `Q` | `gpu.sm_count * gpu.sm.fp32_lanes`, `gpu.sm.fp32_lanes` |
//! | `Z` | `gpu.limits.shared_per_sm_bytes / 4` (32-bit words) |
//! | `X` | `gpu.limits.max_threads_per_sm / gpu.sm.fp32_lanes` |
//! | `C` | transaction size / 4 (32 words for 128 B segments, 8 for 32 B sectors) |
//! | `T1` | thread instructions of the kernel, every class at unit cost |
//! | `T_inf` | the costliest thread's operations at 1 cycle each, its global accesses at `L` each (`per_thread.max`) |
//! | `M` | global transactions; when the profile has none, `ceil(bytes / (4C))` |
//! | `T` | threads of the grid |
//! | `S` | (static + dynamic shared bytes per block) / threads per block / 4 |

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::{Bound, TmmParams, evaluate};
use crate::derive::transaction_bytes;
use crate::prediction::{ModelError, Prediction};

/// Fill TMM's parameters.
pub fn params(profile: &KernelProfile, gpu: &Gpu) -> TmmParams {
    let lanes = f64::from(gpu.sm.fp32_lanes);
    let c = transaction_bytes(gpu) / 4.0;
    let l = gpu.latencies.dram;
    let max = &profile.per_thread.max;
    let g = &profile.global;
    let m = if g.transactions() > 0.0 {
        g.transactions()
    } else {
        (g.bytes() / (4.0 * c)).ceil()
    };
    let threads_per_block = profile.launch.threads_per_block() as f64;
    let shared_bytes =
        (profile.resources.static_shared_per_block + profile.launch.dynamic_shared) as f64;
    TmmParams {
        l,
        p: f64::from(gpu.sm_count) * lanes,
        q: lanes,
        z: gpu.limits.shared_per_sm_bytes as f64 / 4.0,
        x: f64::from(gpu.limits.max_threads_per_sm) / lanes.max(1.0),
        c,
        t1: profile.thread_instructions.total(),
        span: (max.total() - max.global()) + max.global() * l,
        m,
        threads: profile.launch.threads() as f64,
        s: shared_bytes / threads_per_block.max(1.0) / 4.0,
    }
}

/// Predict with TMM.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    _occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    let p = params(profile, gpu);
    let r = evaluate(&p)?;
    let bottleneck = match r.bound {
        Bound::Work => "work (T1/P)",
        Bound::Span => "span (critical path)",
        Bound::Latency => "memory latency (M*L/T_conc)",
    };
    let breakdown: BTreeMap<String, f64> = [
        ("t_conc", r.t_conc),
        ("work_term", r.work_term),
        ("span_term", r.span_term),
        ("memory_term", r.memory_term),
        ("t1", p.t1),
        ("m", p.m),
        ("s_words_per_thread", p.s),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Prediction::from_cycles(
        "tmm",
        r.cycles,
        crate::derive::clock_hz(gpu),
        bottleneck,
        breakdown,
    )
}
