//! The scalar video instructions `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
//! `vshl`, `vshr`, `vset` and `vmad` (PTX ISA 9.7.18.1), one lane at a time.
//!
//! The ISA's stages: select a byte, half-word or the word of a and b and
//! sign- or zero-extend it by its type (`partSelectSignExtend`); compute a
//! wide intermediate result; optionally saturate it to the destination's
//! range, which a `d.b0`-style selector narrows to a byte or half-word
//! (`optSaturate`); then either a secondary operation with c (`.add`,
//! `.min`, `.max`: `optSecondaryOp`) or, with a destination selector, merge
//! the low byte / half-word into that position of c (`optMerge`). The
//! intermediate widths are the ISA's: inputs `.s33`, the primary result
//! `.s34`, the saturated or secondary operands `.s33`.

use ptx::{CmpOp, VideoOp2, VideoSel};

use crate::exec::ops::{ScalarVideo, ScalarVideoOp};

/// `partSelectSignExtend(x, type, sel)`.
fn select(x: u64, signed: bool, sel: Option<VideoSel>) -> i128 {
    let x = x as u32;
    let (v, bits) = match sel {
        None => (x, 32),
        Some(VideoSel::B0) => (x & 0xff, 8),
        Some(VideoSel::B1) => ((x >> 8) & 0xff, 8),
        Some(VideoSel::B2) => ((x >> 16) & 0xff, 8),
        Some(VideoSel::B3) => (x >> 24, 8),
        Some(VideoSel::H0) => (x & 0xffff, 16),
        Some(VideoSel::H1) => (x >> 16, 16),
    };
    if signed {
        let s = 32 - bits;
        (((v << s) as i32) >> s) as i128
    } else {
        v as i128
    }
}

/// `x` as a two's complement integer of `bits` bits.
fn wrap(x: i128, bits: u32) -> i128 {
    let s = 128 - bits;
    (x << s) >> s
}

/// The width a destination selector gives the result (32 without one).
fn dest_bits(sel: Option<VideoSel>) -> u32 {
    match sel {
        None => 32,
        Some(VideoSel::H0 | VideoSel::H1) => 16,
        Some(_) => 8,
    }
}

/// `optMerge(dsel, tmp, c)`: the low byte / half-word of tmp into the
/// selected position of c.
fn merge(sel: VideoSel, tmp: i128, c: u32) -> u32 {
    let (shift, mask) = match sel {
        VideoSel::B0 => (0, 0xff),
        VideoSel::B1 => (8, 0xff),
        VideoSel::B2 => (16, 0xff),
        VideoSel::B3 => (24, 0xff),
        VideoSel::H0 => (0, 0xffff),
        VideoSel::H1 => (16, 0xffff),
    };
    ((tmp as u32 & mask) << shift) | (c & !(mask << shift))
}

pub(super) fn compare(cmp: CmpOp, x: i128, y: i128) -> bool {
    match cmp {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        // Only .eq .ne .lt .le .gt .ge are valid for vset.
        _ => x >= y,
    }
}

/// `vmad` (PTX ISA 9.7.18.1.3), as its semantics spell it: the final
/// result is signed when a or b is or anything is negated; the product is
/// negated (as ~p + 1) when exactly one of a, b is, else c is (~c + 1);
/// `.po` adds one instead; c is sign- or zero-extended by the final
/// signedness; the sum is shifted right (arithmetically when signed) by the
/// scale, and `.sat` clamps it to the 32-bit range of its signedness.
fn vmad(f: &ScalarVideo, po: bool, shift: u8, neg: [bool; 3], abc: [u64; 3]) -> u64 {
    let [_, asel, bsel] = f.sel;
    let neg_product = neg[0] ^ neg[1];
    let signed = f.a_signed || f.b_signed || neg_product || neg[2];
    let (ta, tb) = (
        select(abc[0], f.a_signed, asel),
        select(abc[1], f.b_signed, bsel),
    );
    let (mut product, mut c, mut lsb) = (ta * tb, abc[2] as u32, 0);
    if po {
        lsb = 1;
    } else if neg_product {
        product = !product;
        lsb = 1;
    } else if neg[2] {
        c = !c;
        lsb = 1;
    }
    let c = if signed { c as i32 as i128 } else { c as i128 };
    let tmp = (product + c + lsb) >> shift;
    let tmp = match (f.sat, signed) {
        (false, _) => tmp,
        (true, true) => tmp.clamp(i32::MIN as i128, i32::MAX as i128),
        (true, false) => tmp.clamp(0, u32::MAX as i128),
    };
    tmp as u32 as u64
}

/// One lane of a scalar video instruction.
pub fn scalar_video(f: &ScalarVideo, a: u64, b: u64, c: u64) -> u64 {
    if let ScalarVideoOp::Mad { po, shift, neg } = f.op {
        return vmad(f, po, shift, neg, [a, b, c]);
    }
    let [dsel, asel, bsel] = f.sel;
    let ta = select(a, f.a_signed, asel);
    // The shift amount of vshl / vshr is always unsigned.
    let shift = matches!(f.op, ScalarVideoOp::Shl | ScalarVideoOp::Shr);
    let tb = select(b, f.b_signed && !shift, bsel);
    let amount = || {
        if f.clamp { tb.min(32) } else { tb & 0x1f }
    };
    let tmp = match f.op {
        ScalarVideoOp::Add => ta + tb,
        ScalarVideoOp::Sub => ta - tb,
        ScalarVideoOp::Absdiff => (ta - tb).abs(),
        ScalarVideoOp::Min => ta.min(tb),
        ScalarVideoOp::Max => ta.max(tb),
        ScalarVideoOp::Shl => ta << amount(),
        ScalarVideoOp::Shr => ta >> amount(),
        ScalarVideoOp::Set(cmp) => compare(cmp, ta, tb) as i128,
        // Handled by `vmad` above.
        ScalarVideoOp::Mad { .. } => ta * tb,
    };
    // "Perform a scalar arithmetic operation to produce a signed 34-bit
    // result" (ISA 9.7.18.1, stage 2): a wider vshl result keeps its low 34
    // bits.
    let tmp = wrap(tmp, 34);
    // vset's result is unsigned 0 or 1 and is never saturated.
    let tmp = if f.sat && !matches!(f.op, ScalarVideoOp::Set(_)) {
        let w = dest_bits(dsel);
        let (lo, hi) = if f.d_signed {
            (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
        } else {
            (0, (1i128 << w) - 1)
        };
        tmp.clamp(lo, hi)
    } else {
        tmp
    };
    // `optSaturate` returns, and `optSecOp` takes, an `.s33`: an unclamped
    // result outside [-2^32, 2^32) wraps (0xffffffff + 0xffffffff is -2),
    // which matters to .min / .max only; the low 32 bits are unchanged.
    let tmp = wrap(tmp, 33);
    // c has the destination's type (ISA: "The sign of the third operand is
    // based on dtype"; vset: "destination d and operand c are also
    // unsigned").
    let d_signed = f.d_signed && !matches!(f.op, ScalarVideoOp::Set(_));
    let tc = select(c, d_signed, None);
    let d = match (dsel, f.op2) {
        (Some(sel), _) => merge(sel, tmp, c as u32) as i128,
        (None, Some(VideoOp2::Add)) => tmp + tc,
        (None, Some(VideoOp2::Min)) => tmp.min(tc),
        (None, Some(VideoOp2::Max)) => tmp.max(tc),
        (None, None) => tmp,
    };
    d as u32 as u64
}
