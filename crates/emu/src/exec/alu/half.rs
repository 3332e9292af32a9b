//! The modifiers of the 16-bit float instructions (PTX ISA 9.7.4 "Half
//! Precision Floating-Point Instructions"), on the bits of one half:
//!
//! - `.ftz` (f16 only): "flushes subnormal inputs and results to
//!   sign-preserving zero" (add, sub, mul, fma, neg, abs, min, max; and the
//!   comparisons, 9.7.5 "setp"/"set" on f16);
//! - `.sat`: the result clamped to [0.0, 1.0], NaN to +0.0;
//! - `.relu` (fma): "clamps the result to 0 if negative. NaN result is
//!   converted to canonical NaN";
//! - `.xorsign.abs` (min, max): the operation on |a| and |b|, then the sign
//!   bit of a ^ b on a non-NaN result.
//!
//! NaNs are recognised by their bits, never by host float comparisons, so
//! results do not depend on how the optimiser treats NaN payloads.

use crate::exec::ops::FMods;
use crate::float::half_ops::{CANON_NAN_BF16, CANON_NAN_F16};

use super::float::sat16;

/// (exponent mask, mantissa mask) of f16 or bf16.
fn fields(bf: bool) -> (u16, u16) {
    if bf {
        (0x7f80, 0x007f)
    } else {
        (0x7c00, 0x03ff)
    }
}

pub(super) fn is_nan16(h: u16, bf: bool) -> bool {
    let (e, _) = fields(bf);
    h & 0x7fff > e
}

/// `h` with a subnormal flushed to the zero of its sign.
pub(super) fn ftz16(h: u16, bf: bool) -> u16 {
    let (e, mant) = fields(bf);
    if h & e == 0 && h & mant != 0 {
        h & 0x8000
    } else {
        h
    }
}

/// An input under the modifiers: flushed with `.ftz`.
pub(super) fn fin16(h: u16, bf: bool, m: FMods) -> u16 {
    if m.ftz { ftz16(h, bf) } else { h }
}

/// `.relu`: NaN to the canonical NaN, a negative result (sign bit set, so
/// -0.0 too, as `cvt`'s `.relu` does in this crate) to +0.0.
pub(super) fn relu16(h: u16, bf: bool) -> u16 {
    if is_nan16(h, bf) {
        if bf { CANON_NAN_BF16 } else { CANON_NAN_F16 }
    } else if h & 0x8000 != 0 {
        0
    } else {
        h
    }
}

/// A result under the modifiers: flushed (`.ftz`), then clamped (`.sat`,
/// `.relu`; the ISA's syntax never pairs the two).
pub(super) fn fout16(h: u16, bf: bool, m: FMods) -> u16 {
    let h = fin16(h, bf, m);
    let h = if m.sat { sat16(h, bf) } else { h };
    if m.relu { relu16(h, bf) } else { h }
}

/// `min`/`max` `.xorsign.abs` around `op`, which gets |x| and |y| (PTX ISA
/// 9.7.4.7/9.7.4.8 and 9.7.3.10/9.7.3.11 Semantics: "if (.xorsign &&
/// !isNaN(d)) setSignBit(d, xorsign)"), for a float of `bits` bits.
pub(super) fn xorsign_abs(
    x: u64,
    y: u64,
    bits: u32,
    nan: impl Fn(u64) -> bool,
    op: impl Fn(u64, u64) -> u64,
) -> u64 {
    let sign = 1u64 << (bits - 1);
    let d = op(x & !sign, y & !sign);
    if nan(d) {
        d
    } else {
        (d & !sign) | ((x ^ y) & sign)
    }
}
