//! The modifiers of the 16-bit float instructions and of integer min/max
//! (PTX ISA 9.7.4 "Half Precision Floating-Point Instructions", 9.7.5.1-2
//! "setp"/"set", 9.7.1 "Integer Arithmetic Instructions"): `.relu`, `.ftz`,
//! `.xorsign.abs`, packed `.u16x2`/`.s16x2`, and the modifier combinations
//! no ISA line has, which must be refused rather than ignored. Expected values
//! are worked out by hand; encodings are spelled out next to each case.
//!
//! f16: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 1.5 =
//! 0x3e00, 2.5 = 0x4100 (exponent 16, mantissa 0.25 * 1024 = 0x100), sign
//! 0x8000; 2^-14 (smallest normal) = 0x0400; subnormals 0x0001 (2^-24) to
//! 0x03ff, 2^-15 = 0x0200; canonical NaN 0x7fff.
//! bf16: 1.0 = 0x3f80, 2.0 = 0x4000, 3.0 = 0x4040, 0.5 = 0x3f00, 2.5 = 0x4020.

mod common;
mod snippet;

use common::run_text;
use snippet::check;

/// `inst` with d = %h3 (or %r3), a, b, c = %h0.. (or %r0..) on each case.
fn cases3(inst: &str, regs: [&str; 4], cases: &[(u64, u64, u64, u64)]) {
    for &(a, b, c, want) in cases {
        check(&regs[1..], inst, &regs[..1], &[(&[a, b, c], &[want])]);
    }
}

fn cases2(inst: &str, regs: [&str; 3], cases: &[(u64, u64, u64)]) {
    for &(a, b, want) in cases {
        check(&regs[1..], inst, &regs[..1], &[(&[a, b], &[want])]);
    }
}

const H: [&str; 4] = ["%h3", "%h0", "%h1", "%h2"];
const R: [&str; 4] = ["%r3", "%r0", "%r1", "%r2"];

#[test]
fn fma_relu_clamps_negative_results_and_canonicalises_nan() {
    // ISA 9.7.4.4: "fma.relu.{f16, f16x2, bf16, bf16x2} clamps the result to
    // 0 if negative. NaN result is converted to canonical NaN."
    // 1 * -2 + 0.5 = -1.5 -> 0; 1 * 2 + 0.5 = 2.5; NaN (0x7e01) -> 0x7fff;
    // inf * 0 is NaN -> 0x7fff.
    cases3(
        "fma.rn.relu.f16 %h3, %h0, %h1, %h2;",
        H,
        &[
            (0x3c00, 0xc000, 0x3800, 0x0000),
            (0x3c00, 0x4000, 0x3800, 0x4100),
            (0x7e01, 0x3c00, 0x3800, 0x7fff),
            (0x7c00, 0x0000, 0x3800, 0x7fff),
        ],
    );
    // Without .relu the same -1.5 stays (0xbe00).
    cases3(
        "fma.rn.f16 %h3, %h0, %h1, %h2;",
        H,
        &[(0x3c00, 0xc000, 0x3800, 0xbe00)],
    );
    // Per half: high 1 * -2 + 0.5 -> 0, low 1 * 2 + 0.5 = 2.5.
    cases3(
        "fma.rn.relu.f16x2 %r3, %r0, %r1, %r2;",
        R,
        &[(0x3c00_3c00, 0xc000_4000, 0x3800_3800, 0x0000_4100)],
    );
    cases3(
        "fma.rn.relu.bf16 %h3, %h0, %h1, %h2;",
        H,
        &[
            (0x3f80, 0xc000, 0x3f00, 0x0000),
            (0x3f80, 0x4000, 0x3f00, 0x4020),
            (0x7fc1, 0x3f80, 0x3f00, 0x7fff),
        ],
    );
    cases3(
        "fma.rn.relu.bf16x2 %r3, %r0, %r1, %r2;",
        R,
        &[(0x3f80_3f80, 0x4000_c000, 0x3f00_3f00, 0x4020_0000)],
    );
}

#[test]
fn f16_ftz_flushes_subnormal_inputs_and_results() {
    // ISA 9.7.4.1-4, 9.7.4.7: "{add,mul,fma,min}.ftz.{f16, f16x2} flushes
    // subnormal inputs and results to sign-preserving zero".
    // fma: 2^-24 * 1 + 0 is 0x0001 without .ftz, 0 with it (input);
    // 2^-14 * 0.5 + 0 = 2^-15 = 0x0200 is a subnormal result: 0 (or -0).
    cases3(
        "fma.rn.f16 %h3, %h0, %h1, %h2;",
        H,
        &[
            (0x0001, 0x3c00, 0x0000, 0x0001),
            (0x0400, 0x3800, 0x0000, 0x0200),
        ],
    );
    cases3(
        "fma.rn.ftz.f16 %h3, %h0, %h1, %h2;",
        H,
        &[
            (0x0001, 0x3c00, 0x0000, 0x0000),
            (0x0400, 0x3800, 0x0000, 0x0000),
            (0x8400, 0x3800, 0x0000, 0x8000),
        ],
    );
    // add: 2^-24 + 2^-24 = 2^-23 (0x0002), flushed with .ftz.
    cases2(
        "add.rn.f16 %h3, %h0, %h1;",
        [H[0], H[1], H[2]],
        &[(0x0001, 0x0001, 0x0002)],
    );
    cases2(
        "add.rn.ftz.f16 %h3, %h0, %h1;",
        [H[0], H[1], H[2]],
        &[(0x0001, 0x0001, 0x0000)],
    );
    // mul per half: 2^-14 * 0.5 = 2^-15 in both halves, flushed.
    cases2(
        "mul.rn.ftz.f16x2 %r3, %r0, %r1;",
        [R[0], R[1], R[2]],
        &[(0x0400_8400, 0x3800_3800, 0x0000_8000)],
    );
    // min: -2^-24 and 2^-23 are both flushed, to -0 and +0; "+0.0 > -0.0",
    // so the minimum is -0 (0x8000). Without .ftz it is -2^-24 (0x8001).
    cases2(
        "min.f16 %h3, %h0, %h1;",
        [H[0], H[1], H[2]],
        &[(0x8001, 0x0002, 0x8001)],
    );
    cases2(
        "min.ftz.f16 %h3, %h0, %h1;",
        [H[0], H[1], H[2]],
        &[(0x8001, 0x0002, 0x8000)],
    );
    // neg/abs (9.7.4.5-6) flush the input and the result: neg of 2^-24 is
    // -2^-24 (0x8001), with .ftz -0 (0x8000); abs of -2^-24 with .ftz is +0.
    let one = |inst: &str, a: u64, want: u64| check(&["%h0"], inst, &["%h3"], &[(&[a], &[want])]);
    one("neg.f16 %h3, %h0;", 0x0001, 0x8001);
    one("neg.ftz.f16 %h3, %h0;", 0x0001, 0x8000);
    one("abs.ftz.f16 %h3, %h0;", 0x8001, 0x0000);
}

#[test]
fn f16_comparisons_with_ftz_compare_subnormals_as_zero() {
    // ISA 9.7.5.2 "setp" (half precision): ".ftz: flush subnormal inputs to
    // sign-preserving zero". 2^-24 == 0 is false, true after flushing;
    // -2^-24 < 0 is true, false after flushing (-0 == +0).
    let setp = |inst: &str, a: u64, b: u64, want: u64| {
        check(&["%h0", "%h1"], inst, &["%p0"], &[(&[a, b], &[want])]);
    };
    setp("setp.eq.f16 %p0, %h0, %h1;", 0x0001, 0x0000, 0);
    setp("setp.eq.ftz.f16 %p0, %h0, %h1;", 0x0001, 0x0000, 1);
    setp("setp.lt.f16 %p0, %h0, %h1;", 0x8001, 0x0000, 1);
    setp("setp.lt.ftz.f16 %p0, %h0, %h1;", 0x8001, 0x0000, 0);
    // Packed: the low halves give %p0, the high halves %p1.
    check(
        &["%r0", "%r1"],
        "setp.eq.ftz.f16x2 %p0|%p1, %r0, %r1;",
        &["%p0", "%p1"],
        &[(&[0x03ff_0001, 0x8000_0000], &[1, 1])],
    );
    // set.eq.u32.f16: all ones when true.
    check(
        &["%h0", "%h1"],
        "set.eq.ftz.u32.f16 %r3, %h0, %h1;",
        &["%r3"],
        &[(&[0x0001, 0x8000], &[0xffff_ffff])],
    );
}

#[test]
fn min_max_xorsign_abs() {
    // ISA 9.7.4.7/9.7.4.8 Semantics: the sign is sign(a) ^ sign(b), the
    // operation runs on |a| and |b|, and a NaN result keeps no new sign.
    // min(-2, 3): |.| min 2, sign 1 -> -2 (0xc000); max: 3 -> -3 (0xc200);
    // (-2, -3): sign 0 -> 2 and 3. NaN and -3: min picks 3 (the non-NaN),
    // sign 0 ^ 1 -> -3.
    let f16 = |inst: &str, cases: &[(u64, u64, u64)]| cases2(inst, [H[0], H[1], H[2]], cases);
    f16(
        "min.xorsign.abs.f16 %h3, %h0, %h1;",
        &[
            (0xc000, 0x4200, 0xc000),
            (0xc000, 0xc200, 0x4000),
            (0x7e00, 0xc200, 0xc200),
        ],
    );
    f16(
        "max.xorsign.abs.f16 %h3, %h0, %h1;",
        &[(0xc000, 0x4200, 0xc200), (0xc000, 0xc200, 0x4200)],
    );
    // With .NaN a NaN input gives the canonical NaN, unsigned.
    f16(
        "min.NaN.xorsign.abs.f16 %h3, %h0, %h1;",
        &[(0x7e00, 0xc200, 0x7fff)],
    );
    // bf16x2: high (-2, 3) -> max 3 with sign 1 = 0xc040; low (1, -1) -> 1
    // with sign 1 = 0xbf80.
    cases2(
        "max.xorsign.abs.bf16x2 %r3, %r0, %r1;",
        [R[0], R[1], R[2]],
        &[(0xc000_3f80, 0x4040_bf80, 0xc040_bf80)],
    );
    // f32 (ISA 9.7.3.10/9.7.3.11): -2.0 = 0xc0000000, 3.0 = 0x40400000.
    cases2(
        "min.xorsign.abs.f32 %r3, %r0, %r1;",
        [R[0], R[1], R[2]],
        &[(0xc000_0000, 0x4040_0000, 0xc000_0000)],
    );
    cases2(
        "max.xorsign.abs.f32 %r3, %r0, %r1;",
        [R[0], R[1], R[2]],
        &[(0xc000_0000, 0x4040_0000, 0xc040_0000)],
    );
}

#[test]
fn packed_16x2_integers_work_per_half() {
    let r2 = |inst: &str, cases: &[(u64, u64, u64)]| cases2(inst, [R[0], R[1], R[2]], cases);
    // ISA 9.7.1.1 add .u16x2: "d[i] = iA[i] + iB[i]" per half: the low
    // 0xffff + 1 wraps to 0 without carrying into the high 1 + 1 = 2.
    r2(
        "add.u16x2 %r3, %r0, %r1;",
        &[(0x0001_ffff, 0x0001_0001, 0x0002_0000)],
    );
    // 9.7.1.2 sub: 0 - 1 in each half is 0xffff.
    r2(
        "sub.s16x2 %r3, %r0, %r1;",
        &[(0x0000_0000, 0x0001_0001, 0xffff_ffff)],
    );
    // 9.7.1.10 min: signed, high min(1, -1) = -1, low min(-1, 1) = -1;
    // unsigned, high min(1, 0xffff) = 1, low min(0xffff, 1) = 1.
    r2(
        "min.s16x2 %r3, %r0, %r1;",
        &[(0x0001_ffff, 0xffff_0001, 0xffff_ffff)],
    );
    r2(
        "min.u16x2 %r3, %r0, %r1;",
        &[(0x0001_ffff, 0xffff_0001, 0x0001_0001)],
    );
    r2(
        "max.s16x2 %r3, %r0, %r1;",
        &[(0x0001_ffff, 0xffff_0001, 0x0001_0001)],
    );
}

#[test]
fn integer_min_max_relu_clamps_negative_results() {
    let r2 = |inst: &str, cases: &[(u64, u64, u64)]| cases2(inst, [R[0], R[1], R[2]], cases);
    // ISA 9.7.1.10/9.7.1.11: "If .relu modifier is specified, then d is
    // clamped to 0 if negative". min(-5, 2) = -5 -> 0; max(-5, 2) = 2;
    // max(-5, -1) = -1 -> 0.
    r2(
        "min.relu.s32 %r3, %r0, %r1;",
        &[(0xffff_fffb, 2, 0), (7, 3, 3)],
    );
    r2(
        "max.relu.s32 %r3, %r0, %r1;",
        &[(0xffff_fffb, 2, 2), (0xffff_fffb, 0xffff_ffff, 0)],
    );
    // Per half: high max(-2, -3) = -2 -> 0, low max(5, 3) = 5.
    r2(
        "max.relu.s16x2 %r3, %r0, %r1;",
        &[(0xfffe_0005, 0xfffd_0003, 0x0000_0005)],
    );
}

/// Runs `body` in a one-thread kernel and returns the error text, if any.
fn run_err(body: &str) -> Option<String> {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<4>;\n.reg .b16 %h<4>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<4>;\n{body}\nret;\n}}\n"
    );
    let spec_text = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n\
        [[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = 1\n";
    run_text(&ptx, spec_text).err()
}

#[test]
fn modifiers_without_an_isa_form_are_refused() {
    // No fma line has .satfinite (9.7.3.6, 9.7.4.4); .relu is on the 16-bit
    // fma lines only; min/max .relu is integer .s32/.s16x2 only; there is no
    // .xorsign.abs for f64 or integers; packed 16x2 integers have add, sub,
    // min, max only; mma's .satfinite is on the integer forms only (ISA "mma" syntax).
    // Each would otherwise run as if the modifier were absent.
    for (body, why) in [
        ("fma.rn.satfinite.f32 %r0, %r1, %r2, %r3;", "fma.satfinite"),
        ("fma.rn.relu.f32 %r0, %r1, %r2, %r3;", "fma.relu on .f32"),
        ("fma.rn.sat.relu.f16 %h0, %h1, %h2, %h3;", "with .sat"),
        ("min.relu.f16 %h0, %h1, %h2;", ".relu on .f16"),
        ("max.relu.u32 %r0, %r1, %r2;", ".relu on .u32"),
        (
            "min.xorsign.abs.f64 %rd0, %rd1, %rd1;",
            ".xorsign.abs on .f64",
        ),
        ("min.xorsign.abs.s32 %r0, %r1, %r2;", ".xorsign.abs on .s32"),
        ("mul.lo.u16x2 %r0, %r1, %r2;", "on .u16x2"),
        (
            "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, \
             {%r0, %r1, %r2, %r3}, {%r0, %r1}, {%f0, %f1, %f2, %f3};",
            ".satfinite on a floating-point form",
        ),
    ] {
        let e = run_err(body);
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("unsupported") && e.contains(why)),
            "{body}: {e:?}"
        );
    }
    assert_eq!(run_err("min.relu.s32 %r0, %r1, %r2;"), None);
}
