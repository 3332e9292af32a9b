//! The scalar video instructions (PTX ISA 9.7.18.1: `vadd`, `vsub`,
//! `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vset`) with operand
//! selectors, `.sat`, secondary operations and data merges. Expected values
//! are worked out by hand from the ISA's semantics: operands are selected
//! and sign- or zero-extended by type (`partSelectSignExtend`), the result
//! is optionally clamped to the destination's range (a byte or half-word
//! with a `d.bN` / `d.hN` selector: `optSaturate`), then combined with c
//! (`optSecondaryOp`) or merged into the selected part of c (`optMerge`).

mod snippet;

use snippet::check;

fn s(x: i32) -> u64 {
    x as u32 as u64
}

/// `inst` with d = %r4, a = %r1, b = %r2, c = %r3 on each (a, b, c) -> d.
fn run(inst: &str, cases: &[(u64, u64, u64, u64)]) {
    for &(a, b, c, want) in cases {
        check(
            &["%r1", "%r2", "%r3"],
            inst,
            &["%r4"],
            &[(&[a, b, c], &[want])],
        );
    }
}

#[test]
fn add_sub_with_saturation_and_selectors() {
    // Without .sat the 34-bit result is truncated: 0xffffffff + 2 = 1.
    run("vadd.u32.u32.u32 %r4, %r1, %r2;", &[(0xffff_ffff, 2, 0, 1)]);
    // .sat clamps to the destination type's range.
    run(
        "vadd.u32.u32.u32.sat %r4, %r1, %r2;",
        &[(0xffff_ffff, 2, 0, 0xffff_ffff)],
    );
    run(
        "vadd.s32.s32.s32.sat %r4, %r1, %r2;",
        &[
            (0x7fff_ffff, 1, 0, 0x7fff_ffff),
            (0x8000_0000, s(-1), 0, 0x8000_0000),
        ],
    );
    // The ISA's example: a.b0 is unsigned (255 from 0xff), b.h0 signed
    // (0xff00 is -256): 255 - 256 = -1; 0x80 + 1 = 129.
    run(
        "vadd.s32.u32.s32.sat %r4, %r1.b0, %r2.h0;",
        &[
            (0xff, 0xff00, 0, s(-1)),
            (0x1234_5680, 0xffff_0001, 0, 0x81),
        ],
    );
    // a.h1 of 0x80000000 is -32768 (s32), b.h1 of 0xffff0000 is 65535
    // (u32): -98303 = 0xfffe8001.
    run(
        "vsub.s32.s32.u32.sat %r4, %r1.h1, %r2.h1;",
        &[(0x8000_0000, 0xffff_0000, 0, 0xfffe_8001)],
    );
}

#[test]
fn absdiff_merges_into_the_selected_part_of_c() {
    // a.b0 = 0x80 is -128, b.b2 = 0x7f is 127: |-128 - 127| = 255.
    let (a, b, c) = (0x80, 0x007f_0000, 0xaaaa_bbbb);
    // d.h0: 255 fits the signed half-word; it replaces bits 15:0 of c.
    run(
        "vabsdiff.s32.s32.s32.sat %r4.h0, %r1.b0, %r2.b2, %r3;",
        &[(a, b, c, 0xaaaa_00ff)],
    );
    // d.b1 with .sat: clamped to the signed byte range, 127, in bits 15:8.
    run(
        "vabsdiff.s32.s32.s32.sat %r4.b1, %r1.b0, %r2.b2, %r3;",
        &[(a, b, c, 0xaaaa_7fbb)],
    );
    // Without .sat the low byte of 255 goes in.
    run(
        "vabsdiff.u32.s32.s32 %r4.b1, %r1.b0, %r2.b2, %r3;",
        &[(a, b, c, 0xaaaa_ffbb)],
    );
    // d.h1 merges into bits 31:16.
    run(
        "vabsdiff.u32.u32.u32 %r4.h1, %r1, %r2, %r3;",
        &[(10, 3, 0x1234_5678, 0x0007_5678)],
    );
}

#[test]
fn min_max_with_a_secondary_operation() {
    // The ISA's example: min(5, -3) = -3, + c (10) = 7; after .sat the
    // secondary add is not clamped: -7 + 0x7fffffff = 0x7ffffff8.
    run(
        "vmin.s32.s32.s32.sat.add %r4, %r1, %r2, %r3;",
        &[(5, s(-3), 10, 7), (s(-7), 2, 0x7fff_ffff, 0x7fff_fff8)],
    );
    // max(3, 9) = 9, then max with c.
    run(
        "vmax.u32.u32.u32.max %r4, %r1, %r2, %r3;",
        &[(3, 9, 5, 9), (3, 9, 100, 100)],
    );
    // max(-1, -5) = -1, then min with c = -3.
    run(
        "vmax.s32.s32.s32.min %r4, %r1, %r2, %r3;",
        &[(s(-1), s(-5), s(-3), s(-3))],
    );
}

#[test]
fn shifts_clamp_or_wrap_the_amount() {
    // .clamp: amounts above 32 become 32; .wrap: the amount is taken mod 32.
    run(
        "vshl.u32.u32.u32.clamp %r4, %r1, %r2;",
        &[(1, 31, 0, 0x8000_0000), (1, 40, 0, 0), (3, 4, 0, 0x30)],
    );
    run("vshl.u32.u32.u32.wrap %r4, %r1, %r2;", &[(1, 40, 0, 0x100)]);
    // With .sat the unshortened result is clamped: 1 << 32 to U32_MAX.
    run(
        "vshl.u32.u32.u32.sat.clamp %r4, %r1, %r2;",
        &[(1, 32, 0, 0xffff_ffff)],
    );
    // The ISA's example, and with .sat: 2^31 is above S32_MAX.
    run(
        "vshl.s32.u32.u32.clamp %r4, %r1, %r2;",
        &[(1, 31, 0, 0x8000_0000)],
    );
    run(
        "vshl.s32.u32.u32.sat.clamp %r4, %r1, %r2;",
        &[(1, 31, 0, 0x7fff_ffff)],
    );
    // A signed right shift fills with the sign: -2^31 >> 4 = 0xf8000000;
    // clamped to 32 it leaves -1; wrapped, 100 is 4.
    run(
        "vshr.s32.s32.u32.clamp %r4, %r1, %r2;",
        &[
            (0x8000_0000, 4, 0, 0xf800_0000),
            (0x8000_0000, 100, 0, 0xffff_ffff),
        ],
    );
    run(
        "vshr.s32.s32.u32.wrap %r4, %r1, %r2;",
        &[(0x8000_0000, 100, 0, 0xf800_0000)],
    );
    // The ISA's example: the amount from b.h1; unsigned fills with zero.
    run(
        "vshr.u32.u32.u32.wrap %r4, %r1, %r2.h1;",
        &[(0x8000_0000, 0x0004_0000, 0, 0x0800_0000)],
    );
    run(
        "vshr.u32.u32.u32.clamp %r4, %r1, %r2;",
        &[(0xffff_ffff, 32, 0, 0)],
    );
    // The shift amount is unsigned whatever: b.b0 = 0xff is 255, clamped to 32.
    run(
        "vshl.u32.u32.u32.clamp %r4, %r1, %r2.b0;",
        &[(1, 0xff, 0, 0)],
    );
}

#[test]
fn vset_compares_with_mixed_signedness() {
    // The ISA's example types: a is s32, b u32, compared as wide integers:
    // -1 < 0; 1 < 4294967295; 5 < 5 is false.
    run(
        "vset.s32.u32.lt %r4, %r1, %r2;",
        &[(s(-1), 0, 0, 1), (1, 0xffff_ffff, 0, 1), (5, 5, 0, 0)],
    );
    run(
        "vset.u32.u32.ne %r4, %r1, %r2.h1;",
        &[(7, 0x0007_0000, 0, 0), (8, 0x0007_0000, 0, 1)],
    );
    // Secondary add: (5 > 3) + 10 = 11.
    run("vset.u32.u32.gt.add %r4, %r1, %r2, %r3;", &[(5, 3, 10, 11)]);
    // Merge the 0/1 result into byte 2 of c.
    run(
        "vset.s32.s32.ge %r4.b2, %r1, %r2, %r3;",
        &[(s(-1), s(-2), 0xffff_ffff, 0xff01_ffff)],
    );
}

#[test]
fn selectors_print_back() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
                .reg .b32 %r<5>;\nvabsdiff.s32.s32.s32.sat %r4.h0, %r1.b0, %r2.b2, %r3;\n\
                vshr.u32.u32.u32.wrap.add %r4, %r1, %r2.h1, %r3;\n\
                vadd4.u32.u32.u32 %r4.b20, %r1.b0000, %r2.b7654, %r3;\n\
                vmad.s32.s32.u32.sat %r4, -%r1.h1, %r2, -%r3;\nret;\n}\n";
    let module = ptx::parse("k.ptx", text).expect("parses");
    let printed = module.to_string();
    assert!(
        printed.contains("%r4.h0, %r1.b0, %r2.b2, %r3;"),
        "{printed}"
    );
    assert!(printed.contains("%r1, %r2.h1, %r3;"), "{printed}");
    assert!(
        printed.contains("%r4.b20, %r1.b0000, %r2.b7654, %r3;"),
        "{printed}"
    );
    assert!(printed.contains("%r4, -%r1.h1, %r2, -%r3;"), "{printed}");
    let again = ptx::parse("k.ptx", &printed).expect("reparses");
    assert_eq!(module, again);
}

#[test]
fn vmad_plus_one_scale_and_saturate() {
    // PTX ISA 9.7.18.1.3 "vmad" (negation: `vmad_negates_the_product_or_c`): tmp =
    // ta * tb + c (+ 1 with .po), shifted right by .shr7 / .shr15, clamped
    // with .sat to the 32-bit range of the final signedness (signed when a
    // or b is).
    run(
        "vmad.u32.u32.u32 %r4, %r1, %r2, %r3;",
        &[(3, 4, 5, 17), (0xffff_ffff, 0xffff_ffff, 0, 1)],
    );
    // (2^32 - 1)^2 is above U32_MAX.
    run(
        "vmad.u32.u32.u32.sat %r4, %r1, %r2, %r3;",
        &[(0xffff_ffff, 0xffff_ffff, 0, 0xffff_ffff)],
    );
    run("vmad.u32.u32.u32.po %r4, %r1, %r2, %r3;", &[(3, 4, 5, 18)]);
    // The ISA's example: 32768 * 32768 = 2^30, >> 15 = 0x8000; adding
    // 0x7fff does not reach the next step, 0x8000 does.
    run(
        "vmad.u32.u32.u32.shr15 %r4, %r1.h0, %r2.h0, %r3;",
        &[
            (0x8000, 0x8000, 0, 0x8000),
            (0x8000, 0x8000, 0x7fff, 0x8000),
            (0x8000, 0x8000, 0x8000, 0x8001),
        ],
    );
    // Signed: -2 * 3 + (-5) = -11; 2^30 * 4 = 2^32 saturates to S32_MAX.
    run(
        "vmad.s32.s32.u32.sat %r4, %r1, %r2, %r3;",
        &[(s(-2), 3, s(-5), s(-11)), (0x4000_0000, 4, 0, 0x7fff_ffff)],
    );
    // The scaling shift is arithmetic for a signed result: -1 >> 7 = -1,
    // -256 >> 7 = -2.
    run(
        "vmad.s32.s32.s32.shr7 %r4, %r1, %r2, %r3;",
        &[(s(-1), 1, 0, s(-1)), (s(-256), 1, 0, s(-2))],
    );
}

#[test]
fn simd_vset_compares_each_lane() {
    // PTX ISA 9.7.18.2 "vset2" / "vset4" with the default selectors (the
    // lanes of a and of b) and mask (every lane): t[i] = Va[i] cmp Vb[i] ?
    // 1 : 0, merged into d's lanes, or with .add summed into c.
    // Half-words of 0x0001_0005 and 0x0002_0003: 5 < 3 no, 1 < 2 yes.
    run(
        "vset2.u32.u32.lt %r4, %r1, %r2, %r3;",
        &[(0x0001_0005, 0x0002_0003, 0, 0x0001_0000)],
    );
    // 0xffff is -1 as s32 lanes (-1 < 0) but 65535 as u32 lanes.
    run(
        "vset2.s32.s32.lt %r4, %r1, %r2, %r3;",
        &[(0xffff_0001, 0, 0, 0x0001_0000)],
    );
    run(
        "vset2.u32.u32.lt %r4, %r1, %r2, %r3;",
        &[(0xffff_0001, 0, 0, 0)],
    );
    // One lane differs: 10 + 1.
    run(
        "vset2.u32.u32.ne.add %r4, %r1, %r2, %r3;",
        &[(0x0001_0002, 0x0001_0003, 10, 11)],
    );
    // Bytes 44/00, 33/33, 22/00, 11/11: equal in lanes 1 and 3.
    run(
        "vset4.u32.u32.eq %r4, %r1, %r2, %r3;",
        &[(0x1122_3344, 0x1100_3300, 0, 0x0100_0100)],
    );
    // Signed bytes 02, 01, ff (-1), 80 (-128) against 01, 00, 00, 00:
    // two lanes are greater; 100 + 2.
    run(
        "vset4.s32.u32.gt.add %r4, %r1, %r2, %r3;",
        &[(0x80ff_0102, 0x0000_0001, 100, 102)],
    );
}

#[test]
fn simd_selectors_and_masks() {
    // PTX ISA 9.7.18.2 "vop2" / "vop4": .asel / .bsel name, most significant
    // lane first, the half-word (0-3) or byte (0-7) of {b, a} each lane
    // takes (defaults a.h10 / b.h32, a.b3210 / b.b7654); .mask names the
    // lanes of d written, the others keep c's (or, with .add, add nothing).
    // a = {h1 1, h0 2}, b = {h3 0x10, h2 0x20}.
    let (a, b) = (0x0001_0002, 0x0010_0020);
    // a.h01 swaps a's halves: lane 0 = 1 + 0x20, lane 1 = 2 + 0x10.
    run(
        "vadd2.u32.u32.u32 %r4, %r1.h01, %r2.h32, %r3;",
        &[(a, b, 0, 0x0012_0021)],
    );
    // a.h32 reads b's halves and b.h10 a's: lane 0 = 0x20 + 2, lane 1 = 0x10 + 1.
    run(
        "vadd2.u32.u32.u32 %r4, %r1.h32, %r2.h10, %r3;",
        &[(a, b, 0, 0x0011_0022)],
    );
    // d.h1: only lane 1 (1 + 0x10) is written; lane 0 keeps c's 0xbbbb.
    run(
        "vadd2.u32.u32.u32 %r4.h1, %r1, %r2, %r3;",
        &[(a, b, 0xaaaa_bbbb, 0x0011_bbbb)],
    );
    // With .add only the masked lane 0 (2 + 0x20) is added to c.
    run(
        "vadd2.u32.u32.u32.add %r4.h0, %r1, %r2, %r3;",
        &[(a, b, 100, 134)],
    );
    // a.b0000: every lane takes byte 0 of a (0x50) against b's bytes.
    run(
        "vmax4.u32.u32.u32 %r4, %r1.b0000, %r2, %r3;",
        &[(0x50, 0x1060_4070, 0, 0x5060_5070)],
    );
    // Lanes 0 and 2: -128 - 1 saturates to -128 (0x80); lanes 1 and 3 keep
    // c's bytes 0x33 and 0x11.
    run(
        "vsub4.s32.s32.s32.sat %r4.b20, %r1, %r2.b7654, %r3;",
        &[(0x0080_0080, 0x0001_0001, 0x1122_3344, 0x1180_3380)],
    );
}

#[test]
fn vmad_negates_the_product_or_c() {
    // PTX ISA 9.7.18.1.3 "vmad": a negated product is ~(a*b) + 1, a negated
    // c is ~c + 1 (sign-extended: the final result is signed whenever
    // anything is negated). The ISA's example: 5 * 3 - 4 = 11; -2 * 3 -
    // 0x7fffffff is below S32_MIN and saturates.
    run(
        "vmad.s32.s32.u32.sat %r4, %r1, %r2, -%r3;",
        &[(5, 3, 4, 11), (s(-2), 3, 0x7fff_ffff, 0x8000_0000)],
    );
    // -(u32 * u32) + s32: -12 + 10 = -2; -12 + (-1) = -13.
    run(
        "vmad.s32.u32.u32 %r4, -%r1, %r2, %r3;",
        &[(3, 4, 10, s(-2)), (3, 4, s(-1), s(-13))],
    );
    // (u32 * u32) - u32, a signed result: 12 - 20 = -8.
    run(
        "vmad.s32.u32.u32 %r4, %r1, %r2, -%r3;",
        &[(3, 4, 20, s(-8))],
    );
    // Negating both a and b leaves the product positive: 3 * 4 + 5.
    run("vmad.u32.u32.u32 %r4, -%r1, -%r2, %r3;", &[(3, 4, 5, 17)]);
}

#[test]
fn optsaturate_width_and_secondary_operand_sign() {
    // ISA 9.7.18.1 optSaturate: with a d.bN selector the clamp is to the
    // byte range of dtype's sign, with d.hN to the half-word range. 100 +
    // 100 = 200 -> S8_MAX 127 (0x7f) into byte 0 of c; 0x8000 + 0x8000 =
    // 0x10000 -> U16_MAX into half 1; 1 - 2 = -1 -> U8_MIN 0 into byte 1.
    run(
        "vadd.s32.s32.s32.sat %r4.b0, %r1, %r2, %r3;",
        &[(100, 100, 0xaabb_ccdd, 0xaabb_cc7f)],
    );
    run(
        "vadd.u32.u32.u32.sat %r4.h1, %r1, %r2, %r3;",
        &[(0x8000, 0x8000, 0x1234_5678, 0xffff_5678)],
    );
    run(
        "vsub.u32.u32.u32.sat %r4.b1, %r1, %r2, %r3;",
        &[(1, 2, 0xffff_ffff, 0xffff_00ff)],
    );
    // "The sign of the third operand is based on dtype": c = 0xffffffff is
    // -1 for an s32 destination (min(5, -1) = -1) and 2^32 - 1 for a u32
    // one (min(5, 2^32 - 1) = 5).
    run(
        "vmin.s32.u32.u32.min %r4, %r1, %r2, %r3;",
        &[(5, 6, 0xffff_ffff, 0xffff_ffff)],
    );
    run(
        "vmin.u32.u32.u32.min %r4, %r1, %r2, %r3;",
        &[(5, 6, 0xffff_ffff, 5)],
    );
    // vset: "destination d and operand c are also unsigned", even with
    // signed sources: max(1, 2^32 - 1) = 0xffffffff.
    run(
        "vset.s32.s32.lt.max %r4, %r1, %r2, %r3;",
        &[(1, 2, 0xffff_ffff, 0xffff_ffff)],
    );
}

#[test]
fn intermediate_results_have_the_isa_widths() {
    // ISA 9.7.18.1: optSaturate returns, and optSecOp takes, `.s33` values.
    // 0xffffffff + 0xffffffff = 0x1fffffffe does not fit .s33; as one it is
    // -2, so .min with c = 5 gives -2 and .max gives 5.
    run(
        "vadd.u32.u32.u32.min %r4, %r1, %r2, %r3;",
        &[(0xffff_ffff, 0xffff_ffff, 5, 0xffff_fffe)],
    );
    run(
        "vadd.u32.u32.u32.max %r4, %r1, %r2, %r3;",
        &[(0xffff_ffff, 0xffff_ffff, 5, 5)],
    );
    // The primary result is `.s34`: 2 << 32 = 2^33 is -2^33 there, which
    // .sat clamps to U32_MIN 0 (1 << 32 = 2^32 fits and clamps to U32_MAX).
    run(
        "vshl.u32.u32.u32.sat.clamp %r4, %r1, %r2;",
        &[(2, 32, 0, 0), (1, 32, 0, 0xffff_ffff)],
    );
}
