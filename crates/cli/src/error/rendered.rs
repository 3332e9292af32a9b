//! Which library errors render as finished diagnostics (`file:line: error:
//! ...`, printed as they are) and which as plain messages (printed after
//! `error: `), decided per type and variant from each `Display`.
//!
//! A variant that shows an operating-system error (`... (os error 2)`) is
//! printed as is: the CLI printed such messages without the `error: `
//! prefix before this was typed, and its output does not change.

use std::fmt::Display;

/// A library error the CLI reports: its text, and whether that text is
/// already a finished diagnostic.
pub trait Rendered: Display {
    fn is_diagnostic(&self) -> bool;
}

/// Types whose every variant renders as a diagnostic.
macro_rules! diagnostic {
    ($($t:ty),* $(,)?) => {$(
        impl Rendered for $t {
            fn is_diagnostic(&self) -> bool {
                true
            }
        }
    )*};
}

/// Types whose every variant renders as a plain message.
macro_rules! plain {
    ($($t:ty),* $(,)?) => {$(
        impl Rendered for $t {
            fn is_diagnostic(&self) -> bool {
                false
            }
        }
    )*};
}

diagnostic!(
    arch::ArchError,
    validate::FileError,
    pipeline::PipelineError,
    pipeline::SpecSourceError,
    emu::spec::SpecError,
    emu::fault::Fault,
    gpurun::GpuRunError,
    fit::sets::SetFitError,
    fit::combinators::NoStreamFit,
    study::SaveProfileError,
    study::EvaluateError,
);

plain!(
    petri::warp::WarpError,
    petri::SweepError,
    models::ModelError,
    tune::MeasuredArgError,
    fit::combinators::plot::PlotError,
    ptx::analysis::cfg::CfgError,
    serde_json::Error,
);

impl<T: Rendered + ?Sized> Rendered for Box<T> {
    fn is_diagnostic(&self) -> bool {
        (**self).is_diagnostic()
    }
}

impl Rendered for tune::TuneError {
    fn is_diagnostic(&self) -> bool {
        // Cache: an I/O failure's text (see the module comment).
        matches!(self, Self::File { .. } | Self::Cache { .. })
    }
}

impl Rendered for conformance::recorded::KitError {
    fn is_diagnostic(&self) -> bool {
        // Io shows the operating-system error (see the module comment).
        matches!(self, Self::Io { .. })
    }
}

impl Rendered for study::LaunchSpecError {
    fn is_diagnostic(&self) -> bool {
        // CreateDir and Write show the operating-system error.
        matches!(self, Self::CreateDir { .. } | Self::Write { .. })
    }
}

impl Rendered for tune::MeasuredError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::NoFile => false,
            Self::File(e) => e.is_diagnostic(),
            Self::Restriction(e) => e.is_diagnostic(),
        }
    }
}

impl Rendered for tune::SelectionError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Space(e) => e.is_diagnostic(),
            Self::Measured(e) => e.is_diagnostic(),
        }
    }
}

impl Rendered for nvrtc::NvrtcError {
    fn is_diagnostic(&self) -> bool {
        // A failed compilation carries NVRTC's log, whose lines are diagnostics.
        matches!(self, Self::Compile { .. })
    }
}

impl Rendered for study::PtxCacheError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Create { .. } => true,
            Self::NoDir => false,
            Self::Nvrtc(e) | Self::Compile(e) => e.is_diagnostic(),
        }
    }
}

impl Rendered for study::TargetError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Read { .. }
            | Self::Spec(_)
            | Self::Experiment(_)
            | Self::Source(_)
            | Self::UnusedParams { .. } => true,
            Self::LaunchSpec(e) => e.is_diagnostic(),
        }
    }
}

impl Rendered for study::learning::LearningError {
    fn is_diagnostic(&self) -> bool {
        !matches!(
            self,
            Self::CheckPart { .. } | Self::NoSamples | Self::Learn(_)
        )
    }
}

impl Rendered for study::StudyError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Cache(e) => e.is_diagnostic(),
            Self::Target(e) => e.is_diagnostic(),
            // ThreadPool: the operating system refused the threads.
            Self::ThreadPool { .. } | Self::File(_) | Self::SaveProfile(_) => true,
            Self::NoPair | Self::PtxArch { .. } | Self::Objective(_) => false,
        }
    }
}

impl Rendered for fit::combinators::CorpusError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Pipeline(_) | Self::Fault(_) | Self::Mismatch { .. } => true,
            Self::GridTooLarge(_) => false,
        }
    }
}

impl Rendered for petri::emulated::EmulatedError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Pipeline(_) => true,
            Self::Characterize(e) => e.is_diagnostic(),
            Self::Model { .. } => false,
        }
    }
}

impl Rendered for characterize::CharacterizeError {
    fn is_diagnostic(&self) -> bool {
        // Parse holds rendered PTX diagnostics; Launch a plain reason.
        !matches!(self, Self::Launch(_))
    }
}

impl Rendered for fit::FitError {
    fn is_diagnostic(&self) -> bool {
        matches!(self, Self::Parse { .. })
    }
}

impl Rendered for arch::calibration::CalibrationError {
    fn is_diagnostic(&self) -> bool {
        matches!(self, Self::Parse { .. })
    }
}

impl Rendered for fit::bench_dir::DirError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Io { .. } => true,
            Self::Fit(e) => e.is_diagnostic(),
        }
    }
}

impl Rendered for fit::calibration_plots::PlotDataError {
    fn is_diagnostic(&self) -> bool {
        match self {
            Self::Read { .. } => true,
            Self::Fit(e) => e.is_diagnostic(),
        }
    }
}
