//! Accuracy figures of predicted against measured times: pure functions of
//! two equally long slices (element i of both is the same configuration).
//!
//! Percent errors are relative to the measured time and given in percent.
//! Rank correlations: Spearman is Pearson's correlation of the ranks, ties
//! sharing their average rank; Kendall's tau-b corrects for ties on both
//! sides: (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)).

/// Why a figure cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("predicted and measured have different lengths ({0} and {1})")]
    LengthMismatch(usize, usize),
    #[error("no values")]
    Empty,
    #[error("value {0} is not a finite number")]
    NonFinite(usize),
    #[error("measured value {0} is not positive")]
    NonPositive(usize),
    #[error("all values of one side are equal: the correlation is undefined")]
    Constant,
    #[error("fraction {0} is not in (0, 1]")]
    BadFraction(f64),
}

fn check(predicted: &[f64], measured: &[f64]) -> Result<(), StatsError> {
    if predicted.len() != measured.len() {
        return Err(StatsError::LengthMismatch(predicted.len(), measured.len()));
    }
    if predicted.is_empty() {
        return Err(StatsError::Empty);
    }
    for (i, (p, m)) in predicted.iter().zip(measured).enumerate() {
        if !p.is_finite() || !m.is_finite() {
            return Err(StatsError::NonFinite(i));
        }
    }
    Ok(())
}

/// `f(predicted, measured)` of every configuration, after checking the
/// slices and that every measured time is positive.
fn per_configuration(
    predicted: &[f64],
    measured: &[f64],
    f: impl Fn(f64, f64) -> f64,
) -> Result<Vec<f64>, StatsError> {
    check(predicted, measured)?;
    predicted
        .iter()
        .zip(measured)
        .enumerate()
        .map(|(i, (p, m))| {
            if *m > 0.0 {
                Ok(f(*p, *m))
            } else {
                Err(StatsError::NonPositive(i))
            }
        })
        .collect()
}

fn percent_errors(predicted: &[f64], measured: &[f64]) -> Result<Vec<f64>, StatsError> {
    per_configuration(predicted, measured, |p, m| 100.0 * (p - m).abs() / m)
}

/// Median of an ascending slice (mean of the two middle values when even).
pub fn median_of_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(0.5 * (sorted[n / 2 - 1] + sorted[n / 2])),
    }
}

/// Mean absolute percentage error, in percent.
pub fn mape(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    let e = percent_errors(predicted, measured)?;
    Ok(e.iter().sum::<f64>() / e.len() as f64)
}

/// Median absolute percentage error, in percent.
pub fn median_ape(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    let mut e = percent_errors(predicted, measured)?;
    e.sort_by(f64::total_cmp);
    median_of_sorted(&e).ok_or(StatsError::Empty)
}

/// Median of predicted / measured: the model's bias, where MAPE gives only
/// the size of the error (0.8: the model predicts a typical configuration 20 %
/// faster than it ran; 1.0: as many are predicted too fast as too slow).
pub fn median_ratio(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    let mut ratios = per_configuration(predicted, measured, |p, m| p / m)?;
    ratios.sort_by(f64::total_cmp);
    median_of_sorted(&ratios).ok_or(StatsError::Empty)
}

/// 1-based ranks, ties sharing the average of the ranks they span.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Positions start..end hold ranks start+1 ..= end; their mean:
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's rank correlation with average ranks for ties.
pub fn spearman(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    pearson(&average_ranks(predicted), &average_ranks(measured))
}

fn pearson(a: &[f64], b: &[f64]) -> Result<f64, StatsError> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa == 0.0 || sbb == 0.0 {
        return Err(StatsError::Constant);
    }
    Ok(sab / (saa * sbb).sqrt())
}

/// Kendall's tau-b, by Knight's O(n log n) method (sort by one side, count
/// the inversions of the other by merge sort), so that it can be
/// bootstrapped over whole spaces: 11,130 configurations (the largest
/// dataset) are 62 million pairs, which a direct count takes a fraction of a
/// second for, and a thousand resamples would take minutes. The counts are
/// integers, so the figure is the direct count's to the last bit (tested
/// against it).
pub fn kendall_tau_b(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    let n = predicted.len() as u64;
    let mut order: Vec<usize> = (0..predicted.len()).collect();
    order.sort_by(|&a, &b| {
        predicted[a]
            .total_cmp(&predicted[b])
            .then(measured[a].total_cmp(&measured[b]))
    });
    let pairs = |t: u64| t * t.saturating_sub(1) / 2;
    // Pairs tied on the prediction (n1) and on both sides (n3).
    let (mut ties_p, mut ties_both) = (0u64, 0u64);
    let mut start = 0;
    while start < order.len() {
        let same_p = |i: usize| {
            predicted[order[i]]
                .total_cmp(&predicted[order[start]])
                .is_eq()
        };
        let mut end = start + 1;
        while end < order.len() && same_p(end) {
            end += 1;
        }
        ties_p += pairs((end - start) as u64);
        let mut run = start;
        while run < end {
            let mut stop = run + 1;
            while stop < end
                && measured[order[stop]]
                    .total_cmp(&measured[order[run]])
                    .is_eq()
            {
                stop += 1;
            }
            ties_both += pairs((stop - run) as u64);
            run = stop;
        }
        start = end;
    }
    // Discordant pairs: inversions of the measured side in that order.
    let mut m: Vec<f64> = order.iter().map(|&i| measured[i]).collect();
    let swaps = inversions(&mut m);
    // `m` is now sorted: pairs tied on the measurement (n2).
    let mut ties_m = 0u64;
    let mut start = 0;
    while start < m.len() {
        let mut end = start + 1;
        while end < m.len() && m[end].total_cmp(&m[start]).is_eq() {
            end += 1;
        }
        ties_m += pairs((end - start) as u64);
        start = end;
    }
    let n0 = pairs(n);
    let denom = ((n0 - ties_p) as f64 * (n0 - ties_m) as f64).sqrt();
    if denom == 0.0 {
        return Err(StatsError::Constant);
    }
    // concordant - discordant = (n0 - n1 - n2 + n3) - 2 * discordant.
    let diff = (n0 + ties_both) as i128 - (ties_p + ties_m) as i128 - 2 * swaps as i128;
    Ok(diff as f64 / denom)
}

/// Sorts `v` ascending (by `total_cmp`, stable) and returns the number of
/// pairs i < j with v[i] > v[j] it had.
fn inversions(v: &mut [f64]) -> u64 {
    let n = v.len();
    let mut buf = v.to_vec();
    let mut swaps = 0u64;
    let mut width = 1;
    // Bottom-up merge sort between `v` and `buf`.
    let mut from_v = true;
    while width < n {
        let (src, dst): (&[f64], &mut [f64]) = if from_v {
            (&*v, &mut buf)
        } else {
            (&buf, &mut *v)
        };
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if src[j].total_cmp(&src[i]).is_lt() {
                    dst[k] = src[j];
                    swaps += (mid - i) as u64;
                    j += 1;
                } else {
                    dst[k] = src[i];
                    i += 1;
                }
                k += 1;
            }
            dst[k..k + mid - i].copy_from_slice(&src[i..mid]);
            k += mid - i;
            dst[k..k + hi - j].copy_from_slice(&src[j..hi]);
            lo = hi;
        }
        from_v = !from_v;
        width *= 2;
    }
    if !from_v {
        v.copy_from_slice(&buf);
    }
    swaps
}

/// Kendall's tau-b by direct pair count, O(n^2): the reference
/// [`kendall_tau_b`] is tested against.
pub fn kendall_tau_b_direct(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    let n = predicted.len();
    let (mut concordant, mut discordant) = (0u64, 0u64);
    let (mut ties_p, mut ties_m) = (0u64, 0u64);
    for i in 0..n {
        for j in i + 1..n {
            let dp = predicted[i].total_cmp(&predicted[j]);
            let dm = measured[i].total_cmp(&measured[j]);
            use std::cmp::Ordering::Equal;
            match (dp, dm) {
                (Equal, Equal) => {
                    ties_p += 1;
                    ties_m += 1;
                }
                (Equal, _) => ties_p += 1,
                (_, Equal) => ties_m += 1,
                _ if dp == dm => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let n0 = (n as u64) * (n as u64 - 1) / 2;
    let denom = ((n0 - ties_p) as f64 * (n0 - ties_m) as f64).sqrt();
    if denom == 0.0 {
        return Err(StatsError::Constant);
    }
    Ok((concordant as f64 - discordant as f64) / denom)
}

/// Indices of the k smallest values; ties broken by index (deterministic).
fn best_k(values: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

/// Share (0 to 1) of the measured best `fraction` of configurations that
/// are also in the predicted best `fraction`; both sets hold
/// k = ceil(n * fraction) configurations (at least 1). Top-1 % is
/// `top_fraction_overlap(p, m, 0.01)`.
pub fn top_fraction_overlap(
    predicted: &[f64],
    measured: &[f64],
    fraction: f64,
) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(StatsError::BadFraction(fraction));
    }
    let n = predicted.len();
    let k = ((n as f64 * fraction).ceil() as usize).clamp(1, n);
    let best_predicted = best_k(predicted, k);
    let hits = best_k(measured, k)
        .iter()
        .filter(|i| best_predicted.contains(i))
        .count();
    Ok(hits as f64 / k as f64)
}

/// Two predicted times closer than this fraction of the smaller one are a
/// tie: well inside any model's error, so neither is called faster (`tune`
/// gives them one rank; [`best_config_ratio`] takes them together).
pub const TIE_RELATIVE: f64 = 0.005;

/// Whether two predicted times are a tie ([`TIE_RELATIVE`]).
pub fn within_tie(a: f64, b: f64) -> bool {
    (a - b).abs() <= TIE_RELATIVE * a.abs().min(b.abs())
}

/// Indices of the configurations the prediction ranks best: the fastest
/// and every one tied with it ([`within_tie`]), in index order.
pub fn tied_for_best(predicted: &[f64]) -> Vec<usize> {
    let Some(&lead) = best_k(predicted, 1).first() else {
        return Vec::new();
    };
    (0..predicted.len())
        .filter(|&i| within_tie(predicted[lead], predicted[i]))
        .collect()
}

/// Measured time of the configuration the prediction ranks best, divided by
/// the best measured time (1.0: the model would pick the true optimum).
/// Where several configurations tie for the best prediction (variants whose
/// code is the same, say, predicted alike), the model cannot tell which to
/// pick, and picking by position in the data would be a draw: their mean
/// measured time stands for the pick, what a user picking any of them gets
/// on average.
pub fn best_config_ratio(predicted: &[f64], measured: &[f64]) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    let picked = tied_for_best(predicted);
    let best = best_k(measured, 1)[0];
    if measured[best] <= 0.0 {
        return Err(StatsError::NonPositive(best));
    }
    let mean = picked.iter().map(|&i| measured[i]).sum::<f64>() / picked.len() as f64;
    Ok(mean / measured[best])
}

/// How many of the fastest-ranked configurations [`best_of_top_k`] measures
/// in the validation figures: what a user who times the model's first few
/// picks gets.
pub const TOP_K_MEASURED: usize = 5;

/// The best measured time among the `k` configurations the prediction ranks
/// fastest, over the best measured time (1.0: the optimum is among them).
/// What a user who times the model's first `k` picks and keeps the fastest
/// gets. Configurations tied ([`within_tie`]) with the `k`-th prediction
/// are a draw: the figure is the expectation over which of them fill the
/// places left, so that, as for [`best_config_ratio`] (its `k` = 1 case),
/// no place in the data decides it.
pub fn best_of_top_k(predicted: &[f64], measured: &[f64], k: usize) -> Result<f64, StatsError> {
    check(predicted, measured)?;
    let n = predicted.len();
    let k = k.clamp(1, n);
    let best = best_k(measured, 1)[0];
    if measured[best] <= 0.0 {
        return Err(StatsError::NonPositive(best));
    }
    let kth = predicted[best_k(predicted, k)[k - 1]];
    // Ranked ahead of the k-th and not tied with it: always among the k.
    let ahead: Vec<f64> = (0..n)
        .filter(|&i| predicted[i] < kth && !within_tie(predicted[i], kth))
        .map(|i| measured[i])
        .collect();
    let certain = ahead.iter().copied().fold(f64::INFINITY, f64::min);
    let mut tied: Vec<f64> = (0..n)
        .filter(|&i| within_tie(predicted[i], kth))
        .map(|i| measured[i])
        .collect();
    tied.sort_by(f64::total_cmp);
    // `places` of the tied ones are drawn at random: the j-th fastest of
    // the g tied is the fastest drawn with probability
    // C(g - 1 - j, places - 1) / C(g, places).
    // The ratio of consecutive probabilities is (g - j - places) / (g - 1 - j):
    // 0 once fewer than `places` are left after the j-th, and so after it.
    let g = tied.len();
    let places = k.saturating_sub(ahead.len()).clamp(1, g.max(1));
    let mut p = places as f64 / g as f64;
    let mut expected = 0.0;
    for (j, &m) in tied.iter().enumerate() {
        expected += p * certain.min(m);
        let after = g - 1 - j;
        if after == 0 {
            break;
        }
        p *= (after + 1).saturating_sub(places) as f64 / after as f64;
    }
    Ok(expected / measured[best])
}
