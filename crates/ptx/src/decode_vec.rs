//! Vector registers as operands (PTX ISA 6.4.2 "Vector Operands"): a
//! `.reg .v4 .f32 V` register stands for its elements in the vector
//! position of ld, st and mov.vN, and `V.x` (`.y .z .w`, or `.r .g .b .a`)
//! names one element.

use crate::ast;
use crate::ast::Word;
use crate::decode::err;
use crate::diag::Diagnostic;
use crate::ir::*;

/// `v.x`: element `comp` of register `r` (ISA 6.4.2: `.x .y .z .w`, or
/// `.r .g .b .a`), which must be a vector register long enough.
pub(crate) fn vector_element(
    diags: &mut Vec<Diagnostic>,
    func: &Function,
    r: Reg,
    comp: &str,
    w: &Word<'_>,
) -> Option<Operand> {
    let i = match comp {
        "x" | "r" => 0,
        "y" | "g" => 1,
        "z" | "b" => 2,
        _ => 3,
    };
    let lanes = func
        .regs
        .get(r)
        .and_then(|d| d.vec)
        .map_or(0, |v| v.lanes());
    if i < lanes {
        return Some(Operand::VecElem(r, i as u8));
    }
    let name = func.regs.get(r).map_or("?", |d| d.name.as_str());
    let what = if lanes == 0 {
        format!("`{name}` is not a vector register")
    } else {
        format!("`{}` is past the {lanes} elements of `{name}`", w.text)
    };
    err(diags, w.span, what);
    None
}

/// An operand of `len` elements (`None`: not a vector) in a `.v` position.
pub(crate) fn check_vector_len(
    diags: &mut Vec<Diagnostic>,
    len: Option<u32>,
    v: VecWidth,
    o: &ast::Op<'_>,
) -> bool {
    match len {
        Some(n) if n == v.lanes() => true,
        Some(n) => {
            err(
                diags,
                o.span(),
                format!(
                    "vector operand has {n} elements but `.{}` needs {}",
                    v.name(),
                    v.lanes()
                ),
            );
            false
        }
        None => {
            err(
                diags,
                o.span(),
                format!("`.{}` needs a vector operand `{{...}}`", v.name()),
            );
            false
        }
    }
}
