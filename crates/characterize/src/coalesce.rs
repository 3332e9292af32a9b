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
        Protocol::HalfWarpCc12 => {
            let lo = half_warp(active, addrs, size, 0);
            let mut total = half_warp(active, addrs, size, 1);
            total.add(&lo);
            total
        }
        Protocol::Sectors => sectors(active, addrs, size),
    }
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
        let size = u64::from(size.max(1));
        // Every lane's interval has the same size, so ordering by start
        // orders the intervals: sort the starts alone (plain integers sort
        // several times faster than pairs; dedispersion's scattered lanes
        // spent a tenth of their emulation sorting pairs here).
        let mut starts = [0u64; WARP_SIZE];
        let mut n = 0;
        for l in emu::simt::lanes(mask) {
            starts[n] = addrs[l];
            n += 1;
        }
        let raw = &mut starts[..n];
        // Lanes usually ascend already (the sort is then one pass), or
        // descend.
        if !raw.is_sorted() {
            if raw.is_sorted_by(|a, b| a >= b) {
                raw.reverse();
            } else {
                raw.sort_unstable();
            }
        }
        // Merge with the open interval in registers (a merge through the
        // array waited on its own stores).
        let mut spans = [(0u64, 0u64); WARP_SIZE];
        let mut len = 0;
        if let Some((&first, rest)) = raw.split_first() {
            let (mut lo, mut hi) = (first, first.saturating_add(size));
            for &a in rest {
                if a <= hi {
                    hi = hi.max(a.saturating_add(size));
                } else {
                    spans[len] = (lo, hi);
                    len += 1;
                    (lo, hi) = (a, a.saturating_add(size));
                }
            }
            spans[len] = (lo, hi);
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

    /// Does any interval overlap `[lo, hi)`?
    fn touches(&self, lo: u64, hi: u64) -> bool {
        self.spans().iter().any(|&(s, e)| s < hi && lo < e)
    }

    /// Distinct aligned blocks of `block` bytes touched, ascending, each once.
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

/// The CC 1.2 protocol for half-warp `half` (0: lanes 0-15, 1: lanes 16-31).
fn half_warp(active: Mask, addrs: &[u64; WARP_SIZE], size: u32, half: u32) -> Coalescing {
    let mask = active & (0xFFFF_u32 << (16 * half));
    if mask == 0 {
        return Coalescing::default();
    }
    let intervals = Intervals::of(mask, addrs, size);
    let segment = cc12_segment_bytes(size);
    let mut out = Coalescing {
        bytes_used: intervals.used_bytes(),
        bytes_requested: u64::from(mask.count_ones()) * u64::from(size.max(1)),
        ..Coalescing::default()
    };
    for seg in intervals.blocks(segment) {
        let (mut lo, mut len) = (seg * segment, segment);
        // Halve while only one half is used, down to 32 bytes.
        while len > 32 {
            let half_len = len / 2;
            let low_used = intervals.touches(lo, lo + half_len);
            let high_used = intervals.touches(lo + half_len, lo + len);
            match (low_used, high_used) {
                (true, false) => len = half_len,
                (false, true) => {
                    lo += half_len;
                    len = half_len;
                }
                _ => break,
            }
        }
        out.transactions += 1;
        out.bytes_transferred += len;
    }
    out
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
    let sectors = intervals.blocks(SECTOR_BYTES).count() as u64;
    Coalescing {
        transactions: sectors,
        bytes_transferred: sectors * SECTOR_BYTES,
        bytes_used: intervals.used_bytes(),
        bytes_requested: u64::from(active.count_ones()) * u64::from(size.max(1)),
        lines: intervals.blocks(LINE_BYTES).count() as u64,
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
            let mask = if case % 7 == 0 { next() as Mask } else { !0 };
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
            assert_eq!(
                Intervals::of(mask, &addrs, size).spans(),
                &want[..],
                "{addrs:?}"
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
