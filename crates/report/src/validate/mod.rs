//! The three forms of a validation result: a terminal table, JSON (schema 1)
//! and a Markdown section for docs/validation/README.md. Pure functions of
//! [`Summary`] and the scores; the caller prints or writes them.

mod cells;
mod json;
#[cfg(test)]
mod tests;

pub use json::{json, json_multi, shared_line};

use cells::{
    HEADERS, INTERVAL_HEADERS, bootstrap_line, header_lines, interval_lines, interval_row, notes,
    row, transfer_lines,
};

use validate::bootstrap::{Bootstrap, Intervals};
use validate::score::ModelScore;
use validate::transfer::{Transfer, TransferError};

/// The note every form carries: what is compared with what.
pub const TIME_NOTE: &str = "ptxperf predicts the kernel's execution time; Kernel Tuner's \
`time` is the mean of CUDA-event timings around each launch, so it also holds the launch \
overhead (a few microseconds). No constant is fitted to the measurements: the figures are \
the models' own.";

/// What was run, for the header of every form.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The command line that produced the result.
    pub command: String,
    pub experiment: String,
    pub data: String,
    /// The GPU as the data file names it.
    pub data_gpu: String,
    /// The catalog id the predictions are for.
    pub gpu: String,
    pub kernel: String,
    /// Configurations in the data file.
    pub configurations: usize,
    /// The part of the split scored (`--part`), if one was chosen.
    pub part: Option<PartOf>,
    /// Which part of the split the sampled configurations measured here
    /// belong to, where a split file was found.
    pub split_parts: Option<SplitParts>,
    /// Configurations sampled (all when `sample` is `None`).
    pub sampled: usize,
    pub sample: Option<usize>,
    pub seed: u64,
    pub sample_ctas: u64,
    /// The one architecture every configuration was compiled for
    /// (`--ptx-arch`), if one was given.
    pub ptx_arch: Option<String>,
    /// The folder the profiles were rescored from (`--profiles`), if any.
    pub profiles: Option<String>,
    /// With `--profiles`: the profile rules of the profiles read, each with
    /// how many (`None`: saved before profiles named their rules).
    pub profile_rules: Vec<(Option<String>, usize)>,
    /// The clock the models ran at (`--clock-mhz`) and the catalog's rated
    /// clock, MHz, where the run overrode it.
    pub clock_mhz: Option<(f64, f64)>,
    pub jobs: usize,
    pub elapsed_s: f64,
    /// PTX compilations served from the cache, and those compiled.
    pub ptx_cache_hits: usize,
    pub ptx_compiled: usize,
    /// Configurations rescored from the profiles an interrupted run saved
    /// (`--resume`): neither compiled nor emulated.
    pub resumed: usize,
    /// The measured times of the sampled configurations that ran.
    pub measured: Option<validate::Spread>,
    /// The NVRTC versions behind the measured kernels (where the data file
    /// says) and behind ptxperf's PTX, e.g. ("13.0", "12.9").
    pub compilers: Option<(String, String)>,
    /// Where the configurations' time went, added up.
    pub timings: study::Timings,
    /// How the intervals were drawn (`--bootstrap`), if they were.
    pub bootstrap: Option<Bootstrap>,
    /// The transferred-best baseline (`--transfer-from`), if asked for.
    pub transfer: Option<TransferOf>,
    /// What ranks the configurations when it is not the time alone
    /// (`--objective`, or the experiment's `[objective]`).
    pub objective: Option<tune::Objective>,
}

/// The transferred-best baseline of a run: from which data file, and the
/// figure (with the transferred configuration's `NAME=VALUE,...`) or why
/// there is none.
#[derive(Debug, Clone)]
pub struct TransferOf {
    pub file: String,
    /// The other GPU, as its data file names it.
    pub from_gpu: String,
    /// Whether --sample or --part restricted the set it was taken within.
    pub restricted: bool,
    /// The objective's name where one ranked (the best there and here are
    /// by it, and the ratio is of its values).
    pub objective: Option<String>,
    pub result: Result<(Transfer, String), TransferError>,
}

/// One part of the split (`--part`): which, from which file, the data
/// file's role there, and the configurations of the data in that part.
#[derive(Debug, Clone, PartialEq)]
pub struct PartOf {
    pub part: &'static str,
    pub split: String,
    pub role: &'static str,
    pub configurations: usize,
}

/// The sampled configurations measured here, counted by their part of the
/// split: which figures come from development data and which from check
/// data (docs/validation/split.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitParts {
    /// The split file.
    pub split: String,
    pub development: usize,
    pub check: usize,
    /// In neither part (the file is excluded and was scored with --allow-excluded).
    pub excluded: usize,
    /// The part of each sampled configuration measured here, by row index:
    /// `development`, `check` or `excluded` (each result's `part` in JSON).
    pub of_row: std::collections::BTreeMap<usize, &'static str>,
}

/// The terminal form: header lines, the table, the intervals' and the
/// transfer's lines, notes.
/// The text report; tables and wrapped lines within `width` columns.
pub fn text(sum: &Summary, scores: &[ModelScore], intervals: &[Intervals], width: u16) -> String {
    let mut out = String::new();
    for line in header_lines(sum) {
        out.push_str(&line);
        out.push('\n');
    }
    let mut table = crate::table::new(width);
    table.set_header(HEADERS);
    for s in scores {
        table.add_row(row(s, None));
    }
    out.push_str(&format!("{table}\n"));
    // The intervals in a table of their own: eleven columns of figures with
    // intervals do not fit a terminal.
    if let Some(line) = bootstrap_line(sum.bootstrap.as_ref()).filter(|_| !intervals.is_empty()) {
        out.push_str(&format!("{line}:\n"));
        let mut table = crate::table::new(width);
        table.set_header(INTERVAL_HEADERS);
        for (s, i) in scores.iter().zip(intervals) {
            table.add_row(interval_row(s, i));
        }
        out.push_str(&format!("{table}\n"));
    }
    let below: Vec<String> = transfer_lines(sum.transfer.as_ref(), scores)
        .iter()
        .chain(&interval_lines(scores))
        .map(|l| crate::table::wrap(l, width))
        .chain(notes(scores, intervals))
        .collect();
    out.push_str(&below.join("\n"));
    out.push_str(&format!("\nnote: {TIME_NOTE}\n"));
    out
}

/// A Markdown section for one dataset: a heading, the command, the run's
/// facts, the table, the notes and the scatter plots (`plots` are (model,
/// path relative to the Markdown file)).
pub fn markdown(
    sum: &Summary,
    scores: &[ModelScore],
    intervals: &[Intervals],
    plots: &[(String, String)],
) -> String {
    let mut out = format!("## {} on {}\n\n", sum.data_gpu, sum.gpu);
    out.push_str(&format!("```\n{}\n```\n\n", sum.command));
    for line in header_lines(sum) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push('\n');
    out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for (k, s) in scores.iter().enumerate() {
        out.push_str(&format!("| {} |\n", row(s, intervals.get(k)).join(" | ")));
    }
    let below: Vec<String> = bootstrap_line(sum.bootstrap.as_ref())
        .into_iter()
        .chain(transfer_lines(sum.transfer.as_ref(), scores))
        .collect();
    if !below.is_empty() {
        out.push('\n');
        for line in below {
            out.push_str(&format!("{line}\n"));
        }
    }
    let notes = notes(scores, intervals);
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&format!("- {}\n", n.replace('|', "\\|")));
        }
    }
    if !plots.is_empty() {
        out.push_str(
            "\nPredicted against measured time (log-log; the line is predicted = measured):\n\n",
        );
        for (model, path) in plots {
            out.push_str(&format!("![{model}]({path}) "));
        }
        out.push('\n');
    }
    out
}
