//! The learned model's calibrated interval ([`learn::Calibration`]): scores
//! of configurations of GPUs a model was not trained on, and the quantile
//! that sizes the interval.
//!
//! Why: the members' range (five boosters on other row draws) held the
//! measured time of only 0 to 25 % of the check configurations of a
//! held-out GPU (docs/validation/learned.md, "The interval"); the members
//! agree with each other far more than with a GPU none of them saw. So
//! training holds out each GPU of the development part in turn, predicts
//! it with a model trained on the others, and keeps how far off each of
//! its configurations was beyond the members' own spread. Both targets
//! (a correction, log time) are natural logs, so the interval's half-width
//! is a factor on the predicted time either way.

use std::collections::BTreeSet;

use learn::Calibration;

use super::LearningError;
use super::{HoldOut, Sample, TrainOptions, train};

/// The share of held-out configurations the interval is sized to hold.
pub const COVERAGE: f64 = 0.9;

/// One development configuration, predicted by a model trained without its GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfFold {
    pub gpu: String,
    pub kernel: String,
    /// Its training weight (the options' weighting over all the samples).
    pub weight: f64,
    /// `|target - members' mean|`, target units.
    pub error: f64,
    /// Half the members' range, target units.
    pub half_range: f64,
}

/// The development configurations predicted by models trained without
/// their GPU (the interval of a configuration like the trained ones) and
/// without their kernel (the interval of an unknown kernel's).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutOfFolds {
    pub by_gpu: Vec<OutOfFold>,
    pub by_kernel: Vec<OutOfFold>,
}

/// [`out_of_fold_on`] holding out each GPU, then each kernel, on the
/// available cores.
pub fn out_of_folds(samples: &[Sample], opts: &TrainOptions) -> Result<OutOfFolds, LearningError> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(OutOfFolds {
        by_gpu: out_of_fold_on(samples, opts, HoldOut::Gpu, workers)?,
        by_kernel: out_of_fold_on(samples, opts, HoldOut::Kernel, workers)?,
    })
}

/// Hold out each GPU (or kernel) of `samples` (all development) in turn,
/// train on the rest with `opts` and predict the held-out one's
/// configurations: one [`OutOfFold`] per sample, in GPU (kernel) then sample
/// order. The folds run on `workers` threads; each is trained and predicted
/// alone, so the result does not depend on how many there are.
pub(super) fn out_of_fold_on(
    samples: &[Sample],
    opts: &TrainOptions,
    hold: HoldOut,
    workers: usize,
) -> Result<Vec<OutOfFold>, LearningError> {
    let weights = opts.weighting.weights(samples);
    let gpus: Vec<&str> = samples
        .iter()
        .map(|s| hold.key(s))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let fold = |gpu: &str| -> Result<Vec<OutOfFold>, LearningError> {
        let rest: Vec<Sample> = samples
            .iter()
            .filter(|s| hold.key(s) != gpu)
            .cloned()
            .collect();
        if rest.is_empty() {
            return Ok(Vec::new());
        }
        let file = train(&rest, opts)?;
        Ok(samples
            .iter()
            .zip(&weights)
            .filter(|(s, _)| hold.key(s) == gpu)
            .map(|(s, &weight)| {
                // A freshly trained file has no calibration: its interval
                // is the members' range.
                let p = file.predict(&s.features);
                OutOfFold {
                    gpu: s.gpu.clone(),
                    kernel: s.kernel.clone(),
                    weight,
                    error: (s.target(opts.target) - p.mean).abs(),
                    half_range: (p.high - p.low) / 2.0,
                }
            })
            .collect())
    };
    let workers = workers.clamp(1, gpus.len().max(1));
    // Progress for a front end: folds done, counted under a lock so that
    // the last message names them all whichever thread finishes last.
    let progress = emu::progress::current();
    let what = hold.noun();
    let folds_done = std::sync::Mutex::new(0usize);
    let report = |p: &emu::progress::Progress, done: usize| {
        p.name_stage(&format!(
            "sizing the interval: {done} of {} folds (each {what} held out)",
            gpus.len()
        ));
    };
    if let Some(p) = &progress {
        report(p, 0);
    }
    let fold_counted = |gpu: &str| {
        let out = fold(gpu);
        if let (Some(p), Ok(mut n)) = (&progress, folds_done.lock()) {
            *n += 1;
            report(p, *n);
        }
        out
    };
    let mut results: Vec<Option<Result<Vec<OutOfFold>, LearningError>>> =
        (0..gpus.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let chunks: Vec<Vec<(usize, &str)>> = (0..workers)
            .map(|w| {
                gpus.iter()
                    .copied()
                    .enumerate()
                    .skip(w)
                    .step_by(workers)
                    .collect()
            })
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let fold = &fold_counted;
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(i, g)| (i, fold(g)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, r) in h.join().expect("a calibration fold panicked") {
                results[i] = Some(r);
            }
        }
    });
    let mut out = Vec::with_capacity(samples.len());
    for r in results.into_iter().flatten() {
        out.extend(r?);
    }
    Ok(out)
}

/// The calibration from the out-of-fold configurations `keep` admits
/// (cross-validation leaves out those of the GPU or kernel it scores), or
/// `None` when none is admitted: the margin from those predicted without
/// their GPU, the unknown kernel's margin from those predicted without
/// their kernel (none when there are none).
pub fn calibrate(oof: &OutOfFolds, keep: impl Fn(&OutOfFold) -> bool) -> Option<Calibration> {
    let scores = |rows: &[OutOfFold]| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|o| keep(o))
            .map(|o| (o.error - o.half_range, o.weight))
            .collect()
    };
    let by_gpu = scores(&oof.by_gpu);
    if by_gpu.is_empty() {
        return None;
    }
    let by_kernel = scores(&oof.by_kernel);
    let n = by_gpu.len();
    let k = by_kernel.len();
    Some(Calibration {
        coverage: COVERAGE,
        margin: round6(weighted_quantile(by_gpu, COVERAGE)),
        held_out: "gpu".to_string(),
        scores: n,
        kernel_margin: (k > 0).then(|| round6(weighted_quantile(by_kernel, COVERAGE))),
        kernel_scores: k,
    })
}

/// The smallest value whose weight and that of every smaller value reach
/// `q` of the total (the lower weighted quantile); 0 for no values.
fn weighted_quantile(mut values: Vec<(f64, f64)>, q: f64) -> f64 {
    values.retain(|(v, w)| v.is_finite() && *w > 0.0);
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = values.iter().map(|(_, w)| w).sum();
    let mut acc = 0.0;
    for &(v, w) in &values {
        acc += w;
        if acc >= q * total {
            return v;
        }
    }
    values.last().map_or(0.0, |&(v, _)| v)
}

/// Six decimals, so that the file's bytes do not hang on the last bits of a sum.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_quantile(values: &[(f64, f64)], q: f64, expect: f64) {
        assert_eq!(
            weighted_quantile(values.to_vec(), q),
            expect,
            "{values:?} at {q}"
        );
    }

    #[test]
    fn the_weighted_quantile_is_the_lower_one() {
        check_quantile(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0)], 0.5, 2.0);
        check_quantile(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0)], 0.9, 4.0);
        // A heavy value pulls the quantile to itself.
        check_quantile(&[(1.0, 1.0), (2.0, 8.0), (3.0, 1.0)], 0.5, 2.0);
        check_quantile(&[(3.0, 1.0), (1.0, 1.0)], 0.25, 1.0);
        check_quantile(&[], 0.9, 0.0);
        // Non-finite values and zero weights are left out.
        check_quantile(&[(f64::NAN, 1.0), (5.0, 0.0), (2.0, 1.0)], 0.9, 2.0);
    }

    fn oof(gpu: &str, error: f64, half_range: f64) -> OutOfFold {
        OutOfFold {
            gpu: gpu.to_string(),
            kernel: "k".to_string(),
            weight: 1.0,
            error,
            half_range,
        }
    }

    #[test]
    fn the_interval_holds_the_coverage_of_the_scores() {
        // Ten configurations, errors 1..10 beyond a half-range of 1: 90 % of
        // the scores (0..9) are at most 8.
        let rows: Vec<OutOfFold> = (1..=10).map(|e| oof("a", f64::from(e), 1.0)).collect();
        let by_gpu = |rows: &[OutOfFold]| OutOfFolds {
            by_gpu: rows.to_vec(),
            by_kernel: Vec::new(),
        };
        let c = calibrate(&by_gpu(&rows), |_| true).expect("calibrated");
        assert_eq!(c.margin, 8.0);
        assert_eq!(c.scores, 10);
        assert_eq!(c.kernel_margin, None);
        // The interval is the margin plus the prediction's own half-range.
        assert_eq!(c.interval(0.0, -1.0, 1.0, 1.0), (-9.0, 9.0));
        assert_eq!(c.interval(0.5, 0.5, 0.5, 1.0), (-7.5, 8.5));
        // Without an unknown kernel's margin, familiarity changes nothing.
        assert_eq!(c.interval(0.5, 0.5, 0.5, 0.0), (-7.5, 8.5));
        // It never turns inside out.
        let tight = Calibration {
            margin: -2.0,
            ..c.clone()
        };
        assert_eq!(tight.interval(1.0, 0.0, 2.0, 1.0), (1.0, 1.0));
        // Leaving rows out changes the margin; leaving all out gives none.
        let c = calibrate(&by_gpu(&rows), |o| o.error <= 5.0).expect("calibrated");
        assert_eq!(c.margin, 4.0);
        assert!(calibrate(&by_gpu(&rows), |o| o.gpu == "b").is_none());
        // Scores of kernels held out size the unknown kernel's margin; a
        // row's margin goes from one to the other with its familiarity.
        let both = OutOfFolds {
            by_gpu: rows.clone(),
            by_kernel: (1..=10).map(|e| oof("a", f64::from(2 * e), 0.0)).collect(),
        };
        let c = calibrate(&both, |_| true).expect("calibrated");
        assert_eq!(
            (c.margin, c.kernel_margin, c.kernel_scores),
            (8.0, Some(18.0), 10)
        );
        assert_eq!(c.interval(0.0, 0.0, 0.0, 1.0), (-8.0, 8.0));
        assert_eq!(c.interval(0.0, 0.0, 0.0, 0.0), (-18.0, 18.0));
        assert_eq!(c.interval(0.0, 0.0, 0.0, 0.5), (-13.0, 13.0));
    }
}
