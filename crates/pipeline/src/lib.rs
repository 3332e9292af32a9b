//! pipeline: launch spec -> PTX -> emulation -> KernelProfile -> predictions,
//! as library calls that the CLI (`predict`, `characterize`, `run`) and the
//! `validate` and `tune` crates share.
//!
//! The flow, one function per step:
//!
//! ```text
//! load_spec(path, overrides)            -> LoadedSpec   (spec parsed; .cu compiled by NVRTC, cached;
//! load_source(spec, text, opts)                          entry resolved; static shared memory)
//! profile(&loaded, &Options)            -> Profiled     (emulation of all or sampled CTAs: characterization,
//!                                                        KernelProfile with registers, cache trace)
//! predict(&profiled, &gpu, &models)     -> Predictions  (cache model for that GPU, occupancy,
//!                                                        every model, agreement)
//! ```
//!
//! Tour:
//! - [`load`]: [`load_spec`], [`load_spec_with`] (NVRTC path, or a checked-in
//!   PTX to use instead of compiling), [`load_source`] (source text in memory),
//!   [`compile_cached`] (the process-wide compilation cache).
//! - [`registers`]: ptxas register counts, else a labelled upper-bound
//!   estimate from the PTX's declared registers.
//! - [`trace`]: the observer that records global/local/constant accesses for
//!   the cache model during the same emulation as the characterization.
//! - [`spec_source`]: a spec's `source`, `defines` and `arch` alone, for
//!   compiling a spec's source without building its launch.
//! - [`cache`]: the GPU's cache geometry and the figures written to the profile.
//! - [`run`]: [`profile`], [`Options`], [`Profiled`]; [`profile_timed`] and
//!   [`load_source_timed`] also add the wall time of each stage to a
//!   [`StageTimes`] ([`timings`]: NVRTC, PTX parsing, ptxas, emulation,
//!   characterization, cache model, models).
//! - [`warmup`]: the earlier neighbours of a CTA sample, replayed into L2
//!   before the cache model runs the sample (`Options::neighbour_warmup`).
//! - [`sampling`]: which CTAs a sampled profile emulates (a spread sample;
//!   where its CTAs disagree, a probe of the grid and a sample stratified
//!   into idle, light and heavy CTAs).
//! - [`predict`](mod@predict): [`predict()`], [`predict_profile`], [`Predictions`].
//! - [`compare`](mod@compare): one emulation predicted on several GPUs
//!   ([`predict_on_gpus`]) and the GPUs lined up by the recommended model
//!   ([`compare()`]).
//!
//! - [`PROFILE_RULES`]: the version of what a profile counts, which saved
//!   profiles carry (`validate --resume` reads again only its own).
//!
//! Everything is deterministic: the emulation runs CTAs in order, the cache
//! model is deterministic, and the compilation cache only saves time.
//! Errors are [`PipelineError`] values whose `Display` is a finished
//! `file:line:col: error: ...` diagnostic where the cause is in a file.

pub mod cache;
pub mod compare;
pub mod error;
pub mod lines;
pub mod load;
pub mod predict;
pub mod registers;
pub mod run;
pub mod sampling;
pub mod spec_source;
pub mod timings;
pub mod trace;
pub mod warmup;

pub use compare::{
    ComparisonRow, GpuPredictions, OLDEST_ARCH, RECOMMENDED_MODEL, compare, gpu_arch, own_arch,
    predict_on_gpus, predict_profile_on_gpus, predict_spec_on_gpus,
};
pub use error::PipelineError;
pub use load::{
    CompiledPtx, DEFAULT_ARCH, LoadOptions, LoadedSpec, PtxOrigin, compile_cached, load_source,
    load_source_timed, load_spec, load_spec_with, template_id,
};
pub use predict::{
    ModelFailure, Predictions, default_models, occupancy_for, predict, predict_profile,
    register_estimate_doubt,
};
pub use run::{
    Options, Profiled, SAMPLING_GROWTH, SAMPLING_TARGET, profile, profile_timed,
    resources_for_arch, same_program,
};
pub use sampling::{MIN_WORKING_CTAS, PROBE_CTAS, PROBE_FUEL, WORK_BUDGET, budgeted_ctas};
pub use spec_source::{SpecSource, SpecSourceError, spec_source};
pub use timings::{Stage, StageTimes};

/// The reconvergence policies of the emulator, re-exported for callers of [`Options`].
pub use emu::simt::stack::Policy;

/// The version of what a profile counts: the collector's counting rules and
/// the cache model's, as of the change that last altered any figure a
/// profile holds (the date, with a serial when one day has two). Saved
/// profiles carry it (`validate --save-profiles`), and `validate --resume`
/// emulates again any profile saved under other rules, so that one run
/// never mixes the counts of two emulators. The test `profile_rules`
/// (crates/pipeline/tests/profile_rules.rs) holds every corpus kernel's
/// profile under these rules and fails, naming this constant, when a
/// change alters one.
pub const PROFILE_RULES: &str = "2026-12-06.5";
