//! `ptxperf tune`: the report of a run: a text table per model, JSON, a Markdown table of
//! every configuration, and an SVG of each model's predicted time against
//! one parameter.

use plotters::prelude::*;
use serde_json::{Value, json};
use tune::{Bound, ModelTimes, Objective, PickMetrics, RankBy, Winners};

use study::{Evaluation, Outcome, Status};

/// Everything the report shows.
pub struct Report<'a> {
    pub command: String,
    pub target: String,
    pub gpu: String,
    pub gpu_name: String,
    /// Size of the full product (or of the measured space).
    pub total: u64,
    /// (restriction, how many it rejected).
    pub rejected_by: Vec<(String, u64)>,
    /// Configurations kept by the restrictions.
    pub kept: usize,
    /// Sampled out of `kept` (None: all).
    pub sample: Option<(usize, u64)>,
    pub sample_ctas: Option<u64>,
    pub jobs: usize,
    pub elapsed_s: f64,
    pub evaluations: &'a [Evaluation],
    /// What ranks each model's configurations ([`tune::ranked_times`]).
    pub models: &'a [ModelTimes],
    /// What the run asked to rank by (`--rank-by`).
    pub rank_by: RankBy,
    /// What the models' times were ranked by, when not the time alone
    /// (`models[..].times` then hold its costs, [`Objective::cost`]).
    pub objective: Option<&'a Objective>,
    pub winners: &'a Winners,
    pub top: usize,
    pub measured: Option<(&'a str, &'a [PickMetrics])>,
}

/// What one run did, over all its GPUs.
pub struct Counters {
    pub configurations: usize,
    pub gpus: usize,
    pub emulations: usize,
    pub ptx_cache_hits: usize,
    pub ptx_compiled: usize,
}

impl Counters {
    /// The last line of the text report.
    pub fn line(&self) -> String {
        format!(
            "run: {} configurations on {} GPU(s); {} emulations; PTX: {} from the PTX cache, {} compiled\n",
            self.configurations, self.gpus, self.emulations, self.ptx_cache_hits, self.ptx_compiled
        )
    }
}

/// The JSON of a run: one GPU's [`json`] with the run's `counters` and
/// `timings`, or for several GPUs the counters, the timings and each GPU's.
pub fn run_json(jsons: Vec<Value>, counters: &Counters, timings: &study::Timings) -> Value {
    let counters_json = json!({
        "configurations": counters.configurations,
        "gpus": counters.gpus,
        "emulations": counters.emulations,
        "ptx_cache_hits": counters.ptx_cache_hits,
        "ptx_compiled": counters.ptx_compiled,
    });
    let timings_json = crate::timings::totals_json(timings);
    match <[Value; 1]>::try_from(jsons) {
        Ok([mut one]) => {
            if let Some(map) = one.as_object_mut() {
                map.insert("counters".into(), counters_json);
                map.insert("timings".into(), timings_json);
            }
            one
        }
        Err(all) => json!({
            "schema": 1,
            "counters": counters_json,
            "timings": timings_json,
            "gpus": all,
        }),
    }
}

/// Counts of what happened to the evaluated configurations.
pub struct Counts {
    pub predicted: usize,
    pub rejected: Vec<(String, usize)>,
    pub failed: usize,
    pub reached_compiler: usize,
    pub from_cache: usize,
}

pub fn counts(evaluations: &[Evaluation]) -> Counts {
    let mut c = Counts {
        predicted: 0,
        rejected: Vec::new(),
        failed: 0,
        reached_compiler: 0,
        from_cache: 0,
    };
    let mut reject = |kind: &str| match c.rejected.iter_mut().find(|(k, _)| k == kind) {
        Some((_, n)) => *n += 1,
        None => c.rejected.push((kind.to_string(), 1)),
    };
    let (mut predicted, mut failed, mut reached, mut cache) = (0, 0, 0, 0);
    for e in evaluations {
        match &e.status {
            Status::Done { outcome, cached } => {
                reached += 1;
                cache += usize::from(*cached);
                match outcome {
                    Outcome::Predicted { .. } => predicted += 1,
                    Outcome::Rejected { kind, .. } => reject(kind),
                }
            }
            Status::RejectedEarly { kind, .. } => reject(kind),
            Status::Failed(_) => failed += 1,
        }
    }
    c.rejected.sort();
    c.predicted = predicted;
    c.failed = failed;
    c.reached_compiler = reached;
    c.from_cache = cache;
    c
}

/// A line on the predicted configurations whose sampled CTAs disagreed
/// beyond the sampling target even after the sample grew (`None` when every
/// sample settled): how many, and the worst.
fn unsettled_samples(evaluations: &[Evaluation]) -> Option<String> {
    let target = pipeline::SAMPLING_TARGET;
    let (mut predicted, mut unsettled) = (0, 0);
    // The largest error, the first configuration holding it.
    let mut worst: Option<(f64, &Evaluation)> = None;
    for e in evaluations {
        if let Status::Done {
            outcome: Outcome::Predicted { sampling_error, .. },
            ..
        } = &e.status
        {
            predicted += 1;
            if let Some(err) = sampling_error.filter(|x| *x > target) {
                unsettled += 1;
                if worst.is_none_or(|(w, _)| err > w) {
                    worst = Some((err, e));
                }
            }
        }
    }
    let (err, e) = worst?;
    Some(format!(
        "sampling: {unsettled} of {predicted} predicted configurations estimate their counts' error above {:.0} % (the largest {:.1} %, {}): their sampled CTAs still disagreed after the sample grew; raise --sample-ctas, or 0 for every CTA\n",
        target * 100.0,
        err * 100.0,
        e.config.label()
    ))
}

fn fmt_ms(ms: f64) -> String {
    tune::format_ms(ms)
}

/// How the text names configurations: by the parameters that differ among
/// the evaluated ones, the others said once (`fixed`), so that a space of
/// 17 parameters of which 3 are tuned reads as 3 values a row.
struct Labels {
    /// Parameters with one value in every evaluated configuration, as
    /// `name=value`; empty when none is, or when every one is (a single
    /// configuration keeps its whole label).
    fixed: Vec<String>,
}

impl Labels {
    /// Whole labels.
    fn full() -> Labels {
        Labels { fixed: Vec::new() }
    }

    fn of(evaluations: &[Evaluation]) -> Labels {
        let Some(first) = evaluations.first() else {
            return Labels::full();
        };
        let fixed: Vec<String> = first
            .config
            .values
            .iter()
            .filter(|(name, v)| evaluations.iter().all(|e| e.config.get(name) == Some(v)))
            .map(|(name, v)| format!("{name}={v}"))
            .collect();
        if fixed.len() == first.config.values.len() {
            return Labels::full();
        }
        Labels { fixed }
    }

    fn label(&self, config: &tune::Config) -> String {
        if self.fixed.is_empty() {
            return config.label();
        }
        config
            .values
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .filter(|pair| !self.fixed.contains(pair))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The line that names the fixed parameters, if any.
    fn line(&self) -> String {
        if self.fixed.is_empty() {
            String::new()
        } else {
            format!(
                "the same in every configuration evaluated (left out of the labels below): {}\n",
                self.fixed.join(", ")
            )
        }
    }
}

fn rejection_of(e: &Evaluation) -> Option<String> {
    match &e.status {
        Status::RejectedEarly { reason, .. }
        | Status::Done {
            outcome: Outcome::Rejected { reason, .. },
            ..
        } => Some(reason.clone()),
        _ => None,
    }
}

/// The text report, its tables `width` columns wide.
pub fn text(r: &Report<'_>, width: u16) -> String {
    let c = counts(r.evaluations);
    let mut out = format!("tune {} on {} ({})\n", r.target, r.gpu, r.gpu_name);
    out.push_str(&format!(
        "space: {} configurations, {} kept by the constraints",
        r.total, r.kept
    ));
    for (text, n) in &r.rejected_by {
        out.push_str(&format!("; `{text}` rejected {n}"));
    }
    out.push('\n');
    if let Some((n, seed)) = r.sample {
        out.push_str(&format!("sample: {n} of {} (seed {seed})\n", r.kept));
    }
    let labels = Labels::of(r.evaluations);
    out.push_str(&labels.line());
    let rejected: usize = c.rejected.iter().map(|(_, n)| n).sum();
    out.push_str(&format!(
        "evaluated: {} configurations: {} predicted, {rejected} not launchable, {} failed\n",
        r.evaluations.len(),
        c.predicted,
        c.failed
    ));
    if rejected > 0 {
        let kinds: Vec<String> = c.rejected.iter().map(|(k, n)| format!("{k} {n}")).collect();
        out.push_str(&format!("not launchable: {}\n", kinds.join(", ")));
        for e in r
            .evaluations
            .iter()
            .filter(|e| rejection_of(e).is_some())
            .take(5)
        {
            out.push_str(&format!(
                "  not launchable {}: {}\n",
                labels.label(&e.config),
                rejection_of(e).unwrap_or_default()
            ));
        }
    }
    for e in r.evaluations.iter().take(200) {
        if let Status::Failed(msg) = &e.status {
            out.push_str(&format!("  failed {}: {msg}\n", labels.label(&e.config)));
        }
    }
    out.push_str(&format!(
        "cache: {} of {} results from the cache\n",
        c.from_cache, c.reached_compiler
    ));
    let sampling = r
        .sample_ctas
        .map_or_else(|| "every CTA".to_string(), |k| format!("{k} CTAs sampled"));
    out.push_str(&format!(
        "emulation: {sampling} per configuration; {} jobs; {:.1} s\n",
        r.jobs, r.elapsed_s
    ));
    if let Some(line) = unsettled_samples(r.evaluations) {
        out.push_str(&line);
    }
    if let Some(o) = r.objective {
        out.push_str(&format!("objective: {o}; each model ranks by it\n"));
        // A value of 0 or less at a predicted time (an objective such as
        // `time - 1`) ranks nothing: say which models lost configurations.
        for (mi, m) in r.models.iter().enumerate() {
            let lost = r
                .evaluations
                .iter()
                .enumerate()
                .filter(|(i, e)| e.ms(mi).is_some() && m.times.get(*i).copied().flatten().is_none())
                .count();
            if lost > 0 {
                out.push_str(&format!(
                    "  {}: {lost} predicted configurations have no positive objective at their \
                     predicted time and are not ranked\n",
                    m.model
                ));
            }
        }
    }
    for (mi, m) in r.models.iter().enumerate() {
        let order = tune::top_k(&m.times, r.top);
        out.push_str(&format!(
            "\n{} (top {}{}):\n",
            m.model,
            order.len(),
            ranked_by_note(r.rank_by, m.bound)
        ));
        if order.is_empty() {
            out.push_str("  no prediction\n");
            continue;
        }
        // An interval column for a model that gives one.
        let intervals = r.evaluations.iter().any(|e| e.interval(mi).is_some());
        let mut t = crate::table::new(width);
        let mut header = vec!["rank", "configuration", "predicted"];
        if intervals {
            header.push("interval (low - high)");
        }
        if let Some(o) = r.objective {
            header.push(o.name.as_str());
        }
        header.extend(["occupancy", "bottleneck"]);
        t.set_header(header);
        let ranks = tune::shared_ranks(&m.times, &order);
        // Every configuration of a tie (listed or not) is marked `=`.
        let all_ranks = tune::shared_ranks(&m.times, &tune::rank(&m.times));
        let tied = |rank: usize| all_ranks.iter().filter(|x| **x == rank).count() > 1;
        let mut ties = false;
        for (&i, &rank) in order.iter().zip(&ranks) {
            let Some(e) = r.evaluations.get(i) else {
                continue;
            };
            let rank_cell = if tied(rank) {
                ties = true;
                format!("{rank}=")
            } else {
                rank.to_string()
            };
            let (occ, bottleneck) = match &e.status {
                Status::Done {
                    outcome:
                        Outcome::Predicted {
                            occupancy, models, ..
                        },
                    ..
                } => (
                    format!("{:.0} %", occupancy * 100.0),
                    models
                        .get(mi)
                        .and_then(|m| m.bottleneck.clone())
                        .unwrap_or_default(),
                ),
                _ => (String::new(), String::new()),
            };
            let mut row = vec![
                rank_cell,
                labels.label(&e.config),
                e.ms(mi).map(fmt_ms).unwrap_or_default(),
            ];
            if intervals {
                row.push(
                    e.interval(mi)
                        .map(|[lo, hi]| format!("{} - {}", fmt_ms(lo), fmt_ms(hi)))
                        .unwrap_or_default(),
                );
            }
            if let Some(o) = r.objective {
                row.push(objective_cell(o, e, mi));
            }
            row.extend([occ, bottleneck]);
            t.add_row(row);
        }
        out.push_str(&t.to_string());
        out.push('\n');
        if ties {
            let what = match (m.bound, r.objective) {
                (Bound::Estimate, None) => "predicted",
                (Bound::Upper, None) => "upper bounds",
                (Bound::Estimate, Some(_)) => "objectives",
                (Bound::Upper, Some(_)) => "objectives at the upper bounds",
            };
            out.push_str(&format!(
                "  =: a tie, {what} within {} % of each other (or printed alike)\n",
                tune::TIE_RELATIVE * 100.0
            ));
        }
    }
    out.push('\n');
    out.push_str(&winners_line(r, &labels));
    if let Some((file, metrics)) = r.measured {
        out.push_str(&format!("\nagainst measured times ({file}):\n"));
        if let Some(o) = r.objective {
            let (over, under) = if o.higher_is_better {
                ("the best's", "the pick's")
            } else {
                ("the pick's", "the best's")
            };
            out.push_str(&format!(
                "  by the objective: a ratio is {over} {} over {under}\n",
                o.name
            ));
        }
        let mut t = crate::table::new(width);
        t.set_header(vec![
            "model",
            "compared",
            "rank of measured best",
            "in top 10",
            "pick",
            "pick / best (measured)",
            "best of its first 5 / best",
        ]);
        for p in metrics {
            let label = r
                .evaluations
                .get(p.pick)
                .map(|e| labels.label(&e.config))
                .unwrap_or_default();
            t.add_row(vec![
                p.model.clone(),
                p.compared.to_string(),
                p.best_rank.to_string(),
                p.best_rank_in_top_k
                    .map_or_else(|| "no".to_string(), |k| k.to_string()),
                if p.tied > 1 {
                    format!("{label} and {} tied with it", p.tied - 1)
                } else {
                    label
                },
                if p.tied > 1 {
                    format!("{:.3} (their mean)", p.pick_ratio)
                } else {
                    format!("{:.3}", p.pick_ratio)
                },
                format!("{:.3}", p.best_of_first5_ratio),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    out
}

/// A configuration's objective at model `mi`'s predicted time, as the
/// table prints it (4 significant digits).
fn objective_cell(o: &Objective, e: &Evaluation, mi: usize) -> String {
    e.ms(mi)
        .and_then(|ms| o.value(&e.config, ms).ok())
        .map(significant)
        .unwrap_or_default()
}

/// `v` with 4 significant digits, without an exponent for everyday sizes.
fn significant(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if (1e-3..1e6).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.3e}")
    }
}

/// The time a model ranked configuration `e` by (ms): its estimate, or the
/// upper end of its interval.
fn ranked_ms(e: &Evaluation, mi: usize, bound: Bound) -> Option<f64> {
    match bound {
        Bound::Estimate => e.ms(mi),
        Bound::Upper => e.interval(mi).map(|[_, hi]| hi).or_else(|| e.ms(mi)),
    }
}

/// What a model's table header adds about its ranking: nothing when the
/// run ranks by the estimate; else the bound that ranked it.
fn ranked_by_note(by: RankBy, bound: Bound) -> &'static str {
    match (by, bound) {
        (RankBy::Estimate, _) => "",
        (RankBy::Pessimistic, Bound::Upper) => ", ranked by the upper end of its interval",
        (RankBy::Pessimistic, Bound::Estimate) => {
            ", ranked by its estimate: the model gives no interval"
        }
    }
}

/// With `--rank-by pessimistic`, which bound ranked which models (the
/// winner line's preamble); empty when the run ranks by the estimate.
fn ranked_by_line(r: &Report<'_>) -> String {
    if r.rank_by == RankBy::Estimate {
        return String::new();
    }
    let of = |bound: Bound| -> Vec<&str> {
        r.models
            .iter()
            .filter(|m| m.bound == bound)
            .map(|m| m.model.as_str())
            .collect()
    };
    let (upper, estimate) = (of(Bound::Upper), of(Bound::Estimate));
    let mut parts = Vec::new();
    if !upper.is_empty() {
        parts.push(format!(
            "the upper end of the interval for {}",
            upper.join(", ")
        ));
    }
    if !estimate.is_empty() {
        parts.push(format!(
            "the estimate for {} (no interval)",
            estimate.join(", ")
        ));
    }
    format!("ranked by the pessimistic bound: {}\n", parts.join("; "))
}

fn winners_line(r: &Report<'_>, labels: &Labels) -> String {
    let label = |i: usize| {
        r.evaluations
            .get(i)
            .map(|e| labels.label(&e.config))
            .unwrap_or_default()
    };
    let pick = |w: &tune::Winner| {
        if w.is_tie() {
            let all: Vec<String> = w.tied.iter().map(|&i| label(i)).collect();
            format!("a tie of {}", all.join(", "))
        } else {
            label(w.config)
        }
    };
    let mut out = ranked_by_line(r);
    match r.winners.winners.as_slice() {
        [] => out.push_str("winner: no model predicted any configuration\n"),
        [w] if w.is_tie() => out.push_str(&format!(
            "winner: none, every model predicts {} (within {} %)\n",
            pick(w),
            tune::TIE_RELATIVE * 100.0
        )),
        [w] => out.push_str(&format!("winner: every model picks {}\n", pick(w))),
        many => {
            out.push_str(&format!(
                "winner: the models disagree ({} different picks):\n",
                many.len()
            ));
            for w in many {
                out.push_str(&format!("  {}: {}\n", pick(w), w.models.join(", ")));
            }
        }
    }
    if !r.winners.no_prediction.is_empty() {
        out.push_str(&format!(
            "no prediction from: {}\n",
            r.winners.no_prediction.join(", ")
        ));
    }
    out
}

pub fn json(r: &Report<'_>) -> Value {
    let c = counts(r.evaluations);
    let configs: Vec<Value> = r
        .evaluations
        .iter()
        .map(|e| {
            let params: serde_json::Map<String, Value> = e
                .config
                .values
                .iter()
                .map(|(n, v)| {
                    let v = match v.as_int() {
                        Some(i) => json!(i),
                        None => json!(v.to_string()),
                    };
                    (n.clone(), v)
                })
                .collect();
            let status = match &e.status {
                Status::Done { outcome, cached } => {
                    let mut o = serde_json::to_value(outcome).unwrap_or(Value::Null);
                    if let Some(map) = o.as_object_mut() {
                        map.insert("cached".into(), json!(cached));
                    }
                    o
                }
                Status::RejectedEarly { kind, reason } => {
                    json!({"status": "rejected", "kind": kind, "reason": reason, "cached": false})
                }
                Status::Failed(msg) => json!({"status": "failed", "error": msg}),
            };
            json!({
                "index": e.config.index,
                "label": e.config.label(),
                "params": params,
                "grid": e.grid,
                "block": e.block,
                "result": status,
                "timings": crate::timings::json(&e.timings),
            })
        })
        .collect();
    let rankings: Vec<Value> = r
        .models
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let order = tune::top_k(&m.times, r.top);
            let ranks = tune::shared_ranks(&m.times, &order);
            let top: Vec<Value> = order
                .into_iter()
                .zip(ranks)
                .map(|(i, rank)| {
                    let e = r.evaluations.get(i);
                    json!({
                        "configuration": i,
                        "label": e.map(|e| e.config.label()),
                        "ms": e.and_then(|e| e.ms(mi)),
                        "interval_ms": e.and_then(|e| e.interval(mi)),
                        "ranked_ms": e.and_then(|e| ranked_ms(e, mi, m.bound)),
                        "objective": r.objective.and_then(|o| {
                            e.and_then(|e| o.value(&e.config, ranked_ms(e, mi, m.bound)?).ok())
                        }),
                        "rank": rank,
                    })
                })
                .collect();
            json!({"model": m.model, "ranked_by": m.bound, "top": top})
        })
        .collect();
    json!({
        "schema": 1,
        "command": r.command,
        "target": r.target,
        "gpu": r.gpu,
        "space": {
            "total": r.total,
            "kept": r.kept,
            "rejected_by": r.rejected_by,
            "sample": r.sample.map(|(n, seed)| json!({"n": n, "seed": seed})),
        },
        "sample_ctas": r.sample_ctas,
        "jobs": r.jobs,
        "elapsed_s": r.elapsed_s,
        "counts": {
            "evaluated": r.evaluations.len(),
            "predicted": c.predicted,
            "not_launchable": c.rejected,
            "failed": c.failed,
            "reached_compiler": c.reached_compiler,
            "from_cache": c.from_cache,
        },
        "rank_by": r.rank_by,
        "objective": r.objective.map(|o| json!({
            "name": o.name,
            "expression": o.text,
            "higher_is_better": o.higher_is_better,
        })),
        "rankings": rankings,
        "winners": r.winners,
        "measured": r.measured.map(|(file, m)| json!({"file": file, "metrics": m})),
        "configurations": configs,
    })
}

/// A Markdown table: one row per configuration, one column per model.
pub fn markdown(r: &Report<'_>) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "Predicted time (ms) of `{}` on {} ({}); **bold**: the model's pick (several: a tie).\n",
        r.target, r.gpu_name, r.gpu
    ));
    let intervals =
        (0..r.models.len()).any(|mi| r.evaluations.iter().any(|e| e.interval(mi).is_some()));
    if intervals {
        out.push_str("`t (low to high)`: the predicted time and the model's interval.\n");
    }
    out.push('\n');
    out.push_str("| configuration | grid | occupancy |");
    for m in r.models {
        out.push_str(&format!(" {} |", m.model));
    }
    out.push_str("\n|---|---|---|");
    out.push_str(&"---|".repeat(r.models.len()));
    out.push('\n');
    let picks: Vec<Vec<usize>> = r.models.iter().map(|m| tune::tied_best(&m.times)).collect();
    for (i, e) in r.evaluations.iter().enumerate() {
        let occ = match &e.status {
            Status::Done {
                outcome: Outcome::Predicted { occupancy, .. },
                ..
            } => format!("{:.0} %", occupancy * 100.0),
            _ => rejection_of(e).map_or_else(
                || "failed".to_string(),
                |why| format!("not launchable: {why}"),
            ),
        };
        out.push_str(&format!(
            "| {} | {}x{}x{} | {occ} |",
            e.config.label(),
            e.grid[0],
            e.grid[1],
            e.grid[2]
        ));
        for mi in 0..r.models.len() {
            let cell = e.ms(mi).map_or_else(
                || "-".to_string(),
                |ms| {
                    let ms = if picks.get(mi).is_some_and(|p| p.contains(&i)) {
                        format!("**{ms:.4}**")
                    } else {
                        format!("{ms:.4}")
                    };
                    match e.interval(mi) {
                        Some([lo, hi]) => format!("{ms} ({lo:.4} to {hi:.4})"),
                        None => ms,
                    }
                },
            );
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out.push('\n');
    // The Markdown table has a column per parameter: its winner line names
    // every one, as the table does.
    out.push_str(&winners_line(r, &Labels::full()));
    out
}

/// Why a tuning plot could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SvgError {
    #[error("nothing to plot against `{x}`: no predicted configuration has it")]
    NothingToPlot { x: String },
    #[error("cannot draw the plot: {0}")]
    Draw(String),
}

/// Each model's predicted time (log scale), or the run's objective at it,
/// against parameter `x` (its integer values), one line per model, over the
/// configurations that have it.
pub fn svg(r: &Report<'_>, x: &str, title: &str) -> Result<String, SvgError> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (mi, m) in r.models.iter().enumerate() {
        let mut pts: Vec<(f64, f64)> = r
            .evaluations
            .iter()
            .filter_map(|e| {
                let xv = e.config.int(x)? as f64;
                let ms = e.ms(mi)?;
                // With an objective, its value (positive, for the log scale).
                let y = match r.objective {
                    Some(o) => o.value(&e.config, ms).ok().filter(|v| *v > 0.0)?,
                    None => ms,
                };
                Some((xv, y))
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push((m.model.clone(), pts));
    }
    let all: Vec<(f64, f64)> = series.iter().flat_map(|(_, p)| p.iter().copied()).collect();
    if all.is_empty() {
        return Err(SvgError::NothingToPlot { x: x.to_string() });
    }
    let (xlo, xhi) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
    let (ylo, yhi) = all.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let (xlo, xhi) = (xlo.max(1e-9) / 1.3, xhi * 1.3);
    let (ylo, yhi) = (ylo / 1.5, yhi * 1.5);
    let y_desc = match r.objective {
        Some(o) if o.higher_is_better => format!("predicted {} (higher is better)", o.name),
        Some(o) => format!("predicted {} (lower is better)", o.name),
        None => "predicted time (ms)".to_string(),
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (760, 520)).into_drawing_area();
        let draw = || -> Result<(), SvgError> {
            let e = |e: &dyn std::fmt::Display| SvgError::Draw(e.to_string());
            root.fill(&WHITE).map_err(|x| e(&x))?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 17))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .right_y_label_area_size(0)
                .build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale())
                .map_err(|x| e(&x))?;
            chart
                .configure_mesh()
                .x_desc(x)
                .y_desc(y_desc.as_str())
                .draw()
                .map_err(|x| e(&x))?;
            for (i, (name, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(|x| e(&x))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|x| e(&x))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .border_style(BLACK)
                .background_style(WHITE.mix(0.85))
                .draw()
                .map_err(|x| e(&x))?;
            root.present().map_err(|x| e(&x))?;
            Ok(())
        };
        draw()?;
    }
    Ok(out)
}
