//! Seed 004's procedure on a measurement CSV: one model per data set with its
//! 10 % check, then the finalised linear model of each (GPU, benchmark).

use crate::FitError;
use crate::check::{check_model, finalise_linear};
use crate::forms::{Fitted, Form, Model, fit_auto, fit_form};
use crate::measurements::DataSet;
use serde::Serialize;
use std::collections::BTreeMap;

/// The model fitted to one data set.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    pub gpu: String,
    pub benchmark: String,
    pub repetition: u32,
    pub unit: &'static str,
    pub fitted: Fitted,
    pub formula: String,
    /// Share of the points the model predicts within 10 %.
    pub within_10_percent: f64,
}

/// The averaged linear model of one (GPU, benchmark), checked on all its data sets.
#[derive(Debug, Clone, Serialize)]
pub struct Finalised {
    pub gpu: String,
    pub benchmark: String,
    pub a: f64,
    pub b: f64,
    pub data_sets: usize,
    pub within_10_percent: f64,
}

/// A data set no model of the asked form fits.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: error: {gpu} / {benchmark} repetition {repetition}: {source}")]
pub struct SetFitError {
    pub file: String,
    pub gpu: String,
    pub benchmark: String,
    pub repetition: u32,
    pub source: FitError,
}

/// Fit `form` (None: the best form by information criterion) to every data
/// set of `file`, in order.
pub fn fit_sets(
    file: &str,
    sets: &[DataSet],
    form: Option<Form>,
) -> Result<Vec<SetReport>, Box<SetFitError>> {
    sets.iter()
        .map(|set| {
            let fitted = match form {
                None => fit_auto(&set.xs, &set.times),
                Some(f) => fit_form(f, &set.xs, &set.times),
            }
            .map_err(|source| {
                Box::new(SetFitError {
                    file: file.to_string(),
                    gpu: set.key.gpu.clone(),
                    benchmark: set.key.benchmark.clone(),
                    repetition: set.key.repetition,
                    source,
                })
            })?;
            let check = check_model(&fitted.model, &set.xs, &set.times);
            Ok(SetReport {
                gpu: set.key.gpu.clone(),
                benchmark: set.key.benchmark.clone(),
                repetition: set.key.repetition,
                unit: set.unit.name(),
                formula: fitted.model.formula(),
                fitted,
                within_10_percent: check.share(),
            })
        })
        .collect()
}

/// Finalisation (seed 004): average A and B of the linear models of each
/// (GPU, benchmark), then check the finalised model on all its data sets.
/// Groups with a non-linear model are left out. `reports[i]` is the model of
/// `sets[i]`.
pub fn finalise(reports: &[SetReport], sets: &[DataSet]) -> Vec<Finalised> {
    let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        groups
            .entry((r.gpu.clone(), r.benchmark.clone()))
            .or_default()
            .push(i);
    }
    let mut finals = Vec::new();
    for ((gpu, benchmark), idx) in groups {
        let lin: Vec<(f64, f64)> = idx
            .iter()
            .filter_map(|&i| match reports.get(i)?.fitted.model {
                Model::Linear { a, b } => Some((a, b)),
                _ => None,
            })
            .collect();
        if lin.len() != idx.len() {
            continue; // finalisation averages linear models only
        }
        if let Some((a, b)) = finalise_linear(&lin) {
            let model = Model::Linear { a, b };
            let (mut within, mut total) = (0, 0);
            for set in idx.iter().filter_map(|&i| sets.get(i)) {
                let c = check_model(&model, &set.xs, &set.times);
                within += c.within;
                total += c.total;
            }
            let share = if total == 0 {
                0.0
            } else {
                within as f64 / total as f64
            };
            finals.push(Finalised {
                gpu,
                benchmark,
                a,
                b,
                data_sets: idx.len(),
                within_10_percent: share,
            });
        }
    }
    finals
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurements::parse_csv;

    const CSV: &str = "gpu,benchmark,x,time,unit,repetition\n\
        g,b,1,3,s,0\ng,b,2,5,s,0\ng,b,3,7,s,0\n\
        g,b,1,3.2,s,1\ng,b,2,5.2,s,1\ng,b,3,7.2,s,1\n";

    #[test]
    fn linear_sets_finalise_to_their_average() {
        let sets = parse_csv("m.csv", CSV).unwrap_or_else(|e| panic!("{e}"));
        let reports =
            fit_sets("m.csv", &sets, Some(Form::Linear)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reports.len(), 2);
        let finals = finalise(&reports, &sets);
        assert_eq!(finals.len(), 1);
        let f = &finals[0];
        assert!(
            (f.a - 2.0).abs() < 1e-9 && (f.b - 1.1).abs() < 1e-9,
            "{f:?}"
        );
        assert_eq!(f.data_sets, 2);
        assert_eq!(f.within_10_percent, 1.0);
    }
}
