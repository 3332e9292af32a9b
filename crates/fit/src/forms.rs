//! The model forms measured data needs, and the choice between them.
//!
//! Seed 004 fits every data set with `f(x) = A x + B`. Real measurements are
//! not always linear: bandwidth rises with occupancy and then saturates,
//! latency steps up as a footprint leaves a cache. The forms here cover what
//! the project's data shows; [`fit_auto`] picks the form with the lowest
//! Akaike information criterion, so that an extra coefficient has to buy a
//! real reduction of the residual.

use crate::FitError;
use crate::linear::{goodness, solve_least_squares};
use serde::{Deserialize, Serialize};

/// A fitted cost model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum Model {
    /// `a x + b`.
    Linear { a: f64, b: f64 },
    /// Continuous piecewise linear with one hinge at `xb`:
    /// `b0 + b1 x + b2 max(0, x - xb)`; the slope is `b1` before the hinge
    /// and `b1 + b2` after it.
    Hinge { b0: f64, b1: f64, b2: f64, xb: f64 },
    /// `a ln x + b`, for x > 0.
    Log { a: f64, b: f64 },
    /// `a x^b`, for x > 0.
    Power { a: f64, b: f64 },
}

/// Which form to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    Linear,
    Hinge,
    Log,
    Power,
}

impl Form {
    pub const ALL: [Form; 4] = [Form::Linear, Form::Hinge, Form::Log, Form::Power];

    pub fn name(self) -> &'static str {
        match self {
            Form::Linear => "linear",
            Form::Hinge => "hinge",
            Form::Log => "log",
            Form::Power => "power",
        }
    }

    /// Parse a form name as the CLI accepts it.
    pub fn parse(s: &str) -> Option<Form> {
        Form::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Number of fitted coefficients, counting a searched breakpoint as one.
    fn n_params(self) -> usize {
        match self {
            Form::Hinge => 4,
            _ => 2,
        }
    }
}

impl Model {
    pub fn eval(&self, x: f64) -> f64 {
        match *self {
            Model::Linear { a, b } => a * x + b,
            Model::Hinge { b0, b1, b2, xb } => b0 + b1 * x + b2 * (x - xb).max(0.0),
            Model::Log { a, b } => a * x.ln() + b,
            Model::Power { a, b } => a * x.powf(b),
        }
    }

    pub fn form(&self) -> Form {
        match self {
            Model::Linear { .. } => Form::Linear,
            Model::Hinge { .. } => Form::Hinge,
            Model::Log { .. } => Form::Log,
            Model::Power { .. } => Form::Power,
        }
    }

    /// A one-line formula with the coefficients, for tables.
    pub fn formula(&self) -> String {
        match *self {
            Model::Linear { a, b } => format!("{a:.6e}*x + {b:.6e}"),
            Model::Hinge { b0, b1, b2, xb } => {
                format!("{b0:.6e} + {b1:.6e}*x + {b2:.6e}*max(0, x - {xb:.6e})")
            }
            Model::Log { a, b } => format!("{a:.6e}*ln(x) + {b:.6e}"),
            Model::Power { a, b } => format!("{a:.6e}*x^{b:.6}"),
        }
    }
}

/// A model with its statistics on the data it was fitted to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fitted {
    pub model: Model,
    pub r2: f64,
    pub rmse: f64,
    /// Akaike information criterion `n ln(RSS/n) + 2k` (lower is better).
    pub aic: f64,
    pub n_points: usize,
}

/// Fit one form to the points.
pub fn fit_form(form: Form, xs: &[f64], ys: &[f64]) -> Result<Fitted, FitError> {
    if xs.len() != ys.len() {
        return Err(degenerate(form, "x and y have different lengths".into()));
    }
    if xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return Err(degenerate(form, "the data holds a non-finite value".into()));
    }
    let model = match form {
        Form::Linear => {
            let l = crate::linear::fit_line(xs, ys)?;
            Model::Linear { a: l.a, b: l.b }
        }
        Form::Log => {
            if xs.iter().any(|&x| x <= 0.0) {
                return Err(degenerate(form, "needs x > 0".into()));
            }
            let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
            let l = crate::linear::fit_line(&lx, ys)
                .map_err(|_| degenerate(form, "needs two distinct x".into()))?;
            Model::Log { a: l.a, b: l.b }
        }
        Form::Power => {
            if xs.iter().chain(ys).any(|&v| v <= 0.0) {
                return Err(degenerate(form, "needs x > 0 and y > 0".into()));
            }
            let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
            let ly: Vec<f64> = ys.iter().map(|y| y.ln()).collect();
            let l = crate::linear::fit_line(&lx, &ly)
                .map_err(|_| degenerate(form, "needs two distinct x".into()))?;
            Model::Power {
                a: l.b.exp(),
                b: l.a,
            }
        }
        Form::Hinge => fit_hinge(xs, ys)?,
    };
    let (r2, rmse) = goodness(ys, |i| model.eval(xs[i]));
    let n = xs.len() as f64;
    // A perfect fit has RSS = 0; a floor keeps the criterion finite and still
    // prefers the simpler of two perfect fits.
    let rss = (rmse * rmse * n).max(1e-300);
    let aic = n * (rss / n).ln() + 2.0 * form.n_params() as f64;
    Ok(Fitted {
        model,
        r2,
        rmse,
        aic,
        n_points: xs.len(),
    })
}

/// Fit every form that applies and keep the one with the lowest AIC.
pub fn fit_auto(xs: &[f64], ys: &[f64]) -> Result<Fitted, FitError> {
    let mut best: Option<Fitted> = None;
    let mut last_err = None;
    for form in Form::ALL {
        match fit_form(form, xs, ys) {
            Ok(f) => {
                if best.is_none_or(|b| f.aic < b.aic - 1e-9) {
                    best = Some(f);
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    best.ok_or_else(|| last_err.unwrap_or_else(|| degenerate(Form::Linear, "no points".into())))
}

/// The hinge is searched over the distinct interior x values: for a fixed
/// breakpoint the model is linear in (b0, b1, b2), so each candidate is one
/// small least-squares solve.
fn fit_hinge(xs: &[f64], ys: &[f64]) -> Result<Model, FitError> {
    let mut cands: Vec<f64> = xs.to_vec();
    cands.sort_by(f64::total_cmp);
    cands.dedup();
    if cands.len() < 4 {
        return Err(degenerate(
            Form::Hinge,
            "needs at least four distinct x values".into(),
        ));
    }
    let mut best: Option<(f64, Model)> = None;
    // Keep at least two distinct x on each side so both slopes are determined.
    for &xb in &cands[1..cands.len() - 2] {
        let Some(c) = solve_least_squares(xs.len(), 3, |i, r| {
            r[0] = 1.0;
            r[1] = xs[i];
            r[2] = (xs[i] - xb).max(0.0);
            ys[i]
        }) else {
            continue;
        };
        let m = Model::Hinge {
            b0: c[0],
            b1: c[1],
            b2: c[2],
            xb,
        };
        let rss: f64 = xs
            .iter()
            .zip(ys)
            .map(|(&x, &y)| (y - m.eval(x)).powi(2))
            .sum();
        if best.is_none_or(|(b, _)| rss < b) {
            best = Some((rss, m));
        }
    }
    best.map(|(_, m)| m).ok_or_else(|| {
        degenerate(
            Form::Hinge,
            "every breakpoint gave a singular system".into(),
        )
    })
}

fn degenerate(form: Form, message: String) -> FitError {
    FitError::Degenerate {
        form: form.name(),
        message,
    }
}
