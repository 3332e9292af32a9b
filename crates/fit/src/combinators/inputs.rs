//! The inputs of a combinator prediction: the GPU's fitted and catalog
//! parameters, and one launch's emulated counts.

use crate::calibrate::StreamFit;
use crate::forms::Model;
use crate::measurements::{DataSet, Unit};
use serde::Serialize;
use std::collections::BTreeMap;

/// The operation classes a prediction prices separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    IntAdd,
    IntMul,
    Fp32,
    Fp64,
    Sfu,
    /// Shared-memory accesses (4-byte words).
    Shared,
    /// Everything else the SM issues (control, conversions, moves, ...).
    Other,
}

impl OpClass {
    pub const ALL: [OpClass; 7] = [
        OpClass::IntAdd,
        OpClass::IntMul,
        OpClass::Fp32,
        OpClass::Fp64,
        OpClass::Sfu,
        OpClass::Shared,
        OpClass::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpClass::IntAdd => "int_add",
            OpClass::IntMul => "int_mul",
            OpClass::Fp32 => "fp32",
            OpClass::Fp64 => "fp64",
            OpClass::Sfu => "sfu",
            OpClass::Shared => "shared",
            OpClass::Other => "other",
        }
    }

    /// The class a microbenchmark of `microbench/ops.cu` measures, if any.
    /// Compare, AND and OR compile to integer (or predicate) ALU operations,
    /// so they price the integer-add class; on doubles they price fp64.
    pub fn of_benchmark(name: &str) -> Option<OpClass> {
        Some(match name {
            "int_add" | "int_cmp" | "int_and" | "int_or" => OpClass::IntAdd,
            "int_mul" => OpClass::IntMul,
            "dbl_add" | "dbl_mul" | "dbl_cmp" | "dbl_and" | "dbl_or" => OpClass::Fp64,
            _ => return None,
        })
    }
}

/// Stream bandwidth against occupancy, in GB/s (1 GB = 1e9 B).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BandwidthCurve {
    /// The hinge fitted to a gpu-benches stream column (x: occupancy in percent).
    Fitted { kernel: String, model: Model },
    /// What `gpus/calibrated/<id>.toml` keeps of that hinge: the plateau and
    /// the saturating occupancy. The rise is taken as linear from the origin,
    /// which the gpu-benches tables show (bandwidth about proportional to
    /// occupancy below the hinge).
    Calibrated {
        kernel: String,
        peak_gbps: f64,
        saturation_pct: f64,
    },
}

impl BandwidthCurve {
    pub fn from_stream_fit(fit: &StreamFit) -> BandwidthCurve {
        BandwidthCurve::Calibrated {
            kernel: fit.kernel.clone(),
            peak_gbps: fit.peak_gbps,
            saturation_pct: fit.saturation_occupancy_pct,
        }
    }

    /// The bandwidth at `occupancy_pct`, GB/s, never below a floor of
    /// 1e-9 GB/s so that a time divided by it stays finite.
    pub fn gbps_at(&self, occupancy_pct: f64) -> f64 {
        let v = match self {
            BandwidthCurve::Fitted { model, .. } => model.eval(occupancy_pct),
            BandwidthCurve::Calibrated {
                peak_gbps,
                saturation_pct,
                ..
            } => {
                if *saturation_pct <= 0.0 {
                    *peak_gbps
                } else {
                    peak_gbps * (occupancy_pct / saturation_pct).clamp(0.0, 1.0)
                }
            }
        };
        if v.is_finite() { v.max(1e-9) } else { 1e-9 }
    }

    pub fn kernel(&self) -> &str {
        match self {
            BandwidthCurve::Fitted { kernel, .. } | BandwidthCurve::Calibrated { kernel, .. } => {
                kernel
            }
        }
    }
}

/// What the model needs of a GPU. The CLI fills it from the catalog and the
/// calibration file; tests build it by hand.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuParams {
    pub id: String,
    pub sm_count: u32,
    pub clock_hz: f64,
    pub max_warps_per_sm: u32,
    /// Operations per clock per SM, per class (catalog throughput; `Shared`
    /// is shared bytes per clock / 4; `Other` is the issue rate: schedulers x 32).
    pub throughput: BTreeMap<OpClass, f64>,
    /// Cycles one barrier costs a CTA (the catalog's shared-memory latency).
    pub barrier_cycles: f64,
    /// Curve for launches that only read global memory (gpu-benches `read`).
    pub read_curve: BandwidthCurve,
    /// Curve for launches that read and write (gpu-benches `scale`: b[i] = s a[i]).
    pub copy_curve: BandwidthCurve,
    /// Launch overhead, seconds, or None when nothing measured it.
    pub launch_overhead_s: Option<f64>,
    /// Where the launch overhead comes from, or why there is none.
    pub launch_source: String,
}

/// Fitted cycles per dependent operation, per class, from measurement CSVs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpLatencies {
    /// Class -> (cycles per operation, the benchmarks averaged).
    pub by_class: BTreeMap<OpClass, (f64, String)>,
}

impl OpLatencies {
    /// Fit `time = A x + B` to each data set of `gpu` whose benchmark prices a
    /// class (x: dependent operations per thread, time in cycles, the format
    /// `gpurun` writes) and keep, per class, the largest finalised A (the
    /// slowest operation of the class, so the estimate is not optimistic).
    /// Data sets in other units, or that cannot be fitted, are skipped.
    pub fn from_datasets(sets: &[DataSet], gpu: &str) -> OpLatencies {
        let mut per_bench: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for s in sets {
            if s.key.gpu != gpu
                || s.unit != Unit::Cycles
                || OpClass::of_benchmark(&s.key.benchmark).is_none()
            {
                continue;
            }
            if let Ok(l) = crate::linear::fit_line(&s.xs, &s.times) {
                per_bench
                    .entry(s.key.benchmark.clone())
                    .or_default()
                    .push((l.a, l.b));
            }
        }
        let mut by_class: BTreeMap<OpClass, (f64, String)> = BTreeMap::new();
        for (bench, fits) in per_bench {
            let Some(class) = OpClass::of_benchmark(&bench) else {
                continue;
            };
            let Some((a, _)) = crate::check::finalise_linear(&fits) else {
                continue;
            };
            if !(a.is_finite() && a > 0.0) {
                continue;
            }
            let e = by_class.entry(class).or_insert((a, String::new()));
            if a >= e.0 {
                e.0 = a;
            }
            if !e.1.is_empty() {
                e.1.push_str(", ");
            }
            e.1.push_str(&bench);
        }
        OpLatencies { by_class }
    }
}

/// One launch's emulated counts (whole grid, extrapolated when CTAs were sampled).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StageCounts {
    /// The stage's name (`map`, `fold`, `fold final pass`, ...).
    pub name: String,
    pub load_bytes: f64,
    pub store_bytes: f64,
    /// Thread-level operations per class.
    pub ops: BTreeMap<OpClass, f64>,
    /// Barriers each thread passes.
    pub barriers_per_thread: f64,
    pub ctas: u64,
    pub threads_per_cta: u64,
    /// Resident CTAs per SM (occupancy calculator).
    pub blocks_per_sm: u32,
    /// Theoretical occupancy per SM (active warps / max warps), in [0, 1].
    pub occupancy: f64,
    /// A launch that a fused kernel cannot absorb (a fold's final pass).
    pub separate_launch: bool,
}
