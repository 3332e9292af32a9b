//! Atomics and reductions on the thread's own word of global or shared
//! memory: store operand 0, apply the atomic with the other operands, load
//! the word back. No two threads share an address, so the result is
//! deterministic on any GPU. References: the ISA's definitions (PTX ISA
//! 9.7.13.5 atom, 9.7.13.6 red) in Rust integer ops and, for float adds,
//! `rustc_apfloat` round-to-nearest. An f32 add on global memory flushes
//! subnormal inputs and results to sign-preserving zero (ISA 9.7.13.5:
//! "atom.add.f32 on global memory flushes subnormal inputs and results";
//! recorded on an H200, data/conformance/nvidia-h200), one on shared memory
//! keeps them.

use crate::form::{Family, Form, Scratch, any, bits, nan};
use crate::operand::Gen;
use crate::soft::{self, Arith, Rnd};
use crate::ty::FloatKind;
use crate::ty::Ty::{self, *};

type Apply = fn(Ty, &[u64]) -> u64;

/// `apply` for `space`: global f32 adds flush subnormals (module comment).
fn in_space(space: &str, t: Ty, apply: Apply, x: &[u64]) -> u64 {
    if space == "global" && t == F32 {
        let k = FloatKind::F32;
        k.ftz(apply(t, &[k.ftz(x[0]), k.ftz(x[1])]))
    } else {
        apply(t, x)
    }
}

/// (op, type, new-value function of [old, b, c]).
fn ops() -> Vec<(&'static str, Ty, Apply)> {
    let mut v: Vec<(&'static str, Ty, Apply)> = Vec::new();
    for t in [U32, S32, U64] {
        v.push(("add", t, |t, x| x[0].wrapping_add(x[1]) & t.mask()));
    }
    v.push(("add", F32, |_, x| {
        soft::arith(FloatKind::F32, Arith::Add, x[0], x[1], 0, Rnd::Rn)
    }));
    v.push(("add", F64, |_, x| {
        soft::arith(FloatKind::F64, Arith::Add, x[0], x[1], 0, Rnd::Rn)
    }));
    for t in [U32, S32, U64, S64] {
        v.push(("min", t, |t, x| {
            t.int_value(x[0]).min(t.int_value(x[1])) as u64 & t.mask()
        }));
        v.push(("max", t, |t, x| {
            t.int_value(x[0]).max(t.int_value(x[1])) as u64 & t.mask()
        }));
    }
    for t in [B32, B64] {
        v.push(("and", t, |_, x| x[0] & x[1]));
        v.push(("or", t, |_, x| x[0] | x[1]));
        v.push(("xor", t, |_, x| x[0] ^ x[1]));
    }
    v.push(("inc", U32, |_, x| if x[0] >= x[1] { 0 } else { x[0] + 1 }));
    v.push(("dec", U32, |_, x| {
        if x[0] == 0 || x[0] > x[1] {
            x[1]
        } else {
            x[0] - 1
        }
    }));
    v
}

fn out_of(t: Ty) -> crate::form::Out {
    if t.float().is_some() { nan(t) } else { bits(t) }
}

fn form(
    name: String,
    body: String,
    scratch: Scratch,
    inputs: Vec<(Ty, Gen)>,
    outputs: Vec<crate::form::Out>,
    f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static,
) -> Form {
    let mut form = Form::lane(Family::Atomic, name, inputs, outputs, f).with_body(body);
    form.scratch = scratch;
    form
}

/// Every atom and red form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    for (space, scratch) in [("global", Scratch::Global), ("shared", Scratch::Shared)] {
        for (op, t, apply) in ops() {
            let n = t.name();
            let (sm, v) = if t == F64 { (60, (7, 0)) } else { (50, (7, 0)) };
            let b_gen = if op == "inc" || op == "dec" {
                Gen::Range(0, 40)
            } else {
                Gen::Any
            };
            let a_gen = if op == "inc" || op == "dec" {
                Gen::Range(0, 40)
            } else {
                Gen::Any
            };
            let store = format!("st.{space}.{} [{{scratch}}], {{a0}};", t.st());
            let load = |d: usize| format!("ld.{space}.{} {{d{d}}}, [{{scratch}}];", t.st());
            out.push(
                form(
                    format!("atom.{space}.{op}.{n}"),
                    format!(
                        "{store}\n    atom.{space}.{op}.{n} {{d0}}, [{{scratch}}], {{a1}};\n    {}",
                        load(1)
                    ),
                    scratch,
                    vec![(t, a_gen), (t, b_gen)],
                    vec![out_of(t), out_of(t)],
                    move |x| vec![x[0], in_space(space, t, apply, x)],
                )
                .needs(sm, v),
            );
            out.push(
                form(
                    format!("red.{space}.{op}.{n}"),
                    format!(
                        "{store}\n    red.{space}.{op}.{n} [{{scratch}}], {{a1}};\n    {}",
                        load(0)
                    ),
                    scratch,
                    vec![(t, a_gen), (t, b_gen)],
                    vec![out_of(t)],
                    move |x| vec![in_space(space, t, apply, x)],
                )
                .needs(sm, v),
            );
        }
        for t in [B32, B64] {
            let n = t.name();
            let store = format!("st.{space}.{n} [{{scratch}}], {{a0}};");
            let load = format!("ld.{space}.{n} {{d1}}, [{{scratch}}];");
            out.push(form(
                format!("atom.{space}.exch.{n}"),
                format!(
                    "{store}\n    atom.{space}.exch.{n} {{d0}}, [{{scratch}}], {{a1}};\n    {load}"
                ),
                scratch,
                vec![any(t), any(t)],
                vec![bits(t), bits(t)],
                |x| vec![x[0], x[1]],
            ));
            out.push(form(
                format!("atom.{space}.cas.{n}"),
                format!("{store}\n    atom.{space}.cas.{n} {{d0}}, [{{scratch}}], {{a1}}, {{a2}};\n    {load}"),
                scratch,
                vec![any(t), (t, Gen::MaybeFirst), any(t)],
                vec![bits(t), bits(t)],
                |x| vec![x[0], if x[0] == x[1] { x[2] } else { x[0] }],
            ));
        }
        let k = FloatKind::F16;
        let store = format!("st.{space}.b32 [{{scratch}}], {{a0}};");
        let load = format!("ld.{space}.b32 {{d1}}, [{{scratch}}];");
        out.push(
            form(
                format!("atom.{space}.add.noftz.f16x2"),
                format!("{store}\n    atom.{space}.add.noftz.f16x2 {{d0}}, [{{scratch}}], {{a1}};\n    {load}"),
                scratch,
                vec![any(F16x2), any(F16x2)],
                vec![nan(F16x2), nan(F16x2)],
                move |x| {
                    let half = |s: u32| soft::arith(k, Arith::Add, x[0] >> s & 0xffff, x[1] >> s & 0xffff, 0, Rnd::Rn);
                    vec![x[0], half(0) | half(16) << 16]
                },
            )
            .needs(60, (7, 0)),
        );
    }
    out
}
