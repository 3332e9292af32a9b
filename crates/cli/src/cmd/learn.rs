//! `ptxperf learn`: train the `learned` model on the development part of the
//! split from saved profiles and measured data (`study::learning`), or
//! cross-validate it by GPU and by kernel.

use std::path::PathBuf;

use learn::{Params, Target};
use report::learn as learn_report;
use study::learning::{self, HoldOut, Sample, TrainOptions, Weighting};
use validate::split::{Part, Split};

use crate::error::CliError;
use crate::output::{emit, write_file};

/// Train the `learned` model (gradient-boosted trees over profile, GPU and
/// model features) on the development part of the split, or cross-validate it.
///
/// SOURCES.toml lists `[[source]]` tables (`gpu`, `experiment`, `data`, paths
/// relative to the current directory); every configuration of a data file
/// with a profile saved under `--profiles DIR/<gpu>/` (by `ptxperf validate
/// --save-profiles DIR`; several `--profiles` are searched in order) and a
/// measured time is a sample. Training reads the
/// development part only and writes the same bytes on every run.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf learn data/learned/sources.toml --profiles C --profiles D --profiles P --profiles G --profiles N
                                        train on the development part, write data/learned/model.json
                                        (C, D, P, G, N: docs/validation/profiles-kt-convolution.tar.xz,
                                        profiles-dedispersion-unbudgeted.tar.xz, profiles.tar.xz,
                                        profiles-gemm.tar.xz and profiles-pnpoly.tar.xz unpacked with
                                        scripts/profiles-archive.py)
  ptxperf learn data/learned/sources.toml --profiles PROFILES --target log-time --out m.json
                                        predict ln(time) instead of a correction on the timing model
  ptxperf learn data/learned/sources.toml --profiles PROFILES --cross-validate --part check
                                        leave one GPU out, then one kernel out, scored on the check part
  ptxperf learn data/learned/sources.toml --profiles PROFILES --cross-validate --score-profiles S
                                        the same, scoring the held-out GPU's configurations of S too
                                        (S: docs/validation/profiles-schoonhoven.tar.xz unpacked; never trained on)
  ptxperf learn data/learned/sources.toml --profiles PROFILES --export-samples dev.csv
                                        the development samples as CSV, for another learner")]
pub struct Args {
    /// The sources file: which data file goes with which GPU and experiment.
    #[arg(value_name = "SOURCES.toml")]
    pub sources: PathBuf,
    /// Saved profiles (`DIR/<gpu>/<configuration>.toml`). Repeatable: a
    /// configuration's profile is read from the first DIR that has it (the
    /// report's archive and the training archive of the other kernels,
    /// docs/validation/learned.md).
    #[arg(long, value_name = "DIR", required = true)]
    pub profiles: Vec<PathBuf>,
    /// The split file (default: data/split.toml).
    #[arg(long, value_name = "FILE", default_value = "data/split.toml")]
    pub split: PathBuf,
    /// What the trees predict: `correction` (ln of measured over the timing
    /// model) or `log-time` (ln of the time).
    #[arg(long, value_name = "T", default_value = "correction")]
    pub target: String,
    /// Where the model file goes.
    #[arg(long, value_name = "FILE", default_value = models::learned::DEFAULT_MODEL)]
    pub out: PathBuf,
    /// Boosting rounds per member (default: 150).
    #[arg(long, value_name = "N")]
    pub trees: Option<usize>,
    /// Largest depth of a tree (default: 4; chosen by cross-validation on
    /// the development part, docs/validation/learned.md).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Ensemble members (their spread is the interval).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub members: usize,
    /// How the training configurations weigh: `data-file` (each measured
    /// data file the same in total, so a file with thousands of saved
    /// profiles does not outweigh one with twenty; chosen by
    /// cross-validation on the development part, docs/validation/learned.md)
    /// or `row` (each configuration the same).
    #[arg(long, value_name = "W", default_value = "data-file")]
    pub weighting: String,
    /// Give every row the whole correction, however far it is from the
    /// training configurations (by default a row whose kernel features lie
    /// as far from every training configuration as the training kernels lie
    /// from each other gets the timing model's time: docs/validation/learned.md,
    /// "Unknown kernels").
    #[arg(long)]
    pub no_domain: bool,
    /// Cross-validate (hold out each GPU, then each kernel) instead of
    /// training; prints Markdown tables and writes nothing.
    #[arg(long)]
    pub cross_validate: bool,
    /// With --cross-validate: the part of the held-out GPU or kernel that is
    /// scored (`check` or `development`).
    #[arg(
        long,
        value_name = "PART",
        default_value = "check",
        requires = "cross_validate"
    )]
    pub part: String,
    /// With --cross-validate: saved profiles that are scored and never
    /// trained on. Repeatable. A held-out GPU's or kernel's configuration
    /// that no --profiles DIR has is read from the first of these that
    /// has it, so a whole space can be scored where only a sample trains
    /// (the Schoonhoven archive: docs/validation/learned.md, "Whole spaces
    /// scored").
    #[arg(long, value_name = "DIR", requires = "cross_validate")]
    pub score_profiles: Vec<PathBuf>,
    /// Write the development part's samples (GPU, kernel, data file, row,
    /// configuration, training weight, measured and timing-model seconds,
    /// then every feature) to FILE as CSV instead of training: the rows an
    /// outside learner is compared on (tools/learner-comparison). The check
    /// part is never written.
    #[arg(long, value_name = "FILE.csv", conflicts_with = "cross_validate")]
    pub export_samples: Option<PathBuf>,
    /// No progress on stderr (shown only when stderr is a terminal: which
    /// data file is read, which fold trains; training takes minutes).
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let quiet = args.quiet;
    let text = super::report::with_progress(quiet, || work(&args))?;
    emit(&text)
}

/// What `learn` prints, once the work is done (the spinner cleared).
fn work(args: &Args) -> Result<String, CliError> {
    let target = Target::parse(&args.target).ok_or_else(|| {
        CliError::usage(format!("--target {}: correction or log-time", args.target))
    })?;
    let weighting = Weighting::parse(&args.weighting).ok_or_else(|| {
        CliError::usage(format!("--weighting {}: row or data-file", args.weighting))
    })?;
    let part = Part::parse(&args.part)
        .ok_or_else(|| CliError::usage(format!("--part {}: development or check", args.part)))?;
    let split = Split::load(&args.split).map_err(|e| CliError::of(&e))?;
    let catalog = arch::Catalog::bundled().map_err(|e| CliError::of(&e))?;
    let sources = learning::read_sources(&args.sources).map_err(|e| CliError::of(&e))?;
    let samples = learning::collect(&sources, &args.profiles, &split, &catalog)
        .map_err(|e| CliError::of(&e))?;
    let mut params = Params::default();
    if let Some(t) = args.trees {
        params.trees = t;
    }
    if let Some(d) = args.depth {
        params.depth = d;
    }
    let opts = TrainOptions {
        target,
        params,
        members: args.members,
        split: args.split.display().to_string(),
        weighting,
        domain: !args.no_domain,
    };
    if let Some(path) = &args.export_samples {
        let names = models::learned::feature_names();
        let csv = learning::export::development_csv(&samples, weighting, &names);
        let rows = csv.lines().count().saturating_sub(1);
        write_file(path, csv)?;
        return Ok(format!(
            "wrote {rows} development samples ({} features each, {} weighting) to {}\n",
            names.len(),
            weighting.name(),
            path.display()
        ));
    }
    if args.cross_validate {
        let scored_only = if args.score_profiles.is_empty() {
            Vec::new()
        } else {
            let known: std::collections::BTreeSet<(&str, usize)> =
                samples.iter().map(|s| (s.data.as_str(), s.row)).collect();
            learning::collect(&sources, &args.score_profiles, &split, &catalog)
                .map_err(|e| CliError::of(&e))?
                .into_iter()
                .filter(|s| !known.contains(&(s.data.as_str(), s.row)))
                .collect()
        };
        let mut text = learn_report::samples_line(&samples, target, part);
        if !scored_only.is_empty() {
            text.push_str(&learn_report::scored_only_line(&scored_only));
        }
        // The interval's scores, once for both hold-outs.
        let dev: Vec<Sample> = samples
            .iter()
            .filter(|s| s.part == Part::Development)
            .cloned()
            .collect();
        let oof = learning::calibration::out_of_folds(&dev, &opts).map_err(|e| CliError::of(&e))?;
        for hold in [HoldOut::Gpu, HoldOut::Kernel] {
            let folds = learning::cross_validate(&samples, &scored_only, hold, part, &opts, &oof)
                .map_err(|e| CliError::of(&e))?;
            text.push_str(&learn_report::folds(hold, &folds));
        }
        return Ok(text);
    }
    let dev: Vec<Sample> = samples
        .into_iter()
        .filter(|s| s.part == Part::Development)
        .collect();
    emu::progress::stage(&format!(
        "training {} members on {} development configurations",
        opts.members,
        dev.len()
    ));
    let mut file = learning::train(&dev, &opts).map_err(|e| CliError::of(&e))?;
    // The interval: each GPU's configurations predicted by a model trained
    // without it, and each kernel's by one trained without it (an unknown
    // kernel's margin; study::learning::calibration).
    let oof = learning::calibration::out_of_folds(&dev, &opts).map_err(|e| CliError::of(&e))?;
    file.interval = learning::calibration::calibrate(&oof, |_| true);
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::user(format!("{}: cannot create: {e}", dir.display())))?;
    }
    write_file(&args.out, file.to_json())?;
    Ok(learn_report::trained(&file, target, &args.out))
}
