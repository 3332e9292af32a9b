//! `ptxperf validate --csv FILE`: every sampled configuration of a run as
//! one CSV row per data file, for a spreadsheet or a data frame: which data
//! file and GPU, the configuration's parameters, its part of the split, the
//! measured time, and per model the predicted time (and interval), the
//! bottleneck it names and the breakdown terms `--by-term` kept, or why
//! there is none. Under an objective, its value beside each time.

use validate::Dataset;
use validate::score::{Attempt, ModelScore, Outcome};

use crate::csv;
use crate::validate::Summary;

/// The CSV of one run, built data file by data file: the header from the
/// first, then each one's rows ([`Csv::push`]). The data files of a run
/// share their experiment, so their parameters and models.
pub struct Csv {
    params: Vec<String>,
    models: Vec<String>,
    /// Per model: whether it gives an interval (columns `_low_ms`, `_high_ms`).
    interval: Vec<bool>,
    /// Per model: the breakdown keys its predictions kept (`--by-term`), in
    /// the order first met; a column `MODEL_KEY` each.
    terms: Vec<Vec<String>>,
    /// The run's objective: a column `measured_objective` and one
    /// `MODEL_objective` per model, its value at each time.
    objective: Option<tune::Objective>,
    text: String,
}

impl Csv {
    /// The header, from the first data file's dataset, scores and outcomes,
    /// and the run's objective.
    pub fn new(
        dataset: &Dataset,
        scores: &[ModelScore],
        outcomes: &[Outcome],
        objective: Option<&tune::Objective>,
    ) -> Self {
        let params: Vec<String> = dataset
            .rows
            .first()
            .map(|row| {
                dataset
                    .named_values(row)
                    .into_iter()
                    .map(|(n, _)| n.to_string())
                    .collect()
            })
            .unwrap_or_default();
        let models: Vec<String> = scores.iter().map(|s| s.model.clone()).collect();
        let interval: Vec<bool> = models
            .iter()
            .map(|m| {
                outcomes.iter().any(|o| match &o.attempt {
                    Attempt::Predicted(p) => p
                        .iter()
                        .any(|(n, r)| n == m && r.as_ref().is_ok_and(|t| t.interval_ms.is_some())),
                    _ => false,
                })
            })
            .collect();
        let terms: Vec<Vec<String>> = models
            .iter()
            .map(|m| {
                let mut keys: Vec<String> = Vec::new();
                for o in outcomes {
                    let Attempt::Predicted(p) = &o.attempt else {
                        continue;
                    };
                    let kept = p
                        .iter()
                        .filter(|(n, _)| n == m)
                        .filter_map(|(_, r)| r.as_ref().ok())
                        .flat_map(|t| t.terms.iter().map(|(k, _)| k));
                    for k in kept {
                        if !keys.contains(k) {
                            keys.push(k.clone());
                        }
                    }
                }
                keys
            })
            .collect();
        let mut header: Vec<String> = vec!["data".into(), "gpu".into(), "index".into()];
        header.extend(params.iter().cloned());
        header.extend(["part", "measured_ms"].map(String::from));
        if objective.is_some() {
            header.push("measured_objective".into());
        }
        header.extend(["status", "error"].map(String::from));
        for ((m, has_interval), keys) in models.iter().zip(&interval).zip(&terms) {
            header.push(format!("{m}_ms"));
            if objective.is_some() {
                header.push(format!("{m}_objective"));
            }
            if *has_interval {
                header.push(format!("{m}_low_ms"));
                header.push(format!("{m}_high_ms"));
            }
            header.push(format!("{m}_bottleneck"));
            header.extend(keys.iter().map(|k| format!("{m}_{k}")));
        }
        Self {
            params,
            models,
            interval,
            terms,
            objective: objective.cloned(),
            text: csv::line(&header),
        }
    }

    /// One data file's rows, a row per sampled configuration, in the
    /// data file's order.
    pub fn push(&mut self, sum: &Summary, dataset: &Dataset, outcomes: &[Outcome]) {
        for o in outcomes {
            let mut row: Vec<String> = vec![sum.data.clone(), sum.gpu.clone(), o.index.to_string()];
            let values = dataset
                .rows
                .get(o.index)
                .map(|r| dataset.named_values(r))
                .unwrap_or_default();
            row.extend(self.params.iter().map(|p| {
                values
                    .iter()
                    .find(|(n, _)| n == p)
                    .map(|(_, v)| v.to_string())
                    .unwrap_or_default()
            }));
            let part = sum
                .split_parts
                .as_ref()
                .and_then(|p| p.of_row.get(&o.index))
                .map(ToString::to_string)
                .unwrap_or_default();
            row.push(part);
            row.push(o.measured_ms.map(|ms| format!("{ms}")).unwrap_or_default());
            let objective_at = |ms: Option<f64>| -> Option<String> {
                let obj = self.objective.as_ref()?;
                let value = study::validation::objective_value(obj, dataset, o.index, ms?)?;
                Some(format!("{value}"))
            };
            if self.objective.is_some() {
                row.push(objective_at(o.measured_ms).unwrap_or_default());
            }
            let (status, error) = match &o.attempt {
                Attempt::NotRun => ("measured_failed", String::new()),
                Attempt::Failed(e) => ("ptxperf_failed", e.clone()),
                Attempt::Predicted(_) => ("predicted", String::new()),
            };
            row.push(status.to_string());
            row.push(error);
            for ((m, has_interval), keys) in self.models.iter().zip(&self.interval).zip(&self.terms)
            {
                let predicted = match &o.attempt {
                    Attempt::Predicted(p) => p.iter().find(|(n, _)| n == m).map(|(_, r)| r),
                    _ => None,
                };
                let time = predicted.and_then(|r| r.as_ref().ok());
                let ms = time.map(|t| t.ms).filter(|ms| ms.is_finite());
                row.push(ms.map(|ms| format!("{ms}")).unwrap_or_default());
                if self.objective.is_some() {
                    row.push(objective_at(ms).unwrap_or_default());
                }
                if *has_interval {
                    let [lo, hi] = time
                        .and_then(|t| t.interval_ms)
                        .map_or([String::new(), String::new()], |[l, h]| {
                            [format!("{l}"), format!("{h}")]
                        });
                    row.push(lo);
                    row.push(hi);
                }
                row.push(time.and_then(|t| t.bottleneck.clone()).unwrap_or_default());
                row.extend(keys.iter().map(|k| {
                    time.and_then(|t| t.terms.iter().find(|(n, _)| n == k))
                        .map(|(_, v)| format!("{v}"))
                        .unwrap_or_default()
                }));
            }
            self.text.push_str(&csv::line(&row));
        }
    }

    /// The whole file.
    pub fn finish(self) -> String {
        self.text
    }
}
