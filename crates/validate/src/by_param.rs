//! Errors by parameter value: for each tunable parameter of a data file,
//! a model's median predicted/measured and MAPE over the scored
//! configurations that hold each of its values.
//!
//! A model whose median moves with a parameter misses an effect of that
//! parameter: the timing model's median on the RTX A6000 dedispersion runs
//! from 0.79 at `block_size_x` = 1 to 0.61 at 32, so it credits wide blocks
//! with a speed-up the GPU does not show. The whole-space MAPE and Spearman
//! say that the model is off, this says where. Pure, like [`crate::score`]:
//! tested on synthetic outcomes.

use crate::dataset::{Dataset, ParamValue};
use crate::score::{Attempt, Outcome, Predicted};
use crate::stats;

/// Values scored on fewer configurations than this are listed but left out
/// of [`ParamErrors::spread`]: the median of one or two configurations says
/// more about them than about the parameter.
pub const MIN_FOR_SPREAD: usize = 3;

/// One value of one parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueErrors {
    pub value: ParamValue,
    /// Scored configurations that hold this value.
    pub scored: usize,
    /// Median of predicted / measured over them.
    pub median_ratio: f64,
    /// Their mean absolute percentage error, percent.
    pub mape: f64,
}

/// One parameter: its values in ascending order.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamErrors {
    pub param: String,
    pub values: Vec<ValueErrors>,
    /// The highest median predicted/measured of a value over the lowest,
    /// among values with at least [`MIN_FOR_SPREAD`] configurations (1 when
    /// fewer than two such values): how far the model's bias moves with
    /// this parameter.
    pub spread: f64,
    /// The share (0 to 1) of the variance of ln(predicted / measured) over
    /// the scored configurations that this parameter's values explain,
    /// adjusted for how many values it has (the adjusted R² of the log
    /// ratio on the parameter as a factor, floored at 0): unlike the
    /// spread, a parameter with many sparsely sampled values does not gain
    /// from their noise. The parameters are ranked by it.
    pub explained: f64,
}

impl ParamErrors {
    /// The values with the lowest and the highest median among those
    /// counted in the spread; `None` when fewer than two are.
    pub fn extremes(&self) -> Option<(&ValueErrors, &ValueErrors)> {
        let counted = || self.values.iter().filter(|v| v.scored >= MIN_FOR_SPREAD);
        let low = counted().min_by(|a, b| a.median_ratio.total_cmp(&b.median_ratio))?;
        let high = counted().max_by(|a, b| a.median_ratio.total_cmp(&b.median_ratio))?;
        (counted().count() >= 2).then_some((low, high))
    }
}

/// The model's (predicted, measured) milliseconds of one outcome when it
/// counts in the scores: both times positive and finite, as
/// [`crate::score::score_model`] takes them.
fn scored_times(o: &Outcome, model: &str) -> Option<(f64, f64)> {
    let measured = o.measured_ms.filter(|m| m.is_finite() && *m > 0.0)?;
    let Attempt::Predicted(preds) = &o.attempt else {
        return None;
    };
    let (_, Ok(p)) = preds.iter().find(|(n, _)| n == model)? else {
        return None;
    };
    (p.ms.is_finite() && p.ms > 0.0).then_some((p.ms, measured))
}

/// Per row of `dataset`, what `of` takes from `model`'s prediction of it:
/// `None` where the row was not predicted by it or `of` gives nothing (the
/// model's own groupings, [`crate::by_bottleneck`] and [`crate::by_term`]).
pub(crate) fn per_row<T: Clone>(
    dataset: &Dataset,
    outcomes: &[Outcome],
    model: &str,
    of: impl Fn(&Predicted) -> Option<T>,
) -> Vec<Option<T>> {
    let mut values: Vec<Option<T>> = vec![None; dataset.rows.len()];
    for o in outcomes {
        let Attempt::Predicted(preds) = &o.attempt else {
            continue;
        };
        let Some((_, Ok(p))) = preds.iter().find(|(n, _)| n == model) else {
            continue;
        };
        if let (Some(v), Some(slot)) = (of(p), values.get_mut(o.index)) {
            *slot = Some(v);
        }
    }
    values
}

/// Errors of `model` by each parameter of `dataset`, over the outcomes it
/// scored. Parameters that hold one value among them are left out; the
/// rest come in order of the share of the error they explain
/// ([`ParamErrors::explained`]; ties in column order).
pub fn by_parameter(dataset: &Dataset, outcomes: &[Outcome], model: &str) -> Vec<ParamErrors> {
    let scored = scored_rows(dataset, outcomes, model);
    let mut params: Vec<ParamErrors> = dataset
        .params
        .iter()
        .enumerate()
        .filter_map(|(column, name)| {
            errors_by_value(name, &scored, &|row| {
                dataset.rows[row].values.get(column).cloned()
            })
        })
        .collect();
    // Stable: equal shares keep the data file's column order.
    params.sort_by(|a, b| b.explained.total_cmp(&a.explained));
    params
}

/// (row, predicted, measured) of every outcome of `model` that counts in
/// the scores and names a row of `dataset`, in outcome order.
pub(crate) fn scored_rows(
    dataset: &Dataset,
    outcomes: &[Outcome],
    model: &str,
) -> Vec<(usize, f64, f64)> {
    outcomes
        .iter()
        .filter_map(|o| {
            let (p, m) = scored_times(o, model)?;
            (o.index < dataset.rows.len()).then_some((o.index, p, m))
        })
        .collect()
}

/// The errors of the scored rows grouped by `value_of(row)` (a row without
/// a value is left out), under `name`; `None` where fewer than two values
/// occur. The groups are built in first-seen order, which the explained
/// share is summed in, and listed in ascending order of value.
pub(crate) fn errors_by_value(
    name: &str,
    scored: &[(usize, f64, f64)],
    value_of: &dyn Fn(usize) -> Option<ParamValue>,
) -> Option<ParamErrors> {
    let mut by_value: Vec<(ParamValue, Vec<f64>, Vec<f64>)> = Vec::new();
    for &(row, p, m) in scored {
        let Some(value) = value_of(row) else {
            continue;
        };
        match by_value.iter_mut().find(|(v, _, _)| *v == value) {
            Some((_, ps, ms)) => {
                ps.push(p);
                ms.push(m);
            }
            None => by_value.push((value, vec![p], vec![m])),
        }
    }
    if by_value.len() < 2 {
        return None;
    }
    let logs: Vec<Vec<f64>> = by_value
        .iter()
        .map(|(_, ps, ms)| ps.iter().zip(ms).map(|(p, m)| (p / m).ln()).collect())
        .collect();
    let explained = explained_share(&logs);
    by_value.sort_by(|a, b| a.0.cmp(&b.0));
    let values: Vec<ValueErrors> = by_value
        .into_iter()
        .filter_map(|(value, ps, ms)| {
            Some(ValueErrors {
                value,
                scored: ps.len(),
                median_ratio: stats::median_ratio(&ps, &ms).ok()?,
                mape: stats::mape(&ps, &ms).ok()?,
            })
        })
        .collect();
    let mut p = ParamErrors {
        param: name.to_string(),
        values,
        spread: 1.0,
        explained,
    };
    if let Some((low, high)) = p.extremes() {
        p.spread = high.median_ratio / low.median_ratio;
    }
    Some(p)
}

/// The adjusted R² of one-way groups: 1 - (1 - R²)(n - 1)/(n - k), R² the
/// between-group sum of squares over the total, floored at 0; 0 when the
/// values do not vary or there are no more observations than groups.
fn explained_share(groups: &[Vec<f64>]) -> f64 {
    let n: usize = groups.iter().map(Vec::len).sum();
    let k = groups.iter().filter(|g| !g.is_empty()).count();
    if k < 2 || n <= k {
        return 0.0;
    }
    let mean = groups.iter().flatten().sum::<f64>() / n as f64;
    let total: f64 = groups.iter().flatten().map(|x| (x - mean).powi(2)).sum();
    // Also false for a NaN total: no share then.
    if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return 0.0;
    }
    let between: f64 = groups
        .iter()
        .filter(|g| !g.is_empty())
        .map(|g| {
            let m = g.iter().sum::<f64>() / g.len() as f64;
            g.len() as f64 * (m - mean).powi(2)
        })
        .sum();
    let r2 = between / total;
    let adjusted = 1.0 - (1.0 - r2) * (n - 1) as f64 / (n - k) as f64;
    adjusted.max(0.0)
}

/// Which scored configurations the errors are over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Every scored configuration (no split, or one part of it only).
    All,
    /// The development part of the split only: the scored configurations
    /// held both parts, and the check part is only reported.
    Development,
}

impl Part {
    /// As `validate --json` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Part::All => "all",
            Part::Development => "development",
        }
    }
}

/// Every model's errors by parameter over one part of a run's
/// configurations, models in the order of the scores.
#[derive(Debug, Clone, PartialEq)]
pub struct ByParameter {
    pub part: Part,
    pub models: Vec<(String, Vec<ParamErrors>)>,
}

/// One sentence on the parameter that explains most of the model's error,
/// e.g. "timing's error depends most on block_size_x (14 % of the variance
/// of ln(predicted/measured)): median predicted/measured 0.63 at 16 (27
/// configurations) to 0.79 at 1 (98)"; `None` without parameters, or when
/// the first has fewer than two values with enough configurations.
pub fn headline(model: &str, params: &[ParamErrors]) -> Option<String> {
    let p = params.first()?;
    let (low, high) = p.extremes()?;
    // The model's own limits are not a parameter of the data: say what they are.
    let subject = if p.param == crate::by_bottleneck::NAME {
        "the limit its prediction names (bottleneck)".to_string()
    } else if let Some(term) = p.param.strip_prefix(crate::by_term::PREFIX) {
        match term.split_once(':') {
            Some((source, key)) => format!("the term {key} of {source}'s breakdown"),
            None => format!("the term {term} of its own breakdown"),
        }
    } else {
        p.param.clone()
    };
    Some(format!(
        "{model}'s error depends most on {subject} ({:.0} % of the variance of ln(predicted/measured)): median predicted/measured {:.2} at {} ({} configurations) to {:.2} at {} ({})",
        100.0 * p.explained,
        low.median_ratio,
        low.value,
        low.scored,
        high.median_ratio,
        high.value,
        high.scored
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dataset::{Measured, Row, Timing};
    use crate::score::{NoTime, Predicted};

    /// A dataset of integer parameters, every row measured at 1 ms.
    pub(crate) fn dataset(params: &[&str], rows: &[&[i64]]) -> Dataset {
        Dataset {
            gpu: "GPU".into(),
            kernel: "k".into(),
            problem_size: None,
            params: params.iter().map(|s| s.to_string()).collect(),
            rows: rows
                .iter()
                .map(|r| Row {
                    values: r.iter().map(|&v| ParamValue::Int(v)).collect(),
                    measured: Measured::Time(Timing {
                        mean_ms: 1.0,
                        median_ms: None,
                        min_ms: None,
                        std_ms: None,
                        n: None,
                        drift: None,
                    }),
                })
                .collect(),
            compiler: None,
        }
    }

    /// Row `index` predicted by model `m`.
    pub(crate) fn predicted(index: usize, predicted: f64, measured: f64) -> Outcome {
        Outcome {
            index,
            measured_ms: Some(measured),
            attempt: Attempt::Predicted(vec![("m".into(), Ok(Predicted::from(predicted)))]),
        }
    }

    /// Row `index`, measured at 1 ms, predicted by model `m` as `p`.
    pub(crate) fn measured_once(index: usize, p: Predicted) -> Outcome {
        Outcome {
            index,
            measured_ms: Some(1.0),
            attempt: Attempt::Predicted(vec![("m".into(), Ok(p))]),
        }
    }

    /// A dataset of `n` rows of one parameter `a` holding 0 to n - 1.
    pub(crate) fn indexed(n: usize) -> Dataset {
        let rows: Vec<Vec<i64>> = (0..n as i64).map(|i| vec![i]).collect();
        let rows: Vec<&[i64]> = rows.iter().map(Vec::as_slice).collect();
        dataset(&["a"], &rows)
    }

    /// Compares the (value as text, scored, median ratio to 3 decimals) of
    /// each group of `got`, in the order listed, with `expect`; the
    /// groupings' tests (`by_bottleneck`, `by_term`) check with it.
    pub(crate) fn assert_groups(
        got: Option<&ParamErrors>,
        expect: Option<Vec<(&str, usize, f64)>>,
    ) {
        let got = got.map(|e| {
            e.values
                .iter()
                .map(|v| {
                    let ratio = (v.median_ratio * 1000.0).round() / 1000.0;
                    (v.value.to_string(), v.scored, ratio)
                })
                .collect::<Vec<_>>()
        });
        let expect = expect.map(|e| {
            e.into_iter()
                .map(|(s, n, r)| (s.to_string(), n, r))
                .collect::<Vec<_>>()
        });
        assert_eq!(got, expect);
    }

    /// (value, scored, median ratio, MAPE) of one value.
    type Value = (i64, usize, f64, f64);

    /// (parameter, its values) in the order `by_parameter` returns them,
    /// rounded to 3 decimals.
    type Expect<'a> = &'a [(&'a str, &'a [Value])];

    fn check(d: &Dataset, outcomes: &[Outcome], expect: Expect<'_>) {
        let got = by_parameter(d, outcomes, "m");
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let got: Vec<(String, Vec<Value>)> = got
            .iter()
            .map(|p| {
                let values = p
                    .values
                    .iter()
                    .map(|v| {
                        let value = v.value.as_int().expect("integer values here");
                        (value, v.scored, round(v.median_ratio), round(v.mape))
                    })
                    .collect();
                (p.param.clone(), values)
            })
            .collect();
        let want: Vec<(String, Vec<Value>)> = expect
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_vec()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn medians_and_mape_per_value() {
        // a = 1: ratios 0.5 and 1.0; a = 2: 2.0 and 2.0 and 1.0.
        let d = dataset(&["a"], &[&[1], &[1], &[2], &[2], &[2]]);
        let o = [
            predicted(0, 1.0, 2.0),
            predicted(1, 3.0, 3.0),
            predicted(2, 4.0, 2.0),
            predicted(3, 2.0, 1.0),
            predicted(4, 5.0, 5.0),
        ];
        check(&d, &o, &[("a", &[(1, 2, 0.75, 25.0), (2, 3, 2.0, 66.667)])]);
    }

    #[test]
    fn values_sort_ascending_and_parameters_by_spread() {
        // b moves the bias (0.5 at 8, 1.0 at 2); a holds each b twice, so
        // its values share one median.
        let rows: &[&[i64]] = &[
            &[1, 8],
            &[2, 8],
            &[1, 8],
            &[2, 8],
            &[1, 2],
            &[2, 2],
            &[1, 2],
            &[2, 2],
        ];
        let d = dataset(&["a", "b"], rows);
        let o: Vec<Outcome> = (0..8)
            .map(|i| predicted(i, if i < 4 { 1.0 } else { 2.0 }, 2.0))
            .collect();
        let got = by_parameter(&d, &o, "m");
        assert_eq!(got[0].param, "b");
        assert!((got[0].spread - 2.0).abs() < 1e-12);
        assert!((got[1].spread - 1.0).abs() < 1e-12);
        assert!((got[0].explained - 1.0).abs() < 1e-12);
        assert_eq!(got[1].explained, 0.0);
        check(
            &d,
            &o,
            &[
                ("b", &[(2, 4, 1.0, 0.0), (8, 4, 0.5, 50.0)]),
                ("a", &[(1, 4, 0.75, 25.0), (2, 4, 0.75, 25.0)]),
            ],
        );
        assert_eq!(
            headline("m", &got).as_deref(),
            Some(
                "m's error depends most on b (100 % of the variance of ln(predicted/measured)): median predicted/measured 0.50 at 8 (4 configurations) to 1.00 at 2 (4)"
            )
        );
    }

    #[test]
    fn failures_and_single_valued_parameters_are_left_out() {
        let d = dataset(&["a", "c"], &[&[1, 5], &[2, 5], &[2, 5], &[1, 5]]);
        let o = [
            predicted(0, 1.0, 1.0),
            predicted(1, 2.0, 1.0),
            // Measured as failed, and a model that gave no time.
            Outcome {
                index: 2,
                measured_ms: None,
                attempt: Attempt::NotRun,
            },
            Outcome {
                index: 3,
                measured_ms: Some(1.0),
                attempt: Attempt::Predicted(vec![("m".into(), Err(NoTime::NoPrediction))]),
            },
        ];
        // c holds 5 only: left out.
        check(&d, &o, &[("a", &[(1, 1, 1.0, 0.0), (2, 1, 2.0, 100.0)])]);
        // One configuration per value: no spread, no headline.
        let got = by_parameter(&d, &o, "m");
        assert_eq!(got[0].spread, 1.0);
        assert_eq!(headline("m", &got), None);
        // Another model's name finds nothing to score.
        assert!(by_parameter(&d, &o, "other").is_empty());
    }

    #[test]
    fn explained_share_is_the_adjusted_r2_of_the_groups() {
        // Mean 3, total SS 20, between 16: R² 0.8, adjusted 1 - 0.2 x 3 / 2.
        let got = explained_share(&[vec![0.0, 2.0], vec![4.0, 6.0]]);
        assert!((got - 0.7).abs() < 1e-12, "{got}");
        // No spread between the groups: floored at 0, not negative.
        assert_eq!(explained_share(&[vec![0.0, 2.0], vec![0.0, 2.0]]), 0.0);
        // Constant values, one group, as many groups as observations.
        assert_eq!(explained_share(&[vec![1.0, 1.0], vec![1.0]]), 0.0);
        assert_eq!(explained_share(&[vec![0.0, 2.0]]), 0.0);
        assert_eq!(explained_share(&[vec![0.0], vec![2.0]]), 0.0);
    }

    #[test]
    fn sparse_values_are_listed_but_not_in_the_spread() {
        // a = 3 has one configuration with ratio 10: not counted.
        let d = dataset(&["a"], &[&[1], &[1], &[1], &[2], &[2], &[2], &[3]]);
        let mut o: Vec<Outcome> = (0..3).map(|i| predicted(i, 1.0, 1.0)).collect();
        o.extend((3..6).map(|i| predicted(i, 1.5, 1.0)));
        o.push(predicted(6, 10.0, 1.0));
        let got = by_parameter(&d, &o, "m");
        assert!((got[0].spread - 1.5).abs() < 1e-12);
        assert_eq!(got[0].values.len(), 3);
    }
}
