//! A catalog GPU as the cost model sees it, and the sweep of the corpus's
//! combinators (and a pipeline of them) over problem sizes.

use super::calibrated::CalibratedGpu;
use super::corpus::{Combinator, CorpusError, CorpusOptions, emulate};
use super::inputs::{BandwidthCurve, GpuParams, OpClass, OpLatencies};
use super::predict::{PipelinePrediction, predict_pipeline};
use arch::Gpu;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The calibration file lacks a stream fit the model needs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{}: error: no stream fit for kernel `{kernel}` (run `ptxperf fit gpu-benches --write`)",
    file.display()
)]
pub struct NoStreamFit {
    pub file: PathBuf,
    pub kernel: &'static str,
}

/// The model's view of `gpu`: catalog throughputs, calibrated stream curves
/// and launch overhead (`cal_file` is where `cal` was read, for messages).
pub fn gpu_params(
    gpu: &Gpu,
    cal: &CalibratedGpu,
    cal_file: &Path,
) -> Result<GpuParams, NoStreamFit> {
    let curve = |kernel: &'static str| -> Result<BandwidthCurve, NoStreamFit> {
        cal.stream(kernel).cloned().ok_or_else(|| NoStreamFit {
            file: cal_file.to_path_buf(),
            kernel,
        })
    };
    let t = &gpu.throughput;
    let mut throughput = BTreeMap::new();
    let lanes = |v: Option<f64>, fallback: f64| v.unwrap_or(fallback);
    throughput.insert(OpClass::Fp32, lanes(t.fp32, f64::from(gpu.sm.fp32_lanes)));
    throughput.insert(OpClass::Fp64, lanes(t.fp64, f64::from(gpu.sm.fp64_lanes)));
    throughput.insert(OpClass::Sfu, lanes(t.sfu, f64::from(gpu.sm.sfu)));
    throughput.insert(
        OpClass::IntAdd,
        lanes(t.int_add, f64::from(gpu.sm.fp32_lanes)),
    );
    throughput.insert(
        OpClass::IntMul,
        lanes(t.int_mul, f64::from(gpu.sm.fp32_lanes)),
    );
    // 4-byte words per clock; without a catalog figure, 32 banks x 4 bytes.
    throughput.insert(
        OpClass::Shared,
        t.shared_bytes_per_clock.unwrap_or(128.0) / 4.0,
    );
    let issue = f64::from(gpu.sm.warp_schedulers) * f64::from(gpu.sm.warp_size);
    throughput.insert(OpClass::Other, issue);
    let (launch_overhead_s, launch_source) = match cal.launch_overhead_us {
        Some(us) => (
            Some(us * 1e-6),
            format!(
                "fitted: {} (small-kernels)",
                cal.launch_source
                    .clone()
                    .unwrap_or_else(|| cal_file.display().to_string())
            ),
        ),
        None => (
            None,
            format!(
                "missing: {} has no small-kernels fit and the catalog has no launch overhead; none included",
                cal_file.display()
            ),
        ),
    };
    Ok(GpuParams {
        id: gpu.id.clone(),
        sm_count: gpu.sm_count,
        clock_hz: gpu.clock_hz(),
        max_warps_per_sm: gpu.limits.max_warps_per_sm,
        throughput,
        barrier_cycles: gpu.latencies.shared,
        read_curve: curve("read")?,
        copy_curve: curve("scale")?,
        launch_overhead_s,
        launch_source,
    })
}

/// One predicted combinator (or pipeline, named `map,fold`) at one size.
#[derive(Debug, Clone)]
pub struct SweepRow {
    pub what: String,
    pub n: u64,
    pub prediction: PipelinePrediction,
}

/// Every combinator at every size, then (when `pipeline` is not empty) the
/// pipeline at that size, each emulated, checked and predicted.
pub fn sweep(
    opts: &CorpusOptions,
    gpu: &Gpu,
    params: &GpuParams,
    lat: &OpLatencies,
    sizes: &[u64],
    pipeline: &[Combinator],
) -> Result<Vec<SweepRow>, CorpusError> {
    let mut rows = Vec::new();
    for &n in sizes {
        for comb in Combinator::ALL {
            let stages = emulate(opts, gpu, comb, n)?;
            rows.push(SweepRow {
                what: comb.name().to_string(),
                n,
                prediction: predict_pipeline(params, lat, &stages),
            });
        }
        if !pipeline.is_empty() {
            let mut stages = Vec::new();
            for &comb in pipeline {
                stages.extend(emulate(opts, gpu, comb, n)?);
            }
            let names: Vec<&str> = pipeline.iter().map(|c| c.name()).collect();
            rows.push(SweepRow {
                what: names.join(","),
                n,
                prediction: predict_pipeline(params, lat, &stages),
            });
        }
    }
    Ok(rows)
}
