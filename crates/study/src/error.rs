//! The errors of this crate, each `Display` a finished diagnostic (as the
//! CLI printed them before the code moved here).

use std::path::PathBuf;

use crate::message::first_nonblank_line;

/// Why the PTX cache could not serve a compilation.
#[derive(Debug, thiserror::Error)]
pub enum PtxCacheError {
    #[error("{}: error: cannot create the PTX cache: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    /// No cache folder: none of the variables that name one is set.
    #[error(
        "no cache folder: set PTXPERF_CACHE_DIR (or XDG_CACHE_HOME or HOME), give --cache DIR, or --no-cache"
    )]
    NoDir,
    /// NVRTC could not be loaded, or its version (part of the key) read.
    #[error("{0}")]
    Nvrtc(nvrtc::NvrtcError),
    /// The source did not compile: NVRTC's log in the error.
    #[error("{0}")]
    Compile(nvrtc::NvrtcError),
}

/// Why a launch has no emulator spec.
#[derive(Debug, thiserror::Error)]
pub enum LaunchSpecError {
    #[error("{what} dimension {value} does not fit 32 bits")]
    Dimension { what: &'static str, value: u64 },
    #[error("type {0} is unknown to the emulator")]
    UnknownType(validate::ScalarType),
    /// An initial value the element type cannot hold.
    #[error(transparent)]
    Encode(#[from] emu::spec::EncodeError),
    #[error("{}: cannot create: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a tuning target could not be opened, or a configuration prepared.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{}: error: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Spec(#[from] emu::spec::SpecError),
    #[error("{0}")]
    Experiment(#[from] validate::FileError),
    #[error("{0}")]
    Source(#[from] validate::ReadSourceError),
    #[error("{0}")]
    LaunchSpec(#[from] LaunchSpecError),
    /// `--param` names that neither the kernel source nor the spec or
    /// experiment file mentions: tuning them would change nothing.
    #[error(
        "{}: error: --param {} {} not used by the kernel: not a macro or name in {}, not a define or variable of {}; check the spelling, or give --allow-unused-param",
        target.display(),
        names.join(", "),
        if names.len() == 1 { "is" } else { "are" },
        kernel_source.display(),
        target.display()
    )]
    UnusedParams {
        names: Vec<String>,
        target: PathBuf,
        kernel_source: PathBuf,
    },
}

/// Why one configuration of a validation study never reached the models
/// (recorded as its failure reason; the study goes on).
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// The kernel's source files could not be read or edited.
    #[error("{0}")]
    Source(#[from] validate::ReadSourceError),
    /// NVRTC refused the source: its first log line.
    #[error("NVRTC: {}", first_nonblank_line(&.0.to_string()))]
    Compile(nvrtc::NvrtcError),
    /// NVRTC could not be loaded or asked for its version.
    #[error("{0}")]
    Cache(PtxCacheError),
    #[error("{0}")]
    LaunchSpec(#[from] LaunchSpecError),
    #[error("load: {}", first_nonblank_line(&.0.to_string()))]
    Load(pipeline::PipelineError),
    #[error("emulation: {}", first_nonblank_line(&.0.to_string()))]
    Emulation(pipeline::PipelineError),
    /// `--profiles`: no profile was saved for the configuration.
    #[error("{}: no saved profile ({source}); save them with `validate ... --save-profiles DIR` (or PTXPERF_VALIDATE_DUMP=DIR)", path.display())]
    NoProfile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `--profiles`: the run that saved the profiles failed on this
    /// configuration (`<defines>.failed` holds its reason).
    #[error("{}: failed when the profiles were saved: {reason}", path.display())]
    FailedWhenSaved { path: PathBuf, reason: String },
    /// `--resume`: the saved profile is not one to read again (cut short,
    /// or saved under other profile rules).
    #[error("{}: not resumed: {why}", path.display())]
    NotResumable {
        path: PathBuf,
        why: crate::validation::saved::NotResumable,
    },
    #[error("{}: {source}", path.display())]
    BadProfile {
        path: PathBuf,
        source: profile::ProfileError,
    },
}

impl From<PtxCacheError> for PredictError {
    fn from(e: PtxCacheError) -> Self {
        match e {
            PtxCacheError::Compile(e) => PredictError::Compile(e),
            other => PredictError::Cache(other),
        }
    }
}

/// Why a profile could not be saved (`--save-profiles`).
#[derive(Debug, thiserror::Error)]
pub enum SaveProfileError {
    #[error("{}: error: cannot serialise the profile: {source}", path.display())]
    Serialise {
        path: PathBuf,
        source: toml::ser::Error,
    },
    #[error("{}: error: cannot create the folder: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: error: cannot save: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a study could not run (a failing configuration is not an error: it
/// is recorded with its reason).
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("cannot start {jobs} worker threads: {source}")]
    ThreadPool {
        jobs: usize,
        source: rayon::ThreadPoolBuildError,
    },
    #[error("{0}")]
    Cache(#[from] PtxCacheError),
    #[error("{0}")]
    Target(#[from] TargetError),
    #[error("{0}")]
    File(#[from] validate::FileError),
    /// A profile could not be saved (`--save-profiles`).
    #[error("{0}")]
    SaveProfile(#[from] SaveProfileError),
    /// `validation::run_many` was given no data file.
    #[error("no data file to validate")]
    NoPair,
    /// `Options::ptx_arch` is not an architecture NVRTC compiles for, or is
    /// newer than a GPU's: ptxas builds PTX only for its own target or a
    /// newer one.
    #[error("--ptx-arch {arch}: {why}")]
    PtxArch { arch: String, why: String },
    /// The objective cannot rank the data's configurations.
    #[error("{0}")]
    Objective(String),
}
