//! The cells and lines the text and Markdown forms share: figures with their
//! intervals, the header lines of a run, the transfer and interval lines, notes.

use validate::bootstrap::{Bootstrap, Interval, Intervals};
use validate::score::ModelScore;

use super::{SplitParts, Summary, TransferOf};

pub(super) fn fixed(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.digits$}"))
}

pub(super) fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{:.0}", 100.0 * x))
}

/// Percent errors span from a few to millions of percent; keep three
/// significant figures without a wall of digits.
pub(super) fn error_percent(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x.abs() >= 1000.0 => format!("{x:.3e}"),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.1}"),
    }
}

/// A ratio that can be anything from 1e-6 to 1e6: three significant figures.
pub(super) fn ratio(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x > 0.0 && !(0.001..1000.0).contains(&x) => format!("{x:.2e}"),
        Some(x) if x >= 100.0 => format!("{x:.0}"),
        Some(x) if x >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.3}"),
    }
}

pub(super) const HEADERS: [&str; 11] = [
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
pub(super) fn with_interval(
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

pub(super) fn row(s: &ModelScore, i: Option<&Intervals>) -> [String; 11] {
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
pub(super) const INTERVAL_HEADERS: [&str; 7] = [
    "model",
    "MAPE %",
    "median APE %",
    "median pred/meas",
    "Spearman",
    "Kendall",
    "best ratio",
];

/// `[lo, hi]` of each figure that has an interval, else `n/a`.
pub(super) fn interval_row(s: &ModelScore, i: &Intervals) -> [String; 7] {
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
pub(super) fn bootstrap_line(how: Option<&Bootstrap>) -> Option<String> {
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
pub(super) fn transfer_lines(t: Option<&TransferOf>, scores: &[ModelScore]) -> Vec<String> {
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
    // Under an objective the best there and here are by its value.
    let (fastest, faster, runs) = match &t.objective {
        None => ("fastest", "faster", "runs".to_string()),
        Some(name) => ("best", "better", format!("by {name}, is")),
    };
    let which = if tr.rank_there == 1 {
        format!("the configuration measured {fastest} there")
    } else {
        let p = &tr.passed_over;
        format!(
            "its {} {fastest} configuration (the {} {faster} ones are not here: {} missing from this data, {} failed here, {} outside the scored set)",
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
        "transferred best from {} ({}): {which}, {label}, {runs} {:.3}x the measured best here ({:.1} % of the optimum), {scope}",
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
pub(super) fn split_line(parts: Option<&SplitParts>, sampled: bool) -> String {
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

pub(super) fn header_lines(sum: &Summary) -> Vec<String> {
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
            Some(dir) => format!(
                "profiles: rescored from {dir} (saved by an earlier run; nothing emulated){}",
                rules_note(&sum.profile_rules)
            ),
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
    if let Some(o) = &sum.objective {
        lines.push(format!(
            "objective: {o}; Spearman, Kendall, top-1 %, the best ratios and the transfer are \
             by its value at the predicted and the measured times (a ratio is the best's \
             objective over the pick's), MAPE and the median figures by the times"
        ));
    }
    lines
}

/// A warning when the measured kernels came from another NVRTC than
/// ptxperf's: ptxas of another version can select other instructions (on an
/// H100, ptxas 13.0 converts u16 to f32 on the FMA pipe, 12.9 on the slower
/// conversion unit), allocate other registers and spill differently.
pub(super) fn compiler_line(compilers: Option<&(String, String)>) -> Option<String> {
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
/// Where the launches slowed (or sped up) through a configuration's run by
/// [`DRIFT_SHOWN`] or more (median), that too: the GPU did not run at one
/// speed (most often its clock under a power or thermal limit), and the
/// models run at one clock.
pub(super) fn measured_line(spread: Option<&validate::Spread>) -> String {
    match spread {
        None => "measured: no sampled configuration ran".to_string(),
        Some(s) => {
            let noise = s.noise.map_or_else(String::new, |n| {
                format!(
                    "; repeat noise {:.1} % (median std/mean of each configuration's launches)",
                    100.0 * n
                )
            });
            let drift = s
                .drift
                .filter(|d| (d - 1.0).abs() >= DRIFT_SHOWN)
                .map_or_else(String::new, |d| {
                    format!(
                        "; launches {} {:.1} % from the first quarter of a configuration's run to the last \
                         (median): the GPU did not run at one speed throughout (most often a clock its \
                         power or thermal limit held down; --clock-mhz sets the models' clock)",
                        if d > 1.0 { "slowed" } else { "sped up" },
                        100.0 * (d - 1.0).abs()
                    )
                });
            format!(
                "measured: {} configurations from {} to {} ms (span {:.2}x){noise}{drift}",
                s.n,
                significant(s.min_ms),
                significant(s.max_ms),
                s.span()
            )
        }
    }
}

/// The least drift through a run ([`validate::Spread::drift`], either way)
/// the measured line shows: 2 %, twice the data's noise floor of about 1 %
/// per configuration (../shared/data/groundtruth README).
const DRIFT_SHOWN: f64 = 0.02;

/// Four significant figures without an exponent for everyday times.
pub(super) fn significant(ms: f64) -> String {
    let digits = (3 - ms.abs().log10().floor() as i64).clamp(0, 6) as usize;
    format!("{ms:.digits$}")
}

/// For each model that gives a prediction interval (`learned`), how often
/// it held the measured time: the user's own check of the interval.
pub(super) fn interval_lines(scores: &[ModelScore]) -> Vec<String> {
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

pub(super) fn notes(scores: &[ModelScore], intervals: &[Intervals]) -> Vec<String> {
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

/// "; counted under profile rules ..." after the profiles line of a
/// `--profiles` run: the rules each number of profiles was saved under,
/// and whether they are this build's.
pub(super) fn rules_note(rules: &[(Option<String>, usize)]) -> String {
    let parts: Vec<String> = rules
        .iter()
        .map(|(r, n)| match r {
            Some(r) if r == pipeline::PROFILE_RULES => format!("{n} under {r}, this build's"),
            Some(r) => format!("{n} under {r}"),
            None => format!("{n} saved before profiles named theirs"),
        })
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    let all_current = rules
        .iter()
        .all(|(r, _)| r.as_deref() == Some(pipeline::PROFILE_RULES));
    let caveat = if all_current {
        String::new()
    } else {
        format!(
            "; their counts are those of the builds that saved them, not this build's (profile rules {})",
            pipeline::PROFILE_RULES
        )
    };
    format!("; profile rules: {}{caveat}", parts.join(", "))
}

/// "; N resumed ..." after the PTX counts of a `--resume` run that found
/// saved profiles; nothing otherwise.
pub(super) fn resumed_note(resumed: usize) -> String {
    match resumed {
        0 => String::new(),
        n => format!(
            "; {n} configuration(s) resumed: rescored from the profiles an earlier run saved"
        ),
    }
}
