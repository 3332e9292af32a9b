//! Trains crates.io learners beside ptxperf's own (`crates/learn`) on the
//! same development samples, held out by GPU and by kernel as `ptxperf
//! learn --cross-validate` does, and reports accuracy, training time and
//! whether two runs give the same bits.
//!
//! Input: the CSV of `ptxperf learn SOURCES --profiles ... --export-samples
//! dev.csv` (the development part only; the check part never leaves
//! ptxperf). Every learner predicts the same target, ln(measured / timing
//! model), with the same weights (per data file), and is scored on the time
//! it implies, timing x exp(prediction), per held-out data file: MAPE and
//! Spearman, then their mean over the data files. The raw learners are
//! compared: no ensemble, no familiarity shrinkage, no interval.
//!
//! Usage: learner-comparison dev.csv [--learners ours,gbdt,...] [--holdout gpu|kernel|both]
//! [--level learned|timing|architecture] (whose level a held-out data file
//! gets: the trees' as trained, the timing model's, or that of the training
//! files of the same kernel and compute capability; docs/validation/learned.md).
//! `ours-consistent` is ours with a split taken only where it lowers the
//! loss of `--consistency SHARE` of the training data files (or GPUs or
//! kernels, `--consistency-groups gpu|kernel`) in the node (`learn::gbt::fit_grouped`).
//! `--huber Q` trains ours (both arms) with the Huber loss at quantile Q
//! (`learn::Params::huber`; 0, the default, is the squared loss).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use validate::stats;

/// One development configuration on one GPU.
struct Row {
    gpu: String,
    kernel: String,
    data: String,
    weight: f64,
    measured: f64,
    timing: f64,
    x: Vec<f64>,
}

impl Row {
    fn target(&self) -> f64 {
        (self.measured / self.timing).ln()
    }
}

/// The fields of one CSV line (RFC 4180 quoting).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn read(path: &str) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    let mut lines = text.lines();
    let header = fields(lines.next().ok_or(format!("{path}: empty"))?);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or(format!("{path}:1: no column {name}"))
    };
    let (gpu, kernel, data) = (col("gpu")?, col("kernel")?, col("data")?);
    let (weight, measured, timing) = (col("weight")?, col("measured_s")?, col("timing_s")?);
    let first_feature = col("timing_s")? + 1;
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let f = fields(line);
        if f.len() != header.len() {
            return Err(format!(
                "{path}:{}: {} fields, header has {}",
                i + 2,
                f.len(),
                header.len()
            ));
        }
        let num = |j: usize| {
            f[j].parse::<f64>()
                .map_err(|e| format!("{path}:{}: column {}: {e}", i + 2, header[j]))
        };
        rows.push(Row {
            gpu: f[gpu].clone(),
            kernel: f[kernel].clone(),
            data: f[data].clone(),
            weight: num(weight)?,
            measured: num(measured)?,
            timing: num(timing)?,
            x: (first_feature..f.len())
                .map(num)
                .collect::<Result<_, _>>()?,
        });
    }
    Ok(rows)
}

#[derive(Clone, Copy, PartialEq)]
enum Learner {
    Ours,
    OursConsistent,
    Gbdt,
    SmartcoreForest,
    Forust,
    Perpetual,
}

impl Learner {
    const ALL: [Learner; 6] = [
        Learner::Ours,
        Learner::OursConsistent,
        Learner::Gbdt,
        Learner::SmartcoreForest,
        Learner::Forust,
        Learner::Perpetual,
    ];

    fn name(self) -> &'static str {
        match self {
            Learner::Ours => "ours",
            Learner::OursConsistent => "ours-consistent",
            Learner::Gbdt => "gbdt",
            Learner::SmartcoreForest => "smartcore-forest",
            Learner::Forust => "forust",
            Learner::Perpetual => "perpetual",
        }
    }

    /// Settings, as the doc's table says them.
    fn settings(self) -> &'static str {
        match self {
            Learner::Ours => {
                "depth 4, 150 rounds, shrinkage 0.08, 5 rows per leaf, 32 bins, L2 1, 80 % rows, seed 1 (one member)"
            }
            Learner::OursConsistent => {
                "as ours, a split taken only where it lowers the loss of --consistency of the groups (--consistency-groups) in the node"
            }
            Learner::Gbdt => {
                "depth 4, 150 rounds, shrinkage 0.08, 5 rows per leaf, every row (its row draw uses an unseeded thread_rng)"
            }
            Learner::SmartcoreForest => {
                "100 trees, depth 12, 5 rows per leaf, sqrt(features) per split, seed 1"
            }
            Learner::Forust => {
                "depth 4, 150 rounds, shrinkage 0.08, leaf weight >= 5, 32 bins, L2 1, 80 % rows, seed 1"
            }
            Learner::Perpetual => "budget 1.0 (self-tuning), seed 1",
        }
    }

    /// Train on (x, y, w); the trained model predicts rows.
    /// `g` is each row's group; `base` holds ours' settings (`--bins`)
    /// and the consistency asked of `ours-consistent` (the crates ignore
    /// both).
    fn fit(
        self,
        x: &[&[f64]],
        y: &[f64],
        w: &[f64],
        g: &[usize],
        base: &learn::Params,
    ) -> Result<Predictor, String> {
        match self {
            Learner::Ours | Learner::OursConsistent => {
                // With no consistency asked, fit_grouped trains what
                // train_weighted's one member is, bit for bit.
                let xs: Vec<Vec<f64>> = x.iter().map(|r| r.to_vec()).collect();
                let p = learn::Params {
                    consistency: if self == Learner::Ours {
                        0.0
                    } else {
                        base.consistency
                    },
                    ..base.clone()
                };
                let m = learn::gbt::fit_grouped(&xs, y, w, g, &p).map_err(|e| e.to_string())?;
                Ok(Box::new(move |test: &[&[f64]]| {
                    test.iter().map(|r| m.predict(r)).collect()
                }))
            }
            Learner::Gbdt => {
                use gbdt::config::Config;
                use gbdt::decision_tree::{Data, DataVec};
                use gbdt::gradient_boost::GBDT;
                let mut cfg = Config::new();
                cfg.set_feature_size(x[0].len());
                cfg.set_max_depth(4);
                cfg.set_iterations(150);
                cfg.set_shrinkage(0.08);
                cfg.set_min_leaf_size(5);
                cfg.set_loss("SquaredError");
                cfg.set_data_sample_ratio(1.0);
                cfg.set_feature_sample_ratio(1.0);
                cfg.set_training_optimization_level(2);
                let f32s = |r: &[f64]| r.iter().map(|v| *v as f32).collect::<Vec<f32>>();
                let mut train: DataVec = x
                    .iter()
                    .zip(y)
                    .zip(w)
                    .map(|((r, y), w)| Data::new_training_data(f32s(r), *w as f32, *y as f32, None))
                    .collect();
                let mut model = GBDT::new(&cfg);
                model.fit(&mut train);
                Ok(Box::new(move |test: &[&[f64]]| {
                    let test: DataVec = test
                        .iter()
                        .map(|r| Data::new_test_data(f32s(r), None))
                        .collect();
                    model.predict(&test).into_iter().map(f64::from).collect()
                }))
            }
            Learner::SmartcoreForest => {
                use smartcore::ensemble::random_forest_regressor::{
                    RandomForestRegressor, RandomForestRegressorParameters,
                };
                use smartcore::linalg::basic::matrix::DenseMatrix;
                let to = |rows: &[&[f64]]| {
                    DenseMatrix::from_2d_vec(&rows.iter().map(|r| r.to_vec()).collect())
                        .map_err(|e| e.to_string())
                };
                let params = RandomForestRegressorParameters::default()
                    .with_n_trees(100)
                    .with_max_depth(12)
                    .with_min_samples_leaf(5)
                    .with_m((x[0].len() as f64).sqrt().round() as usize)
                    .with_seed(1);
                let model =
                    RandomForestRegressor::fit_with_weights(&to(x)?, &y.to_vec(), w, params)
                        .map_err(|e| e.to_string())?;
                Ok(Box::new(move |test: &[&[f64]]| {
                    to(test)
                        .and_then(|m| model.predict(&m).map_err(|e| e.to_string()))
                        .unwrap_or_else(|_| vec![f64::NAN; test.len()])
                }))
            }
            Learner::Forust => {
                use forust_ml::GradientBooster;
                use forust_ml::data::Matrix;
                use forust_ml::objective::ObjectiveType;
                use forust_ml::sampler::SampleMethod;
                let (cx, rows, cols) = column_major(x);
                let mut model = GradientBooster::default()
                    .set_objective_type(ObjectiveType::SquaredLoss)
                    .set_iterations(150)
                    .set_learning_rate(0.08)
                    .set_max_depth(4)
                    .set_nbins(32)
                    .set_l2(1.0)
                    .set_min_leaf_weight(5.0)
                    .set_sample_method(SampleMethod::Random)
                    .set_subsample(0.8)
                    .set_seed(1);
                model
                    .fit(&Matrix::new(&cx, rows, cols), y, w, None)
                    .map_err(|e| e.to_string())?;
                Ok(Box::new(move |test: &[&[f64]]| {
                    let (tx, trows, _) = column_major(test);
                    model.predict(&Matrix::new(&tx, trows, cols), true)
                }))
            }
            Learner::Perpetual => {
                use perpetual::objective::Objective;
                use perpetual::{Matrix, PerpetualBooster};
                let (cx, rows, cols) = column_major(x);
                let mut model = PerpetualBooster::default()
                    .set_objective(Objective::SquaredLoss)
                    .set_budget(1.0)
                    .set_seed(1);
                model
                    .fit(&Matrix::new(&cx, rows, cols), y, Some(w), None)
                    .map_err(|e| e.to_string())?;
                Ok(Box::new(move |test: &[&[f64]]| {
                    let (tx, trows, _) = column_major(test);
                    model.predict(&Matrix::new(&tx, trows, cols), true)
                }))
            }
        }
    }
}

/// What sets the level of a held-out data file's times.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    /// The trees' correction as trained (the committed model's way).
    Learned,
    /// The timing model's: each training file's mean correction is taken
    /// out of its targets, so the trees learn only how the correction
    /// varies within a space.
    Timing,
    /// As `Timing`, plus the mean correction of the training files of the
    /// same kernel on GPUs of the same compute capability (the first
    /// feature), where there are any.
    Architecture,
}

/// Each data file's mean target.
fn file_means<'a>(rows: &[&'a Row]) -> BTreeMap<&'a str, f64> {
    let mut sum: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for r in rows {
        let e = sum.entry(r.data.as_str()).or_default();
        e.0 += r.target();
        e.1 += 1;
    }
    sum.into_iter()
        .map(|(d, (s, n))| (d, s / n as f64))
        .collect()
}

/// The level added to each held-out row's prediction: none, except with
/// [`Level::Architecture`], where it is the mean of the training files'
/// own mean correction among those of the row's kernel on GPUs of its
/// compute capability (the first feature), where there are any.
fn held_out_levels(level: Level, train: &[&Row], test: &[&Row]) -> Vec<f64> {
    if level != Level::Architecture {
        return vec![0.0; test.len()];
    }
    let means = file_means(train);
    // (kernel, compute capability) -> the training files there.
    let mut files: BTreeMap<(&str, u64), BTreeSet<&str>> = BTreeMap::new();
    for r in train {
        files
            .entry((r.kernel.as_str(), r.x[0].to_bits()))
            .or_default()
            .insert(r.data.as_str());
    }
    test.iter()
        .map(|t| {
            files
                .get(&(t.kernel.as_str(), t.x[0].to_bits()))
                .map_or(0.0, |same| {
                    same.iter().map(|d| means[d]).sum::<f64>() / same.len() as f64
                })
        })
        .collect()
}

/// A trained model: rows in, predictions out.
type Predictor = Box<dyn Fn(&[&[f64]]) -> Vec<f64>>;

/// Rows as one column-major buffer (forust's and perpetual's matrices).
fn column_major(rows: &[&[f64]]) -> (Vec<f64>, usize, usize) {
    let cols = rows.first().map_or(0, |r| r.len());
    let mut out = Vec::with_capacity(rows.len() * cols);
    for c in 0..cols {
        out.extend(rows.iter().map(|r| r[c]));
    }
    (out, rows.len(), cols)
}

/// FNV-1a over the predictions' bits: equal sums, equal bits.
fn checksum(v: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in v {
        for b in x.to_bits().to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Per held-out data file: (MAPE, Spearman) of the time the predictions imply.
fn scores(rows: &[&Row], pred: &[f64]) -> BTreeMap<String, (usize, f64, f64)> {
    let mut by: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (r, p) in rows.iter().zip(pred) {
        let e = by.entry(r.data.as_str()).or_default();
        e.0.push(r.timing * p.exp());
        e.1.push(r.measured);
    }
    // Scored as `learn --cross-validate` scores (validate::stats); a
    // constant prediction has no rank correlation, counted as 0.
    by.into_iter()
        .map(|(d, (p, m))| {
            let mape = stats::mape(&p, &m).unwrap_or(f64::NAN);
            let rho = stats::spearman(&p, &m).unwrap_or(0.0);
            (d.to_string(), (m.len(), mape, rho))
        })
        .collect()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut path = None;
    let mut learners: Vec<Learner> = Learner::ALL.to_vec();
    let mut holdouts = vec!["gpu", "kernel"];
    let mut level = Level::Learned;
    let mut base = learn::Params {
        consistency: 0.5,
        ..learn::Params::default()
    };
    let mut group_by = "data".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--learners" => {
                let list = it.next().ok_or("--learners needs a list")?;
                learners = list
                    .split(',')
                    .map(|n| {
                        Learner::ALL
                            .into_iter()
                            .find(|l| l.name() == n)
                            .ok_or(format!("unknown learner {n}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--holdout" => {
                holdouts = match it.next().map(String::as_str) {
                    Some("gpu") => vec!["gpu"],
                    Some("kernel") => vec!["kernel"],
                    Some("both") => vec!["gpu", "kernel"],
                    other => return Err(format!("--holdout {other:?}: gpu, kernel or both")),
                };
            }
            "--level" => {
                level = match it.next().map(String::as_str) {
                    Some("learned") => Level::Learned,
                    Some("timing") => Level::Timing,
                    Some("architecture") => Level::Architecture,
                    other => {
                        return Err(format!(
                            "--level {other:?}: learned, timing or architecture"
                        ));
                    }
                };
            }
            "--consistency" => {
                base.consistency = it
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|v| (0.0..=1.0).contains(v))
                    .ok_or("--consistency needs a share from 0 to 1")?;
            }
            "--huber" => {
                base.huber = it
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|v| (0.0..1.0).contains(v))
                    .ok_or("--huber needs a quantile in [0, 1)")?;
            }
            "--bins" => {
                base.bins = it
                    .next()
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|v| (2..=65_535).contains(v))
                    .ok_or("--bins needs a count from 2 to 65535")?;
            }
            "--consistency-groups" => {
                group_by = match it.next().map(String::as_str) {
                    Some(g @ ("data" | "gpu" | "kernel")) => g.to_string(),
                    other => {
                        return Err(format!(
                            "--consistency-groups {other:?}: data, gpu or kernel"
                        ));
                    }
                };
            }
            "-h" | "--help" => {
                println!(
                    "usage: learner-comparison DEV.csv [--learners ours,gbdt,smartcore-forest,forust,perpetual] [--holdout gpu|kernel|both] [--level learned|timing|architecture] [--bins N (32, ours)] [--huber Q (0: squared loss, ours)] [--consistency SHARE (0.5)] [--consistency-groups data|gpu|kernel]"
                );
                return Ok(());
            }
            p if path.is_none() => path = Some(p.to_string()),
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    let path = path.ok_or("usage: learner-comparison DEV.csv (see --help)")?;
    let rows = read(&path)?;
    if rows.is_empty() {
        return Err(format!("{path}: no rows"));
    }
    println!(
        "{} development rows, {} features, {} GPUs, {} kernels, {} data files\n",
        rows.len(),
        rows[0].x.len(),
        rows.iter().map(|r| &r.gpu).collect::<BTreeSet<_>>().len(),
        rows.iter()
            .map(|r| &r.kernel)
            .collect::<BTreeSet<_>>()
            .len(),
        rows.iter().map(|r| &r.data).collect::<BTreeSet<_>>().len()
    );
    for hold in holdouts {
        let key = |r: &Row| {
            if hold == "gpu" {
                r.gpu.clone()
            } else {
                r.kernel.clone()
            }
        };
        let groups: BTreeSet<String> = rows.iter().map(key).collect();
        println!("### Held out by {hold} ({} folds)\n", groups.len());
        println!(
            "| learner | data files | mean MAPE % | mean Spearman | training s (all folds) | prediction us per row | checksum |"
        );
        println!("|---|---:|---:|---:|---:|---:|---|");
        // The timing model alone on the same rows.
        let all: Vec<&Row> = rows.iter().collect();
        let s = scores(&all, &vec![0.0; all.len()]);
        let n = s.len() as f64;
        println!(
            "| timing model alone | {} | {:.1} | {:.3} | | | |",
            s.len(),
            s.values().map(|v| v.1).sum::<f64>() / n,
            s.values().map(|v| v.2).sum::<f64>() / n
        );
        for &l in &learners {
            let mut per_file = BTreeMap::new();
            let (mut train_s, mut predict_s, mut predicted) = (0.0, 0.0, 0usize);
            let mut bits = Vec::new();
            for g in &groups {
                let (test, train): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| &key(r) == g);
                let x: Vec<&[f64]> = train.iter().map(|r| r.x.as_slice()).collect();
                let y: Vec<f64> = match level {
                    Level::Learned => train.iter().map(|r| r.target()).collect(),
                    Level::Timing | Level::Architecture => {
                        let mean = file_means(&train);
                        train
                            .iter()
                            .map(|r| r.target() - mean[r.data.as_str()])
                            .collect()
                    }
                };
                let offsets = held_out_levels(level, &train, &test);
                let w: Vec<f64> = train.iter().map(|r| r.weight).collect();
                let group_of = |r: &Row| match group_by.as_str() {
                    "gpu" => r.gpu.clone(),
                    "kernel" => r.kernel.clone(),
                    _ => r.data.clone(),
                };
                let names: BTreeSet<String> = train.iter().map(|r| group_of(r)).collect();
                let gid: Vec<usize> = train
                    .iter()
                    .map(|r| {
                        let n = group_of(r);
                        names.iter().position(|m| *m == n).unwrap_or(0)
                    })
                    .collect();
                let tx: Vec<&[f64]> = test.iter().map(|r| r.x.as_slice()).collect();
                let t0 = Instant::now();
                let model = l.fit(&x, &y, &w, &gid, &base)?;
                train_s += t0.elapsed().as_secs_f64();
                let t1 = Instant::now();
                let pred: Vec<f64> = model(&tx)
                    .iter()
                    .zip(&offsets)
                    .map(|(p, o)| p + o)
                    .collect();
                predict_s += t1.elapsed().as_secs_f64();
                eprintln!(
                    "{hold} {} fold {g}: trained on {} rows in {:.1} s",
                    l.name(),
                    x.len(),
                    t1.duration_since(t0).as_secs_f64()
                );
                predicted += tx.len();
                bits.extend_from_slice(&pred);
                per_file.extend(scores(&test, &pred));
            }
            let n = per_file.len() as f64;
            println!(
                "| {} | {} | {:.1} | {:.3} | {:.1} | {:.2} | {:016x} |",
                l.name(),
                per_file.len(),
                per_file.values().map(|v| v.1).sum::<f64>() / n,
                per_file.values().map(|v| v.2).sum::<f64>() / n,
                train_s,
                predict_s * 1e6 / predicted as f64,
                checksum(&bits)
            );
            for (d, (rows, m, s)) in &per_file {
                eprintln!(
                    "{hold} {} {d} n={rows} MAPE {m:.1} Spearman {s:.3}",
                    l.name()
                );
            }
        }
        println!();
    }
    println!("Settings:");
    for l in learners {
        println!("- {}: {}", l.name(), l.settings());
    }
    Ok(())
}
