//! [`BankMemo`]: the bank conflicts of an instruction's last access, reused
//! when its next access has the same shape.
//!
//! A kernel's inner loop repeats its shared accesses with every address
//! moved by the same amount (a tile's next row, the next warp's rows), and
//! the bank conflicts of an access depend only on which words its lanes
//! share and on each word's bank: moved by a multiple of a row of banks
//! (`banks` x 4 bytes), an access costs what it did. So each of a few
//! slots keeps, for one instruction, the active lanes, the size, every
//! active lane's address less the first active lane's, and the first's
//! offset within a row; an access that matches them takes the stored
//! counts instead of counting again ([`crate::banks::bank_conflicts`], 100
//! to 200 ns for the two or three layouts an access is counted in; the
//! comparison is some 32 subtractions). Test `the_memo_agrees_with_counting`
//! holds it to the count on random accesses, moved and not.

use emu::simt::{Mask, WARP_SIZE};

use crate::banks::{BANK_WORD_BYTES, BankConflicts, BankLayout, bank_conflicts};

/// Instructions remembered at once. A loop body's memory instructions
/// rarely share a slot; when two do, each counts afresh.
const SLOTS: usize = 64;

/// Addresses at or above this are counted every time: near the top of
/// the address space a word's end saturates, and moving the access is no
/// longer exact.
const HIGH_ADDRESS: u64 = 1 << 62;

/// The last access of up to [`SLOTS`] instructions and what it cost in
/// each of `K` layouts.
pub struct BankMemo<const K: usize> {
    slots: Box<[Slot<K>]>,
    /// Accesses answered from a slot and counted afresh (for benchmarks
    /// and tests).
    pub hits: u64,
    pub misses: u64,
}

#[derive(Clone, Copy)]
struct Slot<const K: usize> {
    /// The instruction's key plus one; 0 marks an empty slot.
    tag: u64,
    active: Mask,
    size: u32,
    layouts: [BankLayout; K],
    /// The first active lane's address within a row of the widest layout.
    phase: u64,
    /// Each active lane's address less the first active lane's; 0 for the
    /// others.
    deltas: [u64; WARP_SIZE],
    costs: [BankConflicts; K],
}

impl<const K: usize> std::fmt::Debug for BankMemo<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BankMemo")
            .field("hits", &self.hits)
            .field("misses", &self.misses)
            .finish_non_exhaustive()
    }
}

impl<const K: usize> Default for BankMemo<K> {
    fn default() -> Self {
        BankMemo {
            slots: vec![
                Slot {
                    tag: 0,
                    active: 0,
                    size: 0,
                    layouts: [BankLayout::WARP32; K],
                    phase: 0,
                    deltas: [0; WARP_SIZE],
                    costs: [BankConflicts::default(); K],
                };
                SLOTS
            ]
            .into_boxed_slice(),
            hits: 0,
            misses: 0,
        }
    }
}

impl<const K: usize> BankMemo<K> {
    /// The bank conflicts of the access in each of `layouts`, as
    /// [`bank_conflicts`] counts them; `key` names the instruction (any
    /// number that differs between instructions whose accesses differ in
    /// shape; a collision costs a count, never a wrong answer).
    pub fn costs(
        &mut self,
        key: u64,
        layouts: [BankLayout; K],
        active: Mask,
        addrs: &[u64; WARP_SIZE],
        size: u32,
    ) -> [BankConflicts; K] {
        let count = || layouts.map(|l| bank_conflicts(l, active, addrs, size));
        // Moving an access keeps its banks only for power-of-two bank
        // counts (the address space wraps at a power of two).
        let mut row_bytes = 1u64;
        for l in &layouts {
            if !l.banks.is_power_of_two() {
                return count();
            }
            row_bytes = row_bytes.max(u64::from(l.banks) * BANK_WORD_BYTES);
        }
        if active == 0 {
            return count();
        }
        let first = addrs[active.trailing_zeros() as usize];
        let mut deltas = [0u64; WARP_SIZE];
        let mut high = 0u64;
        for l in 0..WARP_SIZE {
            let on = (active >> l) & 1 != 0;
            deltas[l] = if on { addrs[l].wrapping_sub(first) } else { 0 };
            high |= if on { addrs[l] } else { 0 };
        }
        if high >= HIGH_ADDRESS {
            return count();
        }
        let phase = first & (row_bytes - 1);
        let tag = key.wrapping_add(1).max(1);
        let slot = &mut self.slots[(key as usize ^ (key >> 16) as usize) % SLOTS];
        if slot.tag == tag
            && slot.active == active
            && slot.size == size
            && slot.phase == phase
            && slot.layouts == layouts
            && slot.deltas == deltas
        {
            self.hits += 1;
            return slot.costs;
        }
        self.misses += 1;
        let costs = count();
        *slot = Slot {
            tag,
            active,
            size,
            layouts,
            phase,
            deltas,
            costs,
        };
        costs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo against counting: random accesses of every width and
    /// spread, each repeated moved by a multiple of a row (a hit), by a
    /// word (a miss: the banks change) and not moved, over a few keys that
    /// share slots.
    #[test]
    fn the_memo_agrees_with_counting() {
        let mut rng = prng::Rng::new(0x5DEE_CE66_D1CE_4E5Bu64);
        let mut next = move || rng.next_u64();
        let mut memo = BankMemo::<2>::default();
        for case in 0..20_000u64 {
            let spread = [16u64, 256, 4096, 9000, 1 << 20][(case % 5) as usize];
            let size = [1u32, 2, 4, 8, 12, 16][((case / 5) % 6) as usize];
            let layouts = [BankLayout::WARP32.for_width(size), BankLayout::HALF_WARP16];
            let active = if case % 3 == 0 { next() as Mask } else { !0 };
            let base = next() % (1 << 40);
            let mut addrs: [u64; WARP_SIZE] = std::array::from_fn(|_| base + next() % spread);
            let key = next() % 200;
            for shift in [0u64, 128 * (next() % 64), 4, 128, 0, 64] {
                for a in &mut addrs {
                    *a += shift;
                }
                let want = layouts.map(|l| bank_conflicts(l, active, &addrs, size));
                assert_eq!(
                    memo.costs(key, layouts, active, &addrs, size),
                    want,
                    "size {size} shift {shift} {addrs:?}"
                );
            }
        }
        assert!(memo.hits > 20_000, "{memo:?}");
        assert!(memo.misses > 40_000, "{memo:?}");
    }

    #[test]
    fn a_moved_row_is_a_hit_and_a_moved_word_is_not() {
        let mut memo = BankMemo::<1>::default();
        let layouts = [BankLayout::WARP32];
        let column =
            |base: u64| -> [u64; WARP_SIZE] { std::array::from_fn(|l| base + 8 * l as u64) };
        let two_ways = [BankConflicts { ways: 2, passes: 2 }];
        assert_eq!(memo.costs(7, layouts, !0, &column(0), 4), two_ways);
        assert_eq!(memo.costs(7, layouts, !0, &column(256), 4), two_ways);
        assert_eq!((memo.hits, memo.misses), (1, 1));
        // Moved by a word: the same cost, but the memo cannot know it.
        assert_eq!(memo.costs(7, layouts, !0, &column(260), 4), two_ways);
        assert_eq!((memo.hits, memo.misses), (1, 2));
        // Another instruction in the same slot, then the first again.
        assert_eq!(
            memo.costs(7 + SLOTS as u64, layouts, !0, &column(0), 4),
            two_ways
        );
        assert_eq!(memo.costs(7, layouts, !0, &column(0), 4), two_ways);
        assert_eq!((memo.hits, memo.misses), (1, 4));
        // High addresses are always counted.
        let high = column(HIGH_ADDRESS);
        memo.costs(9, layouts, !0, &high, 4);
        memo.costs(9, layouts, !0, &high, 4);
        assert_eq!((memo.hits, memo.misses), (1, 4));
    }
}
