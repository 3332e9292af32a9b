//! The common shape every ground-truth importer produces: one measured (or
//! failed) configuration per row, parameter values in a fixed column order.

use std::fmt;

/// One tunable-parameter value. Kernel Tuner spaces are almost always
/// integers; anything else (a string, or a non-integral number kept as the
/// exact text of the file) is carried verbatim, since Kernel Tuner writes it
/// into the source with Python's `str()`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParamValue {
    Int(i64),
    Str(String),
}

impl ParamValue {
    /// The integer, when this value is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            ParamValue::Int(v) => Some(*v),
            ParamValue::Str(_) => None,
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Str(s) => f.write_str(s),
        }
    }
}

/// Why a configuration has no time. Kernel Tuner writes these markers in
/// place of the time; they are failures, never times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailReason {
    /// `"CompilationFailedConfig"`: the compiler rejected this instance
    /// (typically too much shared memory or too many registers).
    Compilation,
    /// `"RuntimeFailedConfig"`: the launch failed (too many resources).
    Runtime,
    /// `"InvalidConfig"`: excluded by the search-space restrictions.
    Invalid,
    /// Any other marker or missing measurement, with its text.
    Other(String),
}

impl FailReason {
    /// Classifies Kernel Tuner's marker string.
    pub fn from_marker(marker: &str) -> FailReason {
        match marker {
            "CompilationFailedConfig" => FailReason::Compilation,
            "RuntimeFailedConfig" => FailReason::Runtime,
            "InvalidConfig" => FailReason::Invalid,
            other => FailReason::Other(other.to_string()),
        }
    }
}

impl fmt::Display for FailReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailReason::Compilation => f.write_str("CompilationFailedConfig"),
            FailReason::Runtime => f.write_str("RuntimeFailedConfig"),
            FailReason::Invalid => f.write_str("InvalidConfig"),
            FailReason::Other(s) => f.write_str(s),
        }
    }
}

/// A measured time in milliseconds. `mean_ms` is what Kernel Tuner calls
/// `time`; the others are present when the file has the repetitions (Kernel
/// Tuner `times`) or the summary columns (Schoonhoven CSV).
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    pub mean_ms: f64,
    pub median_ms: Option<f64>,
    pub min_ms: Option<f64>,
    /// Population standard deviation (numpy's default, ddof = 0).
    pub std_ms: Option<f64>,
    /// Number of repetitions behind the figures.
    pub n: Option<u32>,
    /// The mean of the last quarter of the launches over the mean of the
    /// first quarter, in launch order, where the file keeps at least
    /// [`DRIFT_MIN_LAUNCHES`] of them: above 1, the launches slowed through
    /// the run (a GPU that did not hold its clock).
    pub drift: Option<f64>,
}

/// The fewest launches [`Timing::drift`] is read from (two in each quarter).
pub const DRIFT_MIN_LAUNCHES: usize = 8;

/// The outcome of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub enum Measured {
    Time(Timing),
    Failed(FailReason),
}

impl Measured {
    /// The mean time, when the configuration ran.
    pub fn mean_ms(&self) -> Option<f64> {
        match self {
            Measured::Time(t) => Some(t.mean_ms),
            Measured::Failed(_) => None,
        }
    }
}

/// One configuration: its parameter values (in `Dataset::params` order) and
/// what was measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub values: Vec<ParamValue>,
    pub measured: Measured,
}

/// A measured search space of one kernel on one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The GPU as the file names it (`device_name`, or from the file name).
    pub gpu: String,
    /// The kernel's entry name.
    pub kernel: String,
    /// Problem size when the file records it (Kernel Tuner caches do).
    pub problem_size: Option<Vec<i64>>,
    /// Parameter names, the column order of every `Row::values`.
    pub params: Vec<String>,
    /// Rows in file order.
    pub rows: Vec<Row>,
    /// The NVRTC version that built the measured kernels, where the file
    /// records it (`measured_by.nvrtc` of this project's measurements).
    pub compiler: Option<String>,
}

impl Dataset {
    /// The row's parameters as (name, value) pairs in column order, the form
    /// `Experiment::launch` takes.
    pub fn named_values<'a>(&'a self, row: &'a Row) -> Vec<(&'a str, &'a ParamValue)> {
        self.params
            .iter()
            .map(String::as_str)
            .zip(row.values.iter())
            .collect()
    }

    /// Counts and time range of the dataset.
    pub fn summary(&self) -> Summary {
        let mut times: Vec<f64> = self
            .rows
            .iter()
            .filter_map(|r| r.measured.mean_ms())
            .collect();
        times.sort_by(f64::total_cmp);
        let valid = times.len();
        Summary {
            configurations: self.rows.len(),
            valid,
            failed: self.rows.len() - valid,
            min_ms: times.first().copied(),
            median_ms: crate::stats::median_of_sorted(&times),
            max_ms: times.last().copied(),
        }
    }
}

/// Counts and the range of mean times of a dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub configurations: usize,
    pub valid: usize,
    pub failed: usize,
    pub min_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub max_ms: Option<f64>,
}

/// How far apart the measured times of some configurations lie, against how
/// much one configuration's repeated launches scatter: when the span is
/// close to the noise, a rank correlation over them is mostly noise.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    /// Configurations that ran.
    pub n: usize,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Median over those configurations of std / mean of their repeated
    /// launches, where the data has them.
    pub noise: Option<f64>,
    /// Median over those configurations of [`Timing::drift`], where the
    /// data has the launches in order.
    pub drift: Option<f64>,
}

impl Spread {
    /// The spread of the configurations that ran (None when none did).
    pub fn of<'a>(measured: impl IntoIterator<Item = &'a Measured>) -> Option<Spread> {
        let timings: Vec<&Timing> = measured
            .into_iter()
            .filter_map(|m| match m {
                Measured::Time(t) if t.mean_ms.is_finite() && t.mean_ms > 0.0 => Some(t),
                _ => None,
            })
            .collect();
        let min_ms = timings.iter().map(|t| t.mean_ms).reduce(f64::min)?;
        let max_ms = timings.iter().map(|t| t.mean_ms).reduce(f64::max)?;
        // The median of a per-configuration figure, over those that have it.
        let median = |figure: fn(&Timing) -> Option<f64>| {
            let mut v: Vec<f64> = timings
                .iter()
                .filter_map(|t| figure(t))
                .filter(|x| x.is_finite())
                .collect();
            v.sort_by(f64::total_cmp);
            crate::stats::median_of_sorted(&v)
        };
        Some(Spread {
            n: timings.len(),
            min_ms,
            max_ms,
            noise: median(|t| t.std_ms.map(|s| s / t.mean_ms)),
            drift: median(|t| t.drift),
        })
    }

    /// Slowest over fastest.
    pub fn span(&self) -> f64 {
        self.max_ms / self.min_ms
    }
}

#[cfg(test)]
mod spread_tests {
    use super::*;

    fn time(mean_ms: f64, std_ms: Option<f64>) -> Measured {
        Measured::Time(Timing {
            mean_ms,
            median_ms: None,
            min_ms: None,
            std_ms,
            n: None,
            drift: None,
        })
    }

    #[track_caller]
    fn check(measured: &[Measured], expect: Option<(usize, f64, f64, Option<f64>)>) {
        let got = Spread::of(measured).map(|s| (s.n, s.min_ms, s.max_ms, s.noise));
        assert_eq!(got, expect);
    }

    #[test]
    fn spread_of_measured_times() {
        check(&[], None);
        check(&[Measured::Failed(FailReason::Invalid)], None);
        check(&[time(2.0, None)], Some((1, 2.0, 2.0, None)));
        // Failed configurations are left out; noise is the median std/mean.
        check(
            &[
                time(2.0, Some(0.02)),
                Measured::Failed(FailReason::Runtime),
                time(4.0, Some(0.4)),
                time(1.0, Some(0.03)),
            ],
            Some((3, 1.0, 4.0, Some(0.03))),
        );
        // A configuration without repetitions counts for the range only.
        check(
            &[time(3.0, None), time(6.0, Some(0.12))],
            Some((2, 3.0, 6.0, Some(0.02))),
        );
        let s = Spread::of(&[time(1.5, None), time(6.0, None)]).map(|s| s.span());
        assert_eq!(s, Some(4.0));
    }
}
