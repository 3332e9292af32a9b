//! `ptxperf tune`: rank launch configurations without a GPU.
//!
//! The space is the cartesian product of `--param NAME=V1,V2,...` (or a
//! space file, `--space`, in the spirit of Kernel Tuner's `tune_params` and
//! `restrictions`), filtered by `--constraint`s; or, with `--measured`, the
//! configurations a ground-truth file measured. Each configuration becomes
//! a launch (through the launch spec's define expressions, or an experiment
//! file's Kernel Tuner launch), is checked for launchability on the GPU
//! (block and grid limits first, then registers and shared memory once
//! compiled), compiled once, emulated with CTA sampling and predicted by
//! every model. Configurations run in parallel (rayon) and are reported in
//! space order, so the output is deterministic; results are cached on disk
//! so a second run re-uses every one.
//!
//! Submodules: [`target`] (spec or experiment -> launch), [`launch_spec`]
//! (Kernel Tuner's launch as an emulator spec), [`evaluate`] (one
//! configuration, with the cache); the report (text, JSON, Markdown, SVG)
//! is `report::tune`'s.

use std::path::PathBuf;
use std::time::Instant;

use study::{Evaluation, Evaluator, PtxCache, Target, ptx_cache};
use tune::{Config, ResultCache, Space, parse_param_arg};

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cmd::report::{command_line, progress_bar};
use crate::error::CliError;
use crate::output::{emit, json_text, write_file};
use report::tune as tune_report;
use report::tune_csv as tune_report_csv;
use report::tune_kt_cache as tune_report_kt;

/// CTAs emulated per configuration unless `--sample-ctas` says otherwise.
pub const DEFAULT_SAMPLE_CTAS: u64 = 8;

/// Rank launch configurations (block sizes, tile sizes, variants) by every model's prediction.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf tune experiments/seed002/matmul_tiled.toml --gpu geforce-gtx-280 --param N=256 --param BS=4,8,16
  ptxperf tune experiments/seed002/matmul_tiled.toml --gpu rtx-a4000,h100-sxm5-80gb --param N=512 \\
      --param BS=8,16,32 --constraint 'BS*BS <= 1024' --model timing --top 3
  ptxperf tune experiments/seed002/conv2d.toml --gpu rtx-a4000 --param BS=8,16,32 --json > ranking.json
  ptxperf tune experiments/seed002/conv2d.toml --gpu rtx-a4000,geforce-rtx-5090 --param BS=8,16,32 --csv ranking.csv
  ptxperf tune examples/saxpy.toml --gpu rtx-a4000 --param N=65536,1048576 --cache /tmp/ptxperf-cache
  ptxperf tune --experiment experiments/vector-add.toml --gpu h100-sxm5-80gb \\
      --measured data/measured/h100-sxm5-80gb/vector_add.json
  ptxperf tune experiments/seed002/conv2d.toml --gpu geforce-rtx-3090 --param N=1024 --param BS=8,16,32 \\
      --model timing --model learned --rank-by pessimistic
  ptxperf tune --space experiments/hotspot-milo-space.toml --gpu a100-pcie-40gb --sample 40 --model timing
  ptxperf tune examples/saxpy.toml --gpu rtx-a4000 --param N=65536,1048576 \\
      --objective '2 * N / 1e6 / time' --higher-is-better --model timing
  ptxperf tune --space experiments/convolution-milo-space.toml --gpu rtx-a4000 --model timing \\
      --kt-cache convolution_A4000_predicted.json

The grid, block and lengths of SPEC.toml must be expressions of the tuned defines (docs/launch-spec.md).
A --param the kernel and the spec never mention is an error (--allow-unused-param accepts it).
Configurations whose predicted times are within 0.5 % (or print alike) are reported as a tie (rank `1=`),
not one winner. An objective (--objective, else a space file's [objective] as hotspot-milo-space.toml's
GFLOP/s, else the experiment's) ranks by its value at each predicted time instead, and scores picks by it at the measured times
(--measured); the tables show it beside the time (docs/experiments.md, \"Objectives\"). A model with an interval (`learned`: calibrated on GPUs left out of its training) shows it
beside each time; --rank-by pessimistic ranks by its upper end (ties on that bound). `learned` keeps one
share of its correction on the timing model for all the configurations ranked on a GPU, the mean of
their familiarity (docs/validation/learned.md, \"One familiarity per space\"), so that one space is not
ranked half by its trees and half by the timing model. A configuration the GPU cannot launch (block, shared memory, registers) is counted
\"not launchable\" with the reason, apart from \"failed\" (compile or emulation errors). When no model
predicted any configuration on any GPU, the report is printed and the exit status is 1.
Results are cached in --cache DIR, else $PTXPERF_CACHE_DIR, else $XDG_CACHE_HOME/ptxperf,
else ~/.cache/ptxperf (never the current directory).")]
pub struct Args {
    /// Launch spec whose defines the parameters override (grid, block and lengths are
    /// expressions over them); not needed when the space file names an experiment.
    #[arg(value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    /// GPU id from the catalog (`ptxperf gpus` lists them), or a GPU file of
    /// your own (`PATH.toml`, as `predict --gpu`); repeatable or a
    /// comma list: each configuration is then compiled and emulated once and
    /// predicted on every GPU (compiled for the oldest GPU's architecture).
    #[arg(long, value_name = "ID", required = true, value_delimiter = ',')]
    pub gpu: Vec<String>,
    /// The core clock the GPU holds while the kernels run, MHz (as
    /// `ptxperf predict --clock-mhz`; with one --gpu). Default: the catalog's
    /// rated clock. Cached results are kept apart by clock.
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,
    /// Experiment file (Kernel Tuner launch) instead of SPEC.toml or a space
    /// file's `experiment`; give it as `ptxperf validate` was given it to
    /// share its PTX cache. Its `restrictions` bound the space, as Kernel
    /// Tuner's did.
    #[arg(long, value_name = "FILE")]
    pub experiment: Option<PathBuf>,
    /// A tunable parameter and its values (repeatable; replaces a space file's values).
    #[arg(long = "param", value_name = "NAME=V1,V2,...")]
    pub params: Vec<String>,
    /// Accept a --param that neither the kernel source nor the spec (or
    /// experiment) mentions; without it such a name is an error, since its
    /// values would all give the same launch.
    #[arg(long)]
    pub allow_unused_param: bool,
    /// A restriction every configuration must satisfy (repeatable), e.g. `bx*by <= 1024`.
    #[arg(long = "constraint", value_name = "EXPR")]
    pub constraints: Vec<String>,
    /// Tuning space file (params, restrictions, optionally an experiment file).
    #[arg(long, value_name = "SPACE.toml")]
    pub space: Option<PathBuf>,
    /// Run only this model (repeatable); default: the default model set.
    #[arg(long = "model", value_name = "NAME")]
    pub models: Vec<String>,
    /// What ranks a model's configurations: `estimate` (its predicted
    /// time) or `pessimistic` (the upper end of its interval, for a model
    /// that gives one, such as `learned`; a model without an interval
    /// ranks by its estimate, and its table's header says so).
    #[arg(long, value_name = "BOUND", value_enum, default_value_t = RankByArg::Estimate)]
    pub rank_by: RankByArg,
    /// Rank by this expression of `time` (the kernel's time, ms) and the
    /// integer parameters instead of the time alone, as Kernel Tuner's
    /// `objective` (replaces a space file's or the experiment's
    /// `[objective]`), e.g. the work
    /// per second of a kernel whose launch does `steps` steps:
    /// `steps * 2 * 4096 * 4096 / 1e9 / (time / 1e3)` with
    /// --higher-is-better. Lower is better unless --higher-is-better.
    #[arg(long, value_name = "EXPR")]
    pub objective: Option<String>,
    /// The --objective is a throughput: higher values are better.
    #[arg(long, requires = "objective")]
    pub higher_is_better: bool,
    /// Show the best K configurations per model.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub top: usize,
    /// Print JSON (schema 1) instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Emulate K CTAs per configuration (spread over the grid; while they disagree, up to 16 K that do work, stratified by a probe of the grid) and extrapolate (0: every CTA).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SAMPLE_CTAS)]
    pub sample_ctas: u64,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "J")]
    pub jobs: Option<usize>,
    /// Cache folder: results under DIR/tune, PTX under DIR/ptx (shared with
    /// `ptxperf validate --cache DIR`); default $PTXPERF_CACHE_DIR, else
    /// $XDG_CACHE_HOME/ptxperf, else ~/.cache/ptxperf (never the current
    /// directory). Results are only reused by the same build of ptxperf
    /// (and, with `--model learned`, the same model file).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Read and write no result cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Evaluate N configurations chosen at random (with --seed) out of those kept.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Ground truth (Kernel Tuner cache, T4 results file or Schoonhoven CSV): tune its measured
    /// configurations and score each model's pick against the measured times.
    /// With several GPUs, `GPU_ID=FILE` once per GPU; the space is then the
    /// configurations measured (with a time) in every file.
    #[arg(long, value_name = "[GPU_ID=]FILE")]
    pub measured: Vec<String>,
    /// Also write a Markdown table of every configuration.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write every configuration as CSV, a row per configuration and
    /// GPU: its parameters, launch, status (predicted, not_launchable,
    /// failed) and reason, registers, occupancy, and per model its time in ms,
    /// interval (`learned`), rank and bottleneck (docs/json.md, "tune --csv").
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the predictions as a Kernel Tuner cache file, for its
    /// simulation mode (`tune_kernel(..., cache=FILE, simulation_mode=True)`)
    /// to run its search strategies on them: one --gpu, one --model, and
    /// every configuration of the space (no --sample). docs/experiments.md,
    /// "Kernel Tuner's strategies on predicted times".
    #[arg(long, value_name = "FILE")]
    pub kt_cache: Option<PathBuf>,
    /// Also write an SVG of each model's predicted time (or the objective at
    /// it) against --plot-x.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// The parameter on the SVG's x axis (default: the first parameter).
    #[arg(long, value_name = "NAME")]
    pub plot_x: Option<String>,
    /// Title of the SVG.
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also print where the time went: per stage (NVRTC, PTX parsing, ptxas,
    /// emulation, characterization, cache model, models, other) its wall
    /// seconds over every configuration, share and mean per configuration
    /// (at the end; on stderr with --json, whose `timings` hold the same).
    #[arg(long)]
    pub timings: bool,
}

/// `--rank-by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RankByArg {
    Estimate,
    Pessimistic,
}

impl From<RankByArg> for tune::RankBy {
    fn from(a: RankByArg) -> Self {
        match a {
            RankByArg::Estimate => tune::RankBy::Estimate,
            RankByArg::Pessimistic => tune::RankBy::Pessimistic,
        }
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.jobs == Some(0) {
        return Err(CliError::usage("--jobs must be at least 1"));
    }
    if args.sample == Some(0) {
        return Err(CliError::usage("--sample must be at least 1"));
    }
    let models = if args.models.is_empty() {
        pipeline::default_models()
    } else {
        args.models.clone()
    };
    models::registry::check_names(&models).map_err(|e| CliError::usage_of(&e))?;
    if args.clock_mhz.is_some() && args.gpu.len() > 1 {
        return Err(CliError::usage(
            "--clock-mhz is one GPU's clock: give it with a single --gpu",
        ));
    }
    let mut gpus: Vec<arch::Gpu> = Vec::new();
    for id in &args.gpu {
        let gpu = super::named_gpu(id.trim(), args.clock_mhz)?;
        if gpus.iter().any(|g| g.id == gpu.id) {
            return Err(CliError::usage(format!("--gpu {} is given twice", gpu.id)));
        }
        gpus.push(gpu);
    }
    // The PTX every GPU can run: the oldest GPU's architecture.
    let Some(compile_gpu) = gpus.iter().min_by_key(|g| {
        let cc = g.compute_capability;
        (cc.major, cc.minor)
    }) else {
        return Err(CliError::usage("give --gpu ID"));
    };
    let ids: Vec<&str> = gpus.iter().map(|g| g.id.as_str()).collect();
    let measured_files =
        tune::pair_measured(&args.measured, &ids).map_err(|e| CliError::usage_of(&e))?;

    let mut space = match &args.space {
        Some(p) => Space::load(p).map_err(|e| CliError::of(&e))?,
        None => Space::default(),
    };
    let mut param_names = Vec::new();
    for p in &args.params {
        let param = parse_param_arg(p).map_err(|e| CliError::usage_of(&e))?;
        param_names.push(param.name.clone());
        space.add_param(param).map_err(|e| CliError::usage_of(&e))?;
    }
    for c in &args.constraints {
        space
            .add_restriction(c)
            .map_err(|e| CliError::usage_of(&e))?;
    }
    if args.kt_cache.is_some() {
        if args.gpu.len() != 1 || models.len() != 1 {
            return Err(CliError::usage(
                "--kt-cache writes one model's times on one GPU: give one --gpu and one --model",
            ));
        }
        if args.sample.is_some() {
            return Err(CliError::usage(
                "--kt-cache needs every configuration of the space (Kernel Tuner's simulation \
                 mode refuses a configuration it cannot find): drop --sample",
            ));
        }
    }
    let cache_root = cache_root(&args)?;
    let ptx_cache = PtxCache::open(cache_root.as_deref())?;
    let values_dir = ptx_cache.values_dir();
    let experiment = args.experiment.as_ref().or(space.experiment.as_ref());
    let target = match (&args.spec, experiment) {
        (Some(spec), None) => Target::spec(spec, compile_gpu),
        (None, Some(exp)) => Target::experiment(exp, compile_gpu, &values_dir),
        (Some(_), Some(_)) => {
            return Err(CliError::usage(
                "give either SPEC.toml or an experiment (--experiment or a space file's), not both",
            ));
        }
        (None, None) => {
            return Err(CliError::usage(
                "give SPEC.toml, --experiment FILE, or --space with a space file naming an experiment",
            ));
        }
    }?;
    if !args.allow_unused_param {
        target
            .check_params_used(&param_names)
            .map_err(|e| CliError::of(&e))?;
    }
    // The experiment's restrictions bound its space as Kernel Tuner's did.
    for (i, r) in target.restrictions().iter().enumerate() {
        space.add_restriction(r).map_err(|e| {
            CliError::user(format!(
                "{}: restrictions[{i}]: {e}",
                target.path().display()
            ))
        })?;
    }

    if measured_files.is_empty() && space.params.is_empty() {
        return Err(CliError::usage(
            "no parameters: give --param NAME=V1,V2,... or a space file with [params]",
        ));
    }
    if !measured_files.is_empty() && !args.params.is_empty() {
        return Err(CliError::usage(
            "with --measured the space is the measured configurations: drop --param",
        ));
    }
    let sample = args.sample.map(|n| (n, args.seed));
    let chosen =
        tune::select(&space, &measured_files, gpus.len(), sample).map_err(|e| CliError::of(&e))?;
    let objective = super::objective::resolve(
        args.objective.as_deref(),
        args.higher_is_better,
        space.objective.as_ref(),
        target.objective(),
        target.path(),
    )?;
    if let Some(o) = &objective {
        o.check_configs(&chosen.configs)
            .map_err(|e| CliError::of(&e))?;
    }
    let cache = match &cache_root {
        Some(d) => Some(ResultCache::open(&d.join("tune")).map_err(|e| CliError::of(&e))?),
        None => None,
    };
    let evaluator = Evaluator {
        target: &target,
        gpus: &gpus,
        models: &models,
        sample_ctas: (args.sample_ctas > 0).then_some(args.sample_ctas),
        cache: cache.as_ref(),
        ptx_cache: &ptx_cache,
        emulations: AtomicUsize::new(0),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let start = Instant::now();
    let mut per_config = evaluate_all(&evaluator, &chosen.configs, jobs, args.quiet)?;
    // Ranked together, so one familiarity for the learned model's
    // correction per GPU (validate::blend).
    study::evaluate::share_familiarity(&mut per_config);
    let elapsed_s = start.elapsed().as_secs_f64();
    let timings = study::total_timings(&per_config);
    let (ptx_hits, ptx_compiled) = ptx_cache.counts();
    let counters = tune_report::Counters {
        configurations: chosen.configs.len(),
        gpus: gpus.len(),
        emulations: evaluator.emulations.load(Ordering::Relaxed),
        ptx_cache_hits: ptx_hits,
        ptx_compiled,
    };
    if gpus.len() > 1 && (args.markdown.is_some() || args.svg.is_some()) {
        return Err(CliError::usage("--markdown and --svg take one --gpu"));
    }

    let mut texts = Vec::new();
    let mut jsons = Vec::new();
    let mut csv: Option<tune_report_csv::Csv> = None;
    // GPUs on which no model predicted any configuration. When that is
    // every GPU, the run printed why and then exits 1, so that a script does
    // not take it for a ranking (as `predict` fails when no GPU is predicted).
    let mut unranked = Vec::new();
    for (gi, gpu) in gpus.iter().enumerate() {
        let measured = chosen.measured.get(gi).and_then(Option::as_ref);
        let ranking = study::rank_on_gpu(
            &per_config,
            gi,
            &models,
            measured.map(|(_, times)| times.as_slice()),
            args.rank_by.into(),
            objective.as_ref(),
        );
        if ranking.winners.winners.is_empty() {
            unranked.push(gpu.id.clone());
        }
        let measured_name = measured
            .map(|(p, _)| p.display().to_string())
            .unwrap_or_default();
        let report = tune_report::Report {
            command: command_line(),
            target: target.path().display().to_string(),
            gpu: gpu.id.clone(),
            gpu_name: gpu.name.clone(),
            total: chosen.total,
            rejected_by: chosen.rejected_by.clone(),
            kept: chosen.kept,
            sample: args
                .sample
                .map(|n| (chosen.configs.len().min(n), args.seed)),
            sample_ctas: evaluator.sample_ctas,
            jobs,
            elapsed_s,
            evaluations: &ranking.evaluations,
            models: &ranking.models,
            rank_by: args.rank_by.into(),
            objective: objective.as_ref(),
            winners: &ranking.winners,
            top: args.top,
            measured: measured.map(|_| (measured_name.as_str(), ranking.metrics.as_slice())),
        };
        if args.csv.is_some() {
            csv.get_or_insert_with(|| tune_report_csv::Csv::new(&report))
                .push(&report);
        }
        if let Some(path) = &args.kt_cache {
            let kernel = tune_report_kt::KtCacheKernel {
                kernel_name: target.kernel_name(),
                problem_size: target.problem_size(),
                params: kt_params(&space, &chosen.configs),
            };
            write_file(path, tune_report_kt::kt_cache(&report, 0, &kernel))?;
        }
        if let Some(md) = &args.markdown {
            write_file(md, tune_report::markdown(&report))?;
        }
        if let Some(svg) = &args.svg {
            let x = match (&args.plot_x, space.params.first()) {
                (Some(x), _) => x.clone(),
                (None, Some(p)) => p.name.clone(),
                (None, None) => return Err(CliError::usage("--svg needs --plot-x NAME")),
            };
            let title = args
                .title
                .clone()
                .unwrap_or_else(|| format!("{} on {}", report.target, gpu.name));
            write_file(
                svg,
                &tune_report::svg(&report, &x, &title)
                    .map_err(|e| CliError::user(e.to_string()))?,
            )?;
        }
        if args.json {
            jsons.push(tune_report::json(&report));
        } else {
            texts.push(tune_report::text(&report, crate::table::width()));
        }
    }
    if let (Some(path), Some(csv)) = (&args.csv, csv) {
        write_file(path, csv.finish())?;
    }
    let mut out = if args.json {
        let value = tune_report::run_json(jsons, &counters, &timings);
        json_text(&value)?
    } else {
        let mut text = texts.join("\n");
        text.push_str(&counters.line());
        text
    };
    if args.timings {
        let table = super::timings::table(&timings);
        if args.json {
            eprint!("{table}");
        } else {
            out.push_str(&table);
        }
    }
    emit(&out)?;
    if unranked.len() < gpus.len() {
        return Ok(());
    }
    let why = if objective.is_some() {
        "every configuration failed, cannot be launched, or has no positive objective at its \
         predicted time"
    } else {
        "every configuration failed or cannot be launched"
    };
    Err(CliError::user(format!(
        "no model predicted any configuration on {}: {why} (the reasons are listed above)",
        unranked.join(", ")
    )))
}

/// Kernel Tuner's `tune_params`: the space's parameters and values, or for
/// a measured space (no parameters of its own) the values its
/// configurations take, in order of first appearance.
fn kt_params(space: &Space, configs: &[Config]) -> Vec<(String, Vec<validate::ParamValue>)> {
    if !space.params.is_empty() {
        return space
            .params
            .iter()
            .map(|p| (p.name.clone(), p.values.clone()))
            .collect();
    }
    let mut out: Vec<(String, Vec<validate::ParamValue>)> = Vec::new();
    for c in configs {
        for (name, v) in &c.values {
            let slot = match out.iter().position(|(n, _)| n == name) {
                Some(i) => i,
                None => {
                    out.push((name.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            if !out[slot].1.contains(v) {
                out[slot].1.push(v.clone());
            }
        }
    }
    out
}

/// Every configuration on a pool of `jobs` threads, with a progress bar.
fn evaluate_all(
    evaluator: &Evaluator<'_>,
    configs: &[Config],
    jobs: usize,
    quiet: bool,
) -> Result<Vec<Vec<Evaluation>>, CliError> {
    let bar = progress_bar(configs.len() as u64, quiet);
    let out = evaluator
        .evaluate_all(configs, jobs, &|| bar.inc(1))
        .map_err(|e| CliError::diagnostic(format!("error: {e}")));
    bar.finish_and_clear();
    out
}

/// The cache root (results under `tune/`, PTX under `ptx/`), as `ptxperf validate` finds it.
fn cache_root(args: &Args) -> Result<Option<PathBuf>, CliError> {
    if args.no_cache {
        return Ok(None);
    }
    match &args.cache {
        Some(d) => Ok(Some(d.clone())),
        None => ptx_cache::default_dir()
            .map(Some)
            .map_err(|e| CliError::of(&e)),
    }
}
