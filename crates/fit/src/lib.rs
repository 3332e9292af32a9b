//! fit: measured cost models in the manner of Monro (seed 004), and the
//! calibration of GPU parameters from the gpu-benches microbenchmarks.
//!
//! A tour:
//! - [`linear`]: ordinary least squares for `f(x) = A x + B` and the small
//!   linear solver the other forms reuse.
//! - [`forms`]: the model forms real data needs (linear, piecewise linear with
//!   one hinge, `a ln x + b`, `a x^b`), each fitted by least squares, and the
//!   choice between them by an information criterion on the residual.
//! - [`check`]: the seed's model check (the share of points with
//!   `|AT - PT| < AT / 10`) and model finalisation (averaging A and B over data
//!   sets).
//! - [`measurements`]: the measurement CSV format (GPU, benchmark, x, time,
//!   unit, repetition) that GPU runs write and that machines without a GPU import.
//! - [`gpubench`]: readers for the plain tables written by te42kyfo/gpu-benches.
//! - [`bench_dir`]: every GPU of a gpu-benches folder at once.
//! - [`calibrate`]: bandwidth against occupancy, latency against footprint,
//!   cache bandwidths and launch overhead, written as `gpus/calibrated/<id>.toml`.
//! - [`plot`]: an SVG of the points and the fitted curve.
//! - [`calibration_plots`]: the points and fits a calibration's SVGs show.
//! - [`sets`]: one model per data set of a measurement CSV, and the finalised
//!   model of each (GPU, benchmark).
//! - [`combinators`]: cost predictions for map, fold and scan, and the corpus
//!   kernels emulated and checked against CPU references.
//!
//! Everything here but [`combinators::corpus`] (which runs the emulator) is a
//! pure function of its inputs; only the CLI prints.

pub mod bench_dir;
pub mod calibrate;
pub mod calibration;
pub mod calibration_plots;
pub mod check;
pub mod combinators;
pub mod forms;
pub mod gpubench;
pub mod linear;
pub mod measurements;
pub mod plot;
pub mod sets;

/// An error while reading or fitting data, with the place it refers to.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A malformed input line: `file:line: message`.
    #[error("{file}:{line}: error: {message}")]
    Parse {
        file: String,
        line: usize,
        message: String,
    },
    /// Not enough distinct points for the requested form.
    #[error("cannot fit {form}: {message}")]
    Degenerate { form: &'static str, message: String },
    /// A value that could not be written as TOML.
    #[error("cannot write TOML: {message}")]
    Write { message: String },
}

/// The calibration file's errors are this crate's, with the same messages.
impl From<arch::calibration::CalibrationError> for FitError {
    fn from(e: arch::calibration::CalibrationError) -> Self {
        use arch::calibration::CalibrationError as C;
        match e {
            C::Parse {
                file,
                line,
                message,
            } => FitError::Parse {
                file,
                line,
                message,
            },
            C::Write { message } => FitError::Write { message },
        }
    }
}
