//! PTX min/max: a NaN operand is ignored, two NaNs give the canonical NaN,
//! and -0 is below +0.

use emu::float::{max_f32, max_f64, min_f32, min_f64};

#[track_caller]
fn check32(f: fn(f32, f32) -> f32, a: f32, b: f32, expect: f32) {
    let got = f(a, b);
    if expect.is_nan() {
        assert!(got.is_nan(), "{a} {b}: got {got}");
    } else {
        assert_eq!(
            got.to_bits(),
            expect.to_bits(),
            "{a} {b}: got {got}, want {expect}"
        );
    }
}

#[test]
fn min_max_f32() {
    let nan = f32::NAN;
    check32(min_f32, 1.0, 2.0, 1.0);
    check32(max_f32, 1.0, 2.0, 2.0);
    check32(min_f32, nan, 2.0, 2.0);
    check32(min_f32, 2.0, nan, 2.0);
    check32(max_f32, nan, -3.0, -3.0);
    check32(min_f32, nan, nan, nan);
    check32(min_f32, 0.0, -0.0, -0.0);
    check32(min_f32, -0.0, 0.0, -0.0);
    check32(max_f32, -0.0, 0.0, 0.0);
    check32(max_f32, 0.0, -0.0, 0.0);
    check32(min_f32, f32::NEG_INFINITY, 5.0, f32::NEG_INFINITY);
}

#[test]
fn min_max_f64() {
    let nan = f64::NAN;
    assert_eq!(min_f64(1.0, 2.0), 1.0);
    assert_eq!(max_f64(1.0, 2.0), 2.0);
    assert_eq!(min_f64(nan, 2.0), 2.0);
    assert_eq!(max_f64(-3.0, nan), -3.0);
    assert!(max_f64(nan, nan).is_nan());
    assert_eq!(min_f64(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(max_f64(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
}
