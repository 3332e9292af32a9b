//! Ordinary least squares.
//!
//! The forms of this crate have at most three coefficients, so the normal
//! equations are solved directly with Gaussian elimination and partial
//! pivoting on centred data; no linear-algebra crate is needed.

use crate::FitError;

/// The result of fitting `y = a x + b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearFit {
    /// Slope A.
    pub a: f64,
    /// Intercept B.
    pub b: f64,
    /// Coefficient of determination (1 for a perfect fit; 1 when all y are equal).
    pub r2: f64,
    /// Root-mean-square residual, in the unit of y.
    pub rmse: f64,
}

impl LinearFit {
    pub fn eval(&self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

/// Fit `y = a x + b` by least squares. Needs at least two distinct x values.
pub fn fit_line(xs: &[f64], ys: &[f64]) -> Result<LinearFit, FitError> {
    let coef = solve_least_squares(xs.len(), 2, |i, row| {
        row[0] = xs[i];
        row[1] = 1.0;
        ys[i]
    })
    .ok_or_else(|| FitError::Degenerate {
        form: "linear",
        message: format!(
            "needs at least two distinct x values ({} points given)",
            xs.len()
        ),
    })?;
    let (a, b) = (coef[0], coef[1]);
    let (r2, rmse) = goodness(ys, |i| a * xs[i] + b);
    Ok(LinearFit { a, b, r2, rmse })
}

/// R² and RMSE of predictions `pred(i)` against `ys`.
pub fn goodness(ys: &[f64], pred: impl Fn(usize) -> f64) -> (f64, f64) {
    let n = ys.len().max(1) as f64;
    let mean = ys.iter().sum::<f64>() / n;
    let ss_tot: f64 = ys.iter().map(|y| (y - mean).powi(2)).sum();
    let ss_res: f64 = ys
        .iter()
        .enumerate()
        .map(|(i, y)| (y - pred(i)).powi(2))
        .sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    (r2, (ss_res / n).sqrt())
}

/// Solve the least-squares problem whose design matrix has `n` rows of `k`
/// columns; `row(i, &mut r)` fills row `i` and returns its target value.
/// Returns `None` when the normal equations are singular (too few points or
/// collinear columns).
pub fn solve_least_squares(
    n: usize,
    k: usize,
    row: impl Fn(usize, &mut [f64]) -> f64,
) -> Option<Vec<f64>> {
    if n < k {
        return None;
    }
    // Normal equations M c = v with M = XᵀX, v = Xᵀy.
    let mut m = vec![0.0; k * k];
    let mut v = vec![0.0; k];
    let mut r = vec![0.0; k];
    let mut scale = vec![0.0f64; k];
    for i in 0..n {
        let y = row(i, &mut r);
        for p in 0..k {
            scale[p] = scale[p].max(r[p].abs());
            v[p] += r[p] * y;
            for q in 0..k {
                m[p * k + q] += r[p] * r[q];
            }
        }
    }
    // Pivots are compared against the column scale so that a singular system
    // with large entries is still recognised as singular.
    let tol = 1e-12;
    for col in 0..k {
        let piv =
            (col..k).max_by(|&a, &b| m[a * k + col].abs().total_cmp(&m[b * k + col].abs()))?;
        let norm = (scale[col] * scale[col]).max(f64::MIN_POSITIVE) * n as f64;
        if m[piv * k + col].abs() <= tol * norm {
            return None;
        }
        if piv != col {
            for q in 0..k {
                m.swap(piv * k + q, col * k + q);
            }
            v.swap(piv, col);
        }
        for rr in col + 1..k {
            let f = m[rr * k + col] / m[col * k + col];
            for q in col..k {
                m[rr * k + q] -= f * m[col * k + q];
            }
            v[rr] -= f * v[col];
        }
    }
    let mut c = vec![0.0; k];
    for p in (0..k).rev() {
        let s: f64 = (p + 1..k).map(|q| m[p * k + q] * c[q]).sum();
        c[p] = (v[p] - s) / m[p * k + p];
    }
    c.iter().all(|x| x.is_finite()).then_some(c)
}
