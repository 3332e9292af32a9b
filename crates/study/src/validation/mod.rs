//! The validation study: for each sampled configuration of a measured data
//! file, the experiment rebuilds Kernel Tuner's launch, a predictor turns it
//! into every model's time ([`Engine`]: NVRTC through the [`PtxCache`],
//! emulation of a few CTAs, the models; [`Replay`]: saved profiles), the
//! [`runner`] runs them in parallel with an output independent of the thread
//! count, and `validate::score` scores each model.
//!
//! [`run`] is the whole study as one call; the CLI renders what it returns.
//! [`run_many`] runs several data files, each on its GPU, with one compile
//! per architecture and one emulation per compiled PTX for every
//! configuration they share ([`runner::run_shared`]).

pub mod engine;
mod ptx_arch;
pub mod replay;
pub mod runner;
pub mod saved;

#[cfg(test)]
mod end_to_end;
#[cfg(test)]
mod multi_gpu;
#[cfg(test)]
mod resume;

use std::path::PathBuf;
use std::time::Duration;

use arch::Gpu;
use validate::score::{ModelScore, Outcome, score_all_by};
use validate::{Dataset, Experiment, sample::sample_indices};

use crate::error::StudyError;
use crate::ptx_cache::PtxCache;
use crate::timings::Timings;
pub use engine::{DEFAULT_SAMPLE_CTAS, Emulated, Engine, PtxFrom};
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
    /// With `save_profiles`: a configuration whose profiles are already
    /// saved there for all its GPUs (by an interrupted run) is rescored
    /// from them, not compiled or emulated again.
    pub resume: bool,
    /// Compile every configuration once, for this architecture (`sm_50`),
    /// and build that PTX for each GPU with ptxas, as a binary that ships
    /// only PTX is built by the driver; `None`: compile for each GPU's
    /// architecture ([`crate::target::arch_for`]). It must be no newer than
    /// any GPU's architecture.
    pub ptx_arch: Option<String>,
    /// Keys of each model's breakdown kept with its time, for
    /// `validate --by-term` (`validate::score::Predicted::terms`).
    pub terms: Vec<String>,
    /// What ranks the configurations when it is not the time alone (an
    /// experiment's `[objective]`, `validate --objective`): the rank
    /// figures compare the objective at the predicted and the measured
    /// times ([`validate::score::ModelScore::rank_points`]).
    pub objective: Option<tune::Objective>,
}

/// The configuration of row `row` of `dataset`, as a tuning space names
/// it (for an objective's parameters).
pub fn config_of(dataset: &Dataset, row: usize) -> Option<tune::Config> {
    let r = dataset.rows.get(row)?;
    Some(tune::Config {
        index: row as u64,
        values: dataset
            .params
            .iter()
            .cloned()
            .zip(r.values.iter().cloned())
            .collect(),
    })
}

/// The cost of row `row` of `dataset` measured or predicted at `ms` under
/// `objective` ([`tune::Objective::cost`]).
pub fn objective_cost(
    objective: &tune::Objective,
    dataset: &Dataset,
    row: usize,
    ms: f64,
) -> Option<f64> {
    objective.cost(&config_of(dataset, row)?, ms)
}

/// The value of `objective` for row `row` of `dataset` at a time of `ms`
/// (None where the expression cannot be evaluated there): what `validate`
/// reports beside each time.
pub fn objective_value(
    objective: &tune::Objective,
    dataset: &Dataset,
    row: usize,
    ms: f64,
) -> Option<f64> {
    objective.value(&config_of(dataset, row)?, ms).ok()
}

/// Checks `objective` against the rows `rows` of `dataset` before they are
/// run ([`tune::Objective::check_configs`]): an unknown or string
/// parameter, or a value that is not positive at 1 ms, is refused with the
/// configuration.
pub fn check_objective(
    objective: &tune::Objective,
    dataset: &Dataset,
    rows: &[usize],
) -> Result<(), StudyError> {
    let configs: Vec<tune::Config> = rows.iter().filter_map(|&r| config_of(dataset, r)).collect();
    objective
        .check_configs(&configs)
        .map_err(|e| StudyError::Objective(e.to_string()))
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
    /// Configurations rescored from the profiles an interrupted run saved
    /// ([`Options::resume`]).
    pub resumed: usize,
    /// The (major, minor) NVRTC version, asked for only where the data name
    /// the compiler that built the measured kernels (rescoring saved
    /// profiles needs no NVRTC otherwise); `None` also when NVRTC is missing.
    pub nvrtc_version: Option<(i32, i32)>,
    /// With [`Options::profiles`]: the profile rules of the profiles read,
    /// each with how many (`None`: saved before profiles named their
    /// rules; [`Replay::rules_read`]); empty otherwise.
    pub profile_rules: Vec<(Option<String>, usize)>,
}

/// One measured data file and the GPU its configurations are predicted on,
/// for [`run_many`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pair<'a> {
    pub dataset: &'a Dataset,
    pub gpu: &'a Gpu,
    /// Draw only from these rows of the dataset ([`Options::rows`], for
    /// this data file).
    pub rows: Option<Vec<usize>>,
}

/// The work a [`run_many`] shared between its GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shared {
    /// Distinct configurations run (rows of several data files with the
    /// same parameter values count once).
    pub configurations: usize,
    /// PTX compiled by NVRTC (at most one per configuration and architecture).
    pub ptx_compiled: usize,
    /// PTX served from the PTX cache.
    pub ptx_cache_hits: usize,
    /// Configurations rescored from the profiles saved by an interrupted
    /// run ([`Options::resume`]): neither compiled nor emulated.
    pub resumed: usize,
    /// Emulations run (at most one per configuration and architecture).
    pub emulations: usize,
    /// Configurations predicted on a GPU (one per data file and
    /// configuration that reached the models).
    pub predictions: usize,
    /// Where the run's time went: the distinct configurations' breakdowns,
    /// each counted once (a [`Study::timing_totals`] counts a configuration
    /// shared with another GPU in full).
    pub timings: Timings,
}

/// Several GPUs' studies of one experiment, and the work they shared.
#[derive(Debug, Clone, PartialEq)]
pub struct Studies {
    /// One per [`Pair`], in their order: each what [`run`] gives for it alone
    /// (apart from the wall times, and each configuration's breakdown, which
    /// is all the work the configuration took, for every GPU).
    pub studies: Vec<Study>,
    pub shared: Shared,
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
    let pair = Pair {
        dataset,
        gpu,
        rows: opts.rows.clone(),
    };
    let mut many = run_many(experiment, &[pair], opts, progress)?;
    many.studies.pop().ok_or(StudyError::NoPair)
}

/// [`run`] for several data files, each on its GPU, with the work that does
/// not depend on the GPU done once: each data file's sample is drawn as
/// [`run`] draws it alone (from its [`Pair::rows`]; [`Options::rows`] is not
/// read), the configurations of every sample are matched by their parameter
/// values, and each is compiled once per distinct architecture of its GPUs
/// and emulated once per compiled PTX; the cache model and the models run
/// per GPU. Every study's outcomes and scores are those of [`run`] on its
/// pair alone. With [`Options::profiles`] nothing is compiled or emulated:
/// each GPU's saved profiles are rescored.
pub fn run_many(
    experiment: &Experiment,
    pairs: &[Pair<'_>],
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Studies, StudyError> {
    if pairs.is_empty() {
        return Err(StudyError::NoPair);
    }
    if let Some(arch) = &opts.ptx_arch {
        ptx_arch::check_ptx_arch(arch, pairs.iter().map(|p| p.gpu))?;
    }
    let cache = PtxCache::open(opts.cache_dir.as_deref())?;
    let engine = Engine::new(
        opts.sample_ctas,
        opts.models.clone(),
        cache,
        opts.save_profiles.clone(),
    )
    .with_work_budget(opts.work_budget)
    .with_resume(opts.resume)
    .with_ptx_arch(opts.ptx_arch.clone())
    .with_terms(opts.terms.clone())
    .for_gpus(&pairs.iter().map(|p| p.gpu).collect::<Vec<_>>());
    // The models assume the SASS of the compiler that built the measured
    // kernels where the data name it (this project's measurements do).
    let measured_compilers: Vec<Option<profile::CompilerVersion>> = pairs
        .iter()
        .map(|p| {
            p.dataset
                .compiler
                .as_deref()
                .and_then(profile::CompilerVersion::parse)
        })
        .collect();
    let sampled: Vec<Vec<usize>> = pairs
        .iter()
        .map(|p| sample_of(p.dataset, p.rows.as_deref(), opts))
        .collect();
    if let Some(o) = &opts.objective {
        for (p, rows) in pairs.iter().zip(&sampled) {
            check_objective(o, p.dataset, rows)?;
        }
    }
    let (runs, shared) = match &opts.profiles {
        Some(dir) => {
            progress(Progress::Start(sampled.iter().map(Vec::len).sum()));
            let mut runs = Vec::with_capacity(pairs.len());
            for ((pair, indices), compiler) in pairs.iter().zip(&sampled).zip(&measured_compilers) {
                let replay = Replay::new(dir.clone(), pair.gpu, opts.models.clone())
                    .with_terms(opts.terms.clone())
                    .with_measured_compiler(*compiler);
                let run = runner::run_configurations(
                    pair.dataset,
                    experiment,
                    indices,
                    &replay,
                    opts.jobs,
                    &|| progress(Progress::Done),
                )?;
                runs.push((run, 0, 0, 0, replay.rules_read()));
            }
            // Nothing is shared: each GPU rescores its own profiles.
            let shared = Shared {
                configurations: sampled.iter().map(Vec::len).sum(),
                timings: Timings::sum(
                    runs.iter()
                        .flat_map(|(r, _, _, _, _)| r.timings.iter().flatten()),
                ),
                ..Shared::default()
            };
            (runs, shared)
        }
        None => {
            let members: Vec<runner::Member<'_>> = pairs
                .iter()
                .zip(&sampled)
                .zip(&measured_compilers)
                .map(|((pair, indices), compiler)| runner::Member {
                    dataset: pair.dataset,
                    gpu: pair.gpu,
                    indices,
                    measured_compiler: *compiler,
                })
                .collect();
            let distinct = runner::distinct_configurations(&members);
            progress(Progress::Start(distinct));
            let run = runner::run_shared(experiment, &members, &engine, opts.jobs, &|| {
                progress(Progress::Done)
            })?;
            let shared = Shared {
                configurations: run.configurations,
                ptx_compiled: run.ptx_compiled,
                ptx_cache_hits: run.ptx_cache_hits,
                resumed: run.resumed,
                emulations: engine.emulations(),
                predictions: run.predictions,
                timings: run.timings,
            };
            let runs = run
                .runs
                .into_iter()
                .map(|m| {
                    (
                        m.run,
                        m.ptx_cache_hits,
                        m.ptx_compiled,
                        m.resumed,
                        Vec::new(),
                    )
                })
                .collect();
            (runs, shared)
        }
    };
    if let Some(e) = engine.take_save_error() {
        return Err(StudyError::SaveProfile(e));
    }
    let studies = pairs
        .iter()
        .zip(sampled)
        .zip(runs)
        .map(
            |((pair, indices), (run, ptx_cache_hits, ptx_compiled, resumed, profile_rules))| {
                let cost = opts
                    .objective
                    .as_ref()
                    .map(|o| move |row: usize, ms: f64| objective_cost(o, pair.dataset, row, ms));
                let scores = score_all_by(
                    &run.outcomes,
                    &opts.models,
                    cost.as_ref().map(|c| c as validate::score::RankCost<'_>),
                );
                let nvrtc_version = match pair.dataset.compiler {
                    Some(_) => engine.nvrtc_version(),
                    None => None,
                };
                let timing_totals = Timings::sum(run.timings.iter().flatten());
                Study {
                    indices,
                    outcomes: run.outcomes,
                    scores,
                    elapsed: run.elapsed,
                    timings: run.timings,
                    timing_totals,
                    ptx_cache_hits,
                    ptx_compiled,
                    resumed,
                    nvrtc_version,
                    profile_rules,
                }
            },
        )
        .collect();
    Ok(Studies { studies, shared })
}

/// The rows of `dataset` a study scores: `sample` of them (all without
/// one) drawn with `seed` from `rows` (every row without them), in the
/// order they were drawn.
fn sample_of(dataset: &Dataset, rows: Option<&[usize]>, opts: &Options) -> Vec<usize> {
    let eligible: Vec<usize> = match rows {
        Some(rows) => rows.to_vec(),
        None => (0..dataset.rows.len()).collect(),
    };
    let total = eligible.len();
    sample_indices(total, opts.sample.unwrap_or(total), opts.seed)
        .into_iter()
        .map(|i| eligible[i])
        .collect()
}
