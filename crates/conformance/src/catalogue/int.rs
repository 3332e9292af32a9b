//! Integer arithmetic forms. References: Rust's native integer arithmetic
//! on i128 and u128, written from the ISA's definitions (PTX ISA 9.7.1
//! "Integer arithmetic", 9.7.2 "Extended-precision") — independent of the
//! emulator's ALU.

use crate::form::{Family, Form, any, bits};
use crate::operand::Gen;
use crate::ty::Ty::{self, *};

pub(super) const INTS: [Ty; 6] = [U16, S16, U32, S32, U64, S64];

pub(super) fn wrap(t: Ty, v: i128) -> u64 {
    (v as u64) & t.mask()
}

fn clamp(t: Ty, v: i128) -> u64 {
    let w = t.bits();
    let (lo, hi) = if t.signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    wrap(t, v.clamp(lo, hi))
}

/// The full product, as i128 when it fits (signed, or unsigned up to 32 bits)
/// and through u128 for u64 (the value's low 128 bits either way).
fn product(t: Ty, a: u64, b: u64) -> i128 {
    if t.signed() || t.bits() < 64 {
        t.int_value(a) * t.int_value(b)
    } else {
        ((a as u128) * (b as u128)) as i128
    }
}

fn high(t: Ty, a: u64, b: u64) -> u64 {
    let w = t.bits();
    if !t.signed() && w == 64 {
        return (((a as u128) * (b as u128)) >> 64) as u64;
    }
    wrap(t, product(t, a, b) >> w)
}

pub(super) fn lane2(name: String, t: Ty, out: Ty, b: Gen, f: fn(Ty, u64, u64) -> u64) -> Form {
    Form::lane(
        Family::Integer,
        name,
        vec![any(t), (t, b)],
        vec![bits(out)],
        move |x| vec![f(t, x[0], x[1])],
    )
}

fn lane3(name: String, ins: [Ty; 3], out: Ty, gens: [Gen; 3], f: fn(Ty, &[u64]) -> u64) -> Form {
    let t = ins[0];
    Form::lane(
        Family::Integer,
        name,
        ins.iter().zip(gens).map(|(&t, g)| (t, g)).collect(),
        vec![bits(out)],
        move |x| vec![f(t, x)],
    )
}

fn wide(t: Ty) -> Ty {
    match t {
        U16 => U32,
        S16 => S32,
        U32 => U64,
        _ => S64,
    }
}

/// Arithmetic on the six integer types.
fn arithmetic(out: &mut Vec<Form>) {
    type Op = fn(Ty, u64, u64) -> u64;
    let ops: [(&str, Gen, Op); 8] = [
        ("add", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a) + t.int_value(b))
        }),
        ("sub", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a) - t.int_value(b))
        }),
        ("mul.lo", Gen::Any, |t, a, b| wrap(t, product(t, a, b))),
        ("mul.hi", Gen::Any, high),
        ("min", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a).min(t.int_value(b)))
        }),
        ("max", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a).max(t.int_value(b)))
        }),
        ("div", Gen::Divisor, |t, a, b| {
            wrap(t, t.int_value(a) / t.int_value(b))
        }),
        ("rem", Gen::Divisor, |t, a, b| {
            wrap(t, t.int_value(a) % t.int_value(b))
        }),
    ];
    for t in INTS {
        for (op, g, f) in ops {
            out.push(lane2(format!("{op}.{}", t.name()), t, t, g, f));
        }
        out.push(lane3(
            format!("mad.lo.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| wrap(t, product(t, x[0], x[1]).wrapping_add(t.int_value(x[2]))),
        ));
        out.push(lane3(
            format!("mad.hi.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| wrap(t, t.int_value(high(t, x[0], x[1])) + t.int_value(x[2])),
        ));
        out.push(lane3(
            format!("sad.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| {
                let d = (t.int_value(x[0]) - t.int_value(x[1])).abs();
                wrap(t, d + t.int_value(x[2]))
            },
        ));
    }
    for t in [U16, S16, U32, S32] {
        let w = wide(t);
        out.push(Form::lane(
            Family::Integer,
            format!("mul.wide.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(w)],
            move |x| vec![wrap(w, product(t, x[0], x[1]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mad.wide.{}", t.name()),
            vec![any(t), any(t), any(w)],
            vec![bits(w)],
            move |x| vec![wrap(w, product(t, x[0], x[1]) + w.int_value(x[2]))],
        ));
    }
    out.push(lane2(
        "add.sat.s32".into(),
        S32,
        S32,
        Gen::Any,
        |t, a, b| clamp(t, t.int_value(a) + t.int_value(b)),
    ));
    out.push(lane2(
        "sub.sat.s32".into(),
        S32,
        S32,
        Gen::Any,
        |t, a, b| clamp(t, t.int_value(a) - t.int_value(b)),
    ));
    out.push(lane3(
        "mad.hi.sat.s32".into(),
        [S32; 3],
        S32,
        [Gen::Any; 3],
        |t, x| clamp(t, (product(t, x[0], x[1]) >> 32) + t.int_value(x[2])),
    ));
    for t in [U32, S32] {
        // 24-bit operands: the low 24 bits, sign-extended for .s32.
        let m24 = move |v: u64| -> i128 {
            let v = (v & 0xff_ffff) as i128;
            if t.signed() && v >= 1 << 23 {
                v - (1 << 24)
            } else {
                v
            }
        };
        out.push(Form::lane(
            Family::Integer,
            format!("mul24.lo.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, m24(x[0]) * m24(x[1]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mul24.hi.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, (m24(x[0]) * m24(x[1])) >> 16)],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mad24.lo.{}", t.name()),
            vec![any(t), any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, m24(x[0]) * m24(x[1]) + t.int_value(x[2]))],
        ));
    }
    for t in [S16, S32, S64] {
        out.push(Form::lane(
            Family::Integer,
            format!("neg.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, -t.int_value(x[0]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("abs.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, t.int_value(x[0]).abs())],
        ));
    }
}

/// Extended precision: carry chains add or subtract multi-limb numbers
/// (add.cc, addc.cc, addc), and mad.lo.cc with madc.hi makes a full product
/// plus a two-limb addend (PTX ISA 9.7.2). The reference is the plain
/// wide arithmetic on u128.
fn carries(out: &mut Vec<Form>) {
    for (t, limbs) in [(U32, 2), (U32, 3), (U64, 2)] {
        let w = t.bits();
        let n = t.name();
        for sub in [false, true] {
            let (op, opc) = if sub {
                ("sub", "subc")
            } else {
                ("add", "addc")
            };
            let steps: Vec<String> = (0..limbs)
                .map(|i| match i {
                    0 => format!("{op}.cc.{n}"),
                    _ if i + 1 < limbs => format!("{opc}.cc.{n}"),
                    _ => format!("{opc}.{n}"),
                })
                .collect();
            let body: Vec<String> = steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{s} {{d{i}}}, {{a{i}}}, {{a{}}};", i + limbs))
                .collect();
            out.push(
                Form::lane(
                    Family::Integer,
                    steps.join("+"),
                    vec![any(t); 2 * limbs],
                    vec![bits(t); limbs],
                    move |x| {
                        let m = t.mask() as u128;
                        let num = |v: &[u64]| {
                            v.iter()
                                .rev()
                                .fold(0u128, |acc, &l| acc << w | (l as u128 & m))
                        };
                        let (a, b) = (num(&x[..limbs]), num(&x[limbs..]));
                        let r = if sub {
                            a.wrapping_sub(b)
                        } else {
                            a.wrapping_add(b)
                        };
                        (0..limbs)
                            .map(|i| ((r >> (w as usize * i)) & m) as u64)
                            .collect()
                    },
                )
                .with_body(body.join("\n    ")),
            );
        }
    }
    for t in [U32, S32, U64, S64] {
        let (w, n) = (t.bits(), t.name());
        let body = format!(
            "mad.lo.cc.{n} {{d0}}, {{a0}}, {{a1}}, {{a2}};\n    madc.hi.{n} {{d1}}, {{a0}}, {{a1}}, {{a3}};"
        );
        out.push(
            Form::lane(
                Family::Integer,
                format!("mad.lo.cc.{n}+madc.hi.{n}"),
                vec![any(t); 4],
                vec![bits(t); 2],
                move |x| {
                    let m = t.mask() as u128;
                    let addend = (x[2] as u128 & m) | (x[3] as u128 & m) << w;
                    let r = (product(t, x[0], x[1]) as u128).wrapping_add(addend);
                    vec![(r & m) as u64, ((r >> w) & m) as u64]
                },
            )
            .with_body(body),
        );
    }
}

/// Every integer arithmetic form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    arithmetic(&mut out);
    carries(&mut out);
    out
}
