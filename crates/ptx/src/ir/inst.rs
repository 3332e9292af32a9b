//! Instructions: opcode, typed modifiers, operands, guard and source location.

use super::arena::Handle;
use super::types::*;
use super::{BranchTargets, CallPrototype, Function, LabelDecl, LocalVar, Reg, Variable};

spelled_enum! {
    /// The base mnemonic of an instruction (the part before the first `.`,
    /// or the fixed dotted stem for `cp.async.*` and `bar.warp.sync`).
    pub enum Opcode {
        // integer and float arithmetic
        Add = "add", Addc = "addc", Sub = "sub", Subc = "subc", Mul = "mul", Mad = "mad", Madc = "madc",
        Mul24 = "mul24", Mad24 = "mad24", Sad = "sad", Fma = "fma", Div = "div", Rem = "rem",
        Abs = "abs", Neg = "neg", Min = "min", Max = "max", Copysign = "copysign", Testp = "testp",
        Rcp = "rcp", Sqrt = "sqrt", Rsqrt = "rsqrt", Sin = "sin", Cos = "cos", Lg2 = "lg2", Ex2 = "ex2",
        Tanh = "tanh",
        // bit manipulation
        Popc = "popc", Clz = "clz", Bfind = "bfind", Fns = "fns", Brev = "brev", Bfe = "bfe", Bfi = "bfi",
        Dp4a = "dp4a", Dp2a = "dp2a", Bmsk = "bmsk",
        // compare and select
        Setp = "setp", Set = "set", Selp = "selp", Slct = "slct",
        // logic and shift
        And = "and", Or = "or", Xor = "xor", Not = "not", Cnot = "cnot", Lop3 = "lop3",
        Shl = "shl", Shr = "shr", Shf = "shf", Prmt = "prmt",
        // data movement and conversion
        Mov = "mov", Ld = "ld", Ldu = "ldu", St = "st", Cvt = "cvt", Cvta = "cvta", Isspacep = "isspacep",
        // texture fetches from a texture object (`tex1Dfetch`, `tex1D`,
        // `tex2D`, `tex3D`), the forms ptxperf runs
        Tex1d = "tex.1d", Tex2d = "tex.2d", Tex3d = "tex.3d",
        // surface reads and writes of unformatted bytes (`surf2Dread` ...)
        Suld1d = "suld.b.1d", Suld2d = "suld.b.2d", Suld3d = "suld.b.3d",
        Sust1d = "sust.b.1d", Sust2d = "sust.b.2d", Sust3d = "sust.b.3d",
        Prefetch = "prefetch", Prefetchu = "prefetchu", Createpolicy = "createpolicy",
        // warp-level
        Shfl = "shfl", Vote = "vote", Match = "match", Redux = "redux", Activemask = "activemask",
        Elect = "elect",
        // atomics
        Atom = "atom", Red = "red",
        // synchronization
        Bar = "bar", Barrier = "barrier", BarWarpSync = "bar.warp.sync", Fence = "fence", Membar = "membar",
        // asynchronous copies and tensor cores
        CpAsync = "cp.async", CpAsyncCommitGroup = "cp.async.commit_group",
        CpAsyncWaitGroup = "cp.async.wait_group", CpAsyncWaitAll = "cp.async.wait_all",
        CpAsyncMbarrierArrive = "cp.async.mbarrier.arrive",
        CpAsyncBulk = "cp.async.bulk", CpAsyncBulkCommitGroup = "cp.async.bulk.commit_group",
        CpAsyncBulkWaitGroup = "cp.async.bulk.wait_group", CpAsyncBulkPrefetch = "cp.async.bulk.prefetch",
        Ldmatrix = "ldmatrix", Stmatrix = "stmatrix", Mma = "mma", Wmma = "wmma",
        // asynchronous barriers in shared memory
        Mbarrier = "mbarrier",
        // scalar video instructions
        Vadd = "vadd", Vsub = "vsub", Vabsdiff = "vabsdiff", Vmin = "vmin", Vmax = "vmax",
        Vshl = "vshl", Vshr = "vshr", Vset = "vset", Vmad = "vmad",
        // SIMD video instructions
        Vadd2 = "vadd2", Vsub2 = "vsub2", Vabsdiff2 = "vabsdiff2", Vmin2 = "vmin2", Vmax2 = "vmax2", Vavrg2 = "vavrg2",
        Vadd4 = "vadd4", Vsub4 = "vsub4", Vabsdiff4 = "vabsdiff4", Vmin4 = "vmin4", Vmax4 = "vmax4", Vavrg4 = "vavrg4",
        Vset2 = "vset2", Vset4 = "vset4",
        // control flow and miscellany
        Bra = "bra", BrxIdx = "brx.idx", Call = "call", Ret = "ret", Exit = "exit", Trap = "trap",
        Brkpt = "brkpt", Nanosleep = "nanosleep", Pmevent = "pmevent",
        // programmatic dependent launch (sm_90)
        GriddepcontrolWait = "griddepcontrol.wait",
        GriddepcontrolLaunchDependents = "griddepcontrol.launch_dependents",
    }
}

impl Opcode {
    /// `tex.1d`, `tex.2d`, `tex.3d`: a fetch from a texture object.
    pub fn is_texture_fetch(self) -> bool {
        matches!(self, Opcode::Tex1d | Opcode::Tex2d | Opcode::Tex3d)
    }

    /// `suld.b.{1d,2d,3d}`: a read from a surface object.
    pub fn is_surface_load(self) -> bool {
        matches!(self, Opcode::Suld1d | Opcode::Suld2d | Opcode::Suld3d)
    }

    /// `sust.b.{1d,2d,3d}`: a write to a surface object.
    pub fn is_surface_store(self) -> bool {
        matches!(self, Opcode::Sust1d | Opcode::Sust2d | Opcode::Sust3d)
    }

    /// The dimensions of a texture fetch or surface access (1 to 3), else 0.
    pub fn texture_rank(self) -> u8 {
        use Opcode::*;
        match self {
            Tex1d | Suld1d | Sust1d => 1,
            Tex2d | Suld2d | Sust2d => 2,
            Tex3d | Suld3d | Sust3d => 3,
            _ => 0,
        }
    }
}

/// Modifiers of an instruction, typed. Each field is `None`/`false` when the
/// modifier is absent; the decoder only sets the fields the opcode allows
/// (the comment of each field lists the opcodes that use it). Types are not
/// here but in [`Instruction::types`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Modifiers {
    /// Float (`.rn`) or float-to-int (`.rni`) rounding: arithmetic, fma, cvt, div, sqrt, rcp.
    pub rounding: Option<Rounding>,
    /// `.ftz`: flush subnormals to zero (f32 arithmetic, setp, cvt, ...).
    pub ftz: bool,
    /// `.sat`: clamp the result (float: to [0,1]; integer add/sub/mad.hi: saturate).
    pub sat: bool,
    /// `.satfinite` of cvt / mma.
    pub satfinite: bool,
    /// `.relu` of cvt / min / max / fma on f16 types.
    pub relu: bool,
    /// `.pack` of `cvt.pack` (two integers saturated and packed).
    pub pack: bool,
    /// `.NaN` of min / max.
    pub nan: bool,
    /// `.xorsign.abs` of min / max on f16/bf16.
    pub xorsign_abs: bool,
    /// `.noftz` of atom/red add on f16/bf16 types.
    pub noftz: bool,
    /// `.approx` / `.full` of div, sqrt, rcp, rsqrt, sin, cos, lg2, ex2, tanh.
    pub precision: Option<Precision>,
    /// `.lo` / `.hi` / `.wide` of mul, mad, mul24, mad24 and `.lo`/`.hi` of dp2a.
    pub mul_part: Option<MulPart>,
    /// `.cc`: writes the carry flag (add, sub, mad, addc, subc, madc).
    pub carry_out: bool,
    /// Comparison of setp / set.
    pub cmp: Option<CmpOp>,
    /// Boolean combiner of setp / set (takes an extra predicate operand).
    pub bool_op: Option<BoolOp>,
    /// State space of ld, st, ldu, atom, red, cvta, isspacep, prefetch, ldmatrix,
    /// wmma.load/store; destination space of cp.async.
    pub space: Option<StateSpace>,
    /// Source space of cp.async (`.shared.global`: space = shared, src_space = global).
    pub src_space: Option<StateSpace>,
    /// `cvta.to.<space>` (generic to specific) rather than `cvta.<space>`.
    pub cvta_to: bool,
    /// `.nc` of ld.global (non-coherent, read-only path).
    pub nc: bool,
    /// Memory semantics of ld, st, atom, red, fence.
    pub sem: Option<MemSem>,
    /// Memory scope of ld, st, atom, red, fence, membar (`membar.gl` is `Gpu`).
    pub scope: Option<MemScope>,
    /// Cache operator of ld, st, cp.async.
    pub cache: Option<CacheOp>,
    /// Eviction and cache-hint qualifiers, in source order.
    pub cache_hints: Vec<CacheHint>,
    /// Cache level of prefetch.
    pub level: Option<CacheLevel>,
    /// Vector width of ld, st, ldu, atom, red, mov-free vector ops.
    pub vec: Option<VecWidth>,
    /// Operation of atom, red, redux, bar.red.
    pub atom_op: Option<AtomOp>,
    /// Mode of shfl.sync.
    pub shfl_mode: Option<ShflMode>,
    /// Mode of vote.sync.
    pub vote_mode: Option<VoteMode>,
    /// Mode of match.sync.
    pub match_mode: Option<MatchMode>,
    /// Direction of shf.
    pub shf_dir: Option<ShfDir>,
    /// Mode of shf and bmsk (`.wrap` / `.clamp`).
    pub shf_mode: Option<ShfMode>,
    /// Mode of prmt.
    pub prmt_mode: Option<PrmtMode>,
    /// What bar / barrier does (`bar.sync`, `barrier.arrive`, `bar.red`).
    pub bar_mode: Option<BarMode>,
    /// Class test of testp.
    pub testp: Option<TestpOp>,
    /// `.sync` of shfl, vote, match, redux, ldmatrix, mma, wmma, bar.warp.
    pub sync: bool,
    /// `.aligned` of barrier, ldmatrix, mma, wmma.
    pub aligned: bool,
    /// `.uni` of bra, call, ret: the branch is non-divergent.
    pub uni: bool,
    /// `.shiftamt` of bfind.
    pub shiftamt: bool,
    /// `.trans` of ldmatrix / stmatrix.
    pub trans: bool,
    /// `.x1` / `.x2` / `.x4` matrix count of ldmatrix / stmatrix.
    pub num: Option<u8>,
    /// Shape of ldmatrix, mma, wmma.
    pub shape: Option<Shape>,
    /// Layout of A (mma, wmma.mma) or of the loaded/stored fragment (wmma.load/store).
    pub layout_a: Option<Layout>,
    /// Layout of B (mma, wmma.mma).
    pub layout_b: Option<Layout>,
    /// Sub-operation of wmma.
    pub wmma_op: Option<WmmaOp>,
    /// Sub-operation of mbarrier.
    pub mbarrier_op: Option<MbarrierOp>,
    /// `.parity` of mbarrier.test_wait / try_wait: the operand is a phase parity.
    pub parity: bool,
    /// `.expect_tx` after `mbarrier.arrive`: arrive and expect bytes.
    pub expect_tx: bool,
    /// `.noComplete` of mbarrier.arrive: the arrival must not complete the phase.
    pub no_complete: bool,
    /// `.noinc` of cp.async.mbarrier.arrive: the pending count is not raised first.
    pub noinc: bool,
    /// How a bulk copy (`cp.async.bulk`) reports completion.
    pub completion: Option<BulkCompletion>,
    /// `.read` of cp.async.bulk.wait_group: wait only until the sources were read.
    pub read: bool,
    /// Fragment of wmma.load / wmma.store.
    pub fragment: Option<Fragment>,
    /// Proxy kind of `fence.proxy.*`.
    pub proxy: Option<ProxyKind>,
    /// How `createpolicy` builds its cache policy (`.fractional`, `.range`,
    /// `.cvt`).
    pub policy: Option<PolicyKind>,
    /// The L2 eviction priorities of `createpolicy`: the primary, then the
    /// secondary one where given.
    pub priorities: Vec<L2Priority>,
    /// `.proxy` of fence was read; the proxy kind follows it.
    pub proxy_word: bool,
    /// `.add` accumulate of the SIMD video instructions (`vabsdiff4.u32.u32.u32.add`).
    pub video_add: bool,
    /// Secondary operation `.add` / `.min` / `.max` of the scalar video
    /// instructions (`vmin.s32.s32.s32.sat.add d, a, b, c`).
    pub video_op2: Option<VideoOp2>,
    /// Byte / half-word selectors of a scalar video instruction's d, a and b
    /// operands (`vadd.s32.s32.s32 d.h0, a.b1, b.b2, c`), written after the
    /// register; `None` is the whole word.
    pub video_sel: [Option<VideoSel>; 3],
    /// Mask of d and selectors of a and b of a SIMD video instruction
    /// (`vadd2.u32.u32.u32 d.h1, a.h32, b.h10, c`); `None` is the default.
    pub simd_sel: [Option<SimdSel>; 3],
    /// Negated a, b, c of vmad (`vmad.s32.s32.s32 d, -a, b, -c`).
    pub video_neg: [bool; 3],
    /// `.po` (plus one) of vmad.
    pub video_po: bool,
    /// `.shr7` / `.shr15` result scaling of vmad.
    pub video_scale: Option<VideoScale>,
    /// `.trap` / `.clamp` / `.zero` of suld and sust.
    pub surface_clamp: Option<SurfaceClamp>,
}

/// A guard predicate `@%p` or `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub reg: Reg,
    pub negated: bool,
}

/// An immediate with its exact bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Immediate {
    /// An integer literal as 64 two's-complement bits (unsigned literals above
    /// `i64::MAX` wrap to negative values; the bits are exact).
    Int(i64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float literal: the bits of an f64.
    F64(u64),
}

/// What a symbol name resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// A module-scope variable.
    Global(Handle<Variable>),
    /// A variable declared inside the function body (demoted shared, local depot, call params).
    Local(Handle<LocalVar>),
    /// The n-th parameter of the enclosing function.
    Param(u32),
    /// The n-th return parameter of the enclosing function.
    Return(u32),
    /// A function (call target, or a function address taken with mov).
    Function(Handle<Function>),
}

/// The base of an address expression `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    Reg(Reg),
    Symbol(Symbol),
    /// `[imm]`: an absolute address; the offset holds it.
    Absolute,
}

/// A memory operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub base: AddrBase,
    /// Byte offset added to the base (may be negative).
    pub offset: i64,
}

/// One operand of an instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// `!%p`: a negated predicate source (setp/selp/bar.red/vote).
    NotReg(Reg),
    /// `%r1|%p1`: dual destination (setp, shfl.sync, elect.sync).
    Pair(Reg, Reg),
    /// `_|%p1`: a dual destination without its first part (elect.sync).
    SinkPair(Reg),
    /// `v.x` (or `.y .z .w`, `.r .g .b .a`): element `i` of a vector
    /// register (`.reg .v4 .f32 v`), ISA 6.4.2 "Vector Operands".
    VecElem(Reg, u8),
    /// `{%r1, %r2, _}`: a vector of registers, sinks or immediates (ld/st/mov/mma ...).
    Vector(Vec<Operand>),
    Imm(Immediate),
    Address(Address),
    /// A symbol used as a value (`mov.u64 %rd1, table`), with a byte offset.
    Symbol(Symbol, i64),
    Label(Handle<LabelDecl>),
    Special(SpecialReg),
    /// `_`: the sink (discarded result).
    Sink,
    /// `(a, b, ...)`: the return or argument list of a call.
    List(Vec<Operand>),
    /// A `.branchtargets` list (brx.idx).
    BranchTargets(Handle<BranchTargets>),
    /// A `.callprototype` label (indirect call).
    Prototype(Handle<CallPrototype>),
}

/// A source position from `.loc file line col`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    /// Index of the `.file` entry (the number written in the PTX).
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// `, function_name LABEL, inlined_at FILE LINE COL` of -lineinfo with inlining.
    pub inlined_at: Option<Box<InlinedAt>>,
}

/// Where an inlined `.loc` was inlined into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinedAt {
    /// The `function_name` label (a `$L__info_string` symbol), kept as written.
    pub function_name: String,
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// The `.loc` at this position among the directives just before, where
    /// it was itself inlined (`.loc 2 4590 1, ..., inlined_at 1 3 5` before
    /// `.loc 2 4584 1, ..., inlined_at 2 4590 1`): the rest of the chain
    /// of call sites out to the kernel's own line.
    pub outer: Option<Box<SourceLoc>>,
}

impl SourceLoc {
    /// How many inlined call sites this `.loc` chains to.
    pub fn inline_depth(&self) -> usize {
        let mut depth = 0;
        let mut at = self.inlined_at.as_deref();
        while let Some(ia) = at {
            depth += 1;
            at = ia.outer.as_deref().and_then(|o| o.inlined_at.as_deref());
        }
        depth
    }

    /// The positions (file, line) from this `.loc` out through its call
    /// sites: the callee's line first, the outermost caller's last.
    pub fn call_chain(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut next = Some((self.file, self.line));
        let mut at = self.inlined_at.as_deref();
        std::iter::from_fn(move || {
            let here = next.take()?;
            if let Some(ia) = at {
                next = Some((ia.file, ia.line));
                at = ia.outer.as_deref().and_then(|o| o.inlined_at.as_deref());
            }
            Some(here)
        })
    }
}

/// One instruction of a function's flat instruction list.
///
/// Invariants after a successful parse: every `Reg`, label, symbol and
/// prototype handle points into the enclosing [`Function`] (or the module for
/// globals/functions); `types` has the arity the opcode requires; operand
/// kinds and counts have been checked against the opcode.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub guard: Option<Guard>,
    pub opcode: Opcode,
    pub mods: Modifiers,
    /// The type suffixes in source order: one for most opcodes; `[dst, src]`
    /// for cvt, set, slct, dp4a, dp2a; `[d, a, b, c]` for mma; `[d, c]` for wmma.mma.
    pub types: Vec<Type>,
    pub operands: Vec<Operand>,
    /// The `.loc` in effect at this instruction (`None` before any `.loc`).
    pub loc: Option<SourceLoc>,
}

impl Instruction {
    /// The first (usually the only) type suffix.
    pub fn ty(&self) -> Option<Type> {
        self.types.first().copied()
    }

    /// A load on the read-only path (`ld.global.nc`: `__ldg`, or a pointer
    /// the compiler proved read-only), which Kepler serves from its read-only
    /// data cache and Maxwell on from the L1/texture cache.
    /// A texture fetch takes the same path.
    pub fn is_read_only_load(&self) -> bool {
        (self.opcode == Opcode::Ld && self.mods.nc && self.mods.space == Some(StateSpace::Global))
            || self.opcode.is_texture_fetch()
    }
}
