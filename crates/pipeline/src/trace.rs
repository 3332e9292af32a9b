//! [`TraceRecorder`]: an emulator observer that records the global, local and
//! constant memory accesses of the watched CTAs as a [`cachesim::Trace`].
//!
//! Shared and parameter accesses never reach the caches and are skipped.
//! Read-only (`ld.global.nc`) loads are recorded on the global path (the
//! emulator's event does not carry the cache operator; on sm_70+ both go
//! through L1, so the difference only matters for older parts). Recording
//! stops at the end of the last whole CTA within [`MAX_TRACE_REQUESTS`]
//! requests (the CTA that crosses the cap is dropped, so that the cache model
//! never sees a CTA cut short); the requests of the CTAs after it are still
//! counted, and [`TraceRecorder::finish`] reports how many requests each
//! recorded one stands for. Only when the first CTA alone crosses the cap is
//! there no trace.

use std::collections::{HashMap, HashSet};

use cachesim::{CacheSimError, Kind, Path, TraceBuilder, TraceMark};
use emu::mem::Space;
use emu::observer::{AccessKind, MemEvent, Observer};

/// Most warp-level requests recorded (about 40 bytes each plus their sectors).
pub const MAX_TRACE_REQUESTS: usize = 4_000_000;

/// Records memory requests for the cache model.
/// Why a run left no cache trace (the run itself stands; the cache model is
/// skipped with this as its note).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoTrace {
    /// Even the first recorded CTA crossed the request cap.
    #[error("one CTA makes more than {cap} memory requests: cache model skipped")]
    CtaOverCap { cap: usize },
    /// A request could not be recorded.
    #[error("cache trace: {0}")]
    Push(CacheSimError),
    /// The recorded requests did not form a trace.
    #[error("{0}")]
    Build(CacheSimError),
}

#[derive(Debug, Default)]
pub struct TraceRecorder {
    builder: TraceBuilder,
    /// Next `seq` of each (cta, warp).
    seq: HashMap<(u32, u32), u32>,
    watch: Option<HashSet<u32>>,
    requests: usize,
    /// Set when the trace hit its cap or a request could not be recorded.
    pub overflow: Option<NoTrace>,
    lanes: Vec<u64>,
    /// Most requests recorded ([`MAX_TRACE_REQUESTS`] unless a test says).
    cap: usize,
    /// Where the running CTA's requests begin.
    cta_mark: TraceMark,
    /// The cap was reached: later CTAs are counted, not recorded.
    full: bool,
    /// Requests of the watched CTAs, recorded or not.
    seen: u64,
}

/// A recorded trace and how many requests each of its requests stands for
/// (1 unless the cap cut the recording short).
#[derive(Debug)]
pub struct RecordedTrace {
    pub trace: cachesim::Trace,
    pub weight: f64,
}

impl TraceRecorder {
    /// Record the CTAs in `watch` (None: all).
    pub fn new(watch: Option<&[u32]>) -> TraceRecorder {
        TraceRecorder::with_cap(watch, MAX_TRACE_REQUESTS)
    }

    /// Record the CTAs in `watch` (None: all), at most `cap` requests.
    pub fn with_cap(watch: Option<&[u32]>, cap: usize) -> TraceRecorder {
        TraceRecorder {
            watch: watch.map(|w| w.iter().copied().collect()),
            cap,
            ..TraceRecorder::default()
        }
    }

    /// The recorded trace, or why there is none.
    pub fn finish(self) -> Result<RecordedTrace, NoTrace> {
        if let Some(why) = self.overflow {
            return Err(why);
        }
        let recorded = self.builder.len() as f64;
        let weight = if recorded > 0.0 {
            (self.seen as f64 / recorded).max(1.0)
        } else {
            1.0
        };
        let trace = self.builder.build().map_err(NoTrace::Build)?;
        Ok(RecordedTrace { trace, weight })
    }

    fn watched(&self, cta: u32) -> bool {
        self.watch.as_ref().is_none_or(|w| w.contains(&cta))
    }
}

impl Observer for TraceRecorder {
    fn cta_begin(&mut self, cta: u32) {
        if !self.full && self.watched(cta) {
            self.cta_mark = self.builder.mark();
        }
    }

    fn memory(&mut self, e: &MemEvent<'_>) {
        if self.overflow.is_some() || e.active == 0 {
            return;
        }
        if !self.watched(e.site.cta) {
            return;
        }
        let kind = match e.kind {
            AccessKind::Load => Kind::Load,
            AccessKind::Store => Kind::Store,
            AccessKind::Atomic => Kind::Atomic,
        };
        let path = match (e.space, kind) {
            (Space::Global, _) => Path::Global,
            (Space::Local, Kind::Load | Kind::Store) => Path::Local,
            (Space::Const, Kind::Load) => Path::Constant,
            _ => return,
        };
        self.seen += 1;
        if self.full {
            return;
        }
        if self.requests >= self.cap {
            // Drop the CTA that crossed the cap; keep counting.
            self.builder.rewind(self.cta_mark);
            self.requests = self.builder.len();
            self.full = true;
            if self.builder.is_empty() {
                self.overflow = Some(NoTrace::CtaOverCap { cap: self.cap });
            }
            return;
        }
        self.lanes.clear();
        self.lanes.extend(
            e.addrs
                .iter()
                .enumerate()
                .filter(|&(lane, _)| e.active >> lane & 1 == 1)
                .map(|(_, &a)| a),
        );
        let seq = self.seq.entry((e.site.cta, e.site.warp)).or_insert(0);
        let s = *seq;
        *seq = seq.saturating_add(1);
        self.requests += 1;
        if let Err(err) = self.builder.push_lanes(
            e.site.cta,
            e.site.warp,
            s,
            kind,
            path,
            &self.lanes,
            e.size.max(1),
        ) {
            self.overflow = Some(NoTrace::Push(err));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use emu::observer::Site;

    /// `n` one-lane global loads of CTA `cta` at addresses 0, 128, ...
    fn cta(r: &mut TraceRecorder, cta: u32, n: u32) {
        r.cta_begin(cta);
        let mut addrs = [0u64; 32];
        for i in 0..n {
            addrs[0] = u64::from(i) * 128;
            r.memory(&MemEvent {
                site: Site {
                    cta,
                    warp: 0,
                    func: 0,
                    pc: i,
                    line: 0,
                },
                space: Space::Global,
                kind: AccessKind::Load,
                size: 4,
                active: 1,
                addrs: &addrs,
            });
        }
        r.cta_end(cta);
    }

    #[test]
    fn the_cap_drops_the_crossing_cta_and_weights_the_rest() {
        let mut r = TraceRecorder::with_cap(None, 4);
        cta(&mut r, 0, 3);
        cta(&mut r, 1, 3); // crosses the cap at its second request: dropped
        cta(&mut r, 2, 2); // counted, not recorded
        let t = match r.finish() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(t.trace.request_count(), 3);
        assert!(t.trace.cta_ids().all(|c| c == 0));
        // 8 requests seen, 3 recorded.
        assert_eq!(t.weight, 8.0 / 3.0);
    }

    #[test]
    fn under_the_cap_everything_is_recorded() {
        let mut r = TraceRecorder::with_cap(None, 100);
        cta(&mut r, 0, 3);
        cta(&mut r, 1, 3);
        let t = match r.finish() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(t.trace.request_count(), 6);
        assert_eq!(t.weight, 1.0);
    }

    #[test]
    fn a_first_cta_over_the_cap_leaves_no_trace() {
        let mut r = TraceRecorder::with_cap(None, 2);
        cta(&mut r, 0, 3);
        match r.finish() {
            Ok(_) => panic!("expected no trace"),
            Err(e) => assert!(e.to_string().contains("more than 2"), "{e}"),
        }
    }
}
