//! The compact warp-wide operations the decoder produces from the IR.
//!
//! Operands are resolved once: registers to slots of the frame's register
//! file (64-bit lanes; narrower values zero-extended), predicates to slots of
//! the predicate file, symbols to addresses, labels to op indices, each
//! branch to its reconvergence op index. Executing an op is one `match` per
//! warp instruction and a loop over the 32 lanes.

use ptx::{
    AtomOp, BarMode, BoolOp, CmpOp, MatchMode, MbarrierOp, ShflMode, SpecialReg, Type, VoteMode,
};

use crate::float::Round;
use crate::float::convert::RoundInt;

/// A value register slot.
pub type R = u32;
/// A predicate register slot.
pub type P = u32;

/// A value source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    Reg(R),
    Imm(u64),
    Sreg(SpecialReg),
    /// Address of a frame variable (local depot, call parameters): frame base + offset.
    Frame(u64),
}

/// A predicate source, possibly negated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PSrc {
    Reg(P, bool),
    Imm(bool),
}

/// The space an access goes to, as the decoder resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    Global,
    Shared,
    /// The thread's local memory (including device-function parameter frames).
    Local,
    /// The kernel's parameter block.
    Param,
    Const,
    Generic,
    /// Generic addressing of an `.address_size 32` module (its own map, see
    /// [`crate::mem::generic::Width`]).
    Generic32,
}

/// `[base + offset]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Addr {
    pub base: Src,
    pub offset: i64,
}

/// Two-operand integer operations; operands are extended from `bits` first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp2 {
    Add,
    Sub,
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    Mul24Lo,
    Mul24Hi,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// `bmsk.{wrap,clamp}.b32 d, a, b`: a mask of b bits from bit a.
    Bmsk {
        clamp: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp1 {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShiftAmt,
}

/// Integer three-operand operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp3 {
    MadLo,
    MadHi,
    MadWide,
    MadHiSat,
    Mad24Lo,
    /// bfe d, a, pos, len.
    Bfe,
    /// prmt.b32 d, a, b, selector (default mode).
    Prmt,
    /// prmt.b32.mode d, a, b, selector: the modes of [`crate::exec::alu`]'s `prmt_mode`.
    PrmtMode(ptx::PrmtMode),
    /// shf.l.wrap / shf.l.clamp / shf.r.* d, a, b, c.
    ShfL {
        clamp: bool,
    },
    ShfR {
        clamp: bool,
    },
    /// lop3.b32 d, a, b, c, immLut: the lookup table rides in the op.
    Lop3(u8),
    /// sad: |a - b| + c.
    Sad,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FOp2 {
    Add,
    Sub,
    Mul,
    Div,
    DivApprox,
    Min,
    Max,
    MinNan,
    MaxNan,
    Copysign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FOp1 {
    Neg,
    Abs,
    Sqrt,
    SqrtApprox,
    Rsqrt,
    Rcp,
    RcpApprox,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// Float formats executed by the float ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FTy {
    F32,
    F64,
    F16,
    Bf16,
    F16x2,
    Bf16x2,
}

/// Operand class of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpTy {
    Int { bits: u8, signed: bool },
    Float { ty: FTy, ftz: bool },
}

/// Float-op modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FMods {
    pub round: Round,
    pub ftz: bool,
    pub sat: bool,
    /// `.relu` of 16-bit `fma` (PTX ISA 9.7.4.4).
    pub relu: bool,
    /// `.xorsign.abs` of `min`/`max` (PTX ISA 9.7.3.10-11, 9.7.4.7-8).
    pub xorsign_abs: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredOp {
    And,
    Or,
    Xor,
    Not,
    Mov,
}

/// Where vote/match/shfl write their predicate result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteDst {
    Reg(R),
    Pred(P),
}

/// Conversion modifiers of `cvt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CvtMods {
    pub round: Option<Round>,
    pub round_int: Option<RoundInt>,
    pub ftz: bool,
    pub sat: bool,
    /// `.relu` / `.satfinite` of f16 and bf16 destinations.
    pub relu: bool,
    pub satfinite: bool,
}

/// The packed forms of `cvt` (see [`crate::exec::alu`]'s `cvt_pack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtPack {
    /// `cvt.frnd.{f16x2,bf16x2}.f32 d, a, b`.
    F32ToHalf2 { bf: bool },
    /// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b`.
    F32ToF8x2 { e5m2: bool },
    /// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2 d, a`.
    F16x2ToF8x2 { e5m2: bool },
    /// `cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a`.
    F8x2ToF16x2 { e5m2: bool },
    /// `cvt.pack.sat.{u16,s16,u8,s8,u4,s4}.s32[.b32] d, a, b[, c]`.
    Int { bits: u8, signed: bool },
}

/// Modifiers of a packed `cvt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CvtPackMods {
    pub round: Round,
    pub relu: bool,
    pub satfinite: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Nop,
    Mov {
        d: R,
        a: Src,
    },
    /// `mov.v4.f32 {a,b,c,d}, V` and other element-wise vector moves (all
    /// sources are read before any destination is written).
    MovVec {
        d: Vec<Option<R>>,
        a: Vec<Src>,
    },
    /// `mov.b64 d, {a, b}` and friends: pack `parts` of `bits` each, low first.
    Pack {
        d: R,
        parts: Vec<Src>,
        bits: u8,
    },
    /// `mov.b64 {a, b}, s`: unpack into `parts` (None: sink).
    Unpack {
        parts: Vec<Option<R>>,
        a: Src,
        bits: u8,
    },
    Int2 {
        op: IntOp2,
        bits: u8,
        signed: bool,
        d: R,
        a: Src,
        b: Src,
    },
    /// `add`/`sub`/`min`/`max` on `.u16x2`/`.s16x2`, each 16-bit half on
    /// its own (`halves`), and `min`/`max.relu` on `.s32`/`.s16x2`, where a
    /// negative result becomes 0 (PTX ISA 9.7.1.1-2, 9.7.1.10-11).
    IntHalves {
        op: IntOp2,
        halves: bool,
        signed: bool,
        relu: bool,
        d: R,
        a: Src,
        b: Src,
    },
    Int1 {
        op: IntOp1,
        bits: u8,
        signed: bool,
        d: R,
        a: Src,
    },
    Int3 {
        op: IntOp3,
        bits: u8,
        signed: bool,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// bfi d, a (insert), b (base), pos, len.
    Bfi {
        bits: u8,
        d: R,
        a: Src,
        b: Src,
        pos: Src,
        len: Src,
    },
    F2 {
        op: FOp2,
        ty: FTy,
        m: FMods,
        d: R,
        a: Src,
        b: Src,
    },
    F1 {
        op: FOp1,
        ty: FTy,
        m: FMods,
        d: R,
        a: Src,
    },
    Fma {
        ty: FTy,
        m: FMods,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `setp`: `d = comb(a cmp b)`, `d2 = comb(!(a cmp b))`; for packed
    /// `.f16x2`/`.bf16x2` (`packed`) the low halves give `d` and the high
    /// halves `d2` (PTX ISA, "Half Precision Comparison Instructions: setp").
    Setp {
        cmp: CmpOp,
        ty: CmpTy,
        packed: bool,
        d: P,
        d2: Option<P>,
        a: Src,
        b: Src,
        comb: Option<(BoolOp, PSrc)>,
    },
    /// `set.cmp.dtype.stype`: `one` where `comb(a cmp b)` holds, else 0.
    /// `one` is the destination type's true value (all ones, 1.0f, f16 1.0
    /// ...); for packed sources (`packed`) each 16-bit half is compared and
    /// written on its own, `one` then being the 16-bit pattern of a half.
    Set {
        cmp: CmpOp,
        ty: CmpTy,
        packed: bool,
        one: u64,
        d: R,
        a: Src,
        b: Src,
        comb: Option<(BoolOp, PSrc)>,
    },
    Selp {
        d: R,
        a: Src,
        b: Src,
        p: PSrc,
    },
    PredLogic {
        op: PredOp,
        d: P,
        a: PSrc,
        b: PSrc,
    },
    /// `selp`-free predicate to/from register moves are spelled with setp/selp by NVRTC.
    Cvt {
        from: Type,
        to: Type,
        m: CvtMods,
        /// Width of the destination register: a signed result narrower than
        /// it is sign-extended to it (PTX ISA, "cvt").
        dbits: u8,
        d: R,
        a: Src,
    },
    /// `cvt.{rna,rn,rz}{.satfinite}.tf32.f32`: an f32 rounded to TensorFloat-32
    /// (10 mantissa bits), kept as f32 bits whose low 13 bits are zero.
    CvtTf32 {
        round: Tf32Round,
        satfinite: bool,
        d: R,
        a: Src,
    },
    /// A packed `cvt` (two sources into one register, or one packed source
    /// converted per half); absent sources read 0.
    CvtPack {
        kind: CvtPack,
        m: CvtPackMods,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    Cvta {
        to_generic: bool,
        width: crate::mem::generic::Width,
        space: crate::mem::Space,
        d: R,
        a: Src,
        bits32: bool,
    },
    Isspacep {
        width: crate::mem::generic::Width,
        space: crate::mem::Space,
        d: P,
        a: Src,
    },
    /// `tex.{1d,2d,3d}.v4.{f32,s32,u32}.{s32,f32} d, [t, {x, ...}]`: the
    /// texel (or the filtered texels) of texture object `t` at the
    /// coordinates, its channels in `d` as `out` says.
    Tex {
        rank: u8,
        /// `.f32` coordinates (`tex2D`), else texel indices (`tex1Dfetch`).
        float_coords: bool,
        out: TexOut,
        d: Vec<Option<R>>,
        handle: Src,
        /// One per dimension.
        coords: Vec<Src>,
    },
    /// `suld.b.{1d,2d,3d}{.v2,.v4}.bN.MODE d, [s, {x, ...}]`: `d.len()`
    /// elements of `bytes` at byte `x` of row `y` (and slice `z`) of
    /// surface object `s`.
    Suld {
        access: SurfaceAccess,
        d: Vec<Option<R>>,
        handle: Src,
        coords: Vec<Src>,
    },
    /// `sust.b...MODE [s, {x, ...}], a`: the elements of `src` there.
    Sust {
        access: SurfaceAccess,
        src: Vec<Src>,
        handle: Src,
        coords: Vec<Src>,
    },
    Ld {
        space: MemSpace,
        bytes: u8,
        /// Per destination, the register width a signed load sign-extends
        /// to (PTX ISA 9.4.1); empty for unsigned, bit-size and float loads.
        sext: Vec<u8>,
        d: Vec<Option<R>>,
        addr: Addr,
    },
    St {
        space: MemSpace,
        bytes: u8,
        src: Vec<Src>,
        addr: Addr,
    },
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        d: Option<R>,
        addr: Addr,
        b: Src,
        c: Option<Src>,
    },
    /// `atom`/`red` with `.v2`/`.v4`/`.v8` (sm_90): element `k` is its own
    /// atomic at `addr + k * size`.
    AtomVec {
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        d: Vec<Option<R>>,
        addr: Addr,
        b: Vec<Src>,
    },
    Bra {
        target: u32,
        reconv: u32,
    },
    /// `add.cc`, `addc[.cc]`, `sub.cc`, `subc[.cc]`: 32/64-bit add or subtract
    /// with the per-lane carry flag CC.CF. The flag is the adder's carry-out
    /// as the hardware computes it: after a subtraction (a + !b + 1) it is
    /// 1 when there was no borrow, and `subc` adds !b + CF (see execute.rs).
    Carry {
        sub: bool,
        carry_in: bool,
        carry_out: bool,
        bits: u8,
        d: R,
        a: Src,
        b: Src,
    },
    /// `mad.cc` / `madc[.cc]` (`.lo` or `.hi`): a*b (low or high half) + c
    /// plus the carry-in, with an optional carry-out.
    MadCarry {
        hi: bool,
        signed: bool,
        carry_in: bool,
        carry_out: bool,
        bits: u8,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `cp.async` executed at once: copy `size` bytes (of which only
    /// `src_size` are read, the rest zero-filled) from `src` to shared `dst`.
    CpAsync {
        dst: Addr,
        src: Addr,
        dst_space: MemSpace,
        src_space: MemSpace,
        size: Src,
        src_size: Option<Src>,
    },
    /// `brx.idx`: lane i jumps to `targets[idx[i]]`.
    BrxIdx {
        idx: Src,
        targets: Vec<u32>,
        reconv: u32,
    },
    /// `testp.op.ftype`: a class test of a float.
    Testp {
        op: ptx::TestpOp,
        f64: bool,
        d: P,
        a: Src,
    },
    /// `slct.dtype.s32 d, a, b, c`: a when c >= 0, else b (`float_c`: c is f32;
    /// `ftz`: a subnormal f32 c counts as a zero of its sign, so it selects a).
    Slct {
        d: R,
        a: Src,
        b: Src,
        c: Src,
        float_c: bool,
        ftz: bool,
    },
    /// `dp4a.atype.btype d, a, b, c`: four byte products summed into c.
    Dp4a {
        a_signed: bool,
        b_signed: bool,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `dp2a.lo|hi.atype.btype d, a, b, c`: two 16x8-bit products (the low
    /// or high byte pair of b) summed into c.
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// The SIMD video instructions `vop2` / `vop4 d{.mask}, a{.asel},
    /// b{.bsel}, c`.
    Video {
        f: VideoForm,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// A scalar video instruction `vop d{.dsel}, a{.asel}, b{.bsel}{, c}`
    /// (c reads 0 when absent).
    ScalarVideo {
        f: ScalarVideo,
        d: R,
        a: Src,
        b: Src,
        c: Src,
    },
    /// A warp-wide tensor-core or matrix-movement instruction (`mma.sync`,
    /// `wmma.*`, `ldmatrix`, `stmatrix`): see [`crate::exec::warp`]'s tensor module.
    Tensor(Box<TensorOp>),
    Call {
        callee: u32,
        args: Vec<CallArg>,
        rets: Vec<CallRet>,
    },
    /// `call (rets), %reg, (args), proto`: a call through a function pointer.
    CallIndirect {
        target: Src,
        args: Vec<CallArg>,
        rets: Vec<CallRet>,
    },
    /// `call vprintf, (fmt, args)`: the two frame offsets of the param variables.
    Vprintf {
        fmt: u64,
        args: u64,
        ret: Option<u64>,
    },
    /// `call (ret), malloc, (size)`: device-side `malloc` from the launch's
    /// heap ([`crate::exec::DEVICE_HEAP_BYTES`]).
    Malloc {
        size: CallArg,
        ret: CallRet,
        /// The declared size and result widths in bytes (4 or 8).
        size_bytes: u8,
        ret_bytes: u8,
    },
    /// `call free, (ptr)`: device-side `free` (memory is not reused).
    Free,
    Ret,
    Exit,
    Trap,
    Brkpt,
    Bar {
        mode: BarMode,
        id: Src,
        count: Option<Src>,
        red: Option<(crate::simt::barrier::RedOp, PSrc)>,
        d: Option<VoteDst>,
    },
    /// `bar.warp.sync`: the warp is converged by construction under IPDOM.
    WarpSync,
    Shfl {
        mode: ShflMode,
        d: R,
        dp: Option<P>,
        a: Src,
        b: Src,
        c: Src,
    },
    Vote {
        mode: VoteMode,
        d: VoteDst,
        a: PSrc,
    },
    Activemask {
        d: R,
    },
    /// `elect.sync d|p, membermask`: the lowest lane of the executing lanes
    /// in the member mask leads (the ISA only asks for a deterministic
    /// choice); `d` is its lane id, `p` true on it alone.
    Elect {
        d: Option<R>,
        p: P,
        mask: Src,
    },
    /// `mbarrier.*`: an asynchronous barrier whose 8-byte state is in shared
    /// memory (warp/mbarrier.rs has the encoding).
    Mbarrier {
        op: MbarrierOp,
        space: MemSpace,
        addr: Addr,
        /// arrive: the state token (none for a sink `_`); test_wait and
        /// try_wait: the predicate.
        d: Option<VoteDst>,
        /// init: the count; arrive: the count (none: 1); test_wait and
        /// try_wait: the state token, or the phase parity with `parity`;
        /// expect_tx, complete_tx: bytes.
        b: Option<Src>,
        /// arrive.expect_tx: the bytes the phase then also waits for.
        tx: Option<Src>,
        parity: bool,
    },
    /// `cp.async.bulk` executed at once: copy `size` bytes (a multiple of 16,
    /// 16-byte aligned) from `src` to `dst`; with `.mbarrier::complete_tx::bytes`
    /// they then complete that many bytes of the mbarrier at `mbar`.
    BulkCopy {
        dst: Addr,
        dst_space: MemSpace,
        src: Addr,
        src_space: MemSpace,
        size: Src,
        mbar: Option<(Addr, MemSpace)>,
    },
    /// `mbarrier.pending_count d, state`: the arrivals a state token says
    /// were pending (no memory access).
    MbarrierPendingCount {
        d: R,
        state: Src,
    },
    Match {
        mode: MatchMode,
        bits: u8,
        d: R,
        dp: Option<P>,
        a: Src,
    },
    Redux {
        op: AtomOp,
        signed: bool,
        d: R,
        a: Src,
    },
    /// Decoded but not executable: faults when reached, with this reason.
    Unsupported(String),
}

/// The scalar video operations (`vset` with its comparison).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarVideoOp {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Shl,
    Shr,
    Set(CmpOp),
    /// `vmad[.po][.shr7|.shr15] d, {-}a, {-}b, {-}c`: `po` adds one,
    /// `shift` scales the result, `neg` are the operands' negations.
    Mad {
        po: bool,
        shift: u8,
        neg: [bool; 3],
    },
}

/// One scalar video instruction's form (see [`crate::exec::alu`]'s
/// `scalar_video`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarVideo {
    pub op: ScalarVideoOp,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// `.clamp` (else `.wrap`) shift amounts of vshl / vshr.
    pub clamp: bool,
    pub op2: Option<ptx::VideoOp2>,
    /// Selectors of d, a, b.
    pub sel: [Option<ptx::VideoSel>; 3],
}

/// Lane layout, selectors and signedness of one SIMD video instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoForm {
    pub op: VideoOp,
    /// 4 byte lanes (`vop4`) or 2 half-word lanes (`vop2`).
    pub four: bool,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// `.add`: d = c + the sum of the masked lane results; else the masked
    /// lanes replace those of c.
    pub add: bool,
    /// For each lane (lane 0 first), the element of `{b, a}` it takes:
    /// bytes 0-7 (`vop4`) or half-words 0-3 (`vop2`); a is elements 0-3
    /// (0-1), b 4-7 (2-3).
    pub asel: [u8; 4],
    pub bsel: [u8; 4],
    /// Bit i: lane i of d is written (`.mask`).
    pub mask: u8,
}

/// A call argument: a `.param` variable in the caller's frame (its offset),
/// or a value (a register or immediate, passed to a `.reg` parameter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallArg {
    Frame(u64),
    Value(Src),
}

/// Where a returned value goes: a `.param` variable of the caller's frame or
/// a caller register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallRet {
    Frame(u64),
    Reg(R),
}

/// The SIMD video operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoOp {
    Add,
    Sub,
    Avrg,
    Absdiff,
    Min,
    Max,
    /// `vset2` / `vset4`: 1 where the lanes compare true, else 0.
    Set(CmpOp),
}

/// Element type of the multiplicands of `mma` / `wmma.mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaIn {
    F16,
    Bf16,
    /// TensorFloat-32 (m16n8k8): one element per register.
    Tf32,
}

/// Shapes of `mma.sync` the emulator runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaShape {
    /// tf32 only.
    M16n8k4,
    M16n8k8,
    M16n8k16,
}

/// The rounding of `cvt` to tf32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tf32Round {
    /// `.rna`: to nearest, ties away from zero.
    NearestAway,
    /// `.rn`: to nearest, ties to even.
    NearestEven,
    /// `.rz`: toward zero.
    Zero,
}

/// Which matrix a `wmma` fragment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmmaFrag {
    /// A (m x k).
    A,
    /// B (k x n).
    B,
    /// The accumulator (`.c` or `.d`, m x n).
    Acc,
}

/// The element type of a `wmma` fragment, as its registers pack it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmmaElem {
    F16,
    Bf16,
    /// tf32 in a 32-bit register (the multiplier reads its 19 high bits).
    Tf32,
    S8,
    U8,
    F32,
    S32,
    F64,
}

impl WmmaElem {
    /// Bits of one element in memory.
    pub fn bits(self) -> usize {
        match self {
            WmmaElem::S8 | WmmaElem::U8 => 8,
            WmmaElem::F16 | WmmaElem::Bf16 => 16,
            WmmaElem::Tf32 | WmmaElem::F32 | WmmaElem::S32 => 32,
            WmmaElem::F64 => 64,
        }
    }

    /// Elements one register holds (a 64-bit register for f64, else 32-bit).
    pub fn per_reg(self) -> usize {
        (32 / self.bits()).max(1)
    }
}

/// The shape of a `wmma` operation (m x n x k).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaShape {
    pub m: u8,
    pub n: u8,
    pub k: u8,
}

impl WmmaShape {
    /// (rows, columns) of a fragment's matrix.
    pub fn dims(self, frag: WmmaFrag) -> (usize, usize) {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        match frag {
            WmmaFrag::A => (m, k),
            WmmaFrag::B => (k, n),
            WmmaFrag::Acc => (m, n),
        }
    }
}

/// How a `wmma.load` / `wmma.store` reaches memory: the warp requests its
/// SASS makes, which the emulator reports to the observer (the values moved
/// are the same either way). Read from ptxas 12.9's SASS for sm_75, sm_80 and
/// sm_90 (`nvdisasm`): ptxas lays every fragment out as the native
/// `mma.m16n8k16` does (m8n32k16 as the transposed m32n8k16 problem) and
/// moves the tile in its storage order (rows of the layout's major
/// dimension: `rows` x `cols` elements), lane (g, t) = (l / 4, l % 4)
/// taking every eighth storage row from g; 16-bit tiles of a column-major
/// fragment are transposed in registers after the load (`MOVM.16.MT88`),
/// 32-bit ones are moved in the orientation the native problem has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmmaAccess {
    /// One request per fragment register, each lane its register's
    /// elements (the emulator's own layout; Volta's `wmma` and the shapes
    /// and types whose SASS was not read).
    PerRegister,
    /// 16-bit tiles (f16 and bf16 A, B and accumulators): (rows / 8) x
    /// (cols / 8) requests of 4 bytes a lane, storage row g + 8r, elements
    /// 2t + 8c.
    Pairs16 { rows: u8, cols: u8 },
    /// 32-bit accumulators whose storage rows are the native problem's rows:
    /// (rows / 8) x (cols / 8) requests of 8 bytes a lane, row g + 8r,
    /// elements 2t + 8c.
    Rows32 { rows: u8, cols: u8 },
    /// 32-bit accumulators stored across the native problem's rows: twice
    /// as many requests of 4 bytes a lane, storage row 2t + i + 8r, element
    /// g + 8c.
    Cols32 { rows: u8, cols: u8 },
}

/// Tensor-core and matrix-movement operations (boxed in [`Op::Tensor`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TensorOp {
    /// `mma.sync.aligned.{shape}.row.col.dtype.atype.btype.ctype d, a, b, c`.
    Mma {
        shape: MmaShape,
        ab: MmaIn,
        d_f32: bool,
        c_f32: bool,
        d: Vec<R>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32.{u8,s8}.{u8,s8}.s32`:
    /// `m` rows (8 or 16) and `k` (16 or 32); see `warp::tensor_int`.
    MmaInt {
        m: u8,
        k: u8,
        a_signed: bool,
        b_signed: bool,
        satfinite: bool,
        d: Vec<R>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `mma.sync.aligned.m8n8k4.row.col{.rn}.f64.f64.f64.f64 d, a, b, c`: one
    /// f64 of A and of B per lane, two of C and D.
    MmaF64 {
        d: Vec<R>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.rn}{.satfinite} d, a, b, c`.
    WmmaMma {
        shape: WmmaShape,
        /// The multiplicands' type (A's and B's are the same).
        ab: WmmaElem,
        d_elem: WmmaElem,
        c_elem: WmmaElem,
        /// Integer forms: clamp to the s32 range instead of wrapping.
        satfinite: bool,
        d: Vec<R>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape[.space].type d, [addr]{, stride}`.
    WmmaLoad {
        frag: WmmaFrag,
        shape: WmmaShape,
        elem: WmmaElem,
        row: bool,
        space: MemSpace,
        /// The requests that reach memory.
        access: WmmaAccess,
        d: Vec<R>,
        addr: Addr,
        stride: Option<Src>,
    },
    /// `wmma.store.d.sync.aligned.layout.shape[.space].type [addr], s{, stride}`.
    WmmaStore {
        shape: WmmaShape,
        elem: WmmaElem,
        row: bool,
        space: MemSpace,
        /// The requests that reach memory.
        access: WmmaAccess,
        src: Vec<Src>,
        addr: Addr,
        stride: Option<Src>,
    },
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 d, [addr]`
    /// and `stmatrix` (`store`: the registers go to memory).
    Matrix8x8 {
        store: bool,
        trans: bool,
        space: MemSpace,
        regs: Vec<Src>,
        addr: Addr,
    },
}

/// The destination type of a texture fetch: floats (a float texture, or
/// integer channels read normalized) or 32-bit integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexOut {
    F32,
    S32,
    U32,
}

/// The form of a surface access: dimensions, element size and what an
/// access outside the surface does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceAccess {
    pub rank: u8,
    /// Bytes of one element (`.b8` ... `.b64`).
    pub bytes: u8,
    pub clamp: ptx::ir::SurfaceClamp,
}
