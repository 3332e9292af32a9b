//! The error every subcommand returns: a message already fit for stderr and an exit status.

use std::fmt;

/// A failed command. `message` is printed to stderr as is (it may hold several
/// rendered diagnostics, one per line block); the process exits with `code`.
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: i32,
}

impl CliError {
    /// A user error (bad input file, kernel fault): exit status 1.
    pub fn user(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: 1,
        }
    }

    /// Bad usage (conflicting or missing flags): exit status 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: 2,
        }
    }

    /// Print the message to stderr, making sure it ends with a newline.
    pub fn report(&self) {
        let msg = self.message.trim_end();
        if msg.is_empty() {
            return;
        }
        if msg.contains("error") || msg.contains("warning") {
            eprintln!("{msg}");
        } else {
            eprintln!("error: {msg}");
        }
    }

    pub fn code(&self) -> i32 {
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Read a whole input file, turning an I/O failure into a user error naming the path.
pub fn read_input(path: &std::path::Path) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::user(format!("{}: error: cannot read file: {e}", path.display())))
}

impl From<fit::combinators::CorpusError> for CliError {
    fn from(e: fit::combinators::CorpusError) -> Self {
        match e {
            // A grid past 2^32 - 1 CTAs comes from the sizes asked for.
            fit::combinators::CorpusError::GridTooLarge(_) => Self::usage(e.to_string()),
            _ => Self::user(e.to_string()),
        }
    }
}

impl From<fit::combinators::NoStreamFit> for CliError {
    fn from(e: fit::combinators::NoStreamFit) -> Self {
        Self::user(e.to_string())
    }
}

impl From<petri::emulated::EmulatedError> for CliError {
    fn from(e: petri::emulated::EmulatedError) -> Self {
        Self::user(e.to_string())
    }
}
