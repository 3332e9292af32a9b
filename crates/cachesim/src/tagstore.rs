//! A sectored, set-associative tag store with true LRU replacement, held in
//! flat arrays (one entry per way of every set; no hashing, no allocation after
//! construction).

use crate::config::{CacheGeometry, SetIndex};

/// Marks an empty way. Real line numbers are byte addresses >> log2(line) and
/// can never reach `u64::MAX`.
const INVALID: u64 = u64::MAX;

/// What one sector access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The sector was valid (line present and sector filled).
    pub hit: bool,
    /// On a hit, rounds since the sector was filled ([`TagStore::set_round`];
    /// 0 unless the store was made [`TagStore::with_ages`]).
    pub age: u32,
    /// Index of the way now holding the line (`usize::MAX` if not allocated).
    pub slot: usize,
    /// Dirty sectors of an evicted line (bit i = sector i of `evicted_line`).
    pub evicted_dirty: u32,
    /// Line number of the evicted line (valid when `evicted_dirty != 0`).
    pub evicted_line: u64,
}

/// A 64-bit mixing function (two multiply-xorshift rounds, the finaliser of
/// splitmix64 / MurmurHash3): every input bit moves about half the output
/// bits, so quotients that differ in a single bit get unrelated rotations.
#[inline]
fn mix(q: u64) -> u64 {
    let mut x = q ^ (q >> 33);
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[derive(Debug, Clone)]
pub(crate) struct TagStore {
    ways: usize,
    sets: u64,
    /// `sets - 1` when `sets` is a power of two, so the set index is a mask.
    set_mask: Option<u64>,
    /// `log2(sets)` when `sets` is a power of two (the quotient is a shift).
    set_shift: u32,
    /// Rotate the modulo set by a hash of the quotient ([`SetIndex::Hashed`]).
    hashed: bool,
    line_shift: u32,
    sector_shift: u32,
    sectors_per_line: u32,
    tags: Vec<u64>,
    valid: Vec<u32>,
    dirty: Vec<u32>,
    /// Last-use time of each way; the smallest in a set is the LRU victim.
    stamp: Vec<u64>,
    clock: u64,
    /// Round in which each sector (way x sectors per line + sector) was
    /// last filled, for the age of a hit.
    filled: Vec<u32>,
    /// The current round ([`TagStore::set_round`]).
    round: u32,
}

impl TagStore {
    /// A cold cache. The geometry must have passed `CacheGeometry::validate`.
    pub fn new(g: &CacheGeometry) -> TagStore {
        let sets = g.sets().max(1);
        let ways = g.ways.max(1) as usize;
        let n = usize::try_from(sets).unwrap_or(1).saturating_mul(ways);
        TagStore {
            ways,
            sets,
            set_mask: sets.is_power_of_two().then_some(sets - 1),
            set_shift: sets.trailing_zeros(),
            hashed: g.index == SetIndex::Hashed,
            line_shift: g.line_bytes.trailing_zeros(),
            sector_shift: g.sector_bytes.trailing_zeros(),
            sectors_per_line: (g.line_bytes / g.sector_bytes).max(1),
            tags: vec![INVALID; n],
            valid: vec![0; n],
            dirty: vec![0; n],
            stamp: vec![0; n],
            clock: 0,
            filled: Vec::new(),
            round: 0,
        }
    }

    /// A cold cache that also ages its hits ([`Outcome::age`]): it stamps
    /// every sector fill with the round (only the L1s need it, and the
    /// stamps cost memory traffic on every fill).
    pub fn with_ages(g: &CacheGeometry) -> TagStore {
        let mut t = TagStore::new(g);
        let sectors = (g.line_bytes / g.sector_bytes).max(1) as usize;
        t.filled = vec![0; t.tags.len().saturating_mul(sectors)];
        t
    }

    /// Sets the round that fills are stamped with and hits aged by (the
    /// simulation's lockstep round: one request per warp).
    #[inline]
    pub fn set_round(&mut self, round: u32) {
        self.round = round;
    }

    /// Stamps the sectors `mask` of way `slot` as filled now.
    #[inline]
    fn stamp_fill(&mut self, slot: usize, mut mask: u32) {
        if self.filled.is_empty() {
            return;
        }
        let base = slot * self.sectors_per_line as usize;
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            if let Some(f) = self.filled.get_mut(base + i) {
                *f = self.round;
            }
            mask &= mask - 1;
        }
    }

    /// Rounds since sector `bit` of way `slot` was filled.
    #[inline]
    fn age(&self, slot: usize, bit: u32) -> u32 {
        let i = slot * self.sectors_per_line as usize + bit.trailing_zeros() as usize;
        self.filled
            .get(i)
            .map_or(0, |&f| self.round.saturating_sub(f))
    }

    /// Line number and sector-in-line bit of a byte address.
    #[inline]
    fn split(&self, addr: u64) -> (u64, u32) {
        let line = addr >> self.line_shift;
        let sector = ((addr >> self.sector_shift) as u32) & (self.sectors_per_line - 1);
        (line, 1u32 << sector)
    }

    /// First way of the set a line maps to: the line number modulo the sets,
    /// rotated by a hash of the quotient when the geometry asks for it.
    #[inline]
    fn set_base(&self, line: u64) -> usize {
        let set = match (self.set_mask, self.hashed) {
            (Some(m), false) => line & m,
            (None, false) => line % self.sets,
            (Some(m), true) => (line + mix(line >> self.set_shift)) & m,
            (None, true) => (line % self.sets + mix(line / self.sets) % self.sets) % self.sets,
        };
        set as usize * self.ways
    }

    /// Looks the sector of `addr` up. On a hit, refreshes LRU (and marks the
    /// sector dirty if `write`). On a miss with `allocate`, places the line
    /// (evicting the LRU way if the line is absent) and fills the sector; with
    /// `allocate == false` a miss changes nothing.
    #[inline]
    pub fn access(&mut self, addr: u64, allocate: bool, write: bool) -> Outcome {
        let (line, bit) = self.split(addr);
        let base = self.set_base(line);
        self.clock += 1;
        let mut victim = base;
        let mut oldest = u64::MAX;
        for i in base..base + self.ways {
            if self.tags[i] == line {
                let hit = self.valid[i] & bit != 0;
                let age = if hit && !self.filled.is_empty() {
                    self.age(i, bit)
                } else {
                    0
                };
                if hit || allocate {
                    self.stamp[i] = self.clock;
                    self.valid[i] |= bit;
                    if write {
                        self.dirty[i] |= bit;
                    }
                    if !hit {
                        self.stamp_fill(i, bit);
                    }
                }
                return Outcome {
                    hit,
                    age,
                    slot: if hit || allocate { i } else { usize::MAX },
                    evicted_dirty: 0,
                    evicted_line: 0,
                };
            }
            let age = if self.tags[i] == INVALID {
                0
            } else {
                self.stamp[i]
            };
            if age < oldest {
                oldest = age;
                victim = i;
            }
        }
        if !allocate {
            return Outcome {
                hit: false,
                age: 0,
                slot: usize::MAX,
                evicted_dirty: 0,
                evicted_line: 0,
            };
        }
        let evicted_dirty = if self.tags[victim] == INVALID {
            0
        } else {
            self.dirty[victim]
        };
        let evicted_line = self.tags[victim];
        self.tags[victim] = line;
        self.valid[victim] = bit;
        self.dirty[victim] = if write { bit } else { 0 };
        self.stamp[victim] = self.clock;
        self.stamp_fill(victim, bit);
        Outcome {
            hit: false,
            age: 0,
            slot: victim,
            evicted_dirty,
            evicted_line,
        }
    }

    /// Marks sectors `mask` of the line in way `slot` valid; returns how many were not already.
    #[inline]
    pub fn fill_extra(&mut self, slot: usize, mask: u32) -> u32 {
        match self.valid.get_mut(slot) {
            Some(v) => {
                let new = mask & !*v;
                *v |= new;
                self.stamp_fill(slot, new);
                new.count_ones()
            }
            None => 0,
        }
    }

    /// The sector-in-line bit and the mask of its aligned `group` sectors (for fills).
    #[inline]
    pub fn group_mask(&self, addr: u64, group_sectors: u32) -> u32 {
        let (_, bit) = self.split(addr);
        let g = group_sectors.clamp(1, self.sectors_per_line);
        let idx = bit.trailing_zeros() / g * g;
        let ones = if g >= 32 { u32::MAX } else { (1u32 << g) - 1 };
        ones << idx
    }

    /// Byte address of sector `i` of line number `line`.
    #[inline]
    pub fn sector_addr(&self, line: u64, i: u32) -> u64 {
        (line << self.line_shift) | (u64::from(i) << self.sector_shift)
    }

    /// Sectors still dirty, as (line number, dirty mask), in way order.
    pub fn dirty_lines(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.tags
            .iter()
            .zip(&self.dirty)
            .filter(|(t, d)| **t != INVALID && **d != 0)
            .map(|(t, d)| (*t, *d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(size: u64, line: u32, sector: u32, ways: u32) -> CacheGeometry {
        CacheGeometry {
            size_bytes: size,
            line_bytes: line,
            sector_bytes: sector,
            ways,
            index: SetIndex::Modulo,
        }
    }

    /// Replays loads (allocate, read) and compares the hit pattern.
    fn check(g: CacheGeometry, addrs: &[u64], expect_hits: &[bool]) {
        g.validate("test").unwrap();
        let mut t = TagStore::new(&g);
        let got: Vec<bool> = addrs
            .iter()
            .map(|&a| t.access(a, true, false).hit)
            .collect();
        assert_eq!(got, expect_hits, "addrs {addrs:?}");
    }

    #[test]
    fn lru_and_sectors() {
        // 1 set x 2 ways x 128 B lines. A, B, A hits; C evicts LRU B; B misses.
        let g = geom(256, 128, 32, 2);
        check(
            g,
            &[0, 128, 0, 256, 128],
            &[false, false, true, false, false],
        );
        // Sector granularity: 0 then 32 (same line, other sector) miss; 0 hits.
        check(g, &[0, 32, 0, 32], &[false, false, true, true]);
        // Non-power-of-two set count (3 sets, 1 way, 32 B lines): 0 and 96 both map to set 0.
        let g3 = geom(96, 32, 32, 1);
        check(g3, &[0, 96, 0, 32, 32], &[false, false, false, false, true]);
    }

    /// Reads `lines` (line numbers of 128 B lines) twice into a cache of
    /// `sets` sets of 4 ways indexed by `index`: the second pass's hits.
    fn second_pass_hits(index: SetIndex, sets: u64, lines: &[u64]) -> usize {
        let g = CacheGeometry {
            index,
            ..geom(sets * 4 * 128, 128, 128, 4)
        };
        g.validate("test").unwrap();
        let mut t = TagStore::new(&g);
        for &l in lines {
            t.access(l * 128, true, false);
        }
        lines
            .iter()
            .filter(|&&l| t.access(l * 128, true, false).hit)
            .count()
    }

    #[test]
    fn hashed_index_keeps_runs_and_spreads_strides() {
        for sets in [64, 96] {
            // A run of consecutive lines as large as the cache, aligned to
            // the set count, fits whole in both (each block of `sets` lines
            // is one line per set).
            let run: Vec<u64> = (sets * 7..sets * 11).collect();
            assert_eq!(second_pass_hits(SetIndex::Modulo, sets, &run), run.len());
            assert_eq!(second_pass_hits(SetIndex::Hashed, sets, &run), run.len());
            // Unaligned, a run of (ways - 1) x sets lines still does under
            // the hash (two part blocks add at most one line per set each;
            // modulo holds any run of ways x sets).
            for start in [5, 1000] {
                let run: Vec<u64> = (start..start + sets * 3).collect();
                assert_eq!(second_pass_hits(SetIndex::Hashed, sets, &run), run.len());
            }
            // A quarter of the cache's lines, a power-of-two stride apart that
            // is a multiple of the set count (a column of a row-major matrix):
            // modulo indexing stacks them into one set of 4 ways, the hash
            // spreads them so that nearly all stay.
            let stride: Vec<u64> = (0..sets).map(|i| i * 64 * sets).collect();
            assert_eq!(second_pass_hits(SetIndex::Modulo, sets, &stride), 0);
            let hashed = second_pass_hits(SetIndex::Hashed, sets, &stride);
            assert!(
                hashed * 10 >= stride.len() * 9,
                "{hashed} of {} hit with {sets} sets",
                stride.len()
            );
        }
    }

    #[test]
    fn no_allocate_and_dirty() {
        let g = geom(256, 128, 32, 1);
        let mut t = TagStore::new(&g);
        // A miss without allocation leaves the cache empty.
        assert!(!t.access(0, false, false).hit);
        assert!(!t.access(0, true, true).hit);
        assert!(t.access(0, false, false).hit);
        // Line 256 maps to set 0 (2 sets of 1 way: line 2 % 2 = 0), evicting dirty sector 0.
        let o = t.access(256, true, false);
        assert_eq!((o.evicted_line, o.evicted_dirty), (0, 1));
        assert_eq!(t.group_mask(64 + 256, 2), 0b1100);
        assert_eq!(t.sector_addr(2, 3), 256 + 96);
    }
}
