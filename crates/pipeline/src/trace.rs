//! [`TraceRecorder`]: an emulator observer that records the global, local and
//! constant memory accesses of the watched CTAs as a [`cachesim::Trace`].
//!
//! Shared and parameter accesses never reach the caches and are skipped.
//! Read-only (`ld.global.nc`) loads are recorded on the global path (the
//! emulator's event does not carry the cache operator; on sm_70+ both go
//! through L1, so the difference only matters for older parts). Recording
//! stops after [`MAX_TRACE_REQUESTS`] requests; the cache model is then
//! skipped rather than fed a truncated stream.

use std::collections::{HashMap, HashSet};

use cachesim::{Kind, Path, TraceBuilder};
use emu::mem::Space;
use emu::observer::{AccessKind, MemEvent, Observer};

/// Most warp-level requests recorded (about 40 bytes each plus their sectors).
pub const MAX_TRACE_REQUESTS: usize = 4_000_000;

/// Records memory requests for the cache model.
#[derive(Debug, Default)]
pub struct TraceRecorder {
    builder: TraceBuilder,
    /// Next `seq` of each (cta, warp).
    seq: HashMap<(u32, u32), u32>,
    watch: Option<HashSet<u32>>,
    requests: usize,
    /// Set when the trace hit its cap or a request could not be recorded.
    pub overflow: Option<String>,
    lanes: Vec<u64>,
}

impl TraceRecorder {
    /// Record the CTAs in `watch` (None: all).
    pub fn new(watch: Option<&[u32]>) -> TraceRecorder {
        TraceRecorder {
            watch: watch.map(|w| w.iter().copied().collect()),
            ..TraceRecorder::default()
        }
    }

    /// The recorded trace, or why there is none.
    pub fn finish(self) -> Result<cachesim::Trace, String> {
        if let Some(why) = self.overflow {
            return Err(why);
        }
        self.builder.build().map_err(|e| e.to_string())
    }
}

impl Observer for TraceRecorder {
    fn memory(&mut self, e: &MemEvent<'_>) {
        if self.overflow.is_some() || e.active == 0 {
            return;
        }
        if self
            .watch
            .as_ref()
            .is_some_and(|w| !w.contains(&e.site.cta))
        {
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
        if self.requests >= MAX_TRACE_REQUESTS {
            self.overflow = Some(format!(
                "more than {MAX_TRACE_REQUESTS} memory requests: cache model skipped (use --sample-ctas)"
            ));
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
            self.overflow = Some(format!("cache trace: {err}"));
        }
    }
}
