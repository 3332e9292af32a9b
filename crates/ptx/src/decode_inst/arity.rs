//! How many type suffixes (and of which class) and how many operands (and
//! of which kind) each opcode takes.

use super::modifiers::{is_scalar_video, is_video};
use crate::ir::*;

/// `(min, max)` number of type suffixes.
pub(super) fn type_arity(op: Opcode, m: &Modifiers) -> (usize, usize) {
    use Opcode as O;
    match op {
        // `cvt.pack.sat.u8.s32.b32` names the type of c as well.
        O::Cvt if m.pack => (2, 3),
        O::Cvt | O::Set | O::Slct | O::Dp4a | O::Dp2a | O::Tex1d | O::Tex2d | O::Tex3d => (2, 2),
        _ if op.is_surface_load() || op.is_surface_store() => (1, 1),
        // `vset2.atype.btype.cmp`: the result is unsigned and has no type.
        O::Vset2 | O::Vset4 => (2, 2),
        _ if is_video(op) => (3, 3),
        O::Vset => (2, 2),
        _ if is_scalar_video(op) => (3, 3),
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
        | O::CpAsyncBulk
        | O::CpAsyncBulkCommitGroup
        | O::CpAsyncBulkWaitGroup
        | O::CpAsyncBulkPrefetch
        | O::GriddepcontrolWait
        | O::GriddepcontrolLaunchDependents
        | O::Elect
        | O::BarWarpSync
        | O::Isspacep
        | O::Prefetch
        | O::Prefetchu
        | O::Pmevent => (0, 0),
        O::Bar | O::Barrier => (0, 1),
        // `mbarrier.arrive.b64` (state) and `mbarrier.init.shared::cta.b64`;
        // some forms (`mbarrier.inval`, `expect_tx`) are written without one.
        O::Mbarrier | O::CpAsyncMbarrierArrive => (0, 1),
        _ => (1, 1),
    }
}

/// Checks the class of the type suffixes; returns an error message.
pub(super) fn check_types(op: Opcode, types: &[Type]) -> Option<String> {
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
        | O::Dp2a
        | O::Bmsk => t.is_integer_or_bits(),
        _ if is_scalar_video(op) => types.iter().all(|t| matches!(t, Type::U32 | Type::S32)),
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
pub(super) fn operand_arity(op: Opcode, m: &Modifiers) -> (usize, usize) {
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
        | O::Bmsk
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
        // Packed destinations (`cvt.rn.f16x2.f32 d, a, b`) take two sources,
        // `cvt.pack` with a `.b32` type a third (`d, a, b, c`).
        O::Cvt if m.pack => (3, 4),
        O::Cvt => (2, 3),
        O::Setp | O::Set => {
            if m.bool_op.is_some() {
                (4, 4)
            } else {
                (3, 3)
            }
        }
        O::Ld | O::Ldu | O::St => (2, 3),
        // `d, [t, {x}]`: the parser splits the bracket into the handle and
        // the coordinate vector.
        O::Tex1d | O::Tex2d | O::Tex3d => (3, 3),
        // `d, [s, {x, ...}]` and `[s, {x, ...}], a`, the bracket split.
        _ if op.is_surface_load() || op.is_surface_store() => (3, 3),
        O::Prefetch | O::Prefetchu => (1, 1),
        // `createpolicy.fractional ... d{, fraction}`, `createpolicy.range
        // ... d, [a], primary_size, total_size`, `createpolicy.cvt.L2 d, a`.
        O::Createpolicy => match m.policy {
            Some(PolicyKind::Range) => (4, 4),
            Some(PolicyKind::Cvt) => (2, 2),
            _ => (1, 2),
        },
        O::Shfl => (5, 5),
        // The deprecated `vote.mode.pred d, p;` (no `.sync`) has no member mask.
        O::Vote if !m.sync => (2, 2),
        O::Vote | O::Match | O::Redux => (3, 3),
        O::Activemask
        | O::BarWarpSync
        | O::Nanosleep
        | O::Pmevent
        | O::CpAsyncWaitGroup
        | O::CpAsyncBulkWaitGroup
        | O::Bra => (1, 1),
        O::Atom => {
            if m.atom_op == Some(AtomOp::Cas) {
                (4, 5)
            } else {
                (3, 4)
            }
        }
        O::Red => (2, 3),
        O::CpAsyncMbarrierArrive => (1, 1),
        O::Elect => (2, 2),
        O::Mbarrier => match m.mbarrier_op {
            Some(MbarrierOp::Inval) => (1, 1),
            Some(MbarrierOp::Init | MbarrierOp::PendingCount) => (2, 2),
            Some(MbarrierOp::ExpectTx | MbarrierOp::CompleteTx) => (2, 2),
            Some(MbarrierOp::Arrive | MbarrierOp::ArriveDrop) => (2, 3),
            Some(MbarrierOp::TestWait | MbarrierOp::TryWait) => (3, 4),
            None => (0, 0),
        },
        O::Bar | O::Barrier => (0, 4),
        O::CpAsync => (3, 5),
        // [dst], [src], size, then [mbar] with `.mbarrier::complete_tx::bytes`;
        // a cache policy may follow.
        O::CpAsyncBulk if m.completion == Some(BulkCompletion::CompleteTx) => (4, 5),
        O::CpAsyncBulk => (3, 4),
        O::CpAsyncBulkPrefetch => (2, 3),
        O::Ldmatrix | O::Stmatrix => (2, 2),
        O::Mma => (4, 4),
        O::Wmma => match m.wmma_op {
            Some(WmmaOp::Mma) => (4, 4),
            _ => (2, 3),
        },
        O::BrxIdx => (2, 2),
        O::Call => (1, 4),
        _ if is_video(op) => (4, 4),
        O::Vmad => (4, 4),
        _ if is_scalar_video(op) => (3, 4),
        _ => (0, 0),
    }
}

/// What kind of operand a slot takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Dst,
    Src,
    Addr,
    Label,
    Any,
}

pub(super) fn slots(op: Opcode, m: &Modifiers, n: usize) -> Vec<Slot> {
    use Opcode as O;
    use Slot::*;
    let mut v = vec![Src; n];
    match op {
        O::St | O::Red | O::Prefetch | O::Prefetchu | O::Stmatrix => {
            if let Some(s) = v.first_mut() {
                *s = Addr;
            }
        }
        O::CpAsyncMbarrierArrive => v[0] = Addr,
        O::CpAsync => {
            v[0] = Addr;
            if n > 1 {
                v[1] = Addr;
            }
        }
        O::CpAsyncBulk => {
            v[0] = Addr;
            if n > 1 {
                v[1] = Addr;
            }
            if n > 3 && m.completion == Some(BulkCompletion::CompleteTx) {
                v[3] = Addr;
            }
        }
        O::CpAsyncBulkPrefetch => v[0] = Addr,
        O::Createpolicy if m.policy == Some(PolicyKind::Range) && n > 1 => v[1] = Addr,
        O::Wmma if m.wmma_op == Some(WmmaOp::Store) => v[0] = Addr,
        // [addr] first: init, inval, expect_tx, complete_tx; pending_count
        // reads a state. Else a destination, then [addr].
        O::Mbarrier => match m.mbarrier_op {
            Some(
                MbarrierOp::Init
                | MbarrierOp::Inval
                | MbarrierOp::ExpectTx
                | MbarrierOp::CompleteTx,
            ) => v[0] = Addr,
            Some(MbarrierOp::PendingCount) => v[0] = Dst,
            _ if n > 1 => {
                v[0] = Dst;
                v[1] = Addr;
            }
            _ => {}
        },
        O::Bra => v[0] = Label,
        O::Call | O::BrxIdx => v.iter_mut().for_each(|s| *s = Any),
        _ if op.is_surface_store() => {}
        O::Bar
        | O::Barrier
        | O::BarWarpSync
        | O::Nanosleep
        | O::Pmevent
        | O::CpAsyncWaitGroup
        | O::CpAsyncBulkWaitGroup => {}
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
