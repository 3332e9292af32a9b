//! Joining what ptxperf predicted with what was measured, and the accuracy
//! table per model. Pure functions of the per-configuration outcomes, so the
//! scoring is tested on synthetic data without NVRTC or the emulator.
//!
//! Three kinds of configuration, kept apart:
//! - measured as failed (Kernel Tuner's markers): counted, never run, never
//!   scored;
//! - measured, but ptxperf could not compile, emulate or predict it (a
//!   pipeline error, a model error, or a time that is not a positive finite
//!   number): counted per model as a ptxperf failure;
//! - measured and predicted: scored.

use crate::blend::{Blend, shared_familiarity};
use crate::bootstrap::{self, Bootstrap, Intervals};
use crate::stats::{self, StatsError};

/// Fraction of configurations behind the "top-1 %" overlap.
pub const TOP_FRACTION: f64 = 0.01;

/// What ptxperf made of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// Measured as failed: not run.
    NotRun,
    /// The configuration never reached the models (instantiation, NVRTC,
    /// emulation or profiling failed), with the reason.
    Failed(String),
    /// Each model's predicted kernel time, or why not.
    Predicted(Vec<(String, Result<Predicted, NoTime>)>),
}

/// One model's prediction for one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicted {
    /// The predicted kernel time, milliseconds.
    pub ms: f64,
    /// `[low, high]` milliseconds, for a model that gives an interval
    /// (`learned`).
    pub interval_ms: Option<[f64; 2]>,
    /// The prediction at both ends of familiarity, for a model that keeps a
    /// share of a correction (`learned`): [`share_familiarity`] gives the
    /// configurations scored together one share.
    pub blend: Option<Blend>,
    /// What limits the kernel according to the model, in its own words
    /// (`validate --csv`'s `MODEL_bottleneck`); `None` in tests' fakes.
    pub bottleneck: Option<String>,
    /// The terms of the model's breakdown that `validate --by-term` asked
    /// for, as (key, value), where the model computed them; empty unless
    /// asked (a breakdown per configuration and model would not be small).
    pub terms: Vec<(String, f64)>,
}

impl From<f64> for Predicted {
    /// A time without an interval.
    fn from(ms: f64) -> Predicted {
        Predicted {
            ms,
            interval_ms: None,
            blend: None,
            bottleneck: None,
            terms: Vec::new(),
        }
    }
}

/// Give the configurations of `outcomes` that each model predicted with a
/// [`Blend`] that model's mean familiarity over them (crate::blend says
/// why): their times and intervals become the blend's at that share, the
/// blend keeps the configuration's own. Returns each blended model's shared
/// familiarity, in the order the models first appear.
pub fn share_familiarity(outcomes: &mut [Outcome]) -> Vec<(String, f64)> {
    let mut models: Vec<String> = Vec::new();
    for o in outcomes.iter() {
        if let Attempt::Predicted(times) = &o.attempt {
            for (name, t) in times {
                if matches!(t, Ok(Predicted { blend: Some(_), .. })) && !models.contains(name) {
                    models.push(name.clone());
                }
            }
        }
    }
    let blends_of = |outcomes: &[Outcome], model: &str| -> Vec<Blend> {
        outcomes
            .iter()
            .filter_map(|o| match &o.attempt {
                Attempt::Predicted(times) => times.iter().find(|(n, _)| n == model),
                _ => None,
            })
            .filter_map(|(_, t)| t.as_ref().ok().and_then(|p| p.blend))
            .collect()
    };
    let mut shared = Vec::new();
    for model in models {
        let Some(w) = shared_familiarity(&blends_of(outcomes, &model)) else {
            continue;
        };
        for o in outcomes.iter_mut() {
            let Attempt::Predicted(times) = &mut o.attempt else {
                continue;
            };
            for (_, t) in times.iter_mut().filter(|(n, _)| *n == model) {
                if let Ok(p) = t
                    && let Some(b) = p.blend.filter(Blend::is_valid)
                {
                    let [ms, low, high] = b.at(w);
                    p.ms = ms;
                    p.interval_ms = p.interval_ms.map(|_| [low, high]);
                }
            }
        }
        shared.push((model, w));
    }
    shared
}

/// Why a model gave no time for a configuration, as the report records it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoTime {
    /// The model refused; the first non-blank line of its error (the report
    /// keeps one line per model).
    #[error("{0}")]
    Refused(String),
    /// The pipeline returned no prediction for the model.
    #[error("no prediction")]
    NoPrediction,
}

/// One sampled configuration after the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Row index in the dataset (the output is sorted by it).
    pub index: usize,
    /// Measured mean time in milliseconds; `None` when measured as failed.
    pub measured_ms: Option<f64>,
    pub attempt: Attempt,
}

/// The accuracy figures of one model. A figure is `None` when it cannot be
/// computed (no scored configuration, or a rank correlation of a constant
/// prediction); `notes` says why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelScore {
    pub model: String,
    /// Configurations both measured and predicted.
    pub scored: usize,
    /// Sampled configurations Kernel Tuner measured as failed.
    pub measured_failed: usize,
    /// Measured configurations ptxperf could not compile, emulate or predict.
    pub ptxperf_failed: usize,
    /// Mean absolute percentage error, percent.
    pub mape: Option<f64>,
    /// Median absolute percentage error, percent.
    pub median_ape: Option<f64>,
    /// Median of predicted / measured: below 1 the model is too fast on a
    /// typical configuration, above 1 too slow.
    pub median_ratio: Option<f64>,
    pub spearman: Option<f64>,
    pub kendall: Option<f64>,
    /// Share (0 to 1) of the measured best 1 % also in the predicted best 1 %.
    pub top1_overlap: Option<f64>,
    /// Measured time of the predicted-best configuration over the measured best.
    pub best_ratio: Option<f64>,
    /// The best measured time among the [`stats::TOP_K_MEASURED`]
    /// configurations predicted fastest, over the measured best.
    pub best_of_top_k: Option<f64>,
    /// Why figures are missing, and the first ptxperf failure (one line each).
    pub notes: Vec<String>,
    /// For a model that gives an interval (`learned`): the share (0 to 1) of
    /// the scored configurations with one whose measured time lies inside.
    pub interval_coverage: Option<f64>,
    /// The median over those configurations of the interval's upper end
    /// over its lower end.
    pub interval_width: Option<f64>,
    /// For a model that keeps a share of a correction (`learned`): the
    /// share the scored configurations kept, the mean of their own
    /// ([`share_familiarity`]).
    pub familiarity: Option<f64>,
    /// (predicted, measured) milliseconds of the scored configurations, in
    /// configuration order: the scatter plot's points.
    pub points: Vec<(f64, f64)>,
    /// With an objective ([`score_model_by`]): the objective's cost at the
    /// predicted and at the measured time of each of [`ModelScore::points`]
    /// (lower is better: the value, or its reciprocal for a throughput).
    /// The rank figures (Spearman, Kendall, top-1 %, the best ratio and
    /// the best of the fastest-ranked) come from these; the errors (MAPE,
    /// median APE, median ratio) from the times.
    pub rank_points: Option<Vec<(f64, f64)>>,
}

/// What ranks configurations when it is not the time alone: the cost (lower
/// is better) of the dataset row `index` running in `ms` milliseconds;
/// `None` where it has none (an objective that is not positive there).
pub type RankCost<'a> = &'a dyn Fn(usize, f64) -> Option<f64>;

/// Scores every model named in `models` over the outcomes. Outcomes should
/// be sorted by index; the result is then independent of how they were run.
pub fn score_all(outcomes: &[Outcome], models: &[String]) -> Vec<ModelScore> {
    score_all_by(outcomes, models, None)
}

/// [`score_all`], the rank figures by `cost` when given.
pub fn score_all_by(
    outcomes: &[Outcome],
    models: &[String],
    cost: Option<RankCost<'_>>,
) -> Vec<ModelScore> {
    models
        .iter()
        .map(|m| score_model_by(outcomes, m, cost))
        .collect()
}

/// Scores one model.
pub fn score_model(outcomes: &[Outcome], model: &str) -> ModelScore {
    score_model_by(outcomes, model, None)
}

/// Scores one model, its rank figures by `cost` when given (an objective:
/// [`ModelScore::rank_points`]). A configuration the objective has no cost
/// for at its predicted or its measured time is left out of every figure,
/// and a note counts them.
pub fn score_model_by(outcomes: &[Outcome], model: &str, cost: Option<RankCost<'_>>) -> ModelScore {
    let mut s = ModelScore {
        model: model.to_string(),
        ..ModelScore::default()
    };
    let mut first_failure: Option<String> = None;
    let mut intervals: Vec<([f64; 2], f64)> = Vec::new();
    let mut blends: Vec<Blend> = Vec::new();
    let mut rank_points: Vec<(f64, f64)> = Vec::new();
    let mut without_cost = 0usize;
    for o in outcomes {
        let Some(measured) = o.measured_ms else {
            s.measured_failed += 1;
            continue;
        };
        let predicted = match &o.attempt {
            Attempt::NotRun => Err("not run".to_string()),
            Attempt::Failed(why) => Err(why.clone()),
            Attempt::Predicted(preds) => match preds.iter().find(|(n, _)| n == model) {
                Some((_, Ok(p))) if p.ms.is_finite() && p.ms > 0.0 => Ok(p),
                Some((_, Ok(p))) => Err(format!("predicted time {} ms is not positive", p.ms)),
                Some((_, Err(e))) => Err(e.to_string()),
                None => Err("the model gave no prediction".to_string()),
            },
        };
        match predicted {
            Ok(p) if measured.is_finite() && measured > 0.0 => {
                if let Some(cost) = cost {
                    match (cost(o.index, p.ms), cost(o.index, measured)) {
                        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => rank_points.push((a, b)),
                        _ => {
                            without_cost += 1;
                            continue;
                        }
                    }
                }
                s.points.push((p.ms, measured));
                if let Some(i) = p.interval_ms {
                    intervals.push((i, measured));
                }
                blends.extend(p.blend);
            }
            Ok(_) => {
                s.ptxperf_failed += 1;
                first_failure.get_or_insert_with(|| {
                    format!("configuration {}: measured time {measured} ms", o.index)
                });
            }
            Err(e) => {
                s.ptxperf_failed += 1;
                first_failure.get_or_insert_with(|| format!("configuration {}: {e}", o.index));
            }
        }
    }
    s.scored = s.points.len();
    (s.interval_coverage, s.interval_width) = interval_figures(&intervals);
    s.familiarity = shared_familiarity(&blends);
    let predicted: Vec<f64> = s.points.iter().map(|p| p.0).collect();
    let measured: Vec<f64> = s.points.iter().map(|p| p.1).collect();
    if cost.is_some() {
        s.rank_points = Some(rank_points);
    }
    let ranked = s.rank_points.as_deref().unwrap_or(&s.points);
    let predicted_rank: Vec<f64> = ranked.iter().map(|p| p.0).collect();
    let measured_rank: Vec<f64> = ranked.iter().map(|p| p.1).collect();
    let mut notes = Vec::new();
    if without_cost > 0 {
        notes.push(format!(
            "objective: {without_cost} configuration(s) without a positive value at their \
             predicted or measured time, left out"
        ));
    }
    let mut figure = |name: &str, r: Result<f64, StatsError>| match r {
        Ok(v) => Some(v),
        Err(e) => {
            let note = format!("{name}: {e}");
            if !notes.contains(&note) {
                notes.push(note);
            }
            None
        }
    };
    if !predicted.is_empty() {
        s.mape = figure("MAPE", stats::mape(&predicted, &measured));
        s.median_ape = figure("median APE", stats::median_ape(&predicted, &measured));
        s.median_ratio = figure(
            "median predicted/measured",
            stats::median_ratio(&predicted, &measured),
        );
        let (p, m) = (&predicted_rank, &measured_rank);
        s.spearman = figure("Spearman", stats::spearman(p, m));
        s.kendall = figure("Kendall", stats::kendall_tau_b(p, m));
        s.top1_overlap = figure("top-1 %", stats::top_fraction_overlap(p, m, TOP_FRACTION));
        s.best_ratio = figure("best ratio", stats::best_config_ratio(p, m));
        s.best_of_top_k = figure(
            "best of the fastest-ranked",
            stats::best_of_top_k(p, m, stats::TOP_K_MEASURED),
        );
    } else {
        notes.push("no configuration was both measured and predicted".to_string());
    }
    s.notes = notes;
    if let Some(f) = first_failure {
        s.notes.push(format!("first failure: {f}"));
    }
    s
}

/// The share of `intervals` (`[low, high]`, measured) that hold their
/// measured time, and the median of `high / low`; `None` for none.
pub fn interval_figures(intervals: &[([f64; 2], f64)]) -> (Option<f64>, Option<f64>) {
    if intervals.is_empty() {
        return (None, None);
    }
    let inside = intervals
        .iter()
        .filter(|([low, high], m)| low <= m && m <= high)
        .count();
    let mut widths: Vec<f64> = intervals
        .iter()
        .map(|([low, high], _)| high / low)
        .collect();
    widths.sort_by(f64::total_cmp);
    (
        Some(inside as f64 / widths.len() as f64),
        stats::median_of_sorted(&widths),
    )
}

/// The bootstrap intervals of a model's figures over its scored
/// configurations ([`bootstrap::intervals`]). Where none can be drawn (fewer
/// than three scored configurations) every interval is `None` and the note
/// says why.
pub fn intervals(score: &ModelScore, how: &Bootstrap) -> Intervals {
    bootstrap::intervals_ranked(&score.points, score.rank_points.as_deref(), how).unwrap_or_else(
        |e| Intervals {
            notes: vec![format!("no bootstrap interval: {e}")],
            ..Intervals::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake predictor's outcome: every model predicts `f(measured)`.
    fn outcome(
        index: usize,
        measured: Option<f64>,
        preds: &[(&str, Result<f64, &str>)],
    ) -> Outcome {
        Outcome {
            index,
            measured_ms: measured,
            attempt: if measured.is_none() {
                Attempt::NotRun
            } else {
                Attempt::Predicted(
                    preds
                        .iter()
                        .map(|(n, r)| {
                            (
                                n.to_string(),
                                r.map(Predicted::from)
                                    .map_err(|e| NoTime::Refused(e.to_string())),
                            )
                        })
                        .collect(),
                )
            },
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    /// Under an objective the rank figures compare its costs and the errors
    /// the times. Measured 1, 2, 3 ms, "reversed" predicts 3, 2, 1: by time
    /// Spearman -1 and a best ratio of 3. The cost `ms * w` with w = 3, 1,
    /// 1/3 gives predicted costs 9, 2, 1/3 and measured 3, 2, 1: the same
    /// order, so Spearman 1 and the pick (configuration 2) the best.
    #[test]
    fn rank_figures_follow_the_objective() {
        let outcomes = synthetic(3);
        let w = [3.0, 1.0, 1.0 / 3.0];
        let cost = |i: usize, ms: f64| Some(ms * w[i]);
        let by_time = score_model(&outcomes, "reversed");
        assert!(close(by_time.spearman, -1.0), "{by_time:?}");
        assert!(close(by_time.best_ratio, 3.0), "{by_time:?}");
        let s = score_model_by(&outcomes, "reversed", Some(&cost));
        assert!(close(s.spearman, 1.0), "{s:?}");
        assert!(close(s.kendall, 1.0), "{s:?}");
        assert!(close(s.best_ratio, 1.0), "{s:?}");
        assert!(close(s.best_of_top_k, 1.0), "{s:?}");
        assert_eq!(
            (s.mape, s.points.clone()),
            (by_time.mape, by_time.points.clone())
        );
        let ranked = s.rank_points.clone().unwrap_or_default();
        assert_eq!(ranked.len(), 3);
        assert!((ranked[0].0 - 9.0).abs() < 1e-12 && (ranked[2].1 - 1.0).abs() < 1e-12);
        // The intervals resample both alike: in every resample the pick is
        // the best by the objective, where by time it is not.
        let i = intervals(&s, &Bootstrap::default());
        let best = i.best_ratio.expect("a best-ratio interval");
        assert!((best.lo, best.hi) == (1.0, 1.0), "{i:?}");
        let t = intervals(&by_time, &Bootstrap::default());
        assert!(t.best_ratio.is_some_and(|b| b.hi > 1.0), "{t:?}");
        // A configuration without a cost is left out of every figure.
        let partial = |i: usize, ms: f64| (i != 1).then_some(ms * w[i]);
        let s = score_model_by(&outcomes, "reversed", Some(&partial));
        assert_eq!(s.scored, 2);
        assert_eq!(s.rank_points.as_ref().map(Vec::len), Some(2));
        assert!(
            s.notes
                .iter()
                .any(|n| n.starts_with("objective: 1 configuration(s)")),
            "{:?}",
            s.notes
        );
    }

    /// Measured times 1..=n ms; "exact" predicts them, "double" twice them,
    /// "reversed" n+1-t, "flat" a constant.
    fn synthetic(n: usize) -> Vec<Outcome> {
        (0..n)
            .map(|i| {
                let t = (i + 1) as f64;
                outcome(
                    i,
                    Some(t),
                    &[
                        ("exact", Ok(t)),
                        ("double", Ok(2.0 * t)),
                        ("reversed", Ok(n as f64 + 1.0 - t)),
                        ("flat", Ok(3.0)),
                    ],
                )
            })
            .collect()
    }

    fn check(model: &str, mape: f64, spearman: Option<f64>, best_ratio: f64, top1: f64) {
        let s = score_model(&synthetic(10), model);
        assert_eq!(s.scored, 10, "{model}");
        assert!(close(s.mape, mape), "{model}: MAPE {:?}", s.mape);
        match spearman {
            Some(r) => {
                assert!(close(s.spearman, r), "{model}: Spearman {:?}", s.spearman);
                assert!(close(s.kendall, r), "{model}: Kendall {:?}", s.kendall);
            }
            None => {
                assert_eq!(s.spearman, None, "{model}");
                assert_eq!(s.kendall, None, "{model}");
                assert!(
                    !s.notes.is_empty(),
                    "{model}: a missing figure needs a note"
                );
            }
        }
        assert!(
            close(s.best_ratio, best_ratio),
            "{model}: {:?}",
            s.best_ratio
        );
        assert!(close(s.top1_overlap, top1), "{model}: {:?}", s.top1_overlap);
    }

    #[test]
    fn an_interval_is_scored_by_how_often_it_holds_the_measured_time() {
        // Measured 1..=4 ms, predicted exactly, with intervals [0.5 t, 1.5 t]
        // for the first three and [2 t, 3 t] (missing it) for the last.
        let outcomes: Vec<Outcome> = (1..=4)
            .map(|t| {
                let t = f64::from(t);
                let (lo, hi) = if t < 4.0 { (0.5, 1.5) } else { (2.0, 3.0) };
                Outcome {
                    index: t as usize,
                    measured_ms: Some(t),
                    attempt: Attempt::Predicted(vec![
                        (
                            "ranged".to_string(),
                            Ok(Predicted {
                                ms: t,
                                interval_ms: Some([lo * t, hi * t]),
                                blend: None,
                                bottleneck: None,
                                terms: Vec::new(),
                            }),
                        ),
                        ("plain".to_string(), Ok(t.into())),
                    ]),
                }
            })
            .collect();
        let s = score_model(&outcomes, "ranged");
        assert_eq!(s.interval_coverage, Some(0.75));
        // Widths 3, 3, 3 and 1.5: the median is 3.
        assert_eq!(s.interval_width, Some(3.0));
        let plain = score_model(&outcomes, "plain");
        assert_eq!(
            (plain.interval_coverage, plain.interval_width),
            (None, None)
        );
    }

    #[test]
    fn configurations_scored_together_share_the_mean_familiarity() {
        // Two configurations of a blended model at familiarity 0 and 1: both
        // end at 0.5, each its own ends' geometric middle; the plain model
        // and a refusal are untouched.
        let blended = |familiarity: f64, far: f64| {
            let near = 4.0 * far;
            let ms = far * (near / far).powf(familiarity);
            Ok(Predicted {
                ms,
                interval_ms: Some([ms / 2.0, ms * 2.0]),
                blend: Some(Blend {
                    familiarity,
                    near_ms: [near, near / 2.0, near * 2.0],
                    far_ms: [far, far / 2.0, far * 2.0],
                }),
                bottleneck: None,
                terms: Vec::new(),
            })
        };
        let outcome = |index: usize, familiarity: f64, far: f64| Outcome {
            index,
            measured_ms: Some(1.0),
            attempt: Attempt::Predicted(vec![
                ("learned".to_string(), blended(familiarity, far)),
                ("plain".to_string(), Ok(far.into())),
                ("refused".to_string(), Err(NoTime::NoPrediction)),
            ]),
        };
        let mut outcomes = vec![
            outcome(0, 0.0, 1.0),
            outcome(1, 1.0, 3.0),
            Outcome {
                index: 2,
                measured_ms: None,
                attempt: Attempt::NotRun,
            },
        ];
        let before = outcomes.clone();
        assert_eq!(
            share_familiarity(&mut outcomes),
            vec![("learned".to_string(), 0.5)]
        );
        let time = |o: &Outcome, model: &str| match &o.attempt {
            Attempt::Predicted(t) => t.iter().find(|(n, _)| n == model).map(|(_, t)| t.clone()),
            _ => None,
        };
        for (o, far) in outcomes.iter().zip([1.0, 3.0]) {
            let Some(Ok(p)) = time(o, "learned") else {
                panic!("{o:?}")
            };
            assert!((p.ms - 2.0 * far).abs() < 1e-12, "{p:?}");
            let [low, high] = p.interval_ms.expect("interval");
            assert!((low - far).abs() < 1e-12 && (high - 4.0 * far).abs() < 1e-12);
            assert_eq!(
                p.blend.map(|b| b.familiarity),
                time(&before[o.index], "learned")
                    .and_then(|t| t.ok())
                    .and_then(|p| p.blend)
                    .map(|b| b.familiarity)
            );
            assert_eq!(time(o, "plain"), Some(Ok(far.into())));
            assert_eq!(time(o, "refused"), Some(Err(NoTime::NoPrediction)));
        }
        assert_eq!(outcomes[2], before[2]);
        assert_eq!(score_model(&outcomes, "learned").familiarity, Some(0.5));
        assert_eq!(score_model(&outcomes, "plain").familiarity, None);
        // Nothing blended, nothing shared.
        let mut plain = vec![Outcome {
            index: 0,
            measured_ms: Some(1.0),
            attempt: Attempt::Predicted(vec![("plain".to_string(), Ok(1.0.into()))]),
        }];
        assert!(share_familiarity(&mut plain).is_empty());
    }

    #[test]
    fn exact_prediction_scores_perfectly() {
        check("exact", 0.0, Some(1.0), 1.0, 1.0);
    }

    #[test]
    fn a_constant_factor_keeps_the_ranks() {
        check("double", 100.0, Some(1.0), 1.0, 1.0);
    }

    #[test]
    fn a_reversed_prediction_picks_the_worst() {
        // |11 - 2t| / t summed over t = 1..10, divided by 10, in percent.
        let mape: f64 = (1..=10)
            .map(|t| (11.0 - 2.0 * t as f64).abs() / t as f64)
            .sum::<f64>()
            * 10.0;
        check("reversed", mape, Some(-1.0), 10.0, 0.0);
    }

    #[test]
    fn a_constant_prediction_has_no_rank_correlation() {
        // Every configuration ties for the pick: their mean, 5.5 ms, stands
        // for it, over the best 1 ms. (The top 1 %, one configuration, goes
        // to the lowest index: configuration 0, the best.)
        let mape: f64 = (1..=10)
            .map(|t| (3.0 - t as f64).abs() / t as f64)
            .sum::<f64>()
            * 10.0;
        check("flat", mape, None, 5.5, 1.0);
    }

    #[test]
    fn median_ape_of_a_known_set() {
        let s = score_model(&synthetic(10), "double");
        assert!(close(s.median_ape, 100.0), "{:?}", s.median_ape);
        assert!(close(s.median_ratio, 2.0), "{:?}", s.median_ratio);
        // "flat" predicts 3 ms for 1..=10 ms: ratios 3/5 and 3/6 straddle the median.
        let s = score_model(&synthetic(10), "flat");
        assert!(close(s.median_ratio, 0.55), "{:?}", s.median_ratio);
    }

    #[test]
    fn failures_are_counted_apart_and_not_scored() {
        let outcomes = vec![
            outcome(0, Some(1.0), &[("m", Ok(1.0)), ("k", Err("bad input"))]),
            outcome(1, None, &[]),
            outcome(2, Some(2.0), &[("m", Ok(4.0)), ("k", Ok(2.0))]),
            Outcome {
                index: 3,
                measured_ms: Some(5.0),
                attempt: Attempt::Failed("NVRTC: too many resources".to_string()),
            },
            outcome(4, Some(3.0), &[("m", Ok(f64::NAN)), ("k", Ok(0.0))]),
            outcome(5, None, &[]),
        ];
        let m = score_model(&outcomes, "m");
        assert_eq!((m.scored, m.measured_failed, m.ptxperf_failed), (2, 2, 2));
        assert_eq!(m.points, vec![(1.0, 1.0), (4.0, 2.0)]);
        assert!(close(m.mape, 50.0), "{:?}", m.mape);
        assert!(
            m.notes.iter().any(|n| n.contains("configuration 3: NVRTC")),
            "{:?}",
            m.notes
        );
        let k = score_model(&outcomes, "k");
        assert_eq!((k.scored, k.measured_failed, k.ptxperf_failed), (1, 2, 3));
        assert!(
            k.notes
                .iter()
                .any(|n| n.contains("configuration 0: bad input")),
            "{:?}",
            k.notes
        );
    }

    #[test]
    fn a_model_without_any_prediction_has_no_figures() {
        let outcomes = vec![outcome(0, Some(1.0), &[("m", Ok(1.0))])];
        let s = score_model(&outcomes, "absent");
        assert_eq!((s.scored, s.ptxperf_failed), (0, 1));
        assert_eq!(s.mape, None);
        assert_eq!(s.best_ratio, None);
    }

    #[test]
    fn top_one_percent_of_two_hundred_is_two_configurations() {
        // Measured 1..=200; the prediction swaps the best and the third best:
        // one of the two best is found.
        let outcomes: Vec<Outcome> = (0..200)
            .map(|i| {
                let t = (i + 1) as f64;
                let p = match i {
                    0 => 3.0,
                    2 => 1.0,
                    _ => t,
                };
                outcome(i, Some(t), &[("m", Ok(p))])
            })
            .collect();
        let s = score_model(&outcomes, "m");
        assert!(close(s.top1_overlap, 0.5), "{:?}", s.top1_overlap);
        assert!(close(s.best_ratio, 3.0), "{:?}", s.best_ratio);
        // Its five fastest-ranked: measured 3, 1 (the best), 2, 4, 5.
        assert!(close(s.best_of_top_k, 1.0), "{:?}", s.best_of_top_k);
    }
}
