//! Forms left out of the passing catalogue, each with the reason: those the
//! emulator computes differently from the ISA (likely emulator bugs, to fix
//! in `emu`), and those it does not support yet. When the emulator changes,
//! the tests say which entries to remove.

/// (form, reason): the emulator's results differ from the ISA's.
pub const KNOWN_DIVERGENCES: &[(&str, &str)] = &[
    (
        "cvt.rn.relu.f16.f32",
        "the emulator ignores .relu: a negative input gives a negative f16 instead of +0 (PTX ISA 9.7.9.21 cvt: '.relu clamps the result to 0 if negative')",
    ),
    (
        "cvt.rz.relu.f16.f32",
        "the emulator ignores .relu (see cvt.rn.relu.f16.f32)",
    ),
    (
        "cvt.rn.relu.bf16.f32",
        "the emulator ignores .relu (see cvt.rn.relu.f16.f32)",
    ),
    (
        "cvt.rz.relu.bf16.f32",
        "the emulator ignores .relu (see cvt.rn.relu.f16.f32)",
    ),
    ("add.rn.ftz.f16", FTZ_F16),
    ("add.rn.ftz.sat.f16", FTZ_F16),
    ("sub.rn.ftz.f16", FTZ_F16),
    ("sub.rn.ftz.sat.f16", FTZ_F16),
    ("mul.rn.ftz.f16", FTZ_F16),
    ("mul.rn.ftz.sat.f16", FTZ_F16),
    ("fma.rn.ftz.f16", FTZ_F16),
    ("fma.rn.ftz.sat.f16", FTZ_F16),
    ("add.rn.ftz.f16x2", FTZ_F16),
    ("add.rn.ftz.sat.f16x2", FTZ_F16),
    ("sub.rn.ftz.f16x2", FTZ_F16),
    ("sub.rn.ftz.sat.f16x2", FTZ_F16),
    ("mul.rn.ftz.f16x2", FTZ_F16),
    ("mul.rn.ftz.sat.f16x2", FTZ_F16),
    ("fma.rn.ftz.f16x2", FTZ_F16),
    ("fma.rn.ftz.sat.f16x2", FTZ_F16),
    ("min.ftz.f16", FTZ_F16),
    ("min.ftz.NaN.f16", FTZ_F16),
    ("max.ftz.f16", FTZ_F16),
    ("max.ftz.NaN.f16", FTZ_F16),
    ("abs.ftz.f16", FTZ_F16),
    ("neg.ftz.f16", FTZ_F16),
    ("min.ftz.f16x2", FTZ_F16),
    ("min.ftz.NaN.f16x2", FTZ_F16),
    ("max.ftz.f16x2", FTZ_F16),
    ("max.ftz.NaN.f16x2", FTZ_F16),
    ("abs.ftz.f16x2", FTZ_F16),
    ("neg.ftz.f16x2", FTZ_F16),
    ("fma.rn.relu.f16", RELU_FMA),
    ("fma.rn.ftz.relu.f16", RELU_FMA),
    ("fma.rn.relu.f16x2", RELU_FMA),
    ("fma.rn.ftz.relu.f16x2", RELU_FMA),
    ("fma.rn.relu.bf16", RELU_FMA),
    ("fma.rn.relu.bf16x2", RELU_FMA),
    ("setp.eq.f16x2", SETP_F16X2),
    ("setp.equ.f16x2", SETP_F16X2),
    ("setp.ne.f16x2", SETP_F16X2),
    ("setp.neu.f16x2", SETP_F16X2),
    ("setp.lt.f16x2", SETP_F16X2),
    ("setp.ltu.f16x2", SETP_F16X2),
    ("setp.le.f16x2", SETP_F16X2),
    ("setp.leu.f16x2", SETP_F16X2),
    ("setp.gt.f16x2", SETP_F16X2),
    ("setp.gtu.f16x2", SETP_F16X2),
    ("setp.ge.f16x2", SETP_F16X2),
    ("setp.geu.f16x2", SETP_F16X2),
    ("slct.ftz.b32.f32", SLCT_FTZ),
    ("slct.ftz.b64.f32", SLCT_FTZ),
    ("slct.ftz.f32.f32", SLCT_FTZ),
    ("slct.ftz.f64.f32", SLCT_FTZ),
];

const SLCT_FTZ: &str = "the emulator ignores .ftz on slct: a negative subnormal c selects b instead of being flushed to -0, which is >= 0 and selects a (PTX ISA 9.7.9.2 slct: '.ftz: subnormal c is flushed to sign-preserving zero')";
const FTZ_F16: &str = "the emulator ignores .ftz on f16/f16x2: subnormal inputs and results are kept, not flushed to sign-preserving zero (PTX ISA 9.7.4 half precision instructions, '.ftz')";
const RELU_FMA: &str = "the emulator ignores .relu on fma: a negative result stays negative instead of +0, a NaN is not made canonical (PTX ISA 9.7.4.4 fma, '.relu')";
const SETP_F16X2: &str = "the second predicate q of setp.f16x2 p|q is the negation of p (the scalar setp rule) instead of the comparison of the upper halves (PTX ISA 9.7.4.7 setp: p = fA[0] op fB[0], q = fA[1] op fB[1])";

/// Forms the emulator rejects today ("unsupported" faults), with the
/// catalogue's reference ready for the day it supports them.
pub const UNSUPPORTED: &[&str] = &[
    "cvt.rn.f16x2.f32",
    "cvt.rn.relu.f16x2.f32",
    "cvt.rz.f16x2.f32",
    "cvt.rz.relu.f16x2.f32",
    "cvt.rn.bf16x2.f32",
    "cvt.rn.relu.bf16x2.f32",
    "cvt.rz.bf16x2.f32",
    "cvt.rz.relu.bf16x2.f32",
    "cvt.rn.satfinite.e4m3x2.f32",
    "cvt.rn.satfinite.relu.e4m3x2.f32",
    "cvt.rn.satfinite.e4m3x2.f16x2",
    "cvt.rn.satfinite.relu.e4m3x2.f16x2",
    "cvt.rn.f16x2.e4m3x2",
    "cvt.rn.relu.f16x2.e4m3x2",
    "cvt.rn.satfinite.e5m2x2.f32",
    "cvt.rn.satfinite.relu.e5m2x2.f32",
    "cvt.rn.satfinite.e5m2x2.f16x2",
    "cvt.rn.satfinite.relu.e5m2x2.f16x2",
    "cvt.rn.f16x2.e5m2x2",
    "cvt.rn.relu.f16x2.e5m2x2",
];

/// The reason `form` is a known divergence, if it is one.
pub fn known(form: &str) -> Option<&'static str> {
    KNOWN_DIVERGENCES
        .iter()
        .find(|(f, _)| *f == form)
        .map(|(_, r)| *r)
}

/// Is `form` left out, as a divergence or as unsupported?
pub fn left_out(form: &str) -> bool {
    known(form).is_some() || UNSUPPORTED.contains(&form)
}
