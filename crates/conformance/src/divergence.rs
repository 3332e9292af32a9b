//! Forms left out of the passing catalogue, each with the reason: those the
//! emulator computes differently from the ISA (likely emulator bugs, to fix
//! in `emu`), and those it does not support yet. When the emulator changes,
//! the tests say which entries to remove.

/// (form, reason): the emulator's results differ from the ISA's.
pub const KNOWN_DIVERGENCES: &[(&str, &str)] = &[
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
    ("slct.ftz.b32.f32", SLCT_FTZ),
    ("slct.ftz.b64.f32", SLCT_FTZ),
    ("slct.ftz.f32.f32", SLCT_FTZ),
    ("slct.ftz.f64.f32", SLCT_FTZ),
];

const SLCT_FTZ: &str = "the emulator ignores .ftz on slct: a negative subnormal c selects b instead of being flushed to -0, which is >= 0 and selects a (PTX ISA 9.7.9.2 slct: '.ftz: subnormal c is flushed to sign-preserving zero')";
const FTZ_F16: &str = "the emulator ignores .ftz on f16/f16x2: subnormal inputs and results are kept, not flushed to sign-preserving zero (PTX ISA 9.7.4 half precision instructions, '.ftz')";
const RELU_FMA: &str = "the emulator ignores .relu on fma: a negative result stays negative instead of +0, a NaN is not made canonical (PTX ISA 9.7.4.4 fma, '.relu')";

/// Forms the emulator rejects today ("unsupported" faults), with the
/// catalogue's reference ready for the day it supports them.
pub const UNSUPPORTED: &[&str] = &[];

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
