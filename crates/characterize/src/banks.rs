//! Shared-memory bank conflicts.
//!
//! Shared memory is split into banks of 4-byte words; word `w` lives in bank
//! `w mod banks`. Lanes that touch the same word do not conflict (the
//! broadcast rule for loads; for stores one write wins), lanes that touch
//! different words of one bank are served one after another. The conflict
//! *ways* of an access is the number of distinct words requested from the
//! busiest bank: 1 is conflict free, `n` means an `n`-fold serialisation.
//!
//! Two layouts: [`BankLayout::WARP32`] (32 banks, the whole warp at once:
//! compute capability 2.x and later) and [`BankLayout::HALF_WARP16`] (16 banks,
//! each half-warp separately: compute capability 1.x, the GTX 280 of seed 000's
//! Appendix B.2 experiment). An access wider than a word (8 or 16 bytes per
//! lane) touches several consecutive words, each counted in its own bank.

use emu::simt::{Mask, WARP_SIZE};

/// Bytes of a bank word.
pub const BANK_WORD_BYTES: u64 = 4;

/// How shared memory is banked, and which lanes are served together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BankLayout {
    /// Number of banks.
    pub banks: u32,
    /// Lanes served together: 32 (warp) or 16 (half-warp).
    pub group: u32,
    /// Neighbouring groups each served in one pass share that pass when
    /// their words fit it together (the phases of a wide access,
    /// [`BankLayout::for_width`]).
    pub pair_phases: bool,
}

impl BankLayout {
    /// 32 banks, a warp at a time.
    pub const WARP32: BankLayout = BankLayout {
        banks: 32,
        group: 32,
        pair_phases: false,
    };
    /// 16 banks, a half-warp at a time.
    pub const HALF_WARP16: BankLayout = BankLayout {
        banks: 16,
        group: 16,
        pair_phases: false,
    };

    /// The layout that serves accesses of `size` bytes per lane: one bank
    /// word per bank and pass, so a warp whose lanes each want more than a
    /// word is served in phases of as many lanes as one pass of the banks
    /// holds (`banks x 4 / size`): half-warps for 64-bit accesses,
    /// quarter-warps for 128-bit ones. Conflicts count within a phase, and
    /// lanes of different phases that want the same word each take a pass.
    ///
    /// Sources: the CUDA C Programming Guide's compute capability 2.x
    /// shared-memory section (64-bit accesses by half-warp, 128-bit by
    /// quarter-warp; recalled, not re-read); an NVIDIA engineer's forum
    /// answer that the L1/shared return path moves one register of a warp,
    /// 128 B, per cycle, so an LDS.128 takes 4 requests whatever its
    /// addresses (forums.developer.nvidia.com/t/unexpected-shared-memory-
    /// bank-conflict/77228/2); the usual analysis of float4 shared loads as
    /// four phases of 8 lanes (xlite-dev/LeetCUDA issue 399). The phase
    /// rule was first an assumption checked against CLBlast's GEMM times on
    /// four GPUs (docs/timing-model.md, "Wide accesses by phase"), then
    /// measured on an H200 with Nsight Compute: the GEMM's float4 shared
    /// loads with 4-way conflicts in each quarter-warp take 16 wavefronts,
    /// its global loads of the same pattern too (docs/timing-model.md,
    /// "The L1 data stage").
    pub fn for_width(self, size: u32) -> BankLayout {
        let pass_bytes = self.banks.saturating_mul(BANK_WORD_BYTES as u32);
        let lanes = (pass_bytes / size.max(1)).clamp(1, self.group.max(1));
        BankLayout {
            banks: self.banks,
            group: lanes,
            pair_phases: lanes < self.group,
        }
    }

    /// This layout with every phase in passes of its own (a global load's
    /// data through L1: Nsight Compute shows no pair of phases sharing a
    /// pass, as a shared load's do).
    pub fn unpaired(self) -> BankLayout {
        BankLayout {
            pair_phases: false,
            ..self
        }
    }
}

/// What one warp-wide shared-memory access costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BankConflicts {
    /// The largest number of distinct words any bank serves in one group (0 when no lane is active).
    pub ways: u32,
    /// Sum over groups of their ways: the serialised passes the access takes.
    pub passes: u32,
}

/// Words of one group held on the stack; wider accesses use the heap. 160
/// holds a warp of 16-byte lanes, each misaligned (5 words): the widest
/// access a kernel makes, and small enough to zero on every call (global
/// loads whose lanes lie rows of a matrix apart come here, 512 cost a
/// 4 KiB memset each).
const INLINE_WORDS: usize = 160;
/// Banks counted on the stack; more banks use the heap.
const INLINE_BANKS: usize = 64;
/// Rows of the fast path's word grid: a group whose words span fewer than
/// this many rows of `banks` words (2,048 words, 8 KiB, at 16 banks; 4,096
/// at 32: every access of the kernels we validate) is counted without
/// sorting.
const MAX_ROWS: usize = 128;
/// Bits of a bank counter in the fast path: counts up to `MAX_ROWS`.
const COUNTER_BITS: usize = 8;

/// Bank conflicts of one access of `size` bytes per lane by the lanes of `active`.
///
/// Every shared access of an emulated kernel comes here, two or three times
/// (both layouts, and a global load's data through L1), so the usual case
/// avoids sorting and per-word loops: the words a group touches are laid
/// out as rows of `banks` bits from a multiple of the bank count, so a
/// word's bank is its bit in its row and each set bit is one distinct
/// word; the busiest bank's count is then a column sum, taken for every
/// bank at once with bit-sliced counters. A group spread over more than
/// [`MAX_ROWS`] rows, or a bank count that is not a power of two up to 64,
/// falls back to sorting its words (the two agree: test
/// `the_rows_agree_with_sorting`).
pub fn bank_conflicts(
    layout: BankLayout,
    active: Mask,
    addrs: &[u64; WARP_SIZE],
    size: u32,
) -> BankConflicts {
    let banks = layout.banks;
    if !banks.is_power_of_two() || banks as usize > INLINE_BANKS {
        return bank_conflicts_by_sorting(layout, active, addrs, size);
    }
    by_phase(layout, |start, end| {
        let lanes = Lanes::of(active, addrs, size, start..end);
        row_ways(banks, lanes).unwrap_or_else(|| sorted_ways(banks, lanes))
    })
}

/// The cost of an access whose lanes `start..end` take `ways(start, end)`
/// passes when served together: by groups of `layout.group` lanes, each
/// group's ways one after another. Where the layout pairs phases (a wide
/// access, [`BankLayout::for_width`]), two neighbouring phases that are
/// each served in one pass share it when their words together fit one
/// pass of the banks: a warp whose lanes all read one float4 takes 2
/// passes, not 4 (Nsight Compute on the H200, docs/timing-model.md,
/// "Wide accesses by phase").
fn by_phase(layout: BankLayout, ways: impl Fn(usize, usize) -> u32) -> BankConflicts {
    let group = (layout.group as usize).clamp(1, WARP_SIZE);
    let mut out = BankConflicts::default();
    if layout.pair_phases && group * 2 <= WARP_SIZE {
        for start in (0..WARP_SIZE).step_by(2 * group) {
            let (a, b) = (
                ways(start, start + group),
                ways(start + group, start + 2 * group),
            );
            out.ways = out.ways.max(a).max(b);
            out.passes += if a <= 1 && b <= 1 && ways(start, start + 2 * group) <= 1 {
                a.max(b)
            } else {
                a + b
            };
        }
    } else {
        for start in (0..WARP_SIZE).step_by(group) {
            let w = ways(start, (start + group).min(WARP_SIZE));
            out.ways = out.ways.max(w);
            out.passes += w;
        }
    }
    out
}

/// The lanes `start..end` of one access of `size` bytes per lane: those of
/// `active` read or write at `addrs`.
#[derive(Debug, Clone, Copy)]
struct Lanes<'a> {
    active: Mask,
    addrs: &'a [u64; WARP_SIZE],
    size: u32,
    start: usize,
    end: usize,
}

impl<'a> Lanes<'a> {
    /// The active lanes of `start..end`.
    fn active_in_range(&self) -> Mask {
        let below_end = if self.end >= WARP_SIZE {
            Mask::MAX
        } else {
            (1 << self.end) - 1
        };
        let below_start = if self.start >= WARP_SIZE {
            Mask::MAX
        } else {
            (1 << self.start) - 1
        };
        self.active & below_end & !below_start
    }

    fn of(
        active: Mask,
        addrs: &'a [u64; WARP_SIZE],
        size: u32,
        range: std::ops::Range<usize>,
    ) -> Lanes<'a> {
        Lanes {
            active,
            addrs,
            size,
            start: range.start,
            end: range.end,
        }
    }
}

/// The distinct words the busiest of `banks` banks (a power of two up to
/// 64) serves to the active lanes of `start..end`; None when they spread
/// over more than [`MAX_ROWS`] rows of `banks` words.
///
/// Row `r` holds the words `base + r * banks ..` as bits, bit `b` in bank
/// `b`. The counters are bit-sliced: `counter[j]` holds bit `j` of every
/// bank's count, and adding a row is a ripple-carry add of one bit per
/// bank; the largest count is then read from the top bit down, keeping the
/// banks that have each bit while any does.
fn row_ways(banks: u32, lanes: Lanes<'_>) -> Option<u32> {
    let shift = banks.trailing_zeros();
    let in_row = u64::from(banks) - 1;
    let bytes = u64::from(lanes.size.max(1));
    let active = lanes.active_in_range();
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut m = active;
    while m != 0 {
        let addr = lanes.addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        lo = lo.min(addr / BANK_WORD_BYTES);
        hi = hi.max(addr.saturating_add(bytes - 1) / BANK_WORD_BYTES);
    }
    if lo == u64::MAX {
        return Some(0);
    }
    // Words within `banks` consecutive ones lie in distinct banks: one pass
    // (a warp's consecutive bytes or words; the dedispersion's byte loads
    // spent a tenth of their emulation laying such words out in rows).
    if hi - lo < u64::from(banks) {
        return Some(1);
    }
    let base = lo & !in_row;
    let rows_used = ((hi - base) >> shift) + 1;
    let grid = Grid {
        addrs: lanes.addrs,
        active,
        bytes,
        base,
        shift,
        in_row,
    };
    // A small grid for the usual access, so that no more is zeroed than used.
    if rows_used <= FEW_ROWS as u64 {
        Some(grid.busiest::<FEW_ROWS>(rows_used as usize))
    } else if rows_used <= MAX_ROWS as u64 {
        Some(grid.busiest::<MAX_ROWS>(rows_used as usize))
    } else {
        None
    }
}

/// Rows of the small grid most accesses fit (8 rows: 256 words at 32 banks).
const FEW_ROWS: usize = 8;

/// The words of one group's active lanes, as rows of `1 << shift` bank bits
/// from word `base`.
struct Grid<'a> {
    addrs: &'a [u64; WARP_SIZE],
    /// The group's active lanes.
    active: Mask,
    bytes: u64,
    base: u64,
    shift: u32,
    in_row: u64,
}

impl Grid<'_> {
    /// The distinct words of the busiest bank, the words spanning `rows_used`
    /// rows (at most `N`).
    fn busiest<const N: usize>(&self, rows_used: usize) -> u32 {
        let (shift, in_row) = (self.shift, self.in_row);
        let mut rows = [0u64; N];
        // Neighbouring lanes mostly fill one row: its bits gather in a
        // register (`open`) and are stored when a lane reaches another row,
        // so the lanes do not wait on each other's read-modify-write of the
        // same slot.
        let (mut open_row, mut open) = (0usize, 0u64);
        let mut m = self.active;
        while m != 0 {
            let addr = self.addrs[m.trailing_zeros() as usize];
            m &= m - 1;
            let first = addr / BANK_WORD_BYTES - self.base;
            let last = addr.saturating_add(self.bytes - 1) / BANK_WORD_BYTES - self.base;
            let (row, last_row) = ((first >> shift) as usize, (last >> shift) as usize);
            let count = last - first + 1;
            if row == last_row && count < 64 {
                // The lane's words, all in one row.
                if row != open_row {
                    rows[open_row] |= open;
                    (open_row, open) = (row, 0);
                }
                open |= ((1u64 << count) - 1) << (first & in_row);
            } else {
                let mut w = first;
                loop {
                    rows[(w >> shift) as usize] |= 1 << (w & in_row);
                    if w == last {
                        break;
                    }
                    w += 1;
                }
            }
        }
        rows[open_row] |= open;
        let mut counter = [0u64; COUNTER_BITS];
        for &row in &rows[..rows_used.min(N)] {
            let mut carry = row;
            for slice in &mut counter {
                if carry == 0 {
                    break;
                }
                let next = *slice & carry;
                *slice ^= carry;
                carry = next;
            }
        }
        let mut busiest = u64::MAX;
        let mut ways = 0u32;
        for (j, slice) in counter.iter().enumerate().rev() {
            let with_bit = busiest & slice;
            if with_bit != 0 {
                busiest = with_bit;
                ways |= 1 << j;
            }
        }
        ways
    }
}

/// [`bank_conflicts`] by sorting each group's words: the fallback for
/// accesses spread too wide for the rows, and the oracle they are tested
/// against.
fn bank_conflicts_by_sorting(
    layout: BankLayout,
    active: Mask,
    addrs: &[u64; WARP_SIZE],
    size: u32,
) -> BankConflicts {
    by_phase(layout, |start, end| {
        let lanes = Lanes::of(active, addrs, size, start..end);
        sorted_ways(layout.banks, lanes)
    })
}

/// [`row_ways`] by sorting the words (any spread, any bank count).
fn sorted_ways(banks: u32, lanes: Lanes<'_>) -> u32 {
    let (active, addrs, size) = (lanes.active, lanes.addrs, lanes.size);
    let (start, end) = (lanes.start, lanes.end);
    let banks = banks.max(1) as usize;
    let words_per_lane = u64::from(size.max(1)).div_ceil(BANK_WORD_BYTES);
    // A misaligned lane touches one word more than its size needs.
    let capacity = ((end - start) as u64).saturating_mul(words_per_lane + 1);
    // No allocation for ordinary widths.
    let (mut inline_words, mut heap_words) = ([0u64; INLINE_WORDS], Vec::new());
    let words: &mut [u64] = if capacity <= INLINE_WORDS as u64 {
        &mut inline_words
    } else {
        heap_words.resize(usize::try_from(capacity).unwrap_or(usize::MAX), 0);
        &mut heap_words
    };
    let (mut inline_banks, mut heap_banks) = ([0u32; INLINE_BANKS], Vec::new());
    let per_bank: &mut [u32] = if banks <= INLINE_BANKS {
        &mut inline_banks[..banks]
    } else {
        heap_banks.resize(banks, 0);
        &mut heap_banks
    };
    let mut n = 0;
    for (lane, &addr) in addrs.iter().enumerate().take(end).skip(start) {
        if active & (1 << lane) == 0 {
            continue;
        }
        let first = addr / BANK_WORD_BYTES;
        let last = (addr.saturating_add(u64::from(size.max(1))) - 1) / BANK_WORD_BYTES;
        for w in first..=last.max(first) {
            if let Some(slot) = words.get_mut(n) {
                *slot = w;
                n += 1;
            }
        }
    }
    let group_words = &mut words[..n];
    group_words.sort_unstable();
    let mut prev = None;
    for &w in group_words.iter() {
        if prev != Some(w) {
            per_bank[(w % banks as u64) as usize] += 1;
            prev = Some(w);
        }
    }
    per_bank.iter().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        layout: BankLayout,
        active: Mask,
        f: impl Fn(u64) -> u64,
        size: u32,
        ways: u32,
        passes: u32,
    ) {
        let addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| f(l as u64));
        let c = bank_conflicts(layout, active, &addrs, size);
        assert_eq!((c.ways, c.passes), (ways, passes), "{layout:?} {addrs:?}");
    }

    #[test]
    fn warp32_cases() {
        let w = BankLayout::WARP32;
        check(w, !0, |l| 4 * l, 4, 1, 1);
        check(w, !0, |_| 0, 4, 1, 1); // broadcast
        check(w, !0, |l| 8 * l, 4, 2, 2);
        check(w, !0, |l| 128 * l, 4, 32, 32);
        check(w, !0, |l| 8 * l, 8, 2, 2); // 64 words over 32 banks
        check(w, 0, |l| 4 * l, 4, 0, 0);
        check(w, 0b11, |l| 128 * l, 4, 2, 2);
        check(w, !0, |l| 4 * (l % 2), 4, 1, 1); // two words, two banks
    }

    /// The rows against the sorting oracle, on random accesses of every
    /// width and spread (narrow spreads take the rows, wide ones both
    /// paths' fallback), every layout, 64 banks and a bank count that is
    /// not a power of two.
    #[test]
    fn the_rows_agree_with_sorting() {
        let mut rng = prng::Rng::new(0x9E37_79B9_7F4A_7C15u64);
        let mut next = move || rng.next_u64();
        let layouts = [
            BankLayout::WARP32,
            BankLayout::HALF_WARP16,
            BankLayout {
                banks: 24,
                group: 32,
                pair_phases: false,
            },
            BankLayout {
                banks: 64,
                group: 32,
                pair_phases: false,
            },
            BankLayout::WARP32.for_width(8),
            BankLayout::WARP32.for_width(16),
            BankLayout::WARP32.for_width(16).unpaired(),
        ];
        for case in 0..20_000 {
            let spread = [16u64, 256, 4096, 8190, 9000, 16_500, 1 << 20][case % 7];
            let size = [1u32, 2, 4, 8, 12, 16][(case / 7) % 6];
            let active = if case % 7 == 0 { next() as Mask } else { !0 };
            let base = next() % 4096;
            let addrs: [u64; WARP_SIZE] = std::array::from_fn(|_| base + next() % spread);
            for layout in layouts {
                assert_eq!(
                    bank_conflicts(layout, active, &addrs, size),
                    bank_conflicts_by_sorting(layout, active, &addrs, size),
                    "{layout:?} size {size} {addrs:?}"
                );
            }
        }
    }

    /// Wide accesses are served by phases of 128 bytes: contiguous vectors
    /// take their width's passes, conflicts count within a phase, and a
    /// phase pays for a word that another phase also reads.
    #[test]
    fn wide_accesses_by_phase() {
        let w = |size| BankLayout::WARP32.for_width(size);
        assert_eq!(w(4), BankLayout::WARP32);
        assert_eq!(w(2), BankLayout::WARP32);
        assert_eq!(w(8).group, 16);
        assert_eq!(w(16).group, 8);
        assert_eq!(w(32).group, 4);
        // Contiguous float2 and float4: 2 and 4 conflict-free phases.
        check(w(8), !0, |l| 8 * l, 8, 1, 2);
        check(w(16), !0, |l| 16 * l, 16, 1, 4);
        // Every lane the same float4: each half-warp's two phases share a
        // pass (Nsight Compute on the H200: 2 wavefronts per request).
        check(w(16), !0, |_| 0, 16, 1, 2);
        // Every lane the same float2: the two half-warps share one.
        check(w(8), !0, |_| 0, 8, 1, 1);
        // Two distinct float4s, lanes l % 2: each phase is one pass, and
        // a half-warp's two phases want the same 8 words: 2 in all.
        check(w(16), !0, |l| 16 * (l % 2), 16, 1, 2);
        // Phases of a half-warp that together need two passes do not
        // share: lanes 0-7 on words 0-31, lanes 8-15 on words 32-63.
        check(w(16), 0xFFFF, |l| 16 * l, 16, 1, 2);
        // CLBlast's A tile with MDIMC = 8, MWI = 16, VWM = 4: lane x = l % 8
        // reads the float4 at 64 x bytes, the four rows of lanes (l / 8)
        // the same ones. Each phase has lanes 0, 2, 4, 6 on banks 0-3 and
        // 1, 3, 5, 7 on banks 16-19: 4 ways, 16 passes; served as one group
        // (the whole warp at once) it would be 4.
        check(w(16), !0, |l| 64 * (l % 8), 16, 4, 16);
        check(BankLayout::WARP32, !0, |l| 64 * (l % 8), 16, 4, 4);
        // Only the active lanes' phases count.
        check(w(16), 0xFF, |l| 16 * l, 16, 1, 1);
    }

    #[test]
    fn half_warp16_cases() {
        let h = BankLayout::HALF_WARP16;
        check(h, !0, |l| 4 * l, 4, 1, 2);
        check(h, !0, |l| 8 * l, 4, 2, 4);
        check(h, !0, |l| 64 * l, 4, 16, 32);
        check(h, 0xFFFF, |l| 64 * l, 4, 16, 16);
    }
}
