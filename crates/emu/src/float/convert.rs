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
    // Integers of at most 24 bits are exact in f32 under every rounding
    // mode; going through i32 avoids the software i128 conversion, which
    // dominated the emulation of kernels that convert in their inner loop.
    if (-(1i128 << 24)..=1i128 << 24).contains(&x) {
        return x as i32 as f32;
    }
    let f = x as f32;
    adjust_f32(f, int_err(x, f as f64), mode)
}

pub fn int_to_f64(x: i128, mode: Round) -> f64 {
    // Exact below 2^53 (see `int_to_f32`).
    if (-(1i128 << 53)..=1i128 << 53).contains(&x) {
        return x as i64 as f64;
    }
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
    // Every destination but u64 has its range within i64: compare and
    // convert through i64, exact there, instead of through i128 in software.
    if let (Ok(lo64), Ok(hi64)) = (i64::try_from(lo), i64::try_from(hi)) {
        return if r <= lo64 as f64 {
            lo
        } else if r >= hi64 as f64 {
            hi
        } else {
            i128::from(r as i64)
        };
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The rounding of `x` to f32 by the general path: the nearest float,
    /// moved one step as `mode` asks when inexact.
    fn slow_f32(x: i128, mode: Round) -> f32 {
        let f = x as f32;
        adjust_f32(f, int_err(x, f as f64), mode)
    }

    fn slow_f64(x: i128, mode: Round) -> f64 {
        let f = x as f64;
        adjust_f64(f, int_err(x, f), mode)
    }

    /// The i32/i64 shortcuts give the general path's bits at and around
    /// their bounds, in every rounding mode.
    #[test]
    fn shortcuts_match_the_general_path() {
        let modes = [Round::Rn, Round::Rz, Round::Rm, Round::Rp];
        for base in [0i128, 1 << 24, 1 << 53, 1 << 63, 1 << 64] {
            for d in -3..=3 {
                for x in [base + d, -(base + d)] {
                    for m in modes {
                        assert_eq!(
                            int_to_f32(x, m).to_bits(),
                            slow_f32(x, m).to_bits(),
                            "f32 {x} {m:?}"
                        );
                        assert_eq!(
                            int_to_f64(x, m).to_bits(),
                            slow_f64(x, m).to_bits(),
                            "f64 {x} {m:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn float_to_int_saturates_at_each_width() {
        let cases: [(f64, u32, bool, i128); 8] = [
            (3.7, 32, false, 3),
            (-1.0, 32, false, 0),
            (5e9, 32, false, u32::MAX as i128),
            (-5e9, 32, true, i32::MIN as i128),
            (1e19, 64, true, i64::MAX as i128),
            (1e19, 64, false, 10_000_000_000_000_000_000),
            (2e19, 64, false, u64::MAX as i128),
            (-2.5, 16, true, -2),
        ];
        for (x, bits, signed, expected) in cases {
            let (lo, hi) = int_range(bits, signed);
            assert_eq!(
                float_to_int(x, RoundInt::Rzi, lo, hi),
                expected,
                "{x} to {bits} bits"
            );
        }
    }
}
