//! Registers per thread, the occupancy calculator's main input: from ptxas
//! when it is installed, else estimated from the PTX.
//!
//! The estimate ([`estimate_registers`]) is deliberately simple and is
//! labelled as such wherever it is shown: every register the kernel's body
//! declares (`.reg .f32 %f<12>;` is 12 registers), weighted to 32-bit slots
//! (8/16/32-bit registers take one slot, 64-bit two, a `.v4 .f32` four),
//! predicates excluded (they live in a separate predicate file), capped at
//! the ISA maximum of 255. PTX registers are virtual and NVRTC gives nearly
//! every value its own, so this is an UPPER BOUND: ptxas usually allocates far
//! fewer. A callee's registers are not added (ptxas allocates per function
//! and the ABI saves across calls).

use ptx::ir::{Function, Type};

/// The most registers a thread may use on any architecture since CC 3.5.
pub const ISA_MAX_REGISTERS: u32 = 255;

/// Upper-bound register estimate for `func` (see the module doc).
pub fn estimate_registers(func: &Function) -> u32 {
    let mut slots: u64 = 0;
    for (_, r) in func.regs.iter() {
        if r.ty == Type::Pred {
            continue;
        }
        let lanes = u64::from(r.vec.map_or(1, |v| v.lanes()));
        let per_lane = u64::from(r.ty.bits().div_ceil(32).max(1));
        slots = slots.saturating_add(lanes * per_lane);
    }
    u32::try_from(slots)
        .unwrap_or(u32::MAX)
        .min(ISA_MAX_REGISTERS)
}

/// Registers of `entry` (mangled name) as ptxas reports them for `sm`, or
/// `None` when ptxas is not installed, fails, or does not list the entry.
pub fn ptxas_registers(ptx: &str, sm: &str, entry: &str) -> Option<(u32, u64)> {
    let kernels = arch::ptxas::ptxas_resources(None, ptx, sm).ok()?;
    kernels
        .iter()
        .find(|k| k.name == entry)
        .map(|k| (k.registers, k.shared_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str, expected: u32) {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
        );
        let module = match ptx::parse("t.ptx", &text) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render("t.ptx", &text)),
        };
        let func = module.entries().next().map(|(_, f)| f);
        let Some(func) = func else {
            panic!("no entry parsed")
        };
        assert_eq!(estimate_registers(func), expected, "for {body:?}");
    }

    #[test]
    fn counts_32_bit_slots() {
        check(".reg .f32 %f<4>;", 4);
        check(".reg .b32 %r<3>;\n.reg .f32 %f<2>;", 5);
    }

    #[test]
    fn wide_and_narrow_registers() {
        check(".reg .b64 %rd<3>;", 6);
        check(".reg .b16 %rs<5>;", 5);
        check(".reg .f64 %fd<2>;\n.reg .b8 %c<1>;", 5);
    }

    #[test]
    fn predicates_are_not_counted() {
        check(".reg .pred %p<9>;\n.reg .b32 %r<2>;", 2);
    }

    #[test]
    fn capped_at_the_isa_maximum() {
        check(".reg .b64 %rd<400>;", ISA_MAX_REGISTERS);
    }

    #[test]
    fn no_registers_gives_zero() {
        check("", 0);
    }
}
