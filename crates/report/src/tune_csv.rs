//! `ptxperf tune --csv FILE`: every configuration of a run as one CSV row
//! per GPU, for a spreadsheet or a data frame: the parameters, the launch,
//! whether it was predicted (or why not), and per model its time, its rank
//! (ties share one, as in the tables) and its bottleneck, with the interval
//! of a model that gives one.

use study::{Evaluation, Outcome, Status};

use crate::csv;
use crate::tune::Report;

/// The CSV of one run, built GPU by GPU: the header from the first
/// report, then each report's rows ([`Csv::push`]). Every report of a run
/// has the same configurations and models.
pub struct Csv {
    params: Vec<String>,
    /// Per model: whether it gives an interval (columns `_low_ms`, `_high_ms`).
    interval: Vec<bool>,
    /// Whether the run ranks by an objective (column `_objective`).
    objective: bool,
    text: String,
}

impl Csv {
    /// The header, from the first GPU's report.
    pub fn new(first: &Report<'_>) -> Self {
        let params: Vec<String> = first
            .evaluations
            .first()
            .map(|e| e.config.values.iter().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        let interval: Vec<bool> = (0..first.models.len())
            .map(|mi| first.evaluations.iter().any(|e| e.interval(mi).is_some()))
            .collect();
        let mut header: Vec<String> = vec!["gpu".into()];
        header.extend(params.iter().cloned());
        for h in [
            "grid_x",
            "grid_y",
            "grid_z",
            "block_x",
            "block_y",
            "block_z",
            "status",
            "reason",
            "registers",
            "occupancy",
        ] {
            header.push(h.into());
        }
        for (m, has_interval) in first.models.iter().zip(&interval) {
            header.push(format!("{}_ms", m.model));
            if *has_interval {
                header.push(format!("{}_low_ms", m.model));
                header.push(format!("{}_high_ms", m.model));
            }
            if first.objective.is_some() {
                header.push(format!("{}_objective", m.model));
            }
            header.push(format!("{}_rank", m.model));
            header.push(format!("{}_bottleneck", m.model));
        }
        Self {
            params,
            interval,
            objective: first.objective.is_some(),
            text: csv::line(&header),
        }
    }

    /// One GPU's rows, a row per configuration in the run's order.
    pub fn push(&mut self, r: &Report<'_>) {
        let ranks: Vec<Vec<Option<usize>>> = r.models.iter().map(|m| ranks_of(&m.times)).collect();
        for (i, e) in r.evaluations.iter().enumerate() {
            let mut row: Vec<String> = vec![r.gpu.clone()];
            row.extend(
                self.params
                    .iter()
                    .map(|p| e.config.get(p).map(ToString::to_string).unwrap_or_default()),
            );
            row.extend(e.grid.iter().chain(&e.block).map(ToString::to_string));
            let (status, reason, registers, occupancy) = launch_of(e);
            row.extend([status.to_string(), reason, registers, occupancy]);
            for (mi, has_interval) in self.interval.iter().enumerate() {
                row.push(e.ms(mi).map(number).unwrap_or_default());
                if *has_interval {
                    let [lo, hi] = e
                        .interval(mi)
                        .map_or([None, None], |[l, h]| [Some(l), Some(h)]);
                    row.push(lo.map(number).unwrap_or_default());
                    row.push(hi.map(number).unwrap_or_default());
                }
                if self.objective {
                    let value = r
                        .objective
                        .and_then(|o| e.ms(mi).and_then(|ms| o.value(&e.config, ms).ok()));
                    row.push(value.map(number).unwrap_or_default());
                }
                let rank = ranks.get(mi).and_then(|rk| rk.get(i).copied().flatten());
                row.push(rank.map(|k| k.to_string()).unwrap_or_default());
                row.push(bottleneck_of(e, mi).unwrap_or_default());
            }
            self.text.push_str(&csv::line(&row));
        }
    }

    /// The whole file.
    pub fn finish(self) -> String {
        self.text
    }
}

/// Each configuration's rank by `times` (1 = fastest, ties share the
/// lowest), `None` where it has no time.
fn ranks_of(times: &[Option<f64>]) -> Vec<Option<usize>> {
    let order = tune::top_k(times, times.len());
    let ranks = tune::shared_ranks(times, &order);
    let mut out = vec![None; times.len()];
    for (i, rank) in order.into_iter().zip(ranks) {
        if let Some(slot) = out.get_mut(i) {
            *slot = times.get(i).copied().flatten().map(|_| rank);
        }
    }
    out
}

/// A time in milliseconds, every digit Rust's shortest round trip keeps.
fn number(ms: f64) -> String {
    format!("{ms}")
}

/// (status, why not predicted, registers per thread, occupancy 0 to 1).
fn launch_of(e: &Evaluation) -> (&'static str, String, String, String) {
    match &e.status {
        Status::Done {
            outcome:
                Outcome::Predicted {
                    registers,
                    occupancy,
                    ..
                },
            ..
        } => (
            "predicted",
            String::new(),
            registers.to_string(),
            format!("{occupancy}"),
        ),
        Status::Done {
            outcome: Outcome::Rejected {
                reason, registers, ..
            },
            ..
        } => (
            "not_launchable",
            reason.clone(),
            registers.to_string(),
            String::new(),
        ),
        Status::RejectedEarly { reason, .. } => (
            "not_launchable",
            reason.clone(),
            String::new(),
            String::new(),
        ),
        Status::Failed(msg) => ("failed", msg.clone(), String::new(), String::new()),
    }
}

fn bottleneck_of(e: &Evaluation, model_index: usize) -> Option<String> {
    match &e.status {
        Status::Done {
            outcome: Outcome::Predicted { models, .. },
            ..
        } => models.get(model_index).and_then(|m| m.bottleneck.clone()),
        _ => None,
    }
}
