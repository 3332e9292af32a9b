//! One familiarity for a whole space of configurations.
//!
//! The `learned` model keeps a share of its trees' correction on the timing
//! model: all of it for a configuration like the trained ones, none for one
//! as far from them as the trained kernels are from each other, linear
//! between (`learn::Domain`). Per configuration, that share ranks the near
//! configurations of a space by the trees and the far ones by the timing
//! model, and a ranking mixed that way is worse than either: held out by
//! kernel, the configuration the learned model ranked first ran 1.51x and
//! 1.60x the best GEMM time on two GPUs where the timing model's pick ran
//! 1.18x and 1.12x (docs/validation/learned.md, "One familiarity per
//! space").
//!
//! So configurations ranked or scored together share one weight, the mean
//! of their own. Every time of such a prediction is `timing x exp(w x c)`
//! for a `w`-independent `c` (the interval's ends too: their half-width is
//! affine in `w`), so a prediction at any weight is the geometric blend of
//! its two ends, [`Blend::at`]; the model gives both ends and the
//! configuration's own weight, and nothing here needs the model file.

use serde::{Deserialize, Serialize};

/// A prediction at its two ends of familiarity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Blend {
    /// The configuration's own familiarity, 0 to 1.
    pub familiarity: f64,
    /// Time, interval low and high (ms) with the whole correction.
    pub near_ms: [f64; 3],
    /// Time, interval low and high (ms) with none of it.
    pub far_ms: [f64; 3],
}

impl Blend {
    /// Time, interval low and high (ms) at familiarity `w` (clamped to 0 to
    /// 1): `far^(1 - w) x near^w`, each.
    pub fn at(&self, w: f64) -> [f64; 3] {
        let w = if w.is_finite() {
            w.clamp(0.0, 1.0)
        } else {
            0.0
        };
        std::array::from_fn(|i| (self.far_ms[i].ln() * (1.0 - w) + self.near_ms[i].ln() * w).exp())
    }

    /// Whether every end is a positive finite time and the familiarity is in
    /// 0 to 1 (anything else is not blended).
    pub fn is_valid(&self) -> bool {
        self.near_ms
            .iter()
            .chain(&self.far_ms)
            .all(|t| t.is_finite() && *t > 0.0)
            && (0.0..=1.0).contains(&self.familiarity)
    }
}

/// The familiarity shared by `blends` (the configurations of one space, one
/// model): their mean, `None` without a valid one.
pub fn shared_familiarity<'a>(blends: impl IntoIterator<Item = &'a Blend>) -> Option<f64> {
    let (sum, n) = blends
        .into_iter()
        .filter(|b| b.is_valid())
        .fold((0.0, 0usize), |(s, n), b| (s + b.familiarity, n + 1));
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blend(familiarity: f64) -> Blend {
        Blend {
            familiarity,
            near_ms: [2.0, 1.0, 4.0],
            far_ms: [1.0, 0.5, 2.0],
        }
    }

    fn check(w: f64, expect: [f64; 3]) {
        let got = blend(0.5).at(w);
        for (g, e) in got.iter().zip(expect) {
            assert!(
                (g - e).abs() < 1e-12,
                "at {w}: {got:?}, expected {expect:?}"
            );
        }
    }

    #[test]
    fn the_ends_and_the_middle() {
        check(1.0, [2.0, 1.0, 4.0]);
        check(0.0, [1.0, 0.5, 2.0]);
        let r = 2f64.sqrt();
        check(0.5, [r, r / 2.0, 2.0 * r]);
        // Outside 0 to 1 is clamped; not a number is none of the correction.
        check(7.0, [2.0, 1.0, 4.0]);
        check(-1.0, [1.0, 0.5, 2.0]);
        check(f64::NAN, [1.0, 0.5, 2.0]);
    }

    #[test]
    fn a_blend_is_the_models_own_prediction_at_that_weight() {
        // timing 3 ms, correction c = 0.4, interval c -/+ (0.1 + 0.2 w):
        // every end is timing x exp(affine in w).
        let at = |w: f64| {
            let c = 0.4 * w;
            let h = 0.1 + 0.2 * w;
            [3.0 * c.exp(), 3.0 * (c - h).exp(), 3.0 * (c + h).exp()]
        };
        let b = Blend {
            familiarity: 0.3,
            near_ms: at(1.0),
            far_ms: at(0.0),
        };
        for w in [0.0, 0.25, 0.3, 0.8, 1.0] {
            for (g, e) in b.at(w).iter().zip(at(w)) {
                assert!((g - e).abs() < 1e-12 * e, "{w}");
            }
        }
    }

    #[test]
    fn the_shared_familiarity_is_the_mean_of_the_valid_ones() {
        let mut bad = blend(0.5);
        bad.near_ms[1] = 0.0;
        let out_of_range = blend(1.5);
        let all = [blend(0.0), blend(0.25), blend(1.0), bad, out_of_range];
        assert_eq!(shared_familiarity(&all), Some(1.25 / 3.0));
        assert_eq!(shared_familiarity(&[bad]), None);
        assert_eq!(shared_familiarity(&[]), None);
    }
}
