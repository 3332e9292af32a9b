//! validate: scoring predictions against times measured on real GPUs.
//!
//! A short tour:
//! - [`dataset`]: the common result of every importer, a [`Dataset`] of
//!   [`Row`]s (parameter values and a [`Measured`] time or failure);
//! - [`kt_cache`] and [`schoonhoven`]: importers for Kernel Tuner cache files
//!   (JSON, gzipped or not) and the Schoonhoven CSVs; [`read`] gunzips;
//! - [`experiment`]: experiment files (TOML) saying how a configuration
//!   becomes the launch Kernel Tuner made ([`Launch`]): grid, block, defines,
//!   arguments, constant symbols; [`expr`] evaluates their size expressions;
//! - [`source`]: Kernel Tuner's define prefix and its `loop_unroll_factor`
//!   rule, applied to a source text;
//! - [`stats`]: MAPE, median APE, median predicted/measured, Spearman,
//!   Kendall tau-b, top-1 % overlap, best-configuration ratio; [`sample`]:
//!   seeded choice of configurations; [`split`]: the committed split of the
//!   data into a development part and a check part;
//! - [`score`]: what was predicted joined with what was measured, and the
//!   accuracy table per model (pure: the runner lives in the `study` crate);
//!   [`bootstrap`]: 90 % percentile intervals of its figures;
//!   [`by_param`]: a model's median predicted/measured and MAPE per value
//!   of each tunable parameter (where its bias moves);
//! - [`transfer`]: the transferred-best baseline (the configuration measured
//!   fastest on another GPU, run on this one).
//!
//! Nothing here prints; errors are values naming the file and the place
//! (line, or JSON / TOML key path).

pub mod blend;
pub mod bootstrap;
pub mod by_bottleneck;
pub mod by_expression;
pub mod by_param;
pub mod by_term;
pub mod dataset;
pub mod error;
pub mod experiment;
pub mod expr;
pub mod kt_cache;
pub mod launch;
pub mod read;
pub mod sample;
pub mod schoonhoven;
pub mod score;
pub mod source;
pub mod split;
pub mod stats;
pub mod t4;
pub mod transfer;

pub use dataset::{Dataset, FailReason, Measured, ParamValue, Row, Spread, Summary, Timing};
pub use error::{FileError, Location};
pub use experiment::Experiment;
pub use kt_cache::{import_kt_cache, parse_kt_cache};
pub use launch::{Init, Launch, LaunchArg, LaunchConstant, ScalarType, ScalarValue};
pub use schoonhoven::{import_schoonhoven_csv, parse_schoonhoven_csv};
pub use source::{
    Define, ReadSourceError, Replace, SourceFiles, defines_read_by, instantiate_source,
};
pub use t4::{import_t4, parse_t4};

use std::path::Path;

/// Imports any ground-truth file this crate knows: `.csv` or `.csv.gz` is
/// a Schoonhoven CSV; any other file a T4 results file when its top level
/// has `results` (before any `cache`), else a Kernel Tuner cache. A T4
/// file's kernel is empty (the format does not name it).
pub fn import_dataset(path: &Path) -> Result<Dataset, FileError> {
    let name = path.to_string_lossy();
    if name.ends_with(".csv") || name.ends_with(".csv.gz") {
        return import_schoonhoven_csv(path);
    }
    let text = read::read_text(path)?;
    if t4::looks_like_t4(&text) {
        t4::parse_t4_text(&name, &text, &t4::gpu_from_t4_file_name(path))
    } else {
        kt_cache::parse_kt_cache_text(&name, &text)
    }
}
