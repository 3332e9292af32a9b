//! Conformance of comparisons, integer conversions and carry chains with the
//! PTX ISA. Every expected value is worked out by hand from the ISA text
//! cited next to it.

mod snippet;

use snippet::check;

// f16 bit patterns: 0.5, 1.0, 2.0, -1.0, a quiet NaN.
const H_HALF: u64 = 0x3800;
const H_ONE: u64 = 0x3c00;
const H_TWO: u64 = 0x4000;
const H_NEG1: u64 = 0xbc00;
const H_NAN: u64 = 0x7e00;

/// `{hi, lo}` packed into an f16x2 / bf16x2 register.
fn pair(hi: u64, lo: u64) -> u64 {
    hi << 16 | lo
}

#[test]
fn set_f16x2_compares_each_half() {
    // PTX ISA 9.7.4.x "Half Precision Comparison Instructions: set": for an
    // .f16x2 source, t[0] = fA[0] cmp fB[0] (bits 15:0), t[1] = fA[1] cmp
    // fB[1] (bits 31:16); with an integer dtype d[i] = t[i] ? 0xffff : 0,
    // with .f16x2 dtype d[i] = t[i] ? 1.0 : 0.0.
    let a_b = [
        // hi: 1 < 2 true; lo: 2 < 1 false.
        (
            pair(H_ONE, H_TWO),
            pair(H_TWO, H_ONE),
            0xffff_0000u64,
            pair(H_ONE, 0),
        ),
        // hi: 2 < 1 false; lo: 1 < 2 true.
        (
            pair(H_TWO, H_ONE),
            pair(H_ONE, H_TWO),
            0x0000_ffff,
            pair(0, H_ONE),
        ),
        // Both: -1 < 1 and 0.5 < 1.
        (
            pair(H_NEG1, H_HALF),
            pair(H_ONE, H_ONE),
            0xffff_ffff,
            pair(H_ONE, H_ONE),
        ),
        // hi NaN: an ordered lt is false; lo 0.5 < 1 true.
        (
            pair(H_NAN, H_HALF),
            pair(H_ONE, H_ONE),
            0x0000_ffff,
            pair(0, H_ONE),
        ),
    ];
    for (a, b, want_u32, want_f16x2) in a_b {
        check(
            &["%r1", "%r2"],
            "set.lt.u32.f16x2 %r3, %r1, %r2;\nset.lt.f16x2.f16x2 %r4, %r1, %r2;",
            &["%r3", "%r4"],
            &[(&[a, b], &[want_u32, want_f16x2])],
        );
    }
    // Unordered ltu: NaN compares true (ISA "Floating Point Comparison" table).
    check(
        &["%r1", "%r2"],
        "set.ltu.s32.f16x2 %r3, %r1, %r2;",
        &["%r3"],
        &[(&[pair(H_NAN, H_TWO), pair(H_ONE, H_ONE)], &[0xffff_0000])],
    );
    // BoolOp applies to each half: d[i] = BoolOp(t[i], c) ? 0xffff : 0.
    let both_lt = [pair(H_ONE, H_TWO), pair(H_TWO, H_ONE)];
    check(
        &["%r1", "%r2", "%p1"],
        "set.lt.or.u32.f16x2 %r3, %r1, %r2, %p1;\nset.lt.and.u32.f16x2 %r4, %r1, %r2, !%p1;",
        &["%r3", "%r4"],
        &[
            (&[both_lt[0], both_lt[1], 1], &[0xffff_ffff, 0]),
            (&[both_lt[0], both_lt[1], 0], &[0xffff_0000, 0xffff_0000]),
        ],
    );
}

#[test]
fn set_and_setp_bf16x2_compare_each_half() {
    // The same per-half rule for .bf16x2 (ISA "Half Precision Comparison
    // Instructions"); bf16 1.0 = 0x3f80, 2.0 = 0x4000.
    let (a, b) = (pair(0x3f80, 0x4000), pair(0x4000, 0x3f80));
    check(
        &["%r1", "%r2"],
        "set.lt.u32.bf16x2 %r3, %r1, %r2;\nset.lt.bf16x2.bf16x2 %r4, %r1, %r2;\n\
         setp.lt.bf16x2 %p1|%p2, %r1, %r2;",
        &["%r3", "%r4", "%p1", "%p2"],
        &[(&[a, b], &[0xffff_0000, 0x3f80_0000, 0, 1])],
    );
}

#[test]
fn set_true_value_follows_the_destination_type() {
    // PTX ISA 9.7.3.x "set": true writes 1.0f for a float dtype and
    // 0xffffffff for an integer dtype; "Half Precision Comparison
    // Instructions: set": 1.0 in f16 (0x3c00) for an .f16 dtype.
    check(
        &["%r1", "%r2"],
        "set.lt.u32.s32 %r3, %r1, %r2;\nset.lt.f32.s32 %r4, %r1, %r2;",
        &["%r3", "%r4"],
        &[(&[1, 2], &[0xffff_ffff, 0x3f80_0000]), (&[2, 1], &[0, 0])],
    );
    check(
        &["%h1", "%h2"],
        "set.le.f16.f16 %h3, %h1, %h2;\nset.gt.u32.f16 %r3, %h1, %h2;",
        &["%h3", "%r3"],
        &[
            (&[H_ONE, H_TWO], &[H_ONE, 0]),
            (&[H_TWO, H_NEG1], &[0, 0xffff_ffff]),
        ],
    );
}

#[test]
fn setp_f16x2_writes_one_predicate_per_half() {
    // PTX ISA "Half Precision Comparison Instructions: setp": for .f16x2,
    // p = BoolOp(t[0], c) from the low halves, q = BoolOp(t[1], c) from the
    // high halves.
    check(
        &["%r1", "%r2"],
        "setp.lt.f16x2 %p1|%p2, %r1, %r2;",
        &["%p1", "%p2"],
        &[
            (&[pair(H_ONE, H_TWO), pair(H_TWO, H_ONE)], &[0, 1]),
            (&[pair(H_TWO, H_ONE), pair(H_ONE, H_TWO)], &[1, 0]),
            (&[pair(H_NAN, H_NAN), pair(H_ONE, H_ONE)], &[0, 0]),
        ],
    );
    check(
        &["%r1", "%r2", "%p3"],
        "setp.lt.xor.f16x2 %p1|%p2, %r1, %r2, %p3;",
        &["%p1", "%p2"],
        &[(&[pair(H_ONE, H_TWO), pair(H_TWO, H_ONE), 1], &[1, 0])],
    );
    // A scalar setp still writes the complement to q (ISA "setp": q = BoolOp(!t, c)).
    check(
        &["%r1", "%r2"],
        "setp.lt.s32 %p1|%p2, %r1, %r2;",
        &["%p1", "%p2"],
        &[(&[1, 2], &[1, 0])],
    );
}

#[test]
fn cvt_sign_extends_narrow_signed_results_to_the_register() {
    // PTX ISA 9.7.9.21 "cvt", Notes: "A destination register wider than the
    // specified type may be used ... The result of conversion is
    // sign-extended to the destination register width for signed integers,
    // and is zero-extended ... for unsigned, bit-size, and floating-point
    // types."
    let cases: [(&str, &str, u64, u64); 10] = [
        // 0xc2 as s8 is -62; as s16 0xffc2; in a 32-bit register 0xffffffc2.
        ("cvt.s16.s8 %r4, %r1;", "%r4", 0xc2, 0xffff_ffc2),
        ("cvt.s16.s8 %r4, %r1;", "%r4", 0x42, 0x42),
        // s32 0x1ff chopped to s8 is 0xff = -1.
        ("cvt.s8.s32 %r4, %r1;", "%r4", 0x1ff, 0xffff_ffff),
        ("cvt.s8.s32 %r4, %r1;", "%r4", 0x17f, 0x7f),
        // Unsigned destinations zero-extend: -62 as u16 is 0xffc2.
        ("cvt.u16.s8 %r4, %r1;", "%r4", 0xc2, 0xffc2),
        ("cvt.u8.u32 %r4, %r1;", "%r4", 0x1ff, 0xff),
        // A 16-bit register holding an s8: 0x80 is -128, 0xff80.
        ("cvt.s8.s32 %h4, %r1;", "%h4", 0x80, 0xff80),
        // .sat clamps -1000 to -128 (ISA "cvt", Saturation modifier), then
        // the s8 result is sign-extended.
        (
            "cvt.sat.s8.s32 %r4, %r1;",
            "%r4",
            (-1000i32) as u32 as u64,
            0xffff_ff80,
        ),
        // Float to s16: -2.5 rounds toward zero to -2.
        (
            "cvt.rzi.s16.f32 %r4, %r1;",
            "%r4",
            (-2.5f32).to_bits() as u64,
            0xffff_fffe,
        ),
        (
            "cvt.rzi.u16.f32 %r4, %r1;",
            "%r4",
            2.5f32.to_bits() as u64,
            2,
        ),
    ];
    for (inst, out, a, want) in cases {
        check(&["%r1"], inst, &[out], &[(&[a], &[want])]);
    }
    // s32 in a 64-bit register: 0x1_8000_0000 chops to 0x80000000 (-2^31).
    check(
        &["%rd1"],
        "cvt.s32.s64 %rd4, %rd1;",
        &["%rd4"],
        &[
            (&[0x1_8000_0000], &[0xffff_ffff_8000_0000]),
            (&[0x1_7fff_ffff], &[0x7fff_ffff]),
        ],
    );
    check(
        &["%rd1"],
        "cvt.u32.s64 %rd4, %rd1;",
        &["%rd4"],
        &[(&[0x1_8000_0000], &[0x8000_0000])],
    );
}

#[test]
fn multiword_add_and_sub_chains_are_exact() {
    // PTX ISA 9.7.2 "Extended-Precision Integer Arithmetic": add.cc writes
    // the carry-out to CC.CF, addc computes a + b + CC.CF; sub.cc writes the
    // borrow-out, subc computes a - (b + borrow). Chains of one kind give the
    // exact multi-word result: 128-bit values as four 32-bit words.
    let add = "add.cc.u32 %r8, %r0, %r4;\naddc.cc.u32 %r9, %r1, %r5;\n\
               addc.cc.u32 %r10, %r2, %r6;\naddc.cc.u32 %r11, %r3, %r7;\naddc.u32 %r12, 0, 0;";
    let sub = "sub.cc.u32 %r8, %r0, %r4;\nsubc.cc.u32 %r9, %r1, %r5;\n\
               subc.cc.u32 %r10, %r2, %r6;\nsubc.cc.u32 %r11, %r3, %r7;\nsubc.u32 %r12, 0, 0;";
    let ins = ["%r0", "%r1", "%r2", "%r3", "%r4", "%r5", "%r6", "%r7"];
    let outs = ["%r8", "%r9", "%r10", "%r11", "%r12"];
    let words = |x: u128| -> Vec<u64> { (0..4).map(|i| (x >> (32 * i)) as u32 as u64).collect() };
    let pairs: [(u128, u128); 5] = [
        (u128::MAX, 1),
        (1, 2),
        (0x0000_0001_0000_0000_0000_0000_0000_0000, 1),
        (
            0xdead_beef_0123_4567_89ab_cdef_ffff_ffff,
            0x1234_5678_ffff_ffff_0000_0001_0000_0001,
        ),
        (0, u128::MAX),
    ];
    for (a, b) in pairs {
        let inputs: Vec<u64> = words(a).into_iter().chain(words(b)).collect();
        // The fifth word is the carry (add) or 0 - borrow (sub: all ones
        // after a borrow, as `subc.u32 d, 0, 0` computes 0 - (0 + 1)).
        let (sum, carry) = a.overflowing_add(b);
        let mut want_add = words(sum);
        want_add.push(carry as u64);
        let (diff, borrow) = a.overflowing_sub(b);
        let mut want_sub = words(diff);
        want_sub.push(if borrow { 0xffff_ffff } else { 0 });
        check(&ins, add, &outs, &[(&inputs, &want_add)]);
        check(&ins, sub, &outs, &[(&inputs, &want_sub)]);
    }
    // 64-bit words: a 128-bit subtraction as two .u64 words.
    let sub64 = "sub.cc.u64 %rd4, %rd0, %rd2;\nsubc.u64 %rd5, %rd1, %rd3;";
    let (a, b) = (0x1_0000_0000_0000_0000u128, 1u128);
    let d = a - b;
    check(
        &["%rd0", "%rd1", "%rd2", "%rd3"],
        sub64,
        &["%rd4", "%rd5"],
        &[(
            &[a as u64, (a >> 64) as u64, b as u64, (b >> 64) as u64],
            &[d as u64, (d >> 64) as u64],
        )],
    );
}

#[test]
fn mixed_carry_chains_follow_the_hardware_flag() {
    // The ISA leaves open how a carry after an addition reads as a borrow
    // (and the reverse). NVIDIA GPUs keep one flag, the adder's carry-out:
    // a subtraction is a + !b + 1 (sub.cc) or a + !b + CF (subc), so after
    // a subtraction CF = 1 means *no* borrow. This is the choice the
    // emulator makes; pure chains (above) are exact either way.
    //
    // add.cc 0 + 0 leaves CF = 0, so subc 0, 0 computes 0 + !0 + 0 = 0xffffffff
    // (the GPU prints ffffffff for exactly this pair).
    check(
        &["%r1"],
        "add.cc.u32 %r2, %r1, 0;\nsubc.u32 %r3, 0, 0;",
        &["%r3"],
        &[(&[0], &[0xffff_ffff])],
    );
    // add.cc 0xffffffff + 1 carries (CF = 1): subc 5, 3 = 5 + !3 + 1 = 2.
    check(
        &["%r1"],
        "add.cc.u32 %r2, %r1, 1;\nsubc.u32 %r3, 5, 3;",
        &["%r3"],
        &[(&[0xffff_ffff], &[2])],
    );
    // sub.cc 5 - 3 does not borrow: CF = 1, so addc 1, 1 = 3; sub.cc 3 - 5
    // borrows: CF = 0, addc 1, 1 = 2.
    check(
        &["%r1", "%r2"],
        "sub.cc.u32 %r3, %r1, %r2;\naddc.u32 %r4, 1, 1;",
        &["%r3", "%r4"],
        &[(&[5, 3], &[2, 3]), (&[3, 5], &[0xffff_fffe, 2])],
    );
}

#[test]
fn bmsk_builds_the_isa_masks() {
    // PTX ISA 9.7.8.x "bmsk": a1 = a & 0x1f, b1 = b & 0x1f, mask0 = ~0 << a1,
    // mask1 = ~0 << (a1 + b1); mask1 = 0 when a1 + b1 >= 32 or (.clamp) when
    // a >= 32 or b >= 32, where .clamp also makes mask0 = 0 for a >= 32;
    // else mask1 = ~0 when b1 == 0; d = mask0 & ~mask1.
    let cases: [(u64, u64, u64, u64); 9] = [
        // (a, b, wrap, clamp)
        (1, 2, 0x6, 0x6), // the ISA's example
        (0, 0, 0, 0),
        (4, 8, 0xff0, 0xff0),
        (28, 8, 0xf000_0000, 0xf000_0000), // sum 36 overflows: mask1 = 0
        (33, 2, 0x6, 0),                   // clamp: position overflow
        (4, 40, 0xff0, 0xffff_fff0),       // clamp: width overflow
        (0, 32, 0, 0xffff_ffff),
        (31, 1, 0x8000_0000, 0x8000_0000),
        (5, 0, 0, 0),
    ];
    for (a, b, wrap, clamp) in cases {
        check(
            &["%r1", "%r2"],
            "bmsk.wrap.b32 %r3, %r1, %r2;\nbmsk.clamp.b32 %r4, %r1, %r2;",
            &["%r3", "%r4"],
            &[(&[a, b], &[wrap, clamp])],
        );
    }
}

#[test]
fn slct_ftz_flushes_a_subnormal_selector() {
    // PTX ISA 9.7.9.2 "slct": d = (c >= 0) ? a : b; with .ftz "subnormal
    // numbers [of c] are flushed to sign-preserving zero", and -0.0 >= 0.
    // c = 0x8000_027a is a negative subnormal, 0x8000_0000 is -0.0,
    // 0xbf80_0000 is -1.0, 0x0000_0001 the smallest positive subnormal.
    let (a, b) = (2, 0xff);
    let cases: [(u64, u64, u64); 4] = [
        // (c, without .ftz, with .ftz)
        (0x8000_027a, b, a),
        (0x8000_0000, a, a),
        (0xbf80_0000, b, b),
        (0x0000_0001, a, a),
    ];
    for (c, plain, ftz) in cases {
        check(
            &["%r1", "%r2", "%r5"],
            "slct.b32.f32 %r3, %r1, %r2, %r5;\nslct.ftz.b32.f32 %r4, %r1, %r2, %r5;",
            &["%r3", "%r4"],
            &[(&[a, b, c], &[plain, ftz])],
        );
    }
}
