//! mma.sync forms (m16n8k8 and m16n8k16, .row.col, f16 and bf16
//! multiplicands, f32 or f16 accumulators). The reference gathers A, B and
//! C from the lanes' fragments as the ISA lays them out (PTX ISA 9.7.14.5.x
//! "Matrix fragments for mma.m16n8k8 / mma.m16n8k16", written here from the
//! ISA's tables) and computes `c + sum_k a*b` in f32 in k order: the ISA
//! leaves accumulation order and intermediate precision open, so this is
//! the emulator's documented choice, and against a GPU these outputs
//! compare within a tolerance ([`crate::form::Cmp::Accumulated`]).

use std::sync::Arc;

use crate::form::{Cmp, Eval, Family, Form, Out};
use crate::operand::Gen;
use crate::soft::{self, Rnd};
use crate::ty::FloatKind;
use crate::ty::Ty::{self, *};

/// Element `i` (two per 32-bit register) of a fragment `regs`.
fn elem(regs: &[u64], i: usize) -> u64 {
    regs.get(i / 2)
        .map_or(0, |r| (r >> (16 * (i % 2))) & 0xffff)
}

fn mma(k: usize, ab: Ty, d_f32: bool, c_f32: bool) -> Form {
    let kind = ab.float().unwrap_or(FloatKind::F16);
    let (a_regs, b_regs) = (k / 4, k / 8);
    let acc = |f32: bool| if f32 { (F32, 4) } else { (F16x2, 2) };
    let ((dt, d_regs), (ct, c_regs)) = (acc(d_f32), acc(c_f32));
    let name = format!(
        "mma.sync.aligned.m16n8k{k}.row.col.{}.{}.{}.{}",
        if d_f32 { "f32" } else { "f16" },
        kind_name(ab),
        kind_name(ab),
        if c_f32 { "f32" } else { "f16" }
    );
    let list = |p: &str, from: usize, n: usize| {
        (from..from + n)
            .map(|i| format!("{{{p}{i}}}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let body = format!(
        "{name} {{{}}}, {{{}}}, {{{}}}, {{{}}};",
        list("d", 0, d_regs),
        list("a", 0, a_regs),
        list("a", a_regs, b_regs),
        list("a", a_regs + b_regs, c_regs)
    );
    let mut inputs = vec![(ab_pair(ab), Gen::Unit); a_regs + b_regs];
    inputs.extend(vec![(ct, Gen::Unit); c_regs]);
    let outputs = vec![
        Out {
            ty: dt,
            cmp: Cmp::Accumulated
        };
        d_regs
    ];
    let mut form = Form::lane(Family::Mma, name, inputs, outputs, |_| Vec::new())
        .with_body(body)
        .needs(80, (7, 0));
    form.eval = Eval::Warp(Arc::new(move |lanes: &[Vec<u64>]| {
        let f = |bits: u64, k: FloatKind| soft::to_f64(k, bits) as f32;
        let mut am = [[0f32; 16]; 16];
        let mut bm = [[0f32; 8]; 16];
        let mut cm = [[0f32; 8]; 16];
        for (l, x) in lanes.iter().enumerate() {
            let (g, t) = (l / 4, l % 4);
            let (a, rest) = x.split_at(a_regs.min(x.len()));
            let (b, c) = rest.split_at(b_regs.min(rest.len()));
            for i in 0..2 * a_regs {
                // a0,a1: rows g, g+8 at columns 2t, 2t+1; a2,a3: the same 8 columns on.
                let row = g + if i % 4 >= 2 { 8 } else { 0 };
                let col = 2 * t + i % 2 + if i >= 4 { 8 } else { 0 };
                am[row][col] = f(elem(a, i), kind);
            }
            for i in 0..2 * b_regs {
                let row = 2 * t + i % 2 + if i >= 2 { 8 } else { 0 };
                bm[row][g] = f(elem(b, i), kind);
            }
            for i in 0..4 {
                let v = if c_f32 {
                    f(c.get(i).copied().unwrap_or(0), FloatKind::F32)
                } else {
                    f(elem(c, i), FloatKind::F16)
                };
                cm[g + if i >= 2 { 8 } else { 0 }][2 * t + i % 2] = v;
            }
        }
        (0..lanes.len())
            .map(|l| {
                let (g, t) = (l / 4, l % 4);
                let d: Vec<u64> = (0..4)
                    .map(|i| {
                        let (row, col) = (g + if i >= 2 { 8 } else { 0 }, 2 * t + i % 2);
                        let mut s = cm[row][col];
                        for (kk, brow) in bm.iter().enumerate().take(k) {
                            s += am[row][kk] * brow[col];
                        }
                        if d_f32 {
                            u64::from(s.to_bits())
                        } else {
                            soft::convert(
                                FloatKind::F32,
                                FloatKind::F16,
                                u64::from(s.to_bits()),
                                Rnd::Rn,
                            )
                        }
                    })
                    .collect();
                if d_f32 {
                    d
                } else {
                    vec![d[0] | d[1] << 16, d[2] | d[3] << 16]
                }
            })
            .collect()
    }));
    form
}

fn kind_name(t: Ty) -> &'static str {
    if t == Bf16 { "bf16" } else { "f16" }
}

fn ab_pair(t: Ty) -> Ty {
    if t == Bf16 { Bf16x2 } else { F16x2 }
}

/// Every mma form the emulator runs.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    for k in [8, 16] {
        // ptxas wants .dtype and .ctype alike (the emulator also runs mixed pairs).
        for f32 in [true, false] {
            out.push(mma(k, F16, f32, f32));
        }
        out.push(mma(k, Bf16, true, true));
    }
    out
}
