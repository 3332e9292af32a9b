//! What the collector needs to know about each instruction of the module,
//! computed once from the IR: its class (ptx's [`class_of`], the same
//! classification as the static mix), its CUDA source line, whether it is a
//! conditional branch, and for shared stores whether Kerr et al.'s data-flow
//! exemption applies.
//!
//! The exemption (seed 001, section IV.C): "stores to shared memory do not
//! update the producing thread ID annotation if the register containing the
//! data to store was last written by a load from global memory within the
//! same basic block". It is decided here statically, exactly by that rule:
//! walk back from the store inside its basic block to the last instruction
//! writing the stored register; the store is exempt when that is a
//! `ld.global` (a vector store: when every stored register is). A register
//! not written earlier in the block, or an immediate, is not exempt. A
//! predicated write counts as the last write (conservative: the paper's
//! emulator tracks the actual dynamic writer).

use crate::wide_shared::{WideGroup, WideSlots, function_groups};
use ptx::analysis::{Cfg, ConvertKind, InstClass, class_of, convert_kind};
use ptx::{AddrBase, Address, Function, Instruction, Module, Opcode, Operand, Reg, Type};

/// Instructions counted apart as well as in their class, because ptxas
/// expands or keeps them differently from the rest of the class (the
/// timing model prices each): warp- and thread-level counts of each
/// (`Totals::special`), indexed by the variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// Integer `div`/`rem`.
    IntDiv,
    /// IEEE-rounded FP32 `div` (`div.rn.f32` and the other rounding
    /// modes): a software sequence, not one instruction.
    Fp32Div,
    /// IEEE-rounded FP32 reciprocal or square root (`rcp.rn.f32`,
    /// `sqrt.rn.f32`, ...): a software sequence around one SFU instruction.
    SfuIeee,
    /// A constant-space load with a register in its address: ptxas folds
    /// an immediate-addressed one into its user's `c[bank][offset]`
    /// operand, but this one is an `LDC` instruction of its own.
    ConstIndexed,
}

impl Special {
    /// How many there are (the length of a count array).
    pub const COUNT: usize = 4;
}

/// A set of [`Special`]s, one bit each, so that the collector adds an
/// instruction's special counts with one test in the usual case (none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Specials(u8);

impl Specials {
    /// `self` with `s` added when `on`.
    pub fn with(self, s: Special, on: bool) -> Specials {
        Specials(self.0 | (u8::from(on) << s as u8))
    }

    pub fn has(self, s: Special) -> bool {
        self.0 & (1 << s as u8) != 0
    }

    /// Add `n` to the count of each member.
    #[inline]
    pub fn add_to(self, counts: &mut [u64; Special::COUNT], n: u64) {
        let mut bits = self.0;
        while bits != 0 {
            counts[bits.trailing_zeros() as usize] += n;
            bits &= bits - 1;
        }
    }
}

/// Static facts about one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstInfo {
    pub class: InstClass,
    /// `fma`/`mad` on a float type (two flops).
    pub fused: bool,
    /// What kind of conversion a `cvt` is (None for the rest).
    pub convert: Option<ConvertKind>,
    /// The [`Special`]s it is.
    pub specials: Specials,
    /// A warp-wide matrix multiply: its kind and multiply-adds
    /// ([`crate::tensor_work`]).
    pub tensor: Option<(crate::tensor_work::TensorKind, u32)>,
    /// A branch with a guard predicate.
    pub conditional: bool,
    /// A shared store whose value comes straight from a global load (see the module docs).
    pub exempt_store: bool,
    /// A load on the read-only path (`ld.global.nc`: `__ldg`, or a pointer
    /// the compiler proved read-only), which Kepler serves from its
    /// read-only data cache and Maxwell on from the L1/texture cache.
    pub read_only: bool,
    /// The groups of neighbouring shared accesses ptxas issues as one wider
    /// access that this one is in ([`crate::wide_shared`]).
    pub wide: WideSlots,
    /// 1-based PTX line (0 when unknown).
    pub ptx_line: u32,
    /// CUDA source position from `.loc`: (file name, line), if any.
    pub source: Option<(String, u32)>,
}

/// [`InstInfo`] for every instruction of every function, indexed `[func][pc]`
/// with the emulator's numbering (function arena order, instruction order).
#[derive(Debug, Clone, Default)]
pub struct InstTable {
    funcs: Vec<Vec<InstInfo>>,
    /// Per function, the groups [`InstInfo::wide`] points into.
    wide_groups: Vec<Vec<WideGroup>>,
    names: Vec<String>,
}

impl InstTable {
    /// The table of `module`, parsed from `text` (for PTX line numbers).
    pub fn new(module: &Module, text: &str) -> InstTable {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut funcs = Vec::with_capacity(module.functions.len());
        let mut names = Vec::with_capacity(module.functions.len());
        let mut wide_groups = Vec::with_capacity(module.functions.len());
        for (_, f) in module.functions.iter() {
            let (info, groups) = function_info(module, f, &starts);
            funcs.push(info);
            wide_groups.push(groups);
            names.push(f.name.clone());
        }
        InstTable {
            funcs,
            wide_groups,
            names,
        }
    }

    pub fn get(&self, func: u32, pc: u32) -> Option<&InstInfo> {
        self.funcs.get(func as usize)?.get(pc as usize)
    }

    /// Group `group` of function `func`'s wide shared accesses.
    pub fn wide_group(&self, func: u32, group: u32) -> Option<&WideGroup> {
        self.wide_groups.get(func as usize)?.get(group as usize)
    }

    /// Name of function `func` (empty when out of range).
    pub fn function_name(&self, func: u32) -> &str {
        self.names.get(func as usize).map_or("", String::as_str)
    }

    /// Instructions of function `func`.
    pub fn len(&self, func: u32) -> usize {
        self.funcs.get(func as usize).map_or(0, Vec::len)
    }

    /// Number of functions.
    pub fn functions(&self) -> usize {
        self.funcs.len()
    }
}

fn function_info(
    module: &Module,
    f: &Function,
    line_starts: &[usize],
) -> (Vec<InstInfo>, Vec<WideGroup>) {
    let insts: Vec<&Instruction> = f.instructions.iter().map(|(_, i)| i).collect();
    let lines: Vec<u32> = f
        .instructions
        .iter()
        .map(|(h, _)| {
            let at = f.instructions.span(h).start as usize;
            line_starts.partition_point(|&s| s <= at) as u32
        })
        .collect();
    let cfg = Cfg::build(f).ok();
    let (groups, wide) = function_groups(&insts, cfg.as_ref());
    let info = insts
        .iter()
        .enumerate()
        .map(|(pc, inst)| {
            let class = class_of(inst);
            let float = inst.ty().is_some_and(|t| t.is_float());
            let block_start = cfg
                .as_ref()
                .and_then(|c| c.block_of(pc as u32).and_then(|b| c.blocks.get(b)))
                .map_or(pc, |b| b.start as usize);
            InstInfo {
                class,
                fused: float && matches!(inst.opcode, Opcode::Fma | Opcode::Mad),
                convert: convert_kind(inst),
                specials: Specials::default()
                    .with(
                        Special::IntDiv,
                        !float && matches!(inst.opcode, Opcode::Div | Opcode::Rem),
                    )
                    .with(
                        Special::Fp32Div,
                        class == InstClass::Fp32 && inst.opcode == Opcode::Div,
                    )
                    .with(
                        Special::SfuIeee,
                        class == InstClass::Sfu
                            && matches!(inst.opcode, Opcode::Rcp | Opcode::Sqrt)
                            && inst.ty() == Some(Type::F32)
                            && inst.mods.precision.is_none(),
                    )
                    .with(
                        Special::ConstIndexed,
                        class == InstClass::LdConst && register_addressed(inst),
                    ),
                tensor: crate::tensor_work::tensor_work(inst),
                conditional: class == InstClass::Branch && inst.guard.is_some(),
                wide: wide.get(pc).copied().unwrap_or_default(),
                ptx_line: lines.get(pc).copied().unwrap_or(0),
                read_only: inst.is_read_only_load(),
                exempt_store: class == InstClass::StShared
                    && stored_from_global(&insts, block_start, pc),
                source: inst.loc.as_ref().map(|loc| {
                    let (number, line) = ptx::analysis::user_position(module, loc);
                    let file = module
                        .file(number)
                        .map_or_else(|| format!("file{number}"), |e| e.name.clone());
                    (file, line)
                }),
            }
        })
        .collect();
    (info, groups)
}

/// Does one of `inst`'s memory operands have a register base?
fn register_addressed(inst: &Instruction) -> bool {
    inst.operands.iter().any(|o| {
        matches!(
            o,
            Operand::Address(Address {
                base: AddrBase::Reg(_),
                ..
            })
        )
    })
}

/// Registers of an operand, flattening vectors; None when it holds a non-register.
fn registers(op: &Operand, out: &mut Vec<Reg>) -> bool {
    match op {
        Operand::Reg(r) | Operand::VecElem(r, _) => {
            out.push(*r);
            true
        }
        Operand::Vector(v) => v.iter().all(|o| registers(o, out)),
        _ => false,
    }
}

/// Does `inst` write register `r` (through its destination operand)?
pub(crate) fn writes(inst: &Instruction, r: Reg) -> bool {
    use Opcode::*;
    if matches!(
        inst.opcode,
        St | Red | Bar | Barrier | Bra | BrxIdx | Ret | Exit | Trap | Fence | Membar | Prefetch
    ) {
        return false;
    }
    match inst.operands.first() {
        Some(Operand::Reg(d) | Operand::VecElem(d, _)) => *d == r,
        Some(Operand::Pair(a, b)) => *a == r || *b == r,
        Some(Operand::SinkPair(b)) => *b == r,
        Some(Operand::Vector(v) | Operand::List(v)) => v
            .iter()
            .any(|o| matches!(o, Operand::Reg(d) | Operand::VecElem(d, _) if *d == r)),
        _ => false,
    }
}

/// The shared store at `pc` stores registers last written, within the block
/// starting at `block_start`, by a global load.
fn stored_from_global(insts: &[&Instruction], block_start: usize, pc: usize) -> bool {
    let Some(value) = insts[pc].operands.last() else {
        return false;
    };
    let mut regs = Vec::new();
    if !registers(value, &mut regs) || regs.is_empty() {
        return false;
    }
    regs.iter().all(|&r| {
        (block_start..pc)
            .rev()
            .find(|&i| writes(insts[i], r))
            .is_some_and(|i| class_of(insts[i]) == InstClass::LdGlobal)
    })
}

#[cfg(test)]
mod tests {
    use super::{Special, Specials};

    /// The counts `add_to` gives a set of `members` adding `n`, against
    /// adding `n` to each member by hand.
    fn check(members: &[Special], n: u64) {
        let all = [
            Special::IntDiv,
            Special::Fp32Div,
            Special::SfuIeee,
            Special::ConstIndexed,
        ];
        let set = all
            .iter()
            .fold(Specials::default(), |s, &m| s.with(m, members.contains(&m)));
        let mut got = [7; Special::COUNT];
        set.add_to(&mut got, n);
        let mut expect = [7; Special::COUNT];
        for m in members {
            expect[*m as usize] += n;
        }
        assert_eq!(got, expect, "{members:?}");
        for m in all {
            assert_eq!(set.has(m), members.contains(&m), "{m:?} in {members:?}");
        }
    }

    #[test]
    fn a_set_adds_to_its_members_only() {
        check(&[], 5);
        check(&[Special::IntDiv], 1);
        check(&[Special::ConstIndexed], 32);
        check(&[Special::Fp32Div, Special::SfuIeee], 3);
        check(
            &[
                Special::IntDiv,
                Special::Fp32Div,
                Special::SfuIeee,
                Special::ConstIndexed,
            ],
            2,
        );
    }
}
