//! [`SectorSet`]: the distinct 32-byte sectors a run touches, as a bitmap
//! over pages of the address space.
//!
//! Global buffers are a few large contiguous allocations, so a warp's access
//! lands in the page the previous one used: a bit set in a cached page,
//! where a hash set paid a hash and a probe per lane and sector. A 128-byte
//! line is four aligned sectors, so the lines touched are counted from the
//! same bits (a page holds whole lines). Sets merge by union, which does not
//! depend on the order in which the parts were filled.

use crate::coalesce::SECTOR_BYTES;

/// Sectors per page (a multiple of 64 and of the 4 sectors of a line).
const PAGE_SECTORS: u64 = 4096;
const WORDS: usize = (PAGE_SECTORS / 64) as usize;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Page {
    /// Sector number of the page's first sector, over `PAGE_SECTORS`.
    key: u64,
    bits: Box<[u64; WORDS]>,
}

/// A set of sector numbers (byte address / 32).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectorSet {
    /// Sorted by key, no repeats.
    pages: Vec<Page>,
    /// Index of the page the last insert used.
    last: usize,
}

impl SectorSet {
    pub fn new() -> SectorSet {
        SectorSet::default()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The page of `key`, created when missing.
    fn page_mut(&mut self, key: u64) -> &mut [u64; WORDS] {
        let i = match self.pages.get(self.last) {
            Some(p) if p.key == key => self.last,
            _ => match self.pages.binary_search_by_key(&key, |p| p.key) {
                Ok(i) => i,
                Err(i) => {
                    let bits = Box::new([0; WORDS]);
                    self.pages.insert(i, Page { key, bits });
                    i
                }
            },
        };
        self.last = i;
        &mut self.pages[i].bits
    }

    /// Add the sectors that bytes `[start, end)` touch: those from `start`'s
    /// to `end - 1`'s, as the coalescing counts them (an end saturated at
    /// `u64::MAX` still touches the last sector).
    pub fn insert_bytes(&mut self, start: u64, end: u64) {
        if let Some(last) = end.checked_sub(1) {
            self.insert_sectors(start / SECTOR_BYTES, last / SECTOR_BYTES);
        }
    }

    /// Add sectors `first..=last`.
    pub fn insert_sectors(&mut self, first: u64, last: u64) {
        let mut s = first;
        while s <= last {
            let key = s / PAGE_SECTORS;
            let page_end = key
                .saturating_mul(PAGE_SECTORS)
                .saturating_add(PAGE_SECTORS - 1);
            let upto = last.min(page_end);
            let (lo, hi) = ((s % PAGE_SECTORS) as usize, (upto % PAGE_SECTORS) as usize);
            set_bits(self.page_mut(key), lo, hi);
            match upto.checked_add(1) {
                Some(next) => s = next,
                None => break,
            }
        }
    }

    /// Add every sector of `other`.
    pub fn union_with(&mut self, other: &SectorSet) {
        for p in &other.pages {
            let bits = self.page_mut(p.key);
            for (w, o) in bits.iter_mut().zip(p.bits.iter()) {
                *w |= o;
            }
        }
    }

    /// Whether a sector is in both sets.
    pub fn intersects(&self, other: &SectorSet) -> bool {
        let (mut i, mut j) = (0, 0);
        while let (Some(a), Some(b)) = (self.pages.get(i), other.pages.get(j)) {
            match a.key.cmp(&b.key) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if a.bits.iter().zip(b.bits.iter()).any(|(x, y)| x & y != 0) {
                        return true;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        false
    }

    /// Number of sectors.
    pub fn sectors(&self) -> u64 {
        self.pages
            .iter()
            .flat_map(|p| p.bits.iter())
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// Number of sectors of the set in `first..=last`.
    pub fn sectors_in(&self, first: u64, last: u64) -> u64 {
        if first > last {
            return 0;
        }
        let (k0, k1) = (first / PAGE_SECTORS, last / PAGE_SECTORS);
        let start = self.pages.partition_point(|p| p.key < k0);
        self.pages[start..]
            .iter()
            .take_while(|p| p.key <= k1)
            .map(|p| {
                let lo = if p.key == k0 { first % PAGE_SECTORS } else { 0 };
                let hi = if p.key == k1 {
                    last % PAGE_SECTORS
                } else {
                    PAGE_SECTORS - 1
                };
                count_bits(&p.bits, lo as usize, hi as usize)
            })
            .sum()
    }

    /// Number of 128-byte lines with at least one sector in the set.
    pub fn lines(&self) -> u64 {
        const LOW: u64 = 0x1111_1111_1111_1111;
        self.pages
            .iter()
            .flat_map(|p| p.bits.iter())
            .map(|&w| u64::from(((w | w >> 1 | w >> 2 | w >> 3) & LOW).count_ones()))
            .sum()
    }
}

/// Bits `lo..=hi` of a page that are set.
fn count_bits(bits: &[u64; WORDS], lo: usize, hi: usize) -> u64 {
    let (wl, wh) = (lo / 64, hi / 64);
    (wl..=wh)
        .map(|w| {
            let from = if w == wl { lo % 64 } else { 0 };
            let to = if w == wh { hi % 64 } else { 63 };
            let mask = (u64::MAX >> (63 - to)) & (u64::MAX << from);
            bits.get(w)
                .map_or(0, |word| u64::from((word & mask).count_ones()))
        })
        .sum()
}

/// Set bits `lo..=hi` of a page.
fn set_bits(bits: &mut [u64; WORDS], lo: usize, hi: usize) {
    let (wl, wh) = (lo / 64, hi / 64);
    for w in wl..=wh {
        let from = if w == wl { lo % 64 } else { 0 };
        let to = if w == wh { hi % 64 } else { 63 };
        let mask = (u64::MAX >> (63 - to)) & (u64::MAX << from);
        if let Some(word) = bits.get_mut(w) {
            *word |= mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The sets a hash set of sectors and of lines would hold.
    fn reference(ranges: &[(u64, u64)]) -> (u64, u64) {
        let (mut s, mut l) = (HashSet::new(), HashSet::new());
        for &(a, e) in ranges {
            s.extend(a / 32..=(e - 1) / 32);
            l.extend(a / 128..=(e - 1) / 128);
        }
        (s.len() as u64, l.len() as u64)
    }

    #[test]
    fn counts_match_hash_sets() {
        let ranges = [
            (0, 4),
            (4, 8),
            (100, 300),
            (PAGE_SECTORS * 32 - 8, PAGE_SECTORS * 32 + 40),
            (0x7_0000_0000, 0x7_0000_1000),
            (u64::MAX - 100, u64::MAX),
            (5 * PAGE_SECTORS * 32 + 33, 5 * PAGE_SECTORS * 32 + 34),
        ];
        let mut set = SectorSet::new();
        for &(a, e) in &ranges {
            set.insert_bytes(a, e);
        }
        assert_eq!((set.sectors(), set.lines()), reference(&ranges));
    }

    #[test]
    fn sectors_in_a_range() {
        let mut set = SectorSet::new();
        set.insert_sectors(10, 20);
        set.insert_sectors(PAGE_SECTORS - 2, PAGE_SECTORS + 70);
        set.insert_sectors(5 * PAGE_SECTORS, 5 * PAGE_SECTORS);
        let check = |first, last, want| assert_eq!(set.sectors_in(first, last), want);
        check(0, u64::MAX, set.sectors());
        check(0, 9, 0);
        check(15, 15, 1);
        check(12, 100, 9);
        check(PAGE_SECTORS - 1, PAGE_SECTORS, 2);
        check(PAGE_SECTORS - 2, PAGE_SECTORS + 70, 73);
        check(PAGE_SECTORS + 71, 5 * PAGE_SECTORS - 1, 0);
        check(5 * PAGE_SECTORS, 6 * PAGE_SECTORS, 1);
        check(20, 10, 0);
    }

    #[test]
    fn union_and_intersection() {
        let (mut a, mut b) = (SectorSet::new(), SectorSet::new());
        a.insert_bytes(0, 64);
        b.insert_bytes(64, 128);
        assert!(!a.intersects(&b));
        b.insert_bytes(1 << 40, (1 << 40) + 1);
        a.union_with(&b);
        assert_eq!(a.sectors(), 5);
        assert_eq!(a.lines(), 2);
        assert!(a.intersects(&b));
        let mut c = SectorSet::new();
        c.insert_bytes(32, 33);
        assert!(c.intersects(&a) && !c.intersects(&b));
    }
}
