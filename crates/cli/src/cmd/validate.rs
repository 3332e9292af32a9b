//! `ptxperf validate`: score every model against times measured on a real
//! GPU (Kernel Tuner caches, Schoonhoven CSVs).
//!
//! For each sampled configuration of the data file: the experiment file
//! rebuilds Kernel Tuner's launch (`validate::Experiment::launch`), the
//! source is instantiated with its defines, compiled by NVRTC (PTX cached on
//! disk by source and options), emulated on a few CTAs spread over the grid and
//! extrapolated, and every model predicts a time. Then per model: MAPE,
//! median APE, median predicted/measured (the bias), Spearman, Kendall tau-b,
//! top-1 % overlap, the measured time of the predicted-best configuration
//! over the measured best, and the failures (measured as failed, and those
//! ptxperf could not run, apart).
//!
//! The study itself (runner, engine, replay, PTX cache) is
//! `study::validation`, the scoring `validate::score`; here: the arguments,
//! [`plot`] (SVG scatters) and [`render`] (table, JSON, Markdown).

mod by_param_plot;
mod plot;

use std::path::{Path, PathBuf};

use study::ptx_cache;
use study::validation::{self, Progress};
use validate::by_bottleneck::by_bottleneck;
use validate::by_expression::{Grouping, by_expression};
use validate::by_param::{ByParameter, Part, by_parameter};
use validate::by_term::{TermGrouping, by_term};
use validate::{Dataset, Experiment, import_dataset};

use crate::cmd::report::{command_line, progress_bar};
use crate::error::CliError;
use crate::output::{emit, write_file};
use report::validate as render;

/// Score every model against measured times of a kernel on a real GPU.
#[derive(clap::Args)]
#[command(
    after_help = "Examples (the kernel sources come from scripts/fetch-validation-kernels.sh):
  ptxperf validate experiments/vector-add.toml --data data/measured/h100-sxm5-80gb/vector_add.json --gpu h100-sxm5-80gb --sample 5
  ptxperf validate experiments/convolution.toml --data data/measured/h100-sxm5-80gb/convolution.json.gz \\
      --gpu h100-sxm5-80gb --sample 30 --model timing --json > scores.json
  ptxperf validate experiments/convolution.toml --data data/measured/h100-sxm5-80gb/convolution.json.gz \\
      --gpu h100-sxm5-80gb --sample 30 --save-profiles profiles/
  ptxperf validate experiments/convolution.toml --data data/measured/h100-sxm5-80gb/convolution.json.gz \\
      --gpu h100-sxm5-80gb --sample 30 --profiles profiles/
  ptxperf validate experiments/convolution.toml --data data/measured/h200-sxm-141gb/convolution.json.gz \\
      --gpu h200-sxm-141gb --part check --sample 40 --model timing
  ptxperf validate experiments/convolution.toml \
      --data ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_3090.json.gz --gpu geforce-rtx-3090 \
      --transfer-from ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_Titan.json.gz --part check --sample 200
  ptxperf validate experiments/convolution.toml --sample 30 \
      --data ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_3090.json.gz --gpu geforce-rtx-3090 \
      --data ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_3060_laptop.json.gz --gpu geforce-rtx-3060-laptop
  ptxperf validate experiments/convolution.toml --data ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_Titan.json.gz \
      --gpu titan-rtx --sample 200 --model timing --by-param
  ptxperf validate experiments/convolution.toml --data ../shared/data/groundtruth/kt-convolution/KT_convolution_RTX_Titan.json.gz \
      --gpu titan-rtx --sample 200 --model timing --by-term l2_seconds/sm_seconds --by-term resident_blocks_per_sm

--bootstrap and --transfer-from: docs/json.md (`validate`) and docs/validation/transfer.md.

--by-param, --by-bottleneck, --by-term: which parameter, limit or term the error moves with
(docs/validation/by-parameter.md; `predict --json` lists each model's breakdown terms).

--part: which configurations are check data: docs/validation/split.md.
--objective (or the experiment's [objective]): the rank figures and the transfer by Kernel Tuner's
objective, e.g. a GFLOP/s, instead of the time (docs/experiments.md, \"Objectives\").
The experiment and data formats: docs/experiments.md.
When no model scored any configuration of any data file (none both measured and predicted), the report
is printed and the exit status is 1."
)]
pub struct Args {
    /// Experiment file: how a configuration becomes Kernel Tuner's launch (experiments/*.toml).
    #[arg(value_name = "EXPERIMENT.toml")]
    pub experiment: PathBuf,
    /// Measured data: a Kernel Tuner cache (.json, .json.gz), a T4 results file (Kernel Tuner's `store_output_file`, the Open Autotuning Results format; it does not name the kernel, so the experiment's is taken) or a Schoonhoven CSV (.csv.gz). Where the cache names the compiler that built the measured kernels (`measured_by.nvrtc`), the timing model assumes that compiler's integer-to-FP32 lowering (docs/timing-model.md, "Integer conversions"). Repeatable: the n-th --data is predicted on the n-th --gpu, and each configuration is compiled once per architecture and emulated once per distinct PTX for all of them (PTX that differs only in its .target line is emulated once; ptxas runs per architecture).
    #[arg(long, value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// GPU id from the catalog to predict for (`ptxperf gpus` lists them), or a GPU file of your own (`PATH.toml`, as `predict --gpu`); one per --data, in the same order.
    #[arg(long, value_name = "ID", required = true)]
    pub gpu: Vec<String>,
    /// The core clock the GPU held while the data were measured, MHz (the
    /// models run at it instead of the catalog's rated clock; DRAM bandwidth
    /// stays the catalog's). For data taken with clocks locked
    /// (`nvidia-smi -lgc`) or logged during the run. Default: the rated clock.
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,
    /// Score N configurations chosen at random (with --seed); default: all.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of the sample.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Score only one part of the data: `development` (what models may be
    /// tuned or trained on) or `check` (scored only to report), as the split
    /// file assigns them (docs/validation/split.md). Default: every
    /// configuration.
    #[arg(long, value_name = "PART", value_parser = ["development", "check"])]
    pub part: Option<String>,
    /// The split file (default: data/split.toml of the current directory,
    /// else of the folder above the experiment's): the parts of --part, the
    /// files it excludes, and which part each scored configuration is in.
    #[arg(long, value_name = "FILE")]
    pub split: Option<PathBuf>,
    /// Score a data file that the split file excludes (its times cannot be
    /// what it says was measured; the refusal gives the reason).
    #[arg(long)]
    pub allow_excluded: bool,
    /// Bootstrap resamples behind the 90 % interval of every figure (of the
    /// scored configurations, seeded by --seed; the same on any number of
    /// threads); 0: no intervals. About 2 s per model for 5,000 scored
    /// configurations on 2 cores (release build).
    #[arg(long, value_name = "N", default_value_t = validate::bootstrap::Bootstrap::default().resamples)]
    pub bootstrap: usize,
    /// Measured data of the same kernel on another GPU: its fastest
    /// configuration, run here, is the transferred-best baseline (its
    /// measured time here over the measured best), reported beside each
    /// model's best ratio. Within the configurations scored (--sample,
    /// --part); where the other GPU's fastest is not among them, its next
    /// fastest that is.
    #[arg(long, value_name = "FILE")]
    pub transfer_from: Option<PathBuf>,
    /// Score the rankings by this expression of `time` (ms) and the
    /// integer parameters instead of the time alone, as Kernel Tuner's
    /// `objective` (replaces the experiment's `[objective]`): Spearman,
    /// Kendall, top-1 %, the best ratios and the transfer compare its
    /// values at the predicted and the measured times; MAPE and the median
    /// figures stay those of the times; the JSON and --csv give its value
    /// at every time. Lower is better unless --higher-is-better.
    /// docs/experiments.md, "Objectives".
    #[arg(long, value_name = "EXPR")]
    pub objective: Option<String>,
    /// The --objective is a throughput: higher values are better.
    #[arg(long, requires = "objective")]
    pub higher_is_better: bool,
    /// Print JSON (schema 1) with every configuration instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write one SVG scatter (predicted against measured, log-log) per model into DIR.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Also write the result as a Markdown section (for docs/validation).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write every sampled configuration as CSV, a row per
    /// configuration and data file: the data file, GPU, row index,
    /// parameters, part of the split, measured time, status and error, and
    /// per model its predicted time in ms and interval; under an
    /// objective, its value at each time (docs/json.md, "validate --csv
    /// FILE").
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "J")]
    pub jobs: Option<usize>,
    /// Emulate K CTAs per configuration (spread over the grid; while they disagree, up to 16 K that do work, stratified by a probe of the grid; with --work-budget, no more working CTAs than N warp instructions pay for, four at least) and extrapolate to the grid.
    #[arg(long, value_name = "K", default_value_t = validation::DEFAULT_SAMPLE_CTAS)]
    pub sample_ctas: u64,
    /// Bound the emulated work of a configuration whose CTA sample grows:
    /// its working CTAs may cost at most N warp instructions in all (at
    /// least 4 of them run). Much faster on launches of long CTAs
    /// (dedispersion: 30 to 60 CPU s per configuration without it, about 3
    /// with 2,000,000; docs/speed.md, "Huge grids") at the cost of a larger
    /// sampling error, which the results report. Default: no bound.
    #[arg(long, value_name = "N")]
    pub work_budget: Option<u64>,
    /// Run only this model (repeatable); default: every model.
    #[arg(long = "model", value_name = "NAME")]
    pub models: Vec<String>,
    /// PTX cache folder (default: $PTXPERF_CACHE_DIR, else
    /// $XDG_CACHE_HOME/ptxperf, else ~/.cache/ptxperf).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Compile every configuration, reading and writing no cache.
    #[arg(long)]
    pub no_cache: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also print where the time went: per stage (NVRTC, PTX parsing, ptxas,
    /// emulation, characterization, cache model, models, other) its wall
    /// seconds over every configuration, share and mean per configuration
    /// (after the table; on stderr with --json, whose `timings` hold the same).
    #[arg(long)]
    pub timings: bool,
    /// Save each configuration's profile (and PTX) to DIR/<gpu>/ for
    /// --profiles (default: $PTXPERF_VALIDATE_DUMP, if set); one that failed
    /// leaves <defines>.failed with the reason, which rescoring reports.
    #[arg(long, value_name = "DIR", conflicts_with = "profiles")]
    pub save_profiles: Option<PathBuf>,
    /// Rescore saved profiles instead of compiling and emulating: read each
    /// configuration's profile from DIR/<gpu>/, where --save-profiles DIR
    /// put it (same GPU, same sample); for scoring a model change in seconds.
    /// The counts are those of the build that saved them (a saved profile's
    /// first line names its profile rules).
    #[arg(long, value_name = "DIR")]
    pub profiles: Option<PathBuf>,
    /// Also print each model's errors by parameter value: for every tunable
    /// parameter, the median predicted/measured and MAPE of the scored
    /// configurations holding each value, the parameter the bias moves with
    /// most first (a model whose median moves with a parameter misses an
    /// effect of it). `--json` always holds them (`by_parameter`). With
    /// `--svg DIR`, also one bar chart per model of the parameter that
    /// explains most (`<kernel>-<gpu>-<model>-by-<parameter>.svg`).
    #[arg(long)]
    pub by_param: bool,
    /// Also group each model's errors by the value of EXPR, an integer
    /// expression over the tunable parameters, listed and ranked with the
    /// parameters of --by-param (which it implies) and in the JSON's
    /// `by_parameter` under its text: `--by 'block_size_x*tile_size_x'`
    /// groups the dedispersion by the samples a block covers. The
    /// experiment files' arithmetic: + - * / % (integer, truncating),
    /// parentheses, min(...) and max(...). Repeatable; a name that is not a
    /// parameter of the data is an error before anything runs.
    #[arg(long = "by", value_name = "EXPR")]
    pub by: Vec<String>,
    /// Also group each model's errors by the limit its own prediction
    /// names (`compute issue`, `shared memory`, `L1 bandwidth`, `latency`,
    /// ...; the `bottleneck` column of --csv), listed and ranked with the
    /// parameters of --by-param (which it implies) under `bottleneck`: a
    /// limit whose configurations sit at a median well below the others'
    /// is a term that is optimistic. Models that name more than 12 limits
    /// (`learned`) are left out
    #[arg(long)]
    pub by_bottleneck: bool,
    /// Also group each model's errors by the quintile of a term of its own
    /// breakdown (the keys `predict --json` lists under `breakdown`), or of
    /// the ratio of two: `--by-term l2_seconds/sm_seconds` groups the
    /// timing model's errors by the share of its SM time the L2 traffic
    /// would take. `MODEL:TERM` takes the term from MODEL's predictions for
    /// every model's errors (`timing:l2_seconds/sm_seconds` with
    /// `--model learned --model timing`: does the learned model still miss
    /// what the timing model's L2 share shows?). Listed and ranked with the
    /// parameters of --by-param (which it implies) under `term:TERM`; a
    /// model whose breakdown lacks the term is left out, and a term with at
    /// most 5 values is grouped by value. With --csv, each key it reads is also a column per model
    /// (`timing_l2_seconds`). Repeatable
    #[arg(long = "by-term", value_name = "TERM")]
    pub by_term: Vec<String>,
    /// Go on with a run that was interrupted: with --save-profiles DIR (or
    /// $PTXPERF_VALIDATE_DUMP), a configuration whose profile DIR/<gpu>/
    /// already holds for every GPU of the run (or the reason it failed) is
    /// rescored from it, not compiled or emulated again. Only a profile
    /// saved whole under this build's profile rules (its first line names
    /// them) is read again; one cut short, or counted by a build with other
    /// rules, is emulated again. The run must have the same --sample-ctas
    /// and --work-budget; empty DIR to start afresh.
    #[arg(long, conflicts_with = "profiles")]
    pub resume: bool,
    /// Compile each configuration once, for ARCH (sm_50, sm_75, ...), and
    /// build that PTX for every GPU of the run with ptxas, as the driver
    /// builds a binary that ships only PTX. Where NVRTC's PTX is the same
    /// for every architecture but its `.target` (Kernel Tuner's
    /// convolution: docs/validation/schoonhoven.md), this gives the same
    /// figures for one NVRTC compile instead of one per architecture.
    /// ARCH (sm_NN, not an architecture-specific sm_90a) must be no newer
    /// than any GPU's. Default: compile for each GPU's own architecture.
    #[arg(long, value_name = "ARCH", conflicts_with = "profiles")]
    pub ptx_arch: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (evs, shared) = evaluate(&args)?;
    let mut sections = Vec::with_capacity(evs.len());
    for ev in &evs {
        let plots = match &args.svg {
            Some(dir) => write_plots(dir, &ev.plot_stem, &ev.summary, &ev.scores)?,
            None => Vec::new(),
        };
        if let (Some(dir), true) = (&args.svg, by_param_wanted(&args)) {
            write_by_param_plots(dir, &ev.plot_stem, &ev.summary, &ev.by_param)?;
        }
        if let Some(md) = &args.markdown {
            let rel: Vec<(String, String)> = plots
                .iter()
                .map(|(model, path)| (model.clone(), relative_to(path, md)))
                .collect();
            sections.push(render::markdown(
                &ev.summary,
                &ev.scores,
                &ev.intervals,
                &rel,
            ));
        }
    }
    if let Some(md) = &args.markdown {
        write_file(md, sections.join("\n"))?;
    }
    if let (Some(path), Some(first)) = (&args.csv, evs.first()) {
        let mut csv = report::validate_csv::Csv::new(
            &first.dataset,
            &first.scores,
            &first.outcomes,
            first.summary.objective.as_ref(),
        );
        for ev in &evs {
            csv.push(&ev.summary, &ev.dataset, &ev.outcomes);
        }
        write_file(path, csv.finish())?;
    }
    let one = evs.len() == 1;
    let mut out = if args.json {
        let values: Vec<serde_json::Value> = evs
            .iter()
            .map(|ev| {
                render::json(
                    &ev.summary,
                    &ev.scores,
                    &ev.intervals,
                    &ev.outcomes,
                    &ev.timings,
                    &ev.dataset,
                    &ev.by_param,
                )
            })
            .collect();
        let value = match values.as_slice() {
            [single] => single.clone(),
            _ => render::json_multi(&command_line(), values, &shared),
        };
        for note in evs
            .iter()
            .flat_map(|ev| ungrouped_terms(&args, &ev.by_param))
        {
            eprintln!("{note}");
        }
        let mut text = serde_json::to_string_pretty(&value)
            .map_err(|e| CliError::diagnostic(format!("error: cannot write JSON: {e}")))?;
        text.push('\n');
        text
    } else {
        let mut texts: Vec<String> = evs
            .iter()
            .map(|ev| {
                let width = crate::table::width();
                let mut text = render::text(&ev.summary, &ev.scores, &ev.intervals, width);
                if by_param_wanted(&args) {
                    text.push('\n');
                    text.push_str(&report::by_param::text(&ev.by_param, width));
                }
                for note in ungrouped_terms(&args, &ev.by_param) {
                    text.push_str(&note);
                    text.push('\n');
                }
                text
            })
            .collect();
        if !one {
            texts.push(render::shared_line(&shared, evs.len()) + "\n");
        }
        texts.join("\n")
    };
    if args.timings {
        let totals = match evs.as_slice() {
            [single] => single.summary.timings,
            _ => shared.timings,
        };
        let table = super::timings::table(&totals);
        if args.json {
            eprint!("{table}");
        } else {
            out.push('\n');
            out.push_str(&table);
        }
    }
    emit(&out)?;
    nothing_scored(&evs)
}

/// Exit status 1, after the report, when no model scored a configuration
/// of any data file: the report says why (its notes), and a script must not
/// take empty tables for figures. Where some data files scored, the run
/// succeeds and each empty table says why.
fn nothing_scored(evs: &[Evaluation]) -> Result<(), CliError> {
    let empty: Vec<String> = evs
        .iter()
        .filter(|ev| ev.scores.iter().all(|s| s.scored == 0))
        .map(|ev| format!("{} on {}", ev.summary.data, ev.summary.gpu))
        .collect();
    if empty.len() < evs.len() {
        return Ok(());
    }
    Err(CliError::user(format!(
        "no model scored any configuration of {}: none was both measured and predicted \
         (the notes above say why)",
        empty.join(", ")
    )))
}

/// Everything one run computes for one GPU, before it is printed or written.
struct Evaluation {
    summary: render::Summary,
    scores: Vec<validate::score::ModelScore>,
    /// One per score: its bootstrap intervals (empty without --bootstrap).
    intervals: Vec<validate::bootstrap::Intervals>,
    outcomes: Vec<validate::score::Outcome>,
    /// One per outcome: where its time went, if it ran.
    timings: Vec<Option<study::Timings>>,
    plot_stem: String,
    /// The data file: the parameters of each outcome.
    dataset: Dataset,
    /// Each model's errors by parameter value, in the order of `scores`.
    by_param: ByParameter,
}

/// One --data and its --gpu, loaded and checked before anything runs.
struct Loaded<'a> {
    data: &'a Path,
    dataset: Dataset,
    gpu: arch::Gpu,
    transfer_from: Option<(&'a PathBuf, Dataset)>,
    part: Option<(validate::split::Part, PathBuf, validate::split::Role, usize)>,
    rows: Option<Vec<usize>>,
    /// The split file found (--split, or the default places) and what it says.
    split: Option<(PathBuf, validate::split::Split)>,
    /// Each --by grouping with its value for every row of the data.
    by: Vec<(Grouping, Vec<validate::dataset::ParamValue>)>,
}

/// The --by-term groupings, parsed; an error names the one that is not a
/// breakdown key before anything runs.
fn term_groupings(args: &Args) -> Result<Vec<TermGrouping>, CliError> {
    args.by_term
        .iter()
        .map(|text| TermGrouping::parse(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::usage)
}

/// A note for each --by-term grouping that no model's errors were grouped
/// by: a key no model's breakdown holds (a misspelling) reads otherwise
/// as if the term explained nothing.
fn ungrouped_terms(args: &Args, by_param: &ByParameter) -> Vec<String> {
    term_groupings(args)
        .unwrap_or_default()
        .iter()
        .filter(|g| {
            let name = g.name();
            !by_param
                .models
                .iter()
                .any(|(_, errors)| errors.iter().any(|e| e.param == name))
        })
        .map(|g| {
            format!(
                "note: --by-term {}: no model's predictions hold it with two values or more \
                 (`predict --json` lists each model's breakdown keys)",
                g.text()
            )
        })
        .collect()
}

/// The breakdown keys the groupings read, each once, in order.
fn term_keys(groupings: &[TermGrouping]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for k in groupings.iter().flat_map(TermGrouping::keys) {
        if !keys.iter().any(|x| x == k) {
            keys.push(k.to_string());
        }
    }
    keys
}

/// Whether the errors by parameter are printed: --by-param, or a --by
/// grouping, which is read with them.
fn by_param_wanted(args: &Args) -> bool {
    args.by_param || args.by_bottleneck || !args.by.is_empty() || !args.by_term.is_empty()
}

/// Loads every pair, samples, runs every configuration once per
/// architecture and scores the models per GPU.
fn evaluate(args: &Args) -> Result<(Vec<Evaluation>, validation::Shared), CliError> {
    if args.sample_ctas == 0 {
        return Err(CliError::usage("--sample-ctas must be at least 1"));
    }
    if args.jobs == Some(0) {
        return Err(CliError::usage("--jobs must be at least 1"));
    }
    if args.sample == Some(0) {
        return Err(CliError::usage("--sample must be at least 1"));
    }
    let save_profiles = args.save_profiles.clone().or_else(|| {
        std::env::var_os("PTXPERF_VALIDATE_DUMP")
            .filter(|d| !d.is_empty() && args.profiles.is_none())
            .map(PathBuf::from)
    });
    if args.resume && save_profiles.is_none() {
        return Err(CliError::usage(
            "--resume goes on from the profiles of --save-profiles DIR (or $PTXPERF_VALIDATE_DUMP): give the DIR the interrupted run saved to",
        ));
    }
    if args.data.len() != args.gpu.len() {
        return Err(CliError::user(format!(
            "{} --data and {} --gpu: give one --gpu per --data, in the same order (--data A --gpu a --data B --gpu b)",
            args.data.len(),
            args.gpu.len()
        )));
    }
    if args.clock_mhz.is_some() && args.gpu.len() > 1 {
        return Err(CliError::user(
            "--clock-mhz holds one GPU's clock: give it with one --data and --gpu",
        ));
    }
    let models = if args.models.is_empty() {
        // `learned` reads a trained model file: scored only when named.
        models::registry::MODEL_NAMES
            .iter()
            .filter(|s| **s != models::learned::NAME)
            .map(|s| s.to_string())
            .collect()
    } else {
        args.models.clone()
    };
    models::registry::check_names(&models).map_err(|e| CliError::usage_of(&e))?;

    let groupings = args
        .by
        .iter()
        .map(|text| Grouping::parse(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::usage)?;
    let term_groupings = term_groupings(args)?;
    if let Some((g, m)) = term_groupings.iter().find_map(|g| {
        g.model()
            .filter(|m| !models.iter().any(|x| x == m))
            .map(|m| (g, m))
    }) {
        return Err(CliError::usage(format!(
            "--by-term '{}': the model `{m}` is not among those run ({}): add --model {m}",
            g.text(),
            models.join(", ")
        )));
    }
    let experiment = Experiment::load(&args.experiment).map_err(|e| CliError::of(&e))?;
    let objective = super::objective::resolve(
        args.objective.as_deref(),
        args.higher_is_better,
        None,
        experiment.objective.as_ref(),
        &args.experiment,
    )?;
    let mut loaded = Vec::with_capacity(args.data.len());
    for (data, gpu_id) in args.data.iter().zip(&args.gpu) {
        let mut l = load_pair(args, data, gpu_id, &experiment.kernel)?;
        for g in &groupings {
            let values = g
                .values(&l.dataset)
                .map_err(|e| CliError::user(format!("{}: {e}", data.display())))?;
            l.by.push((g.clone(), values));
        }
        loaded.push(l);
    }
    let cache_dir = match (&args.cache, args.no_cache) {
        (_, true) => None,
        (Some(d), false) => Some(d.clone()),
        (None, false) => Some(ptx_cache::default_dir().map_err(|e| CliError::of(&e))?),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = validation::Options {
        models,
        rows: None,
        sample: args.sample,
        seed: args.seed,
        sample_ctas: args.sample_ctas,
        work_budget: args.work_budget,
        jobs,
        cache_dir,
        save_profiles,
        profiles: args.profiles.clone(),
        resume: args.resume,
        ptx_arch: args.ptx_arch.clone(),
        terms: term_keys(&term_groupings),
        objective: objective.clone(),
    };
    let pairs: Vec<validation::Pair<'_>> = loaded
        .iter()
        .map(|l| validation::Pair {
            dataset: &l.dataset,
            gpu: &l.gpu,
            rows: l.rows.clone(),
        })
        .collect();
    let bar = progress_bar(0, args.quiet);
    let studies = validation::run_many(&experiment, &pairs, &opts, &|p| match p {
        Progress::Start(n) => bar.set_length(n as u64),
        Progress::Done => bar.inc(1),
    });
    bar.finish_and_clear();
    let studies = studies?;
    let evaluations = loaded
        .into_iter()
        .zip(studies.studies)
        .map(|(l, study)| finish(args, l, study, jobs, objective.as_ref()))
        .collect();
    Ok((evaluations, studies.shared))
}

/// One --data and its --gpu: the data file, the transfer baseline's data,
/// the GPU and the rows of --part. A file that does not name its kernel (a
/// T4 results file) measured the experiment's `kernel`.
fn load_pair<'a>(
    args: &'a Args,
    data: &'a Path,
    gpu_id: &'a str,
    kernel: &str,
) -> Result<Loaded<'a>, CliError> {
    let named = |mut d: Dataset| {
        if d.kernel.is_empty() {
            d.kernel = kernel.to_string();
        }
        d
    };
    let dataset = named(import_dataset(data).map_err(|e| CliError::of(&e))?);
    let split = load_split(args)?;
    refuse_excluded(args, data, split.as_ref())?;
    let transfer_from = match &args.transfer_from {
        Some(path) => {
            let other = named(import_dataset(path).map_err(|e| CliError::of(&e))?);
            validate::transfer::compatible(&dataset, &other).map_err(|e| {
                CliError::user(format!(
                    "--transfer-from {}: {e}; it must be the same kernel's space, measured on another GPU",
                    path.display()
                ))
            })?;
            Some((path, other))
        }
        None => None,
    };
    let gpu = super::named_gpu(gpu_id, args.clock_mhz)?;
    let (part, rows) = match &args.part {
        None => (None, None),
        Some(name) => {
            let Some((path, split)) = &split else {
                return Err(split_file(args).err().unwrap_or_else(|| {
                    CliError::usage("--part needs a split file; give --split FILE")
                }));
            };
            let path = path.clone();
            let part = validate::split::Part::parse(name)
                .ok_or_else(|| CliError::usage(format!("--part {name}: development or check")))?;
            let rows = split.rows_in(data, &dataset, part);
            let role = split.role_of(data);
            if rows.is_empty() {
                return Err(CliError::user(format!(
                    "{}: no configuration is in the {part} part of {} (this data file's role there: {}); nothing to score",
                    data.display(),
                    path.display(),
                    role.name()
                )));
            }
            (Some((part, path, role, rows.len())), Some(rows))
        }
    };
    Ok(Loaded {
        data,
        dataset,
        gpu,
        transfer_from,
        part,
        rows,
        split,
        by: Vec::new(),
    })
}

/// The split file, when --split names one or one is found where --part
/// looks (`None` without one, unless --part needs it: then the error).
fn load_split(args: &Args) -> Result<Option<(PathBuf, validate::split::Split)>, CliError> {
    let path = match split_file(args) {
        Ok(p) => p,
        Err(_) if args.part.is_none() => return Ok(None),
        Err(e) => return Err(e),
    };
    let split = validate::split::Split::load(&path).map_err(|e| CliError::of(&e))?;
    Ok(Some((path, split)))
}

/// One GPU's study as the report shows it: bootstrap intervals, the
/// transferred-best baseline and the header.
fn finish(
    args: &Args,
    l: Loaded<'_>,
    study: validation::Study,
    jobs: usize,
    objective: Option<&tune::Objective>,
) -> Evaluation {
    // Parsed before the run (`evaluate`): none fails here.
    let term_groupings = term_groupings(args).unwrap_or_default();
    let (data, dataset, gpu) = (l.data, &l.dataset, &l.gpu);
    let part = l.part;
    let split_parts = l.split.as_ref().map(|(path, split)| {
        let mut parts = render::SplitParts {
            split: path.display().to_string(),
            ..render::SplitParts::default()
        };
        let measured = study
            .indices
            .iter()
            .filter_map(|&i| Some((i, dataset.rows.get(i)?)))
            .filter(|(_, r)| r.measured.mean_ms().is_some());
        for (i, row) in measured {
            let part = match split.part_of(data, dataset, row) {
                Some(validate::split::Part::Development) => {
                    parts.development += 1;
                    "development"
                }
                Some(validate::split::Part::Check) => {
                    parts.check += 1;
                    "check"
                }
                None => {
                    parts.excluded += 1;
                    "excluded"
                }
            };
            parts.of_row.insert(i, part);
        }
        parts
    });
    let total = dataset.rows.len();
    let bootstrap = (args.bootstrap > 0).then(|| validate::bootstrap::Bootstrap {
        resamples: args.bootstrap,
        seed: args.seed,
        ..validate::bootstrap::Bootstrap::default()
    });
    let intervals = match &bootstrap {
        Some(how) => study
            .scores
            .iter()
            .map(|s| validate::score::intervals(s, how))
            .collect(),
        None => Vec::new(),
    };
    let restricted = args.sample.is_some() || part.is_some();
    let transfer = l.transfer_from.map(|(path, other)| render::TransferOf {
        file: path.display().to_string(),
        from_gpu: other.gpu.clone(),
        restricted,
        objective: objective.map(|o| o.name.clone()),
        result: validate::transfer::transferred_best_by(
            dataset,
            &study.indices,
            &other,
            objective
                .map(|o| {
                    move |d: &validate::Dataset, row: usize, ms: f64| {
                        validation::objective_cost(o, d, row, ms)
                    }
                })
                .as_ref()
                .map(|c| c as validate::transfer::DatasetCost<'_>),
        )
        .map(|t| {
            let label = dataset.rows.get(t.row).map_or_else(String::new, |r| {
                dataset
                    .named_values(r)
                    .iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            });
            (t, label)
        }),
    });
    let summary = render::Summary {
        command: command_line(),
        experiment: args.experiment.display().to_string(),
        data: data.display().to_string(),
        data_gpu: dataset.gpu.clone(),
        gpu: gpu.id.clone(),
        kernel: dataset.kernel.clone(),
        configurations: total,
        part: part.map(|(part, path, role, rows)| render::PartOf {
            part: part.name(),
            split: path.display().to_string(),
            role: role.name(),
            configurations: rows,
        }),
        split_parts,
        sampled: study.indices.len(),
        sample: args.sample,
        seed: args.seed,
        sample_ctas: args.sample_ctas,
        ptx_arch: args.ptx_arch.clone(),
        profiles: args.profiles.as_ref().map(|d| d.display().to_string()),
        profile_rules: study.profile_rules.clone(),
        clock_mhz: args.clock_mhz.map(|held| (held, gpu.rated_clock_mhz())),
        jobs,
        elapsed_s: study.elapsed.as_secs_f64(),
        ptx_cache_hits: study.ptx_cache_hits,
        ptx_compiled: study.ptx_compiled,
        resumed: study.resumed,
        measured: validate::Spread::of(
            study
                .indices
                .iter()
                .filter_map(|&i| dataset.rows.get(i))
                .map(|r| &r.measured),
        ),
        compilers: dataset.compiler.clone().and_then(|data| {
            let (major, minor) = study.nvrtc_version?;
            Some((data, format!("{major}.{minor}")))
        }),
        timings: study.timing_totals,
        bootstrap,
        transfer,
        objective: objective.cloned(),
    };
    // Errors by parameter are for developing a model: where the scored
    // configurations hold both parts of the split, the development part's
    // only (the check part is scored to report, docs/validation/split.md).
    let development_only = summary
        .split_parts
        .as_ref()
        .filter(|p| p.development > 0 && p.check > 0);
    let by_param_outcomes: Vec<validate::score::Outcome> = study
        .outcomes
        .iter()
        .filter(|o| development_only.is_none_or(|p| p.of_row.get(&o.index) == Some(&"development")))
        .cloned()
        .collect();
    let by_param = ByParameter {
        part: if development_only.is_some() {
            Part::Development
        } else {
            Part::All
        },
        models: study
            .scores
            .iter()
            .map(|s| {
                let mut errors = by_parameter(dataset, &by_param_outcomes, &s.model);
                errors.extend(l.by.iter().filter_map(|(g, values)| {
                    by_expression(dataset, &by_param_outcomes, &s.model, g, values)
                }));
                if args.by_bottleneck {
                    errors.extend(by_bottleneck(dataset, &by_param_outcomes, &s.model));
                }
                errors.extend(
                    term_groupings
                        .iter()
                        .filter_map(|g| by_term(dataset, &by_param_outcomes, &s.model, g)),
                );
                // Stable: the parameters, in their order, before the
                // groupings of equal share.
                errors.sort_by(|a, b| b.explained.total_cmp(&a.explained));
                (s.model.clone(), errors)
            })
            .collect(),
    };
    Evaluation {
        summary,
        scores: study.scores,
        intervals,
        outcomes: study.outcomes,
        timings: study.timings,
        plot_stem: plot_stem(dataset, &gpu.id),
        dataset: l.dataset,
        by_param,
    }
}

/// The split file of --part: --split, else data/split.toml of the current
/// directory, else of the folder above the experiment's.
/// A data file that the split file excludes is refused with the reason,
/// unless --allow-excluded.
fn refuse_excluded(
    args: &Args,
    data: &Path,
    split: Option<&(PathBuf, validate::split::Split)>,
) -> Result<(), CliError> {
    let Some((path, split)) = split.filter(|_| !args.allow_excluded) else {
        return Ok(());
    };
    match split.exclusion(data) {
        Some(why) => Err(CliError::user(format!(
            "{}: excluded from the ground truth by {}: {why}\n  \
             (--allow-excluded scores it all the same)",
            data.display(),
            path.display()
        ))),
        None => Ok(()),
    }
}

fn split_file(args: &Args) -> Result<PathBuf, CliError> {
    if let Some(f) = &args.split {
        return Ok(f.clone());
    }
    let here = PathBuf::from("data/split.toml");
    if here.is_file() {
        return Ok(here);
    }
    let beside = args
        .experiment
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("data/split.toml"));
    match beside {
        Some(f) if f.is_file() => Ok(f),
        _ => Err(CliError::usage(
            "--part needs a split file: none at data/split.toml here or beside the experiment's folder; give --split FILE",
        )),
    }
}

/// A file-name-safe stem for the plots of one dataset.
fn plot_stem(dataset: &Dataset, gpu: &str) -> String {
    file_safe(&format!("{}-{gpu}", dataset.kernel))
}

/// `raw` with every character but ASCII letters, digits and `-` made `_`.
fn file_safe(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write_plots(
    dir: &Path,
    stem: &str,
    summary: &render::Summary,
    scores: &[validate::score::ModelScore],
) -> Result<Vec<(String, PathBuf)>, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::diagnostic(format!("{}: error: cannot create: {e}", dir.display()))
    })?;
    let mut written = Vec::new();
    for s in scores {
        let title = format!(
            "{} on {}: {} ({} configurations)",
            summary.kernel, summary.data_gpu, s.model, s.scored
        );
        let svg = plot::render_svg(&plot::Scatter {
            title: &title,
            points: &s.points,
        })
        .map_err(CliError::user)?;
        let path = dir.join(format!("{stem}-{}.svg", s.model));
        write_file(&path, &svg)?;
        written.push((s.model.clone(), path));
    }
    Ok(written)
}

/// With `--svg DIR --by-param`: for each model, the bars of the parameter
/// that explains most of its error, `<stem>-<model>-by-<parameter>.svg`.
fn write_by_param_plots(
    dir: &Path,
    stem: &str,
    summary: &render::Summary,
    by_param: &ByParameter,
) -> Result<(), CliError> {
    for (model, params) in &by_param.models {
        let Some(top) = params.first() else {
            continue;
        };
        let title = format!(
            "{} on {}: {}, by {} ({:.0} % of the variance of ln(pred/meas))",
            summary.kernel,
            summary.data_gpu,
            model,
            top.param,
            100.0 * top.explained
        );
        let svg = by_param_plot::render_svg(&title, top).map_err(CliError::user)?;
        let name = file_safe(&format!("{stem}-{model}-by-{}", top.param));
        write_file(&dir.join(format!("{name}.svg")), &svg)?;
    }
    Ok(())
}

/// `path` as seen from the folder of `file` when it lies under it, else as given.
fn relative_to(path: &Path, file: &Path) -> String {
    let base = file.parent().unwrap_or(Path::new(""));
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (p, b) = (canon(path), canon(base));
    match p.strip_prefix(&b) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
