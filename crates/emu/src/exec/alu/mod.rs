//! Lane arithmetic: each function computes all 32 lanes of one op (the
//! caller blends the active ones into the destination). Operands arrive as
//! 64-bit lanes; an op of width `bits` first zero- or sign-extends them, so
//! stale upper bits of a register never leak into a result, and results are
//! masked to their width.
//!
//! - [`int`]: integer, bit and shift operations;
//! - [`float`]: float arithmetic (every format), `fma`, comparisons;
//! - [`half`]: the `.ftz`, `.sat`, `.relu`, `.xorsign.abs` of 16-bit floats;
//! - [`convert`]: `cvt` and the read-modify-write of atomics;
//! - [`pack`]: the packed `cvt` forms (f16x2, bf16x2, FP8 pairs, `cvt.pack`);
//! - [`simd`]: the `prmt` modes, `dp2a` and the SIMD video instructions;
//! - [`video`]: the scalar video instructions (`vadd` ... `vset`).

mod convert;
mod float;
mod half;
mod int;
mod pack;
mod simd;
mod video;

pub use convert::{atomic, cvt_lanes, to_tf32};
pub use float::{compare, float1, float2, fma};
pub use int::{bfi, high_product, int_halves, int1, int2, int3};
pub use pack::cvt_pack;
pub use simd::{dp2a, prmt_mode, video};
pub use video::scalar_video;

use crate::simt::WARP_SIZE;

pub type L = [u64; WARP_SIZE];

#[inline]
pub fn mask_of(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[inline]
pub fn sx(x: u64, bits: u32) -> i64 {
    let s = 64 - bits.clamp(1, 64);
    ((x << s) as i64) >> s
}

#[inline]
pub(super) fn ext(x: u64, bits: u32, signed: bool) -> i128 {
    if signed {
        sx(x, bits) as i128
    } else {
        (x & mask_of(bits)) as i128
    }
}

#[inline]
pub(super) fn map2(a: &L, b: &L, out: &mut L, f: impl Fn(u64, u64) -> u64) {
    for l in 0..WARP_SIZE {
        out[l] = f(a[l], b[l]);
    }
}

#[inline]
pub(super) fn map1(a: &L, out: &mut L, f: impl Fn(u64) -> u64) {
    for l in 0..WARP_SIZE {
        out[l] = f(a[l]);
    }
}

#[inline]
pub(super) fn map3(a: &L, b: &L, c: &L, out: &mut L, f: impl Fn(u64, u64, u64) -> u64) {
    for l in 0..WARP_SIZE {
        out[l] = f(a[l], b[l], c[l]);
    }
}
