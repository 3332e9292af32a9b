//! cvt forms: integer to integer (wrap and .sat), integer to float and float
//! to float in every rounding mode (`rustc_apfloat` through Quad, one
//! rounding: independent of the emulator), float to integer (the host's
//! exact f64 rounding functions and a clamp: PTX ISA 9.7.9.21 "cvt" makes
//! float-to-integer conversions saturate and NaN give 0), and the relu and
//! satfinite forms of f16, bf16 and fp8.

use crate::form::{Family, Form, any, bits, nan};
use crate::soft::{self, Rnd};
use crate::ty::FloatKind;
use crate::ty::Ty::{self, *};

const INTS: [Ty; 8] = [U8, S8, U16, S16, U32, S32, U64, S64];

fn range(t: Ty) -> (i128, i128) {
    let w = t.bits();
    if t.signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

fn kind(t: Ty) -> FloatKind {
    t.float().unwrap_or(FloatKind::F32)
}

fn cvt(name: String, to: Ty, from: Ty, f: impl Fn(u64) -> u64 + Send + Sync + 'static) -> Form {
    let out = if to.float().is_some() {
        nan(to)
    } else {
        bits(to)
    };
    Form::lane(
        Family::Convert,
        name,
        vec![any(from)],
        vec![out],
        move |x| vec![f(x[0])],
    )
}

fn int_int(out: &mut Vec<Form>) {
    for to in INTS {
        for from in INTS {
            if to == from {
                continue;
            }
            let (n, f) = (to.name(), from.name());
            out.push(cvt(format!("cvt.{n}.{f}"), to, from, move |x| {
                (from.int_value(x) as u64) & to.mask()
            }));
            let ((tl, th), (fl, fh)) = (range(to), range(from));
            if fl < tl || fh > th {
                out.push(cvt(format!("cvt.sat.{n}.{f}"), to, from, move |x| {
                    (from.int_value(x).clamp(tl, th) as u64) & to.mask()
                }));
            }
        }
    }
}

fn int_float(out: &mut Vec<Form>) {
    for to in [F16, F32, F64] {
        for from in INTS {
            for r in Rnd::ALL {
                let k = kind(to);
                out.push(cvt(
                    format!("cvt.{}.{}.{}", r.name(), to.name(), from.name()),
                    to,
                    from,
                    move |x| soft::from_int(k, from.int_value(x), r),
                ));
            }
        }
    }
}

fn float_int(out: &mut Vec<Form>) {
    for from in [F16, F32, F64] {
        let k = kind(from);
        let ftzs: &[bool] = if from == F32 {
            &[false, true]
        } else {
            &[false]
        };
        for to in INTS {
            for r in Rnd::ALL {
                for &ftz in ftzs {
                    let (lo, hi) = range(to);
                    let z = if ftz { ".ftz" } else { "" };
                    let name = format!("cvt.{}{z}.{}.{}", r.int_name(), to.name(), from.name());
                    out.push(cvt(name, to, from, move |x| {
                        let v = soft::to_f64(k, if ftz { k.ftz(x) } else { x });
                        let i = match r {
                            Rnd::Rn => v.round_ties_even(),
                            Rnd::Rz => v.trunc(),
                            Rnd::Rm => v.floor(),
                            Rnd::Rp => v.ceil(),
                        };
                        if i.is_nan() {
                            return nan_to_int(from, to);
                        }
                        // `as` saturates, as cvt does.
                        ((i as i128).clamp(lo, hi) as u64) & to.mask()
                    }));
                }
            }
        }
    }
}

/// A NaN converted to an integer. The ISA gives 0; the H200 gives 0 only
/// from f16 or f32 to an integer of 32 bits or fewer, and otherwise (an f64
/// source, or a 64-bit destination) the destination's sign bit alone:
/// 0x80, 0x8000, 0x80000000 or 0x8000000000000000, signed or unsigned
/// (data/conformance/nvidia-h200: the 56 such forms, every NaN input).
fn nan_to_int(from: Ty, to: Ty) -> u64 {
    let w = to.bits();
    if from == F64 || w == 64 {
        1u64 << (w - 1)
    } else {
        0
    }
}

/// `.relu`: negative results to +0, NaN to NaN.
pub(super) fn relu(k: FloatKind, x: u64) -> u64 {
    if k.is_nan(x) {
        soft::nan(k)
    } else if x >> (k.bits() - 1) & 1 == 1 {
        0
    } else {
        x
    }
}

/// `.satfinite`: infinities and overflow to the largest finite value of the
/// sign; NaN stays NaN.
fn satfinite(from: FloatKind, to: FloatKind, x: u64, r: Rnd) -> u64 {
    if from.is_nan(x) {
        return soft::nan(to);
    }
    let d = soft::convert(from, to, x, r);
    let v = soft::to_f64(from, x);
    if to.is_nan(d) || soft::to_f64(to, d).is_infinite() {
        soft::max_finite(to) | u64::from(v < 0.0) << (to.bits() - 1)
    } else {
        d
    }
}

fn float_float(out: &mut Vec<Form>) {
    let (f16, bf16, f32k, f64k) = (
        FloatKind::F16,
        FloatKind::Bf16,
        FloatKind::F32,
        FloatKind::F64,
    );
    // Exact widenings.
    for (to, from, sm, v) in [
        (F64, F32, 50, (7, 0)),
        (F32, F16, 53, (7, 0)),
        (F64, F16, 53, (7, 0)),
        (F32, Bf16, 90, (7, 8)),
    ] {
        let (kt, kf) = (kind(to), kind(from));
        out.push(
            cvt(
                format!("cvt.{}.{}", to.name(), from.name()),
                to,
                from,
                move |x| soft::convert(kf, kt, x, Rnd::Rn),
            )
            .needs(sm, v),
        );
    }
    out.push(cvt("cvt.ftz.f64.f32".into(), F64, F32, move |x| {
        soft::convert(f32k, f64k, f32k.ftz(x), Rnd::Rn)
    }));
    for r in Rnd::ALL {
        for ftz in [false, true] {
            for sat in [false, true] {
                let name = format!(
                    "cvt.{}{}{}.f32.f64",
                    r.name(),
                    if ftz { ".ftz" } else { "" },
                    if sat { ".sat" } else { "" }
                );
                out.push(cvt(name, F32, F64, move |x| {
                    let mut d = soft::convert(f64k, f32k, x, r);
                    if ftz {
                        d = f32k.ftz(d);
                    }
                    let v = f32::from_bits(d as u32);
                    if !sat {
                        d
                    } else if v.is_nan() || v <= 0.0 {
                        0
                    } else {
                        u64::from(v.min(1.0).to_bits())
                    }
                }));
            }
        }
        // Rounding to an integral value in the same type.
        for (t, ftz) in [(F32, false), (F32, true), (F64, false)] {
            let k = kind(t);
            let z = if ftz { ".ftz" } else { "" };
            out.push(cvt(
                format!("cvt.{}{z}.{t}.{t}", r.int_name(), t = t.name()),
                t,
                t,
                move |x| {
                    let x = if ftz { k.ftz(x) } else { x };
                    let v = soft::to_f64(k, x);
                    let i = match r {
                        Rnd::Rn => v.round_ties_even(),
                        Rnd::Rz => v.trunc(),
                        Rnd::Rm => v.floor(),
                        Rnd::Rp => v.ceil(),
                    };
                    soft::convert(f64k, k, i.to_bits(), Rnd::Rn)
                },
            ));
        }
        for from in [F32, F64] {
            let kf = kind(from);
            out.push(cvt(
                format!("cvt.{}.f16.{}", r.name(), from.name()),
                F16,
                from,
                move |x| soft::convert(kf, f16, x, r),
            ));
        }
        let (sm, v) = if r == Rnd::Rn {
            (80, (7, 0))
        } else {
            (90, (7, 8))
        };
        out.push(
            cvt(format!("cvt.{}.bf16.f32", r.name()), Bf16, F32, move |x| {
                soft::convert(f32k, bf16, x, r)
            })
            .needs(sm, v),
        );
    }
    for r in [Rnd::Rn, Rnd::Rz] {
        for (to, k) in [(F16, f16), (Bf16, bf16)] {
            out.push(
                cvt(
                    format!("cvt.{}.relu.{}.f32", r.name(), to.name()),
                    to,
                    F32,
                    move |x| relu(k, soft::convert(f32k, k, x, r)),
                )
                .needs(80, (7, 0)),
            );
            for relu_on in [false, true] {
                let pair = if to == F16 { F16x2 } else { Bf16x2 };
                let name = format!(
                    "cvt.{}{}.{}.f32",
                    r.name(),
                    if relu_on { ".relu" } else { "" },
                    pair.name()
                );
                out.push(
                    Form::lane(
                        Family::Convert,
                        name,
                        vec![any(F32), any(F32)],
                        vec![nan(pair)],
                        move |x| {
                            let one = |v: u64| {
                                let d = soft::convert(f32k, k, v, r);
                                if relu_on { relu(k, d) } else { d }
                            };
                            vec![one(x[0]) << 16 | one(x[1])]
                        },
                    )
                    .needs(80, (7, 0)),
                );
            }
        }
    }
    fp8(out);
}

fn fp8(out: &mut Vec<Form>) {
    let (f16, f32k) = (FloatKind::F16, FloatKind::F32);
    for (pair, k) in [(E4m3x2, FloatKind::E4m3), (E5m2x2, FloatKind::E5m2)] {
        for relu_on in [false, true] {
            let rl = if relu_on { ".relu" } else { "" };
            let one = move |from: FloatKind, v: u64| {
                let d = satfinite(from, k, v, Rnd::Rn);
                if relu_on { relu(k, d) } else { d }
            };
            out.push(
                Form::lane(
                    Family::Convert,
                    format!("cvt.rn.satfinite{rl}.{}.f32", pair.name()),
                    vec![any(F32), any(F32)],
                    vec![nan(pair)],
                    move |x| vec![one(f32k, x[0]) << 8 | one(f32k, x[1])],
                )
                .needs(89, (8, 1)),
            );
            out.push(
                Form::lane(
                    Family::Convert,
                    format!("cvt.rn.satfinite{rl}.{}.f16x2", pair.name()),
                    vec![any(F16x2)],
                    vec![nan(pair)],
                    move |x| vec![one(f16, x[0] >> 16) << 8 | one(f16, x[0] & 0xffff)],
                )
                .needs(89, (8, 1)),
            );
            out.push(
                Form::lane(
                    Family::Convert,
                    format!("cvt.rn{rl}.f16x2.{}", pair.name()),
                    vec![any(pair)],
                    vec![nan(F16x2)],
                    move |x| {
                        let one = |v: u64| {
                            let d = soft::convert(k, f16, v, Rnd::Rn);
                            if relu_on { relu(f16, d) } else { d }
                        };
                        vec![one(x[0] >> 8 & 0xff) << 16 | one(x[0] & 0xff)]
                    },
                )
                .needs(89, (8, 1)),
            );
        }
    }
}

/// Every cvt form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    int_int(&mut out);
    int_float(&mut out);
    float_int(&mut out);
    float_float(&mut out);
    out
}
