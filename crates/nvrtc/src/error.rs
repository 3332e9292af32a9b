//! Every way loading NVRTC or compiling with it can fail, as values.

use std::fmt;
use std::path::PathBuf;

use crate::locate::SearchStep;
use crate::log::Diagnostic;

/// The one command that installs NVRTC and the CUDA headers for this project.
pub const INSTALL_HINT: &str = "bash scripts/setup.sh";

/// A failure of the NVRTC layer. Nothing in this crate panics on bad input or a
/// missing library: every failure ends up here.
#[derive(Debug, Clone, PartialEq)]
pub enum NvrtcError {
    /// The library (or the headers) could not be found; `searched` lists every
    /// place that was tried, in order.
    NotFound {
        what: &'static str,
        searched: Vec<SearchStep>,
    },
    /// `dlopen` failed on a file that exists.
    Load { path: PathBuf, message: String },
    /// The library lacks a symbol this crate needs (wrong library, or too old).
    MissingSymbol { path: PathBuf, symbol: &'static str },
    /// An NVRTC call other than the compilation itself returned an error code.
    Api {
        call: &'static str,
        code: i32,
        message: String,
    },
    /// The source did not compile: NVRTC's whole log, and its diagnostics parsed.
    Compile {
        name: String,
        log: String,
        diagnostics: Vec<Diagnostic>,
        options: Vec<String>,
    },
    /// A compile option is malformed (bad arch, bad define name, NUL byte ...).
    InvalidOption(String),
    /// The source or the program name holds a NUL byte, which the C API cannot carry.
    InvalidText(&'static str),
}

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NvrtcError::NotFound { what, searched } => {
                writeln!(f, "{what} not found; searched, in order:")?;
                for step in searched {
                    writeln!(f, "  - {step}")?;
                }
                write!(f, "install it with: {INSTALL_HINT}")
            }
            NvrtcError::Load { path, message } => {
                write!(f, "cannot load NVRTC from {}: {message}", path.display())
            }
            NvrtcError::MissingSymbol { path, symbol } => write!(
                f,
                "{} is not a usable NVRTC library: symbol `{symbol}` is missing (install NVRTC 12.x with: {INSTALL_HINT})",
                path.display()
            ),
            NvrtcError::Api {
                call,
                code,
                message,
            } => {
                write!(f, "NVRTC call {call} failed with code {code}: {message}")
            }
            NvrtcError::Compile { name, log, .. } => {
                write!(f, "NVRTC could not compile {name}:\n{}", log.trim_end())
            }
            NvrtcError::InvalidOption(msg) => write!(f, "invalid compile option: {msg}"),
            NvrtcError::InvalidText(what) => write!(f, "the {what} contains a NUL byte"),
        }
    }
}

impl std::error::Error for NvrtcError {}
