//! [`PipelineError`]: every way a pipeline step can fail, as a value whose
//! `Display` is a finished diagnostic (`file:line:col: error: message` where
//! the cause is in a file, `file: error: message` where only the file is known).

use std::fmt;

/// Why a pipeline step failed.
#[derive(Debug, Clone, PartialEq)]
pub enum PipelineError {
    /// The launch spec does not parse or is inconsistent (located in the spec).
    Spec(emu::spec::SpecError),
    /// A file could not be read.
    Io { path: String, message: String },
    /// NVRTC is missing or the CUDA source did not compile; `message` holds the
    /// rendered NVRTC log (`file:line:col: error: ...` lines) or the search record.
    Compile { file: String, message: String },
    /// The PTX text does not parse: the rendered diagnostics (with `file:line:col`).
    Ptx(String),
    /// The spec's kernel is not an entry of the module, or names several.
    Kernel { file: String, message: String },
    /// The emulator faulted (the fault names CTA, thread and PTX line) or the
    /// launch could not be prepared.
    Emulation(String),
    /// The GPU catalog or the occupancy calculation refused.
    Arch(String),
    /// The cache model refused its inputs.
    Cache(String),
    /// A model refused (unknown name or unusable inputs).
    Model(String),
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spec(e) => write!(f, "{e}"),
            Self::Io { path, message } => write!(f, "{path}: error: cannot read file: {message}"),
            Self::Compile { file, message } => {
                let m = message.trim_end();
                if m.contains(": error") {
                    write!(f, "{m}\n{file}: error: compilation failed")
                } else {
                    write!(f, "{file}: error: {m}")
                }
            }
            Self::Ptx(rendered) => f.write_str(rendered.trim_end()),
            Self::Kernel { file, message } => write!(f, "{file}: error: {message}"),
            Self::Emulation(m) | Self::Arch(m) | Self::Cache(m) | Self::Model(m) => {
                if m.contains("error") {
                    f.write_str(m)
                } else {
                    write!(f, "error: {m}")
                }
            }
        }
    }
}

impl std::error::Error for PipelineError {}

impl From<emu::spec::SpecError> for PipelineError {
    fn from(e: emu::spec::SpecError) -> Self {
        Self::Spec(e)
    }
}
