//! Integer `mma.sync` with 8-bit multiplicands (PTX ISA "Warp-level matrix
//! multiply-accumulate instructions: mma", integer type; fragment layouts
//! from "Matrix fragments for mma.m8n8k16", "... mma.m16n8k16 with integer
//! type" and "... mma.m16n8k32").
//!
//! With g = lane / 4 and t = lane % 4, and 8-bit elements numbered from the
//! low byte of a fragment's first register:
//! - A element i: row g + 8 * ((i / 4) % 2), column 4t + i % 4 + 16 * (i / 8)
//!   (m8n8k16 has i < 4, m16n8k16 i < 8, m16n8k32 i < 16);
//! - B element i: row 4t + i % 4 + 16 * (i / 4), column g;
//! - C / D element i (one `.s32` register each): row g + 8 * (i / 2),
//!   column 2t + i % 2.
//!
//! Products and sums are exact (in i64); the ISA then clamps to the s32
//! range with `.satfinite` and wraps otherwise.

use super::tensor::Regs;
use crate::simt::WARP_SIZE;

/// One integer mma configuration.
pub(super) struct IntMma {
    pub m: usize,
    pub k: usize,
    pub a_signed: bool,
    pub b_signed: bool,
    pub satfinite: bool,
}

/// Byte `i` of a fragment (four per register), sign- or zero-extended.
fn byte(regs: &Regs, lane: usize, i: usize, signed: bool) -> i64 {
    let b = regs
        .get(i / 4)
        .map_or(0, |r| (r[lane] >> (8 * (i % 4))) as u8);
    if signed { b as i8 as i64 } else { b as i64 }
}

impl IntMma {
    /// D = A B + C over the warp's fragments; D has as many registers as C.
    pub fn run(&self, a: &Regs, b: &Regs, c: &Regs) -> Regs {
        // Gather the whole A (m x k), B (k x 8) and C (m x 8).
        let mut am = [[0i64; 32]; 16];
        let mut bm = [[0i64; 8]; 32];
        let mut cm = [[0i64; 8]; 16];
        for l in 0..WARP_SIZE {
            let (g, t) = (l / 4, l % 4);
            for i in 0..self.m * self.k / 32 {
                let (row, col) = (g + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8));
                am[row][col] = byte(a, l, i, self.a_signed);
            }
            for i in 0..self.k / 4 {
                bm[4 * t + i % 4 + 16 * (i / 4)][g] = byte(b, l, i, self.b_signed);
            }
            for (i, r) in c.iter().enumerate() {
                cm[g + 8 * (i / 2)][2 * t + i % 2] = r[l] as u32 as i32 as i64;
            }
        }
        let mut out: Regs = vec![[0u64; WARP_SIZE]; c.len()];
        for l in 0..WARP_SIZE {
            let (g, t) = (l / 4, l % 4);
            for (i, r) in out.iter_mut().enumerate() {
                let (row, col) = (g + 8 * (i / 2), 2 * t + i % 2);
                let sum = (0..self.k).fold(cm[row][col], |s, kk| s + am[row][kk] * bm[kk][col]);
                let v = if self.satfinite {
                    sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                } else {
                    sum as i32
                };
                r[l] = v as u32 as u64;
            }
        }
        out
    }
}
