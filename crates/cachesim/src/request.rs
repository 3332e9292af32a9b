//! The input: warp-level memory requests, grouped into a [`Trace`] of per-CTA,
//! per-warp streams held in flat arrays.

use serde::{Deserialize, Serialize};

use crate::error::CacheSimError;

/// Granularity of the addresses a trace carries: 32-byte sectors, the unit in
/// which Volta and later move data between L1, L2 and DRAM.
pub const TRACE_SECTOR_BYTES: u32 = 32;

/// What a warp-level request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic or reduction (performed at L2).
    Atomic,
}

/// Which memory path a request takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Path {
    /// `ld/st/atom.global` with the default cache operator.
    Global,
    /// `ld.global.nc` / `__ldg` (loads only).
    ReadOnly,
    /// `ld.const` (loads only).
    Constant,
    /// `ld/st.local` (register spills, local arrays).
    Local,
}

impl Path {
    /// Dense index for per-path tables.
    pub(crate) fn index(self) -> usize {
        match self {
            Path::Global => 0,
            Path::ReadOnly => 1,
            Path::Constant => 2,
            Path::Local => 3,
        }
    }
}

/// The addresses one request touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Access {
    /// Sector addresses; each is aligned down to 32 B and duplicates are merged.
    Sectors(Vec<u64>),
    /// Per-lane byte addresses of the active lanes, each accessing `bytes` bytes.
    Lanes {
        /// Byte address of each active lane.
        addrs: Vec<u64>,
        /// Access size per lane (1, 2, 4, 8, 16, ...).
        bytes: u32,
    },
}

/// One warp-level memory request, as the emulator would record it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// CTA id (linear block index).
    pub cta: u32,
    /// Warp id within the CTA.
    pub warp: u32,
    /// Order of this request within its warp's stream.
    pub seq: u32,
    /// Load, store or atomic.
    pub kind: Kind,
    /// Memory path.
    pub path: Path,
    /// Addresses touched.
    pub access: Access,
}

/// A request as stored in a trace: its sectors live in [`Trace::sectors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Req {
    pub kind: Kind,
    pub path: Path,
    pub start: u32,
    pub len: u32,
}

/// One CTA's warps: a range of [`Trace::warps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CtaStreams {
    pub id: u32,
    pub warp_start: u32,
    pub warp_end: u32,
}

/// Requests grouped by CTA (ascending id), then warp (ascending id), then `seq`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub(crate) ctas: Vec<CtaStreams>,
    /// Per warp, a `[start, end)` range of `reqs`.
    pub(crate) warps: Vec<(u32, u32)>,
    pub(crate) reqs: Vec<Req>,
    pub(crate) sectors: Vec<u64>,
}

impl Trace {
    /// Builds a trace from owned requests (any order).
    pub fn from_requests(requests: &[Request]) -> Result<Trace, CacheSimError> {
        let mut b = TraceBuilder::new();
        for r in requests {
            match &r.access {
                Access::Sectors(s) => b.push_sectors(r.cta, r.warp, r.seq, r.kind, r.path, s)?,
                Access::Lanes { addrs, bytes } => {
                    b.push_lanes(r.cta, r.warp, r.seq, r.kind, r.path, addrs, *bytes)?
                }
            }
        }
        b.build()
    }

    /// Number of CTAs in the trace (those with at least one request).
    pub fn cta_count(&self) -> usize {
        self.ctas.len()
    }

    /// Ids of the CTAs in the trace, ascending.
    pub fn cta_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.ctas.iter().map(|c| c.id)
    }

    /// Total number of requests.
    pub fn request_count(&self) -> usize {
        self.reqs.len()
    }

    /// Distinct 32-byte sectors the trace touches.
    pub fn distinct_sectors(&self) -> usize {
        let mut s = self.sectors.clone();
        s.sort_unstable();
        s.dedup();
        s.len()
    }

    /// Total number of (request, sector) accesses.
    pub fn sector_count(&self) -> usize {
        self.sectors.len()
    }
}

/// A position in a [`TraceBuilder`] ([`TraceBuilder::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceMark {
    entries: usize,
    sectors: usize,
}

/// Accumulates requests without one allocation per request, then sorts them
/// into a [`Trace`].
#[derive(Debug, Default)]
pub struct TraceBuilder {
    entries: Vec<Entry>,
    sectors: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    cta: u32,
    warp: u32,
    seq: u32,
    req: Req,
}

impl TraceBuilder {
    /// An empty builder.
    pub fn new() -> TraceBuilder {
        TraceBuilder::default()
    }

    /// Where the builder stands now, for [`TraceBuilder::rewind`].
    pub fn mark(&self) -> TraceMark {
        TraceMark {
            entries: self.entries.len(),
            sectors: self.sectors.len(),
        }
    }

    /// Drop every request pushed since `mark` (a CTA cut short by a cap on
    /// the trace's size); a mark from another builder or the future is ignored.
    pub fn rewind(&mut self, mark: TraceMark) {
        if mark.entries <= self.entries.len() && mark.sectors <= self.sectors.len() {
            self.entries.truncate(mark.entries);
            self.sectors.truncate(mark.sectors);
        }
    }

    /// Requests pushed so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No request pushed yet?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds a request given its sector addresses (aligned down to 32 B, deduplicated).
    pub fn push_sectors(
        &mut self,
        cta: u32,
        warp: u32,
        seq: u32,
        kind: Kind,
        path: Path,
        sectors: &[u64],
    ) -> Result<(), CacheSimError> {
        check_kind_path(kind, path)?;
        let start = self.sectors.len();
        let mask = !u64::from(TRACE_SECTOR_BYTES - 1);
        self.sectors.extend(sectors.iter().map(|s| s & mask));
        self.finish_entry(cta, warp, seq, kind, path, start)
    }

    /// Adds a request given the byte address of each active lane and the per-lane size;
    /// the covered sectors are computed here.
    #[allow(clippy::too_many_arguments)]
    pub fn push_lanes(
        &mut self,
        cta: u32,
        warp: u32,
        seq: u32,
        kind: Kind,
        path: Path,
        addrs: &[u64],
        bytes: u32,
    ) -> Result<(), CacheSimError> {
        check_kind_path(kind, path)?;
        if bytes == 0 {
            return Err(CacheSimError::LaneAccess(
                "access size of 0 bytes".to_string(),
            ));
        }
        let start = self.sectors.len();
        let sb = u64::from(TRACE_SECTOR_BYTES);
        for &a in addrs {
            let last = a.checked_add(u64::from(bytes) - 1).ok_or_else(|| {
                CacheSimError::LaneAccess(format!("{bytes} bytes at {a:#x} wrap around"))
            })?;
            let mut s = a / sb;
            while s <= last / sb {
                self.sectors.push(s * sb);
                s += 1;
            }
        }
        self.finish_entry(cta, warp, seq, kind, path, start)
    }

    /// Sorts and deduplicates the sectors just pushed and records the entry.
    fn finish_entry(
        &mut self,
        cta: u32,
        warp: u32,
        seq: u32,
        kind: Kind,
        path: Path,
        start: usize,
    ) -> Result<(), CacheSimError> {
        let tail = &mut self.sectors[start..];
        // A warp's lanes usually ascend already; then no sort is needed
        // (sorting was a tenth of a GEMM's emulation).
        if !tail.is_sorted() {
            tail.sort_unstable();
        }
        let mut kept = 0usize;
        for i in 0..tail.len() {
            if i == 0 || tail[i] != tail[kept - 1] {
                tail[kept] = tail[i];
                kept += 1;
            }
        }
        self.sectors.truncate(start + kept);
        let too_large = || CacheSimError::TooLarge("more than 2^32 sectors".to_string());
        let start32 = u32::try_from(start).map_err(|_| too_large())?;
        let len32 = u32::try_from(kept).map_err(|_| too_large())?;
        u32::try_from(start + kept).map_err(|_| too_large())?;
        self.entries.push(Entry {
            cta,
            warp,
            seq,
            req: Req {
                kind,
                path,
                start: start32,
                len: len32,
            },
        });
        Ok(())
    }

    /// Groups the requests by CTA and warp and orders each warp's stream by `seq`.
    pub fn build(mut self) -> Result<Trace, CacheSimError> {
        // Stable sort: equal keys keep push order, but equal keys are rejected below.
        self.entries.sort_by_key(|e| (e.cta, e.warp, e.seq));
        let too_large = || CacheSimError::TooLarge("more than 2^32 requests".to_string());
        let mut trace = Trace {
            sectors: self.sectors,
            ..Trace::default()
        };
        trace.reqs.reserve(self.entries.len());
        let mut prev: Option<(u32, u32, u32)> = None;
        for e in &self.entries {
            let idx = u32::try_from(trace.reqs.len()).map_err(|_| too_large())?;
            match prev {
                Some((c, w, s)) if c == e.cta && w == e.warp => {
                    if s == e.seq {
                        return Err(CacheSimError::DuplicateSeq {
                            cta: e.cta,
                            warp: e.warp,
                            seq: e.seq,
                        });
                    }
                }
                Some((c, _, _)) if c == e.cta => {
                    trace.warps.push((idx, idx));
                }
                _ => {
                    let w = u32::try_from(trace.warps.len()).map_err(|_| too_large())?;
                    trace.ctas.push(CtaStreams {
                        id: e.cta,
                        warp_start: w,
                        warp_end: w,
                    });
                    trace.warps.push((idx, idx));
                }
            }
            trace.reqs.push(e.req);
            if let Some(w) = trace.warps.last_mut() {
                w.1 = idx + 1;
            }
            if let Some(c) = trace.ctas.last_mut() {
                c.warp_end = u32::try_from(trace.warps.len()).map_err(|_| too_large())?;
            }
            prev = Some((e.cta, e.warp, e.seq));
        }
        Ok(trace)
    }
}

/// Stores and atomics exist only on the global and local paths.
fn check_kind_path(kind: Kind, path: Path) -> Result<(), CacheSimError> {
    match (kind, path) {
        (Kind::Load, _) | (_, Path::Global) | (Kind::Store, Path::Local) => Ok(()),
        _ => Err(CacheSimError::KindOnPath { kind, path }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sectors computed from lanes: (addrs, bytes) -> sorted distinct sector addresses.
    fn check(addrs: &[u64], bytes: u32, expect: &[u64]) {
        let mut b = TraceBuilder::new();
        b.push_lanes(0, 0, 0, Kind::Load, Path::Global, addrs, bytes)
            .unwrap();
        let t = b.build().unwrap();
        assert_eq!(t.sectors, expect);
    }

    #[test]
    fn lanes_to_sectors() {
        // 32 lanes x 4 B consecutive from 0: 128 B = sectors 0,32,64,96.
        let a: Vec<u64> = (0..32).map(|i| i * 4).collect();
        check(&a, 4, &[0, 32, 64, 96]);
        // Same, misaligned by 16 B: 16..144 touches 5 sectors.
        let a: Vec<u64> = (0..32).map(|i| 16 + i * 4).collect();
        check(&a, 4, &[0, 32, 64, 96, 128]);
        // Broadcast: every lane reads address 100 -> one sector (96).
        check(&[100; 32], 4, &[96]);
        // An 8-byte access straddling a sector boundary (28..35) -> 2 sectors.
        check(&[28], 8, &[0, 32]);
        // Stride 32 B, 4 lanes -> 4 sectors.
        check(&[0, 32, 64, 96], 4, &[0, 32, 64, 96]);
        // No active lanes -> no sectors.
        check(&[], 4, &[]);
    }

    #[test]
    fn grouping_and_errors() {
        let mut b = TraceBuilder::new();
        b.push_sectors(3, 1, 5, Kind::Load, Path::Global, &[64])
            .unwrap();
        b.push_sectors(3, 1, 2, Kind::Load, Path::Global, &[0])
            .unwrap();
        b.push_sectors(1, 0, 0, Kind::Load, Path::Global, &[33, 40])
            .unwrap();
        let t = b.build().unwrap();
        assert_eq!(t.cta_ids().collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(t.warps, vec![(0, 1), (1, 3)]);
        // CTA 1's request: 33 and 40 both align to 32 -> one sector.
        assert_eq!(t.reqs[0].len, 1);
        // CTA 3 warp 1: seq 2 (sector 0) before seq 5 (sector 64).
        assert_eq!(t.sectors[t.reqs[1].start as usize], 0);
        assert_eq!(t.sectors[t.reqs[2].start as usize], 64);

        let mut b = TraceBuilder::new();
        b.push_sectors(0, 0, 1, Kind::Load, Path::Global, &[0])
            .unwrap();
        b.push_sectors(0, 0, 1, Kind::Load, Path::Global, &[32])
            .unwrap();
        assert_eq!(
            b.build(),
            Err(CacheSimError::DuplicateSeq {
                cta: 0,
                warp: 0,
                seq: 1
            })
        );
        let mut b = TraceBuilder::new();
        assert!(matches!(
            b.push_sectors(0, 0, 0, Kind::Store, Path::Constant, &[0]),
            Err(CacheSimError::KindOnPath { .. })
        ));
        assert!(matches!(
            b.push_lanes(0, 0, 0, Kind::Load, Path::Global, &[u64::MAX], 4),
            Err(CacheSimError::LaneAccess(_))
        ));
    }
}
