//! Decoding one instruction: opcode and modifiers (as spelled) to the typed
//! [`Instruction`], checking which modifiers the opcode takes, how many type
//! suffixes and of which class, how many operands and of which kind, vector
//! widths, and that every register, symbol and label is declared.
//!
//! - [`modifiers`]: the modifier categories each opcode allows;
//! - [`classify`]: one modifier word to its category;
//! - [`arity`]: type-suffix and operand counts, operand slot kinds;
//! - [`operands`]: operands resolved against declarations.

mod arity;
mod classify;
mod modifiers;
mod operands;

use arity::{Slot, check_types, operand_arity, slots, type_arity};
use classify::classify;
use modifiers::{F, allowed, is_scalar_video, is_video};
use operands::{resolve, split_selector};

use crate::ast::{self, Op, Word};
use crate::decode::{Decl, Decoder, FuncScope, err};
use crate::decode_vec::check_vector_len;
use crate::ir::*;

/// Splits the opcode word and its leading fixed modifiers into an [`Opcode`].
fn opcode<'a, 'b>(i: &'b ast::Instr<'a>) -> Option<(Opcode, &'b [Word<'a>])> {
    let m = &i.mods;
    let word = |k: usize| m.get(k).map(|w| &w.text[1..]);
    Some(match i.opcode.text {
        "cp" if word(0) == Some("async") && word(1) == Some("bulk") => match word(2) {
            Some("commit_group") => (Opcode::CpAsyncBulkCommitGroup, &m[3..]),
            Some("wait_group") => (Opcode::CpAsyncBulkWaitGroup, &m[3..]),
            Some("prefetch") => (Opcode::CpAsyncBulkPrefetch, &m[3..]),
            _ => (Opcode::CpAsyncBulk, &m[2..]),
        },
        "cp" if word(0) == Some("async") => match word(1) {
            Some("commit_group") => (Opcode::CpAsyncCommitGroup, &m[2..]),
            Some("wait_group") => (Opcode::CpAsyncWaitGroup, &m[2..]),
            Some("wait_all") => (Opcode::CpAsyncWaitAll, &m[2..]),
            Some("mbarrier") if word(2) == Some("arrive") => {
                (Opcode::CpAsyncMbarrierArrive, &m[3..])
            }
            _ => (Opcode::CpAsync, &m[1..]),
        },
        "bar" if word(0) == Some("warp") && word(1) == Some("sync") => {
            (Opcode::BarWarpSync, &m[2..])
        }
        "brx" if word(0) == Some("idx") => (Opcode::BrxIdx, &m[1..]),
        "suld" | "sust" if word(0) == Some("b") => {
            let load = i.opcode.text == "suld";
            let op = match (word(1), load) {
                (Some("1d"), true) => Opcode::Suld1d,
                (Some("2d"), true) => Opcode::Suld2d,
                (Some("3d"), true) => Opcode::Suld3d,
                (Some("1d"), false) => Opcode::Sust1d,
                (Some("2d"), false) => Opcode::Sust2d,
                (Some("3d"), false) => Opcode::Sust3d,
                _ => return None,
            };
            (op, &m[2..])
        }
        "tex" => match word(0) {
            Some("1d") => (Opcode::Tex1d, &m[1..]),
            Some("2d") => (Opcode::Tex2d, &m[1..]),
            Some("3d") => (Opcode::Tex3d, &m[1..]),
            _ => return None,
        },
        "griddepcontrol" => match word(0) {
            Some("wait") => (Opcode::GriddepcontrolWait, &m[1..]),
            Some("launch_dependents") => (Opcode::GriddepcontrolLaunchDependents, &m[1..]),
            _ => return None,
        },
        // The dotted stems above are not opcodes on their own.
        other => match Opcode::from_name(other) {
            Some(
                Opcode::CpAsync
                | Opcode::BarWarpSync
                | Opcode::BrxIdx
                | Opcode::CpAsyncCommitGroup
                | Opcode::CpAsyncWaitGroup
                | Opcode::CpAsyncWaitAll
                | Opcode::CpAsyncMbarrierArrive
                | Opcode::CpAsyncBulk
                | Opcode::CpAsyncBulkCommitGroup
                | Opcode::CpAsyncBulkWaitGroup
                | Opcode::CpAsyncBulkPrefetch
                | Opcode::GriddepcontrolWait
                | Opcode::GriddepcontrolLaunchDependents,
            )
            | None => return None,
            // Texture and surface stems (`tex.2d`, `suld.b.2d`) likewise.
            Some(op) if op.texture_rank() > 0 => return None,
            Some(op) => (op, &m[..]),
        },
    })
}

/// Instructions of the PTX ISA that ptxperf knows it does not handle, and
/// what they are: a user then reads that their kernel uses a feature not
/// supported yet, not that their PTX is wrong.
fn not_yet_supported(i: &ast::Instr<'_>) -> Option<&'static str> {
    let word = |k: usize| i.mods.get(k).map(|w| &w.text[1..]);
    Some(match i.opcode.text {
        "barrier" if word(0) == Some("cluster") => "a thread block cluster barrier (sm_90)",
        "mapa" | "getctarank" => "distributed shared memory of a thread block cluster (sm_90)",
        "wgmma" => "warpgroup matrix multiply-accumulate (sm_90a)",
        // Bulk copies of contiguous bytes are emulated; the tensor forms
        // (a tensor map, TMA proper) and multicast to a cluster are not.
        "cp" if word(0) == Some("async")
            && word(1) == Some("bulk")
            && i.mods.iter().any(|w| w.text == ".tensor") =>
        {
            "a bulk tensor copy (TMA with a tensor map, sm_90)"
        }
        "cp" if word(0) == Some("async")
            && word(1) == Some("bulk")
            && i.mods.iter().any(|w| w.text.starts_with(".multicast")) =>
        {
            "a bulk copy multicast to a thread block cluster (sm_90a)"
        }
        "cp" if word(0) == Some("reduce") => "a bulk asynchronous reduction (TMA, sm_90)",
        "tcgen05" => "a fifth-generation tensor core instruction (sm_100a)",
        "setmaxnreg" => "register reallocation between warpgroups (sm_90a)",
        // Fetches from a texture object of one to three dimensions run
        // (`tex.{1d,2d,3d}.v4.{f32,s32,u32}.{s32,f32}`); layered and cube
        // textures, mipmap levels, gradients, offsets, depth compares and
        // separate samplers do not.
        "tex" if !is_plain_fetch(i) => {
            "a texture fetch other than `tex1Dfetch`, `tex1D`, `tex2D` or `tex3D` on a texture object (`tex.{1d,2d,3d}.v4` with `.s32` or `.f32` coordinates)"
        }
        "suld" | "sust" if !is_plain_surface_access(i) => {
            "a surface access other than `surf1Dread` ... `surf3Dwrite` (`suld.b`/`sust.b` on a 1D, 2D or 3D surface object)"
        }
        "tex" | "suld" | "sust" => return None,
        op if crate::parser::TEXTURE_OPCODES.contains(&op) => "a texture or surface instruction",
        "multimem" => "a multimem (NVLink multicast) instruction",
        "clusterlaunchcontrol" => "cluster launch control (sm_100)",
        _ => return None,
    })
}

/// `tex.GEOM.v4.DTYPE.CTYPE d, [t, {x, ...}]`: a fetch from a texture object
/// of one to three dimensions, what `tex1Dfetch<T>(obj, x)` (`.1d` with
/// `.s32`) and `tex1D`, `tex2D`, `tex3D` (`.f32`) compile to.
fn is_plain_fetch(i: &ast::Instr<'_>) -> bool {
    let words: Vec<&str> = i.mods.iter().map(|w| w.text).collect();
    matches!(
        words.as_slice(),
        [
            ".1d" | ".2d" | ".3d",
            ".v4",
            ".f32" | ".s32" | ".u32",
            ".s32" | ".f32"
        ]
    ) && i.operands.len() == 3
}

/// `suld.b.GEOM{.v2,.v4}.bN.MODE d, [s, {x, ...}]` and `sust.b...
/// [s, {x, ...}], a`: an unformatted read or write of a surface object of
/// one to three dimensions, what `surf2Dread` and `surf2Dwrite` compile to.
fn is_plain_surface_access(i: &ast::Instr<'_>) -> bool {
    let words: Vec<&str> = i.mods.iter().map(|w| w.text).collect();
    let shape = match words.as_slice() {
        [".b", geom, ".v2" | ".v4", ty, mode] | [".b", geom, ty, mode] => {
            matches!(*geom, ".1d" | ".2d" | ".3d")
                && matches!(*ty, ".b8" | ".b16" | ".b32" | ".b64")
                && matches!(*mode, ".trap" | ".clamp" | ".zero")
        }
        _ => false,
    };
    shape && i.operands.len() == 3
}

pub(crate) fn decode<'a>(
    dec: &mut Decoder<'a>,
    func: &Function,
    fs: &FuncScope<'a>,
    scope: Option<ScopeId>,
    i: &ast::Instr<'a>,
    loc: Option<SourceLoc>,
) -> Option<Instruction> {
    let diags = &mut dec.diags;
    if let Some(what) = not_yet_supported(i) {
        err(
            diags,
            i.opcode.span,
            format!(
                "`{}`: {what} is not supported by ptxperf yet",
                i.opcode.text
            ),
        );
        return None;
    }
    let Some((op, mod_words)) = opcode(i) else {
        err(
            diags,
            i.opcode.span,
            format!("unknown opcode `{}`", i.opcode.text),
        );
        return None;
    };
    let mut mods = Modifiers::default();
    let mut types = Vec::new();
    let mut ok = true;
    let allow = allowed(op);
    for w in mod_words {
        let t = &w.text[1..];
        match classify(op, t, &mut mods, &mut types) {
            Some(f) if allow.contains(&f) => {}
            Some(F::Type) => {
                err(
                    diags,
                    w.span,
                    format!("`{}` takes no type suffix, found `{}`", op.name(), w.text),
                );
                ok = false;
            }
            Some(_) => {
                err(
                    diags,
                    w.span,
                    format!("modifier `{}` is not valid for `{}`", w.text, op.name()),
                );
                ok = false;
            }
            None => {
                let msg = if t.starts_with('v') && t[1..].parse::<u32>().is_ok() {
                    format!(
                        "invalid vector width `{}` (expected .v2, .v4 or .v8)",
                        w.text
                    )
                } else if t.len() <= 4
                    && t[1..].parse::<u32>().is_ok()
                    && matches!(t.as_bytes().first(), Some(b'u' | b's' | b'b' | b'f'))
                {
                    format!("unknown type `{}`", w.text)
                } else {
                    format!("unknown modifier `{}` for `{}`", w.text, op.name())
                };
                err(diags, w.span, msg);
                ok = false;
            }
        }
    }
    if ok && op == Opcode::Mbarrier && mods.mbarrier_op.is_none() {
        err(
            diags,
            i.opcode.span,
            "`mbarrier` needs an operation: .init, .inval, .arrive, .arrive_drop, .test_wait, .try_wait, .pending_count, .expect_tx or .complete_tx".to_string(),
        );
        ok = false;
    }
    if ok && op == Opcode::Createpolicy {
        let why = match mods.policy {
            None => Some("`createpolicy` needs a kind: .fractional, .range or .cvt"),
            Some(PolicyKind::Fractional | PolicyKind::Range) if mods.priorities.is_empty() => Some(
                "`createpolicy` needs an L2 priority: .L2::evict_last, .L2::evict_normal, .L2::evict_first or .L2::evict_unchanged",
            ),
            _ => None,
        };
        if let Some(why) = why {
            err(diags, i.opcode.span, why.to_string());
            ok = false;
        }
    }
    if ok && op == Opcode::Fence && mods.proxy_word && mods.proxy.is_none() {
        err(
            diags,
            i.opcode.span,
            "`fence.proxy` needs a proxy kind: .alias, .async, .async.global or .async.shared::cta"
                .to_string(),
        );
        ok = false;
    }
    if ok && op == Opcode::CpAsyncBulk && mods.completion.is_none() {
        err(
            diags,
            i.opcode.span,
            "`cp.async.bulk` needs a completion mechanism: .mbarrier::complete_tx::bytes (into shared memory) or .bulk_group (into global memory)".to_string(),
        );
        ok = false;
    }
    if !ok {
        return None;
    }
    let (tmin, tmax) = type_arity(op, &mods);
    if types.len() < tmin || types.len() > tmax {
        let what = if tmin == tmax {
            format!("{tmin}")
        } else {
            format!("{tmin} to {tmax}")
        };
        err(
            diags,
            i.opcode
                .span
                .join(mod_words.last().map_or(i.opcode.span, |w| w.span)),
            format!(
                "`{}` needs {what} type suffix(es), found {}",
                op.name(),
                types.len()
            ),
        );
        return None;
    }
    if let Some(msg) = check_types(op, &types) {
        let span = mod_words
            .iter()
            .rev()
            .find(|w| Type::from_name(&w.text[1..]).is_some())
            .map_or(i.span, |w| w.span);
        err(diags, span, msg);
        return None;
    }
    let (omin, omax) = operand_arity(op, &mods);
    let n = i.operands.len();
    if n < omin || n > omax {
        let what = if omin == omax {
            format!("{omin}")
        } else {
            format!("{omin} to {omax}")
        };
        let span = i
            .operands
            .first()
            .map_or(i.opcode.span, |o| o.span())
            .join(i.operands.last().map_or(i.opcode.span, |o| o.span()));
        err(
            diags,
            span,
            format!("`{}` takes {what} operand(s), found {n}", op.name()),
        );
        return None;
    }
    let guard = match &i.guard {
        None => None,
        Some((w, negated)) => match fs.lookup(w.text, scope) {
            Some(Decl::Reg(r)) if func.regs[r].ty == Type::Pred => Some(Guard {
                reg: r,
                negated: *negated,
            }),
            Some(Decl::Reg(_)) => {
                err(
                    diags,
                    w.span,
                    format!("guard `{}` is not a predicate register", w.text),
                );
                return None;
            }
            _ => {
                err(diags, w.span, format!("undeclared register `{}`", w.text));
                return None;
            }
        },
    };
    let kinds = slots(op, &mods, n);
    let mut operands = Vec::with_capacity(n);
    for (k, (o, slot)) in i.operands.iter().zip(kinds).enumerate() {
        // vmad's `-a`: the flag in the modifiers, the register as usual.
        let negated = match o {
            Op::Neg(w) if op == Opcode::Vmad && (1..=3).contains(&k) => {
                mods.video_neg[k - 1] = true;
                Some(Op::Name(*w))
            }
            _ => None,
        };
        let o = negated.as_ref().unwrap_or(o);
        let selected = if (is_scalar_video(op) || is_video(op)) && k < 3 {
            split_selector(o, |s| {
                if is_video(op) {
                    mods.simd_sel[k] = Some(SimdSel::from_name(s)?);
                } else {
                    mods.video_sel[k] = Some(VideoSel::from_name(s)?);
                }
                Some(())
            })
        } else {
            None
        };
        let o = selected.as_ref().unwrap_or(o);
        let Some(r) = resolve(dec, func, fs, scope, o, slot) else {
            ok = false;
            continue;
        };
        let diags = &mut dec.diags;
        let bad = match (slot, &r) {
            (
                Slot::Dst,
                Operand::Reg(_)
                | Operand::VecElem(..)
                | Operand::Vector(_)
                | Operand::Pair(..)
                | Operand::SinkPair(_)
                | Operand::Sink,
            ) => None,
            (Slot::Dst, _) => Some("a destination register"),
            (Slot::Addr, Operand::Address(_)) => None,
            (Slot::Addr, _) => Some("an address `[...]`"),
            (Slot::Src, Operand::Address(_)) => Some("a register or immediate (not an address)"),
            (Slot::Src, Operand::Pair(..) | Operand::SinkPair(_)) => Some("a single register"),
            _ => None,
        };
        if let Some(want) = bad {
            err(
                diags,
                o.span(),
                format!("operand of `{}` must be {want}", op.name()),
            );
            ok = false;
        }
        operands.push(r);
    }
    if !ok {
        return None;
    }
    if let Some(v) = mods.vec
        && (matches!(op, Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Mov)
            || op.texture_rank() > 0)
    {
        // A vector register stands for its elements (ISA 6.4.2); mov.vN
        // checks both operands.
        let data: &[usize] = match op {
            Opcode::St => &[1],
            _ if op.is_surface_store() => &[2],
            Opcode::Mov => &[0, 1],
            _ => &[0],
        };
        for &k in data {
            let len = match &operands[k] {
                Operand::Vector(items) => Some(items.len() as u32),
                Operand::Reg(r) => func.regs.get(*r).and_then(|d| d.vec).map(|w| w.lanes()),
                _ => None,
            };
            if !check_vector_len(&mut dec.diags, len, v, &i.operands[k]) {
                return None;
            }
        }
    }
    if op.texture_rank() > 0 && !check_coordinates(&mut dec.diags, op, &operands, i) {
        return None;
    }
    if op == Opcode::Call && !check_call(&mut dec.diags, &operands, i) {
        return None;
    }
    Some(Instruction {
        guard,
        opcode: op,
        mods,
        types,
        operands,
        loc,
    })
}

/// The coordinates of a texture fetch or surface access: a vector of one
/// per dimension, four for 3D (`{x, y, z, _}`, the last unused).
fn check_coordinates(
    diags: &mut Vec<crate::diag::Diagnostic>,
    op: Opcode,
    ops: &[Operand],
    i: &ast::Instr<'_>,
) -> bool {
    let at = if op.is_surface_store() { 1 } else { 2 };
    let rank = op.texture_rank() as usize;
    let want = if rank == 3 { 4 } else { rank };
    let found = match ops.get(at) {
        Some(Operand::Vector(items)) => items.len(),
        _ => 0,
    };
    if found == want {
        return true;
    }
    let shape = ["{x}", "{x, y}", "{x, y, z, _}"][rank.clamp(1, 3) - 1];
    err(
        diags,
        i.operands.get(at).map_or(i.span, |o| o.span()),
        format!(
            "`{}` takes a vector of {want} coordinate(s) `{shape}`, found {found}",
            op.name()
        ),
    );
    false
}

/// `call (rets), f, (args) [, proto]` shapes.
fn check_call(
    diags: &mut Vec<crate::diag::Diagnostic>,
    ops: &[Operand],
    i: &ast::Instr<'_>,
) -> bool {
    let mut k = 0;
    if matches!(ops.first(), Some(Operand::List(_))) {
        k = 1;
    }
    match ops.get(k) {
        Some(Operand::Symbol(Symbol::Function(_), 0) | Operand::Reg(_)) => {}
        _ => {
            err(
                diags,
                i.operands.get(k).map_or(i.span, |o| o.span()),
                "`call` needs a function name or register",
            );
            return false;
        }
    }
    for (j, o) in ops.iter().enumerate().skip(k + 1) {
        let fine = match o {
            Operand::List(_) => j == k + 1,
            Operand::Prototype(_) => j == ops.len() - 1,
            _ => false,
        };
        if !fine {
            err(diags, i.operands[j].span(), "unexpected operand in `call`");
            return false;
        }
    }
    true
}
