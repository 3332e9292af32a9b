//! Operand values: special values of each type (zeros, infinities, NaNs,
//! subnormals, integer extremes, rounding ties, conversion boundaries) mixed
//! with random bits and with values close to the first operand (so that
//! additions cancel and roundings are exercised), all drawn from the
//! workspace's xoshiro256** ([`prng::Rng`]) so a seed fixes every byte.

use prng::Rng;

use crate::ty::{FloatKind, Ty};

/// How a form draws one input operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gen {
    /// Special values, random bits and values near operand 0.
    Any,
    /// Uniform in [lo, hi], now and then any value of the type (shift
    /// amounts, bit positions, lane numbers past the warp).
    Range(u64, u64),
    /// A divisor: never zero, never -1 against the minimum (the ISA leaves
    /// both undefined, PTX ISA 9.7.1.8 "div", 9.7.1.9 "rem").
    Divisor,
    /// 0 or 1 (a predicate).
    Bool,
    /// Operand 0's value half the time (a compare-and-swap that succeeds).
    MaybeFirst,
    /// Floats of magnitude 2^-4 to 2^2 with random signs and mantissas,
    /// element by element: products and sums that stay finite (mma).
    Unit,
}

/// Special values of a type, as bits.
pub fn specials(ty: Ty) -> Vec<u64> {
    match ty.float() {
        Some(k) if ty.lanes() == 2 => {
            // Pair specials of the element type; both halves vary.
            let e = float_specials(k);
            let w = k.bits();
            let mut out = Vec::new();
            for (i, &lo) in e.iter().enumerate() {
                let hi = e[(i * 7 + 3) % e.len()];
                out.push(lo | hi << w);
            }
            out
        }
        Some(k) => float_specials(k),
        None => int_specials(ty),
    }
}

fn int_specials(ty: Ty) -> Vec<u64> {
    let m = ty.mask();
    let w = ty.bits();
    let top = 1u64 << (w - 1);
    let mut v = vec![
        0,
        1,
        2,
        3,
        m,
        m - 1,
        top,
        top - 1,
        top + 1,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        31,
        32,
        33,
        63,
        64,
    ];
    v.iter_mut().for_each(|x| *x &= m);
    v.sort_unstable();
    v.dedup();
    v
}

fn float_specials(k: FloatKind) -> Vec<u64> {
    let v: &[u64] = match k {
        FloatKind::F32 => &[
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffc0_0001,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x8080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3f80_0000,
            0xbf80_0000,
            0x3f00_0000,
            0x3fc0_0000,
            0x4020_0000,
            0xc020_0000,
            0x4060_0000,
            0x3eff_ffff,
            0x4b80_0001,
            0x4f00_0000,
            0xcf00_0000,
            0x4f80_0000,
            0x5f00_0000,
            0xdf00_0000,
            0x5f80_0000,
            0x477f_e000,
            0x477f_f000,
            0x43e0_0000,
            0x3380_0000,
            0x3f7f_ffff,
            0x3f80_0001,
        ],
        FloatKind::F64 => &[
            0x0000_0000_0000_0000,
            0x8000_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0xfff8_0000_0000_0001,
            0x0000_0000_0000_0001,
            0x8000_0000_0000_0001,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x3ff0_0000_0000_0000,
            0xbff0_0000_0000_0000,
            0x3fe0_0000_0000_0000,
            0x3ff8_0000_0000_0000,
            0x4004_0000_0000_0000,
            0xc004_0000_0000_0000,
            0x41e0_0000_0000_0000,
            0xc1e0_0000_0000_0000,
            0x41f0_0000_0000_0000,
            0x43e0_0000_0000_0000,
            0xc3e0_0000_0000_0000,
            0x43f0_0000_0000_0000,
            0x47ef_ffff_e000_0000,
            0x47ef_ffff_f000_0000,
            0x3690_0000_0000_0000,
            0x36a0_0000_0000_0000,
            0x3810_0000_0000_0000,
            0x3ff0_0000_1000_0000,
            0x3ff0_0000_0800_0000,
            0x40ef_fc00_0000_0000,
        ],
        FloatKind::F16 => &[
            0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x0001, 0x8001, 0x03ff, 0x0400,
            0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100, 0x3bff, 0x3c01,
        ],
        FloatKind::Bf16 => &[
            0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x0001, 0x8001, 0x007f, 0x0080,
            0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x3f7f,
        ],
        FloatKind::E4m3 => &[
            0x00, 0x80, 0x7f, 0xff, 0x7e, 0xfe, 0x01, 0x07, 0x08, 0x38, 0xb8,
        ],
        FloatKind::E5m2 => &[
            0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7d, 0x01, 0x03, 0x04, 0x7b, 0x3c, 0xbc,
        ],
    };
    v.to_vec()
}

/// One operand of type `ty` drawn by `g`; `first` is operand 0's value when
/// this is a later operand (for near values and divisor rules).
pub fn sample(rng: &mut Rng, ty: Ty, g: Gen, first: Option<u64>) -> u64 {
    let m = ty.mask();
    match g {
        Gen::Bool => rng.next_u64() & 1,
        Gen::MaybeFirst => match first {
            Some(f) if rng.next_u64() & 1 == 0 => f & m,
            _ => any(rng, ty, first),
        },
        Gen::Unit => match ty.float() {
            Some(k) => (0..ty.lanes()).fold(0, |d, l| d | unit(rng, k) << (l * k.bits())),
            None => any(rng, ty, first),
        },
        Gen::Range(lo, hi) => {
            if rng.next_u64().is_multiple_of(8) {
                any(rng, ty, first)
            } else {
                rng.range_i128(lo as i128, hi.max(lo) as i128) as u64 & m
            }
        }
        Gen::Divisor => {
            let v = any(rng, ty, None);
            let minus_one = m;
            let min = 1u64 << (ty.bits() - 1);
            if v == 0 || (ty.signed() && v == minus_one && first.map(|f| f & m) == Some(min)) {
                1
            } else {
                v
            }
        }
        Gen::Any => any(rng, ty, first),
    }
}

fn any(rng: &mut Rng, ty: Ty, first: Option<u64>) -> u64 {
    let m = ty.mask();
    let pick = rng.next_u64() % 8;
    match (pick, ty.float(), first) {
        (0..=2, _, _) => {
            let s = specials(ty);
            let i = rng.range_i128(0, s.len().saturating_sub(1) as i128) as usize;
            s.get(i).copied().unwrap_or(0) & m
        }
        (5..=7, Some(k), Some(f)) => near(rng, k, ty.lanes(), f) & m,
        (6..=7, None, _) => {
            // Small integers: carries, zero crossings, shift-sized values.
            let v = rng.range_i128(-40, 40) as i64 as u64;
            v & m
        }
        _ => rng.next_u64() & m,
    }
}

/// A value close to `f` element by element: low mantissa bits changed and,
/// half the time, the sign flipped (cancellation in add and sub).
fn near(rng: &mut Rng, k: FloatKind, lanes: u32, f: u64) -> u64 {
    let w = k.bits();
    let mut out = 0u64;
    for l in 0..lanes {
        let e = (f >> (l * w)) & k.mask();
        let low = (1u64 << k.mant().div_ceil(2)) - 1;
        let mut v = e ^ (rng.next_u64() & low);
        if rng.next_u64() & 1 == 1 {
            v ^= 1u64 << (w - 1);
        }
        out |= (v & k.mask()) << (l * w);
    }
    out
}

fn unit(rng: &mut Rng, k: FloatKind) -> u64 {
    let exp_bits = k.bits() - 1 - k.mant();
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let e = (bias as i128 + rng.range_i128(-4, 1)) as u64;
    let sign = rng.next_u64() & 1;
    let mant = rng.next_u64() & ((1u64 << k.mant()) - 1);
    sign << (k.bits() - 1) | e << k.mant() | mant
}
