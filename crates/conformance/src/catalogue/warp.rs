//! Warp-level forms: shfl.sync, vote.sync, match.sync, redux.sync and
//! activemask, with the whole warp converged and a full member mask.
//! References follow the ISA's pseudocode over the warp's 32 lanes (PTX
//! ISA 9.7.8.6 shfl.sync, 9.7.13.x vote, match, redux), written here
//! independently of the emulator's collective code.

use std::sync::Arc;

use crate::form::{Eval, Family, Form, any, bits};
use crate::operand::Gen;
use crate::ty::Ty::{self, *};

/// A warp form: `body` over `inputs`, reference `f` on the 32 lanes.
fn warp(
    name: String,
    body: String,
    inputs: Vec<(Ty, Gen)>,
    outputs: Vec<crate::form::Out>,
    f: impl Fn(&[Vec<u64>]) -> Vec<Vec<u64>> + Send + Sync + 'static,
) -> Form {
    let mut form = Form::lane(Family::Warp, name, inputs, outputs, |_| Vec::new())
        .with_body(body)
        .needs(70, (7, 0));
    form.eval = Eval::Warp(Arc::new(f));
    form
}

fn shfl(out: &mut Vec<Form>) {
    for mode in ["up", "down", "bfly", "idx"] {
        // Whole warp, then segments of 8 lanes (c = ((32 - width) << 8) | clamp).
        let cs: [u64; 2] = if mode == "up" {
            [0, 0x1800]
        } else {
            [0x1f, 0x181f]
        };
        for c in cs {
            let name = format!("shfl.sync.{mode}.b32.c{c:#x}");
            let body =
                format!("shfl.sync.{mode}.b32 {{d0}}|{{d1}}, {{a0}}, {{a1}}, {c:#x}, 0xffffffff;");
            out.push(warp(
                name,
                body,
                vec![any(B32), (U32, Gen::Range(0, 40))],
                vec![bits(B32), bits(Pred)],
                move |lanes| {
                    (0..lanes.len())
                        .map(|lane| {
                            let lane = lane as i64;
                            let b = (lanes[lane as usize][1] & 31) as i64;
                            let seg = ((c >> 8) & 31) as i64;
                            let cval = (c & 31) as i64;
                            let max_lane = (lane & seg) | (cval & !seg);
                            let min_lane = lane & seg;
                            let (j, p) = match mode {
                                "up" => (lane - b, lane - b >= max_lane),
                                "down" => (lane + b, lane + b <= max_lane),
                                "bfly" => (lane ^ b, (lane ^ b) <= max_lane),
                                _ => {
                                    let j = min_lane | (b & !seg);
                                    (j, j <= max_lane)
                                }
                            };
                            let src = if p { j } else { lane } as usize;
                            let v = lanes.get(src).and_then(|l| l.first()).copied().unwrap_or(0);
                            vec![v, u64::from(p)]
                        })
                        .collect()
                },
            ));
        }
    }
}

fn vote(out: &mut Vec<Form>) {
    for mode in ["all", "any", "uni", "ballot"] {
        let (name, out_ty) = if mode == "ballot" {
            ("vote.sync.ballot.b32".to_string(), B32)
        } else {
            (format!("vote.sync.{mode}.pred"), Pred)
        };
        let body = format!("{name} {{d0}}, {{a0}}, 0xffffffff;");
        out.push(warp(
            name,
            body,
            vec![(Pred, Gen::Bool)],
            vec![bits(out_ty)],
            move |lanes| {
                let ps: Vec<bool> = lanes
                    .iter()
                    .map(|l| l.first().copied().unwrap_or(0) & 1 == 1)
                    .collect();
                let ballot = ps
                    .iter()
                    .enumerate()
                    .fold(0u64, |m, (i, &p)| m | u64::from(p) << i);
                let r = match mode {
                    "all" => u64::from(ps.iter().all(|&p| p)),
                    "any" => u64::from(ps.iter().any(|&p| p)),
                    "uni" => u64::from(ps.iter().all(|&p| p) || ps.iter().all(|&p| !p)),
                    _ => ballot,
                };
                vec![vec![r]; lanes.len()]
            },
        ));
    }
    out.push(warp(
        "activemask.b32".into(),
        "activemask.b32 {d0};".into(),
        vec![],
        vec![bits(B32)],
        |lanes| vec![vec![0xffff_ffff]; lanes.len()],
    ));
}

fn matches(out: &mut Vec<Form>) {
    for t in [B32, B64] {
        // Few distinct values, so that lanes match.
        let g = (t, Gen::Range(0, 3));
        let any_name = format!("match.sync.any.{}", t.name());
        out.push(warp(
            any_name.clone(),
            format!("{any_name} {{d0}}, {{a0}}, 0xffffffff;"),
            vec![g],
            vec![bits(B32)],
            |lanes| {
                let v: Vec<u64> = lanes
                    .iter()
                    .map(|l| l.first().copied().unwrap_or(0))
                    .collect();
                v.iter()
                    .map(|&x| {
                        vec![
                            v.iter()
                                .enumerate()
                                .fold(0, |m, (i, &y)| m | u64::from(x == y) << i),
                        ]
                    })
                    .collect()
            },
        ));
        let all_name = format!("match.sync.all.{}", t.name());
        out.push(warp(
            all_name.clone(),
            format!("{all_name} {{d0}}|{{d1}}, {{a0}}, 0xffffffff;"),
            vec![(t, Gen::Range(0, 0))],
            vec![bits(B32), bits(Pred)],
            |lanes| {
                let v: Vec<u64> = lanes
                    .iter()
                    .map(|l| l.first().copied().unwrap_or(0))
                    .collect();
                let same = v.iter().all(|&x| Some(&x) == v.first());
                vec![vec![if same { 0xffff_ffff } else { 0 }, u64::from(same)]; lanes.len()]
            },
        ));
    }
}

fn redux(out: &mut Vec<Form>) {
    type R = fn(Ty, &[u64]) -> u64;
    let ops: [(&str, Ty, R); 9] = [
        ("add", U32, |_, v| {
            v.iter().fold(0u64, |a, &x| a.wrapping_add(x)) & 0xffff_ffff
        }),
        ("add", S32, |_, v| {
            v.iter().fold(0u64, |a, &x| a.wrapping_add(x)) & 0xffff_ffff
        }),
        ("min", U32, |t, v| {
            v.iter().map(|&x| t.int_value(x)).min().unwrap_or(0) as u64 & 0xffff_ffff
        }),
        ("min", S32, |t, v| {
            v.iter().map(|&x| t.int_value(x)).min().unwrap_or(0) as u64 & 0xffff_ffff
        }),
        ("max", U32, |t, v| {
            v.iter().map(|&x| t.int_value(x)).max().unwrap_or(0) as u64 & 0xffff_ffff
        }),
        ("max", S32, |t, v| {
            v.iter().map(|&x| t.int_value(x)).max().unwrap_or(0) as u64 & 0xffff_ffff
        }),
        ("and", B32, |_, v| v.iter().fold(0xffff_ffff, |a, &x| a & x)),
        ("or", B32, |_, v| v.iter().fold(0, |a, &x| a | x)),
        ("xor", B32, |_, v| v.iter().fold(0, |a, &x| a ^ x)),
    ];
    for (op, t, f) in ops {
        let name = format!("redux.sync.{op}.{}", t.name());
        out.push(
            warp(
                name.clone(),
                format!("{name} {{d0}}, {{a0}}, 0xffffffff;"),
                vec![any(t)],
                vec![bits(t)],
                move |lanes| {
                    let v: Vec<u64> = lanes
                        .iter()
                        .map(|l| l.first().copied().unwrap_or(0))
                        .collect();
                    vec![vec![f(t, &v)]; lanes.len()]
                },
            )
            .needs(80, (7, 0)),
        );
    }
}

/// bar.red: a reduction over the whole CTA at a barrier (PTX ISA 9.7.13.1).
fn bar_red(out: &mut Vec<Form>) {
    for (op, ty) in [("popc", U32), ("and", Pred), ("or", Pred)] {
        let name = format!("bar.red.{op}.{}", ty.name());
        let mut form = warp(
            name.clone(),
            format!("{name} {{d0}}, 0, {{a0}};"),
            vec![(Pred, Gen::Bool)],
            vec![bits(ty)],
            |_| Vec::new(),
        );
        form.eval = Eval::Cta(Arc::new(move |threads: &[Vec<u64>]| {
            let ps = threads
                .iter()
                .map(|t| t.first().copied().unwrap_or(0) & 1 == 1);
            let r = match op {
                "popc" => ps.filter(|&p| p).count() as u64,
                "and" => u64::from(ps.clone().all(|p| p)),
                _ => u64::from(ps.clone().any(|p| p)),
            };
            vec![vec![r]; threads.len()]
        }));
        out.push(form);
    }
}

/// Every warp-level form (mma lives in [`super::mma`]).
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    shfl(&mut out);
    vote(&mut out);
    matches(&mut out);
    redux(&mut out);
    bar_red(&mut out);
    out
}
