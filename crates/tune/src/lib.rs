//! tune: launch-configuration search without a GPU, the parts that need
//! neither the emulator nor the models.
//!
//! A tour, in the order `ptxperf tune` uses them:
//! - [`space`]: a [`Space`] of named parameters (integers or strings), from
//!   `--param NAME=V1,V2,...` ([`parse_param_arg`]) or a space file in the
//!   spirit of Kernel Tuner's `tune_params` and `restrictions`
//!   ([`Space::load`]); [`Space::expand`] enumerates the cartesian product,
//!   first parameter slowest (as `itertools.product`), and applies the
//!   restrictions, counting what each one rejected.
//! - [`constraint`]: the restriction language, C and Python spellings both
//!   (`&&`/`and`, `!`/`not`, chained comparisons, `//`, `**`), checked
//!   integer arithmetic, errors with the column of the offending token.
//! - [`launch`]: a configuration's grid, block and dynamic shared memory
//!   from the `[launch]` table's expressions (`validate::expr`), with Kernel
//!   Tuner's defaults (`block_size_x/y/z`, grid = ceil(problem / div)).
//! - [`launchable`]: which configurations can launch on a GPU, given their
//!   registers and shared memory ([`check_launch`], [`filter_launchable`]),
//!   using `arch::occupancy`, each rejection with its reason ([`Rejection`]).
//! - [`cache`]: a folder of JSON entries keyed by (source hash, defines,
//!   grid, block, GPU, model-set version) with a stable FNV-1a hash, so a
//!   second run re-uses every stored result ([`ResultCache`]).
//! - [`rank`]: per-model ranking, top-K, the distinct winners where models
//!   disagree, and the ground-truth metrics (rank of the measured best in a
//!   model's top 10, measured time of its pick over the measured best).
//! - [`objective`]: what a run ranks by when it is not the time alone
//!   (Kernel Tuner's `objective`, a GFLOP/s say), as a cost, lower first.
//! - [`measured`]: a space of the configurations ground-truth files timed
//!   ([`measured_space`], `--measured`), with their measured times;
//!   [`selection`]: the configurations a run evaluates ([`select`]: the
//!   space or the measured ones, sampled, the measured times lined up).
//!
//! Pure data and pure functions (apart from the cache's files): nothing here
//! prints; errors are [`TuneError`] values naming what the user wrote.

pub mod cache;
pub mod constraint;
pub mod error;
pub mod launch;
pub mod launchable;
pub mod measured;
pub mod objective;
pub mod rank;
pub mod selection;
pub mod space;
mod verdicts;

pub use cache::{CacheKey, CacheStats, ResultCache, fnv1a64};
pub use constraint::{Constraint, ConstraintError, Value};
pub use error::TuneError;
pub use launch::{LaunchDims, LaunchShape, Size, SizeError};
pub use launchable::{
    Candidate, LaunchFilter, Launchable, Rejection, Resources, check_launch, filter_launchable,
};
pub use measured::{MeasuredError, MeasuredSpace, measured_space};
pub use objective::{Objective, RawObjective};
pub use rank::{
    Bound, ModelRanking, ModelTimes, PickMetrics, RankBy, TIE_RELATIVE, Winner, Winners, format_ms,
    pick_metrics, rank, rank_models, ranked_times, shared_ranks, tie, tied_best, top_k, winners,
};
pub use selection::{
    MeasuredArgError, MeasuredTimes, Selection, SelectionError, pair_measured, select,
};
pub use space::{Config, Expansion, Param, Space, parse_param_arg, parse_value};
