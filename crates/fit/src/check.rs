//! Model checking and finalisation as seed 004 defines them.
//!
//! "If |AT − PT| < AT/10 then it is considered that the model falls within the
//! accepted margin of error" (seed 004, Model Checking); one model is fitted
//! per data set and the final model averages out their discrepancies (Model
//! Finalisation).

use crate::forms::Model;
use serde::Serialize;

/// The outcome of checking a model against measured points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CheckResult {
    /// Points with `|AT - PT| < AT / 10`.
    pub within: usize,
    pub total: usize,
}

impl CheckResult {
    /// The share of points within the margin, in [0, 1]; 0 for no points.
    pub fn share(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.within as f64 / self.total as f64
        }
    }
}

/// Whether a predicted time is within the seed's 10 % margin of the actual
/// time. The comparison is strict, as in the seed; a non-positive actual time
/// can never be matched.
pub fn within_margin(actual: f64, predicted: f64) -> bool {
    (actual - predicted).abs() < actual / 10.0
}

/// Check predicted against actual times, pairwise.
pub fn check_pairs(actual: &[f64], predicted: &[f64]) -> CheckResult {
    let within = actual
        .iter()
        .zip(predicted)
        .filter(|&(&a, &p)| within_margin(a, p))
        .count();
    CheckResult {
        within,
        total: actual.len().min(predicted.len()),
    }
}

/// Check a model on points `(x, actual time)`.
pub fn check_model(model: &Model, xs: &[f64], actual: &[f64]) -> CheckResult {
    let predicted: Vec<f64> = xs.iter().map(|&x| model.eval(x)).collect();
    check_pairs(actual, &predicted)
}

/// Finalise per-data-set linear models `(A, B)` into one by averaging the
/// coefficients. `None` when there is nothing to average.
pub fn finalise_linear(models: &[(f64, f64)]) -> Option<(f64, f64)> {
    if models.is_empty() {
        return None;
    }
    let n = models.len() as f64;
    Some((
        models.iter().map(|m| m.0).sum::<f64>() / n,
        models.iter().map(|m| m.1).sum::<f64>() / n,
    ))
}
