//! Byte- and half-word-SIMD integer operations: the `prmt` modes, `dp2a`
//! and the SIMD video instructions (`vadd2` ... `vmax4`). Each works on one
//! lane's 32-bit values; the callers loop over the lanes.
//!
//! Definitions follow the PTX ISA ("prmt", "dp2a", "vop2", "vop4"); byte
//! indices below count from the least significant byte of `{b, a}` (a is
//! bytes 0-3, b bytes 4-7).

use ptx::PrmtMode;

use crate::exec::ops::{VideoForm, VideoOp};

/// The source byte index each result byte takes (result byte 0 first) for a
/// `prmt` mode and the two-bit selector `c[1:0]` (PTX ISA, table of `prmt`
/// modes, where rows are written most significant byte first).
fn prmt_indices(mode: PrmtMode, sel: u32) -> [u32; 4] {
    let s = sel & 3;
    match mode {
        // Forward 4 extract: bytes s, s+1, s+2, s+3 of {b, a}.
        PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
        // Backward 4 extract: byte s, then the three bytes below it, wrapping
        // around the 8 bytes of {b, a} (sel 0 gives 5 6 7 0, msb first).
        PrmtMode::B4e => [s, (s + 7) % 8, (s + 6) % 8, (s + 5) % 8],
        // Replicate byte s.
        PrmtMode::Rc8 => [s; 4],
        // Edge clamp left: byte i takes max(i, s).
        PrmtMode::Ecl => [0, 1, 2, 3].map(|i: u32| i.max(s)),
        // Edge clamp right: byte i takes min(i, s).
        PrmtMode::Ecr => [0, 1, 2, 3].map(|i: u32| i.min(s)),
        // Replicate the 16-bit half s[1]: bytes 0,1 (s even) or 2,3 (s odd)
        // twice; the ISA's table gives 1 0 1 0 for sel 0 and 2, 3 2 3 2 for 1 and 3.
        PrmtMode::Rc16 => {
            let lo = (s & 1) * 2;
            [lo, lo + 1, lo, lo + 1]
        }
    }
}

/// `prmt.b32.mode d, a, b, c`.
pub fn prmt_mode(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let bytes = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    prmt_indices(mode, c as u32)
        .iter()
        .enumerate()
        .fold(0u64, |r, (i, &src)| {
            r | (((bytes >> (8 * src)) & 0xff) << (8 * i))
        })
}

fn ext16(x: u32, signed: bool) -> i64 {
    if signed {
        x as u16 as i16 as i64
    } else {
        x as u16 as i64
    }
}

fn ext8(x: u32, signed: bool) -> i64 {
    if signed {
        x as u8 as i8 as i64
    } else {
        x as u8 as i64
    }
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: the two 16-bit halves of a times
/// two bytes of b (bytes 0,1 for `.lo`, 2,3 for `.hi`), plus c, modulo 2^32.
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let base = if hi { 16 } else { 0 };
    let mut acc = c as u32 as i64;
    for i in 0..2 {
        let x = ext16(a >> (16 * i), a_signed);
        let y = ext8(b >> (base + 8 * i), b_signed);
        acc = acc.wrapping_add(x * y);
    }
    acc as u32 as u64
}

/// One video-SIMD lane result before saturation and merging.
fn video_lane(op: VideoOp, x: i64, y: i64) -> i64 {
    match op {
        VideoOp::Add => x + y,
        VideoOp::Sub => x - y,
        // Rounded average: (a + b + 1) >> 1 (an arithmetic shift).
        VideoOp::Avrg => (x + y + 1) >> 1,
        VideoOp::Absdiff => (x - y).abs(),
        VideoOp::Min => x.min(y),
        VideoOp::Max => x.max(y),
        VideoOp::Set(cmp) => super::video::compare(cmp, x as i128, y as i128) as i64,
    }
}

/// `vop2` / `vop4 d{.mask}, a{.asel}, b{.bsel}, c` (PTX ISA 9.7.18.2):
/// lane i takes elements `asel[i]` and `bsel[i]` of `{b, a}`, sign- or
/// zero-extended per type; with `.sat` the lane result is clamped to the
/// destination lane's range, otherwise truncated. Secondary operation:
/// `.add` gives c + the sum of the masked lane results (modulo 2^32);
/// without it, the masked lanes replace those of c.
pub fn video(f: VideoForm, a: u64, b: u64, c: u64) -> u64 {
    let ba = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let (n, w) = if f.four { (4, 8) } else { (2, 16) };
    let elem = |k: u8, signed: bool| {
        let v = (ba >> (w * k as u32)) as u32;
        if f.four {
            ext8(v, signed)
        } else {
            ext16(v, signed)
        }
    };
    let lane_mask = (1u64 << w) - 1;
    let (lo, hi) = if f.d_signed {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    };
    let mut sum = c as u32 as i64;
    let mut merged = c & 0xffff_ffff;
    for i in 0..n {
        if f.mask >> i & 1 == 0 {
            continue;
        }
        let t = video_lane(
            f.op,
            elem(f.asel[i], f.a_signed),
            elem(f.bsel[i], f.b_signed),
        );
        let t = if f.sat { t.clamp(lo, hi) } else { t };
        sum = sum.wrapping_add(t);
        let sh = w * i as u32;
        merged = (merged & !(lane_mask << sh)) | ((t as u64 & lane_mask) << sh);
    }
    if f.add { sum as u32 as u64 } else { merged }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_mode_rows_match_the_isa_table() {
        // a = bytes 3..0 = 33 22 11 00, b = bytes 7..4 = 77 66 55 44: the
        // result's bytes read back as the source byte indices.
        let (a, b) = (0x3322_1100u64, 0x7766_5544u64);
        let idx =
            |v: u64| -> [u64; 4] { [(v >> 24) & 0xf, (v >> 16) & 0xf, (v >> 8) & 0xf, v & 0xf] };
        let table: [(PrmtMode, [[u64; 4]; 4]); 6] = [
            (
                PrmtMode::F4e,
                [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
            ),
            (
                PrmtMode::B4e,
                [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
            ),
            (
                PrmtMode::Rc8,
                [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecl,
                [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecr,
                [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
            ),
            (
                PrmtMode::Rc16,
                [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
            ),
        ];
        for (mode, rows) in table {
            for (sel, row) in rows.iter().enumerate() {
                // Selector bits above [1:0] are ignored.
                let got = prmt_mode(mode, a, b, sel as u64 | 0xfff0);
                assert_eq!(idx(got), *row, "{mode:?} sel {sel}");
            }
        }
    }
}
