//! Bootstrap intervals of the accuracy figures: how far a figure could move
//! had other configurations of the same space been scored.
//!
//! The scored configurations (predicted, measured) are resampled with
//! replacement `resamples` times; each figure is computed on every resample,
//! and the interval is the percentile interval of those values (Efron's
//! percentile method: for 90 %, the 5th and the 95th percentile, linearly
//! interpolated between order statistics as numpy's default). Resample `b`
//! draws its indices from its own generator, seeded by the seed and `b`
//! alone, and the resamples are collected in order: the intervals are the
//! same on any number of threads.
//!
//! A figure that is undefined on a resample (a rank correlation of a
//! resample whose predictions are all equal, say) is left out of that
//! figure's percentiles; when more than the interval's tail share
//! ((1 - confidence) / 2) of the resamples leave it undefined, the interval
//! is not given. Fewer than [`MIN_CONFIGURATIONS`] configurations give no
//! interval at all: a resample of one or two can only repeat them.

use rayon::prelude::*;

use crate::stats::{self, StatsError};

/// The fewest scored configurations an interval is drawn from.
pub const MIN_CONFIGURATIONS: usize = 3;

/// How the intervals are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    /// Resamples drawn (each as large as the scored set).
    pub resamples: usize,
    /// Seed of the draws.
    pub seed: u64,
    /// Coverage of the interval, in (0, 1): 0.9 for a 90 % interval.
    pub confidence: f64,
}

impl Default for Bootstrap {
    /// 1,000 resamples, seed 1, 90 %.
    fn default() -> Bootstrap {
        Bootstrap {
            resamples: 1000,
            seed: 1,
            confidence: 0.9,
        }
    }
}

/// A two-sided interval, `lo <= hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// Why no interval was drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BootstrapError {
    #[error("{0} scored configuration(s): an interval needs at least {MIN_CONFIGURATIONS}")]
    TooFew(usize),
    #[error("no resamples asked for")]
    NoResamples,
    #[error("{0} points but {1} ranked points: they must pair")]
    Unpaired(usize, usize),
    #[error("confidence {0} is not in (0, 1)")]
    BadConfidence(f64),
    #[error("a value is not a positive finite time: {0}")]
    Stats(#[from] StatsError),
}

/// The figures [`intervals`] bootstraps, in the order of [`Intervals::get`].
pub const FIGURES: [&str; 6] = [
    "MAPE",
    "median APE",
    "median predicted/measured",
    "Spearman",
    "Kendall",
    "best ratio",
];

/// The interval of each figure of a model's score; `None` where it cannot
/// be drawn, and `notes` say why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Intervals {
    pub mape: Option<Interval>,
    pub median_ape: Option<Interval>,
    pub median_ratio: Option<Interval>,
    pub spearman: Option<Interval>,
    pub kendall: Option<Interval>,
    pub best_ratio: Option<Interval>,
    /// Why an interval is missing, or rests on fewer resamples than drawn.
    pub notes: Vec<String>,
}

impl Intervals {
    fn set(&mut self, figure: usize, v: Option<Interval>) {
        match figure {
            0 => self.mape = v,
            1 => self.median_ape = v,
            2 => self.median_ratio = v,
            3 => self.spearman = v,
            4 => self.kendall = v,
            _ => self.best_ratio = v,
        }
    }
}

/// Every figure of one resample (`None`: undefined on it): the errors
/// of the times, the rank figures of the costs (the times again without an
/// objective).
fn figures(times: [&[f64]; 2], costs: [&[f64]; 2]) -> [Option<f64>; 6] {
    let [predicted, measured] = times;
    let [p, m] = costs;
    [
        stats::mape(predicted, measured).ok(),
        stats::median_ape(predicted, measured).ok(),
        stats::median_ratio(predicted, measured).ok(),
        stats::spearman(p, m).ok(),
        stats::kendall_tau_b(p, m).ok(),
        stats::best_config_ratio(p, m).ok(),
    ]
}

/// The indices of resample `b`: `n` uniform draws from `0..n`, from a
/// generator seeded by `seed` and `b` only.
pub fn resample_indices(n: usize, seed: u64, b: usize) -> Vec<usize> {
    let mut rng = prng::Rng::new(prng::mix64(seed).wrapping_add(b as u64));
    (0..n)
        .map(|_| prng::below_u64(n as u64, || rng.next_u64()) as usize)
        .collect()
}

/// The `q`-quantile (0 to 1) of an ascending, non-empty slice, linearly
/// interpolated between order statistics (numpy's default, Hyndman & Fan
/// type 7).
pub fn quantile_of_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * q.clamp(0.0, 1.0);
    let below = h.floor() as usize;
    let above = (below + 1).min(last);
    let (a, b) = (sorted[below], sorted[above]);
    Some(a + (h - below as f64) * (b - a))
}

/// The percentile interval of each figure over `points` ((predicted,
/// measured) of the scored configurations, as [`crate::score::ModelScore`]
/// keeps them).
pub fn intervals(points: &[(f64, f64)], how: &Bootstrap) -> Result<Intervals, BootstrapError> {
    intervals_ranked(points, None, how)
}

/// [`intervals`], the rank figures (Spearman, Kendall, best ratio) drawn
/// from `rank_points` where given (an objective's costs at the predicted
/// and the measured times, one per point: [`crate::score::ModelScore::rank_points`]);
/// each resample takes the same configurations from both.
pub fn intervals_ranked(
    points: &[(f64, f64)],
    rank_points: Option<&[(f64, f64)]>,
    how: &Bootstrap,
) -> Result<Intervals, BootstrapError> {
    if !(how.confidence > 0.0 && how.confidence < 1.0) {
        return Err(BootstrapError::BadConfidence(how.confidence));
    }
    if how.resamples == 0 {
        return Err(BootstrapError::NoResamples);
    }
    let n = points.len();
    if n < MIN_CONFIGURATIONS {
        return Err(BootstrapError::TooFew(n));
    }
    let ranked = rank_points.unwrap_or(points);
    if ranked.len() != n {
        return Err(BootstrapError::Unpaired(n, ranked.len()));
    }
    let predicted: Vec<f64> = points.iter().map(|p| p.0).collect();
    let measured: Vec<f64> = points.iter().map(|p| p.1).collect();
    let predicted_rank: Vec<f64> = ranked.iter().map(|p| p.0).collect();
    let measured_rank: Vec<f64> = ranked.iter().map(|p| p.1).collect();
    // The same checks the figures make, once, so that a resample fails only
    // where a figure is undefined on it.
    stats::mape(&predicted, &measured)?;
    stats::mape(&predicted_rank, &measured_rank)?;
    let pick = |v: &[f64], idx: &[usize]| -> Vec<f64> { idx.iter().map(|&i| v[i]).collect() };
    let per_resample: Vec<[Option<f64>; 6]> = (0..how.resamples)
        .into_par_iter()
        .map(|b| {
            let idx = resample_indices(n, how.seed, b);
            let (p, m) = (pick(&predicted, &idx), pick(&measured, &idx));
            if rank_points.is_none() {
                return figures([&p, &m], [&p, &m]);
            }
            let (pr, mr) = (pick(&predicted_rank, &idx), pick(&measured_rank, &idx));
            figures([&p, &m], [&pr, &mr])
        })
        .collect();
    let tail = (1.0 - how.confidence) / 2.0;
    let mut out = Intervals::default();
    for (f, name) in FIGURES.iter().enumerate() {
        let mut values: Vec<f64> = per_resample.iter().filter_map(|r| r[f]).collect();
        values.sort_by(f64::total_cmp);
        let undefined = how.resamples - values.len();
        if undefined as f64 > tail * how.resamples as f64 {
            out.notes.push(format!(
                "{name}: no interval, undefined on {undefined} of {} resamples",
                how.resamples
            ));
            continue;
        }
        if undefined > 0 {
            out.notes.push(format!(
                "{name}: interval over the {} of {} resamples it is defined on",
                values.len(),
                how.resamples
            ));
        }
        let lo = quantile_of_sorted(&values, tail);
        let hi = quantile_of_sorted(&values, 1.0 - tail);
        out.set(f, lo.zip(hi).map(|(lo, hi)| Interval { lo, hi }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_quantile(sorted: &[f64], q: f64, expect: Option<f64>) {
        assert_eq!(quantile_of_sorted(sorted, q), expect);
    }

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        check_quantile(&[], 0.5, None);
        check_quantile(&[3.0], 0.05, Some(3.0));
        check_quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5, Some(3.0));
        // h = 4 * 0.05 = 0.2: 1 + 0.2 * (2 - 1).
        check_quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.05, Some(1.2));
        check_quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95, Some(4.8));
        check_quantile(&[1.0, 2.0], 1.0, Some(2.0));
    }

    #[test]
    fn resamples_draw_in_range_and_depend_on_seed_and_index_only() {
        let a = resample_indices(50, 7, 3);
        assert_eq!(a.len(), 50);
        assert!(a.iter().all(|&i| i < 50));
        assert_eq!(a, resample_indices(50, 7, 3));
        assert_ne!(a, resample_indices(50, 7, 4));
        assert_ne!(a, resample_indices(50, 8, 3));
    }
}
