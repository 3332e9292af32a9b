//! Integer, bit-manipulation and shift operations over 32 lanes.

use super::{L, ext, map1, map2, map3, mask_of, sx};
use crate::exec::ops::{IntOp1, IntOp2, IntOp3};
use crate::float::convert::int_range;
use crate::simt::WARP_SIZE;

/// The upper `w` bits of the 2w-bit product. Unsigned 64-bit operands need
/// u128: their product does not fit i128.
#[inline]
pub fn high_product(x: u64, y: u64, w: u32, signed: bool) -> u64 {
    if signed {
        (ext(x, w, true).wrapping_mul(ext(y, w, true)) >> w) as u64
    } else {
        let m = mask_of(w) as u128;
        (((x as u128 & m) * (y as u128 & m)) >> w) as u64
    }
}

pub fn int2(op: IntOp2, bits: u8, signed: bool, a: &L, b: &L, out: &mut L) {
    let w = bits as u32;
    let m = mask_of(w);
    match op {
        // The hot cases first, in forms the compiler vectorises.
        IntOp2::Add => map2(a, b, out, |x, y| x.wrapping_add(y) & m),
        IntOp2::Sub => map2(a, b, out, |x, y| x.wrapping_sub(y) & m),
        IntOp2::MulLo => map2(a, b, out, |x, y| x.wrapping_mul(y) & m),
        IntOp2::And => map2(a, b, out, |x, y| x & y & m),
        IntOp2::Or => map2(a, b, out, |x, y| (x | y) & m),
        IntOp2::Xor => map2(a, b, out, |x, y| (x ^ y) & m),
        IntOp2::Shl => map2(a, b, out, |x, y| {
            let s = y & 0xffff_ffff;
            if s >= w as u64 { 0 } else { (x << s) & m }
        }),
        IntOp2::Shr => map2(a, b, out, |x, y| {
            let s = (y & 0xffff_ffff).min(w as u64 - 1 + (!signed) as u64);
            if s >= w as u64 {
                0
            } else if signed {
                (sx(x, w) >> s) as u64 & m
            } else {
                ((x & m) >> s) & m
            }
        }),
        IntOp2::Bmsk { clamp } => map2(a, b, out, |x, y| bmsk(clamp, x as u32, y as u32)),
        IntOp2::MulWide => map2(a, b, out, |x, y| {
            (ext(x, w, signed).wrapping_mul(ext(y, w, signed)) as u64) & mask_of(2 * w)
        }),
        IntOp2::MulHi => map2(a, b, out, |x, y| high_product(x, y, w, signed) & m),
        IntOp2::Mul24Lo | IntOp2::Mul24Hi => {
            let hi = op == IntOp2::Mul24Hi;
            map2(a, b, out, |x, y| {
                let p = ext(x, 24, signed).wrapping_mul(ext(y, 24, signed));
                (if hi { (p >> 16) as u64 } else { p as u64 }) & m
            })
        }
        IntOp2::AddSat | IntOp2::SubSat => {
            let (lo, hi) = int_range(w, true);
            let sub = op == IntOp2::SubSat;
            map2(a, b, out, |x, y| {
                let (x, y) = (ext(x, w, true), ext(y, w, true));
                let r = if sub { x - y } else { x + y };
                (r.clamp(lo, hi) as u64) & m
            })
        }
        IntOp2::Div => map2(a, b, out, |x, y| {
            let (x, y) = (ext(x, w, signed), ext(y, w, signed));
            // Division by zero is undefined in PTX; all ones is what GPUs return for .u32.
            if y == 0 {
                m
            } else {
                (x.wrapping_div(y) as u64) & m
            }
        }),
        IntOp2::Rem => map2(a, b, out, |x, y| {
            let (xe, ye) = (ext(x, w, signed), ext(y, w, signed));
            if ye == 0 {
                x & m
            } else {
                (xe.wrapping_rem(ye) as u64) & m
            }
        }),
        IntOp2::Min => map2(a, b, out, |x, y| {
            (ext(x, w, signed).min(ext(y, w, signed)) as u64) & m
        }),
        IntOp2::Max => map2(a, b, out, |x, y| {
            (ext(x, w, signed).max(ext(y, w, signed)) as u64) & m
        }),
    }
}

/// [`crate::exec::ops::Op::IntHalves`]: `op` on each 16-bit half (`halves`)
/// or on the 32-bit word, then `.relu`'s clamp of negative results to 0.
pub fn int_halves(op: IntOp2, halves: bool, signed: bool, relu: bool, a: &L, b: &L, out: &mut L) {
    let (w, parts) = if halves { (16, 2) } else { (32, 1) };
    let (mut pa, mut pb, mut part) = ([0u64; WARP_SIZE], [0u64; WARP_SIZE], [0u64; WARP_SIZE]);
    *out = [0; WARP_SIZE];
    for k in 0..parts {
        let sh = 16 * k;
        for l in 0..WARP_SIZE {
            pa[l] = a[l] >> sh;
            pb[l] = b[l] >> sh;
        }
        // int2 extends from w bits, so the other half does not leak in.
        int2(op, w as u8, signed, &pa, &pb, &mut part);
        for l in 0..WARP_SIZE {
            let v = if relu && sx(part[l], w) < 0 {
                0
            } else {
                part[l]
            };
            out[l] |= v << sh;
        }
    }
}

pub fn int1(op: IntOp1, bits: u8, signed: bool, a: &L, out: &mut L) {
    let w = bits as u32;
    let m = mask_of(w);
    match op {
        IntOp1::Neg => map1(a, out, |x| x.wrapping_neg() & m),
        IntOp1::Abs => map1(a, out, |x| (sx(x, w).wrapping_abs() as u64) & m),
        IntOp1::Not => map1(a, out, |x| !x & m),
        IntOp1::Cnot => map1(a, out, |x| (x & m == 0) as u64),
        IntOp1::Popc => map1(a, out, |x| (x & m).count_ones() as u64),
        IntOp1::Clz => map1(a, out, |x| ((x & m).leading_zeros() - (64 - w)) as u64),
        IntOp1::Brev => map1(a, out, |x| (x & m).reverse_bits() >> (64 - w)),
        IntOp1::Bfind | IntOp1::BfindShiftAmt => {
            let shiftamt = op == IntOp1::BfindShiftAmt;
            map1(a, out, |x| {
                // Signed: the most significant bit that differs from the sign.
                let v = if signed && sx(x, w) < 0 {
                    !x & m
                } else {
                    x & m
                };
                if v == 0 {
                    0xffff_ffff
                } else {
                    let pos = 63 - v.leading_zeros() as u64;
                    if shiftamt { (w as u64 - 1) - pos } else { pos }
                }
            })
        }
    }
}

pub fn int3(op: IntOp3, bits: u8, signed: bool, a: &L, b: &L, c: &L, out: &mut L) {
    let w = bits as u32;
    let m = mask_of(w);
    match op {
        IntOp3::MadLo => map3(a, b, c, out, |x, y, z| {
            x.wrapping_mul(y).wrapping_add(z) & m
        }),
        IntOp3::MadHi => map3(a, b, c, out, |x, y, z| {
            high_product(x, y, w, signed).wrapping_add(z) & m
        }),
        IntOp3::MadHiSat => {
            let (lo, hi) = int_range(w, true);
            map3(a, b, c, out, |x, y, z| {
                let h = ext(x, w, true).wrapping_mul(ext(y, w, true)) >> w;
                ((h + ext(z, w, true)).clamp(lo, hi) as u64) & m
            })
        }
        IntOp3::MadWide => map3(a, b, c, out, |x, y, z| {
            (ext(x, w, signed).wrapping_mul(ext(y, w, signed)) as u64).wrapping_add(z)
                & mask_of(2 * w)
        }),
        IntOp3::Mad24Lo => map3(a, b, c, out, |x, y, z| {
            (ext(x, 24, signed).wrapping_mul(ext(y, 24, signed)) as u64).wrapping_add(z) & m
        }),
        IntOp3::Bfe => map3(a, b, c, out, |x, p, l| {
            let (pos, len) = field_operands(w, p, l);
            let x = x & m;
            if len == 0 {
                return 0;
            }
            if signed {
                let msb_pos = (pos as u64 + len as u64 - 1).min(u64::from(w) - 1) as u32;
                let sbit = (x >> msb_pos) & 1;
                let field = if pos >= w {
                    0
                } else {
                    (x >> pos) & mask_of(len)
                };
                let ext_from = len.min(w.saturating_sub(pos));
                if sbit == 1 && ext_from < 64 {
                    (field | !mask_of(ext_from)) & m
                } else {
                    field & m
                }
            } else if pos >= w {
                0
            } else {
                (x >> pos) & mask_of(len) & m
            }
        }),
        IntOp3::Prmt => map3(a, b, c, out, |x, y, s| {
            let bytes = ((y & 0xffff_ffff) << 32) | (x & 0xffff_ffff);
            let mut r = 0u64;
            for i in 0..4 {
                let sel = (s >> (4 * i)) & 0xf;
                let byte = (bytes >> (8 * (sel & 7))) & 0xff;
                let byte = if sel & 8 != 0 {
                    if byte & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    byte
                };
                r |= byte << (8 * i);
            }
            r
        }),
        IntOp3::PrmtMode(mode) => map3(a, b, c, out, |x, y, s| super::prmt_mode(mode, x, y, s)),
        IntOp3::ShfL { clamp } | IntOp3::ShfR { clamp } => {
            let left = matches!(op, IntOp3::ShfL { .. });
            map3(a, b, c, out, |x, y, n| {
                let n = if clamp {
                    (n & 0xffff_ffff).min(32)
                } else {
                    n & 31
                };
                let both = ((y & 0xffff_ffff) << 32) | (x & 0xffff_ffff);
                if left {
                    ((both << n) >> 32) & 0xffff_ffff
                } else {
                    (both >> n) & 0xffff_ffff
                }
            })
        }
        IntOp3::Lop3(lut) => map3(a, b, c, out, |x, y, z| {
            let mut r = 0u64;
            for i in 0..8u32 {
                if lut >> i & 1 == 1 {
                    let ta = if i & 4 != 0 { x } else { !x };
                    let tb = if i & 2 != 0 { y } else { !y };
                    let tc = if i & 1 != 0 { z } else { !z };
                    r |= ta & tb & tc;
                }
            }
            r & m
        }),
        IntOp3::Sad => map3(a, b, c, out, |x, y, z| {
            let d = (ext(x, w, signed) - ext(y, w, signed)).unsigned_abs() as u64;
            d.wrapping_add(z) & m
        }),
    }
}

/// bfe's and bfi's position and length: the low 8 bits of each operand for
/// the 32-bit forms, as the ISA says; the whole 32-bit operands for the
/// 64-bit forms, as an H200 computes them (data/conformance/nvidia-h200,
/// and docs/conformance.md "Where the GPU differs from the ISA's text").
fn field_operands(w: u32, pos: u64, len: u64) -> (u32, u32) {
    if w == 64 {
        (pos as u32, len as u32)
    } else {
        ((pos & 0xff) as u32, (len & 0xff) as u32)
    }
}

pub fn bfi(bits: u8, a: &L, b: &L, pos: &L, len: &L, out: &mut L) {
    let w = bits as u32;
    let m = mask_of(w);
    for l in 0..WARP_SIZE {
        let (p, n) = field_operands(w, pos[l], len[l]);
        out[l] = if p >= w || n == 0 {
            b[l] & m
        } else {
            let f = (mask_of(n) << p) & m;
            ((b[l] & !f) | ((a[l] << p) & f)) & m
        };
    }
}

/// `bmsk.mode.b32 d, a, b`, as the PTX ISA's semantics for bmsk spell it:
/// mask0 = ~0 << (a & 31), mask1 = ~0 << ((a & 31) + (b & 31)), d = mask0 &
/// ~mask1, where mask1 is 0 when that sum reaches 32 or, with `.clamp`, when
/// a or b is 32 or more (`.clamp` also zeroes mask0 for a >= 32).
fn bmsk(clamp: bool, a: u32, b: u32) -> u64 {
    let (a1, b1) = (a & 31, b & 31);
    let sum = a1 + b1;
    let mask0 = if clamp && a >= 32 { 0 } else { u32::MAX << a1 };
    let mask1 = if sum >= 32 || (clamp && (a >= 32 || b >= 32)) {
        0
    } else {
        // b1 == 0 leaves mask1 = ~0 << a1 = mask0: an empty mask, as the
        // ISA's `b1 == 0` case (mask1 = ~0) also gives.
        u32::MAX << sum
    };
    (mask0 & !mask1) as u64
}
