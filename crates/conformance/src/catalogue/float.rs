//! f32 and f64 forms. References: `rustc_apfloat` through [`crate::soft`]
//! for the rounded operations (every rounding mode, independent of the
//! emulator's error-free transforms); the host's correctly rounded f64
//! square root with an exact residual for `sqrt`; plain bit tests and
//! comparisons, written from the ISA, for min, max, abs, neg, copysign,
//! testp and setp (PTX ISA 9.7.3 "Floating-point instructions").

use super::select::{FLOAT_CMPS, float_cmp};
use crate::form::{Family, Form, any, bits, nan};
use crate::soft::{self, Arith, Rnd};
use crate::ty::FloatKind::{self, F32 as K32, F64 as K64};
use crate::ty::Ty::{self, F32, F64, Pred};

fn kind(t: Ty) -> FloatKind {
    if t == F32 { K32 } else { K64 }
}

/// `.sat`: [0, 1], NaN and -0 to +0.
pub(super) fn sat(k: FloatKind, x: u64) -> u64 {
    let v = soft::to_f64(k, x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        soft::from_int(k, 1, Rnd::Rn)
    } else {
        x
    }
}

/// The modifiers of a rounded form: `.rn`, `.ftz`, `.sat`.
#[derive(Clone, Copy)]
struct Mods {
    r: Rnd,
    ftz: bool,
    sat: bool,
}

impl Mods {
    fn spell(self) -> String {
        let mut s = format!(".{}", self.r.name());
        if self.ftz {
            s.push_str(".ftz");
        }
        if self.sat {
            s.push_str(".sat");
        }
        s
    }

    /// Every combination: f32 has .ftz and (where `sat`) .sat, f64 neither.
    fn all(t: Ty, with_sat: bool) -> Vec<Mods> {
        let mut v = Vec::new();
        for r in Rnd::ALL {
            for ftz in [false, true] {
                for sat in [false, true] {
                    if (t == F64 && (ftz || sat)) || (sat && !with_sat) {
                        continue;
                    }
                    v.push(Mods { r, ftz, sat });
                }
            }
        }
        v
    }

    /// Flush the inputs, compute, flush and saturate the result.
    fn apply(self, k: FloatKind, x: &[u64], f: impl Fn(&[u64]) -> u64) -> u64 {
        let ins: Vec<u64> = x
            .iter()
            .map(|&v| if self.ftz { k.ftz(v) } else { v })
            .collect();
        let mut d = f(&ins);
        if self.ftz {
            d = k.ftz(d);
        }
        if self.sat { sat(k, d) } else { d }
    }
}

fn rounded(out: &mut Vec<Form>) {
    let ops: [(&str, Arith, usize); 5] = [
        ("add", Arith::Add, 2),
        ("sub", Arith::Sub, 2),
        ("mul", Arith::Mul, 2),
        ("fma", Arith::Fma, 3),
        ("mad", Arith::Fma, 3),
    ];
    for t in [F32, F64] {
        let k = kind(t);
        for (op, a, n) in ops {
            for m in Mods::all(t, true) {
                out.push(Form::lane(
                    Family::Float,
                    format!("{op}{}.{}", m.spell(), t.name()),
                    vec![any(t); n],
                    vec![nan(t)],
                    move |x| {
                        vec![m.apply(k, x, |v| {
                            soft::arith(k, a, v[0], v[1], v.get(2).copied().unwrap_or(0), m.r)
                        })]
                    },
                ));
            }
        }
        for m in Mods::all(t, false) {
            out.push(Form::lane(
                Family::Float,
                format!("div{}.{}", m.spell(), t.name()),
                vec![any(t); 2],
                vec![nan(t)],
                move |x| vec![m.apply(k, x, |v| soft::arith(k, Arith::Div, v[0], v[1], 0, m.r))],
            ));
            let one = soft::from_int(k, 1, Rnd::Rn);
            out.push(Form::lane(
                Family::Float,
                format!("rcp{}.{}", m.spell(), t.name()),
                vec![any(t)],
                vec![nan(t)],
                move |x| vec![m.apply(k, x, |v| soft::arith(k, Arith::Div, one, v[0], 0, m.r))],
            ));
            out.push(Form::lane(
                Family::Float,
                format!("sqrt{}.{}", m.spell(), t.name()),
                vec![any(t)],
                vec![nan(t)],
                move |x| vec![m.apply(k, x, |v| soft::sqrt(k, v[0], m.r))],
            ));
        }
    }
}

/// PTX min/max: a NaN operand is ignored (both NaN: NaN); `.NaN` makes any
/// NaN win; -0 counts below +0.
pub(super) fn min_max(k: FloatKind, a: u64, b: u64, max: bool, nan_wins: bool) -> u64 {
    let (x, y) = (soft::to_f64(k, a), soft::to_f64(k, b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => soft::nan(k),
        (true, false) | (false, true) if nan_wins => soft::nan(k),
        (true, false) => b,
        (false, true) => a,
        _ => {
            let key = |v: f64| (v, v.is_sign_positive());
            let a_first = if max {
                key(x) >= key(y)
            } else {
                key(x) <= key(y)
            };
            if a_first { a } else { b }
        }
    }
}

fn non_rounded(out: &mut Vec<Form>) {
    for t in [F32, F64] {
        let k = kind(t);
        let ftzs: &[bool] = if t == F32 { &[false, true] } else { &[false] };
        for &ftz in ftzs {
            let z = if ftz { ".ftz" } else { "" };
            let fl = move |v: u64| if ftz { k.ftz(v) } else { v };
            for (op, max) in [("min", false), ("max", true)] {
                // .NaN exists for f32 (and the half types), not f64.
                let nans: &[bool] = if t == F32 { &[false, true] } else { &[false] };
                for &nan_wins in nans {
                    let n = if nan_wins { ".NaN" } else { "" };
                    let mut f = Form::lane(
                        Family::Float,
                        format!("{op}{z}{n}.{}", t.name()),
                        vec![any(t); 2],
                        vec![nan(t)],
                        move |x| vec![min_max(k, fl(x[0]), fl(x[1]), max, nan_wins)],
                    );
                    if nan_wins {
                        f = f.needs(80, (7, 0));
                    }
                    out.push(f);
                }
            }
            let sign = 1u64 << (k.bits() - 1);
            out.push(Form::lane(
                Family::Float,
                format!("abs{z}.{}", t.name()),
                vec![any(t)],
                vec![nan(t)],
                move |x| vec![fl(x[0]) & !sign],
            ));
            out.push(Form::lane(
                Family::Float,
                format!("neg{z}.{}", t.name()),
                vec![any(t)],
                vec![nan(t)],
                move |x| vec![fl(x[0]) ^ sign],
            ));
            setp(out, t, ftz);
        }
        let sign = 1u64 << (k.bits() - 1);
        out.push(Form::lane(
            Family::Float,
            format!("copysign.{}", t.name()),
            vec![any(t); 2],
            vec![nan(t)],
            move |x| vec![(x[1] & !sign) | (x[0] & sign)],
        ));
        type Test = fn(f64) -> bool;
        let tests: [(&str, Test); 6] = [
            ("finite", f64::is_finite),
            ("infinite", f64::is_infinite),
            ("number", |v| !v.is_nan()),
            ("notanumber", f64::is_nan),
            ("normal", |_| false),
            ("subnormal", |_| false),
        ];
        for (name, test) in tests {
            out.push(Form::lane(
                Family::Float,
                format!("testp.{name}.{}", t.name()),
                vec![any(t)],
                vec![bits(Pred)],
                move |x| {
                    let v = soft::to_f64(k, x[0]);
                    // Normal and subnormal are properties of the layout, not of the f64 value.
                    // Zero counts as normal: IEEE 754 says neither, the ISA's
                    // text does not say, and the H200 sets the predicate for
                    // +0 and -0 (data/conformance/nvidia-h200, f32 and f64).
                    let r = match name {
                        "normal" => v.is_finite() && !k.is_subnormal(x[0]),
                        "subnormal" => k.is_subnormal(x[0]),
                        _ => test(v),
                    };
                    vec![u64::from(r)]
                },
            ));
        }
    }
}

fn setp(out: &mut Vec<Form>, t: Ty, ftz: bool) {
    let k = kind(t);
    let z = if ftz { ".ftz" } else { "" };
    let fl = move |v: u64| soft::to_f64(k, if ftz { k.ftz(v) } else { v });
    for c in FLOAT_CMPS {
        out.push(Form::lane(
            Family::Float,
            format!("setp.{c}{z}.{}", t.name()),
            vec![any(t); 2],
            vec![bits(Pred)],
            move |x| vec![u64::from(float_cmp(c, fl(x[0]), fl(x[1])))],
        ));
    }
}

/// Every f32/f64 form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    rounded(&mut out);
    non_rounded(&mut out);
    out
}
