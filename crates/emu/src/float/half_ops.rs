//! f16 and bf16: conversions under every rounding mode, and arithmetic.
//!
//! Narrowing from f64 goes through f32 with round-to-odd and then one
//! round-to-nearest by `half` (24 >= 11 + 2 and 24 >= 8 + 2 make this exact),
//! so it does not suffer the double rounding of a plain f64 -> f32 -> f16
//! chain. Directed modes then step one ulp after an exact comparison.
//! Arithmetic is computed in f32 (or exactly-to-odd in f64 for fma) and
//! rounded once more in the same mode, which is correctly rounded: directed
//! roundings compose, and round-to-nearest is innocuous for 24 >= 2p + 2.

use half::{bf16, f16};

use super::{Round, arith, sign_f64};

/// The bit layout facts needed to step a 16-bit float by one ulp.
#[derive(Clone, Copy)]
struct Layout {
    /// Bits of +infinity.
    inf: u16,
}

const F16: Layout = Layout { inf: 0x7c00 };
const BF16: Layout = Layout { inf: 0x7f80 };

/// Canonical NaNs for 16-bit results.
pub const CANON_NAN_F16: u16 = 0x7fff;
pub const CANON_NAN_BF16: u16 = 0x7fff;

fn is_nan(bits: u16, l: Layout) -> bool {
    bits & 0x7fff > l.inf
}

fn next_up(bits: u16, l: Layout) -> u16 {
    if is_nan(bits, l) || bits == l.inf {
        bits
    } else if bits == 0x8000 {
        0x0001
    } else if bits & 0x8000 == 0 {
        bits + 1
    } else {
        bits - 1
    }
}

fn next_down(bits: u16, l: Layout) -> u16 {
    if is_nan(bits, l) || bits == l.inf | 0x8000 {
        bits
    } else if bits == 0x0000 {
        0x8001
    } else if bits & 0x8000 != 0 {
        bits + 1
    } else {
        bits - 1
    }
}

/// Round-to-odd from f64 to f32: exact information for one more rounding.
fn f64_to_f32_odd(x: f64) -> f32 {
    let f = x as f32;
    let back = f as f64;
    if back == x || x.is_nan() || f.to_bits() & 1 == 1 {
        return f;
    }
    if x > back { f.next_up() } else { f.next_down() }
}

/// Round `x` to a 16-bit format: `rn` rounds an f32 to nearest, `widen` is exact.
fn narrow(x: f64, mode: Round, l: Layout, rn: fn(f32) -> u16, widen: fn(u16) -> f64) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let bits = rn(f64_to_f32_odd(x));
    if mode == Round::Rn {
        return bits;
    }
    let back = widen(bits);
    let err = sign_f64(x - back);
    let err = if back.is_infinite() {
        -sign_f64(back)
    } else {
        err
    };
    let err = if x == back { 0 } else { err };
    let positive = bits & 0x8000 == 0 && bits != 0;
    let negative = bits & 0x8000 != 0 && bits != 0x8000;
    match mode {
        Round::Rm if err < 0 => next_down(bits, l),
        Round::Rp if err > 0 => next_up(bits, l),
        Round::Rz if positive && err < 0 => next_down(bits, l),
        Round::Rz if negative && err > 0 => next_up(bits, l),
        _ => bits,
    }
}

pub fn f64_to_f16(x: f64, mode: Round) -> f16 {
    f16::from_bits(narrow(
        x,
        mode,
        F16,
        |f| f16::from_f32(f).to_bits(),
        |b| f16::from_bits(b).to_f64(),
    ))
}

pub fn f64_to_bf16(x: f64, mode: Round) -> bf16 {
    bf16::from_bits(narrow(
        x,
        mode,
        BF16,
        |f| bf16::from_f32(f).to_bits(),
        |b| bf16::from_bits(b).to_f64(),
    ))
}

pub fn f32_to_f16(x: f32, mode: Round) -> f16 {
    f64_to_f16(x as f64, mode)
}

pub fn f32_to_bf16(x: f32, mode: Round) -> bf16 {
    f64_to_bf16(x as f64, mode)
}

/// A binary operation of the 16-bit formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

fn binop_f32(op: BinOp, a: f32, b: f32, mode: Round) -> f32 {
    match op {
        BinOp::Add => arith::add_f32(a, b, mode),
        BinOp::Sub => arith::sub_f32(a, b, mode),
        BinOp::Mul => arith::mul_f32(a, b, mode),
        BinOp::Div => arith::div_f32(a, b, mode),
    }
}

pub fn binop_f16(op: BinOp, a: f16, b: f16, mode: Round) -> f16 {
    f32_to_f16(binop_f32(op, a.to_f32(), b.to_f32(), mode), mode)
}

pub fn binop_bf16(op: BinOp, a: bf16, b: bf16, mode: Round) -> bf16 {
    f32_to_bf16(binop_f32(op, a.to_f32(), b.to_f32(), mode), mode)
}

/// Exact-to-odd a*b+c in f64 for 16-bit inputs (the product is exact).
fn fma_odd(a: f64, b: f64, c: f64) -> f64 {
    let p = a * b;
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    if err != 0.0 && s.to_bits() & 1 == 0 {
        if err > 0.0 {
            s.next_up()
        } else {
            s.next_down()
        }
    } else if s == 0.0 && err == 0.0 {
        // Sign of an exact zero follows the f32 rules; compute it there.
        arith::fma_f32(a as f32, b as f32, c as f32, Round::Rn) as f64
    } else {
        s
    }
}

pub fn fma_f16(a: f16, b: f16, c: f16, mode: Round) -> f16 {
    let s = fma_odd(a.to_f64(), b.to_f64(), c.to_f64());
    if s == 0.0 && mode == Round::Rm {
        return f32_to_f16(
            arith::fma_f32(a.to_f32(), b.to_f32(), c.to_f32(), mode),
            mode,
        );
    }
    f64_to_f16(s, mode)
}

pub fn fma_bf16(a: bf16, b: bf16, c: bf16, mode: Round) -> bf16 {
    let s = fma_odd(a.to_f64(), b.to_f64(), c.to_f64());
    if s == 0.0 && mode == Round::Rm {
        return f32_to_bf16(
            arith::fma_f32(a.to_f32(), b.to_f32(), c.to_f32(), mode),
            mode,
        );
    }
    f64_to_bf16(s, mode)
}
