//! Decoding one instruction: opcode and modifiers (as spelled) to the typed
//! [`Instruction`], checking which modifiers the opcode takes, how many type
//! suffixes and of which class, how many operands and of which kind, vector
//! widths, and that every register, symbol and label is declared.

use crate::ast::{self, Op, Word};
use crate::decode::{Decl, Decoder, FuncScope, err, num_to_imm};
use crate::decode_vec::{check_vector_len, vector_element};
use crate::ir::*;

/// A modifier category, for the per-opcode allow lists.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum F {
    Type,
    Rounding,
    Ftz,
    Sat,
    Satfinite,
    Relu,
    Nan,
    XorsignAbs,
    Noftz,
    Precision,
    MulPart,
    Cc,
    Cmp,
    BoolOp,
    Space,
    CvtaTo,
    Nc,
    Sem,
    Scope,
    Cache,
    Hint,
    Level,
    Vec,
    AtomOp,
    ShflMode,
    VoteMode,
    MatchMode,
    ShfDir,
    ShfMode,
    PrmtMode,
    BarMode,
    Testp,
    Sync,
    Aligned,
    Uni,
    Shiftamt,
    Trans,
    Num,
    Shape,
    Layout,
    WmmaOp,
    Fragment,
    Proxy,
    VideoAdd,
}

fn is_video(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Vadd2
            | Vsub2
            | Vabsdiff2
            | Vmin2
            | Vmax2
            | Vavrg2
            | Vadd4
            | Vsub4
            | Vabsdiff4
            | Vmin4
            | Vmax4
            | Vavrg4
    )
}

fn allowed(op: Opcode) -> &'static [F] {
    use F::*;
    use Opcode as O;
    match op {
        O::Add | O::Sub => &[Type, Rounding, Ftz, Sat, Cc],
        O::Addc | O::Subc => &[Type, Cc],
        O::Mul => &[Type, MulPart, Rounding, Ftz, Sat],
        O::Mad => &[Type, MulPart, Rounding, Ftz, Sat, Cc],
        O::Madc => &[Type, MulPart, Cc],
        O::Mul24 | O::Mad24 => &[Type, MulPart, Sat],
        O::Fma => &[Type, Rounding, Ftz, Sat, Relu, Satfinite],
        O::Div => &[Type, Rounding, Ftz, Precision],
        O::Abs | O::Neg => &[Type, Ftz],
        O::Min | O::Max => &[Type, Ftz, Nan, XorsignAbs, Relu],
        O::Rcp | O::Sqrt => &[Type, Rounding, Ftz, Precision],
        O::Rsqrt | O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh => &[Type, Precision, Ftz],
        O::Bfind => &[Type, Shiftamt],
        O::Dp2a => &[Type, MulPart],
        O::Setp | O::Set => &[Type, Cmp, BoolOp, Ftz],
        O::Slct => &[Type, Ftz],
        O::Testp => &[Type, Testp],
        O::Shf => &[Type, ShfDir, ShfMode],
        O::Prmt => &[Type, PrmtMode],
        O::Ld => &[Type, Space, Sem, Scope, Cache, Hint, Vec, Nc],
        O::Ldu => &[Type, Space, Vec],
        O::St => &[Type, Space, Sem, Scope, Cache, Hint, Vec],
        O::Cvt => &[Type, Rounding, Ftz, Sat, Satfinite, Relu],
        O::Cvta => &[Type, Space, CvtaTo],
        // `mov.v4.f32 {a,b,c,d}, V` (ISA 6.4.2 "Vector Operands").
        O::Mov => &[Type, Vec],
        O::Isspacep => &[Space],
        O::Prefetch | O::Prefetchu => &[Space, Level, Hint],
        O::Shfl => &[Type, Sync, ShflMode],
        O::Vote => &[Type, Sync, VoteMode],
        O::Match => &[Type, Sync, MatchMode],
        O::Redux => &[Type, Sync, AtomOp],
        O::Atom | O::Red => &[Type, Space, Sem, Scope, AtomOp, Noftz, Vec, Hint],
        O::Bar | O::Barrier => &[BarMode, Aligned, AtomOp, Type],
        O::Fence => &[Sem, Scope, Proxy],
        O::Membar => &[Scope],
        O::CpAsync => &[Cache, Space, Hint],
        O::Ldmatrix | O::Stmatrix => &[Sync, Aligned, Shape, Num, Trans, Space, Type],
        O::Mma => &[Sync, Aligned, Shape, Layout, Type, Satfinite],
        O::Wmma => &[
            WmmaOp, Fragment, Sync, Aligned, Layout, Shape, Space, Type, Satfinite,
        ],
        O::Bra | O::Call | O::Ret | O::BrxIdx => &[Uni],
        O::BarWarpSync
        | O::CpAsyncCommitGroup
        | O::CpAsyncWaitGroup
        | O::CpAsyncWaitAll
        | O::Exit
        | O::Trap
        | O::Brkpt
        | O::Pmevent => &[],
        _ if is_video(op) => &[Type, VideoAdd, Sat],
        _ => &[Type],
    }
}

/// Interprets one modifier word (without its dot) for `op`.
fn classify(op: Opcode, t: &str, m: &mut Modifiers, types: &mut Vec<Type>) -> Option<F> {
    use Opcode as O;
    if let Some(ty) = Type::from_name(t) {
        types.push(ty);
        return Some(F::Type);
    }
    // Words whose meaning depends on the opcode come first.
    let specific = match op {
        O::Setp | O::Set => {
            if let Some(c) = CmpOp::from_name(t) {
                m.cmp = Some(c);
                Some(F::Cmp)
            } else if let Some(b) = BoolOp::from_name(t) {
                m.bool_op = Some(b);
                Some(F::BoolOp)
            } else {
                None
            }
        }
        O::Atom | O::Red | O::Redux => AtomOp::from_name(t).map(|a| {
            m.atom_op = Some(a);
            F::AtomOp
        }),
        O::Bar | O::Barrier => {
            if let Some(b) = BarMode::from_name(t) {
                m.bar_mode = Some(b);
                Some(F::BarMode)
            } else if let Some(a @ (AtomOp::Popc | AtomOp::And | AtomOp::Or)) = AtomOp::from_name(t)
            {
                m.atom_op = Some(a);
                Some(F::AtomOp)
            } else {
                None
            }
        }
        O::Vote => VoteMode::from_name(t).map(|v| {
            m.vote_mode = Some(v);
            F::VoteMode
        }),
        O::Match => MatchMode::from_name(t).map(|v| {
            m.match_mode = Some(v);
            F::MatchMode
        }),
        O::Shfl => ShflMode::from_name(t).map(|v| {
            m.shfl_mode = Some(v);
            F::ShflMode
        }),
        O::Shf => {
            if let Some(d) = ShfDir::from_name(t) {
                m.shf_dir = Some(d);
                Some(F::ShfDir)
            } else {
                ShfMode::from_name(t).map(|v| {
                    m.shf_mode = Some(v);
                    F::ShfMode
                })
            }
        }
        O::Prmt => PrmtMode::from_name(t).map(|v| {
            m.prmt_mode = Some(v);
            F::PrmtMode
        }),
        O::Testp => TestpOp::from_name(t).map(|v| {
            m.testp = Some(v);
            F::Testp
        }),
        O::Wmma => {
            if let Some(w) = WmmaOp::from_name(t) {
                m.wmma_op = Some(w);
                Some(F::WmmaOp)
            } else {
                Fragment::from_name(t).map(|v| {
                    m.fragment = Some(v);
                    F::Fragment
                })
            }
        }
        O::Ldmatrix | O::Stmatrix => match t {
            "x1" | "x2" | "x4" => {
                m.num = t[1..].parse().ok();
                Some(F::Num)
            }
            "trans" => {
                m.trans = true;
                Some(F::Trans)
            }
            _ => None,
        },
        O::Membar => {
            let s = match t {
                "cta" => Some(MemScope::Cta),
                "gl" => Some(MemScope::Gpu),
                "sys" => Some(MemScope::Sys),
                _ => None,
            };
            s.map(|s| {
                m.scope = Some(s);
                F::Scope
            })
        }
        O::Cvta if t == "to" => {
            m.cvta_to = true;
            Some(F::CvtaTo)
        }
        O::Prefetch | O::Prefetchu => CacheLevel::from_name(t).map(|l| {
            m.level = Some(l);
            F::Level
        }),
        O::Bra | O::Call | O::Ret | O::BrxIdx if t == "uni" => {
            m.uni = true;
            Some(F::Uni)
        }
        O::Bfind if t == "shiftamt" => {
            m.shiftamt = true;
            Some(F::Shiftamt)
        }
        O::Min | O::Max => match t {
            "NaN" => {
                m.nan = true;
                Some(F::Nan)
            }
            "xorsign" | "abs" => {
                m.xorsign_abs = true;
                Some(F::XorsignAbs)
            }
            _ => None,
        },
        O::Fence if t.starts_with("proxy") => None,
        _ if is_video(op) && t == "add" => {
            m.video_add = true;
            Some(F::VideoAdd)
        }
        _ => None,
    };
    if specific.is_some() {
        return specific;
    }
    if matches!(op, O::Mma | O::Wmma)
        && let Some(l) = Layout::from_name(t)
    {
        if m.layout_a.is_none() {
            m.layout_a = Some(l);
        } else {
            m.layout_b = Some(l);
        }
        return Some(F::Layout);
    }
    if let Some(v) = MulPart::from_name(t) {
        m.mul_part = Some(v);
        return Some(F::MulPart);
    }
    if let Some(r) = Rounding::from_name(t) {
        m.rounding = Some(r);
        return Some(F::Rounding);
    }
    if let Some(s) = StateSpace::from_name(t) {
        // cp.async names destination then source space.
        if op == O::CpAsync && m.space.is_some() {
            m.src_space = Some(s);
        } else {
            m.space = Some(s);
        }
        return Some(F::Space);
    }
    if let Some(s) = MemSem::from_name(t) {
        m.sem = Some(s);
        return Some(F::Sem);
    }
    if let Some(s) = MemScope::from_name(t) {
        m.scope = Some(s);
        return Some(F::Scope);
    }
    if let Some(c) = CacheOp::from_name(t) {
        m.cache = Some(c);
        return Some(F::Cache);
    }
    if let Some(h) = CacheHint::from_name(t) {
        m.cache_hints.push(h);
        return Some(F::Hint);
    }
    if let Some(v) = VecWidth::from_name(t) {
        m.vec = Some(v);
        return Some(F::Vec);
    }
    if let Some(p) = Precision::from_name(t) {
        m.precision = Some(p);
        return Some(F::Precision);
    }
    if let Some(s) = Shape::from_name(t) {
        m.shape = Some(s);
        return Some(F::Shape);
    }
    let flag = match t {
        "ftz" => (&mut m.ftz, F::Ftz),
        "sat" => (&mut m.sat, F::Sat),
        "satfinite" => (&mut m.satfinite, F::Satfinite),
        "relu" => (&mut m.relu, F::Relu),
        "noftz" => (&mut m.noftz, F::Noftz),
        "cc" => (&mut m.carry_out, F::Cc),
        "nc" => (&mut m.nc, F::Nc),
        "sync" => (&mut m.sync, F::Sync),
        "aligned" => (&mut m.aligned, F::Aligned),
        _ => return None,
    };
    *flag.0 = true;
    Some(flag.1)
}

/// `(min, max)` number of type suffixes.
fn type_arity(op: Opcode, m: &Modifiers) -> (usize, usize) {
    use Opcode as O;
    match op {
        O::Cvt | O::Set | O::Slct | O::Dp4a | O::Dp2a => (2, 2),
        _ if is_video(op) => (3, 3),
        O::Mma => (2, 4),
        O::Wmma if m.wmma_op == Some(WmmaOp::Mma) => (2, 4),
        O::Bra
        | O::BrxIdx
        | O::Call
        | O::Ret
        | O::Exit
        | O::Trap
        | O::Brkpt
        | O::Fence
        | O::Membar
        | O::CpAsync
        | O::CpAsyncCommitGroup
        | O::CpAsyncWaitGroup
        | O::CpAsyncWaitAll
        | O::BarWarpSync
        | O::Isspacep
        | O::Prefetch
        | O::Prefetchu
        | O::Pmevent => (0, 0),
        O::Bar | O::Barrier => (0, 1),
        _ => (1, 1),
    }
}

/// Checks the class of the type suffixes; returns an error message.
fn check_types(op: Opcode, types: &[Type]) -> Option<String> {
    use Opcode as O;
    let t = *types.first()?;
    let ok = match op {
        O::Rcp
        | O::Sqrt
        | O::Rsqrt
        | O::Sin
        | O::Cos
        | O::Lg2
        | O::Ex2
        | O::Tanh
        | O::Fma
        | O::Copysign
        | O::Testp => t.is_float(),
        O::Popc
        | O::Clz
        | O::Brev
        | O::Bfind
        | O::Bfe
        | O::Bfi
        | O::Fns
        | O::Rem
        | O::Shl
        | O::Shr
        | O::Prmt
        | O::Lop3
        | O::Mul24
        | O::Mad24
        | O::Sad
        | O::Addc
        | O::Subc
        | O::Madc
        | O::Dp4a
        | O::Dp2a => t.is_integer_or_bits(),
        O::And | O::Or | O::Xor | O::Not | O::Cnot => t.is_integer_or_bits() || t == Type::Pred,
        O::Add | O::Sub | O::Mul | O::Mad | O::Div | O::Min | O::Max | O::Abs | O::Neg => {
            !matches!(t.kind(), TypeKind::Pred | TypeKind::Bits)
        }
        O::Ld | O::St | O::Ldu | O::Mov | O::Cvt | O::Selp | O::Shfl | O::Atom | O::Red => {
            t != Type::B1
        }
        _ => true,
    };
    if ok {
        None
    } else {
        Some(format!(
            "type `.{}` is not valid for `{}`",
            t.name(),
            op.name()
        ))
    }
}

/// `(min, max)` operand count.
fn operand_arity(op: Opcode, m: &Modifiers) -> (usize, usize) {
    use Opcode as O;
    match op {
        O::Add
        | O::Sub
        | O::Addc
        | O::Subc
        | O::Mul
        | O::Mul24
        | O::Div
        | O::Rem
        | O::Min
        | O::Max
        | O::And
        | O::Or
        | O::Xor
        | O::Shl
        | O::Shr
        | O::Copysign => (3, 3),
        O::Mad
        | O::Madc
        | O::Mad24
        | O::Fma
        | O::Sad
        | O::Selp
        | O::Slct
        | O::Bfe
        | O::Dp4a
        | O::Dp2a
        | O::Prmt
        | O::Shf
        | O::Fns => (4, 4),
        O::Bfi | O::Lop3 => (5, 5),
        O::Abs
        | O::Neg
        | O::Not
        | O::Cnot
        | O::Popc
        | O::Clz
        | O::Brev
        | O::Bfind
        | O::Rcp
        | O::Sqrt
        | O::Rsqrt
        | O::Sin
        | O::Cos
        | O::Lg2
        | O::Ex2
        | O::Tanh
        | O::Mov
        | O::Cvta
        | O::Testp
        | O::Isspacep => (2, 2),
        // Packed destinations (`cvt.rn.f16x2.f32 d, a, b`) take two sources.
        O::Cvt => (2, 3),
        O::Setp | O::Set => {
            if m.bool_op.is_some() {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        O::Ld | O::Ldu | O::St => (2, 3),
        O::Prefetch | O::Prefetchu => (1, 1),
        O::Shfl => (5, 5),
        // The deprecated `vote.mode.pred d, p;` (no `.sync`) has no member mask.
        O::Vote if !m.sync => (2, 2),
        O::Vote | O::Match | O::Redux => (3, 3),
        O::Activemask
        | O::BarWarpSync
        | O::Nanosleep
        | O::Pmevent
        | O::CpAsyncWaitGroup
        | O::Bra => (1, 1),
        O::Atom => {
            if m.atom_op == Some(AtomOp::Cas) {
                (4, 5)
            } else {
                (3, 4)
            }
        }
        O::Red => (2, 3),
        O::Bar | O::Barrier => (0, 4),
        O::CpAsync => (3, 5),
        O::Ldmatrix | O::Stmatrix => (2, 2),
        O::Mma => (4, 4),
        O::Wmma => match m.wmma_op {
            Some(WmmaOp::Mma) => (4, 4),
            _ => (2, 3),
        },
        O::BrxIdx => (2, 2),
        O::Call => (1, 4),
        _ if is_video(op) => (4, 4),
        _ => (0, 0),
    }
}

/// Splits the opcode word and its leading fixed modifiers into an [`Opcode`].
fn opcode<'a, 'b>(i: &'b ast::Instr<'a>) -> Option<(Opcode, &'b [Word<'a>])> {
    let m = &i.mods;
    let word = |k: usize| m.get(k).map(|w| &w.text[1..]);
    Some(match i.opcode.text {
        "cp" if word(0) == Some("async") => match word(1) {
            Some("commit_group") => (Opcode::CpAsyncCommitGroup, &m[2..]),
            Some("wait_group") => (Opcode::CpAsyncWaitGroup, &m[2..]),
            Some("wait_all") => (Opcode::CpAsyncWaitAll, &m[2..]),
            _ => (Opcode::CpAsync, &m[1..]),
        },
        "bar" if word(0) == Some("warp") && word(1) == Some("sync") => {
            (Opcode::BarWarpSync, &m[2..])
        }
        "brx" if word(0) == Some("idx") => (Opcode::BrxIdx, &m[1..]),
        // The dotted stems above are not opcodes on their own.
        other => match Opcode::from_name(other) {
            Some(
                Opcode::CpAsync
                | Opcode::BarWarpSync
                | Opcode::BrxIdx
                | Opcode::CpAsyncCommitGroup
                | Opcode::CpAsyncWaitGroup
                | Opcode::CpAsyncWaitAll,
            )
            | None => return None,
            Some(op) => (op, &m[..]),
        },
    })
}

/// What kind of operand a slot takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Dst,
    Src,
    Addr,
    Label,
    Any,
}

fn slots(op: Opcode, m: &Modifiers, n: usize) -> Vec<Slot> {
    use Opcode as O;
    use Slot::*;
    let mut v = vec![Src; n];
    match op {
        O::St | O::Red | O::Prefetch | O::Prefetchu | O::Stmatrix => {
            if let Some(s) = v.first_mut() {
                *s = Addr;
            }
        }
        O::CpAsync => {
            v[0] = Addr;
            if n > 1 {
                v[1] = Addr;
            }
        }
        O::Wmma if m.wmma_op == Some(WmmaOp::Store) => v[0] = Addr,
        O::Bra => v[0] = Label,
        O::Call | O::BrxIdx => v.iter_mut().for_each(|s| *s = Any),
        O::Bar | O::Barrier | O::BarWarpSync | O::Nanosleep | O::Pmevent | O::CpAsyncWaitGroup => {}
        _ if n > 0 => v[0] = Dst,
        _ => {}
    }
    if matches!(op, O::Ld | O::Ldu | O::Atom | O::Ldmatrix) && n > 1 {
        v[1] = Addr;
    }
    if op == O::Wmma && m.wmma_op == Some(WmmaOp::Load) && n > 1 {
        v[1] = Addr;
    }
    v
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
    for (o, slot) in i.operands.iter().zip(kinds) {
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
                | Operand::Sink,
            ) => None,
            (Slot::Dst, _) => Some("a destination register"),
            (Slot::Addr, Operand::Address(_)) => None,
            (Slot::Addr, _) => Some("an address `[...]`"),
            (Slot::Src, Operand::Address(_)) => Some("a register or immediate (not an address)"),
            (Slot::Src, Operand::Pair(..)) => Some("a single register"),
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
        && matches!(op, Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Mov)
    {
        // A vector register stands for its elements (ISA 6.4.2); mov.vN
        // checks both operands.
        let data: &[usize] = match op {
            Opcode::St => &[1],
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

fn resolve<'a>(
    dec: &mut Decoder<'a>,
    func: &Function,
    fs: &FuncScope<'a>,
    scope: Option<ScopeId>,
    o: &Op<'a>,
    slot: Slot,
) -> Option<Operand> {
    let diags = &mut dec.diags;
    match o {
        Op::Num(n, _) => Some(Operand::Imm(num_to_imm(*n))),
        Op::Sink(_) => Some(Operand::Sink),
        Op::Not(w) => match fs.lookup(w.text, scope) {
            Some(Decl::Reg(r)) => Some(Operand::NotReg(r)),
            _ => {
                err(diags, w.span, format!("undeclared register `{}`", w.text));
                None
            }
        },
        Op::Pair(a, b) => {
            let ra = reg_of(diags, fs, scope, a)?;
            let rb = reg_of(diags, fs, scope, b)?;
            Some(Operand::Pair(ra, rb))
        }
        Op::Vector(items, _) | Op::List(items, _) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                out.push(resolve(dec, func, fs, scope, it, Slot::Src)?);
            }
            if let Op::Vector(items, span) = o {
                if !matches!(items.len(), 1 | 2 | 3 | 4 | 8 | 16) {
                    err(
                        &mut dec.diags,
                        *span,
                        format!(
                            "a vector operand of {} elements is not allowed",
                            items.len()
                        ),
                    );
                    return None;
                }
                Some(Operand::Vector(out))
            } else {
                Some(Operand::List(out))
            }
        }
        Op::Addr { base, offset, .. } => {
            let base = match base {
                None => AddrBase::Absolute,
                Some(w) => match name_value(dec, fs, scope, w) {
                    Some(Operand::Reg(r)) => AddrBase::Reg(r),
                    Some(Operand::Symbol(s, 0)) => AddrBase::Symbol(s),
                    Some(_) => {
                        err(
                            &mut dec.diags,
                            w.span,
                            format!("`{}` cannot be used as an address", w.text),
                        );
                        return None;
                    }
                    None => return None,
                },
            };
            Some(Operand::Address(Address {
                base,
                offset: *offset,
            }))
        }
        Op::NameOffset(w, off, _) => match name_value(dec, fs, scope, w)? {
            Operand::Symbol(s, 0) => Some(Operand::Symbol(s, *off)),
            _ => {
                err(
                    &mut dec.diags,
                    w.span,
                    format!("`{}` plus an offset must be a symbol", w.text),
                );
                None
            }
        },
        Op::Name(w) => {
            if slot == Slot::Label {
                return match fs.lookup(w.text, scope) {
                    Some(Decl::Label(l)) => Some(Operand::Label(l)),
                    _ => {
                        err(
                            &mut dec.diags,
                            w.span,
                            format!("undeclared label `{}`", w.text),
                        );
                        None
                    }
                };
            }
            match fs.lookup(w.text, scope) {
                Some(Decl::Proto(p)) if slot == Slot::Any => return Some(Operand::Prototype(p)),
                Some(Decl::Label(l)) if slot == Slot::Any => return Some(Operand::Label(l)),
                _ => {}
            }
            if slot == Slot::Any
                && let Some((h, _)) = func
                    .branch_targets
                    .iter()
                    .rev()
                    .find(|(_, b)| b.name == w.text)
            {
                return Some(Operand::BranchTargets(h));
            }
            // The parser joins only element names (`.x` ... `.a`) to a name.
            if let Some((base, comp)) = w.text.rsplit_once('.')
                && let Some(Decl::Reg(r)) = fs.lookup(base, scope)
            {
                return vector_element(&mut dec.diags, func, r, comp, w);
            }
            name_value(dec, fs, scope, w)
        }
    }
}

fn reg_of(
    diags: &mut Vec<crate::diag::Diagnostic>,
    fs: &FuncScope<'_>,
    scope: Option<ScopeId>,
    w: &Word<'_>,
) -> Option<Reg> {
    match fs.lookup(w.text, scope) {
        Some(Decl::Reg(r)) => Some(r),
        _ => {
            err(diags, w.span, format!("undeclared register `{}`", w.text));
            None
        }
    }
}

/// A name used as a value: register, special register or symbol.
fn name_value<'a>(
    dec: &mut Decoder<'a>,
    fs: &FuncScope<'a>,
    scope: Option<ScopeId>,
    w: &Word<'a>,
) -> Option<Operand> {
    match fs.lookup(w.text, scope) {
        Some(Decl::Reg(r)) => return Some(Operand::Reg(r)),
        Some(Decl::Local(l)) => return Some(Operand::Symbol(Symbol::Local(l), 0)),
        Some(Decl::Label(_)) => {
            err(
                &mut dec.diags,
                w.span,
                format!("label `{}` cannot be used as a value", w.text),
            );
            return None;
        }
        _ => {}
    }
    if let Some(s) = SpecialReg::from_name(w.text) {
        return Some(Operand::Special(s));
    }
    // PTX ISA "Predefined Identifiers": `WARP_SZ` is a constant (the warp
    // size, 32), not a register, so it decodes to the immediate it stands for.
    if w.text == "WARP_SZ" {
        return Some(Operand::Imm(Immediate::Int(32)));
    }
    if let Some(&p) = fs.params.get(w.text) {
        return Some(Operand::Symbol(Symbol::Param(p), 0));
    }
    if let Some(&p) = fs.returns.get(w.text) {
        return Some(Operand::Symbol(Symbol::Return(p), 0));
    }
    if let Some(&g) = dec.mscope.globals.get(w.text) {
        return Some(Operand::Symbol(Symbol::Global(g), 0));
    }
    if let Some(&f) = dec.mscope.functions.get(w.text) {
        return Some(Operand::Symbol(Symbol::Function(f), 0));
    }
    let what = if w.text.starts_with('%') {
        "register"
    } else {
        "symbol"
    };
    err(
        &mut dec.diags,
        w.span,
        format!("undeclared {what} `{}`", w.text),
    );
    None
}
