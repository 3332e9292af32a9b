//! The instructions whose results no address, branch or other effect reads:
//! what a run that only wants a kernel's memory addresses (the L2 warm-up of
//! a sample's neighbours) may leave uncomputed.
//!
//! A register is *needed* when an instruction that always executes reads it
//! (an address base, a branch or guard predicate, an atomic's operand, a
//! shuffle's source: every operand of every instruction the caller does not
//! mark pure), or when a pure instruction that writes a needed register
//! reads it, to a fixed point. A store's value is the exception: what it
//! writes matters only if a needed load may bring it back, so a store's
//! values are needed only where a load (or an atomic) from writable memory
//! (not a kernel parameter or the constant bank) that defines a needed
//! register may read the places the store's address reaches. Where values
//! point is followed by register ([`Places`]): a kernel parameter points
//! where the launch bound it ([`Bindings`]; unbound, anywhere), a value read
//! from memory anywhere, an index computed from thread ids nowhere, and an
//! address built from no pointer anywhere; a copy from memory to memory
//! (`cp.async`) makes every place count. The analysis is flow-insensitive
//! over register names (a register written in two places is needed at
//! both), so it can only keep too much, but for pointer arithmetic that
//! leaves its allocation (a pointer plus a scalar the size of the distance
//! to another buffer), which the emulator checks as it runs
//! (`emu::exec::idle`).
//!
//! An instruction that writes registers none of which is needed has
//! *unneeded results*: they flow only into other such instructions and
//! into the values that stores write and nothing needed reads back. A pure
//! one may be skipped, and a load's data left unread (its address and its
//! request stay), without changing any address, branch or instruction count.

use crate::analysis::ilp::defs_and_uses;
use crate::analysis::mix::{InstClass, class_of};
use crate::ir::{AddrBase, Address, Function, Instruction, Opcode, Operand, Symbol};

/// The memory a value may point into: a set of places a launch numbers
/// (bit `k`: place `k`), all of them where nothing narrower is known.
/// The caller decides what a place is (the emulator: an allocation, the
/// CTA's shared memory, the threads' local memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Places(pub u64);

impl Places {
    /// No place: a value that is not an address (a thread index, a count).
    pub const NONE: Places = Places(0);
    /// Any place.
    pub const ANY: Places = Places(u64::MAX);

    /// Where an address with these origins may reach: any place when it
    /// has none (an address built from no pointer is not followed).
    fn as_address(self) -> Places {
        if self == Places::NONE {
            Places::ANY
        } else {
            self
        }
    }
}

/// What a launch bound the pointers a kernel starts from to.
pub trait Bindings {
    /// The places the value of the `index`-th parameter at byte `offset`
    /// points into ([`Places::NONE`]: it points into none, a scalar).
    fn param(&self, index: u32, offset: i64) -> Places;
    /// The places a variable's address points into.
    fn symbol(&self, symbol: Symbol) -> Places;
}

/// Nothing known of the launch: every parameter may point anywhere.
struct Unbound;

impl Bindings for Unbound {
    fn param(&self, _: u32, _: i64) -> Places {
        Places::ANY
    }
    fn symbol(&self, _: Symbol) -> Places {
        Places::ANY
    }
}

/// What a run for addresses may leave out of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idleness {
    /// Per instruction: it writes registers and none of them is needed.
    pub unneeded: Vec<bool>,
    /// Per instruction: a plain store some of whose values are not needed
    /// (it writes what a run for addresses did not compute), to places no
    /// needed load reads.
    pub stale_stores: Vec<bool>,
}

/// For each instruction of `func`, whether it writes registers and none of
/// them is needed (see the module docs), knowing nothing of the launch.
/// `pure[i]` says instruction `i` computes registers from registers and
/// nothing else: no memory, no control, no fault, no hidden state (a carry
/// flag). Instructions past `pure`'s end are not pure.
pub fn unneeded_results(func: &Function, pure: &[bool]) -> Vec<bool> {
    idle_results(func, pure, &Unbound).unneeded
}

/// [`unneeded_results`] for a launch that bound the kernel's pointers as
/// `bind` says: a store's values are needed only where a needed load may
/// read the places its address may reach, so a store to an output buffer
/// no needed load reads leaves its values uncomputed even where a table
/// read from another buffer feeds the addresses.
pub fn idle_results(func: &Function, pure: &[bool], bind: &dyn Bindings) -> Idleness {
    let insts = func.instructions.as_slice();
    let access: Vec<(Vec<usize>, Vec<usize>)> = insts
        .iter()
        .map(|inst| {
            let (defs, uses) = defs_and_uses(inst);
            let idx = |v: Vec<crate::ir::Reg>| v.into_iter().map(|r| r.index()).collect();
            (idx(defs), idx(uses))
        })
        .collect();
    let origins = origins(insts, &access, func.regs.len(), bind);
    let reach = |inst: &Instruction| -> Places {
        match address_of(inst) {
            Some(a) => address_places(a, &origins, bind),
            None => Places::ANY,
        }
    };
    // A copy from memory to memory (`cp.async`) can carry what a store
    // wrote into the places a needed load reads: then any place counts.
    let copies = insts.iter().any(copies_memory);
    let is_pure = |i: usize| pure.get(i).copied().unwrap_or(false);
    let mut needed = vec![false; func.regs.len()];
    let mark = |regs: &[usize], needed: &mut Vec<bool>| {
        let mut grew = false;
        for &r in regs {
            if let Some(n) = needed.get_mut(r)
                && !*n
            {
                *n = true;
                grew = true;
            }
        }
        grew
    };
    // The places needed loads may read.
    let mut read = Places::NONE;
    let store_needed = |inst: &Instruction, read: Places| reach(inst).0 & read.0 != 0;
    loop {
        let mut grew = false;
        for (i, inst) in insts.iter().enumerate() {
            let (defs, uses) = &access[i];
            let defines_needed = defs
                .iter()
                .any(|&r| needed.get(r).copied().unwrap_or(false));
            if is_pure(i) {
                if defines_needed {
                    grew |= mark(uses, &mut needed);
                }
                continue;
            }
            if let Some(address) = plain_store_address(inst) {
                let regs = if store_needed(inst, read) {
                    uses.as_slice()
                } else {
                    &address
                };
                grew |= mark(regs, &mut needed);
                continue;
            }
            grew |= mark(uses, &mut needed);
            if defines_needed {
                let mut places = read_places(inst, &reach);
                if copies && places != Places::NONE {
                    places = Places::ANY;
                }
                let more = Places(read.0 | places.0);
                if more != read {
                    read = more;
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let unneeded = access
        .iter()
        .map(|(defs, _)| {
            !defs.is_empty() && !defs.iter().any(|&r| needed.get(r).copied().unwrap_or(true))
        })
        .collect();
    let stale_stores = insts
        .iter()
        .zip(&access)
        .map(|(inst, (_, uses))| {
            plain_store_address(inst).is_some()
                && !uses
                    .iter()
                    .all(|&r| needed.get(r).copied().unwrap_or(false))
        })
        .collect();
    Idleness {
        unneeded,
        stale_stores,
    }
}

/// Per register, the places its values may point into, to a fixed point
/// over every definition (flow-insensitive, like the rest). A kernel
/// parameter's come from the launch; what memory other than a parameter
/// holds may point anywhere; anything else computed points where its
/// operands do (an index computed from thread ids points nowhere, a
/// pointer plus an index where the pointer does).
fn origins(
    insts: &[Instruction],
    access: &[(Vec<usize>, Vec<usize>)],
    regs: usize,
    bind: &dyn Bindings,
) -> Vec<Places> {
    let mut origin = vec![Places::NONE; regs];
    loop {
        let mut grew = false;
        for (inst, (defs, uses)) in insts.iter().zip(access) {
            if defs.is_empty() {
                continue;
            }
            let places = match param_load(inst) {
                Some((index, offset)) => bind.param(index, offset),
                None if loads_memory(inst) => Places::ANY,
                None => {
                    let mut p = uses
                        .iter()
                        .fold(0, |p, &r| p | origin.get(r).map_or(u64::MAX, |o| o.0));
                    for op in &inst.operands {
                        if let Operand::Symbol(s, _) = op {
                            p |= bind.symbol(*s).0;
                        }
                    }
                    Places(p)
                }
            };
            for &d in defs {
                if let Some(o) = origin.get_mut(d)
                    && o.0 | places.0 != o.0
                {
                    o.0 |= places.0;
                    grew = true;
                }
            }
        }
        if !grew {
            return origin;
        }
    }
}

/// `ld.param [param+offset]` of the kernel's own parameter.
fn param_load(inst: &Instruction) -> Option<(u32, i64)> {
    if class_of(inst) != InstClass::LdParam {
        return None;
    }
    match address_of(inst)? {
        Address {
            base: AddrBase::Symbol(Symbol::Param(i)),
            offset,
        } => Some((*i, *offset)),
        _ => None,
    }
}

/// Whether an instruction brings a value from memory (or from a place the
/// analysis does not follow) into its registers.
fn loads_memory(inst: &Instruction) -> bool {
    use InstClass::*;
    matches!(
        class_of(inst),
        LdGlobal
            | LdShared
            | LdLocal
            | LdParam
            | LdConst
            | LdGeneric
            | AtomGlobal
            | AtomShared
            | AtomGeneric
            | AsyncCopy
            | CallRet
            | Other
    )
}

/// The places a needed instruction may read what a store wrote from: its
/// address's for a load or an atomic, none for one that reads no writable
/// memory (arithmetic, a shuffle, a parameter or the constant bank), any
/// for the rest (a texture fetch, an `mbarrier` wait, a call's results).
fn read_places(inst: &Instruction, reach: &dyn Fn(&Instruction) -> Places) -> Places {
    use InstClass::*;
    match class_of(inst) {
        LdGlobal | LdShared | LdLocal | LdGeneric | AtomGlobal | AtomShared | AtomGeneric => {
            reach(inst)
        }
        AsyncCopy | CallRet | Other | StParam => Places::ANY,
        _ => Places::NONE,
    }
}

/// Whether an instruction copies memory to memory without registers
/// between (`cp.async`, its bulk forms, an `mbarrier` operation).
fn copies_memory(inst: &Instruction) -> bool {
    matches!(class_of(inst), InstClass::AsyncCopy | InstClass::Other) && address_of(inst).is_some()
}

/// An instruction's first memory operand.
fn address_of(inst: &Instruction) -> Option<&Address> {
    inst.operands.iter().find_map(|o| match o {
        Operand::Address(a) => Some(a),
        _ => None,
    })
}

/// The places an address may reach (any where it is built from no pointer).
fn address_places(a: &Address, origins: &[Places], bind: &dyn Bindings) -> Places {
    match a.base {
        AddrBase::Reg(r) => origins.get(r.index()).copied().unwrap_or(Places::ANY),
        AddrBase::Symbol(Symbol::Param(_) | Symbol::Return(_)) => Places::ANY,
        AddrBase::Symbol(s) => bind.symbol(s),
        AddrBase::Absolute => Places::ANY,
    }
    .as_address()
}

/// A plain `st` to global, shared, local or generic memory: the registers of
/// its address (and its guard), which are needed whatever it stores.
fn plain_store_address(inst: &Instruction) -> Option<Vec<usize>> {
    use InstClass::*;
    if inst.opcode != Opcode::St
        || !matches!(class_of(inst), StGlobal | StShared | StLocal | StGeneric)
    {
        return None;
    }
    let Some(Operand::Address(a)) = inst.operands.first() else {
        return None;
    };
    let mut regs: Vec<usize> = inst.guard.iter().map(|g| g.reg.index()).collect();
    if let crate::ir::AddrBase::Reg(r) = a.base {
        regs.push(r.index());
    }
    Some(regs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `body` as the body of a kernel (with `.reg` lines of its own),
    /// take arithmetic, moves, compares and conversions as pure, and check
    /// that the instructions with unneeded results are exactly those marked
    /// `// idle` (pure ones) and `// unread` (others: loads).
    fn check(body: &str) {
        check_with(body, &Unbound, false);
    }

    /// Parameter `k` of the test kernel points into place `places[k]`;
    /// every other variable anywhere.
    struct Bound(Vec<u32>);

    impl Bindings for Bound {
        fn param(&self, index: u32, _: i64) -> Places {
            self.0
                .get(index as usize)
                .map_or(Places::ANY, |&k| Places(1 << k))
        }
        fn symbol(&self, _: Symbol) -> Places {
            Places::ANY
        }
    }

    /// [`check`] for a launch that bound the kernel's two parameters `a`
    /// and `b` to places `places`, with the stores that write values not
    /// computed marked `// stale` too.
    fn check_bound(body: &str, places: [u32; 2]) {
        check_with(body, &Bound(places.to_vec()), true);
    }

    fn check_with(body: &str, bind: &dyn Bindings, stale: bool) {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 a, .param .u64 b)\n{{\n{body}\n}}\n"
        );
        let module = crate::parse("t.ptx", &text).expect("parses");
        let (_, func) = module
            .functions
            .iter()
            .find(|(_, f)| f.has_body)
            .expect("a kernel");
        let insts = func.instructions.as_slice();
        let pure: Vec<bool> = insts
            .iter()
            .map(|i| {
                use Opcode::*;
                matches!(
                    i.opcode,
                    Add | Sub | Mul | Mad | Fma | Mov | Setp | Cvt | Selp | And | Or | Shl
                )
            })
            .collect();
        let idle = idle_results(func, &pure, bind);
        let got: Vec<&str> = idle
            .unneeded
            .iter()
            .zip(&idle.stale_stores)
            .zip(&pure)
            .map(|((&u, &s), &p)| match (u, p) {
                _ if s && stale => "stale",
                (false, _) => "",
                (true, true) => "idle",
                (true, false) => "unread",
            })
            .collect();
        // The marked lines, in order, among the lines that hold an
        // instruction (ending in `;`, not a declaration).
        let want: Vec<&str> = body
            .lines()
            .map(str::trim)
            .filter(|l| l.contains(';') && !l.starts_with('.') && !l.starts_with("//"))
            .map(|l| l.split_once("// ").map_or("", |(_, m)| m.trim()))
            .collect();
        assert_eq!(want.len(), insts.len(), "instruction lines of\n{body}");
        let show = |v: &[&str]| -> Vec<String> {
            v.iter()
                .enumerate()
                .filter(|(_, m)| !m.is_empty())
                .map(|(i, m)| format!("{i} {m}"))
                .collect()
        };
        assert_eq!(show(&got), show(&want), "unneeded results of\n{body}");
    }

    #[test]
    fn values_only_stored_are_idle() {
        check(
            "  .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3]; // unread
  mul.f32 %f2, %f1, %f1; // idle
  fma.rn.f32 %f3, %f2, %f1, %f2; // idle
  st.global.f32 [%rd3], %f3;
  ret;",
        );
    }

    #[test]
    fn what_a_branch_reads_is_needed() {
        check(
            "  .reg .b64 %rd<3>; .reg .f32 %f<4>; .reg .b32 %r<2>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 0f3F800000;
  setp.gt.f32 %p1, %f2, 0f40000000;
  @%p1 bra DONE;
  mul.f32 %f3, %f2, %f2; // idle
  st.global.f32 [%rd1], %f3;
  // By name, not by definition: %f2 is needed where the compare reads it,
  // so its other definition, though only stored, is kept.
  mul.f32 %f2, %f2, %f2;
  st.global.f32 [%rd1], %f2;
DONE:
  ret;",
        );
    }

    #[test]
    fn a_load_that_decides_makes_every_stored_value_count() {
        // The loaded value decides the branch, and a store before it may
        // have written that value: stores' values are needed.
        check(
            "  .reg .b64 %rd<2>; .reg .f32 %f<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  mov.f32 %f3, 0f40000000;
  mul.f32 %f2, %f3, %f3;
  st.global.f32 [%rd1], %f2;
  ld.global.f32 %f1, [%rd1];
  setp.gt.f32 %p1, %f1, 0f00000000;
  @%p1 bra DONE;
DONE:
  ret;",
        );
    }

    #[test]
    fn a_guard_of_a_store_is_needed_and_its_value_is_not() {
        check(
            "  .reg .b64 %rd<2>; .reg .b32 %r<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 7;
  mul.lo.u32 %r2, %r1, 3; // idle
  @%p1 st.global.u32 [%rd1], %r2;
  ret;",
        );
    }

    #[test]
    fn stored_values_matter_once_a_load_feeds_an_address() {
        // The index read back from shared memory makes the second address:
        // what was stored there must be computed, and so its inputs.
        check(
            "  .reg .b64 %rd<5>; .reg .b32 %r<5>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 5;
  st.shared.u32 [s], %r2;
  ld.shared.u32 %r3, [s];
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r4, [%rd3]; // unread
  ret;",
        );
    }

    #[test]
    fn parameters_read_into_addresses_keep_stores_idle() {
        // A pointer from a kernel parameter is needed, but nothing a store
        // writes can reach it: the stored product stays idle.
        check(
            "  .reg .b64 %rd<3>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x; // idle
  mul.lo.u32 %r2, %r1, %r1; // idle
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd2], %r2;
  ret;",
        );
    }

    #[test]
    fn a_loop_carried_value_is_needed_through_every_definition() {
        // %r1 counts the loop (needed by the branch); %f1 accumulates and is
        // only stored.
        check(
            "  .reg .b64 %rd<2>; .reg .b32 %r<3>; .reg .f32 %f<3>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, 0;
  mov.f32 %f1, 0f00000000; // idle
LOOP:
  ld.global.f32 %f2, [%rd1]; // unread
  fma.rn.f32 %f1, %f2, %f2, %f1; // idle
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra LOOP;
  st.global.f32 [%rd1], %f1;
  ret;",
        );
    }

    #[test]
    fn an_instruction_that_always_runs_needs_its_operands() {
        // The atomic's operand is needed though it is only added (the old
        // value it returns is not: the caller still runs the atomic).
        check(
            "  .reg .b64 %rd<2>; .reg .b32 %r<4>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  atom.global.add.u32 %r3, [%rd1], %r2; // unread
  ret;",
        );
    }

    /// The dedispersion's shape: a shift read from `b` feeds the address of
    /// a load from `a`, whose values are only summed and stored to `a`.
    /// Marked as where `a` and `b` are two buffers.
    const TABLE: &str = "  .reg .b64 %rd<8>; .reg .f32 %f<5>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.rzi.u32.f32 %r2, %f1;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.f32 %f2, [%rd6]; // unread
  add.f32 %f3, %f2, %f2; // idle
  add.s64 %rd7, %rd1, %rd3;
  st.global.f32 [%rd7], %f3; // stale
  ret;";

    /// [`TABLE`] without its marks: every value computed.
    fn unmarked(body: &str) -> String {
        body.lines()
            .map(|l| l.split_once(" //").map_or(l, |(code, _)| code))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_table_in_another_buffer_leaves_stored_values_uncomputed() {
        // No needed load reads `a`: the sum is idle and the store writes
        // what was not computed.
        check_bound(TABLE, [0, 1]);
    }

    #[test]
    fn parameters_that_alias_make_stored_values_count() {
        // Both parameters point into one buffer, so what is stored may be
        // read back as a shift.
        check_bound(&unmarked(TABLE), [0, 0]);
    }

    #[test]
    fn unbound_parameters_make_stored_values_count() {
        check(&unmarked(TABLE));
    }

    #[test]
    fn a_pointer_read_from_memory_may_point_anywhere() {
        // The store's address is loaded, so it may reach `b`, whose
        // values feed an address: the stored value is needed.
        check_bound(
            "  .reg .b64 %rd<6>; .reg .b32 %r<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u64 %rd3, [%rd1];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 7;
  st.global.u32 [%rd3], %r2;
  ld.global.u32 %r3, [%rd2];
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r1;
  ret;",
            [0, 1],
        );
    }

    #[test]
    fn an_address_built_from_no_pointer_may_reach_anything() {
        // `[%rd3]` is made of a thread index alone: where it points is not
        // followed, so a needed load through it may read what `a` holds.
        check_bound(
            "  .reg .b64 %rd<6>; .reg .b32 %r<4>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 7;
  st.global.u32 [%rd1], %r2;
  cvt.u64.u32 %rd3, %r1;
  ld.global.u32 %r3, [%rd3];
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r1;
  ret;",
            [0, 1],
        );
    }
}
