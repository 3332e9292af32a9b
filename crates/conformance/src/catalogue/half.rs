//! f16, bf16 and their packed x2 forms: arithmetic (`rustc_apfloat` in the
//! element's own format, independent of the emulator's f32/f64 route),
//! fma with .relu, min/max with .NaN, abs/neg and setp (PTX ISA 9.7.4
//! "Half precision floating-point instructions"). Packed forms apply the
//! element function to each half.

use std::sync::Arc;

use super::convert::relu;
use super::float::{min_max, sat};
use super::select::{FLOAT_CMPS, float_cmp};
use crate::form::{Family, Form, any, bits, nan};
use crate::soft::{self, Arith, Rnd};
use crate::ty::FloatKind;
use crate::ty::Ty::{self, *};

type Elem = Arc<dyn Fn(&[u64]) -> u64 + Send + Sync>;

/// A form of `n` inputs of `t` applying `f` element by element.
fn elementwise(name: String, t: Ty, n: usize, f: Elem) -> Form {
    let k = t.float().unwrap_or(FloatKind::F16);
    let w = k.bits();
    let lanes = t.lanes();
    Form::lane(
        Family::Half,
        name,
        vec![any(t); n],
        vec![nan(t)],
        move |x| {
            let d = (0..lanes).fold(0u64, |d, l| {
                let e: Vec<u64> = x.iter().map(|v| (v >> (l * w)) & k.mask()).collect();
                d | (f(&e) & k.mask()) << (l * w)
            });
            vec![d]
        },
    )
}

fn needs(t: Ty, f: Form, bf16_sm: u32, bf16_v: (u32, u32)) -> Form {
    if matches!(t, Bf16 | Bf16x2) {
        f.needs(bf16_sm, bf16_v)
    } else {
        f.needs(53, (7, 0))
    }
}

fn arithmetic(out: &mut Vec<Form>) {
    let ops: [(&str, Arith, usize); 4] = [
        ("add", Arith::Add, 2),
        ("sub", Arith::Sub, 2),
        ("mul", Arith::Mul, 2),
        ("fma", Arith::Fma, 3),
    ];
    for t in [F16, F16x2, Bf16, Bf16x2] {
        let k = t.float().unwrap_or(FloatKind::F16);
        let is_f16 = matches!(t, F16 | F16x2);
        for (op, a, n) in ops {
            // bf16 add/sub/mul need sm_90; its fma sm_80. Only f16 has .ftz and .sat.
            let (sm, v) = if a == Arith::Fma {
                (80, (7, 0))
            } else {
                (90, (7, 8))
            };
            let mods: &[(bool, bool, bool)] = match (is_f16, a == Arith::Fma) {
                (true, true) => &[
                    (false, false, false),
                    (true, false, false),
                    (false, true, false),
                    (true, true, false),
                    (false, false, true),
                    (true, false, true),
                ],
                (true, false) => &[
                    (false, false, false),
                    (true, false, false),
                    (false, true, false),
                    (true, true, false),
                ],
                (false, true) => &[(false, false, false), (false, false, true)],
                (false, false) => &[(false, false, false)],
            };
            for &(ftz, sat_on, relu_on) in mods {
                let name = format!(
                    "{op}.rn{}{}{}.{}",
                    if ftz { ".ftz" } else { "" },
                    if sat_on { ".sat" } else { "" },
                    if relu_on { ".relu" } else { "" },
                    t.name()
                );
                let f: Elem = Arc::new(move |e: &[u64]| {
                    let fl = |v: u64| if ftz { k.ftz(v) } else { v };
                    let c = e.get(2).copied().map(fl).unwrap_or(0);
                    let mut d = soft::arith(k, a, fl(e[0]), fl(e[1]), c, Rnd::Rn);
                    if ftz {
                        d = k.ftz(d);
                    }
                    if sat_on {
                        d = sat(k, d);
                    }
                    if relu_on { relu(k, d) } else { d }
                });
                let form = elementwise(name, t, n, f);
                let form = if relu_on {
                    form.needs(80, (7, 0))
                } else {
                    needs(t, form, sm, v)
                };
                out.push(form);
            }
        }
    }
}

fn others(out: &mut Vec<Form>) {
    for t in [F16, F16x2, Bf16, Bf16x2] {
        let k = t.float().unwrap_or(FloatKind::F16);
        let ftzs: &[bool] = if matches!(t, F16 | F16x2) {
            &[false, true]
        } else {
            &[false]
        };
        for &ftz in ftzs {
            let z = if ftz { ".ftz" } else { "" };
            for (op, max) in [("min", false), ("max", true)] {
                for nan_wins in [false, true] {
                    let name =
                        format!("{op}{z}{}.{}", if nan_wins { ".NaN" } else { "" }, t.name());
                    let f: Elem = Arc::new(move |e: &[u64]| {
                        let fl = |v: u64| if ftz { k.ftz(v) } else { v };
                        min_max(k, fl(e[0]), fl(e[1]), max, nan_wins)
                    });
                    out.push(elementwise(name, t, 2, f).needs(80, (7, 0)));
                }
            }
            let sign = 1u64 << (k.bits() - 1);
            for (op, flip) in [("abs", false), ("neg", true)] {
                let f: Elem = Arc::new(move |e: &[u64]| {
                    let v = if ftz { k.ftz(e[0]) } else { e[0] };
                    if flip { v ^ sign } else { v & !sign }
                });
                let form = elementwise(format!("{op}{z}.{}", t.name()), t, 1, f);
                out.push(needs(t, form, 80, (7, 0)).needs(60, (7, 0)));
            }
        }
    }
}

fn setp(out: &mut Vec<Form>) {
    let k = FloatKind::F16;
    for t in [F16, F16x2] {
        for c in &FLOAT_CMPS[..12] {
            let name = format!("setp.{c}.{}", t.name());
            let one = move |a: u64, b: u64| {
                u64::from(float_cmp(c, soft::to_f64(k, a), soft::to_f64(k, b)))
            };
            let form = if t == F16 {
                Form::lane(
                    Family::Half,
                    name,
                    vec![any(t); 2],
                    vec![bits(Pred)],
                    move |x| vec![one(x[0], x[1])],
                )
            } else {
                // p|q: p compares the lower halves, q the upper (PTX ISA 9.7.4.7).
                let body = format!("{name} {{d0}}|{{d1}}, {{a0}}, {{a1}};");
                Form::lane(
                    Family::Half,
                    name,
                    vec![any(t); 2],
                    vec![bits(Pred), bits(Pred)],
                    move |x| {
                        vec![
                            one(x[0] & 0xffff, x[1] & 0xffff),
                            one(x[0] >> 16, x[1] >> 16),
                        ]
                    },
                )
                .with_body(body)
            };
            out.push(form.needs(53, (7, 0)));
        }
    }
}

/// Every f16/bf16 form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    arithmetic(&mut out);
    others(&mut out);
    setp(&mut out);
    out
}
