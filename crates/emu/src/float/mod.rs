//! PTX floating-point semantics.
//!
//! - [`Round`]: the rounding modifiers `.rn .rz .rm .rp`. Round-to-nearest is
//!   the host's own arithmetic. Directed modes compute the nearest result,
//!   then the sign of the exact error by an error-free transform (TwoSum, an
//!   exact product, a residual by fma), and step one ulp when needed
//!   (ecosystem.md, "f16/bf16 and soft-float correctness"). f32 results go
//!   through f64 with round-to-odd, which makes the second rounding exact
//!   (53 >= 24 + 2). Where a transform would not be exact (f64 results near
//!   the underflow threshold, f64 fma), `rustc_apfloat` computes the result.
//! - [`arith`]: add, sub, mul, fma, div, sqrt for f32 and f64.
//! - [`convert`]: float<->float, int<->float, float->integral-float.
//! - [`half_ops`]: f16 and bf16 arithmetic through f32/f64.
//! - `.ftz` ([`ftz_f32`]), `.sat` ([`sat_f32`]), NaN rules ([`canon_f32`],
//!   [`min_f32`], [`max_f32`]).

pub mod arith;
pub mod convert;
pub mod fp8;
pub mod half_ops;

/// A PTX rounding modifier for floating-point results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
}

impl Round {
    pub const ALL: [Round; 4] = [Round::Rn, Round::Rz, Round::Rm, Round::Rp];

    pub(crate) fn to_apfloat(self) -> rustc_apfloat::Round {
        match self {
            Round::Rn => rustc_apfloat::Round::NearestTiesToEven,
            Round::Rz => rustc_apfloat::Round::TowardZero,
            Round::Rm => rustc_apfloat::Round::TowardNegative,
            Round::Rp => rustc_apfloat::Round::TowardPositive,
        }
    }
}

/// The canonical NaN PTX produces for f32 arithmetic.
pub const CANON_NAN_F32: u32 = 0x7fff_ffff;
/// The NaN this emulator produces for f64 arithmetic (deterministic across hosts).
pub const CANON_NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;

/// The canonical NaN for a NaN `x`, else `x`.
///
/// The NaN test and the choice are made on the bits, as integers. Written as
/// `if x.is_nan() { NAN } else { x }` on floats, LLVM may fold the select to
/// `x` in release builds (it treats any NaN as interchangeable with another
/// there), and the host's NaN payload leaks out: tests passed in debug and
/// failed in release. An integer select of two integers cannot be folded so.
#[inline]
pub fn canon_f32(x: f32) -> f32 {
    f32::from_bits(canon_bits_f32(x.to_bits()))
}

#[inline]
pub fn canon_f64(x: f64) -> f64 {
    f64::from_bits(canon_bits_f64(x.to_bits()))
}

/// [`canon_f32`] on the bits of an f32.
#[inline]
pub fn canon_bits_f32(bits: u32) -> u32 {
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        CANON_NAN_F32
    } else {
        bits
    }
}

/// [`canon_f64`] on the bits of an f64.
#[inline]
pub fn canon_bits_f64(bits: u64) -> u64 {
    if bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
        CANON_NAN_F64
    } else {
        bits
    }
}

/// `.ftz`: a subnormal becomes a zero of the same sign.
#[inline]
pub fn ftz_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

#[inline]
pub fn ftz_f64(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & (1 << 63))
    } else {
        x
    }
}

/// `.sat`: clamp to [0, 1]; NaN becomes +0 (PTX ISA, "Floating-point instructions").
#[inline]
pub fn sat_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

#[inline]
pub fn sat_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// PTX `min`/`max` on one float type: a NaN operand is ignored; both NaN
/// gives the canonical NaN; -0 is below +0 (so `min` keeps the negative
/// zero of an equal pair and `max` the positive one). The result is chosen
/// as bits, for the reason given at [`canon_f32`].
macro_rules! ptx_min_max {
    ($name:ident, $ty:ty, $canon:expr, $keep:ident, $host:ident) => {
        #[inline]
        pub fn $name(a: $ty, b: $ty) -> $ty {
            let bits = match (a.is_nan(), b.is_nan()) {
                (true, true) => $canon,
                (true, false) => b.to_bits(),
                (false, true) => a.to_bits(),
                _ if a == b => {
                    if a.$keep() {
                        a.to_bits()
                    } else {
                        b.to_bits()
                    }
                }
                _ => a.$host(b).to_bits(),
            };
            <$ty>::from_bits(bits)
        }
    };
}

ptx_min_max!(min_f32, f32, CANON_NAN_F32, is_sign_negative, min);
ptx_min_max!(max_f32, f32, CANON_NAN_F32, is_sign_positive, max);
ptx_min_max!(min_f64, f64, CANON_NAN_F64, is_sign_negative, min);
ptx_min_max!(max_f64, f64, CANON_NAN_F64, is_sign_positive, max);

/// Step `s`, the round-to-nearest result, to the directed result, given the
/// sign of (exact - s): -1, 0 or +1. `s` must not be NaN.
#[inline]
pub(crate) fn adjust_f64(s: f64, err: i8, mode: Round) -> f64 {
    if err == 0 {
        return s;
    }
    match mode {
        Round::Rn => s,
        Round::Rm if err < 0 => s.next_down(),
        Round::Rp if err > 0 => s.next_up(),
        // Toward zero: step only when s lies farther from zero than the exact value.
        Round::Rz if s > 0.0 && err < 0 => s.next_down(),
        Round::Rz if s < 0.0 && err > 0 => s.next_up(),
        _ => s,
    }
}

#[inline]
pub(crate) fn adjust_f32(s: f32, err: i8, mode: Round) -> f32 {
    if err == 0 {
        return s;
    }
    match mode {
        Round::Rn => s,
        Round::Rm if err < 0 => s.next_down(),
        Round::Rp if err > 0 => s.next_up(),
        Round::Rz if s > 0.0 && err < 0 => s.next_down(),
        Round::Rz if s < 0.0 && err > 0 => s.next_up(),
        _ => s,
    }
}

/// Sign of a float as -1, 0, +1 (zero for either zero).
#[inline]
pub(crate) fn sign_f64(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}
