//! Training and cross-validating the `learned` model (issue 30) from saved
//! profiles (`ptxperf validate --save-profiles DIR`) and measured data.
//!
//! A sources file lists which measured data file goes with which GPU and
//! experiment; every configuration of a data file that has a saved profile
//! under `DIR/<gpu>/` and a measured time becomes a [`Sample`] (its
//! features, measured and timing-model time, and its part of the split).
//! [`train`] refuses any sample of the check part: a model is only ever
//! trained on development data. [`cross_validate`] holds out one GPU or one
//! kernel at a time: it trains on the development part of the others and
//! scores the held-out one's configurations of the part asked for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use arch::Gpu;
use learn::{ModelFile, Params, Target, Training};
use serde::Deserialize;
use validate::split::{Part, Split};
use validate::stats;
use validate::{Experiment, import_dataset};

use crate::validation::engine::profile_file_stem;

pub mod calibration;
pub mod export;

/// Why samples could not be collected or a model trained.
#[derive(Debug, thiserror::Error)]
pub enum LearningError {
    #[error("{}: error: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: error: {message}", path.display())]
    Sources { path: PathBuf, message: String },
    #[error("{0}")]
    File(#[from] validate::FileError),
    #[error("{0}")]
    Gpu(#[from] arch::ArchError),
    #[error("{}: error: not a profile: {message}", path.display())]
    Profile { path: PathBuf, message: String },
    #[error("{}: error: {message}", path.display())]
    Predict { path: PathBuf, message: String },
    #[error("{0}")]
    Learn(#[from] learn::LearnError),
    /// Training was given a configuration of the check part.
    #[error(
        "refusing to train on the check part: {gpu} {data} row {row} is a check configuration of the split; only development data may train a model (docs/validation/split.md)"
    )]
    CheckPart {
        gpu: String,
        data: String,
        row: usize,
    },
    #[error("no training sample: no development configuration has a saved profile")]
    NoSamples,
}

/// One measured data file and what it was measured with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Catalog id of the GPU (the profiles' folder under the profiles dir).
    pub gpu: String,
    /// The experiment file that rebuilds each configuration's launch.
    pub experiment: PathBuf,
    /// The measured data file (a path `data/split.toml` knows it by).
    pub data: PathBuf,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcesFile {
    source: Vec<Source>,
}

/// Read a sources file (`[[source]]` tables with `gpu`, `experiment`, `data`;
/// paths relative to the current directory).
pub fn read_sources(path: &Path) -> Result<Vec<Source>, LearningError> {
    let text = std::fs::read_to_string(path).map_err(|source| LearningError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let file: SourcesFile = toml::from_str(&text).map_err(|e| LearningError::Sources {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(file.source)
}

/// One configuration on one GPU, ready to learn from or to score.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub gpu: String,
    pub kernel: String,
    /// The data file as the sources file names it.
    pub data: String,
    /// Its row in the data file.
    pub row: usize,
    /// The configuration (its saved profile's file stem): the same on every
    /// GPU whose data lists it.
    pub config: String,
    pub part: Part,
    /// [`models::learned::feature_names`] order.
    pub features: Vec<f64>,
    /// Measured mean time, seconds.
    pub measured: f64,
    /// The timing model's time, seconds.
    pub timing: f64,
}

impl Sample {
    /// The target value of this sample.
    pub fn target(&self, target: Target) -> f64 {
        match target {
            Target::Correction => (self.measured / self.timing).ln(),
            Target::LogTime => self.measured.ln(),
        }
    }
}

/// Every configuration of `sources` that has a profile under
/// `<dir>/<gpu>/` of one of `profiles` (the first that has it) and a
/// measured time, in sources then row order.
pub fn collect(
    sources: &[Source],
    profiles: &[PathBuf],
    split: &Split,
    catalog: &arch::Catalog,
) -> Result<Vec<Sample>, LearningError> {
    let mut out = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        emu::progress::stage(&format!(
            "reading profiles: data file {} of {} ({} on {})",
            i + 1,
            sources.len(),
            s.data.file_name().map_or_else(
                || s.data.display().to_string(),
                |n| n.to_string_lossy().into_owned()
            ),
            s.gpu
        ));
        let experiment = Experiment::load(&s.experiment)?;
        let dataset = import_dataset(&s.data)?;
        let gpu = catalog.get(&s.gpu)?.clone();
        let compiler = dataset
            .compiler
            .as_deref()
            .and_then(profile::CompilerVersion::parse);
        let dirs: Vec<PathBuf> = profiles.iter().map(|p| p.join(&gpu.id)).collect();
        for (row_index, row) in dataset.rows.iter().enumerate() {
            let Some(ms) = row.measured.mean_ms() else {
                continue;
            };
            // An excluded file's times are not what it says was measured.
            let Some(part) = split.part_of(&s.data, &dataset, row) else {
                continue;
            };
            let Ok(launch) = experiment.launch(&dataset.named_values(row)) else {
                continue;
            };
            let config = profile_file_stem(&launch);
            let file = format!("{config}.toml");
            let Some(path) = dirs.iter().map(|d| d.join(&file)).find(|p| p.is_file()) else {
                continue;
            };
            // The models' own stage would hide which data file this is.
            let (features, timing) =
                emu::progress::unreported(|| sample_features(&path, &gpu, compiler))?;
            out.push(Sample {
                gpu: gpu.id.clone(),
                kernel: dataset.kernel.clone(),
                data: s.data.display().to_string(),
                row: row_index,
                config,
                part,
                features,
                measured: ms / 1e3,
                timing,
            });
        }
    }
    Ok(out)
}

/// The features and timing time of the profile at `path` on `gpu`, as
/// `predict` sees it (registers capped, the pipeline's occupancy).
pub fn sample_features(
    path: &Path,
    gpu: &Gpu,
    compiler: Option<profile::CompilerVersion>,
) -> Result<(Vec<f64>, f64), LearningError> {
    let text = std::fs::read_to_string(path).map_err(|source| LearningError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut profile =
        profile::KernelProfile::from_toml(&text).map_err(|e| LearningError::Profile {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    if let Some(c) = compiler {
        profile.resources.compiler = Some(c);
    }
    let p = pipeline::predict_profile(&profile, gpu, &["timing".to_string()]).map_err(|e| {
        LearningError::Predict {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    let (x, t) = models::learned::features(&p.profile, gpu, &p.occupancy).map_err(|e| {
        LearningError::Predict {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    // The target divides by this: its last bits are dropped as the
    // features' are (models::learned::FEATURE_DIGITS).
    let timing = models::learned::significant(t.seconds, models::learned::TIMING_DIGITS);
    Ok((x, timing))
}

/// How the training rows are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// Every configuration the same.
    Row,
    /// Every measured data file the same in total: a file with 1,400
    /// profiled configurations counts as much as one with 20, so the kernel
    /// and GPU with the most profiles do not decide every split.
    DataFile,
}

impl Weighting {
    /// Name as the command line and the model file write it.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Row => "row",
            Weighting::DataFile => "data_file",
        }
    }

    /// Parse a command-line name (`row`, `data-file` or `data_file`).
    pub fn parse(s: &str) -> Option<Weighting> {
        match s {
            "row" => Some(Weighting::Row),
            "data-file" | "data_file" => Some(Weighting::DataFile),
            _ => None,
        }
    }

    /// The weight of each of `samples`, in order; their mean is 1.
    pub fn weights(self, samples: &[Sample]) -> Vec<f64> {
        match self {
            Weighting::Row => vec![1.0; samples.len()],
            Weighting::DataFile => {
                let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
                for s in samples {
                    *per_file.entry(s.data.as_str()).or_default() += 1;
                }
                let files = per_file.len() as f64;
                let n = samples.len() as f64;
                samples
                    .iter()
                    .map(|s| n / (files * per_file[s.data.as_str()] as f64))
                    .collect()
            }
        }
    }
}

/// How training runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    pub target: Target,
    pub params: Params,
    /// Ensemble members (their spread is the interval).
    pub members: usize,
    /// The split file, as recorded in the model file.
    pub split: String,
    pub weighting: Weighting,
    /// Shrink the correction of rows far from every training configuration
    /// ([`learn::Domain`]).
    pub domain: bool,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            target: Target::Correction,
            params: Params::default(),
            members: 5,
            split: "data/split.toml".to_string(),
            weighting: Weighting::DataFile,
            domain: true,
        }
    }
}

/// Train on `samples`, every one of which must be in the development part.
pub fn train(samples: &[Sample], opts: &TrainOptions) -> Result<ModelFile, LearningError> {
    if let Some(s) = samples.iter().find(|s| s.part != Part::Development) {
        return Err(LearningError::CheckPart {
            gpu: s.gpu.clone(),
            data: s.data.clone(),
            row: s.row,
        });
    }
    if samples.is_empty() {
        return Err(LearningError::NoSamples);
    }
    let x: Vec<Vec<f64>> = samples.iter().map(|s| s.features.clone()).collect();
    let y: Vec<f64> = samples.iter().map(|s| s.target(opts.target)).collect();
    let w = opts.weighting.weights(samples);
    let members = learn::train_weighted(&x, &y, &w, &opts.params, opts.members)?;
    let set = |f: fn(&Sample) -> &String| -> Vec<String> {
        samples
            .iter()
            .map(|s| f(s).clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let training = Training {
        part: Part::Development.name().to_string(),
        split: opts.split.clone(),
        samples: samples.len(),
        gpus: set(|s| &s.gpu),
        kernels: set(|s| &s.kernel),
        weighting: opts.weighting.name().to_string(),
    };
    let mut file = ModelFile::new(
        opts.target,
        models::learned::feature_names(),
        opts.params.clone(),
        training,
        members,
    );
    if opts.target == Target::Correction && opts.domain {
        let kernels: Vec<&str> = samples.iter().map(|s| s.kernel.as_str()).collect();
        let configs: Vec<&str> = samples.iter().map(|s| s.config.as_str()).collect();
        file.domain = learn::Domain::build(
            &x,
            &kernels,
            &configs,
            &file.features,
            &models::learned::kernel_feature_columns(),
        );
    }
    Ok(file)
}

/// Seconds the model file predicts for a sample: the members' mean, and
/// the upper end of its interval (what `tune --rank-by pessimistic` ranks
/// by).
pub fn predict_seconds(file: &ModelFile, s: &Sample) -> (f64, f64) {
    let (mean, _, high) = predict_interval(file, s);
    (mean, high)
}

/// Seconds the model file predicts for a sample: the members' mean, and
/// its interval's lower and upper end.
pub fn predict_interval(file: &ModelFile, s: &Sample) -> (f64, f64, f64) {
    predict_interval_at(file, s, file.familiarity(&s.features).0)
}

/// [`predict_interval`] at a given familiarity (a set's shared one).
pub fn predict_interval_at(file: &ModelFile, s: &Sample, familiarity: f64) -> (f64, f64, f64) {
    let p = file.predict_at(&s.features, familiarity);
    let seconds = |v: f64| match file.target {
        Target::Correction => s.timing * v.exp(),
        Target::LogTime => v.exp(),
    };
    (seconds(p.mean), seconds(p.low), seconds(p.high))
}

/// What a fold holds out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldOut {
    Gpu,
    Kernel,
}

impl HoldOut {
    fn key(self, s: &Sample) -> &str {
        match self {
            HoldOut::Gpu => &s.gpu,
            HoldOut::Kernel => &s.kernel,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HoldOut::Gpu => "gpu",
            HoldOut::Kernel => "kernel",
        }
    }

    /// What is held out, as a sentence says it ("GPU", "kernel").
    pub fn noun(self) -> &'static str {
        match self {
            HoldOut::Gpu => "GPU",
            HoldOut::Kernel => "kernel",
        }
    }
}

/// Accuracy of one model on one set of configurations.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Percent.
    pub mape: f64,
    /// `None` with fewer than 3 configurations.
    pub spearman: Option<f64>,
    /// Measured time of the predicted-best over the measured best.
    pub best_ratio: f64,
    /// Median predicted over measured.
    pub median_ratio: f64,
}

fn metrics(predicted: &[f64], measured: &[f64]) -> Option<Metrics> {
    Some(Metrics {
        mape: stats::mape(predicted, measured).ok()?,
        spearman: if predicted.len() >= 3 {
            stats::spearman(predicted, measured).ok()
        } else {
            None
        },
        best_ratio: stats::best_config_ratio(predicted, measured).ok()?,
        median_ratio: stats::median_ratio(predicted, measured).ok()?,
    })
}

/// One held-out dataset (GPU and kernel) of one fold.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldScore {
    /// The GPU or kernel held out.
    pub held_out: String,
    pub gpu: String,
    pub kernel: String,
    /// Training samples (development part of the other GPUs or kernels).
    pub trained_on: usize,
    /// Scored configurations.
    pub scored: usize,
    pub learned: Metrics,
    pub timing: Metrics,
    /// Best ratio of the configuration whose interval's upper end is
    /// lowest: `tune --rank-by pessimistic`'s pick.
    pub learned_pessimistic_best: f64,
    /// Share of the scored configurations whose measured time lies within
    /// `learned`'s interval.
    pub interval_coverage: f64,
    /// Median over the scored configurations of the interval's upper end
    /// over its lower end (1.5: the slowest plausible time is 1.5x the
    /// fastest).
    pub interval_width: f64,
    /// The transferred-best baseline, one ratio per other GPU with samples
    /// of this kernel ([`transferred_best`]), in GPU order.
    pub transferred: Vec<(String, f64)>,
    /// Mean over the scored configurations of the share of the correction
    /// kept ([`learn::Domain`]; 1: every one as close to the training
    /// configurations as they are to each other, 0: none).
    pub familiarity: f64,
}

/// The transferred-best baseline for the configurations `set` of one GPU
/// and kernel: for every other GPU with samples of the kernel, its fastest
/// measured configuration among those in `set`, run here: that
/// configuration's measured time over the fastest in `set` (1.0: the other
/// GPU's pick is this GPU's best). What a user without a model would do:
/// take the configuration that won on the GPU they measured.
pub fn transferred_best(samples: &[Sample], set: &[&Sample]) -> Vec<(String, f64)> {
    let Some(first) = set.first() else {
        return Vec::new();
    };
    let best_here = set.iter().map(|s| s.measured).fold(f64::INFINITY, f64::min);
    let here: BTreeMap<&str, f64> = set
        .iter()
        .map(|s| (s.config.as_str(), s.measured))
        .collect();
    let mut by_gpu: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in samples
        .iter()
        .filter(|s| s.kernel == first.kernel && s.gpu != first.gpu)
    {
        by_gpu.entry(s.gpu.as_str()).or_default().push(s);
    }
    by_gpu
        .into_iter()
        .filter_map(|(gpu, mut theirs)| {
            theirs.sort_by(|a, b| a.measured.total_cmp(&b.measured).then(a.row.cmp(&b.row)));
            let pick = theirs.iter().find_map(|s| here.get(s.config.as_str()))?;
            Some((gpu.to_string(), pick / best_here))
        })
        .collect()
}

/// Hold out each GPU (or kernel) in turn: train on the development part of
/// the rest, score the held-out one's `part`, per (GPU, kernel). `oof` are
/// the interval's scores ([`calibration::out_of_folds`] of the development
/// samples, made once for both hold-outs); a fold's interval is calibrated
/// without those of its own GPU or kernel.
///
/// `scored_only` are scored with the held-out ones and never trained on
/// (nor do they size an interval): configurations whose profiles are kept
/// for scoring a whole space, whose training rows would outweigh the other
/// GPUs' (`learn --score-profiles`, docs/validation/learned.md). They are
/// in the transferred-best baseline like the others.
pub fn cross_validate(
    samples: &[Sample],
    scored_only: &[Sample],
    hold_out: HoldOut,
    part: Part,
    opts: &TrainOptions,
    oof: &calibration::OutOfFolds,
) -> Result<Vec<FoldScore>, LearningError> {
    let everything: Vec<Sample>;
    let baseline: &[Sample] = if scored_only.is_empty() {
        samples
    } else {
        everything = samples.iter().chain(scored_only).cloned().collect();
        &everything
    };
    let groups: BTreeSet<&str> = baseline.iter().map(|s| hold_out.key(s)).collect();
    let what = hold_out.noun();
    let mut out = Vec::new();
    for (i, g) in groups.iter().copied().enumerate() {
        emu::progress::stage(&format!(
            "cross-validating: {what} {} of {} held out ({g})",
            i + 1,
            groups.len()
        ));
        let train_set: Vec<Sample> = samples
            .iter()
            .filter(|s| hold_out.key(s) != g && s.part == Part::Development)
            .cloned()
            .collect();
        let mut tests: BTreeMap<(String, String), Vec<&Sample>> = BTreeMap::new();
        for s in baseline
            .iter()
            .filter(|s| hold_out.key(s) == g && s.part == part)
        {
            tests
                .entry((s.gpu.clone(), s.kernel.clone()))
                .or_default()
                .push(s);
        }
        if train_set.is_empty() || tests.is_empty() {
            continue;
        }
        let mut file = train(&train_set, opts)?;
        file.interval = calibration::calibrate(oof, |o| match hold_out {
            HoldOut::Gpu => o.gpu != g,
            HoldOut::Kernel => o.kernel != g,
        });
        for ((gpu, kernel), set) in tests {
            let measured: Vec<f64> = set.iter().map(|s| s.measured).collect();
            // Scored together, so one familiarity for the set, as `tune`
            // and `validate` give a space (validate::blend).
            let familiarity = set
                .iter()
                .map(|s| file.familiarity(&s.features).0)
                .sum::<f64>()
                / set.len() as f64;
            let predicted: Vec<(f64, f64, f64)> = set
                .iter()
                .map(|s| predict_interval_at(&file, s, familiarity))
                .collect();
            let learned: Vec<f64> = predicted.iter().map(|p| p.0).collect();
            let upper: Vec<f64> = predicted.iter().map(|p| p.2).collect();
            let intervals: Vec<([f64; 2], f64)> = predicted
                .iter()
                .zip(&measured)
                .map(|(p, &m)| ([p.1, p.2], m))
                .collect();
            let (coverage, width) = validate::score::interval_figures(&intervals);
            let timing: Vec<f64> = set.iter().map(|s| s.timing).collect();
            if let (Some(l), Some(t), Ok(pessimistic)) = (
                metrics(&learned, &measured),
                metrics(&timing, &measured),
                stats::best_config_ratio(&upper, &measured),
            ) {
                out.push(FoldScore {
                    held_out: g.to_string(),
                    gpu,
                    kernel,
                    trained_on: train_set.len(),
                    scored: set.len(),
                    learned: l,
                    timing: t,
                    learned_pessimistic_best: pessimistic,
                    interval_coverage: coverage.unwrap_or(0.0),
                    interval_width: width.unwrap_or(1.0),
                    transferred: transferred_best(baseline, &set),
                    familiarity,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples of two GPUs and two kernels whose measured time is the timing
    /// model's times a factor that depends on a GPU feature and a profile
    /// feature.
    fn samples() -> Vec<Sample> {
        let width = models::learned::feature_names().len();
        let mut rng = prng::Rng::new(3);
        let mut out = Vec::new();
        for (g, gpu) in ["a", "b", "c"].iter().enumerate() {
            for kernel in ["k1", "k2"] {
                for row in 0..40 {
                    let mut f = vec![0.0; width];
                    f[0] = (g as f64 + 1.0) * 20.0;
                    f[19] = rng.next_f64();
                    let timing = 1e-3 * (1.0 + rng.next_f64());
                    let factor = (0.5 + f[19]) * (1.0 + g as f64 * 0.1);
                    out.push(Sample {
                        gpu: gpu.to_string(),
                        kernel: kernel.to_string(),
                        data: format!("{gpu}-{kernel}.json"),
                        row,
                        config: format!("row={row}"),
                        part: if row % 10 < 3 {
                            Part::Check
                        } else {
                            Part::Development
                        },
                        features: f,
                        measured: timing * factor,
                        timing,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn training_refuses_the_check_part() {
        let all = samples();
        let e = train(&all, &TrainOptions::default()).map_err(|e| e.to_string());
        assert!(
            matches!(&e, Err(m) if m.contains("refusing to train on the check part") && m.contains("row 0")),
            "{e:?}"
        );
        let dev: Vec<Sample> = all
            .into_iter()
            .filter(|s| s.part == Part::Development)
            .collect();
        assert!(train(&dev, &TrainOptions::default()).is_ok());
        assert!(matches!(
            train(&[], &TrainOptions::default()),
            Err(LearningError::NoSamples)
        ));
    }

    /// The development samples of [`samples`].
    fn development() -> Vec<Sample> {
        samples()
            .into_iter()
            .filter(|s| s.part == Part::Development)
            .collect()
    }

    /// The interval's scores of the development samples of `all`.
    fn oof_of(all: &[Sample], opts: &TrainOptions) -> calibration::OutOfFolds {
        let dev: Vec<Sample> = all
            .iter()
            .filter(|s| s.part == Part::Development)
            .cloned()
            .collect();
        calibration::out_of_folds(&dev, opts).expect("out of fold")
    }

    /// Two members of ten trees: enough to score folds, quick to train.
    fn two_small_members() -> TrainOptions {
        TrainOptions {
            members: 2,
            ..with_trees(10)
        }
    }

    /// Default options with `trees` trees per member.
    fn with_trees(trees: usize) -> TrainOptions {
        TrainOptions {
            params: Params {
                trees,
                ..Params::default()
            },
            ..TrainOptions::default()
        }
    }

    #[test]
    fn retraining_gives_the_same_bytes() {
        let dev = development();
        let opts = with_trees(40);
        let a = train(&dev, &opts).expect("train").to_json();
        let b = train(&dev, &opts).expect("train").to_json();
        assert_eq!(a, b);
    }

    #[test]
    fn data_file_weighting_gives_every_file_the_same_total() {
        let mut dev: Vec<Sample> = samples()
            .into_iter()
            .filter(|s| s.part == Part::Development)
            .collect();
        // One file keeps a quarter of its rows: its rows weigh four times more.
        let first = dev[0].data.clone();
        let mut kept = 0;
        dev.retain(|s| {
            if s.data != first {
                return true;
            }
            kept += 1;
            kept % 4 == 0
        });
        let w = Weighting::DataFile.weights(&dev);
        let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
        for (s, w) in dev.iter().zip(&w) {
            *totals.entry(s.data.as_str()).or_default() += w;
        }
        let totals: Vec<f64> = totals.into_values().collect();
        assert_eq!(totals.len(), 6);
        for t in &totals {
            assert!((t - totals[0]).abs() < 1e-9, "{totals:?}");
        }
        let mean = w.iter().sum::<f64>() / w.len() as f64;
        assert!((mean - 1.0).abs() < 1e-12, "mean weight {mean}");
        assert_eq!(Weighting::Row.weights(&dev), vec![1.0; dev.len()]);
        // The model file says how it was weighted.
        let opts = TrainOptions {
            weighting: Weighting::DataFile,
            params: Params {
                trees: 10,
                ..Params::default()
            },
            ..TrainOptions::default()
        };
        let file = train(&dev, &opts).expect("train");
        assert_eq!(file.training.weighting, "data_file");
    }

    #[test]
    fn the_transferred_best_is_the_other_gpus_pick_run_here() {
        let sample = |gpu: &str, config: &str, measured: f64| Sample {
            gpu: gpu.to_string(),
            kernel: "k".to_string(),
            data: format!("{gpu}.json"),
            row: 0,
            config: config.to_string(),
            part: Part::Check,
            features: Vec::new(),
            measured,
            timing: measured,
        };
        let all = vec![
            sample("a", "x", 2.0),
            sample("a", "y", 1.0),
            sample("a", "z", 4.0),
            // b's best (w) was not scored on a: its next best (z) is run there.
            sample("b", "w", 0.5),
            sample("b", "z", 1.0),
            sample("b", "x", 3.0),
            // c's best is a's best.
            sample("c", "y", 7.0),
            sample("c", "x", 9.0),
            // Another kernel on d: no baseline from it.
            Sample {
                kernel: "other".to_string(),
                ..sample("d", "x", 0.1)
            },
        ];
        let set: Vec<&Sample> = all.iter().filter(|s| s.gpu == "a").collect();
        assert_eq!(
            transferred_best(&all, &set),
            vec![("b".to_string(), 4.0), ("c".to_string(), 1.0)]
        );
    }

    #[test]
    fn the_interval_scores_do_not_depend_on_the_threads() {
        let dev = development();
        let opts = two_small_members();
        let one = calibration::out_of_fold_on(&dev, &opts, HoldOut::Gpu, 1).expect("one thread");
        let three =
            calibration::out_of_fold_on(&dev, &opts, HoldOut::Gpu, 3).expect("three threads");
        assert_eq!(one, three);
        // One score per development sample, each of a GPU held out.
        assert_eq!(one.len(), dev.len());
        assert!(
            one.iter()
                .all(|o| o.error.is_finite() && o.half_range >= 0.0)
        );
    }

    /// A front end's progress hears of every fold, from the worker threads
    /// too, and the last message counts them all; the scores are those of a
    /// run without one.
    #[test]
    fn the_folds_report_their_progress_and_change_nothing() {
        let dev = development();
        let opts = two_small_members();
        let p = std::sync::Arc::new(emu::progress::Progress::default());
        let seen = emu::progress::scoped(std::sync::Arc::clone(&p), || {
            calibration::out_of_fold_on(&dev, &opts, HoldOut::Kernel, 2).expect("two threads")
        });
        assert_eq!(
            p.stage(),
            "sizing the interval: 2 of 2 folds (each kernel held out)"
        );
        let unseen =
            calibration::out_of_fold_on(&dev, &opts, HoldOut::Kernel, 2).expect("no progress");
        assert_eq!(seen, unseen);
        let all = samples();
        let oof = oof_of(&all, &opts);
        emu::progress::scoped(std::sync::Arc::clone(&p), || {
            cross_validate(&all, &[], HoldOut::Gpu, Part::Check, &opts, &oof)
                .expect("cross-validate")
        });
        assert_eq!(p.stage(), "cross-validating: GPU 3 of 3 held out (c)");
    }

    #[test]
    fn cross_validation_holds_out_and_scores_the_check_part() {
        let all = samples();
        let opts = TrainOptions::default();
        let oof = oof_of(&all, &opts);
        let folds =
            cross_validate(&all, &[], HoldOut::Kernel, Part::Check, &opts, &oof).expect("cv");
        // 2 kernels held out in turn, 3 GPUs each.
        assert_eq!(folds.len(), 6);
        for f in &folds {
            assert_eq!(f.scored, 12);
            // Trained on the other kernel's development part: 3 GPUs x 28.
            assert_eq!(f.trained_on, 84);
            // A pick's measured time over the best: at least 1.
            assert!(f.learned_pessimistic_best >= 1.0, "{f:?}");
            assert!(
                f.learned.mape < f.timing.mape,
                "learned {:?} timing {:?}",
                f.learned,
                f.timing
            );
        }
        let by_gpu = cross_validate(&all, &[], HoldOut::Gpu, Part::Check, &opts, &oof).expect("cv");
        assert_eq!(by_gpu.len(), 6);
        assert!(by_gpu.iter().all(|f| f.trained_on == 112));
    }

    /// Configurations given as scored-only are scored with the held-out
    /// GPU's and never trained on: the other folds are those of a run
    /// without them, bit for bit, and the held-out GPU's fold scores them too.
    #[test]
    fn scored_only_configurations_are_scored_but_never_trained_on() {
        let all = samples();
        let opts = two_small_members();
        let oof = oof_of(&all, &opts);
        // More rows of GPU c, at times that would pull any model trained on them.
        let extra: Vec<Sample> = all
            .iter()
            .filter(|s| s.gpu == "c")
            .map(|s| Sample {
                row: s.row + 1000,
                config: format!("extra-{}", s.config),
                measured: s.measured * 50.0,
                ..s.clone()
            })
            .collect();
        let plain = cross_validate(&all, &[], HoldOut::Gpu, Part::Check, &opts, &oof).expect("cv");
        let more =
            cross_validate(&all, &extra, HoldOut::Gpu, Part::Check, &opts, &oof).expect("cv");
        assert_eq!(plain.len(), more.len());
        for (a, b) in plain.iter().zip(&more) {
            assert_eq!(a.trained_on, b.trained_on, "{b:?}");
            if a.gpu == "c" {
                // Its 12 check configurations per kernel and the extra ones'.
                assert_eq!((a.scored, b.scored), (12, 24), "{b:?}");
                // Half the rows predicted about 50x too fast: about 49 % more.
                assert!(b.learned.mape > a.learned.mape + 30.0, "{a:?}\n{b:?}");
            } else {
                assert_eq!(a.learned, b.learned, "{b:?}");
                assert_eq!(a.scored, b.scored);
            }
        }
    }

    /// Three kernels: k1 and k2 alike ([`samples`]), k3 unlike both (all
    /// shared-memory instructions, they none; its times follow the same
    /// rule). Held out by kernel, k3 is as far from the others'
    /// configurations as kernels are apart, so it keeps none of the
    /// correction and is predicted as the timing model predicts it, while k1
    /// and k2 keep it; held out by GPU, every configuration was trained on
    /// (on the other GPUs) and keeps about all of it.
    #[test]
    fn an_unknown_kernel_gets_the_timing_models_time() {
        let shared = models::learned::feature_names()
            .iter()
            .position(|n| n == "mix_shared")
            .expect("mix_shared");
        let mut all = samples();
        let k3: Vec<Sample> = all
            .iter()
            .filter(|s| s.kernel == "k1")
            .map(|s| {
                let mut t = s.clone();
                t.kernel = "k3".to_string();
                t.data = t.data.replace("k1", "k3");
                t.config = format!("k3 {}", t.config);
                t.features[shared] = 1.0;
                t
            })
            .collect();
        all.extend(k3);
        let opts = TrainOptions::default();
        let oof = oof_of(&all, &opts);
        let by_kernel =
            cross_validate(&all, &[], HoldOut::Kernel, Part::Check, &opts, &oof).expect("cv");
        assert_eq!(by_kernel.len(), 9);
        for f in &by_kernel {
            if f.kernel == "k3" {
                assert_eq!(f.familiarity, 0.0, "{f:?}");
                assert_eq!(f.learned.mape, f.timing.mape, "{f:?}");
            } else {
                assert!(f.familiarity > 0.9, "{f:?}");
                assert!(f.learned.mape < f.timing.mape, "{f:?}");
            }
        }
        let by_gpu = cross_validate(&all, &[], HoldOut::Gpu, Part::Check, &opts, &oof).expect("cv");
        for f in &by_gpu {
            // Check configurations are not trained on; their features here
            // differ by GPU, so they lie a little beyond `near`.
            assert!(f.familiarity > 0.8, "{f:?}");
            assert!(f.learned.mape < f.timing.mape, "{f:?}");
        }
        // Without the domain, k3 gets the whole correction.
        let whole = TrainOptions {
            domain: false,
            ..TrainOptions::default()
        };
        let oof = oof_of(&all, &whole);
        let by_kernel =
            cross_validate(&all, &[], HoldOut::Kernel, Part::Check, &whole, &oof).expect("cv");
        assert!(by_kernel.iter().all(|f| f.familiarity == 1.0));
        assert!(
            by_kernel
                .iter()
                .filter(|f| f.kernel == "k3")
                .all(|f| f.learned.mape != f.timing.mape)
        );
    }
}
