//! The instruction classes of the static and dynamic instruction mix.
//!
//! [`class_of`] puts every instruction in exactly one [`InstClass`]; the
//! dynamic profiler counts executed instructions with the same function, so
//! static and dynamic mixes are comparable. The classes follow the functional
//! units the performance models distinguish (integer, fp32, fp64, half
//! precision, special function unit, load/store per state space, ...). The
//! rules, opcode by opcode:
//!
//! | class | instructions |
//! |---|---|
//! | `int_alu` | integer `add sub addc subc abs neg min max sad`, `cvta`, video `vadd2 ... vavrg4` |
//! | `int_mul` | integer `mul mad madc mul24 mad24 div rem`, `dp4a dp2a` (integer div/rem are IMAD sequences) |
//! | `fp32` / `fp64` / `fp16` | float `add sub mul mad fma abs neg min max copysign`, IEEE `div.rn`, by the instruction's type (`fp16` holds f16, f16x2, bf16, bf16x2) |
//! | `sfu` | `rcp sqrt rsqrt sin cos lg2 ex2 tanh`, `div.approx`/`div.full`; f64 `rcp`/`sqrt` that are not `.approx` are `fp64` (software sequences on the fp64 unit) |
//! | `convert` | `cvt` |
//! | `move` | `mov` |
//! | `compare` | `setp set selp slct testp isspacep` |
//! | `logic` | `and or xor not cnot lop3 shl shr shf prmt popc clz bfind fns brev bfe bfi` |
//! | `ld_<space>` / `st_<space>` | `ld ldu` / `st` by state space: global, shared (any spelling), local, param, const, generic (no space); the tensor cores' fragment loads and stores too: `wmma.load` / `wmma.store` by their space (generic without one), `ldmatrix` / `stmatrix` shared (they go through the load/store unit, not the tensor cores) |
//! | `atom_<space>` | `atom red` by space: global, shared, generic |
//! | `branch` | `bra brx.idx` |
//! | `call_ret` | `call ret` |
//! | `exit` | `exit trap` |
//! | `barrier` | `bar barrier` (CTA-wide) |
//! | `fence` | `fence membar` |
//! | `warp` | `shfl vote match redux activemask bar.warp.sync` |
//! | `tensor` | `mma`, `wmma.mma` (the multiply-accumulates) |
//! | `async_copy` | `cp.async cp.async.commit_group cp.async.wait_group cp.async.wait_all` |
//! | `other` | `prefetch prefetchu nanosleep pmevent brkpt`, and memory ops on a space not listed above |

use crate::ir::{Function, Instruction, Opcode, Precision, Rounding, StateSpace, Type, WmmaOp};

macro_rules! classes {
    ($($(#[$m:meta])* $var:ident = $name:literal,)*) => {
        /// The class of an instruction in the instruction mix.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum InstClass { $($(#[$m])* $var,)* }

        impl InstClass {
            /// Every class, in declaration order (the order of [`InstClass::index`]).
            pub const ALL: &'static [InstClass] = &[$(InstClass::$var,)*];

            /// The snake_case name used in tables and JSON (`ld_global`, `fp32`, ...).
            pub fn name(self) -> &'static str {
                match self { $(InstClass::$var => $name,)* }
            }

            /// The class with that name.
            pub fn from_name(name: &str) -> Option<InstClass> {
                match name { $($name => Some(InstClass::$var),)* _ => None }
            }
        }
    };
}

classes! {
    IntAlu = "int_alu",
    IntMul = "int_mul",
    Fp32 = "fp32",
    Fp64 = "fp64",
    /// f16, f16x2, bf16, bf16x2 arithmetic.
    Fp16 = "fp16",
    /// Special function unit: transcendental and approximate functions.
    Sfu = "sfu",
    Convert = "convert",
    Move = "move",
    /// Predicate-producing compares and selects.
    Compare = "compare",
    /// Logic, shift and bit manipulation.
    Logic = "logic",
    LdGlobal = "ld_global",
    LdShared = "ld_shared",
    LdLocal = "ld_local",
    LdParam = "ld_param",
    LdConst = "ld_const",
    LdGeneric = "ld_generic",
    StGlobal = "st_global",
    StShared = "st_shared",
    StLocal = "st_local",
    StParam = "st_param",
    StGeneric = "st_generic",
    AtomGlobal = "atom_global",
    AtomShared = "atom_shared",
    AtomGeneric = "atom_generic",
    Branch = "branch",
    CallRet = "call_ret",
    Exit = "exit",
    Barrier = "barrier",
    Fence = "fence",
    /// Warp-level collectives.
    Warp = "warp",
    /// Tensor-core multiply-accumulates (`mma`, `wmma.mma`); their fragment
    /// loads and stores are loads and stores.
    Tensor = "tensor",
    AsyncCopy = "async_copy",
    Other = "other",
}

impl InstClass {
    /// Number of classes.
    pub const COUNT: usize = InstClass::ALL.len();

    /// Position in [`InstClass::ALL`], for counting in arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Loads, stores and atomics (what the memory models look at).
    pub fn is_memory(self) -> bool {
        use InstClass::*;
        matches!(
            self,
            LdGlobal
                | LdShared
                | LdLocal
                | LdParam
                | LdConst
                | LdGeneric
                | StGlobal
                | StShared
                | StLocal
                | StParam
                | StGeneric
                | AtomGlobal
                | AtomShared
                | AtomGeneric
        )
    }
}

/// Arithmetic on a float type goes to that type's unit; anything else to `int`.
fn arith(ty: Option<Type>, int: InstClass) -> InstClass {
    match ty {
        Some(Type::F32 | Type::Tf32) => InstClass::Fp32,
        Some(Type::F64) => InstClass::Fp64,
        Some(Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2) => InstClass::Fp16,
        Some(t) if t.is_float() => InstClass::Fp16,
        _ => int,
    }
}

enum Space {
    Global,
    Shared,
    Local,
    Param,
    Const,
    Generic,
    Unlisted,
}

fn space(s: Option<StateSpace>) -> Space {
    match s {
        None | Some(StateSpace::Generic) => Space::Generic,
        Some(StateSpace::Global) => Space::Global,
        Some(s) if s.is_shared() => Space::Shared,
        Some(s) if s.is_param() => Space::Param,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Const) => Space::Const,
        Some(_) => Space::Unlisted,
    }
}

/// The class of a load from `space`.
fn load_class(space: Space) -> InstClass {
    use InstClass as C;
    match space {
        Space::Global => C::LdGlobal,
        Space::Shared => C::LdShared,
        Space::Local => C::LdLocal,
        Space::Param => C::LdParam,
        Space::Const => C::LdConst,
        Space::Generic => C::LdGeneric,
        Space::Unlisted => C::Other,
    }
}

/// The class of a store to `space`.
fn store_class(space: Space) -> InstClass {
    use InstClass as C;
    match space {
        Space::Global => C::StGlobal,
        Space::Shared => C::StShared,
        Space::Local => C::StLocal,
        Space::Param => C::StParam,
        Space::Generic => C::StGeneric,
        Space::Const | Space::Unlisted => C::Other,
    }
}

/// The class of one instruction (see the module docs for the table).
pub fn class_of(inst: &Instruction) -> InstClass {
    use InstClass as C;
    use Opcode::*;
    let ty = inst.ty();
    match inst.opcode {
        Add | Sub | Abs | Neg | Min | Max | Copysign => arith(ty, C::IntAlu),
        Addc | Subc | Sad | Cvta => C::IntAlu,
        Vadd2 | Vsub2 | Vabsdiff2 | Vmin2 | Vmax2 | Vavrg2 | Vadd4 | Vsub4 | Vabsdiff4 | Vmin4
        | Vmax4 | Vavrg4 | Vset2 | Vset4 => C::IntAlu,
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vset => C::IntAlu,
        Vmad => C::IntMul,
        Mul | Mad | Fma | Madc | Mul24 | Mad24 | Rem => arith(ty, C::IntMul),
        Dp4a | Dp2a => C::IntMul,
        Div => match inst.mods.precision {
            Some(Precision::Approx | Precision::Full) => C::Sfu,
            None => arith(ty, C::IntMul),
        },
        Rcp | Sqrt if ty == Some(Type::F64) && inst.mods.precision != Some(Precision::Approx) => {
            C::Fp64
        }
        Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => C::Sfu,
        Cvt => C::Convert,
        Mov => C::Move,
        Setp | Set | Selp | Slct | Testp | Isspacep => C::Compare,
        And | Or | Xor | Not | Cnot | Lop3 | Shl | Shr | Shf | Prmt | Popc | Clz | Bfind | Fns
        | Brev | Bfe | Bfi | Bmsk => C::Logic,
        // Fragment loads and stores are memory instructions of the load/store
        // unit: counted with the loads and stores of their space, so that the
        // models see a tensor kernel's memory traffic in its mix.
        Wmma if inst.mods.wmma_op == Some(WmmaOp::Load) => load_class(space(inst.mods.space)),
        Wmma if inst.mods.wmma_op == Some(WmmaOp::Store) => store_class(space(inst.mods.space)),
        Ldmatrix => C::LdShared,
        Stmatrix => C::StShared,
        Ld | Ldu => load_class(space(inst.mods.space)),
        // A texture fetch reads global memory through the texture path.
        Tex1d | Tex2d | Tex3d => C::LdGlobal,
        // A surface is a CUDA array in global memory.
        Suld1d | Suld2d | Suld3d => C::LdGlobal,
        Sust1d | Sust2d | Sust3d => C::StGlobal,
        St => store_class(space(inst.mods.space)),
        Atom | Red => match space(inst.mods.space) {
            Space::Global => C::AtomGlobal,
            Space::Shared => C::AtomShared,
            Space::Generic => C::AtomGeneric,
            _ => C::Other,
        },
        Bra | BrxIdx => C::Branch,
        Call | Ret => C::CallRet,
        Exit | Trap => C::Exit,
        Bar | Barrier => C::Barrier,
        Fence | Membar => C::Fence,
        Shfl | Vote | Match | Redux | Activemask | BarWarpSync | Elect => C::Warp,
        Mma | Wmma => C::Tensor,
        CpAsync
        | CpAsyncCommitGroup
        | CpAsyncWaitGroup
        | CpAsyncWaitAll
        | CpAsyncBulk
        | CpAsyncBulkCommitGroup
        | CpAsyncBulkWaitGroup
        | CpAsyncBulkPrefetch => C::AsyncCopy,
        // An asynchronous barrier's state lives in shared memory; its
        // arrivals and waits are counted apart from bar.sync (no sourced
        // cost: `other`).
        Mbarrier | CpAsyncMbarrierArrive => C::Other,
        // A single grid: there is no earlier grid to wait on, no later one to release.
        GriddepcontrolWait | GriddepcontrolLaunchDependents => C::Other,
        Prefetch | Prefetchu | Createpolicy | Nanosleep | Pmevent | Brkpt => C::Other,
    }
}

/// What a `cvt` becomes in ptxas's machine code, where that differs by
/// kind (the timing model's split of the `convert` class; docs/timing-model.md,
/// "Integer conversions" and "Conversions from and to 64-bit types").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertKind {
    /// Destination and source both integer types (`cvt.u64.u32`,
    /// `cvt.s32.s8`, ...): integer moves and extensions on the integer ALU
    /// on every architecture.
    Integer,
    /// `cvt.{rn,rz}.f32.{s32,u32}` without saturation: `I2FP` on the integer
    /// ALU from CC 8.6 on, the conversion unit's `I2F` before.
    Int32ToF32,
    /// `cvt.{rn,rz}.f32.{u8,u16}` without saturation: `I2FP` from CC 8.6 on
    /// with ptxas 13.0 and later.
    NarrowUintToF32,
    /// A float to or from a 64-bit type (`cvt.f64.f32`, `cvt.rn.f32.s64`,
    /// ...): at the FP64 unit's rate where that is below the conversion
    /// unit's.
    Float64,
    /// Any other conversion: the conversion unit.
    Other,
}

/// The [`ConvertKind`] of `inst`, `None` when it is not a `cvt`.
pub fn convert_kind(inst: &Instruction) -> Option<ConvertKind> {
    if inst.opcode != Opcode::Cvt {
        return None;
    }
    let to_f32_from = |sources: &[Type]| {
        matches!(inst.types.as_slice(), [Type::F32, source] if sources.contains(source))
            && matches!(inst.mods.rounding, Some(Rounding::Rn | Rounding::Rz))
            && !inst.mods.sat
    };
    Some(
        if inst.types.len() == 2 && inst.types.iter().all(|t| t.is_integer_or_bits()) {
            ConvertKind::Integer
        } else if to_f32_from(&[Type::S32, Type::U32]) {
            ConvertKind::Int32ToF32
        } else if to_f32_from(&[Type::U8, Type::U16]) {
            ConvertKind::NarrowUintToF32
        } else if inst.types.iter().any(|t| t.bits() == 64) {
            ConvertKind::Float64
        } else {
            ConvertKind::Other
        },
    )
}

/// Instruction counts per class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstMix {
    counts: [u64; InstClass::COUNT],
}

impl Default for InstMix {
    fn default() -> Self {
        InstMix {
            counts: [0; InstClass::COUNT],
        }
    }
}

impl InstMix {
    /// The static mix of a function body: each instruction counted once.
    pub fn of_function(func: &Function) -> InstMix {
        let mut mix = InstMix::default();
        for (_, inst) in func.instructions.iter() {
            mix.add(class_of(inst), 1);
        }
        mix
    }

    /// Add `n` instructions of `class`.
    pub fn add(&mut self, class: InstClass, n: u64) {
        self.counts[class.index()] = self.counts[class.index()].saturating_add(n);
    }

    pub fn get(&self, class: InstClass) -> u64 {
        self.counts[class.index()]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }

    /// Classes with a non-zero count, in [`InstClass::ALL`] order.
    pub fn nonzero(&self) -> impl Iterator<Item = (InstClass, u64)> + '_ {
        InstClass::ALL
            .iter()
            .map(|&c| (c, self.get(c)))
            .filter(|&(_, n)| n > 0)
    }
}
