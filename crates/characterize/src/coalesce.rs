//! Global-memory coalescing: how many memory transactions one warp-wide
//! access turns into, under two protocols.
//!
//! - [`Protocol::HalfWarpCc12`]: the compute-capability 1.2/1.3 protocol that
//!   Kerr et al. (seed 001, section IV.B) implemented and that Kothapalli et
//!   al.'s experiments ran under (seed 000, GTX 280). Each half-warp is served
//!   separately. Segments are 32 bytes for 1-byte words, 64 bytes for 2-byte
//!   words and 128 bytes for 4-, 8- and 16-byte words (CUDA Programming Guide
//!   2.x/3.x, section "Coalescing on devices of compute capability 1.2 and
//!   higher"). One transaction per segment touched; a 128-byte transaction of
//!   which only the lower or upper half is used shrinks to 64 bytes, and a
//!   64-byte one (original or shrunk) of which only one half is used shrinks
//!   to 32 bytes.
//! - [`Protocol::Sectors`]: current GPUs (compute capability 5.x and later):
//!   the whole warp is served together, the unit is the 32-byte sector of a
//!   128-byte cache line, and the transactions of a request are the distinct
//!   sectors its bytes touch.
//!
//! The result of the CC 1.2 protocol does not depend on the order in which
//! the guide's loop picks segments (segments are disjoint and aligned), so it
//! is computed as "the set of segments touched" plus the reduction rule.

use emu::simt::{Mask, WARP_SIZE};

/// Bytes of a sector on current GPUs.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes of an L1/L2 cache line on current GPUs.
pub const LINE_BYTES: u64 = 128;

/// A coalescing protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Compute capability 1.2/1.3: half-warps, 32/64/128-byte segments, reduction.
    HalfWarpCc12,
    /// Compute capability 5.x and later: per warp, 32-byte sectors.
    Sectors,
}

impl Protocol {
    /// Both protocols, in display order.
    pub const ALL: [Protocol; 2] = [Protocol::HalfWarpCc12, Protocol::Sectors];

    /// Name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::HalfWarpCc12 => "cc12",
            Protocol::Sectors => "sectors",
        }
    }
}

/// What one warp-wide access costs under one protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coalescing {
    /// Memory transactions (segments or sectors).
    pub transactions: u64,
    /// Bytes the transactions move (sum of their sizes).
    pub bytes_transferred: u64,
    /// Distinct bytes the active lanes touch (what the program needed).
    pub bytes_used: u64,
    /// Bytes the active lanes ask for, counting a byte once per lane.
    pub bytes_requested: u64,
    /// Distinct 128-byte lines touched (only for [`Protocol::Sectors`], else 0).
    pub lines: u64,
}

impl Coalescing {
    /// Used bytes over transferred bytes (1 when nothing moves).
    pub fn byte_efficiency(&self) -> f64 {
        if self.bytes_transferred == 0 {
            1.0
        } else {
            self.bytes_used as f64 / self.bytes_transferred as f64
        }
    }

    /// Add another access's figures to these.
    pub fn add(&mut self, other: &Coalescing) {
        self.transactions += other.transactions;
        self.bytes_transferred += other.bytes_transferred;
        self.bytes_used += other.bytes_used;
        self.bytes_requested += other.bytes_requested;
        self.lines += other.lines;
    }
}

/// The segment size of the CC 1.2 protocol for words of `size` bytes.
pub fn cc12_segment_bytes(size: u32) -> u64 {
    match size {
        0 | 1 => 32,
        2 => 64,
        _ => 128,
    }
}

/// Cost of one warp-wide access of `size` bytes per lane at `addrs` (only the
/// lanes set in `active` count) under `protocol`.
pub fn coalesce(
    protocol: Protocol,
    active: Mask,
    addrs: &[u64; WARP_SIZE],
    size: u32,
) -> Coalescing {
    match protocol {
        Protocol::HalfWarpCc12 => cc12_cost(&SortedHalves::of(active, addrs), size),
        Protocol::Sectors => sectors(active, addrs, size),
    }
}

/// What the collector counts of every global access: its cost under both
/// protocols and its intervals, the lanes sorted once.
#[inline]
pub fn both_protocols(
    active: Mask,
    addrs: &[u64; WARP_SIZE],
    size: u32,
) -> (Coalescing, Coalescing, Intervals) {
    let halves = SortedHalves::of(active, addrs);
    let cc12 = cc12_cost(&halves, size);
    let intervals = halves.merged(size);
    let sectors = sector_cost(&intervals, active, size);
    (cc12, sectors, intervals)
}

/// The start addresses of a warp's active lanes, each half-warp's sorted
/// on its own: the CC 1.2 protocol needs each half's intervals and the
/// sector protocol the whole warp's, and merging two sorted halves of 16
/// costs less than sorting 32 (the lanes were sorted three times per
/// access: once whole, once per half; docs/speed.md, "Coalescing").
#[derive(Debug, Clone, Copy)]
struct SortedHalves {
    starts: [u64; WARP_SIZE],
    /// Lanes 0-15 are `starts[..low]`, lanes 16-31 `starts[low..len]`.
    low: usize,
    len: usize,
}

impl SortedHalves {
    /// The addresses of the lanes of `mask`.
    #[inline]
    fn of(mask: Mask, addrs: &[u64; WARP_SIZE]) -> SortedHalves {
        let mut starts = [0u64; WARP_SIZE];
        let mut len = 0;
        for l in emu::simt::lanes(mask) {
            starts[len] = addrs[l];
            len += 1;
        }
        let low = (mask & 0xFFFF).count_ones() as usize;
        sort_starts(&mut starts[..low]);
        sort_starts(&mut starts[low..len]);
        SortedHalves { starts, low, len }
    }

    /// The sorted starts of half-warp `half` (0: lanes 0-15, 1: lanes 16-31).
    fn half(&self, half: u32) -> &[u64] {
        if half == 0 {
            &self.starts[..self.low]
        } else {
            &self.starts[self.low..self.len]
        }
    }

    /// The whole warp's intervals, `size` bytes per lane.
    #[inline]
    fn merged(&self, size: u32) -> Intervals {
        let (lo, hi) = (self.half(0), self.half(1));
        // Ascending lanes (the common case) need no merge at all.
        if lo.last().zip(hi.first()).is_none_or(|(a, b)| a <= b) {
            return Intervals::of_sorted(&self.starts[..self.len], size);
        }
        let mut all = [0u64; WARP_SIZE];
        let (mut i, mut j) = (0, 0);
        for slot in &mut all[..self.len] {
            // Take from the low half while it has the smaller start.
            let take_lo = j == hi.len() || (i < lo.len() && lo[i] <= hi[j]);
            if take_lo {
                *slot = lo[i];
                i += 1;
            } else {
                *slot = hi[j];
                j += 1;
            }
        }
        Intervals::of_sorted(&all[..self.len], size)
    }
}

/// Sort one half-warp's starts: lanes usually ascend already (one pass) or
/// descend.
fn sort_starts(raw: &mut [u64]) {
    if !raw.is_sorted() {
        if raw.is_sorted_by(|a, b| a >= b) {
            raw.reverse();
        } else {
            raw.sort_unstable();
        }
    }
}

/// The merged intervals `[start, end)` of `size` bytes (at least 1) from
/// each of the ascending `starts`, in order, without storing them. The
/// open interval stays in registers (a merge through an array waited on
/// its own stores).
fn merged_spans(starts: &[u64], size: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
    let size = u64::from(size.max(1));
    let mut rest = starts.iter();
    let mut open = rest.next().map(|&a| (a, a.saturating_add(size)));
    std::iter::from_fn(move || {
        let (lo, mut hi) = open?;
        for &a in rest.by_ref() {
            if a <= hi {
                hi = hi.max(a.saturating_add(size));
            } else {
                open = Some((a, a.saturating_add(size)));
                return Some((lo, hi));
            }
        }
        open = None;
        Some((lo, hi))
    })
}

/// Sorted, merged byte intervals `[start, end)` that the lanes of a mask
/// touch, held inline (at most one per lane): coalescing runs on every
/// global access, and an allocation per access cost more than the work.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    spans: [(u64, u64); WARP_SIZE],
    len: usize,
}

impl Intervals {
    /// The intervals of the lanes of `mask`, `size` bytes each (at least 1).
    pub fn of(mask: Mask, addrs: &[u64; WARP_SIZE], size: u32) -> Intervals {
        SortedHalves::of(mask, addrs).merged(size)
    }

    /// The intervals of `size` bytes (at least 1) from each of the ascending
    /// `starts`. Every lane's interval has the same size, so ordering by
    /// start orders the intervals: the starts alone are sorted (plain
    /// integers sort several times faster than pairs).
    #[inline]
    fn of_sorted(starts: &[u64], size: u32) -> Intervals {
        let mut spans = [(0u64, 0u64); WARP_SIZE];
        let mut len = 0;
        for span in merged_spans(starts, size) {
            spans[len] = span;
            len += 1;
        }
        Intervals { spans, len }
    }

    /// The merged intervals, ascending.
    pub fn spans(&self) -> &[(u64, u64)] {
        &self.spans[..self.len]
    }

    fn used_bytes(&self) -> u64 {
        self.spans().iter().map(|&(s, e)| e - s).sum()
    }

    /// How many distinct aligned blocks of `block` bytes the intervals
    /// touch: per interval its first to last block, less the first where
    /// the interval before ended in it (intervals are disjoint and
    /// ascending, so only a neighbour can share a block).
    fn block_count(&self, block: u64) -> u64 {
        let mut count = 0;
        let mut last = None;
        for &(s, e) in self.spans() {
            let (first, end) = (s / block, (e.max(1) - 1) / block);
            if end < first {
                continue;
            }
            count += end - first + 1 - u64::from(last == Some(first));
            last = Some(end);
        }
        count
    }

    /// Distinct aligned blocks of `block` bytes touched, ascending, each once.
    #[cfg(test)]
    fn blocks(&self, block: u64) -> impl Iterator<Item = u64> + '_ {
        let mut last = None;
        self.spans()
            .iter()
            .flat_map(move |&(s, e)| s / block..=(e - 1) / block)
            .filter(move |&b| {
                let new = last != Some(b);
                last = Some(b);
                new
            })
    }
}

/// The CC 1.2 protocol's cost of an access whose lanes' starts are
/// `halves`, `size` bytes each (a caller that also needs the whole warp's
/// intervals sorts the lanes once).
fn cc12_cost(halves: &SortedHalves, size: u32) -> Coalescing {
    let mut total = half_warp(halves.half(0), size);
    total.add(&half_warp(halves.half(1), size));
    total
}

/// The CC 1.2 protocol for one half-warp whose active lanes' starts are
/// `starts`, ascending: one pass over the merged intervals, keeping per
/// segment the lowest and highest byte used (whether a half of a segment
/// is used depends on those alone, as the segments are aligned). A test
/// checks it against asking every interval of every half.
fn half_warp(starts: &[u64], size: u32) -> Coalescing {
    let segment = cc12_segment_bytes(size);
    let mut out = Coalescing {
        bytes_requested: starts.len() as u64 * u64::from(size.max(1)),
        ..Coalescing::default()
    };
    // The segment being filled: its index and the hull [first, end) of
    // the bytes used in it.
    let mut open: Option<(u64, u64, u64)> = None;
    for (s, e) in merged_spans(starts, size) {
        out.bytes_used += e - s;
        for seg in s / segment..=(e - 1) / segment {
            let base = seg * segment;
            let (first, end) = (s.max(base), e.min(base.saturating_add(segment)));
            open = match open {
                Some((at, lo, _)) if at == seg => Some((seg, lo, end)),
                _ => {
                    if let Some(done) = open {
                        out.transactions += 1;
                        out.bytes_transferred += cc12_transaction_bytes(done, segment);
                    }
                    Some((seg, first, end))
                }
            };
        }
    }
    if let Some(done) = open {
        out.transactions += 1;
        out.bytes_transferred += cc12_transaction_bytes(done, segment);
    }
    out
}

/// The size of the CC 1.2 transaction for segment `seg` of `segment` bytes
/// whose used bytes lie in `[first, end)`: halved while only one half is
/// used, down to 32 bytes.
fn cc12_transaction_bytes((seg, first, end): (u64, u64, u64), segment: u64) -> u64 {
    let (mut lo, mut len) = (seg * segment, segment);
    while len > 32 {
        let half = len / 2;
        let mid = lo + half;
        if end <= mid {
            len = half;
        } else if first >= mid {
            lo = mid;
            len = half;
        } else {
            break;
        }
    }
    len
}

/// The sector protocol of current GPUs.
fn sectors(active: Mask, addrs: &[u64; WARP_SIZE], size: u32) -> Coalescing {
    if active == 0 {
        return Coalescing::default();
    }
    sector_cost(&Intervals::of(active, addrs, size), active, size)
}

/// The sector protocol's cost of an access by the lanes of `active`, `size`
/// bytes each, whose bytes are `intervals` (a caller that also needs the
/// intervals builds them once).
pub fn sector_cost(intervals: &Intervals, active: Mask, size: u32) -> Coalescing {
    let sectors = intervals.block_count(SECTOR_BYTES);
    Coalescing {
        transactions: sectors,
        bytes_transferred: sectors * SECTOR_BYTES,
        bytes_used: intervals.used_bytes(),
        bytes_requested: u64::from(active.count_ones()) * u64::from(size.max(1)),
        lines: intervals.block_count(LINE_BYTES),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs_of(f: impl Fn(u64) -> u64) -> [u64; WARP_SIZE] {
        std::array::from_fn(|l| f(l as u64))
    }

    fn check(
        protocol: Protocol,
        active: Mask,
        addrs: [u64; WARP_SIZE],
        size: u32,
        transactions: u64,
        bytes: u64,
    ) {
        let c = coalesce(protocol, active, &addrs, size);
        assert_eq!(
            (c.transactions, c.bytes_transferred),
            (transactions, bytes),
            "{protocol:?} {addrs:?}"
        );
    }

    #[test]
    fn cc12_cases() {
        use Protocol::HalfWarpCc12 as P;
        // Consecutive floats: one 64-byte transaction per half-warp.
        check(P, !0, addrs_of(|l| 4 * l), 4, 2, 128);
        // Consecutive doubles: one 128-byte transaction per half-warp.
        check(P, !0, addrs_of(|l| 8 * l), 8, 2, 256);
        // Everyone reads the same word: one 32-byte transaction per half-warp.
        check(P, !0, addrs_of(|_| 64), 4, 2, 64);
        // One lane only.
        check(P, 1, addrs_of(|l| 4 * l), 4, 1, 32);
        // No lanes.
        check(P, 0, addrs_of(|l| 4 * l), 4, 0, 0);
        // Stride of 128 bytes: a segment per lane, each reduced to 32 bytes.
        check(P, !0, addrs_of(|l| 128 * l), 4, 32, 32 * 32);
        // Bytes: 32-byte segments.
        check(P, !0, addrs_of(|l| l), 1, 2, 64);
        // Shorts: 64-byte segments, 16 lanes x 2 bytes = 32 bytes, reduced.
        check(P, !0, addrs_of(|l| 2 * l), 2, 2, 64);
        // float4: 16 lanes x 16 bytes = 256 bytes = two full segments per half-warp.
        check(P, !0, addrs_of(|l| 16 * l), 16, 4, 512);
        // Misaligned start: floats from byte 4 span two 64-byte halves of a segment.
        check(P, 0xFFFF, addrs_of(|l| 4 + 4 * l), 4, 1, 128);
    }

    #[test]
    fn sector_cases() {
        use Protocol::Sectors as P;
        check(P, !0, addrs_of(|l| 4 * l), 4, 4, 128);
        check(P, !0, addrs_of(|l| 8 * l), 8, 8, 256);
        check(P, !0, addrs_of(|_| 64), 4, 1, 32);
        check(P, 0, addrs_of(|l| 4 * l), 4, 0, 0);
        check(P, !0, addrs_of(|l| 128 * l), 4, 32, 32 * 32);
        check(P, !0, addrs_of(|l| 4 + 4 * l), 4, 5, 160);
        check(P, 0b101, addrs_of(|l| 32 * l), 4, 2, 64);
    }

    /// The merged intervals against sorting (start, end) pairs and merging
    /// them, on ascending, descending, scattered and repeated lanes.
    #[test]
    fn the_intervals_are_the_merged_sorted_pairs() {
        let mut rng = prng::Rng::new(0x6A09_E667_F3BC_C909u64);
        let mut next = move || rng.next_u64();
        for case in 0..5_000u64 {
            let size = [1u32, 4, 8, 16, 64][(case % 5) as usize];
            let spread = [64u64, 1024, 1 << 20][(case % 3) as usize];
            let base = next() % (1 << 40);
            let addrs = match case % 4 {
                0 => addrs_of(|l| base + l * u64::from(size)),
                1 => addrs_of(|l| base + (31 - l) * u64::from(size)),
                2 => {
                    let r: [u64; WARP_SIZE] = std::array::from_fn(|_| next() % spread);
                    addrs_of(|l| base + r[l as usize])
                }
                _ => addrs_of(|l| base + (l % 3) * 8),
            };
            // Some cases with half-warps of different orders: one
            // ascending, the other descending or scattered.
            let addrs = if case % 11 == 5 {
                std::array::from_fn(|l| if l < 16 { addrs[l] } else { addrs[47 - l] })
            } else {
                addrs
            };
            let mask = if case % 7 == 0 { next() as Mask } else { !0 };
            let want = |mask: Mask| {
                let mut pairs: Vec<(u64, u64)> = emu::simt::lanes(mask)
                    .map(|l| (addrs[l], addrs[l] + u64::from(size)))
                    .collect();
                pairs.sort_unstable();
                let mut want: Vec<(u64, u64)> = Vec::new();
                for (s, e) in pairs {
                    match want.last_mut() {
                        Some(last) if s <= last.1 => last.1 = last.1.max(e),
                        _ => want.push((s, e)),
                    }
                }
                want
            };
            assert_eq!(
                Intervals::of(mask, &addrs, size).spans(),
                &want(mask)[..],
                "{addrs:?}"
            );
            let intervals = Intervals::of(mask, &addrs, size);
            for block in [SECTOR_BYTES, LINE_BYTES] {
                assert_eq!(
                    intervals.block_count(block),
                    intervals.blocks(block).count() as u64,
                    "{block}-byte blocks: {addrs:?}"
                );
            }
            // Each half-warp's intervals, as the CC 1.2 protocol takes them.
            let halves = SortedHalves::of(mask, &addrs);
            for (half, lanes) in [(0, 0x0000_FFFF), (1, 0xFFFF_0000)] {
                assert_eq!(
                    Intervals::of_sorted(halves.half(half), size).spans(),
                    &want(mask & lanes)[..],
                    "half {half}: {addrs:?}"
                );
            }
        }
    }

    /// The CC 1.2 protocol as the guide states it, asked interval by
    /// interval: for every segment touched, halve while only one half of
    /// it overlaps any interval.
    fn cc12_by_the_guide(active: Mask, addrs: &[u64; WARP_SIZE], size: u32) -> Coalescing {
        let mut total = Coalescing::default();
        for lanes in [0x0000_FFFF, 0xFFFF_0000] {
            let mask = active & lanes;
            if mask == 0 {
                continue;
            }
            let intervals = Intervals::of(mask, addrs, size);
            let touches =
                |lo: u64, hi: u64| intervals.spans().iter().any(|&(s, e)| s < hi && lo < e);
            let segment = cc12_segment_bytes(size);
            total.bytes_used += intervals.used_bytes();
            total.bytes_requested += u64::from(mask.count_ones()) * u64::from(size.max(1));
            for seg in intervals.blocks(segment) {
                let (mut lo, mut len) = (seg * segment, segment);
                while len > 32 {
                    let half = len / 2;
                    match (touches(lo, lo + half), touches(lo + half, lo + len)) {
                        (true, false) => len = half,
                        (false, true) => {
                            lo += half;
                            len = half;
                        }
                        _ => break,
                    }
                }
                total.transactions += 1;
                total.bytes_transferred += len;
            }
        }
        total
    }

    /// The one-pass CC 1.2 protocol against the guide's, on lanes in
    /// order, in overlapping runs, scattered near and far, every word size.
    #[test]
    fn cc12_in_one_pass_is_the_guides() {
        let mut rng = prng::Rng::new(0xBB67_AE85_84CA_A73Bu64);
        let mut next = move || rng.next_u64();
        for case in 0..20_000u64 {
            let size = [1u32, 2, 4, 8, 16, 0][(case % 6) as usize];
            let spread = [48u64, 256, 4096, 1 << 30][(case % 4) as usize];
            let base = next() % (1 << 40);
            let r: [u64; WARP_SIZE] = std::array::from_fn(|_| next() % spread);
            let addrs = match (case / 4) % 3 {
                0 => addrs_of(|l| base + r[l as usize]),
                1 => addrs_of(|l| base + (l % 8) * u64::from(size) + r[(l / 8) as usize] % 64),
                _ => addrs_of(|l| base + l * u64::from(size.max(1)) * (1 + r[0] % 5)),
            };
            let mask = if case % 5 == 0 { next() as Mask } else { !0 };
            assert_eq!(
                coalesce(Protocol::HalfWarpCc12, mask, &addrs, size),
                cc12_by_the_guide(mask, &addrs, size),
                "size {size}, mask {mask:#x}: {addrs:?}"
            );
        }
    }

    #[test]
    fn used_and_requested_bytes() {
        let c = coalesce(Protocol::Sectors, !0, &addrs_of(|_| 0), 4);
        assert_eq!((c.bytes_used, c.bytes_requested, c.lines), (4, 128, 1));
        assert!((c.byte_efficiency() - 4.0 / 32.0).abs() < 1e-12);
    }
}
