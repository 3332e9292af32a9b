//! The three forms of a validation result: a terminal table, JSON (schema 1)
//! and a Markdown section for docs/validation/README.md. Pure functions of
//! [`Summary`] and the scores; the caller prints or writes them.

use serde_json::{Value, json};

use validate::bootstrap::{Bootstrap, Interval, Intervals};
use validate::score::{Attempt, ModelScore, Outcome};
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

fn fixed(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.digits$}"))
}

fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{:.0}", 100.0 * x))
}

/// Percent errors span from a few to millions of percent; keep three
/// significant figures without a wall of digits.
fn error_percent(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x.abs() >= 1000.0 => format!("{x:.3e}"),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.1}"),
    }
}

/// A ratio that can be anything from 1e-6 to 1e6: three significant figures.
fn ratio(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x > 0.0 && !(0.001..1000.0).contains(&x) => format!("{x:.2e}"),
        Some(x) if x >= 100.0 => format!("{x:.0}"),
        Some(x) if x >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.3}"),
    }
}

const HEADERS: [&str; 11] = [
    "model",
    "scored",
    "MAPE %",
    "median APE %",
    "median pred/meas",
    "Spearman",
    "Kendall",
    "top-1 % overlap %",
    "best ratio",
    "measured failed",
    "ptxperf failed",
];

/// `value [lo, hi]`, each printed by `form`; the value alone without an
/// interval.
fn with_interval(
    v: Option<f64>,
    i: Option<Interval>,
    form: impl Fn(Option<f64>) -> String,
) -> String {
    match (v, i) {
        (Some(_), Some(Interval { lo, hi })) => {
            format!("{} [{}, {}]", form(v), form(Some(lo)), form(Some(hi)))
        }
        _ => form(v),
    }
}

fn row(s: &ModelScore, i: Option<&Intervals>) -> [String; 11] {
    let i = i.cloned().unwrap_or_default();
    let three = |v| fixed(v, 3);
    [
        s.model.clone(),
        s.scored.to_string(),
        with_interval(s.mape, i.mape, error_percent),
        with_interval(s.median_ape, i.median_ape, error_percent),
        with_interval(s.median_ratio, i.median_ratio, ratio),
        with_interval(s.spearman, i.spearman, three),
        with_interval(s.kendall, i.kendall, three),
        percent(s.top1_overlap),
        with_interval(s.best_ratio, i.best_ratio, three),
        s.measured_failed.to_string(),
        s.ptxperf_failed.to_string(),
    ]
}

/// The columns of the terminal's interval table.
const INTERVAL_HEADERS: [&str; 7] = [
    "model",
    "MAPE %",
    "median APE %",
    "median pred/meas",
    "Spearman",
    "Kendall",
    "best ratio",
];

/// `[lo, hi]` of each figure that has an interval, else `n/a`.
fn interval_row(s: &ModelScore, i: &Intervals) -> [String; 7] {
    let three = |v| fixed(v, 3);
    let cell =
        |v: Option<f64>, i: Option<Interval>, form: &dyn Fn(Option<f64>) -> String| match (v, i) {
            (Some(_), Some(Interval { lo, hi })) => {
                format!("[{}, {}]", form(Some(lo)), form(Some(hi)))
            }
            _ => "n/a".to_string(),
        };
    [
        s.model.clone(),
        cell(s.mape, i.mape, &error_percent),
        cell(s.median_ape, i.median_ape, &error_percent),
        cell(s.median_ratio, i.median_ratio, &ratio),
        cell(s.spearman, i.spearman, &three),
        cell(s.kendall, i.kendall, &three),
        cell(s.best_ratio, i.best_ratio, &three),
    ]
}

/// The line that says how the intervals were drawn.
fn bootstrap_line(how: Option<&Bootstrap>) -> Option<String> {
    how.map(|b| {
        format!(
            "[lo, hi]: {:.0} % bootstrap interval (percentile method, {} resamples of the scored configurations, seed {})",
            100.0 * b.confidence,
            b.resamples,
            b.seed
        )
    })
}

/// The transferred-best baseline and, beside it, each model's best ratio.
fn transfer_lines(t: Option<&TransferOf>, scores: &[ModelScore]) -> Vec<String> {
    let Some(t) = t else {
        return Vec::new();
    };
    let (tr, label) = match &t.result {
        Err(e) => {
            return vec![format!(
                "transferred best (from {}, {}): none: {e}",
                t.from_gpu, t.file
            )];
        }
        Ok(ok) => ok,
    };
    let which = if tr.rank_there == 1 {
        "the configuration measured fastest there".to_string()
    } else {
        let p = &tr.passed_over;
        format!(
            "its {} fastest configuration (the {} faster ones are not here: {} missing from this data, {} failed here, {} outside the scored set)",
            validate::transfer::ordinal(tr.rank_there),
            p.total(),
            p.missing_here,
            p.failed_here,
            p.outside_set
        )
    };
    let scope = if t.restricted {
        format!(
            "within the {} scored configurations measured here (--sample/--part: both the transferred configuration and the best are this set's)",
            tr.set_measured
        )
    } else {
        format!("over all {} configurations measured here", tr.set_measured)
    };
    let mut lines = vec![format!(
        "transferred best from {} ({}): {which}, {label}, runs {:.3}x the measured best here ({:.1} % of the optimum), {scope}",
        t.from_gpu,
        t.file,
        tr.ratio,
        tr.percent_of_optimum()
    )];
    let beside: Vec<String> = scores
        .iter()
        .filter_map(|s| {
            let b = s.best_ratio?;
            let verdict = if b < tr.ratio {
                "beats it"
            } else if b > tr.ratio {
                "does not"
            } else {
                "ties"
            };
            Some(format!("{} {b:.3} ({verdict})", s.model))
        })
        .collect();
    if !beside.is_empty() {
        lines.push(format!(
            "best ratio of each model against the transferred {:.3}: {}",
            tr.ratio,
            beside.join(", ")
        ));
    }
    lines
}

/// "split (data/split.toml): of the 23 sampled configurations measured, 16
/// are development data and 7 check data" ("of the 5220 configurations
/// measured" when every configuration was scored).
fn split_line(parts: Option<&SplitParts>, sampled: bool) -> String {
    let Some(p) = parts else {
        return "split: no split file found (data/split.toml; --split FILE)".to_string();
    };
    let mut line = format!(
        "split ({}): of the {} {}configurations measured, {} are development data and {} check data",
        p.split,
        p.development + p.check + p.excluded,
        if sampled { "sampled " } else { "" },
        p.development,
        p.check
    );
    if p.excluded > 0 {
        line.push_str(&format!(", {} from an excluded file", p.excluded));
    }
    line
}

fn header_lines(sum: &Summary) -> Vec<String> {
    let of = match &sum.part {
        Some(p) => format!(
            "the {} configurations of the {} part ({}; this data file: {})",
            p.configurations, p.part, p.split, p.role
        ),
        None => sum.configurations.to_string(),
    };
    let sample = match (sum.sample, &sum.part) {
        (Some(n), _) => format!("{} of {of} (--sample {n}, seed {})", sum.sampled, sum.seed),
        (None, Some(_)) => format!("all {of}"),
        (None, None) => format!("all {}", sum.configurations),
    };
    let mut lines = vec![
        format!(
            "data: {} ({}, kernel {})",
            sum.data, sum.data_gpu, sum.kernel
        ),
        format!("experiment: {}", sum.experiment),
        format!("GPU model: {}", sum.gpu),
        format!("configurations: {sample}"),
        measured_line(sum.measured.as_ref()),
        split_line(sum.split_parts.as_ref(), sum.sample.is_some()),
        match &sum.profiles {
            Some(dir) => {
                format!("profiles: rescored from {dir} (saved by an earlier run; nothing emulated)")
            }
            None => format!(
                "CTAs emulated per configuration: {} spread over the grid; where they disagree, up to {} working CTAs, stratified by a probe of the grid (extrapolated to the grid)",
                sum.sample_ctas,
                sum.sample_ctas.saturating_mul(pipeline::SAMPLING_GROWTH)
            ),
        },
        format!(
            "wall time: {:.1} s with {} job(s); PTX: {} compiled, {} from the cache{}",
            sum.elapsed_s,
            sum.jobs,
            sum.ptx_compiled,
            sum.ptx_cache_hits,
            resumed_note(sum.resumed)
        ),
    ];
    if let Some(arch) = &sum.ptx_arch {
        lines.push(format!(
            "PTX: compiled once, for {arch} (--ptx-arch), and built for each GPU's architecture by ptxas"
        ));
    }
    if let Some((held, rated)) = sum.clock_mhz {
        lines.push(format!(
            "clock: the models ran at {held} MHz (--clock-mhz), not the catalog's rated {rated} MHz"
        ));
    }
    if let Some(line) = compiler_line(sum.compilers.as_ref()) {
        lines.push(line);
    }
    lines
}

/// A warning when the measured kernels came from another NVRTC than
/// ptxperf's: ptxas of another version can select other instructions (on an
/// H100, ptxas 13.0 converts u16 to f32 on the FMA pipe, 12.9 on the slower
/// conversion unit), allocate other registers and spill differently.
fn compiler_line(compilers: Option<&(String, String)>) -> Option<String> {
    let (data, ours) = compilers?;
    let same = data == ours || data.starts_with(&format!("{ours}."));
    (!same).then(|| {
        let lowering = match profile::CompilerVersion::parse(data) {
            Some(v) => format!(
                "the timing model takes {v}'s integer-to-FP32 lowering; registers, spills and \
                 the rest of the SASS are {ours}'s and can differ"
            ),
            None => "their SASS (instruction selection, registers, spills) can differ".to_string(),
        };
        format!(
            "compiler: the measured kernels were built by NVRTC {data}, ptxperf's PTX by NVRTC {ours}; {lowering}"
        )
    })
}

/// The measured range of the sampled configurations and the repeat noise:
/// a rank correlation is only as good as the span is wide against the noise.
fn measured_line(spread: Option<&validate::Spread>) -> String {
    match spread {
        None => "measured: no sampled configuration ran".to_string(),
        Some(s) => {
            let noise = s.noise.map_or_else(String::new, |n| {
                format!(
                    "; repeat noise {:.1} % (median std/mean of each configuration's launches)",
                    100.0 * n
                )
            });
            format!(
                "measured: {} configurations from {} to {} ms (span {:.2}x){noise}",
                s.n,
                significant(s.min_ms),
                significant(s.max_ms),
                s.span()
            )
        }
    }
}

/// Four significant figures without an exponent for everyday times.
fn significant(ms: f64) -> String {
    let digits = (3 - ms.abs().log10().floor() as i64).clamp(0, 6) as usize;
    format!("{ms:.digits$}")
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

/// For each model that gives a prediction interval (`learned`), how often
/// it held the measured time: the user's own check of the interval.
fn interval_lines(scores: &[ModelScore]) -> Vec<String> {
    scores
        .iter()
        .filter_map(|s| {
            let (coverage, width) = (s.interval_coverage?, s.interval_width?);
            // Below 1, the share the configurations scored together kept
            // (docs/validation/learned.md, "One familiarity per space").
            let kept = match s.familiarity {
                Some(f) if f < 1.0 => format!(
                    "; {:.0} % of its correction kept, the mean of the scored configurations' familiarity",
                    100.0 * f
                ),
                _ => String::new(),
            };
            Some(format!(
                "{}: its interval held the measured time on {:.0} % of the scored configurations (median width: upper end {width:.2}x the lower){kept}",
                s.model,
                100.0 * coverage
            ))
        })
        .collect()
}

fn notes(scores: &[ModelScore], intervals: &[Intervals]) -> Vec<String> {
    scores
        .iter()
        .enumerate()
        .flat_map(|(k, s)| {
            let bootstrap = intervals.get(k).map_or(&[][..], |i| &i.notes[..]);
            s.notes
                .iter()
                .map(move |n| format!("{}: {n}", s.model))
                .chain(
                    bootstrap
                        .iter()
                        .map(move |n| format!("{}: bootstrap: {n}", s.model)),
                )
        })
        .collect()
}

fn interval_json(i: Option<Interval>) -> Value {
    i.map_or(Value::Null, |Interval { lo, hi }| json!([lo, hi]))
}

fn transfer_json(t: &TransferOf) -> Value {
    let ok = t.result.as_ref().ok();
    let tr = ok.map(|(tr, _)| tr);
    json!({
        "from": t.file,
        "from_gpu": t.from_gpu,
        "within_scored": t.restricted,
        "error": t.result.as_ref().err().map(ToString::to_string),
        "configuration": ok.map(|(_, label)| label),
        "index": tr.map(|t| t.row),
        "rank_there": tr.map(|t| t.rank_there),
        "passed_over": tr.map(|t| json!({
            "missing_here": t.passed_over.missing_here,
            "failed_here": t.passed_over.failed_here,
            "outside_set": t.passed_over.outside_set,
        })),
        "measured_ms": tr.map(|t| t.measured_ms),
        "best_ms": tr.map(|t| t.best_ms),
        "best_index": tr.map(|t| t.best_row),
        "ratio": tr.map(|t| t.ratio),
        "percent_of_optimum": tr.map(Transfer::percent_of_optimum),
        "configurations_measured": tr.map(|t| t.set_measured),
    })
}

/// JSON, schema 1: the header, the per-model figures and every configuration
/// (`timings`: each outcome's breakdown, in the same order, if it ran).
/// `dataset` names each configuration's parameters (`parameters`);
/// `by_param` is each model's errors by parameter value.
pub fn json(
    sum: &Summary,
    scores: &[ModelScore],
    intervals: &[Intervals],
    outcomes: &[Outcome],
    timings: &[Option<study::Timings>],
    dataset: &validate::Dataset,
    by_param: &validate::by_param::ByParameter,
) -> Value {
    let models: Vec<Value> = scores
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let i = intervals.get(k).cloned().unwrap_or_default();
            json!({
                "name": s.model,
                "scored": s.scored,
                "mape_percent": s.mape,
                "median_ape_percent": s.median_ape,
                "median_predicted_over_measured": s.median_ratio,
                "spearman": s.spearman,
                "kendall_tau_b": s.kendall,
                "top1_percent_overlap": s.top1_overlap,
                "best_config_ratio": s.best_ratio,
                "interval_coverage": s.interval_coverage,
                "interval_width": s.interval_width,
                "familiarity": s.familiarity,
                "measured_failed": s.measured_failed,
                "ptxperf_failed": s.ptxperf_failed,
                "notes": s.notes,
                "mape_percent_ci90": interval_json(i.mape),
                "median_ape_percent_ci90": interval_json(i.median_ape),
                "median_predicted_over_measured_ci90": interval_json(i.median_ratio),
                "spearman_ci90": interval_json(i.spearman),
                "kendall_tau_b_ci90": interval_json(i.kendall),
                "best_config_ratio_ci90": interval_json(i.best_ratio),
                "bootstrap_notes": i.notes,
            })
        })
        .collect();
    let configurations: Vec<Value> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let (status, predicted, ranges, error) = match &o.attempt {
                Attempt::NotRun => ("measured_failed", Value::Null, Value::Null, Value::Null),
                Attempt::Failed(e) => ("ptxperf_failed", Value::Null, Value::Null, json!(e)),
                Attempt::Predicted(p) => {
                    let map: serde_json::Map<String, Value> = p
                        .iter()
                        .map(|(n, r)| {
                            let v = match r {
                                Ok(t) if t.ms.is_finite() => json!(t.ms),
                                Ok(_) => Value::Null,
                                Err(e) => json!({ "error": e.to_string() }),
                            };
                            (n.clone(), v)
                        })
                        .collect();
                    let ranges: serde_json::Map<String, Value> = p
                        .iter()
                        .filter_map(|(n, r)| {
                            Some((n.clone(), json!(r.as_ref().ok()?.interval_ms?)))
                        })
                        .collect();
                    let ranges = if ranges.is_empty() {
                        Value::Null
                    } else {
                        Value::Object(ranges)
                    };
                    ("predicted", Value::Object(map), ranges, Value::Null)
                }
            };
            let parameters = dataset.rows.get(o.index).map(|row| {
                dataset
                    .named_values(row)
                    .into_iter()
                    .map(|(n, v)| (n.to_string(), crate::by_param::value_json(v)))
                    .collect::<serde_json::Map<String, Value>>()
            });
            json!({
                "index": o.index,
                "parameters": parameters,
                "part": sum.split_parts.as_ref().and_then(|p| p.of_row.get(&o.index)),
                "measured_ms": o.measured_ms,
                "status": status,
                "predicted_ms": predicted,
                "interval_ms": ranges,
                "error": error,
                "timings": timings.get(i).copied().flatten().as_ref().map(crate::timings::json),
            })
        })
        .collect();
    json!({
        "schema": 1,
        "command": sum.command,
        "experiment": sum.experiment,
        "data": sum.data,
        "data_gpu": sum.data_gpu,
        "gpu": sum.gpu,
        "kernel": sum.kernel,
        "configurations": sum.configurations,
        "part": sum.part.as_ref().map(|p| json!({
            "part": p.part,
            "split": p.split,
            "role": p.role,
            "configurations": p.configurations,
        })),
        "split_parts": sum.split_parts.as_ref().map(|p| json!({
            "split": p.split,
            "development": p.development,
            "check": p.check,
            "excluded": p.excluded,
        })),
        "sampled": sum.sampled,
        "seed": sum.seed,
        "sample_ctas": sum.sample_ctas,
        "ptx_arch": sum.ptx_arch,
        "profiles": sum.profiles,
        "clock_mhz": sum.clock_mhz.map(|(held, rated)| json!({
            "held": held,
            "rated": rated,
        })),
        "jobs": sum.jobs,
        "elapsed_seconds": sum.elapsed_s,
        "measured": sum.measured.as_ref().map(|m| json!({
            "configurations": m.n,
            "min_ms": m.min_ms,
            "max_ms": m.max_ms,
            "span": m.span(),
            "repeat_noise": m.noise,
        })),
        "compilers": sum.compilers.as_ref().map(|(data, ours)| json!({
            "data": data,
            "ptxperf": ours,
        })),
        "timings": crate::timings::totals_json(&sum.timings),
        "bootstrap": sum.bootstrap.map(|b| json!({
            "resamples": b.resamples,
            "seed": b.seed,
            "confidence": b.confidence,
        })),
        "transfer": sum.transfer.as_ref().map(transfer_json),
        "note": TIME_NOTE,
        "models": models,
        "by_parameter": crate::by_param::json(by_param),
        "results": configurations,
    })
}

/// The line a run on several GPUs ends its text with: how much compiling
/// and emulating served how many GPU predictions.
pub fn shared_line(shared: &study::validation::Shared, gpus: usize) -> String {
    format!(
        "shared work: {} configurations on {gpus} GPUs: {} PTX compiled and {} from the cache (one per configuration and architecture), {} emulations (one per distinct PTX; PTX that differs only in its .target is emulated once), served {} GPU predictions{}",
        shared.configurations,
        shared.ptx_compiled,
        shared.ptx_cache_hits,
        shared.emulations,
        shared.predictions,
        resumed_note(shared.resumed)
    )
}

/// "; N resumed ..." after the PTX counts of a `--resume` run that found
/// saved profiles; nothing otherwise.
fn resumed_note(resumed: usize) -> String {
    match resumed {
        0 => String::new(),
        n => format!(
            "; {n} configuration(s) resumed: rescored from the profiles an earlier run saved"
        ),
    }
}

/// JSON (schema 1) of a run on several GPUs: `gpus` holds one object per
/// GPU, each exactly what a one-GPU run prints ([`json`]), and `shared` the
/// work they shared (docs/json.md, `validate` on several GPUs).
pub fn json_multi(command: &str, gpus: Vec<Value>, shared: &study::validation::Shared) -> Value {
    json!({
        "schema": 1,
        "command": command,
        "shared": {
            "configurations": shared.configurations,
            "ptx_compiled": shared.ptx_compiled,
            "ptx_cache_hits": shared.ptx_cache_hits,
            "emulations": shared.emulations,
            "predictions": shared.predictions,
            "resumed": shared.resumed,
        },
        "timings": crate::timings::totals_json(&shared.timings),
        "gpus": gpus,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check_error_percent(v: Option<f64>, expected: &str) {
        assert_eq!(error_percent(v), expected);
    }

    #[test]
    fn error_percent_keeps_three_figures() {
        check_error_percent(None, "n/a");
        check_error_percent(Some(2.26), "2.3");
        check_error_percent(Some(99.94), "99.9");
        check_error_percent(Some(123.4), "123");
        check_error_percent(Some(123456.0), "1.235e5");
    }

    #[track_caller]
    fn check_ratio(v: Option<f64>, expected: &str) {
        assert_eq!(ratio(v), expected);
    }

    #[test]
    fn ratio_keeps_three_figures() {
        check_ratio(None, "n/a");
        check_ratio(Some(0.7412), "0.741");
        check_ratio(Some(1.0), "1.000");
        check_ratio(Some(12.34), "12.3");
        check_ratio(Some(123.4), "123");
        check_ratio(Some(0.000123), "1.23e-4");
        check_ratio(Some(12345.0), "1.23e4");
    }

    fn summary() -> Summary {
        Summary {
            command: "ptxperf validate x.toml --data d.json --gpu g".to_string(),
            experiment: "x.toml".to_string(),
            data: "d.json".to_string(),
            data_gpu: "Some GPU".to_string(),
            gpu: "g".to_string(),
            kernel: "k".to_string(),
            configurations: 10,
            part: None,
            split_parts: None,
            sampled: 3,
            sample: Some(3),
            seed: 1,
            sample_ctas: 4,
            ptx_arch: None,
            profiles: None,
            clock_mhz: None,
            jobs: 2,
            elapsed_s: 1.0,
            ptx_cache_hits: 1,
            ptx_compiled: 2,
            resumed: 0,
            measured: None,
            compilers: None,
            timings: study::Timings::default(),
            bootstrap: None,
            transfer: None,
        }
    }

    #[track_caller]
    fn check_compiler_line(data: &str, ours: &str, expect: Option<&str>) {
        let pair = (data.to_string(), ours.to_string());
        assert_eq!(compiler_line(Some(&pair)).as_deref(), expect);
    }

    #[test]
    fn compiler_line_warns_only_when_the_versions_differ() {
        assert_eq!(compiler_line(None), None);
        check_compiler_line("12.9", "12.9", None);
        check_compiler_line("12.9.86", "12.9", None);
        check_compiler_line(
            "13.0",
            "12.9",
            Some(
                "compiler: the measured kernels were built by NVRTC 13.0, ptxperf's PTX by NVRTC 12.9; \
                 the timing model takes 13.0's integer-to-FP32 lowering; registers, spills and \
                 the rest of the SASS are 12.9's and can differ",
            ),
        );
        // A version the model cannot read: only the warning.
        check_compiler_line(
            "thirteen",
            "12.9",
            Some(
                "compiler: the measured kernels were built by NVRTC thirteen, ptxperf's PTX by NVRTC 12.9; \
                 their SASS (instruction selection, registers, spills) can differ",
            ),
        );
        // 12.90 is not 12.9.
        let pair = ("12.90".to_string(), "12.9".to_string());
        assert!(compiler_line(Some(&pair)).is_some());
    }

    #[track_caller]
    fn check_measured_line(spread: Option<validate::Spread>, expect: &str) {
        assert_eq!(measured_line(spread.as_ref()), expect);
    }

    #[test]
    fn measured_line_gives_range_span_and_noise() {
        check_measured_line(None, "measured: no sampled configuration ran");
        check_measured_line(
            Some(validate::Spread {
                n: 20,
                min_ms: 154.529,
                max_ms: 193.617,
                noise: Some(0.0123),
            }),
            "measured: 20 configurations from 154.5 to 193.6 ms (span 1.25x); repeat noise 1.2 % (median std/mean of each configuration's launches)",
        );
        check_measured_line(
            Some(validate::Spread {
                n: 15,
                min_ms: 0.26292,
                max_ms: 0.40780,
                noise: None,
            }),
            "measured: 15 configurations from 0.2629 to 0.4078 ms (span 1.55x)",
        );
    }

    fn score() -> ModelScore {
        ModelScore {
            model: "m".to_string(),
            scored: 2,
            measured_failed: 1,
            ptxperf_failed: 0,
            mape: Some(12.5),
            median_ape: Some(10.0),
            median_ratio: Some(0.875),
            spearman: Some(1.0),
            kendall: Some(1.0),
            top1_overlap: Some(1.0),
            best_ratio: Some(1.0),
            interval_coverage: None,
            interval_width: None,
            familiarity: None,
            notes: vec!["a | b".to_string()],
            points: vec![],
        }
    }

    #[test]
    fn a_model_with_an_interval_says_how_often_it_held() {
        let ranged = ModelScore {
            model: "learned".to_string(),
            interval_coverage: Some(0.915),
            interval_width: Some(1.76),
            ..score()
        };
        let text = text(&summary(), &[score(), ranged.clone()], &[], 200);
        assert!(
            text.contains("learned: its interval held the measured time on 92 % of the scored configurations (median width: upper end 1.76x the lower)"),
            "{text}"
        );
        assert!(!text.contains("m: its interval"), "{text}");
        let far = ModelScore {
            familiarity: Some(0.25),
            ..ranged.clone()
        };
        let text = self::text(&summary(), &[far], &[], 200);
        assert!(
            text.contains("(median width: upper end 1.76x the lower); 25 % of its correction kept"),
            "{text}"
        );
    }

    #[test]
    fn markdown_table_has_one_row_per_model_and_escapes_pipes() {
        let md = markdown(
            &summary(),
            &[score()],
            &[],
            &[("m".to_string(), "p/m.svg".to_string())],
        );
        assert!(
            md.contains("| m | 2 | 12.5 | 10.0 | 0.875 | 1.000 | 1.000 | 100 | 1.000 | 1 | 0 |"),
            "{md}"
        );
        assert!(md.contains("- m: a \\| b"), "{md}");
        assert!(md.contains("![m](p/m.svg)"), "{md}");
        assert!(md.contains("ptxperf validate x.toml"), "{md}");
        assert!(!md.contains("clock:"), "{md}");
        let held = Summary {
            clock_mhz: Some((1545.0, 1770.0)),
            ..summary()
        };
        let md = markdown(&held, &[score()], &[], &[]);
        assert!(
            md.contains(
                "- clock: the models ran at 1545 MHz (--clock-mhz), not the catalog's rated 1770 MHz\n"
            ),
            "{md}"
        );
    }

    fn intervals() -> Intervals {
        let i = |lo, hi| Some(Interval { lo, hi });
        Intervals {
            mape: i(9.84, 15.26),
            median_ape: None,
            median_ratio: i(0.8, 0.95),
            spearman: i(0.9, 1.0),
            kendall: None,
            best_ratio: i(1.0, 1.5),
            notes: vec!["median APE: no interval, undefined on 70 of 1000 resamples".to_string()],
        }
    }

    #[test]
    fn cells_carry_their_interval_in_the_figures_own_form() {
        assert_eq!(
            row(&score(), Some(&intervals())),
            [
                "m",
                "2",
                "12.5 [9.8, 15.3]",
                "10.0",
                "0.875 [0.800, 0.950]",
                "1.000 [0.900, 1.000]",
                "1.000",
                "100",
                "1.000 [1.000, 1.500]",
                "1",
                "0"
            ]
        );
        // No interval where the figure itself is missing.
        let none = ModelScore {
            mape: None,
            ..score()
        };
        assert_eq!(row(&none, Some(&intervals()))[2], "n/a");
        assert_eq!(row(&score(), None)[2], "12.5");
    }

    #[test]
    fn text_and_json_carry_the_intervals_and_how_they_were_drawn() {
        let sum = Summary {
            bootstrap: Some(Bootstrap::default()),
            ..summary()
        };
        let t = text(&sum, &[score()], &[intervals()], crate::table::PIPE_WIDTH);
        assert!(
            t.contains("[lo, hi]: 90 % bootstrap interval (percentile method, 1000 resamples of the scored configurations, seed 1)"),
            "{t}"
        );
        assert!(
            t.contains("m: bootstrap: median APE: no interval, undefined on 70 of 1000 resamples"),
            "{t}"
        );
        let v = json(
            &sum,
            &[score()],
            &[intervals()],
            &[],
            &[],
            &rows(0),
            &no_errors(),
        );
        let m = &v["models"][0];
        assert_eq!(m["mape_percent_ci90"], json!([9.84, 15.26]));
        assert_eq!(m["median_ape_percent_ci90"], Value::Null);
        assert_eq!(m["best_config_ratio_ci90"], json!([1.0, 1.5]));
        assert_eq!(v["bootstrap"]["resamples"], 1000);
        // Without --bootstrap: null intervals, no line.
        let v = json_of(&summary());
        assert_eq!(v["models"][0]["spearman_ci90"], Value::Null);
        assert_eq!(v["bootstrap"], Value::Null);
        assert!(!text(&summary(), &[score()], &[], crate::table::PIPE_WIDTH).contains("[lo, hi]"));
    }

    fn transfer(rank_there: usize, restricted: bool) -> TransferOf {
        TransferOf {
            file: "other.json.gz".to_string(),
            from_gpu: "Other GPU".to_string(),
            restricted,
            result: Ok((
                Transfer {
                    from_gpu: "Other GPU".to_string(),
                    row: 3,
                    rank_there,
                    passed_over: validate::transfer::PassedOver {
                        missing_here: rank_there - 1,
                        failed_here: 0,
                        outside_set: 0,
                    },
                    measured_ms: 1.25,
                    best_ms: 1.0,
                    best_row: 0,
                    ratio: 1.25,
                    set_measured: 40,
                },
                "a=1,b=2".to_string(),
            )),
        }
    }

    #[track_caller]
    fn check_transfer(t: Option<TransferOf>, scores: &[ModelScore], expect: &[&str]) {
        assert_eq!(transfer_lines(t.as_ref(), scores), expect);
    }

    #[test]
    fn the_transferred_best_is_printed_beside_each_models_best_ratio() {
        check_transfer(None, &[score()], &[]);
        let worse = ModelScore {
            model: "w".to_string(),
            best_ratio: Some(1.5),
            ..score()
        };
        check_transfer(
            Some(transfer(1, false)),
            &[score(), worse],
            &[
                "transferred best from Other GPU (other.json.gz): the configuration measured fastest there, a=1,b=2, runs 1.250x the measured best here (80.0 % of the optimum), over all 40 configurations measured here",
                "best ratio of each model against the transferred 1.250: m 1.000 (beats it), w 1.500 (does not)",
            ],
        );
        check_transfer(
            Some(transfer(2, true)),
            &[],
            &[
                "transferred best from Other GPU (other.json.gz): its 2nd fastest configuration (the 1 faster ones are not here: 1 missing from this data, 0 failed here, 0 outside the scored set), a=1,b=2, runs 1.250x the measured best here (80.0 % of the optimum), within the 40 scored configurations measured here (--sample/--part: both the transferred configuration and the best are this set's)",
            ],
        );
        let failed = TransferOf {
            result: Err(TransferError::NothingMeasuredHere),
            ..transfer(1, false)
        };
        check_transfer(
            Some(failed.clone()),
            &[score()],
            &[
                "transferred best (from Other GPU, other.json.gz): none: no configuration of the set has a measured time here",
            ],
        );
        let sum = Summary {
            transfer: Some(failed),
            ..summary()
        };
        let v = json_of(&sum);
        assert_eq!(v["transfer"]["ratio"], Value::Null);
        assert!(v["transfer"]["error"].is_string());
        let sum = Summary {
            transfer: Some(transfer(2, true)),
            ..summary()
        };
        let v = json_of(&sum);
        assert_eq!(v["transfer"]["ratio"], 1.25);
        assert_eq!(v["transfer"]["percent_of_optimum"], 80.0);
        assert_eq!(v["transfer"]["passed_over"]["missing_here"], 1);
        assert_eq!(v["transfer"]["within_scored"], true);
        assert_eq!(v["transfer"]["configuration"], "a=1,b=2");
    }

    #[test]
    fn json_lists_every_configuration_with_its_status() {
        let outcomes = vec![
            Outcome {
                index: 0,
                measured_ms: None,
                attempt: Attempt::NotRun,
            },
            Outcome {
                index: 4,
                measured_ms: Some(1.0),
                attempt: Attempt::Failed("x".to_string()),
            },
            Outcome {
                index: 7,
                measured_ms: Some(2.0),
                attempt: Attempt::Predicted(vec![("m".to_string(), Ok(2.5.into()))]),
            },
        ];
        let mut ran = study::Timings::one();
        ran.total = std::time::Duration::from_millis(3);
        let v = json(
            &summary(),
            &[score()],
            &[],
            &outcomes,
            &[None, None, Some(ran)],
            &rows(8),
            &no_errors(),
        );
        assert_eq!(v["schema"], 1);
        assert_eq!(v["models"][0]["mape_percent"], 12.5);
        assert_eq!(v["models"][0]["median_predicted_over_measured"], 0.875);
        let statuses: Vec<&str> = v["results"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| r["status"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(statuses, ["measured_failed", "ptxperf_failed", "predicted"]);
        assert_eq!(v["results"][2]["predicted_ms"]["m"], 2.5);
        // A breakdown where the configuration ran, null where it did not.
        assert_eq!(v["results"][0]["timings"], Value::Null);
        assert_eq!(v["results"][2]["timings"]["total_s"], 0.003);
        assert_eq!(v["timings"]["clock"], "wall");
        // Each configuration's parameters, from the data file's row.
        assert_eq!(v["results"][2]["parameters"]["p"], 7);
        assert_eq!(v["results"][0]["parameters"]["p"], 0);
        assert_eq!(v["by_parameter"], json!([]));
    }

    /// The JSON of `sum` with one score, no intervals, no configuration.
    fn json_of(sum: &Summary) -> Value {
        json(sum, &[score()], &[], &[], &[], &rows(0), &no_errors())
    }

    /// No errors by parameter.
    fn no_errors() -> validate::by_param::ByParameter {
        validate::by_param::ByParameter {
            part: validate::by_param::Part::All,
            models: Vec::new(),
        }
    }

    /// A data file of `n` rows, parameter `p` = the row's index.
    fn rows(n: i64) -> validate::Dataset {
        validate::Dataset {
            gpu: "GPU".into(),
            kernel: "k".into(),
            problem_size: None,
            params: vec!["p".into()],
            rows: (0..n)
                .map(|i| validate::Row {
                    values: vec![validate::ParamValue::Int(i)],
                    measured: validate::Measured::Failed(validate::FailReason::from_marker(
                        "RuntimeFailedConfig",
                    )),
                })
                .collect(),
            compiler: None,
        }
    }
}
