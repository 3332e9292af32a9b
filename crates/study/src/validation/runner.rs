//! Running the sampled configurations through a predictor, in parallel, with
//! an output that does not depend on the thread count: every configuration
//! is computed on its own, the results are collected and sorted by index.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use validate::score::{Attempt, Outcome};
use validate::{Dataset, Experiment, Launch};

use crate::error::{PredictError, StudyError};

/// Each model's predicted kernel time in milliseconds, or why it refused
/// (one line: recorded in the report as it is).
pub type ModelTimes = Vec<(String, Result<f64, validate::score::NoTime>)>;

/// Turns the launch of one configuration into per-model predicted times.
/// `Err` means the configuration never reached the models.
pub trait Predictor: Sync {
    fn predict(&self, launch: &Launch) -> Result<ModelTimes, PredictError>;
}

/// The outcomes, sorted by configuration index, and the wall time spent.
pub struct Run {
    pub outcomes: Vec<Outcome>,
    pub elapsed: Duration,
}

/// Runs every configuration of `indices` (rows of `dataset`) that was
/// measured; those measured as failed are counted, not run. `tick` is called
/// once per configuration done (from any thread).
pub fn run_configurations(
    dataset: &Dataset,
    experiment: &Experiment,
    indices: &[usize],
    predictor: &dyn Predictor,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Run, StudyError> {
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|source| StudyError::ThreadPool { jobs, source })?;
    let mut outcomes: Vec<Outcome> = pool.install(|| {
        indices
            .par_iter()
            .filter_map(|&index| dataset.rows.get(index).map(|row| (index, row)))
            .map(|(index, row)| {
                let measured_ms = row.measured.mean_ms();
                let attempt = match measured_ms {
                    None => Attempt::NotRun,
                    Some(_) => attempt(dataset, experiment, index, predictor),
                };
                tick();
                Outcome {
                    index,
                    measured_ms,
                    attempt,
                }
            })
            .collect()
    });
    outcomes.sort_by_key(|o| o.index);
    Ok(Run {
        outcomes,
        elapsed: start.elapsed(),
    })
}

fn attempt(
    dataset: &Dataset,
    experiment: &Experiment,
    index: usize,
    predictor: &dyn Predictor,
) -> Attempt {
    let Some(row) = dataset.rows.get(index) else {
        return Attempt::Failed(format!("no row {index}"));
    };
    let launch = match experiment.launch(&dataset.named_values(row)) {
        Ok(l) => l,
        Err(e) => return Attempt::Failed(format!("launch: {e}")),
    };
    match predictor.predict(&launch) {
        Ok(times) => Attempt::Predicted(times),
        Err(e) => Attempt::Failed(e.to_string()),
    }
}
