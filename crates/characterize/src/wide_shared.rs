//! Which shared-memory accesses ptxas issues as one wider access.
//!
//! NVRTC writes a thread's reads of neighbouring shared words as separate
//! 32-bit `ld.shared` (CLBlast's Xgemm reads `[%rd51+-16]`, `[%rd51+-12]`,
//! ..., `[%rd51+12]` in one block). ptxas merges such a run into `LDS.64` or
//! `LDS.128` where it can prove the address aligned. Nsight Compute on the
//! H200 (data/measured/h200-sxm-141gb, "Fourth loan") counts 2 to 4 times
//! fewer shared load requests than the PTX has in those builds, and fewer
//! wavefronts in all: a warp's 128-bit access of 32 lanes reading 4 distinct
//! 16-byte words takes 1 pass, where the four 32-bit loads it replaces take
//! one each.
//!
//! The groups are found here, statically, by the rule ptxas follows as far
//! as PTX shows it: accesses of one basic block, same direction, same base
//! (register or symbol), same per-lane size (4 or 8 bytes), unguarded and
//! without memory semantics (`.volatile`, `.relaxed`, ...), whose immediate
//! offsets fill an 8- or 16-byte window starting at a multiple of its width
//! from the base, with nothing between them that could order them (a
//! barrier, fence, call, atomic, an access of the other direction to shared
//! or generic memory) or that writes the base register. Whether the window
//! is aligned is checked when its first access runs ([`crate::collector`]):
//! ptxas proves it from the address arithmetic, the collector sees it in
//! every active lane's address. On 32 sampled CLBlast Xgemm builds the
//! merged requests per word equal those of ptxas 12.9's SASS for sm_75 in
//! 29 and are more in 3, where ptxas knew the base to be 8 bytes past a
//! multiple of 16 and merged the window there; taking every aligned window
//! of a run instead (any offset) merged more than ptxas did in 4 of the 5
//! builds compared by hand.

use std::collections::BTreeMap;

use emu::observer::MemEvent;
use emu::simt::{Mask, WARP_SIZE, lanes};
use ptx::analysis::{Cfg, InstClass, class_of};
use ptx::{AddrBase, Instruction, Opcode, Operand, StateSpace};

/// Accesses ptxas issues as one: their program counters (the first in
/// program order decides), and the bytes per lane the merged access covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WideGroup {
    /// Members' program counters, ascending; `len` of them are used.
    pub members: [u32; 4],
    pub len: u8,
    /// Bytes per lane of the merged access (8 or 16), and its alignment.
    pub width: u8,
}

impl WideGroup {
    /// The member that runs first and decides.
    pub fn lead(&self) -> u32 {
        self.members[0]
    }

    pub fn members(&self) -> &[u32] {
        &self.members[..usize::from(self.len)]
    }
}

/// An access's place in a group: the group (an index into the function's
/// groups) and the bytes from the group's window start to this access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WideSlot {
    pub group: u32,
    pub delta: u8,
}

/// The windows an access may be merged in: the 16-byte one (four 32-bit
/// accesses, or two 64-bit ones), then the 8-byte one inside it (two 32-bit
/// accesses), which applies where the wider window is not aligned.
pub type WideSlots = [Option<WideSlot>; 2];

/// Direction of a shared access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    Load,
    Store,
}

/// A run's key: direction, base and bytes per lane.
type RunKey = (Dir, AddrBase, u32);

/// Accesses of one direction, base and size seen so far in a block, as
/// `(pc, offset)`, in the order the runs began (a few per block: a list).
type Runs = Vec<(RunKey, Vec<(u32, i64)>)>;

/// Ends the runs `ends` picks: forms their groups and drops them.
fn flush_where(
    runs: &mut Runs,
    ends: impl Fn(&RunKey) -> bool,
    groups: &mut Vec<WideGroup>,
    slots: &mut [WideSlots],
) {
    let mut kept = Vec::with_capacity(runs.len());
    for (key, run) in runs.drain(..) {
        if ends(&key) {
            flush(key.2, &run, groups, slots);
        } else {
            kept.push((key, run));
        }
    }
    *runs = kept;
}

/// The groups of one function and every instruction's slots in them
/// (indexed by program counter).
pub fn function_groups(
    insts: &[&Instruction],
    cfg: Option<&Cfg>,
) -> (Vec<WideGroup>, Vec<WideSlots>) {
    let mut groups = Vec::new();
    let mut slots = vec![[None; 2]; insts.len()];
    let Some(cfg) = cfg else {
        return (groups, slots);
    };
    let mut runs: Runs = Vec::new();
    for block in &cfg.blocks {
        for pc in block.start..block.end {
            let inst = insts[pc as usize];
            if let Some((dir, base, size, offset)) = candidate(inst) {
                // The other direction's runs end here (ptxas keeps loads
                // and stores of shared memory in order); so does, below,
                // any run whose base this instruction writes (a load into
                // its own base register ends the run after it joins).
                flush_where(&mut runs, |k| k.0 != dir, &mut groups, &mut slots);
                let key = (dir, base, size);
                match runs.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, run)) => run.push((pc, offset)),
                    None => runs.push((key, vec![(pc, offset)])),
                }
            } else if orders_shared(inst) {
                flush_where(&mut runs, |_| true, &mut groups, &mut slots);
            }
            if !runs.is_empty() {
                flush_where(
                    &mut runs,
                    |(_, b, _)| matches!(b, AddrBase::Reg(r) if writes_reg(inst, *r)),
                    &mut groups,
                    &mut slots,
                );
            }
        }
        flush_where(&mut runs, |_| true, &mut groups, &mut slots);
    }
    (groups, slots)
}

/// A shared access that may merge: its direction, base, bytes per lane and
/// offset.
fn candidate(inst: &Instruction) -> Option<(Dir, AddrBase, u32, i64)> {
    let dir = match class_of(inst) {
        InstClass::LdShared if inst.opcode == Opcode::Ld => Dir::Load,
        InstClass::StShared if inst.opcode == Opcode::St => Dir::Store,
        // ldmatrix, stmatrix and wmma fragments are shared accesses of their
        // own shape, never merged.
        _ => return None,
    };
    if inst.guard.is_some() || inst.mods.sem.is_some() {
        return None;
    }
    let elem = inst.ty()?.bytes();
    let size = elem * inst.mods.vec.map_or(1, |v| v.lanes());
    if !matches!(size, 4 | 8) {
        return None;
    }
    let addr = inst.operands.iter().find_map(|o| match o {
        Operand::Address(a) => Some(*a),
        _ => None,
    })?;
    if matches!(addr.base, AddrBase::Absolute) {
        return None;
    }
    Some((dir, addr.base, size, addr.offset))
}

/// Does `inst` order shared accesses around it (so none merge across it)?
/// Barriers, fences, calls, atomics, and generic loads and stores (which
/// may address shared memory).
fn orders_shared(inst: &Instruction) -> bool {
    use Opcode::*;
    matches!(
        inst.opcode,
        Bar | Barrier | Membar | Fence | Call | Atom | Red | Ret | Exit | Trap
    ) || (matches!(inst.opcode, Ld | St | Ldu)
        && matches!(inst.mods.space, None | Some(StateSpace::Generic)))
        || matches!(class_of(inst), InstClass::LdShared | InstClass::StShared)
}

/// Does `inst` write register `r`?
fn writes_reg(inst: &Instruction, r: ptx::Reg) -> bool {
    crate::static_info::writes(inst, r)
}

/// Groups of one run of `size`-byte accesses at `(pc, offset)`: windows of
/// 16 bytes (and, for 4-byte accesses, 8) starting at offsets that are
/// multiples of the window, every word of which one access covers.
fn flush(size: u32, run: &[(u32, i64)], groups: &mut Vec<WideGroup>, slots: &mut [WideSlots]) {
    if run.len() < 2 {
        return;
    }
    // The first access of each offset (a repeated read of one word is not
    // part of the vector).
    let mut at: BTreeMap<i64, u32> = BTreeMap::new();
    for &(pc, offset) in run {
        at.entry(offset).or_insert(pc);
    }
    let widths: &[u32] = if size == 4 { &[16, 8] } else { &[16] };
    let starts: Vec<i64> = at.keys().copied().collect();
    for (level, &width) in widths.iter().enumerate() {
        let per = width / size;
        for &start in &starts {
            // Windows at multiples of their width from the base: ptxas
            // merges where it can prove the address aligned, which it does
            // from the base's alignment (its other windows stay apart in
            // the SASS of the builds compared).
            if start.rem_euclid(i64::from(width)) != 0 {
                continue;
            }
            let pcs: Option<Vec<u32>> = (0..i64::from(per))
                .map(|k| at.get(&(start + k * i64::from(size))).copied())
                .collect();
            let Some(mut pcs) = pcs else { continue };
            let deltas: Vec<(u32, u8)> = pcs
                .iter()
                .enumerate()
                .map(|(k, &pc)| (pc, (k as u32 * size) as u8))
                .collect();
            pcs.sort_unstable();
            let mut members = [0; 4];
            members[..pcs.len()].copy_from_slice(&pcs);
            let group = groups.len() as u32;
            groups.push(WideGroup {
                members,
                len: pcs.len() as u8,
                width: width as u8,
            });
            // A 4-byte access is in at most one 16-byte and one 8-byte
            // window; an 8-byte access in one 16-byte window.
            let slot = if size == 4 { level } else { 0 };
            for (pc, delta) in deltas {
                slots[pc as usize][slot] = Some(WideSlot { group, delta });
            }
        }
    }
}

/// How the collector counts one shared access ([`Pending::access`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// On its own, as the PTX has it.
    Single,
    /// As the first of a group: one access of this many bytes per lane, at
    /// the addresses written to the caller's buffer.
    Merged(u32),
    /// A later member of a group already counted.
    Covered,
}

/// Most group members one warp can have outstanding: the three others of a
/// 16-byte group, with room for groups begun and left unfinished.
const PENDING: usize = 8;

/// Per warp of the running CTA: the members of merged groups that have not
/// run yet, as (function, pc, active lanes, group). Fixed-size: nothing is
/// allocated per access.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pending {
    entries: [(u32, u32, Mask, u32); PENDING],
    len: usize,
}

impl Pending {
    /// Decides how access `e` counts, with its slots `wide` in its
    /// function's groups (`group(index)`); writes a merged access's
    /// addresses (each lane's window start) to `out`.
    pub(crate) fn access<'g>(
        &mut self,
        e: &MemEvent<'_>,
        wide: &WideSlots,
        group: impl Fn(u32) -> Option<&'g WideGroup>,
        out: &mut [u64; WARP_SIZE],
    ) -> Wide {
        let (func, pc, active, addrs) = (e.site.func, e.site.pc, e.active, e.addrs);
        if let Some(i) = self.entries[..self.len]
            .iter()
            .position(|&(f, p, m, _)| f == func && p == pc && m == active)
        {
            self.entries[i] = self.entries[self.len - 1];
            self.len -= 1;
            return Wide::Covered;
        }
        for slot in wide.iter().flatten() {
            let Some(g) = group(slot.group) else { continue };
            if g.lead() != pc {
                continue;
            }
            self.forget(func, slot.group);
            let width = u64::from(g.width);
            let delta = u64::from(slot.delta);
            let aligned = lanes(active)
                .all(|l| addrs[l] >= delta && (addrs[l] - delta).is_multiple_of(width));
            if !aligned {
                continue;
            }
            for l in lanes(active) {
                out[l] = addrs[l] - delta;
            }
            for &m in &g.members()[1..] {
                if self.len == PENDING {
                    // Oldest first out: a group left unfinished long ago.
                    self.entries.copy_within(1.., 0);
                    self.len -= 1;
                }
                self.entries[self.len] = (func, m, active, slot.group);
                self.len += 1;
            }
            return Wide::Merged(u32::from(g.width));
        }
        Wide::Single
    }

    /// Drops what group `group` of `func` left outstanding (it starts
    /// again; another group's members stay).
    fn forget(&mut self, func: u32, group: u32) {
        let mut kept = 0;
        for i in 0..self.len {
            let (f, _, _, g) = self.entries[i];
            if !(f == func && g == group) {
                self.entries[kept] = self.entries[i];
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Nothing outstanding (a new CTA).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}
