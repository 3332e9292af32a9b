//! The validation study: for each sampled configuration of a measured data
//! file, the experiment rebuilds Kernel Tuner's launch, a predictor turns it
//! into every model's time ([`Engine`]: NVRTC through the [`PtxCache`],
//! emulation of a few CTAs, the models; [`Replay`]: saved profiles), the
//! [`runner`] runs them in parallel with an output independent of the thread
//! count, and `validate::score` scores each model.
//!
//! [`run`] is the whole study as one call; the CLI renders what it returns.

pub mod engine;
pub mod replay;
pub mod runner;

#[cfg(test)]
mod end_to_end;

use std::path::PathBuf;
use std::time::Duration;

use arch::Gpu;
use validate::score::{ModelScore, Outcome, score_all};
use validate::{Dataset, Experiment, sample::sample_indices};

use crate::error::StudyError;
use crate::ptx_cache::PtxCache;
use crate::timings::Timings;
pub use engine::{DEFAULT_SAMPLE_CTAS, Engine};
pub use replay::Replay;
pub use runner::{ModelTimes, Predictor};

/// How a study runs, apart from what it runs on.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Every model to score, by registry name.
    pub models: Vec<String>,
    /// Score this many configurations chosen with `seed`; `None`: all.
    pub sample: Option<usize>,
    /// Draw only from these rows of the dataset (ascending; one part of the
    /// split, `validate::split`); `None`: every row. With `None` the sample
    /// is the one earlier versions drew.
    pub rows: Option<Vec<usize>>,
    pub seed: u64,
    /// CTAs emulated per configuration.
    pub sample_ctas: u64,
    /// Bound on the warp instructions of a grown CTA sample (`None`: none).
    pub work_budget: Option<u64>,
    /// Worker threads (at least one is used).
    pub jobs: usize,
    /// The PTX cache folder; `None`: compile everything, cache nothing.
    pub cache_dir: Option<PathBuf>,
    /// Save each configuration's profile and PTX under `DIR/<gpu>/`.
    pub save_profiles: Option<PathBuf>,
    /// Rescore the profiles saved under `DIR/<gpu>/` instead of compiling
    /// and emulating.
    pub profiles: Option<PathBuf>,
}

/// Progress of a study, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// This many configurations are about to run.
    Start(usize),
    /// One more is done (reported from any worker thread).
    Done,
}

/// Everything a study computes, before anything is rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    /// The sampled rows of the dataset, in the order they were drawn.
    pub indices: Vec<usize>,
    /// One per sampled configuration, sorted by row index.
    pub outcomes: Vec<Outcome>,
    /// One per model of [`Options::models`], in that order.
    pub scores: Vec<ModelScore>,
    pub elapsed: Duration,
    /// One per outcome, in the same order: where its time went (`None`:
    /// measured as failed, not run).
    pub timings: Vec<Option<Timings>>,
    /// The sum of [`Study::timings`].
    pub timing_totals: Timings,
    pub ptx_cache_hits: usize,
    pub ptx_compiled: usize,
    /// The (major, minor) NVRTC version, asked for only where the data name
    /// the compiler that built the measured kernels (rescoring saved
    /// profiles needs no NVRTC otherwise); `None` also when NVRTC is missing.
    pub nvrtc_version: Option<(i32, i32)>,
}

/// Runs and scores the sampled configurations of `dataset` on `gpu`.
/// A configuration that fails is recorded with its reason; the study fails
/// only when it cannot run (the cache folder, the worker threads) or a
/// profile could not be saved.
pub fn run(
    experiment: &Experiment,
    dataset: &Dataset,
    gpu: &Gpu,
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Study, StudyError> {
    let cache = PtxCache::open(opts.cache_dir.as_deref())?;
    // The models assume the SASS of the compiler that built the measured
    // kernels where the data name it (this project's measurements do).
    let measured_compiler = dataset
        .compiler
        .as_deref()
        .and_then(profile::CompilerVersion::parse);
    let engine = Engine::new(
        gpu,
        opts.sample_ctas,
        opts.models.clone(),
        cache,
        opts.save_profiles.clone(),
    )
    .with_measured_compiler(measured_compiler)
    .with_work_budget(opts.work_budget);

    let eligible: Vec<usize> = match &opts.rows {
        Some(rows) => rows.clone(),
        None => (0..dataset.rows.len()).collect(),
    };
    let total = eligible.len();
    let indices: Vec<usize> = sample_indices(total, opts.sample.unwrap_or(total), opts.seed)
        .into_iter()
        .map(|i| eligible[i])
        .collect();
    progress(Progress::Start(indices.len()));
    let replay = opts.profiles.as_ref().map(|dir| {
        Replay::new(dir.clone(), gpu, opts.models.clone()).with_measured_compiler(measured_compiler)
    });
    let predictor: &dyn Predictor = match &replay {
        Some(r) => r,
        None => &engine,
    };
    let run =
        runner::run_configurations(dataset, experiment, &indices, predictor, opts.jobs, &|| {
            progress(Progress::Done)
        })?;
    if let Some(e) = engine.take_save_error() {
        return Err(StudyError::SaveProfile(e));
    }
    let scores = score_all(&run.outcomes, &opts.models);
    let (ptx_cache_hits, ptx_compiled) = engine.cache_counts();
    let nvrtc_version = match dataset.compiler {
        Some(_) => engine.nvrtc_version(),
        None => None,
    };
    let timing_totals = Timings::sum(run.timings.iter().flatten());
    Ok(Study {
        indices,
        outcomes: run.outcomes,
        scores,
        elapsed: run.elapsed,
        timings: run.timings,
        timing_totals,
        ptx_cache_hits,
        ptx_compiled,
        nvrtc_version,
    })
}
