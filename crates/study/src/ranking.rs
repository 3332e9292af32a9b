//! One GPU's view of a tuning run: its evaluations, each model's predicted
//! times, the configurations the models pick, and (with measured times) how
//! good each pick was.

use tune::{ModelTimes, Objective, PickMetrics, RankBy, Winners};

use crate::evaluate::Evaluation;

/// How deep into a model's ranking the measured best is looked for.
pub const PICK_DEPTH: usize = 10;

/// The ranking of the configurations on one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuRanking {
    /// One per configuration, in the run's order.
    pub evaluations: Vec<Evaluation>,
    /// One per model, in the run's order: what ranks each configuration
    /// (its predicted time, or the upper end of its interval).
    pub models: Vec<ModelTimes>,
    pub winners: Winners,
    /// Per model with a prediction, its pick against the measured times;
    /// empty without measured times.
    pub metrics: Vec<PickMetrics>,
}

/// The ranking on GPU `gpu_index` of a run whose configurations gave
/// `per_config` (one [`Evaluation`] per GPU each), with the measured times
/// of that GPU aligned with the configurations, if any; each model ranked
/// `by` its estimate or the pessimistic bound ([`tune::ranked_times`]),
/// which the winners and the picks follow. With an `objective`, each model
/// ranks by the objective's cost of that time, and the measured times are
/// turned into costs alike ([`Objective::costs`]).
pub fn rank_on_gpu(
    per_config: &[Vec<Evaluation>],
    gpu_index: usize,
    models: &[String],
    measured: Option<&[Option<f64>]>,
    by: RankBy,
    objective: Option<&Objective>,
) -> GpuRanking {
    let evaluations: Vec<Evaluation> = per_config
        .iter()
        .filter_map(|per_gpu| per_gpu.get(gpu_index).cloned())
        .collect();
    let configs: Vec<&tune::Config> = evaluations.iter().map(|e| &e.config).collect();
    let model_times: Vec<ModelTimes> = models
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let estimates: Vec<Option<f64>> = evaluations.iter().map(|e| e.ms(mi)).collect();
            let intervals: Vec<Option<[f64; 2]>> =
                evaluations.iter().map(|e| e.interval(mi)).collect();
            let mut ranked = tune::ranked_times(m, &estimates, &intervals, by);
            if let Some(o) = objective {
                ranked.times = o.costs(&configs, &ranked.times);
            }
            ranked
        })
        .collect();
    let winners = tune::winners(&model_times);
    let metrics = match measured {
        Some(times) => {
            let times = match objective {
                Some(o) => o.costs(&configs, times),
                None => times.to_vec(),
            };
            model_times
                .iter()
                .filter_map(|m| tune::pick_metrics(m, &times, PICK_DEPTH))
                .collect()
        }
        None => Vec::new(),
    };
    GpuRanking {
        evaluations,
        models: model_times,
        winners,
        metrics,
    }
}
