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
//! configuration, with the cache), [`render`] (text, JSON, Markdown, SVG).

mod evaluate;
mod launch_spec;
mod render;
mod target;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use tune::{Config, ModelTimes, ResultCache, Space, parse_param_arg};

use crate::error::CliError;
use evaluate::{Evaluation, Evaluator};
use target::Target;

/// CTAs emulated per configuration unless `--sample-ctas` says otherwise.
pub const DEFAULT_SAMPLE_CTAS: u64 = 8;

/// Rank launch configurations (block sizes, tile sizes, variants) by every model's prediction.
#[derive(clap::Args)]
pub struct Args {
    /// Launch spec whose defines the parameters override (grid, block and lengths are
    /// expressions over them); not needed when the space file names an experiment.
    #[arg(value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    /// GPU id from the catalog (`ptxperf gpus` lists them).
    #[arg(long, value_name = "ID")]
    pub gpu: String,
    /// A tunable parameter and its values (repeatable; replaces a space file's values).
    #[arg(long = "param", value_name = "NAME=V1,V2,...")]
    pub params: Vec<String>,
    /// A restriction every configuration must satisfy (repeatable), e.g. `bx*by <= 1024`.
    #[arg(long = "constraint", value_name = "EXPR")]
    pub constraints: Vec<String>,
    /// Tuning space file (params, restrictions, optionally an experiment file).
    #[arg(long, value_name = "SPACE.toml")]
    pub space: Option<PathBuf>,
    /// Run only this model (repeatable); default: the default model set.
    #[arg(long = "model", value_name = "NAME")]
    pub models: Vec<String>,
    /// Show the best K configurations per model.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub top: usize,
    /// Print JSON (schema 1) instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Emulate K CTAs per configuration, evenly spaced, and extrapolate (0: every CTA).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SAMPLE_CTAS)]
    pub sample_ctas: u64,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "J")]
    pub jobs: Option<usize>,
    /// Result cache folder (default: $PTXPERF_CACHE/tune, else target/ptxperf-cache/tune).
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
    /// Ground truth (Kernel Tuner cache or Schoonhoven CSV): tune its measured
    /// configurations and score each model's pick against the measured times.
    #[arg(long, value_name = "FILE")]
    pub measured: Option<PathBuf>,
    /// Also write a Markdown table of every configuration.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write an SVG of each model's predicted time against --plot-x.
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
}

/// The configurations to evaluate, with the space's figures.
struct Chosen {
    total: u64,
    rejected_by: Vec<(String, u64)>,
    kept: usize,
    configs: Vec<Config>,
    /// Measured time per configuration (aligned with `configs`), with --measured.
    measured: Option<Vec<Option<f64>>>,
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
    models::registry::check_names(&models).map_err(|e| CliError::usage(e.to_string()))?;
    let catalog = arch::Catalog::bundled().map_err(|e| CliError::user(e.to_string()))?;
    let gpu = catalog
        .get(&args.gpu)
        .map_err(|e| CliError::user(e.to_string()))?
        .clone();

    let mut space = match &args.space {
        Some(p) => Space::load(p).map_err(|e| CliError::user(e.to_string()))?,
        None => Space::default(),
    };
    for p in &args.params {
        let param = parse_param_arg(p).map_err(|e| CliError::usage(e.to_string()))?;
        space
            .add_param(param)
            .map_err(|e| CliError::usage(e.to_string()))?;
    }
    for c in &args.constraints {
        space
            .add_restriction(c)
            .map_err(|e| CliError::usage(e.to_string()))?;
    }
    let cache_dir = cache_dir(&args);
    let values_dir = cache_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join("values");
    let target = match (&args.spec, &space.experiment) {
        (Some(spec), None) => Target::spec(spec, &gpu),
        (None, Some(exp)) => Target::experiment(exp, &gpu, &values_dir),
        (Some(_), Some(_)) => {
            return Err(CliError::usage(
                "give either SPEC.toml or a space file naming an experiment, not both",
            ));
        }
        (None, None) => {
            return Err(CliError::usage(
                "give SPEC.toml, or --space with a space file naming an experiment",
            ));
        }
    }
    .map_err(CliError::user)?;

    let chosen = choose(&args, &space)?;
    let cache = match &cache_dir {
        Some(d) => Some(ResultCache::open(d).map_err(|e| CliError::user(e.to_string()))?),
        None => None,
    };
    let evaluator = Evaluator {
        target: &target,
        gpu: &gpu,
        models: &models,
        sample_ctas: (args.sample_ctas > 0).then_some(args.sample_ctas),
        cache: cache.as_ref(),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let start = Instant::now();
    let evaluations = evaluate_all(&evaluator, &chosen.configs, jobs, args.quiet)?;
    let elapsed_s = start.elapsed().as_secs_f64();

    let model_times: Vec<ModelTimes> = models
        .iter()
        .enumerate()
        .map(|(mi, m)| ModelTimes {
            model: m.clone(),
            times: evaluations.iter().map(|e| e.ms(mi)).collect(),
        })
        .collect();
    let winners = tune::winners(&model_times);
    let metrics: Vec<tune::PickMetrics> = match &chosen.measured {
        Some(measured) => model_times
            .iter()
            .filter_map(|m| tune::pick_metrics(m, measured, 10))
            .collect(),
        None => Vec::new(),
    };
    let measured_name = args
        .measured
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let report = render::Report {
        command: command_line(),
        target: target.path().display().to_string(),
        gpu: gpu.id.clone(),
        gpu_name: gpu.name.clone(),
        total: chosen.total,
        rejected_by: chosen.rejected_by,
        kept: chosen.kept,
        sample: args
            .sample
            .map(|n| (chosen.configs.len().min(n), args.seed)),
        sample_ctas: evaluator.sample_ctas,
        jobs,
        elapsed_s,
        evaluations: &evaluations,
        models: &model_times,
        winners: &winners,
        top: args.top,
        measured: chosen
            .measured
            .as_ref()
            .map(|_| (measured_name.as_str(), metrics.as_slice())),
    };
    if let Some(md) = &args.markdown {
        write_file(md, &render::markdown(&report))?;
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
            &render::svg(&report, &x, &title).map_err(CliError::user)?,
        )?;
    }
    let out = if args.json {
        let mut text = serde_json::to_string_pretty(&render::json(&report))
            .map_err(|e| CliError::user(format!("error: cannot write JSON: {e}")))?;
        text.push('\n');
        text
    } else {
        render::text(&report)
    };
    emit(&out)
}

/// The space's configurations (or the measured ones), restricted and sampled.
fn choose(args: &Args, space: &Space) -> Result<Chosen, CliError> {
    let (total, rejected_by, kept, measured) = match &args.measured {
        None => {
            if space.params.is_empty() {
                return Err(CliError::usage(
                    "no parameters: give --param NAME=V1,V2,... or a space file with [params]",
                ));
            }
            let ex = space.expand().map_err(|e| CliError::user(e.to_string()))?;
            (ex.total, ex.rejected_by, ex.kept, None)
        }
        Some(path) => {
            if !args.params.is_empty() {
                return Err(CliError::usage(
                    "with --measured the space is the measured configurations: drop --param",
                ));
            }
            measured_space(path, space)?
        }
    };
    let n_kept = kept.len();
    let indices = match args.sample {
        Some(n) => validate::sample::sample_indices(n_kept, n, args.seed),
        None => (0..n_kept).collect(),
    };
    let configs: Vec<Config> = indices
        .iter()
        .filter_map(|&i| kept.get(i).cloned())
        .collect();
    let measured = measured.map(|m: Vec<Option<f64>>| {
        indices
            .iter()
            .map(|&i| m.get(i).copied().flatten())
            .collect()
    });
    Ok(Chosen {
        total,
        rejected_by,
        kept: n_kept,
        configs,
        measured,
    })
}

type MeasuredSpace = (
    u64,
    Vec<(String, u64)>,
    Vec<Config>,
    Option<Vec<Option<f64>>>,
);

/// The configurations of a ground-truth file that have a time, restricted by
/// the space's restrictions, with their measured mean times.
fn measured_space(path: &Path, space: &Space) -> Result<MeasuredSpace, CliError> {
    let dataset = validate::import_dataset(path).map_err(|e| CliError::user(e.to_string()))?;
    let mut rejected = vec![0u64; space.restrictions.len()];
    let mut kept = Vec::new();
    let mut times = Vec::new();
    let mut total = 0u64;
    for (i, row) in dataset.rows.iter().enumerate() {
        let Some(ms) = row.measured.mean_ms() else {
            continue;
        };
        total += 1;
        let config = Config {
            index: i as u64,
            values: dataset
                .params
                .iter()
                .cloned()
                .zip(row.values.iter().cloned())
                .collect(),
        };
        match space
            .first_broken(&config)
            .map_err(|e| CliError::user(e.to_string()))?
        {
            Some(r) => {
                if let Some(n) = rejected.get_mut(r) {
                    *n += 1;
                }
            }
            None => {
                kept.push(config);
                times.push(Some(ms));
            }
        }
    }
    let rejected_by = space
        .restrictions
        .iter()
        .map(|r| r.text().to_string())
        .zip(rejected)
        .collect();
    Ok((total, rejected_by, kept, Some(times)))
}

/// Every configuration on a pool of `jobs` threads; results in input order.
fn evaluate_all(
    evaluator: &Evaluator<'_>,
    configs: &[Config],
    jobs: usize,
    quiet: bool,
) -> Result<Vec<Evaluation>, CliError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::user(format!("error: cannot start {jobs} worker threads: {e}")))?;
    let bar = progress_bar(configs.len() as u64, quiet);
    let out = pool.install(|| {
        configs
            .par_iter()
            .map(|c| {
                let e = evaluator.evaluate(c);
                bar.inc(1);
                e
            })
            .collect()
    });
    bar.finish_and_clear();
    Ok(out)
}

fn cache_dir(args: &Args) -> Option<PathBuf> {
    if args.no_cache {
        return None;
    }
    Some(args.cache.clone().unwrap_or_else(|| {
        std::env::var_os("PTXPERF_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/ptxperf-cache"))
            .join("tune")
    }))
}

/// The bar on stderr, hidden when stderr is not a terminal or with --quiet.
fn progress_bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} configurations (eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The command as typed (the binary by its name only).
fn command_line() -> String {
    let mut parts: Vec<String> = std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect();
    if let Some(first) = parts.first_mut()
        && let Some(name) = Path::new(first.as_str()).file_name()
    {
        *first = name.to_string_lossy().into_owned();
    }
    parts.join(" ")
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::user(format!("{}: error: cannot create: {e}", dir.display())))?;
    }
    std::fs::write(path, text)
        .map_err(|e| CliError::user(format!("{}: error: cannot write: {e}", path.display())))
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
fn emit(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::user(format!("error: cannot write output: {e}")))
        }
        _ => Ok(()),
    }
}
