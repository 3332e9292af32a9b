//! Resolving operands: registers, symbols, labels, immediates, vectors and
//! addresses, each checked against the kind its slot takes.

use super::arity::Slot;
use crate::ast::{Op, Word};
use crate::decode::{Decl, Decoder, FuncScope, err, num_to_imm};
use crate::decode_vec::vector_element;
use crate::ir::*;

pub(super) fn resolve<'a>(
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
        Op::Neg(w) => {
            err(
                diags,
                w.span,
                format!("a negated operand `-{}` is only allowed in vmad", w.text),
            );
            None
        }
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
        Op::SinkPair(_, b) => Some(Operand::SinkPair(reg_of(diags, fs, scope, b)?)),
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

pub(super) fn reg_of(
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
pub(super) fn name_value<'a>(
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

/// `%r1.b2` as the register `%r1`, once `take` accepts the selector `b2`.
pub(super) fn split_selector<'a>(
    o: &Op<'a>,
    take: impl FnOnce(&str) -> Option<()>,
) -> Option<Op<'a>> {
    let Op::Name(w) = o else { return None };
    let (base, sel) = w.text.rsplit_once('.')?;
    take(sel)?;
    Some(Op::Name(Word {
        text: base,
        span: w.span,
    }))
}
