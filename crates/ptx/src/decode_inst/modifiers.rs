//! The modifier categories and which of them each opcode takes.

use crate::ir::*;

/// A modifier category, for the per-opcode allow lists.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum F {
    Type,
    Rounding,
    Ftz,
    Sat,
    Satfinite,
    Relu,
    Pack,
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
    MbarrierOp,
    Parity,
    NoComplete,
    Noinc,
    BulkCompletion,
    BulkRead,
    Fragment,
    Proxy,
    Policy,
    VideoAdd,
    VideoOp2,
    VideoMad,
    SurfaceClamp,
}

/// The scalar video instructions (`vadd` ... `vset`), which take operand
/// selectors and a secondary operation.
pub(super) fn is_scalar_video(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vset | Vmad
    )
}

pub(super) fn is_video(op: Opcode) -> bool {
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
            | Vset2
            | Vset4
    )
}

pub(super) fn allowed(op: Opcode) -> &'static [F] {
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
        O::Bmsk => &[Type, ShfMode],
        O::Prmt => &[Type, PrmtMode],
        O::Ld => &[Type, Space, Sem, Scope, Cache, Hint, Vec, Nc],
        O::Ldu => &[Type, Space, Vec],
        O::Tex1d | O::Tex2d | O::Tex3d => &[Vec, Type],
        O::Suld1d | O::Suld2d | O::Suld3d | O::Sust1d | O::Sust2d | O::Sust3d => {
            &[Vec, Type, SurfaceClamp]
        }
        O::St => &[Type, Space, Sem, Scope, Cache, Hint, Vec],
        O::Cvt => &[Type, Rounding, Ftz, Sat, Satfinite, Relu, Pack],
        O::Cvta => &[Type, Space, CvtaTo],
        // `mov.v4.f32 {a,b,c,d}, V` (ISA 6.4.2 "Vector Operands").
        O::Mov => &[Type, Vec],
        O::Isspacep => &[Space],
        O::Prefetch | O::Prefetchu => &[Space, Level, Hint],
        O::Shfl => &[Type, Sync, ShflMode],
        O::Vote => &[Type, Sync, VoteMode],
        O::Elect => &[Sync],
        O::Match => &[Type, Sync, MatchMode],
        O::Redux => &[Type, Sync, AtomOp],
        O::Atom | O::Red => &[Type, Space, Sem, Scope, AtomOp, Noftz, Vec, Hint],
        O::Bar | O::Barrier => &[BarMode, Aligned, AtomOp, Type],
        O::Fence => &[Sem, Scope, Proxy],
        O::Createpolicy => &[Policy, Type],
        O::Membar => &[Scope],
        O::CpAsync => &[Cache, Space, Hint],
        O::CpAsyncBulk => &[Space, BulkCompletion, Hint],
        O::CpAsyncBulkPrefetch => &[Level, Space, Hint],
        O::CpAsyncBulkWaitGroup => &[BulkRead],
        O::Ldmatrix | O::Stmatrix => &[Sync, Aligned, Shape, Num, Trans, Space, Type],
        O::Mma => &[Sync, Aligned, Shape, Layout, Rounding, Type, Satfinite],
        O::Wmma => &[
            WmmaOp, Fragment, Sync, Aligned, Layout, Shape, Space, Type, Rounding, Satfinite,
        ],
        O::Mbarrier => &[MbarrierOp, Parity, NoComplete, Space, Sem, Scope, Type],
        O::CpAsyncMbarrierArrive => &[Noinc, Space, Type],
        O::Bra | O::Call | O::Ret | O::BrxIdx => &[Uni],
        O::BarWarpSync
        | O::CpAsyncCommitGroup
        | O::CpAsyncBulkCommitGroup
        | O::CpAsyncWaitGroup
        | O::CpAsyncWaitAll
        | O::GriddepcontrolWait
        | O::GriddepcontrolLaunchDependents
        | O::Exit
        | O::Trap
        | O::Brkpt
        | O::Pmevent => &[],
        O::Vset2 | O::Vset4 => &[Type, Cmp, VideoAdd],
        _ if is_video(op) => &[Type, VideoAdd, Sat],
        O::Vshl | O::Vshr => &[Type, Sat, ShfMode, VideoOp2],
        O::Vset => &[Type, Cmp, VideoOp2],
        O::Vmad => &[Type, Sat, VideoMad],
        _ if is_scalar_video(op) => &[Type, Sat, VideoOp2],
        _ => &[Type],
    }
}
