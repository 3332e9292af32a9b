//! The packed forms of `cvt` (PTX ISA 9.7.9.21 "cvt", 9.7.9.22 "cvt.pack")
//! and the `.relu` / `.satfinite` finishing of 16-bit float results.
//!
//! Packing order, from the ISA's semantics: with two f32 sources `d, a, b`,
//! `a` goes to the upper half of d and `b` to the lower; with one packed
//! source each half (or byte) of `a` converts to the same position of d.

use half::{bf16, f16};

use crate::exec::ops::{CvtPack, CvtPackMods};
use crate::float::Round;
use crate::float::fp8::Fp8;
use crate::float::half_ops::{self, CANON_NAN_BF16, CANON_NAN_F16};

/// Largest finite f16 and bf16 (bits).
const F16_MAX: u16 = 0x7bff;
const BF16_MAX: u16 = 0x7f7f;

/// `v` rounded to f16 (or bf16 with `bf`), then `.satfinite` and `.relu`
/// (PTX ISA "cvt": `.satfinite` keeps NaN a NaN and turns a magnitude above
/// MAX_NORM into the sign-preserved MAX_NORM; `.relu` makes negative
/// results 0 and NaN results the canonical NaN).
pub fn to_half(v: f64, bf: bool, round: Round, relu: bool, satfinite: bool) -> u16 {
    let (max_bits, nan) = if bf {
        (BF16_MAX, CANON_NAN_BF16)
    } else {
        (F16_MAX, CANON_NAN_F16)
    };
    if v.is_nan() && (relu || satfinite) {
        return nan;
    }
    let max = if bf {
        bf16::from_bits(max_bits).to_f64()
    } else {
        f16::from_bits(max_bits).to_f64()
    };
    let bits = if satfinite && v.abs() > max {
        max_bits | if v < 0.0 { 0x8000 } else { 0 }
    } else if bf {
        half_ops::f64_to_bf16(v, round).to_bits()
    } else {
        half_ops::f64_to_f16(v, round).to_bits()
    };
    if relu && bits & 0x8000 != 0 { 0 } else { bits }
}

fn f32_at(x: u64) -> f64 {
    f32::from_bits(x as u32) as f64
}

fn fp8(e5m2: bool) -> Fp8 {
    if e5m2 { Fp8::E5m2 } else { Fp8::E4m3 }
}

/// One lane of a packed `cvt` / `cvt.pack`: `a`, `b`, `c` are the source
/// registers (unused ones are 0).
pub fn cvt_pack(kind: CvtPack, m: CvtPackMods, a: u64, b: u64, c: u64) -> u64 {
    let half = |v: f64, bf: bool| to_half(v, bf, m.round, m.relu, m.satfinite) as u64;
    match kind {
        CvtPack::F32ToHalf2 { bf } => half(f32_at(a), bf) << 16 | half(f32_at(b), bf),
        CvtPack::F32ToF8x2 { e5m2 } => {
            let f = fp8(e5m2);
            let enc = |x: u64| f.encode(f32_at(x), m.satfinite, m.relu) as u64;
            enc(a) << 8 | enc(b)
        }
        CvtPack::F16x2ToF8x2 { e5m2 } => {
            let f = fp8(e5m2);
            let enc = |h: u64| f.encode(f16::from_bits(h as u16).to_f64(), m.satfinite, m.relu);
            (enc(a >> 16) as u64) << 8 | enc(a & 0xffff) as u64
        }
        CvtPack::F8x2ToF16x2 { e5m2 } => {
            // Exact: f16 holds every E4M3 and E5M2 value.
            let f = fp8(e5m2);
            let dec = |byte: u64| half(f.decode(byte as u8), false);
            dec((a >> 8) & 0xff) << 16 | dec(a & 0xff)
        }
        CvtPack::Int { bits, signed } => pack_int(bits as u32, signed, a, b, c),
    }
}

/// `cvt.pack.sat.type.s32[.b32] d, a, b[, c]` (PTX ISA 9.7.9.22): a and b
/// (s32) saturated to the type's range, b in bits [size-1:0] and a in
/// [2 size-1:size]; for types narrower than 16 bits the rest of d is the
/// low bits of c.
fn pack_int(size: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let (lo, hi) = if signed {
        (-(1i64 << (size - 1)), (1i64 << (size - 1)) - 1)
    } else {
        (0, (1i64 << size) - 1)
    };
    let mask = (1u64 << size) - 1;
    let sat = |x: u64| (x as u32 as i32 as i64).clamp(lo, hi) as u64 & mask;
    let td = sat(a) << size | sat(b);
    if size >= 16 {
        td & 0xffff_ffff
    } else {
        (td | c << (2 * size)) & 0xffff_ffff
    }
}
