//! Every model by name, running a selection, and comparing the predictions.

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use crate::kothapalli::{self, Variant};
use crate::mwp_cwp::{self, Mode};
use crate::prediction::{ModelError, Prediction};
use crate::{gpuperf, learned, mcm, roofline, timing, tmm};

/// Every model name, in display order. The first [`DEFAULT_MODELS`] are run
/// when no model is named; the MWP-CWP rounding variants and `learned`
/// (which reads a trained model file) only on request.
pub const MODEL_NAMES: [&str; 12] = [
    "kothapalli-max",
    "kothapalli-sum",
    "mwp-cwp",
    "gpuperf",
    "tmm",
    "mcm",
    "roofline",
    "roofline-hierarchical",
    "timing",
    "mwp-cwp-paper",
    "mwp-cwp-klaraptor",
    "learned",
];

/// How many of [`MODEL_NAMES`] run by default.
pub const DEFAULT_MODELS: usize = 9;

/// Run the model called `name`.
pub fn predict(
    name: &str,
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    match name {
        "kothapalli-max" => kothapalli::adapter::predict(profile, gpu, occ, Variant::Max),
        "kothapalli-sum" => kothapalli::adapter::predict(profile, gpu, occ, Variant::Sum),
        "mwp-cwp" => mwp_cwp::adapter::predict(profile, gpu, occ, Mode::Exact),
        "mwp-cwp-paper" => mwp_cwp::adapter::predict(profile, gpu, occ, Mode::PaperExample),
        "mwp-cwp-klaraptor" => mwp_cwp::adapter::predict(profile, gpu, occ, Mode::Klaraptor),
        "gpuperf" => gpuperf::adapter::predict(profile, gpu, occ),
        "tmm" => tmm::adapter::predict(profile, gpu, occ),
        "mcm" => mcm::adapter::predict(profile, gpu, occ),
        "roofline" => roofline::adapter::predict(profile, gpu, occ, false),
        "roofline-hierarchical" => roofline::adapter::predict(profile, gpu, occ, true),
        "timing" => timing::adapter::predict(profile, gpu, occ),
        "learned" => learned::predict(profile, gpu, occ),
        other => Err(ModelError::UnknownModel {
            name: other.to_string(),
            known: MODEL_NAMES.join(", "),
        }),
    }
}

/// Check that every name is known, before running anything.
pub fn check_names(names: &[String]) -> Result<(), ModelError> {
    match names.iter().find(|n| !MODEL_NAMES.contains(&n.as_str())) {
        Some(bad) => Err(ModelError::UnknownModel {
            name: bad.clone(),
            known: MODEL_NAMES.join(", "),
        }),
        None => Ok(()),
    }
}

/// The default selection.
pub fn default_names() -> Vec<String> {
    MODEL_NAMES[..DEFAULT_MODELS]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// How far the models agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// Largest over smallest predicted time (1 = all agree).
    pub spread: f64,
    /// Median predicted time (geometric mean of the two middle ones for an even count), seconds.
    pub median_seconds: f64,
    /// The model farthest from the median in log space.
    pub outlier: String,
    /// Its distance, `|log10(t / median)|` (decades).
    pub outlier_decades: f64,
}

/// Compare predictions; `None` when there are none.
pub fn agreement(predictions: &[Prediction]) -> Option<Agreement> {
    let mut logs: Vec<f64> = predictions.iter().map(|p| p.seconds.log10()).collect();
    if logs.is_empty() || logs.iter().any(|l| !l.is_finite()) {
        return None;
    }
    logs.sort_by(f64::total_cmp);
    let mid = logs.len() / 2;
    let median_log = if logs.len() % 2 == 1 {
        logs[mid]
    } else {
        (logs[mid - 1] + logs[mid]) / 2.0
    };
    let (lo, hi) = (logs[0], logs[logs.len() - 1]);
    // Farthest from the median; the first in input order wins a tie.
    let mut outlier = &predictions[0];
    let mut distance = -1.0;
    for p in predictions {
        let d = (p.seconds.log10() - median_log).abs();
        if d > distance {
            distance = d;
            outlier = p;
        }
    }
    Some(Agreement {
        spread: 10f64.powf(hi - lo),
        median_seconds: 10f64.powf(median_log),
        outlier: outlier.model.clone(),
        outlier_decades: distance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn prediction(model: &str, seconds: f64) -> Prediction {
        Prediction {
            model: model.into(),
            seconds,
            cycles: seconds * 1e9,
            bottleneck: String::new(),
            breakdown: BTreeMap::new(),
        }
    }

    /// Compare `(spread, median, outlier)` for predictions of the given times.
    fn check(times: &[(&str, f64)], spread: f64, median: f64, outlier: &str) {
        let ps: Vec<Prediction> = times.iter().map(|&(m, s)| prediction(m, s)).collect();
        let a = agreement(&ps);
        let ok = a.as_ref().is_some_and(|a| {
            (a.spread - spread).abs() < 1e-9 * spread
                && (a.median_seconds - median).abs() < 1e-9 * median
                && a.outlier == outlier
        });
        assert!(ok, "{a:?}");
    }

    #[test]
    fn spread_median_and_outlier() {
        check(&[("a", 1.0), ("b", 2.0), ("c", 100.0)], 100.0, 2.0, "c");
        check(&[("a", 1e-3), ("b", 1.0), ("c", 2.0)], 2000.0, 1.0, "a");
        check(&[("a", 1.0), ("b", 4.0)], 4.0, 2.0, "a");
        check(&[("only", 3.0)], 1.0, 3.0, "only");
    }

    #[test]
    fn nothing_to_compare() {
        assert_eq!(agreement(&[]), None);
    }

    #[test]
    fn unknown_names_are_refused() {
        assert!(check_names(&["mwp-cwp".into(), "roofline".into()]).is_ok());
        let e = check_names(&["mwpcwp".into()]).map_err(|e| e.to_string());
        assert!(
            matches!(e, Err(m) if m.contains("unknown model `mwpcwp`") && m.contains("gpuperf"))
        );
    }
}
