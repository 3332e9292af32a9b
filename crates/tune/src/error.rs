//! Error values of this crate. Each names what the user wrote: the file and
//! the key (or line:column), the `--param` argument, or the constraint with
//! the column of the offending token.

use crate::constraint::ConstraintError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TuneError {
    /// A space file that cannot be read or does not fit the format; `at` is
    /// `line:col` or a key path such as `params.block_size_x[2]` (may be empty).
    #[error("{file}: error: {}{message}", if at.is_empty() { String::new() } else { format!("at {at}: ") })]
    File {
        file: String,
        at: String,
        message: String,
    },
    /// A bad `--param NAME=V1,V2,...` (or a parameter with no values).
    #[error("parameter `{arg}`: {message}")]
    Param { arg: String, message: String },
    /// A constraint that does not parse, or reads an unknown name.
    #[error("constraint `{constraint}`: {error}")]
    Constraint {
        constraint: String,
        error: ConstraintError,
    },
    /// A restriction whose evaluation failed on one configuration.
    #[error("constraint `{constraint}` on {config}: {error}")]
    Restriction {
        constraint: String,
        config: String,
        error: ConstraintError,
    },
    /// A launch expression that failed on one configuration.
    #[error("launch `{key}` on {config}: {message}")]
    Launch {
        key: String,
        config: String,
        message: String,
    },
    /// An objective that does not parse, reads what it cannot, or has no
    /// value on a configuration.
    #[error("objective `{objective}`: {message}")]
    Objective { objective: String, message: String },
    #[error("the space has {size} configurations, more than the {max} that can be enumerated")]
    TooLarge { size: String, max: u64 },
    /// The result cache's folder or one of its files.
    #[error("cache {path}: {message}")]
    Cache { path: String, message: String },
}
