//! The error every subcommand returns: its text for stderr, whether that text
//! is already a finished diagnostic, and the exit status.

use std::fmt;

/// A failed command. Plain messages are printed after `error: `; diagnostics
/// (text already in `file:line:col: error: ...` form, possibly several
/// blocks, warnings before the error) are printed as they are.
#[derive(Debug)]
pub enum CliError {
    /// A plain message: a user error (bad input file, failed step), exit status 1.
    User(String),
    /// A plain message: bad usage (conflicting or missing flags), exit status 2.
    Usage(String),
    /// A finished diagnostic for a user error, exit status 1.
    Diagnostic(String),
    /// A finished diagnostic for bad usage, exit status 2.
    UsageDiagnostic(String),
}

impl CliError {
    /// A user error with a plain message: exit status 1.
    pub fn user(message: impl Into<String>) -> Self {
        Self::User(message.into())
    }

    /// Bad usage with a plain message: exit status 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage(message.into())
    }

    /// A user error whose text is already a rendered diagnostic: exit status 1.
    pub fn diagnostic(text: impl Into<String>) -> Self {
        Self::Diagnostic(text.into())
    }

    /// Bad usage whose text is already a rendered diagnostic: exit status 2.
    pub fn usage_diagnostic(text: impl Into<String>) -> Self {
        Self::UsageDiagnostic(text.into())
    }

    /// A library error as a user error (exit status 1), printed as its type renders it.
    pub fn of(e: &(impl Rendered + ?Sized)) -> Self {
        if e.is_diagnostic() {
            Self::Diagnostic(e.to_string())
        } else {
            Self::User(e.to_string())
        }
    }

    /// A library error as bad usage (exit status 2), printed as its type renders it.
    pub fn usage_of(e: &(impl Rendered + ?Sized)) -> Self {
        if e.is_diagnostic() {
            Self::UsageDiagnostic(e.to_string())
        } else {
            Self::Usage(e.to_string())
        }
    }

    /// Print to stderr, making sure the text ends with a newline.
    pub fn report(&self) {
        let (text, plain) = match self {
            Self::User(m) | Self::Usage(m) => (m, true),
            Self::Diagnostic(t) | Self::UsageDiagnostic(t) => (t, false),
        };
        let text = text.trim_end();
        if text.is_empty() {
            return;
        }
        if plain {
            eprintln!("error: {text}");
        } else {
            eprintln!("{text}");
        }
    }

    pub fn code(&self) -> i32 {
        match self {
            Self::User(_) | Self::Diagnostic(_) => 1,
            Self::Usage(_) | Self::UsageDiagnostic(_) => 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User(m) | Self::Usage(m) | Self::Diagnostic(m) | Self::UsageDiagnostic(m) => {
                f.write_str(m)
            }
        }
    }
}

/// Read a whole input file, turning an I/O failure into a user error naming the path.
pub fn read_input(path: &std::path::Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| {
        CliError::diagnostic(format!("{}: error: cannot read file: {e}", path.display()))
    })
}

mod rendered;
pub use rendered::Rendered;

impl From<fit::combinators::CorpusError> for CliError {
    fn from(e: fit::combinators::CorpusError) -> Self {
        match e {
            // A grid past 2^32 - 1 CTAs comes from the sizes asked for.
            fit::combinators::CorpusError::GridTooLarge(_) => Self::usage_of(&e),
            _ => Self::of(&e),
        }
    }
}

impl From<fit::combinators::NoStreamFit> for CliError {
    fn from(e: fit::combinators::NoStreamFit) -> Self {
        Self::of(&e)
    }
}

impl From<petri::emulated::EmulatedError> for CliError {
    fn from(e: petri::emulated::EmulatedError) -> Self {
        Self::of(&e)
    }
}

/// The libraries' errors that commands pass on with `?`: user errors
/// (exit status 1), printed as their types render them.
macro_rules! user_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                Self::of(&e)
            }
        }
    )*};
}

user_error_from!(
    study::StudyError,
    study::TargetError,
    study::PtxCacheError,
    tune::MeasuredError
);
