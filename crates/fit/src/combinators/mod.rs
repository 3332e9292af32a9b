//! Cost predictions for the combinators map, fold and scan (seed 004), and for
//! pipelines of them, composed from fitted models and emulated counts.
//!
//! Seed 004 builds the cost of a combinator program from the measured costs
//! of its parts (data transfer, kernel call, algorithm). Here the parts are:
//!
//! - memory: the global bytes the emulator counted, at the stream bandwidth
//!   that the gpu-benches calibration fitted against occupancy (a hinge:
//!   rise, then plateau), read at the launch's effective occupancy;
//! - compute: the emulated thread operations per class at the class's
//!   throughput: the catalog's lanes per SM, or, where a measurement CSV for
//!   the GPU gave a fitted cycles-per-operation latency `L`, at most
//!   `resident threads / L` operations per cycle per SM (Little's law: one
//!   dependent chain per thread);
//! - barriers: one shared-memory latency per barrier per wave of CTAs
//!   (an assumption; no microbenchmark measures `__syncthreads`);
//! - launch: the overhead fitted from gpu-benches small-kernels, where the
//!   GPU has one, else none (stated in [`StagePrediction::launch_source`]).
//!
//! One launch costs `T = T_launch + max(T_mem, T_compute) + T_barrier`
//! ([`predict_stage`]); a pipeline costs the sum of its stages, each with its
//! own launch ([`predict_pipeline`]), and a fused estimate is offered
//! ([`fused_estimate`]). The equations are pure functions of their inputs; [`corpus`] runs the
//! emulator to get the counts.
//!
//! - [`inputs`]: what a prediction reads ([`GpuParams`], [`BandwidthCurve`],
//!   [`OpLatencies`], [`StageCounts`]).
//! - [`predict`]: the equations.
//! - [`calibrated`]: the stream curves and launch overhead of a
//!   `gpus/calibrated/<id>.toml` file.
//! - [`reference`]: the CPU references of the corpus kernels' outputs.
//! - [`corpus`]: the corpus kernels' launches at a size N, emulated, checked
//!   against [`reference`] and counted.
//! - [`sweep`]: a catalog GPU's [`GpuParams`], and predictions over sizes.
//! - [`plot`]: the SVG of predicted cost against N.

pub mod calibrated;
pub mod corpus;
#[cfg(test)]
mod corpus_tests;
pub mod inputs;
pub mod plot;
pub mod predict;
pub mod reference;
pub mod sweep;
#[cfg(test)]
mod tests;

pub use corpus::{Combinator, CorpusError, CorpusOptions, emulate};
pub use inputs::{BandwidthCurve, GpuParams, OpClass, OpLatencies, StageCounts};
pub use predict::{
    FusedEstimate, PipelinePrediction, StagePrediction, effective_occupancy_pct, fused_estimate,
    predict_pipeline, predict_stage,
};
pub use sweep::{NoStreamFit, SweepRow, gpu_params, sweep};
