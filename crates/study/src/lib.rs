//! study: validation and tuning studies as library calls, above `pipeline`
//! (spec -> PTX -> emulation -> predictions), `validate` (ground truth,
//! experiment files, statistics) and `tune` (spaces, launchability, result
//! cache). A notebook, a tuner or a service calls these; the `ptxperf` CLI
//! only parses arguments, calls them and renders what they return.
//!
//! Tour:
//! - [`ptx_cache`]: [`PtxCache`], PTX on disk under one key (the NVRTC
//!   version, the source, the options: [`nvrtc::cache_key`]), shared by
//!   `validate` and `tune`.
//! - [`launch_spec`]: a Kernel Tuner launch (`validate::Launch`) as the
//!   emulator's launch spec.
//! - [`target`] and [`evaluate`]: what is tuned, and one configuration
//!   compiled and emulated once, then predicted on every GPU of a run
//!   ([`Evaluator`], typed [`Evaluation`]s); [`ranking`]: one GPU's
//!   ranking of them, the models' picks, and the picks against measured times.
//! - [`validation`]: the validation runner (a real [`validation::Engine`]
//!   or a [`validation::Replay`] of saved profiles, run in parallel) and
//!   [`validation::run`], a whole `ptxperf validate` study as one call.
//! - [`timings`]: [`Timings`], where each configuration's time went (per
//!   pipeline stage, wall seconds, cache hits), and their sum; filled by
//!   both studies, rendered by the CLI (`--json`, `--timings`).
//! - [`message`]: the one-line summaries of multi-line diagnostics that
//!   failures are recorded with.
//!
//! Nothing here prints; errors are typed ([`StudyError`] and the per-module
//! enums), each `Display` a finished diagnostic.

pub mod error;
pub mod evaluate;
pub mod launch_spec;
pub mod learning;
pub mod message;
pub mod ptx_cache;
pub mod ranking;
pub mod target;
pub mod timings;
pub mod validation;
pub mod workers;

pub use error::{
    LaunchSpecError, PredictError, PtxCacheError, SaveProfileError, StudyError, TargetError,
};
pub use evaluate::{
    EvaluateError, Evaluation, Evaluator, ModelResult, Outcome, Status, total_timings,
};
pub use ptx_cache::PtxCache;
pub use ranking::{GpuRanking, rank_on_gpu};
pub use target::{Target, arch_for};
pub use timings::Timings;
