//! Fitting, model checking and finalisation on data made here with known answers.

use fit::check::{check_pairs, finalise_linear, within_margin};
use fit::forms::{Form, Model, fit_auto, fit_form};
use fit::linear::fit_line;

/// A small deterministic generator (splitmix64) and Gaussian noise by Box-Muller,
/// so the synthetic data is the same on every run.
struct Rng(u64);
impl Rng {
    fn next_u64(&mut self) -> u64 {
        prng::splitmix64(&mut self.0)
    }
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn gauss(&mut self, sd: f64) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        sd * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

fn synthetic(f: impl Fn(f64) -> f64, xs: &[f64], sd: f64, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    xs.iter().map(|&x| f(x) + rng.gauss(sd)).collect()
}

#[track_caller]
fn check_line(a: f64, b: f64, sd: f64, n: usize, tol_a: f64, tol_b: f64) {
    let xs: Vec<f64> = (0..n).map(|i| 16.0 * (i + 1) as f64).collect();
    let ys = synthetic(|x| a * x + b, &xs, sd, 42 + n as u64);
    let fit = fit_line(&xs, &ys).expect("fit");
    assert!((fit.a - a).abs() < tol_a, "slope {} vs {a}", fit.a);
    assert!((fit.b - b).abs() < tol_b, "intercept {} vs {b}", fit.b);
}

#[test]
fn linear_recovers_known_coefficients() {
    // Tolerances are about four standard errors: se(A) = sd / (sqrt(n) * sd_x).
    check_line(3.5, 120.0, 0.0, 10, 1e-9, 1e-7);
    check_line(3.5, 120.0, 2.0, 200, 0.003, 1.2);
    check_line(0.02, 5000.0, 10.0, 400, 0.002, 4.5);
    check_line(-1.25, 10.0, 0.5, 50, 0.005, 0.6);
}

#[test]
fn linear_rejects_degenerate_input() {
    assert!(fit_line(&[1.0], &[2.0]).is_err());
    assert!(fit_line(&[3.0, 3.0, 3.0], &[1.0, 2.0, 3.0]).is_err());
    assert!(fit_form(Form::Linear, &[1.0, f64::NAN], &[1.0, 2.0]).is_err());
    assert!(fit_form(Form::Log, &[0.0, 1.0, 2.0], &[1.0, 2.0, 3.0]).is_err());
    assert!(fit_form(Form::Power, &[1.0, 2.0, 3.0], &[1.0, -2.0, 3.0]).is_err());
    assert!(fit_form(Form::Hinge, &[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).is_err());
}

#[track_caller]
fn check_auto(f: impl Fn(f64) -> f64, sd: f64, expect: Form) {
    let xs: Vec<f64> = (1..=60).map(|i| (i * 8) as f64).collect();
    let ys = synthetic(f, &xs, sd, 7);
    let fit = fit_auto(&xs, &ys).expect("fit");
    assert_eq!(fit.model.form(), expect, "chose {:?}", fit.model);
}

#[test]
fn auto_picks_the_generating_form() {
    check_auto(|x| 2.0 * x + 30.0, 1.0, Form::Linear);
    check_auto(|x| 50.0 * x.ln() + 3.0, 0.5, Form::Log);
    check_auto(|x| 0.5 * x.powf(1.7), 0.5, Form::Power);
    check_auto(|x| (4.0 * x).min(900.0), 3.0, Form::Hinge);
}

#[test]
fn hinge_finds_the_breakpoint() {
    let xs: Vec<f64> = (1..=32).map(|i| (i * 32) as f64).collect();
    let ys: Vec<f64> = xs.iter().map(|&x| (2.0 * x).min(768.0)).collect();
    let fit = fit_form(Form::Hinge, &xs, &ys).expect("fit");
    let Model::Hinge { b1, b2, xb, .. } = fit.model else {
        panic!("not a hinge")
    };
    assert_eq!(xb, 384.0);
    assert!(
        (b1 - 2.0).abs() < 1e-9 && (b1 + b2).abs() < 1e-9,
        "slopes {b1} {}",
        b1 + b2
    );
    assert!(fit.rmse < 1e-9);
}

#[test]
fn power_and_log_recover_coefficients() {
    let xs: Vec<f64> = (1..=20).map(|i| i as f64).collect();
    let ys: Vec<f64> = xs.iter().map(|x| 3.0 * x.powf(0.5)).collect();
    let Model::Power { a, b } = fit_form(Form::Power, &xs, &ys).unwrap().model else {
        panic!()
    };
    assert!((a - 3.0).abs() < 1e-9 && (b - 0.5).abs() < 1e-12);
    let ys: Vec<f64> = xs.iter().map(|x| 7.0 * x.ln() - 2.0).collect();
    let Model::Log { a, b } = fit_form(Form::Log, &xs, &ys).unwrap().model else {
        panic!()
    };
    assert!((a - 7.0).abs() < 1e-9 && (b + 2.0).abs() < 1e-9);
}

#[test]
fn ten_percent_check_gives_the_exact_share() {
    // |AT - PT| < AT/10, strictly: 109.9 and 90.1 are in, 110 and 90 are on
    // the boundary and out, 50 is far out; 2 of 5.
    let actual = [100.0, 100.0, 100.0, 100.0, 100.0];
    let predicted = [109.9, 110.0, 90.1, 90.0, 50.0];
    let r = check_pairs(&actual, &predicted);
    assert_eq!((r.within, r.total), (2, 5));
    assert_eq!(r.share(), 0.4);
    // A second hand-made set: only 120 against 80 is out; 7 of 8 within.
    let actual = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0];
    let predicted = [10.5, 19.0, 32.9, 37.0, 54.0, 60.0, 63.5, 120.0];
    assert_eq!(check_pairs(&actual, &predicted).within, 7);
    assert!(!within_margin(0.0, 0.0));
    assert_eq!(check_pairs(&[], &[]).share(), 0.0);
}

#[test]
fn finalisation_averages_coefficients() {
    assert_eq!(
        finalise_linear(&[(2.0, 10.0), (4.0, 20.0), (3.0, 15.0)]),
        Some((3.0, 15.0))
    );
    assert_eq!(finalise_linear(&[]), None);
}
