//! Comparison and selection: the comparison operators (shared with the
//! float and half setp forms), integer setp, selp, set and slct.
//! References: Rust's integer and f64 comparisons, written from the ISA's
//! tables (PTX ISA 9.7.9 "Comparison and selection": the unordered `u`
//! forms are true when either operand is NaN, the others false; `num` and
//! `nan` test for NaNs).

use super::int::INTS;
use crate::form::{Family, Form, any, bits};
use crate::operand::Gen;
use crate::soft;
use crate::ty::Ty::{self, *};

/// The comparisons of a signed (`eq` .. `ge`) or unsigned (also `lo` .. `hs`) type.
pub(super) fn int_cmps(t: Ty) -> &'static [&'static str] {
    if t.signed() {
        &["eq", "ne", "lt", "le", "gt", "ge"]
    } else {
        &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]
    }
}

/// `a c b` on integer values (already extended by their type).
pub(super) fn int_cmp(c: &str, a: i128, b: i128) -> bool {
    match c {
        "eq" => a == b,
        "ne" => a != b,
        "lt" | "lo" => a < b,
        "le" | "ls" => a <= b,
        "gt" | "hi" => a > b,
        _ => a >= b,
    }
}

/// The 14 float comparisons.
pub(super) const FLOAT_CMPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// `a c b` on float values.
pub(super) fn float_cmp(c: &str, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match c {
        "num" => !unordered,
        "nan" => unordered,
        _ if unordered => c.ends_with('u'),
        _ => ordered(c.trim_end_matches('u'), a, b),
    }
}

fn ordered(c: &str, a: f64, b: f64) -> bool {
    match c {
        "eq" => a == b,
        "ne" => a != b,
        "lt" => a < b,
        "le" => a <= b,
        "gt" => a > b,
        _ => a >= b,
    }
}

/// Operand `i` of a comparison form as a comparable value of type `t`.
fn value(t: Ty, x: u64) -> Value {
    match t.float() {
        Some(k) => Value::F(soft::to_f64(k, x)),
        None => Value::I(t.int_value(x)),
    }
}

enum Value {
    I(i128),
    F(f64),
}

fn holds(c: &str, a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::I(a), Value::I(b)) => int_cmp(c, a, b),
        (Value::F(a), Value::F(b)) => float_cmp(c, a, b),
        _ => false,
    }
}

fn cmps_of(t: Ty) -> &'static [&'static str] {
    if t.float().is_some() {
        &FLOAT_CMPS
    } else {
        int_cmps(t)
    }
}

fn compare(out: &mut Vec<Form>) {
    for t in INTS {
        for &c in int_cmps(t) {
            out.push(Form::lane(
                Family::Integer,
                format!("setp.{c}.{}", t.name()),
                vec![any(t), any(t)],
                vec![bits(Pred)],
                move |x| vec![u64::from(holds(c, value(t, x[0]), value(t, x[1])))],
            ));
        }
    }
    // set: all ones (an integer result) or 1.0 (f32) when the comparison holds.
    for (d, sources) in [
        (U32, &[S32, U32, S64, U64, F32, F64][..]),
        (F32, &[S32, F32][..]),
    ] {
        for &t in sources {
            for &c in cmps_of(t) {
                out.push(Form::lane(
                    Family::Integer,
                    format!("set.{c}.{}.{}", d.name(), t.name()),
                    vec![any(t), any(t)],
                    vec![bits(d)],
                    move |x| {
                        let yes = if d == F32 { 0x3f80_0000 } else { 0xffff_ffff };
                        vec![if holds(c, value(t, x[0]), value(t, x[1])) {
                            yes
                        } else {
                            0
                        }]
                    },
                ));
            }
        }
    }
    for t in [B16, B32, B64, F32, F64] {
        out.push(Form::lane(
            Family::Integer,
            format!("selp.{}", t.name()),
            vec![any(t), any(t), (Pred, Gen::Bool)],
            vec![bits(t)],
            move |x| vec![if x[2] & 1 == 1 { x[0] } else { x[1] }],
        ));
    }
    // slct: a when c >= 0, else b (a NaN c selects b; .ftz flushes c first).
    for t in [B32, B64, F32, F64] {
        for (c, ftz) in [(S32, false), (F32, false), (F32, true)] {
            let z = if ftz { ".ftz" } else { "" };
            out.push(Form::lane(
                Family::Integer,
                format!("slct{z}.{}.{}", t.name(), c.name()),
                vec![any(t), any(t), any(c)],
                vec![bits(t)],
                move |x| {
                    let sel = match c.float() {
                        Some(k) => soft::to_f64(k, if ftz { k.ftz(x[2]) } else { x[2] }) >= 0.0,
                        None => c.int_value(x[2]) >= 0,
                    };
                    vec![if sel { x[0] } else { x[1] }]
                },
            ));
        }
    }
}

/// Every comparison and selection form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    compare(&mut out);
    out
}
