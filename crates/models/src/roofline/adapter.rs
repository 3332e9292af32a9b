//! Roofline parameters from a profile and a GPU.
//!
//! | symbol | source |
//! |---|---|
//! | `W` | `analysis.roofline.flops`, else the thread instructions' flops (FMA = 2); a kernel without flops is measured in operations (thread instructions that compute) |
//! | `pi` | flops: `gpu.peak_fp32_flops()` (FMA = 2 per lane per cycle), or `gpu.peak_fp64_flops()` when FP64 flops are the majority; operations: one per FP32 lane per cycle |
//! | DRAM `Q`, `beta` | `global.dram_bytes`, else transactions x transaction size, else bytes requested; `gpu.memory.bandwidth_gbs` |
//! | L2 (hierarchical) | `global.l2_bytes` when given; **the GPU file has no L2 bandwidth**, so it is assumed to be 2x the DRAM bandwidth (an assumption, between the Luo et al. measurements of models.md 7.4) |
//! | shared (hierarchical) | shared bytes requested x mean bank-conflict ways; `gpu.throughput.shared_bytes_per_clock` per SM, **default 4 B x 32 banks = 128 B per clock** (16 banks = 64 B for CC 1.x) x SMs x clock |

use std::collections::BTreeMap;

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::{Level, RooflineParams, RooflineResult, evaluate};
use crate::derive::{dram_bytes, transaction_bytes};
use crate::prediction::{ModelError, Prediction, invalid};

/// Assumed L2 bandwidth as a multiple of the DRAM bandwidth (no catalog field).
pub const L2_BANDWIDTH_OVER_DRAM: f64 = 2.0;

/// What the work is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkUnit {
    Flops,
    Operations,
}

impl WorkUnit {
    /// `flop` or `op`.
    pub fn name(self) -> &'static str {
        match self {
            WorkUnit::Flops => "flop",
            WorkUnit::Operations => "op",
        }
    }
}

/// The work, its unit and the compute roof.
pub fn work_and_peak(
    profile: &KernelProfile,
    gpu: &Gpu,
) -> Result<(f64, WorkUnit, f64), ModelError> {
    let t = &profile.thread_instructions;
    let flops = profile.analysis.roofline.flops.unwrap_or_else(|| t.flops());
    if flops > 0.0 {
        let fp64 = t.fp64 + 2.0 * t.fp64_fma;
        let peak = if fp64 * 2.0 > t.flops() && t.flops() > 0.0 {
            if gpu.sm.fp64_lanes == 0 {
                return Err(invalid(
                    "roofline",
                    format!("{} has no FP64 units", gpu.name),
                ));
            }
            gpu.peak_fp64_flops()
        } else {
            gpu.peak_fp32_flops()
        };
        Ok((flops, WorkUnit::Flops, peak))
    } else {
        Ok((
            t.compute(),
            WorkUnit::Operations,
            gpu.fp32_lanes_total() as f64 * crate::derive::clock_hz(gpu),
        ))
    }
}

/// Classic (DRAM only) or hierarchical parameters.
pub fn params(
    profile: &KernelProfile,
    gpu: &Gpu,
    hierarchical: bool,
) -> Result<(RooflineParams, WorkUnit), ModelError> {
    let (work, unit, peak) = work_and_peak(profile, gpu)?;
    let dram_bw = gpu.dram_bytes_per_second();
    let mut levels = vec![Level {
        name: "DRAM".into(),
        bytes: dram_bytes(profile, transaction_bytes(gpu)),
        bandwidth: dram_bw,
    }];
    if hierarchical {
        if let Some(l2) = profile.global.l2_bytes
            && gpu.caches.l2_bytes > 0
        {
            levels.push(Level {
                name: "L2".into(),
                bytes: l2,
                bandwidth: L2_BANDWIDTH_OVER_DRAM * dram_bw,
            });
        }
        let s = &profile.shared;
        let shared_bytes = (s.loads.bytes + s.stores.bytes) * s.mean_conflict_ways();
        if shared_bytes > 0.0 {
            let default_per_clock = if gpu.compute_capability.major == 1 {
                64.0
            } else {
                128.0
            };
            let per_clock = gpu
                .throughput
                .shared_bytes_per_clock
                .unwrap_or(default_per_clock);
            let bandwidth = per_clock * f64::from(gpu.sm_count) * crate::derive::clock_hz(gpu);
            levels.push(Level {
                name: "shared".into(),
                bytes: shared_bytes,
                bandwidth,
            });
        }
    }
    Ok((RooflineParams { work, peak, levels }, unit))
}

/// Model name of each form.
pub fn model_name(hierarchical: bool) -> &'static str {
    if hierarchical {
        "roofline-hierarchical"
    } else {
        "roofline"
    }
}

/// Evaluate and also return the parameters (for the chart).
pub fn analyse(
    profile: &KernelProfile,
    gpu: &Gpu,
    hierarchical: bool,
) -> Result<(RooflineParams, WorkUnit, RooflineResult), ModelError> {
    let (p, unit) = params(profile, gpu, hierarchical)?;
    let r = evaluate(&p)?;
    Ok((p, unit, r))
}

/// Predict the roofline lower bound.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    _occ: &Occupancy,
    hierarchical: bool,
) -> Result<Prediction, ModelError> {
    let (p, unit, r) = analyse(profile, gpu, hierarchical)?;
    let bottleneck = if r.binding == "compute" {
        format!("compute roof ({})", unit.name())
    } else {
        format!("{} bandwidth", r.binding)
    };
    let mut breakdown = BTreeMap::new();
    breakdown.insert(format!("work_{}", unit.name()), p.work);
    breakdown.insert("peak_per_second".into(), p.peak);
    breakdown.insert("compute_seconds".into(), r.compute_seconds);
    for (level, l) in p.levels.iter().zip(&r.levels) {
        let key = l.name.to_lowercase();
        breakdown.insert(format!("{key}_bytes"), level.bytes);
        breakdown.insert(format!("{key}_seconds"), l.seconds);
        breakdown.insert(format!("{key}_ridge"), l.ridge);
        if l.intensity.is_finite() {
            breakdown.insert(format!("{key}_intensity"), l.intensity);
        }
    }
    let clock = crate::derive::clock_hz(gpu);
    Prediction::from_cycles(
        model_name(hierarchical),
        r.seconds * clock,
        clock,
        bottleneck,
        breakdown,
    )
}
