//! What ptxperf shows: text tables, JSON values, Markdown and SVG built from
//! the library crates' results. Every function returns a `String` or a
//! `serde_json::Value`; only the binary prints. Tables take the width to
//! keep within (the terminal's, or [`table::PIPE_WIDTH`] for a file or a
//! pipe), so that the same input renders the same bytes.

pub mod by_param;
pub mod cfg;
pub mod characterize;
pub mod combinators;
pub mod csv;
pub mod fit;
pub mod gpus;
pub mod learn;
pub mod measure;
pub mod petri;
pub mod predict;
pub mod table;
pub mod timings;
pub mod tune;
pub mod tune_csv;
pub mod tune_kt_cache;
pub mod validate;
pub mod validate_csv;
