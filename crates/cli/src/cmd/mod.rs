//! One module per subcommand; each is owned by the issue that builds it.

pub mod cfg;
pub mod characterize;
pub mod check;
pub mod combinators;
pub mod compile;
pub mod fit;
pub mod gpus;
pub mod measure;
pub mod petri;
pub mod predict;
pub mod report;
pub mod run;
pub mod tune;
pub mod validate;
