//! f32 and f64 add, sub, mul, fma, div and sqrt under every PTX rounding mode.
//!
//! NaN results are canonical ([`super::CANON_NAN_F32`]). `.ftz` and `.sat`
//! are separate steps the executor applies around these functions.

use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float, Round as ApRound};

use super::{Round, adjust_f32, adjust_f64, canon_f32, canon_f64, sign_f64};

/// Below this magnitude an f64 error term may fall under the subnormal
/// range and stop being exact (2^-968 = 2^(-1022 + 54)); apfloat takes over.
const TINY_F64: f64 = f64::from_bits(55 << 52);

/// Sign of the rounding error of `s = a + b` (exact - s), by TwoSum (Knuth).
#[inline]
fn two_sum_err(a: f64, b: f64, s: f64) -> i8 {
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    sign_f64(err)
}

/// Round-to-odd: given the nearest f64 `s` and the sign of the error, return
/// the f64 neighbour with an odd significand when inexact. Rounding that to
/// f32 in any mode equals rounding the exact value (53 >= 24 + 2).
#[inline]
fn round_to_odd(s: f64, err: i8) -> f64 {
    if err != 0 && s.to_bits() & 1 == 0 {
        if err > 0 { s.next_up() } else { s.next_down() }
    } else {
        s
    }
}

/// Round an f64 to f32 in `mode`; exact comparison gives the error's sign.
#[inline]
pub fn f64_to_f32(s: f64, mode: Round) -> f32 {
    let f = s as f32;
    if mode == Round::Rn || s.is_nan() {
        return canon_f32(f);
    }
    let back = f as f64;
    let err = if back == s {
        0
    } else if s > back {
        1
    } else {
        -1
    };
    adjust_f32(f, err, mode)
}

/// The sign of an exact zero sum: +0 except under `.rm`, where the sum of
/// operands that are not both +0 is -0 (IEEE 754, 6.3).
#[inline]
fn zero_sum(a: f64, b: f64, mode: Round) -> f64 {
    if mode == Round::Rm && !(a.to_bits() == 0 && b.to_bits() == 0) {
        -0.0
    } else if mode != Round::Rm && a.to_bits() == b.to_bits() {
        a
    } else {
        0.0
    }
}

#[inline]
pub fn add_f32(a: f32, b: f32, mode: Round) -> f32 {
    if mode == Round::Rn {
        return canon_f32(a + b);
    }
    let (a, b) = (a as f64, b as f64);
    let s = a + b;
    if !s.is_finite() {
        return canon_f32(s as f32);
    }
    let err = two_sum_err(a, b, s);
    if s == 0.0 && err == 0 {
        return zero_sum(a, b, mode) as f32;
    }
    f64_to_f32(round_to_odd(s, err), mode)
}

#[inline]
pub fn sub_f32(a: f32, b: f32, mode: Round) -> f32 {
    add_f32(a, -b, mode)
}

#[inline]
pub fn mul_f32(a: f32, b: f32, mode: Round) -> f32 {
    if mode == Round::Rn {
        return canon_f32(a * b);
    }
    // The product of two f32 is exact in f64 (48 significant bits, exponent in range).
    f64_to_f32(a as f64 * b as f64, mode)
}

/// Fused multiply-add with a single rounding: the product is exact in f64,
/// the sum is made exact-to-odd by TwoSum.
#[inline]
pub fn fma_f32(a: f32, b: f32, c: f32, mode: Round) -> f32 {
    let p = a as f64 * b as f64;
    let c = c as f64;
    let s = p + c;
    if !s.is_finite() {
        return canon_f32(s as f32);
    }
    let err = two_sum_err(p, c, s);
    if s == 0.0 && err == 0 {
        return zero_sum(p, c, mode) as f32;
    }
    f64_to_f32(round_to_odd(s, err), mode)
}

/// `fma.rn.f32` without `.ftz`/`.sat`: the same round-to-odd computation as
/// [`fma_f32`], written without branches so the lane loop vectorises.
#[inline(always)]
pub fn fma_f32_rn(a: f32, b: f32, c: f32) -> f32 {
    let p = a as f64 * b as f64;
    let c = c as f64;
    let s = p + c;
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    let bits = s.to_bits();
    let step = err != 0.0 && bits & 1 == 0 && s.is_finite();
    // Toward the exact value: one f64 ulp up in magnitude when the error has s's sign.
    let away = (err > 0.0) == (s > 0.0);
    let odd = if step {
        if away {
            bits.wrapping_add(1)
        } else {
            bits.wrapping_sub(1)
        }
    } else {
        bits
    };
    canon_f32(f64::from_bits(odd) as f32)
}

#[inline]
pub fn div_f32(a: f32, b: f32, mode: Round) -> f32 {
    if mode == Round::Rn {
        return canon_f32(a / b);
    }
    let (a, b) = (a as f64, b as f64);
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return canon_f32(q as f32);
    }
    // The residual a - q*b is exact; exact quotient - q has the sign of r/b.
    let r = (-q).mul_add(b, a);
    let err = sign_f64(r) * sign_f64(b);
    f64_to_f32(round_to_odd(q, err), mode)
}

#[inline]
pub fn sqrt_f32(a: f32, mode: Round) -> f32 {
    if mode == Round::Rn || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return canon_f32(a.sqrt());
    }
    let a = a as f64;
    let s = a.sqrt();
    let r = (-s).mul_add(s, a);
    f64_to_f32(round_to_odd(s, sign_f64(r)), mode)
}

fn ap(x: f64) -> Double {
    Double::from_bits(x.to_bits() as u128)
}

fn from_ap(x: Double) -> f64 {
    canon_f64(f64::from_bits(x.to_bits() as u64))
}

fn ap_round(mode: Round) -> ApRound {
    mode.to_apfloat()
}

#[inline]
pub fn add_f64(a: f64, b: f64, mode: Round) -> f64 {
    let s = a + b;
    if mode == Round::Rn || s.is_nan() || a.is_infinite() || b.is_infinite() {
        return canon_f64(s);
    }
    if s.is_infinite() {
        // Overflow: the exact sum is finite, so it lies on the zero side of s.
        return adjust_f64(s, -sign_f64(s), mode);
    }
    if a.abs().max(b.abs()) >= HUGE_F64 {
        // TwoSum's `s - a` can round past f64::MAX here (-5.76e307 +
        // f64::MAX toward zero once came out one ulp high): the soft-float
        // oracle adds such operands.
        return from_ap(ap(a).add_r(ap(b), ap_round(mode)).value);
    }
    let err = two_sum_err(a, b, s);
    if s == 0.0 && err == 0 {
        return zero_sum(a, b, mode);
    }
    adjust_f64(s, err, mode)
}

/// 2^1023: from this magnitude on, the differences inside TwoSum may
/// overflow.
const HUGE_F64: f64 = f64::from_bits(0x7fe0_0000_0000_0000);

#[inline]
pub fn sub_f64(a: f64, b: f64, mode: Round) -> f64 {
    add_f64(a, -b, mode)
}

#[inline]
pub fn mul_f64(a: f64, b: f64, mode: Round) -> f64 {
    let p = a * b;
    if mode == Round::Rn || p.is_nan() || a.is_infinite() || b.is_infinite() {
        return canon_f64(p);
    }
    if p.is_infinite() {
        return adjust_f64(p, -sign_f64(p), mode);
    }
    if p.abs() < TINY_F64 {
        return from_ap(ap(a).mul_r(ap(b), ap_round(mode)).value);
    }
    let e = a.mul_add(b, -p);
    adjust_f64(p, sign_f64(e), mode)
}

#[inline]
pub fn fma_f64(a: f64, b: f64, c: f64, mode: Round) -> f64 {
    if mode == Round::Rn {
        return canon_f64(a.mul_add(b, c));
    }
    // Directed fma in f64 is rare in NVRTC output: the soft-float oracle is fast enough.
    from_ap(ap(a).mul_add_r(ap(b), ap(c), ap_round(mode)).value)
}

#[inline]
pub fn div_f64(a: f64, b: f64, mode: Round) -> f64 {
    let q = a / b;
    // NaN and infinite quotients of special operands need no rounding; an
    // infinite quotient of finite operands is an overflow, handled below.
    let special = !(q.is_finite() || a.is_finite() && b.is_finite() && b != 0.0);
    if mode == Round::Rn || special {
        return canon_f64(q);
    }
    if q.is_infinite() {
        return adjust_f64(q, -sign_f64(q), mode);
    }
    if q == 0.0 && a == 0.0 {
        return q;
    }
    if q.abs() < TINY_F64 || a.abs() < TINY_F64 {
        return from_ap(ap(a).div_r(ap(b), ap_round(mode)).value);
    }
    let r = (-q).mul_add(b, a);
    adjust_f64(q, sign_f64(r) * sign_f64(b), mode)
}

#[inline]
pub fn sqrt_f64(a: f64, mode: Round) -> f64 {
    if mode == Round::Rn || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return canon_f64(a.sqrt());
    }
    if a < TINY_F64 {
        // Scale by an even power of two so the residual is exact; both
        // scalings are exact because sqrt of any positive f64 is normal.
        let scale = 2f64.powi(600);
        return sqrt_f64(a * scale, mode) * 2f64.powi(-300);
    }
    let s = a.sqrt();
    let r = (-s).mul_add(s, a);
    adjust_f64(s, sign_f64(r), mode)
}
