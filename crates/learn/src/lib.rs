//! learn: the learner behind the `learned` model (issue 30).
//!
//! [`gbt`] is a small gradient-boosted regression tree learner (histogram
//! splits, squared loss, fixed seeds, no threads); [`ModelFile`] is an
//! ensemble of boosters trained on different row draws, with the names of
//! its features and what it predicts, as the JSON file that
//! `ptxperf learn` writes and the `learned` model reads. The interval is
//! [`Calibration`]'s where training measured one, else the members'
//! smallest and largest prediction.
//! Which learner and why: docs/validation/learned.md.

pub mod domain;
pub mod gbt;

use serde::{Deserialize, Serialize};

pub use domain::Domain;
pub use gbt::{Booster, Params};

/// The `format` of every model file this version writes and reads.
pub const FORMAT: &str = "ptxperf-learned/1";

/// Why learning or loading failed.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// The training data cannot be fitted (shape, non-finite values).
    #[error("training data: {0}")]
    Data(String),
    /// A model file is not one this version reads.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

/// What the ensemble predicts, in natural-log space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// `ln(measured / timing model)`: a correction factor on the timing model.
    Correction,
    /// `ln(measured seconds)`.
    LogTime,
}

impl Target {
    /// Name as the command line and the file write it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Correction => "correction",
            Target::LogTime => "log_time",
        }
    }

    /// Parse a command-line name (`correction`, `log-time` or `log_time`).
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "correction" => Some(Target::Correction),
            "log-time" | "log_time" => Some(Target::LogTime),
            _ => None,
        }
    }
}

/// Where the training data came from (recorded in the file, never read by
/// prediction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// The part of the split every training configuration is in.
    pub part: String,
    /// The split file.
    pub split: String,
    /// Training configurations (one per GPU and configuration).
    pub samples: usize,
    /// The GPUs (catalog ids), sorted.
    pub gpus: Vec<String>,
    /// The kernels, sorted.
    pub kernels: Vec<String>,
    /// How the rows were weighted: `row` (each the same) or `data_file`
    /// (each measured data file the same in total, however many of its
    /// configurations have profiles).
    #[serde(default = "row_weighting")]
    pub weighting: String,
}

fn row_weighting() -> String {
    "row".to_string()
}

/// A trained ensemble as the model file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// [`FORMAT`].
    pub format: String,
    pub target: Target,
    /// Feature names, the order of every feature row.
    pub features: Vec<String>,
    /// The parameters of member 0 (member `i` has seed `seed + i`).
    pub params: Params,
    pub training: Training,
    /// Split gain per feature over all members, as a share of the total,
    /// largest first (features that never split are left out).
    pub importances: Vec<(String, f64)>,
    /// The calibrated interval, when training measured one ([`Calibration`]);
    /// without it the interval is the members' range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Calibration>,
    /// How far a row may be from the training configurations before the
    /// correction shrinks ([`Domain`]; `correction` files only). Without it
    /// every row gets the whole correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<Domain>,
    pub members: Vec<Booster>,
}

/// An interval calibrated on configurations of GPUs the model was not
/// trained on (split-conformal prediction: Lei, G'Sell, Rinaldo, Tibshirani
/// and Wasserman, "Distribution-free predictive inference for regression",
/// JASA 2018; its coverage holds for any score function).
///
/// Training holds out each GPU in turn, trains on the others and predicts
/// the held-out GPU's configurations; each gets the score `|y - mean| - s`,
/// where `s` is half the members' range. The interval of a new prediction
/// is `mean ± (margin + s)`, `margin` being the scores' weighted `coverage`
/// quantile: it held `coverage` of the held-out configurations, so it says
/// how far off an unseen GPU's time may be, where the members' range says
/// only how much they disagree. Keeping `s` in it keeps the members'
/// disagreement in each interval, so ranking by its upper end still differs
/// from ranking by the estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// The share of the held-out configurations the interval is sized to hold.
    pub coverage: f64,
    /// The scores' weighted `coverage` quantile, target units (natural log).
    pub margin: f64,
    /// What was held out to score (`gpu`).
    pub held_out: String,
    /// Scored configurations.
    pub scores: usize,
    /// The margin of an unknown kernel: the same quantile of the scores of
    /// configurations predicted by models trained without their kernel.
    /// A row's margin goes from `margin` (familiarity 1, [`Domain`]) to
    /// this one (familiarity 0). Files without it use `margin` for all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_margin: Option<f64>,
    /// Configurations scored with their kernel held out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kernel_scores: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Calibration {
    /// The interval around `mean` for members whose range is `[low, high]`,
    /// for a row of `familiarity` ([`ModelFile::familiarity`]).
    pub fn interval(&self, mean: f64, low: f64, high: f64, familiarity: f64) -> (f64, f64) {
        let w = familiarity.clamp(0.0, 1.0);
        let margin = match self.kernel_margin {
            Some(k) => w * self.margin + (1.0 - w) * k,
            None => self.margin,
        };
        let half = (margin + (high - low) / 2.0).max(0.0);
        (mean - half, mean + half)
    }
}

/// The ensemble's answer for one row, in target units.
#[derive(Debug, Clone, PartialEq)]
pub struct EnsemblePrediction {
    /// Mean of the members.
    pub mean: f64,
    /// The interval's lower end: the calibrated interval's where the file
    /// has one ([`ModelFile::interval`]), else the smallest member.
    pub low: f64,
    /// The interval's upper end (the largest member without calibration).
    pub high: f64,
    /// The share of the trees' correction kept ([`Domain::weight`]; 1
    /// without a domain): `mean`, `low` and `high` already hold it.
    pub familiarity: f64,
}

/// Train `members` boosters on `x`, `y` (member `i` with seed
/// `params.seed + i`), sequentially, every row weighing the same.
pub fn train(
    x: &[Vec<f64>],
    y: &[f64],
    params: &Params,
    members: usize,
) -> Result<Vec<Booster>, LearnError> {
    train_weighted(x, y, &vec![1.0; x.len()], params, members)
}

/// [`train`] with row `i` weighing `w[i]` ([`gbt::fit_weighted`]).
pub fn train_weighted(
    x: &[Vec<f64>],
    y: &[f64],
    w: &[f64],
    params: &Params,
    members: usize,
) -> Result<Vec<Booster>, LearnError> {
    (0..members.max(1) as u64)
        .map(|i| {
            let p = Params {
                seed: params.seed.wrapping_add(i),
                ..params.clone()
            };
            gbt::fit_weighted(x, y, w, &p)
        })
        .collect()
}

impl ModelFile {
    /// Assemble a model file, computing the importances.
    pub fn new(
        target: Target,
        features: Vec<String>,
        params: Params,
        training: Training,
        members: Vec<Booster>,
    ) -> ModelFile {
        let mut gains = vec![0.0; features.len()];
        for m in &members {
            for (g, v) in gains.iter_mut().zip(m.gains(features.len())) {
                *g += v;
            }
        }
        let total: f64 = gains.iter().sum();
        let mut importances: Vec<(String, f64)> = features
            .iter()
            .zip(&gains)
            .filter(|&(_, &g)| g > 0.0 && total > 0.0)
            .map(|(n, &g)| (n.clone(), round6(g / total)))
            .collect();
        importances.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ModelFile {
            format: FORMAT.to_string(),
            target,
            features,
            params,
            training,
            importances,
            interval: None,
            domain: None,
            members,
        }
    }

    /// Parse a model file; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<ModelFile, LearnError> {
        let file: ModelFile = serde_json::from_str(text).map_err(|e| LearnError::File {
            path: path.to_string(),
            message: format!("not a learned model file: {e}"),
        })?;
        if file.format != FORMAT {
            return Err(LearnError::File {
                path: path.to_string(),
                message: format!("format `{}`, this version reads `{FORMAT}`", file.format),
            });
        }
        if file.members.is_empty() {
            return Err(LearnError::File {
                path: path.to_string(),
                message: "no ensemble members".to_string(),
            });
        }
        Ok(file)
    }

    /// The file's text: pretty at the top, one line per member, and the same
    /// bytes for the same model.
    pub fn to_json(&self) -> String {
        // serde_json writes floats in their shortest round-trip form and
        // fields in declaration order: deterministic.
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }

    /// The share of the correction kept for `x` ([`Domain::weight`]) and
    /// the trained kernel nearest to it, for a `correction` file with a
    /// domain; else 1 and none.
    pub fn familiarity(&self, x: &[f64]) -> (f64, Option<&str>) {
        match (&self.domain, self.target) {
            (Some(d), Target::Correction) => {
                let (distance, kernel) = d.nearest(x);
                (d.weight_at(distance), Some(kernel))
            }
            _ => (1.0, None),
        }
    }

    /// The members' mean, smallest and largest prediction for one row, the
    /// correction scaled by [`ModelFile::familiarity`] (a far row's interval
    /// is the calibrated margin around the timing model's time).
    pub fn predict(&self, x: &[f64]) -> EnsemblePrediction {
        self.predict_at(x, self.familiarity(x).0)
    }

    /// [`ModelFile::predict`] for a row whose familiarity is known.
    pub fn predict_at(&self, x: &[f64], familiarity: f64) -> EnsemblePrediction {
        let members: Vec<f64> = self.members.iter().map(|m| m.predict(x)).collect();
        self.combine(&members, familiarity)
    }

    /// [`ModelFile::predict_at`] at each of `familiarities`, the trees
    /// walked once (the same numbers as a call per familiarity).
    pub fn predict_at_each<const N: usize>(
        &self,
        x: &[f64],
        familiarities: [f64; N],
    ) -> [EnsemblePrediction; N] {
        let members: Vec<f64> = self.members.iter().map(|m| m.predict(x)).collect();
        familiarities.map(|w| self.combine(&members, w))
    }

    /// The ensemble's answer from its members' predictions, the correction
    /// scaled by the familiarity `w`.
    fn combine(&self, members: &[f64], w: f64) -> EnsemblePrediction {
        let preds: Vec<f64> = members.iter().map(|p| w * p).collect();
        let n = preds.len().max(1) as f64;
        let mean = preds.iter().sum::<f64>() / n;
        let low = preds.iter().copied().fold(f64::INFINITY, f64::min);
        let high = preds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (low, high) = match &self.interval {
            Some(c) => c.interval(mean, low, high, w),
            None => (low, high),
        };
        EnsemblePrediction {
            mean,
            low,
            high,
            familiarity: w,
        }
    }

    /// Per-feature contributions to [`ModelFile::predict_at`]'s mean for a
    /// row of that `familiarity` (the members' mean of
    /// [`Booster::contributions`], times the familiarity), with the bias.
    pub fn contributions(&self, x: &[f64], familiarity: f64) -> (f64, Vec<f64>) {
        let k = self.features.len();
        let mut bias = 0.0;
        let mut c = vec![0.0; k];
        for m in &self.members {
            let (b, mc) = m.contributions(x, k);
            bias += b;
            for (s, v) in c.iter_mut().zip(mc) {
                *s += v;
            }
        }
        let scale = familiarity / self.members.len().max(1) as f64;
        (bias * scale, c.into_iter().map(|v| v * scale).collect())
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> (ModelFile, Vec<Vec<f64>>) {
        let x: Vec<Vec<f64>> = (0..60)
            .map(|i| vec![f64::from(i), f64::from(i % 7)])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| r[0] / 10.0 + r[1]).collect();
        let p = Params {
            trees: 30,
            ..Params::default()
        };
        let members = train(&x, &y, &p, 4).expect("train");
        let training = Training {
            part: "development".into(),
            split: "data/split.toml".into(),
            samples: 60,
            gpus: vec!["g".into()],
            kernels: vec!["k".into()],
            weighting: "row".into(),
        };
        (
            ModelFile::new(
                Target::Correction,
                vec!["a".into(), "b".into()],
                p,
                training,
                members,
            ),
            x,
        )
    }

    #[test]
    fn file_round_trips_to_the_same_bytes_and_predictions() {
        let (f, x) = file();
        let text = f.to_json();
        let back = ModelFile::parse(&text, "m.json").expect("parse");
        assert_eq!(back.to_json(), text);
        for r in &x {
            assert_eq!(f.predict(r), back.predict(r));
        }
        let p = f.predict(&x[10]);
        assert!(p.low <= p.mean && p.mean <= p.high, "{p:?}");
        assert_eq!(f.importances.len(), 2);
        let total: f64 = f.importances.iter().map(|i| i.1).sum();
        assert!((total - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_calibrated_file_widens_the_members_range_by_its_margin() {
        let (mut f, x) = file();
        let members = f.predict(&x[10]);
        f.interval = Some(Calibration {
            coverage: 0.9,
            margin: 0.25,
            held_out: "gpu".into(),
            scores: 60,
            kernel_margin: None,
            kernel_scores: 0,
        });
        let text = f.to_json();
        assert!(
            text.contains("\"interval\":{\"coverage\":0.9,\"margin\":0.25"),
            "{text}"
        );
        let back = ModelFile::parse(&text, "m.json").expect("parse");
        assert_eq!(back, f);
        let p = back.predict(&x[10]);
        let half = 0.25 + (members.high - members.low) / 2.0;
        assert_eq!(p.mean, members.mean);
        assert!((p.low - (members.mean - half)).abs() < 1e-12, "{p:?}");
        assert!((p.high - (members.mean + half)).abs() < 1e-12, "{p:?}");
        // A file written before calibration existed still reads, with the
        // members' range as its interval.
        f.interval = None;
        let old = f.to_json();
        assert!(!old.contains("interval"), "{old}");
        assert_eq!(
            ModelFile::parse(&old, "m.json")
                .expect("parse")
                .predict(&x[10]),
            members
        );
    }

    #[test]
    fn one_walk_of_the_trees_gives_every_familiarity_alike() {
        let (f, x) = file();
        for r in &x {
            let each = f.predict_at_each(r, [0.3, 1.0, 0.0]);
            assert_eq!(
                each,
                [
                    f.predict_at(r, 0.3),
                    f.predict_at(r, 1.0),
                    f.predict_at(r, 0.0)
                ]
            );
        }
    }

    #[test]
    fn every_end_is_affine_in_the_familiarity() {
        // What lets a space share one familiarity without the file
        // (validate::blend): mean, low and high at w are the straight line
        // between w = 0 and w = 1, with and without a calibrated interval,
        // with and without a kernel margin.
        let (mut f, x) = file();
        let calibrations = [
            None,
            Some((0.25, None)),
            Some((0.25, Some(0.6))),
            Some((0.0, Some(0.0))),
        ];
        for c in calibrations {
            f.interval = c.map(|(margin, kernel_margin)| Calibration {
                coverage: 0.9,
                margin,
                held_out: "gpu".into(),
                scores: 60,
                kernel_margin,
                kernel_scores: 60,
            });
            for r in [&x[3], &x[10], &x[44]] {
                let (far, near) = (f.predict_at(r, 0.0), f.predict_at(r, 1.0));
                for w in [0.1, 0.37, 0.5, 0.9] {
                    let at = f.predict_at(r, w);
                    let line = |a: f64, b: f64| (1.0 - w) * a + w * b;
                    for (got, want) in [
                        (at.mean, line(far.mean, near.mean)),
                        (at.low, line(far.low, near.low)),
                        (at.high, line(far.high, near.high)),
                    ] {
                        assert!((got - want).abs() < 1e-12, "{c:?} {w}: {got} {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn contributions_add_up_to_the_mean() {
        let (f, x) = file();
        for w in [1.0, 0.5, 0.0] {
            let (bias, c) = f.contributions(&x[5], w);
            let mean = f.predict_at(&x[5], w).mean;
            assert!((bias + c.iter().sum::<f64>() - mean).abs() < 1e-9, "{w}");
        }
    }

    #[test]
    fn wrong_files_are_errors() {
        let (f, _) = file();
        let text = f.to_json().replace(FORMAT, "ptxperf-learned/0");
        let e = ModelFile::parse(&text, "m.json").map_err(|e| e.to_string());
        assert!(matches!(e, Err(m) if m.contains("m.json") && m.contains("ptxperf-learned/0")));
        assert!(ModelFile::parse("{}", "m.json").is_err());
        assert_eq!(Target::parse("log-time"), Some(Target::LogTime));
        assert_eq!(Target::parse("x"), None);
    }
}
