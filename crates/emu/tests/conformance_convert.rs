//! Conformance of the packed `cvt` forms with the PTX ISA (9.7.9.21 "cvt",
//! 9.7.9.22 "cvt.pack") and the OCP FP8 formats. Expected values are worked
//! out by hand; the bit patterns are spelled out next to each case.

mod snippet;

use snippet::check;

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}

/// Runs `inst` (d = %r3 or %h3, a = %r1, b = %r2) on each (a, b) -> want.
fn cases(inst: &str, out: &str, cases: &[(u64, u64, u64)]) {
    for &(a, b, want) in cases {
        check(&["%r1", "%r2"], inst, &[out], &[(&[a, b], &[want])]);
    }
}

#[test]
fn f32_pairs_to_f16x2_and_bf16x2() {
    // ISA "cvt" Semantics: d[31:16] = convert(a); d[15:0] = convert(b).
    // f16: 1.0 = 0x3c00, 2.0 = 0x4000, 0.5 = 0x3800; .rn ties to even:
    // 1 + 2^-11 (f32 0x3f801000) is half way between 0x3c00 and 0x3c01 and
    // goes to 0x3c00; 1 + 3 * 2^-11 (0x3f803000) to 0x3c02.
    cases(
        "cvt.rn.f16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[
            (f(1.0), f(2.0), 0x3c00_4000),
            (0x3f80_1000, 0x3f80_3000, 0x3c00_3c02),
            // 65520 (0x477ff000) is half way between the largest f16 65504
            // (0x7bff, odd) and 65536, which rounds to infinity (0x7c00).
            (0x477f_f000, f(-2.0), 0x7c00_c000),
        ],
    );
    // .satfinite: |x| > MAX_NORM gives the signed MAX_NORM, NaN stays NaN
    // (the canonical 0x7fff).
    cases(
        "cvt.rn.satfinite.f16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[
            (0x477f_f000, 0xff80_0000, 0x7bff_fbff),
            (0x7fc0_0000, f(0.5), 0x7fff_3800),
        ],
    );
    // .relu: negative results become 0, NaN the canonical NaN.
    cases(
        "cvt.rn.relu.f16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[
            (f(-1.0), f(0.5), 0x0000_3800),
            (0x7fc0_0000, f(1.0), 0x7fff_3c00),
        ],
    );
    // bf16 (7 mantissa bits): 1 + 2^-8 (0x3f808000) ties to 0x3f80, 1 + 3 *
    // 2^-8 (0x3f818000) to 0x3f82; 3.0 is 0x4040.
    cases(
        "cvt.rn.bf16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[
            (0x3f80_8000, 0x3f81_8000, 0x3f80_3f82),
            (f(3.0), f(-2.0), 0x4040_c000),
        ],
    );
    cases(
        "cvt.rn.relu.bf16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[(f(-2.0), f(3.0), 0x0000_4040)],
    );
    // .rz: 1 + 3 * 2^-11 truncates to 0x3c01; 65520 to the largest f16.
    cases(
        "cvt.rz.f16x2.f32 %r3, %r1, %r2;",
        "%r3",
        &[(0x3f80_3000, 0x477f_f000, 0x3c01_7bff)],
    );
    // The scalar forms take .satfinite and .relu as well.
    cases(
        "cvt.rn.satfinite.f16.f32 %h3, %r1;",
        "%h3",
        &[
            (f(1.0e6), 0, 0x7bff),
            (0xff80_0000, 0, 0xfbff),
            (0x7fc0_0000, 0, 0x7fff),
        ],
    );
    // -1.0 -> 0, 0.5 -> 0x3800.
    cases(
        "cvt.rn.relu.f16.f32 %h3, %r1;",
        "%h3",
        &[(f(-1.0), 0, 0), (f(0.5), 0, 0x3800)],
    );
}

#[test]
fn f32_pairs_to_fp8() {
    // OCP FP8 E4M3: bias 7, 3 mantissa bits, max 448 = 0x7e, NaN 0x7f, no
    // infinity. 1.0 = 0 0111 000 = 0x38, 2.0 = 0x40, -2.0 = 0xc0; the
    // smallest subnormal 2^-9 = 0x01. ISA "cvt": d[15:8] = convert(a),
    // d[7:0] = convert(b); .satfinite clamps |x| > MAX_NORM (including
    // infinity) to the signed MAX_NORM and keeps NaN a NaN.
    cases(
        "cvt.rn.satfinite.e4m3x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[
            (f(1.0), f(2.0), 0x3840),
            (f(448.0), f(-2.0), 0x7ec0),
            (f(1000.0), f(-1000.0), 0x7efe),
            // 464 would round half-way to even (448); anything above 448
            // saturates in any case.
            (f(464.0), 0x7f80_0000, 0x7e7e),
            (0x7fc0_0000, 0xff80_0000, 0x7ffe),
            // Ties to even: 1.0625 between 0x38 and 0x39 -> 0x38; 1.1875
            // between 0x39 and 0x3a -> 0x3a.
            (f(1.0625), f(1.1875), 0x383a),
            // Subnormals: 2^-10 ties between 0 and 0x01 -> 0; 3 * 2^-10
            // between 0x01 and 0x02 -> 0x02.
            (f(2f32.powi(-10)), f(3.0 * 2f32.powi(-10)), 0x0002),
            (f(2f32.powi(-9)), f(-0.0), 0x0180),
        ],
    );
    cases(
        "cvt.rn.satfinite.relu.e4m3x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[(f(-1.0), f(1.0), 0x0038), (0x7fc0_0000, f(2.0), 0x7f40)],
    );
    // E5M2: bias 15, 2 mantissa bits, max 57344 = 0x7b, infinity 0x7c.
    // 1.0 = 0 01111 00 = 0x3c, 2.0 = 0x40; 1.125 ties to 0x3c, 1.375 to 0x3e;
    // the smallest subnormal 2^-16 = 0x01.
    cases(
        "cvt.rn.satfinite.e5m2x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[
            (f(1.0), f(2.0), 0x3c40),
            (f(57344.0), f(1.0e6), 0x7b7b),
            (0xff80_0000, 0x7fc0_0000, 0xfb7f),
            (f(1.125), f(1.375), 0x3c3e),
            (f(2f32.powi(-16)), f(-1.0), 0x01bc),
        ],
    );
}

#[test]
fn fp8_pairs_to_f16x2_and_back() {
    // ISA "cvt": d[31:16] = convert(a[15:8]), d[15:0] = convert(a[7:0]).
    // E4M3 0x38 = 1.0 -> f16 0x3c00; 0xc0 = -2.0 -> 0xc000; 0x7e = 448 =
    // 1.75 * 2^8 -> f16 0 10111 1100000000 = 0x5f00; 0x01 = 2^-9 -> f16
    // 0 00110 0000000000 = 0x1800; 0x7f (NaN) -> the canonical f16 NaN.
    cases(
        "cvt.rn.f16x2.e4m3x2 %r3, %r1;",
        "%r3",
        &[
            (0x38c0, 0, 0x3c00_c000),
            (0x7e01, 0, 0x5f00_1800),
            (0x7f38, 0, 0x7fff_3c00),
        ],
    );
    cases(
        "cvt.rn.relu.f16x2.e4m3x2 %r3, %r1;",
        "%r3",
        &[(0x38c0, 0, 0x3c00_0000)],
    );
    // E5M2 is the top byte of an f16: 0x3c -> 0x3c00, 0x7b -> 0x7b00
    // (57344), 0x7c -> infinity 0x7c00, 0x01 = 2^-16 -> 0x0100.
    cases(
        "cvt.rn.f16x2.e5m2x2 %r3, %r1;",
        "%r3",
        &[(0x3c7b, 0, 0x3c00_7b00), (0x7c01, 0, 0x7c00_0100)],
    );
    // From f16x2: d[15:8] = convert(a[31:16]), d[7:0] = convert(a[15:0]):
    // {1.0, 448.0} -> {0x38, 0x7e}; {65504, -inf} saturate to {0x7e, 0xfe}.
    cases(
        "cvt.rn.satfinite.e4m3x2.f16x2 %h3, %r1;",
        "%h3",
        &[(0x3c00_5f00, 0, 0x387e), (0x7bff_fc00, 0, 0x7efe)],
    );
}

#[test]
fn fp8_nan_encodings() {
    // OCP FP8 (OFP8 1.0, table 1): E4M3's only NaNs are S.1111.111 (0x7f,
    // 0xff); E5M2's are S.11111.xx with xx != 0 (0x7d-0x7f, 0xfd-0xff).
    // ISA "cvt" .satfinite: "if the input value is NaN, then the result is
    // NaN in the specified destination format"; .relu: "NaN results are
    // converted to canonical NaN". 0x7f (all ones, positive) is a NaN in
    // both formats and is what is written, whatever the input NaN's sign.
    cases(
        "cvt.rn.satfinite.e5m2x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[(0xffc0_0000, 0x7f80_0001, 0x7f7f)],
    );
    cases(
        "cvt.rn.satfinite.relu.e5m2x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[(0x7fc0_0000, f(-1.0), 0x7f00)],
    );
    cases(
        "cvt.rn.satfinite.e4m3x2.f32 %h3, %r1, %r2;",
        "%h3",
        &[(0xffc0_0000, f(1.0), 0x7f38)],
    );
    // From f16x2 NaNs (0x7e00, 0xfc01) in both formats.
    cases(
        "cvt.rn.satfinite.e5m2x2.f16x2 %h3, %r1;",
        "%h3",
        &[(0x7e00_fc01, 0, 0x7f7f)],
    );
    cases(
        "cvt.rn.satfinite.e4m3x2.f16x2 %h3, %r1;",
        "%h3",
        &[(0x7e00_3c00, 0, 0x7f38)],
    );
    // Every E5M2 NaN encoding reads as a NaN (the canonical f16 0x7fff);
    // 0x7c / 0xfc are the infinities 0x7c00 / 0xfc00, not NaNs.
    cases(
        "cvt.rn.f16x2.e5m2x2 %r3, %r1;",
        "%r3",
        &[
            (0x7d7e, 0, 0x7fff_7fff),
            (0xfdff, 0, 0x7fff_7fff),
            (0x7cfc, 0, 0x7c00_fc00),
        ],
    );
    // E4M3 0xff is a NaN; 0x7e / 0xfe are +-448 (f16 0x5f00 / 0xdf00).
    cases(
        "cvt.rn.f16x2.e4m3x2 %r3, %r1;",
        "%r3",
        &[(0xff7e, 0, 0x7fff_5f00), (0xfe00, 0, 0xdf00_0000)],
    );
}

#[test]
fn cvt_pack_saturates_and_packs() {
    // ISA 9.7.9.22 "cvt.pack": ta, tb = a, b clamped to the convertType's
    // range; d = {ta, tb} (b in the low `size` bits); for sizes below 16 the
    // bits above 2 * size come from the low bits of c.
    let neg = |x: i32| x as u32 as u64;
    let run = |inst: &str, a: u64, b: u64, c: u64, want: u64| {
        check(
            &["%r1", "%r2", "%r3"],
            inst,
            &["%r4"],
            &[(&[a, b, c], &[want])],
        );
    };
    // u16: 70000 -> 0xffff, -5 -> 0.
    run(
        "cvt.pack.sat.u16.s32 %r4, %r1, %r2;",
        70000,
        neg(-5),
        0,
        0xffff_0000,
    );
    // s16: -40000 -> -32768 (0x8000), 100 -> 0x0064.
    run(
        "cvt.pack.sat.s16.s32 %r4, %r1, %r2;",
        neg(-40000),
        100,
        0,
        0x8000_0064,
    );
    // u8: 300 -> 0xff, 7 -> 0x07; c = 0x1234 fills bits 31:16.
    run(
        "cvt.pack.sat.u8.s32.b32 %r4, %r1, %r2, %r3;",
        300,
        7,
        0x1234,
        0x1234_ff07,
    );
    // s8: -1 -> 0xff, -200 -> -128 (0x80); c << 16 keeps c's low 16 bits.
    run(
        "cvt.pack.sat.s8.s32.b32 %r4, %r1, %r2, %r3;",
        neg(-1),
        neg(-200),
        0xabcd_ef01,
        0xef01_ff80,
    );
    // s4: range [-8, 7]: 9 -> 7, -3 -> 0xd; c = 1 lands at bit 8.
    run(
        "cvt.pack.sat.s4.s32.b32 %r4, %r1, %r2, %r3;",
        9,
        neg(-3),
        1,
        0x17d,
    );
}

#[test]
fn mma_runs_on_fragments_packed_by_cvt() {
    // mma.m16n8k16 with A and B fragments built by packed cvt (PTX ISA
    // "Matrix fragments for mma.m16n8k16": each .b32 register of A and B
    // holds two consecutive k elements, the lower k in bits 15:0).
    // bf16: A = 1.0 everywhere, B = 2.0, C = 0: each D element is the sum of
    // 16 products 1 * 2 = 32.0.
    let bf16 = "cvt.rn.bf16x2.f32 %r0, 0f3F800000, 0f3F800000;\n\
                cvt.rn.bf16x2.f32 %r4, 0f40000000, 0f40000000;\n\
                mov.b32 %f0, 0f00000000;\n\
                mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, \
                {%r0, %r0, %r0, %r0}, {%r4, %r4}, {%f0, %f0, %f0, %f0};";
    // f16 with .relu: A's registers are {hi: relu(-1.0) = 0, lo: 1.0}, so
    // every odd-k element of A is 0 and D = 8 products 1 * 2 = 16.0.
    let f16 = "cvt.rn.relu.f16x2.f32 %r0, 0fBF800000, 0f3F800000;\n\
               cvt.rn.f16x2.f32 %r4, 0f40000000, 0f40000000;\n\
               mov.b32 %f0, 0f00000000;\n\
               mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, \
               {%r0, %r0, %r0, %r0}, {%r4, %r4}, {%f0, %f0, %f0, %f0};";
    for (body, want) in [(bf16, 32.0f32), (f16, 16.0)] {
        let got = snippet::eval_warp(body, &["%f1", "%f2", "%f3", "%f4"]);
        assert_eq!(got.len(), 32);
        for (lane, d) in got.iter().enumerate() {
            assert_eq!(*d, vec![f(want); 4], "lane {lane}: {body}");
        }
    }
}
