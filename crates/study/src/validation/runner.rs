//! Running the sampled configurations through a predictor, in parallel, with
//! an output that does not depend on the thread count: every configuration
//! is computed on its own, the results are collected and sorted by index.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use validate::score::{Attempt, Outcome};
use validate::{Dataset, Experiment, Launch};

use crate::error::{PredictError, StudyError};
use crate::timings::Timings;

/// Each model's predicted kernel time in milliseconds, or why it refused
/// (one line: recorded in the report as it is).
pub type ModelTimes = Vec<(String, Result<f64, validate::score::NoTime>)>;

/// Turns the launch of one configuration into per-model predicted times.
/// `Err` means the configuration never reached the models.
pub trait Predictor: Sync {
    /// The models' times for `launch`, adding the wall time of each stage
    /// (and any cache hit) to `timings` (whose total the runner sets).
    fn predict(&self, launch: &Launch, timings: &mut Timings) -> Result<ModelTimes, PredictError>;
}

/// The outcomes, sorted by configuration index, and the wall time spent.
pub struct Run {
    pub outcomes: Vec<Outcome>,
    /// One per outcome, in the same order: where its time went; `None` for
    /// a configuration measured as failed (not run).
    pub timings: Vec<Option<Timings>>,
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
    let mut timed: Vec<(Outcome, Option<Timings>)> = pool.install(|| {
        indices
            .par_iter()
            .filter_map(|&index| dataset.rows.get(index).map(|row| (index, row)))
            .map(|(index, row)| {
                let measured_ms = row.measured.mean_ms();
                let (attempt, timings) = match measured_ms {
                    None => (Attempt::NotRun, None),
                    Some(_) => {
                        let started = Instant::now();
                        let mut timings = Timings::one();
                        let attempt = attempt(dataset, experiment, index, predictor, &mut timings);
                        timings.total = started.elapsed();
                        (attempt, Some(timings))
                    }
                };
                tick();
                let outcome = Outcome {
                    index,
                    measured_ms,
                    attempt,
                };
                (outcome, timings)
            })
            .collect()
    });
    timed.sort_by_key(|(o, _)| o.index);
    let (outcomes, timings) = timed.into_iter().unzip();
    Ok(Run {
        outcomes,
        timings,
        elapsed: start.elapsed(),
    })
}

fn attempt(
    dataset: &Dataset,
    experiment: &Experiment,
    index: usize,
    predictor: &dyn Predictor,
    timings: &mut Timings,
) -> Attempt {
    let Some(row) = dataset.rows.get(index) else {
        return Attempt::Failed(format!("no row {index}"));
    };
    let launch = match experiment.launch(&dataset.named_values(row)) {
        Ok(l) => l,
        Err(e) => return Attempt::Failed(format!("launch: {e}")),
    };
    match predictor.predict(&launch, timings) {
        Ok(times) => Attempt::Predicted(times),
        Err(e) => Attempt::Failed(e.to_string()),
    }
}
