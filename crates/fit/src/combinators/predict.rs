//! The equations of the combinator cost model.
//!
//! For one launch (a stage) on a GPU with `S` SMs at clock `f`:
//!
//! ```text
//! occ_eff   = min(occ, ctas * warps_per_cta / (S * max_warps_per_sm))      (fraction)
//! BW        = curve(100 * occ_eff)     read curve if stores <= 1 % of loads, else copy (scale) curve
//! T_mem     = (load_bytes + store_bytes) / BW
//! thr_c     = catalog_c, or min(catalog_c, 32 * occ_eff * max_warps_per_sm / L_c) with a fitted L_c
//! T_compute = sum_c ops_c / (S * thr_c * f)
//! waves     = ceil(ctas / (S * blocks_per_sm))
//! T_barrier = barriers_per_thread * waves * barrier_cycles / f
//! T         = T_launch + max(T_mem, T_compute) + T_barrier
//! ```
//!
//! A pipeline of stages costs `sum_s T_s`: every stage is its own launch and
//! pays its own `T_launch`. The fused estimate prices one kernel doing all
//! stages: one launch, the first stage's loads plus the last stage's stores
//! (intermediates stay in registers), the compute and barriers of every stage;
//! launches marked separate (a fold's final pass) are added unfused.

use super::inputs::{GpuParams, OpClass, OpLatencies, StageCounts};
use serde::Serialize;
use std::collections::BTreeMap;

/// The predicted cost of one launch with its parts (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StagePrediction {
    pub name: String,
    pub total_s: f64,
    pub launch_s: f64,
    pub memory_s: f64,
    pub compute_s: f64,
    pub barrier_s: f64,
    /// `memory` or `compute`, whichever of the two is larger.
    pub bound: &'static str,
    pub bytes: f64,
    pub occupancy_pct: f64,
    pub bandwidth_gbps: f64,
    /// The gpu-benches stream kernel whose curve priced the bytes.
    pub stream_kernel: String,
    /// Seconds per class.
    pub compute_by_class: BTreeMap<OpClass, f64>,
    /// Per class: `catalog` or `fitted L = ... cycles (benchmarks)`.
    pub compute_sources: BTreeMap<OpClass, String>,
    pub launch_source: String,
}

/// The effective occupancy of a launch, percent: the theoretical occupancy,
/// lowered when the grid has too few warps to fill every SM to it.
pub fn effective_occupancy_pct(gpu: &GpuParams, c: &StageCounts) -> f64 {
    let warps_per_cta = c.threads_per_cta.div_ceil(32) as f64;
    let capacity = f64::from(gpu.sm_count) * f64::from(gpu.max_warps_per_sm);
    let fill = if capacity > 0.0 {
        c.ctas as f64 * warps_per_cta / capacity
    } else {
        0.0
    };
    100.0 * c.occupancy.min(fill).clamp(0.0, 1.0)
}

/// Predict one launch (see the module documentation for the equations).
pub fn predict_stage(gpu: &GpuParams, lat: &OpLatencies, c: &StageCounts) -> StagePrediction {
    let occ_pct = effective_occupancy_pct(gpu, c);
    // A launch that stores at most 1 % of what it loads (a fold's partial
    // sums) streams like gpu-benches `read`; otherwise like `scale`.
    let curve = if c.store_bytes > 0.01 * c.load_bytes {
        &gpu.copy_curve
    } else {
        &gpu.read_curve
    };
    let bw = curve.gbps_at(occ_pct);
    let bytes = c.load_bytes + c.store_bytes;
    let memory_s = bytes / (bw * 1e9);

    let resident_threads = 32.0 * (occ_pct / 100.0) * f64::from(gpu.max_warps_per_sm);
    let sm_clock = f64::from(gpu.sm_count) * gpu.clock_hz;
    let mut compute_by_class = BTreeMap::new();
    let mut compute_sources = BTreeMap::new();
    for (&class, &ops) in &c.ops {
        if ops <= 0.0 {
            continue;
        }
        let catalog = gpu.throughput.get(&class).copied().unwrap_or(0.0);
        let (thr, source) = match lat.by_class.get(&class) {
            Some((l, benches)) if *l > 0.0 => {
                let little = resident_threads / l;
                let thr = if catalog > 0.0 {
                    catalog.min(little)
                } else {
                    little
                };
                (thr, format!("fitted L = {l:.3} cycles ({benches})"))
            }
            _ => (catalog, "catalog".to_string()),
        };
        let s = if thr > 0.0 && sm_clock > 0.0 {
            ops / (thr * sm_clock)
        } else {
            0.0
        };
        compute_by_class.insert(class, s);
        compute_sources.insert(
            class,
            if thr > 0.0 {
                source
            } else {
                "no throughput known: not priced".to_string()
            },
        );
    }
    let compute_s: f64 = compute_by_class.values().sum();

    let per_wave = u64::from(gpu.sm_count) * u64::from(c.blocks_per_sm.max(1));
    let waves = c.ctas.div_ceil(per_wave.max(1)) as f64;
    let barrier_s = if gpu.clock_hz > 0.0 {
        c.barriers_per_thread * waves * gpu.barrier_cycles / gpu.clock_hz
    } else {
        0.0
    };
    let launch_s = gpu.launch_overhead_s.unwrap_or(0.0);
    let (bound, body) = if memory_s >= compute_s {
        ("memory", memory_s)
    } else {
        ("compute", compute_s)
    };
    StagePrediction {
        name: c.name.clone(),
        total_s: launch_s + body + barrier_s,
        launch_s,
        memory_s,
        compute_s,
        barrier_s,
        bound,
        bytes,
        occupancy_pct: occ_pct,
        bandwidth_gbps: bw,
        stream_kernel: curve.kernel().to_string(),
        compute_by_class,
        compute_sources,
        launch_source: gpu.launch_source.clone(),
    }
}

/// A pipeline's prediction: its stages and their sum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelinePrediction {
    pub stages: Vec<StagePrediction>,
    /// `sum of stage totals` (each stage includes its own launch overhead).
    pub total_s: f64,
    /// The launch overheads included in `total_s`.
    pub launch_overheads_s: f64,
    /// One fused kernel (see [`fused_estimate`]), when there are two or more stages.
    pub fused: Option<FusedEstimate>,
}

/// Predict every stage and compose: the sum of the stages, each paying its launch.
pub fn predict_pipeline(
    gpu: &GpuParams,
    lat: &OpLatencies,
    stages: &[StageCounts],
) -> PipelinePrediction {
    let preds: Vec<StagePrediction> = stages.iter().map(|c| predict_stage(gpu, lat, c)).collect();
    let total_s = preds.iter().map(|p| p.total_s).sum();
    let launch_overheads_s = preds.iter().map(|p| p.launch_s).sum();
    let fused = (stages.len() >= 2)
        .then(|| fused_estimate(gpu, lat, stages))
        .flatten();
    PipelinePrediction {
        stages: preds,
        total_s,
        launch_overheads_s,
        fused,
    }
}

/// The fused estimate of a pipeline: one kernel for the fusable stages, plus
/// the launches that stay separate (a fold's final pass needs every block's
/// partial result, so it cannot join the kernel before it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusedEstimate {
    pub fused: StagePrediction,
    pub separate: Vec<StagePrediction>,
    pub total_s: f64,
}

/// The cost of one kernel that does every fusable stage: the first stage's
/// loads and the last fusable stage's stores, every stage's operations and
/// barriers, launched on the first stage's grid; the separate stages are
/// added as they are. An estimate of what fusion could save, not a
/// prediction of a kernel that exists. None when no stage is fusable.
pub fn fused_estimate(
    gpu: &GpuParams,
    lat: &OpLatencies,
    stages: &[StageCounts],
) -> Option<FusedEstimate> {
    let fusable: Vec<&StageCounts> = stages.iter().filter(|s| !s.separate_launch).collect();
    let first = fusable.first()?;
    let last = fusable.last()?;
    let mut ops: BTreeMap<OpClass, f64> = BTreeMap::new();
    for s in &fusable {
        for (&k, &v) in &s.ops {
            *ops.entry(k).or_default() += v;
        }
    }
    let names: Vec<&str> = fusable.iter().map(|s| s.name.as_str()).collect();
    let counts = StageCounts {
        name: format!("fused({})", names.join("+")),
        load_bytes: first.load_bytes,
        store_bytes: last.store_bytes,
        ops,
        barriers_per_thread: fusable.iter().map(|s| s.barriers_per_thread).sum(),
        ..(*first).clone()
    };
    let fused = predict_stage(gpu, lat, &counts);
    let separate: Vec<StagePrediction> = stages
        .iter()
        .filter(|s| s.separate_launch)
        .map(|s| predict_stage(gpu, lat, s))
        .collect();
    let total_s = fused.total_s + separate.iter().map(|p| p.total_s).sum::<f64>();
    Some(FusedEstimate {
        fused,
        separate,
        total_s,
    })
}
