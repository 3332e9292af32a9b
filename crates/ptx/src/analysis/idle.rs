//! The instructions whose results no address, branch or other effect reads:
//! what a run that only wants a kernel's memory addresses (the L2 warm-up of
//! a sample's neighbours) may leave uncomputed.
//!
//! A register is *needed* when an instruction that always executes reads it
//! (an address base, a branch or guard predicate, an atomic's operand, a
//! shuffle's source: every operand of every instruction the caller does not
//! mark pure), or when a pure instruction that writes a needed register
//! reads it, to a fixed point. A store's value is the exception: what it
//! writes matters only if a load brings it back into a needed register, so
//! stores' values are needed only when some load from writable memory (not
//! a kernel parameter or the constant bank) defines a needed register. The
//! analysis is flow-insensitive over register names (a register written in
//! two places is needed at both), so it can only keep too much.
//!
//! An instruction that writes registers none of which is needed has
//! *unneeded results*: they flow only into other such instructions and
//! into the values that stores write and nothing needed reads back. A pure
//! one may be skipped, and a load's data left unread (its address and its
//! request stay), without changing any address, branch or instruction count.

use crate::analysis::ilp::defs_and_uses;
use crate::analysis::mix::{InstClass, class_of};
use crate::ir::{Function, Instruction, Opcode, Operand};

/// For each instruction of `func`, whether it writes registers and none of
/// them is needed (see the module docs). `pure[i]` says instruction `i`
/// computes registers from registers and nothing else: no memory, no
/// control, no fault, no hidden state (a carry flag). Instructions past
/// `pure`'s end are not pure.
pub fn unneeded_results(func: &Function, pure: &[bool]) -> Vec<bool> {
    let insts = func.instructions.as_slice();
    let access: Vec<(Vec<usize>, Vec<usize>)> = insts
        .iter()
        .map(|inst| {
            let (defs, uses) = defs_and_uses(inst);
            let idx = |v: Vec<crate::ir::Reg>| v.into_iter().map(|r| r.index()).collect();
            (idx(defs), idx(uses))
        })
        .collect();
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
    let mut stores_needed = false;
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
                let regs = if stores_needed {
                    uses.as_slice()
                } else {
                    &address
                };
                grew |= mark(regs, &mut needed);
                continue;
            }
            grew |= mark(uses, &mut needed);
            if defines_needed && !stores_needed && reads_writable_memory(inst) {
                stores_needed = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    access
        .iter()
        .map(|(defs, _)| {
            !defs.is_empty() && !defs.iter().any(|&r| needed.get(r).copied().unwrap_or(true))
        })
        .collect()
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

/// Whether an instruction that always runs may bring into a register what a
/// store wrote: anything but a load of a kernel parameter or the constant
/// bank (a shuffle or a vote counts too: kept simple, it can only keep more).
fn reads_writable_memory(inst: &Instruction) -> bool {
    !matches!(class_of(inst), InstClass::LdParam | InstClass::LdConst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `body` as the body of a kernel (with `.reg` lines of its own),
    /// take arithmetic, moves, compares and conversions as pure, and check
    /// that the instructions with unneeded results are exactly those marked
    /// `// idle` (pure ones) and `// unread` (others: loads).
    fn check(body: &str) {
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
        let got: Vec<&str> = unneeded_results(func, &pure)
            .iter()
            .zip(&pure)
            .map(|(&u, &p)| match (u, p) {
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
}
