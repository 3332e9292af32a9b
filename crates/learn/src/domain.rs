//! How familiar a row is to the training data: the applicability domain of
//! a learned correction.
//!
//! Why: a correction learned on some kernels does not carry to a kernel the
//! trees never saw. Cross-validated by kernel (each kernel held out, trained
//! on the others) the learned model was worse than the timing model it
//! corrects (docs/validation/learned.md, "Held out by kernel"): what the
//! trees learn about one kernel's configurations is, for another kernel, a
//! level shift of its own. So the model measures how far a row's
//! kernel-describing features (instruction mix, SIMD efficiency, block
//! shape, memory access pattern; none of them the GPU's) lie from every
//! configuration it was trained on, and scales the correction by a weight
//! that falls from 1 (as close as the training kernels' own configurations
//! are to each other) to 0 (as far as the training kernels are from one
//! another): a new configuration of a known kernel keeps the correction, an
//! unknown kernel gets the timing model's time.
//!
//! Both thresholds come from the training rows' features alone, never from
//! their times: `near` is the [`NEAR_QUANTILE`] of each stored point's
//! distance to the nearest other point of its own kernel, `far` the
//! [`FAR_QUANTILE`] of its distance to the nearest point of another kernel.
//! The distance is the root mean square of the features' differences, each
//! over its standard deviation among the stored points.

use serde::{Deserialize, Serialize};

/// At most this many points per kernel are kept (evenly spaced over its
/// distinct configurations, in training order): the nearest-point search
/// costs each prediction about `points x features` operations.
pub const POINTS_PER_KERNEL: usize = 200;

/// The quantile of the distances between configurations of one kernel that
/// a row may be from the training data and keep the whole correction. 0.99
/// rather than 0.9, chosen on the development part: configurations of a
/// trained kernel that were not trained on (the H100's, compiled for
/// another architecture) lie a little beyond their kernel's own spacing,
/// and a weight that varies between them ranks them worse (held out by
/// GPU, the H100 dedispersion's Spearman 0.484 at 0.9, 0.636 at 0.99;
/// docs/validation/learned.md, "Unknown kernels").
pub const NEAR_QUANTILE: f64 = 0.99;

/// The quantile of the distances between configurations of different
/// kernels at which the correction is gone.
pub const FAR_QUANTILE: f64 = 0.5;

/// The stored training points and thresholds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    /// The features the distance is measured on (names of the model file's
    /// features).
    pub features: Vec<String>,
    /// Their columns in a feature row.
    pub columns: Vec<usize>,
    /// Their means over the stored points.
    pub centre: Vec<f64>,
    /// Their standard deviations over the stored points (1 where 0).
    pub scale: Vec<f64>,
    /// Distance up to which the weight is 1.
    pub near: f64,
    /// Distance from which the weight is 0.
    pub far: f64,
    /// Kernels the points come from, in order.
    pub kernels: Vec<String>,
    /// The points, standardised, one row each, with the index of its kernel
    /// in `kernels` first.
    pub points: Vec<Vec<f32>>,
}

/// Round to `f32` as stored, so that a file read back predicts the same.
fn f32_of(x: f64) -> f32 {
    x as f32
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i.min(v.len() - 1)]
}

impl Domain {
    /// Build from training rows: `x[i]`'s kernel is `kernel[i]` and its
    /// configuration `config[i]` (rows of one configuration on several GPUs
    /// count once); `columns` name the features measured (`names[c]`).
    /// `None` with fewer than two kernels (no distance between kernels to
    /// set `far` by).
    pub fn build(
        x: &[Vec<f64>],
        kernel: &[&str],
        config: &[&str],
        names: &[String],
        columns: &[usize],
    ) -> Option<Domain> {
        let mut kernels: Vec<String> = Vec::new();
        let mut per_kernel: Vec<Vec<usize>> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (i, (&k, &c)) in kernel.iter().zip(config).enumerate() {
            if !seen.insert((k, c)) {
                continue;
            }
            let ki = match kernels.iter().position(|n| n == k) {
                Some(ki) => ki,
                None => {
                    kernels.push(k.to_string());
                    per_kernel.push(Vec::new());
                    kernels.len() - 1
                }
            };
            per_kernel[ki].push(i);
        }
        if kernels.len() < 2 {
            return None;
        }
        // Evenly spaced rows of each kernel.
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        for (ki, rows) in per_kernel.iter().enumerate() {
            let n = rows.len().min(POINTS_PER_KERNEL);
            for j in 0..n {
                chosen.push((ki, rows[j * rows.len() / n]));
            }
        }
        let m = chosen.len() as f64;
        let centre: Vec<f64> = columns
            .iter()
            .map(|&c| chosen.iter().map(|&(_, r)| x[r][c]).sum::<f64>() / m)
            .collect();
        let scale: Vec<f64> = columns
            .iter()
            .zip(&centre)
            .map(|(&c, mu)| {
                let var = chosen
                    .iter()
                    .map(|&(_, r)| (x[r][c] - mu).powi(2))
                    .sum::<f64>()
                    / m;
                let sd = var.sqrt();
                if sd > 1e-12 && sd.is_finite() {
                    sd
                } else {
                    1.0
                }
            })
            .collect();
        let mut domain = Domain {
            features: columns.iter().map(|&c| names[c].clone()).collect(),
            columns: columns.to_vec(),
            centre,
            scale,
            near: 0.0,
            far: 0.0,
            kernels,
            points: Vec::new(),
        };
        domain.points = chosen
            .iter()
            .map(|&(ki, r)| {
                let mut p = vec![ki as f32];
                p.extend(domain.standardise(&x[r]).into_iter().map(f32_of));
                p
            })
            .collect();
        // Each point's nearest neighbour of its own kernel and of another.
        let mut same = Vec::new();
        let mut other = Vec::new();
        for (i, p) in domain.points.iter().enumerate() {
            let mut ds = f64::INFINITY;
            let mut dot = f64::INFINITY;
            for (j, q) in domain.points.iter().enumerate() {
                if i == j {
                    continue;
                }
                let d = rms(&p[1..], &q[1..]);
                if p[0] == q[0] {
                    ds = ds.min(d);
                } else {
                    dot = dot.min(d);
                }
            }
            if ds.is_finite() {
                same.push(ds);
            }
            if dot.is_finite() {
                other.push(dot);
            }
        }
        domain.near = f64::from(f32_of(quantile(same, NEAR_QUANTILE)));
        let far = f64::from(f32_of(quantile(other, FAR_QUANTILE)));
        // Kernels closer to each other than a kernel's own configurations
        // are: the thresholds cannot tell them apart, so nothing is shrunk
        // before twice `near`.
        domain.far = if far > domain.near {
            far
        } else {
            f64::from(f32_of(2.0 * domain.near.max(1e-6)))
        };
        Some(domain)
    }

    fn standardise(&self, row: &[f64]) -> Vec<f64> {
        self.columns
            .iter()
            .zip(self.centre.iter().zip(&self.scale))
            .map(|(&c, (mu, sd))| {
                let v = row.get(c).copied().unwrap_or(0.0);
                if v.is_finite() { (v - mu) / sd } else { 0.0 }
            })
            .collect()
    }

    /// The distance from `row` (a full feature row) to the nearest stored
    /// point, and that point's kernel.
    pub fn nearest(&self, row: &[f64]) -> (f64, &str) {
        let z: Vec<f32> = self.standardise(row).into_iter().map(f32_of).collect();
        let mut best = f64::INFINITY;
        let mut kernel = 0usize;
        for p in &self.points {
            let d = rms(&z, &p[1..]);
            if d < best {
                best = d;
                kernel = p[0] as usize;
            }
        }
        (
            best,
            self.kernels.get(kernel).map(String::as_str).unwrap_or(""),
        )
    }

    /// The weight of the correction at distance `d`: 1 up to `near`, 0
    /// from `far`, linear between.
    pub fn weight_at(&self, d: f64) -> f64 {
        if !d.is_finite() || d >= self.far {
            0.0
        } else if d <= self.near {
            1.0
        } else {
            (self.far - d) / (self.far - self.near)
        }
    }

    /// The weight of the correction for `row`.
    pub fn weight(&self, row: &[f64]) -> f64 {
        self.weight_at(self.nearest(row).0)
    }
}

/// Root mean square difference, in `f64` over `f32` values.
fn rms(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len().min(b.len()).max(1) as f64;
    let s: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
        .sum();
    (s / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two kernels far apart in feature 0, each spread a little in feature 1.
    fn domain() -> Domain {
        let mut x = Vec::new();
        let mut k = Vec::new();
        let mut c = Vec::new();
        let names: Vec<String> = ["a", "b", "gpu"].iter().map(|s| s.to_string()).collect();
        let configs: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
        for i in 0..40 {
            let kernel = if i < 20 { "k1" } else { "k2" };
            let a = if i < 20 { 0.0 } else { 10.0 };
            x.push(vec![a, f64::from(i % 20) * 0.1, 99.0 * f64::from(i)]);
            k.push(kernel);
            c.push(configs[i as usize].as_str());
        }
        Domain::build(&x, &k, &c, &names, &[0, 1]).expect("two kernels")
    }

    fn check(row: &[f64], expect_weight: f64, expect_kernel: &str) {
        let d = domain();
        let (_, kernel) = d.nearest(row);
        let w = d.weight(row);
        assert!(
            (w - expect_weight).abs() < 1e-6,
            "{row:?}: weight {w}, expected {expect_weight} (near {}, far {})",
            d.near,
            d.far
        );
        assert_eq!(kernel, expect_kernel, "{row:?}");
    }

    #[test]
    fn weights_fall_from_known_configurations_to_unknown_kernels() {
        // A training configuration, and one between two of them.
        check(&[0.0, 0.5, 0.0], 1.0, "k1");
        check(&[10.0, 0.55, 0.0], 1.0, "k2");
        // The GPU column is not measured.
        check(&[0.0, 0.5, -1e9], 1.0, "k1");
        // Beyond either kernel.
        check(&[-20.0, 0.5, 0.0], 0.0, "k1");
        check(&[30.0, 0.5, 0.0], 0.0, "k2");
        // Half way between them: 1 / sqrt(2) from both (z 0 against 1 and
        // -1 in feature 0), between near and far.
        let d = domain();
        let half = [5.0, 0.5, 0.0];
        let expect = (d.far - 0.5f64.sqrt()) / (d.far - d.near);
        assert!((d.weight(&half) - expect).abs() < 1e-6);
        assert!(expect > 0.4 && expect < 0.6, "{expect}");
    }

    #[test]
    fn thresholds_come_from_the_points() {
        let d = domain();
        // Feature 0 has sd 5, feature 1 sd about 0.577: neighbours of one
        // kernel are 0.1 / 0.577 / sqrt(2) apart, the kernels 10 / 5 / sqrt(2).
        assert!((d.near - 0.1 / 0.5766 / 2f64.sqrt()).abs() < 1e-3, "{d:?}");
        assert!((d.far - 2.0 / 2f64.sqrt()).abs() < 1e-3, "{}", d.far);
        assert_eq!(d.points.len(), 40);
        assert_eq!(d.features, ["a", "b"]);
        let mid = (d.near + d.far) / 2.0;
        assert!((d.weight_at(mid) - 0.5).abs() < 1e-9);
        assert_eq!(d.weight_at(f64::NAN), 0.0);
    }

    #[test]
    fn one_kernel_gives_no_domain() {
        let x = vec![vec![0.0], vec![1.0]];
        assert!(Domain::build(&x, &["k", "k"], &["a", "b"], &["f".to_string()], &[0]).is_none());
    }

    #[test]
    fn a_configuration_on_several_gpus_is_one_point() {
        let x = vec![vec![0.0], vec![0.0], vec![5.0]];
        let d = Domain::build(
            &x,
            &["k", "k", "j"],
            &["a", "a", "b"],
            &["f".to_string()],
            &[0],
        )
        .expect("two kernels");
        assert_eq!(d.points.len(), 2);
    }
}
