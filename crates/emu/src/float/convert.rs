//! `cvt` between floating-point and integer types, and to integral floats.

use super::{Round, adjust_f32, adjust_f64, canon_f32, canon_f64};

pub use super::arith::f64_to_f32;

/// Sign of (exact integer - float value), the float being finite or infinite.
fn int_err(x: i128, f: f64) -> i8 {
    if f.is_infinite() {
        return if f > 0.0 { -1 } else { 1 };
    }
    // f is the nearest float to an integer, hence itself an integer (the
    // spacing of floats that large is at least 1), and fits i128 here.
    let fi = f as i128;
    (x > fi) as i8 - (x < fi) as i8
}

/// `cvt.rX.f32.{s,u}{8..64}`: an integer (any width, as i128) to f32.
pub fn int_to_f32(x: i128, mode: Round) -> f32 {
    let f = x as f32;
    adjust_f32(f, int_err(x, f as f64), mode)
}

pub fn int_to_f64(x: i128, mode: Round) -> f64 {
    let f = x as f64;
    adjust_f64(f, int_err(x, f), mode)
}

/// An integer rounding modifier of `cvt` (`.rni .rzi .rmi .rpi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundInt {
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

fn round_integral(x: f64, mode: RoundInt) -> f64 {
    match mode {
        RoundInt::Rni => x.round_ties_even(),
        RoundInt::Rzi => x.trunc(),
        RoundInt::Rmi => x.floor(),
        RoundInt::Rpi => x.ceil(),
    }
}

/// `cvt.rXi.{s,u}N.fM`: round to an integer, then saturate to [lo, hi]; NaN
/// gives 0 (PTX ISA: float-to-integer conversions saturate).
pub fn float_to_int(x: f64, mode: RoundInt, lo: i128, hi: i128) -> i128 {
    if x.is_nan() {
        return 0;
    }
    let r = round_integral(x, mode);
    if r <= lo as f64 {
        lo
    } else if r >= hi as f64 {
        hi
    } else {
        r as i128
    }
}

/// `cvt.rXi.f32.f32`: round to an integral value, keeping the type.
pub fn integral_f32(x: f32, mode: RoundInt) -> f32 {
    canon_f32(round_integral(x as f64, mode) as f32)
}

pub fn integral_f64(x: f64, mode: RoundInt) -> f64 {
    canon_f64(round_integral(x, mode))
}

/// Range of an integer type of `bits` width.
pub fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        let half = 1i128 << (bits - 1);
        (-half, half - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}
