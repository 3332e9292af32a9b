//! Errors of the arch crate, as values. Those about a file carry its path and,
//! where the text points at something, the 1-based line and column, and render
//! as `file:line:col: error: message`.

use thiserror::Error;

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArchError {
    /// A file could not be read.
    #[error("{path}: error: cannot read: {message}")]
    Io { path: String, message: String },
    /// A GPU file is not valid TOML or does not match the `Gpu` schema.
    #[error("{file}:{line}:{col}: error: {message}")]
    Parse {
        file: String,
        line: usize,
        col: usize,
        message: String,
    },
    /// A GPU file parsed but a value is out of range or inconsistent.
    #[error("{file}:{line}:{col}: error: {field}: {message}")]
    Invalid {
        file: String,
        line: usize,
        col: usize,
        field: String,
        message: String,
    },
    /// Two files declare the same id.
    #[error("{file}: error: GPU id `{id}` is already defined by {other}")]
    DuplicateId {
        file: String,
        id: String,
        other: String,
    },
    /// No GPU of that id in the catalog.
    #[error("error: no GPU `{id}` in the catalog{}", did_you_mean(.suggestions))]
    UnknownGpu {
        id: String,
        suggestions: Vec<String>,
    },
    /// A launch that cannot run on the GPU at all (too many threads, registers or shared memory).
    #[error("error: launch cannot run on {gpu}: {reason}")]
    Unlaunchable { gpu: String, reason: String },
    /// ptxas is not installed where we look.
    #[error(
        "error: ptxas not found (looked in: {searched}); set PTXPERF_PTXAS or run scripts/setup.sh"
    )]
    PtxasNotFound { searched: String },
    /// ptxas ran and failed, or its output could not be read.
    #[error("error: ptxas failed: {message}")]
    Ptxas { message: String },
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => "; `ptxperf gpus` lists them".to_string(),
        [one] => format!("; did you mean `{one}`?"),
        many => format!(
            "; did you mean one of: {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A compute capability that is not `MAJOR.MINOR` (the text as written).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("compute capability `{0}` is not of the form MAJOR.MINOR (e.g. \"8.0\")")]
pub struct BadComputeCapability(pub String);

/// A sustained core clock, MHz, outside what [`crate::Gpu::with_sustained_clock`] accepts.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("a core clock of {0} MHz is outside 1 to 10000 MHz")]
pub struct ClockOutOfRange(pub f64);

impl ArchError {
    /// A TOML syntax or shape error of `file` (text `text`), at its line and
    /// column.
    pub(crate) fn toml(file: &str, text: &str, e: &toml::de::Error) -> ArchError {
        let (line, col) = e.span().map_or((1, 1), |s| syntax::line_col(text, s.start));
        ArchError::Parse {
            file: file.to_string(),
            line,
            col,
            message: e.message().trim().to_string(),
        }
    }
}
