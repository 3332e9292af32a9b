//! Ranking configurations by predicted time, per model; where the models
//! disagree on the winner; and, given measured times, how good a model's
//! choice is (issue 10, item 4).
//!
//! Times are indexed like the configurations; `None`, NaN and infinities
//! mean "no time" (not predicted, failed) and are never ranked. An index
//! past the end of a slice counts as no time. Equal times are ordered by
//! the lower index, so every result is deterministic; times that differ by
//! less than the models can tell apart ([`tie`]: within [`TIE_RELATIVE`],
//! or printed alike by [`format_ms`]) share a rank ([`shared_ranks`]) and a
//! win ([`Winner::tied`]) instead of one being called faster.
//!
//! A model ranks by its predicted times or, with [`RankBy::Pessimistic`],
//! by the upper end of the interval it gives ([`ranked_times`]); ties and
//! winners are then taken on that bound.

use serde::Serialize;

/// The times one model is ranked by, indexed like the configurations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelTimes {
    pub model: String,
    /// What ranks each configuration: the predicted time, or with
    /// [`Bound::Upper`] the upper end of the model's interval (ms); with an
    /// objective, its cost at that time ([`crate::Objective::costs`]).
    pub times: Vec<Option<f64>>,
    /// Which of the model's figures `times` holds.
    pub bound: Bound,
}

impl ModelTimes {
    /// A model ranked by its predicted times.
    pub fn estimates(model: &str, times: Vec<Option<f64>>) -> Self {
        Self {
            model: model.to_string(),
            times,
            bound: Bound::Estimate,
        }
    }
}

/// What a run ranks each model's configurations by (`tune --rank-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankBy {
    /// The predicted time.
    #[default]
    Estimate,
    /// The upper end of the model's interval (the slowest time it calls
    /// plausible), where the model gives one; its estimate where it does not.
    Pessimistic,
}

impl RankBy {
    pub fn as_str(self) -> &'static str {
        match self {
            RankBy::Estimate => "estimate",
            RankBy::Pessimistic => "pessimistic",
        }
    }
}

/// Which figure ranked one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Its predicted time.
    Estimate,
    /// The upper end of its interval.
    Upper,
}

impl Bound {
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Estimate => "estimate",
            Bound::Upper => "upper",
        }
    }
}

/// What ranks `model`'s configurations under `by`: its predicted times
/// (`estimates`), or for [`RankBy::Pessimistic`] the upper end of each
/// interval (`intervals`, `[low, high]`, indexed like the configurations).
/// A model that gives no interval for any configuration ranks by its
/// estimates ([`Bound::Estimate`]) whatever `by` says; one that gives
/// intervals ranks each configuration without one (and with an estimate)
/// by its estimate.
pub fn ranked_times(
    model: &str,
    estimates: &[Option<f64>],
    intervals: &[Option<[f64; 2]>],
    by: RankBy,
) -> ModelTimes {
    let has_interval = intervals
        .iter()
        .any(|i| i.is_some_and(|[_, hi]| hi.is_finite()));
    if by == RankBy::Estimate || !has_interval {
        return ModelTimes::estimates(model, estimates.to_vec());
    }
    let times = estimates
        .iter()
        .enumerate()
        .map(|(i, est)| {
            let est = (*est)?;
            Some(
                intervals
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or(est, |[_, hi]| hi),
            )
        })
        .collect();
    ModelTimes {
        model: model.to_string(),
        times,
        bound: Bound::Upper,
    }
}

fn finite(times: &[Option<f64>], i: usize) -> Option<f64> {
    times.get(i).copied().flatten().filter(|t| t.is_finite())
}

/// Indices with a time, fastest first (ties: lower index first).
pub fn rank(times: &[Option<f64>]) -> Vec<usize> {
    let mut order: Vec<(f64, usize)> = (0..times.len())
        .filter_map(|i| finite(times, i).map(|t| (t, i)))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    order.into_iter().map(|(_, i)| i).collect()
}

/// Two predicted times closer than this fraction of the smaller one are a
/// tie: well inside any model's error, so neither is reported faster. One
/// rule with `validate`'s best ratio, which takes tied picks together.
pub use validate::stats::TIE_RELATIVE;

/// A predicted time in milliseconds as reports print it: 4 significant
/// digits or so, in ms or us.
pub fn format_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.1} ms")
    } else if ms >= 1.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{:.2} us", ms * 1e3)
    }
}

/// Whether two predicted times (ms) are a tie: within [`TIE_RELATIVE`] of
/// the smaller, or printed alike by [`format_ms`].
pub fn tie(a_ms: f64, b_ms: f64) -> bool {
    validate::stats::within_tie(a_ms, b_ms) || format_ms(a_ms) == format_ms(b_ms)
}

/// 1-based ranks of `order` (indices into `times`, fastest first, as
/// [`rank`] gives them): a configuration that ties ([`tie`]) with the first
/// of the current group shares its rank; the next group's rank counts the
/// configurations before it (1, 1, 1, 4).
pub fn shared_ranks(times: &[Option<f64>], order: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(order.len());
    let mut leader: Option<(f64, usize)> = None;
    for (pos, &i) in order.iter().enumerate() {
        let t = finite(times, i);
        let r = match (leader, t) {
            (Some((lt, lr)), Some(t)) if tie(lt, t) => lr,
            _ => {
                leader = t.map(|t| (t, pos + 1));
                pos + 1
            }
        };
        out.push(r);
    }
    out
}

/// The configurations tied with the fastest one ([`tie`]), fastest first;
/// empty without any time.
pub fn tied_best(times: &[Option<f64>]) -> Vec<usize> {
    let order = rank(times);
    let ranks = shared_ranks(times, &order);
    order
        .into_iter()
        .zip(ranks)
        .take_while(|(_, r)| *r == 1)
        .map(|(i, _)| i)
        .collect()
}

/// The `k` fastest indices.
pub fn top_k(times: &[Option<f64>], k: usize) -> Vec<usize> {
    let mut r = rank(times);
    r.truncate(k);
    r
}

/// One model's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRanking {
    pub model: String,
    /// Configuration indices, fastest first.
    pub order: Vec<usize>,
}

/// Every model's order, models in input order.
pub fn rank_models(models: &[ModelTimes]) -> Vec<ModelRanking> {
    models
        .iter()
        .map(|m| ModelRanking {
            model: m.model.clone(),
            order: rank(&m.times),
        })
        .collect()
}

/// A configuration some model ranks first, and which models do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Winner {
    pub config: usize,
    pub models: Vec<String>,
    /// The configurations these models predict within a tie ([`tie`]) of
    /// `config`, `config` first: more than one means no single winner.
    pub tied: Vec<usize>,
}

impl Winner {
    /// True when other configurations tie with the pick.
    pub fn is_tie(&self) -> bool {
        self.tied.len() > 1
    }
}

/// The distinct winners across models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Winners {
    /// In order of the first model choosing each.
    pub winners: Vec<Winner>,
    /// Models that predicted no configuration.
    pub no_prediction: Vec<String>,
}

impl Winners {
    /// True when at least two models pick different configurations.
    pub fn disagree(&self) -> bool {
        self.winners.len() > 1
    }
}

/// Each model's winner (with the configurations tied with it), grouped by
/// configuration and tie.
pub fn winners(models: &[ModelTimes]) -> Winners {
    let mut out = Winners {
        winners: Vec::new(),
        no_prediction: Vec::new(),
    };
    for m in models {
        let tied = tied_best(&m.times);
        match tied.first() {
            None => out.no_prediction.push(m.model.clone()),
            Some(&config) => match out
                .winners
                .iter_mut()
                .find(|w| w.config == config && w.tied == tied)
            {
                Some(w) => w.models.push(m.model.clone()),
                None => out.winners.push(Winner {
                    config,
                    models: vec![m.model.clone()],
                    tied,
                }),
            },
        }
    }
    out
}

/// How good one model's choice is against measured times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PickMetrics {
    pub model: String,
    /// Configurations with both a prediction and a measurement; the only
    /// ones ranked.
    pub compared: usize,
    /// The measured-fastest configuration.
    pub measured_best: usize,
    /// 1-based position of `measured_best` in the model's order.
    pub best_rank: usize,
    /// `best_rank` when it is within the model's top `k`, else `None`.
    pub best_rank_in_top_k: Option<usize>,
    pub k: usize,
    /// The model's first choice: its fastest prediction (the lowest index
    /// among equal ones); others may tie with it (`tied`).
    pub pick: usize,
    /// Configurations that share the model's first rank ([`tie`]), `pick`
    /// among them: the model cannot tell which of them to choose.
    pub tied: usize,
    /// Measured time of the first choice over the measured best (>= 1; 1 is
    /// perfect); where several tie for it, their mean measured time, what
    /// choosing any of them gives on average.
    pub pick_ratio: f64,
    /// The fastest measured time among the model's first five over the
    /// measured best: what timing five picks gives
    /// (`validate::stats::best_of_top_k`, ties with the fifth drawn in
    /// expectation).
    pub best_of_first5_ratio: f64,
}

/// Metrics of `model` against `measured`, over the configurations that have
/// both times; `None` when there are none.
pub fn pick_metrics(model: &ModelTimes, measured: &[Option<f64>], k: usize) -> Option<PickMetrics> {
    let n = model.times.len().max(measured.len());
    // A measured time must be positive to divide by it.
    let measured: Vec<Option<f64>> = (0..n)
        .map(|i| finite(measured, i).filter(|t| *t > 0.0))
        .collect();
    let measured = measured.as_slice();
    // Predictions restricted to configurations that were measured.
    let both: Vec<Option<f64>> = (0..n)
        .map(|i| finite(measured, i).and(finite(&model.times, i)))
        .collect();
    let order = rank(&both);
    let pick = *order.first()?;
    let measured_only: Vec<Option<f64>> =
        (0..n).map(|i| both[i].and(finite(measured, i))).collect();
    let measured_best = *rank(&measured_only).first()?;
    let best_pos = order.iter().position(|&i| i == measured_best)? + 1;
    let best_time = finite(measured, measured_best)?;
    let tied: Vec<f64> = tied_best(&both)
        .into_iter()
        .filter_map(|i| finite(measured, i))
        .collect();
    let pick_time = tied.iter().sum::<f64>() / tied.len().max(1) as f64;
    let (p, m): (Vec<f64>, Vec<f64>) = order
        .iter()
        .filter_map(|&i| Some((finite(&both, i)?, finite(measured, i)?)))
        .unzip();
    let first5 = validate::stats::best_of_top_k(&p, &m, validate::stats::TOP_K_MEASURED).ok()?;
    Some(PickMetrics {
        model: model.model.clone(),
        compared: order.len(),
        measured_best,
        best_rank: best_pos,
        best_rank_in_top_k: (best_pos <= k).then_some(best_pos),
        k,
        pick,
        tied: tied.len(),
        pick_ratio: pick_time / best_time,
        best_of_first5_ratio: first5,
    })
}
