//! [`TraceRecorder`]: an emulator observer that records the global, local and
//! constant memory accesses of the watched CTAs as a [`cachesim::Trace`].
//!
//! Shared and parameter accesses never reach the caches and are skipped.
//! Read-only loads (`ld.global.nc`: `__ldg`, or a pointer the compiler proved
//! read-only) are recorded on the read-only path when the recorder knows the
//! module ([`TraceRecorder::with_read_only_loads`]): the emulator's event does
//! not carry the cache operator, so the recorder looks the instruction up by
//! its site. The path matters before Volta, where plain global loads skip L1
//! (Kepler, Maxwell, GP10x) but the read-only path is cached (Kepler's
//! read-only data cache, Maxwell's and Pascal's L1/texture cache); from
//! Volta on both go through L1. Recording
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
use ptx::Module;

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
    /// Per function (the emulator's numbering), per instruction: a load on
    /// the read-only path. Empty: every global access is on the global path.
    read_only: Vec<Vec<bool>>,
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

    /// Record `module`'s read-only loads (`ld.global.nc`) on the read-only
    /// path; without this they are recorded as plain global loads.
    pub fn with_read_only_loads(mut self, module: &Module) -> TraceRecorder {
        self.read_only = module
            .functions
            .iter()
            .map(|(_, f)| {
                f.instructions
                    .iter()
                    .map(|(_, i)| i.is_read_only_load())
                    .collect()
            })
            .collect();
        self
    }

    /// Whether the instruction at `func`, `pc` is a read-only load.
    fn is_read_only(&self, func: u32, pc: u32) -> bool {
        self.read_only
            .get(func as usize)
            .and_then(|f| f.get(pc as usize))
            .copied()
            .unwrap_or(false)
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
            (Space::Global, Kind::Load) if self.is_read_only(e.site.func, e.site.pc) => {
                Path::ReadOnly
            }
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

    /// A one-lane global load by warp 0 of CTA `cta`, instruction `pc`.
    fn load_at(r: &mut TraceRecorder, cta: u32, pc: u32, addrs: &[u64; 32]) {
        r.memory(&MemEvent {
            site: Site {
                cta,
                warp: 0,
                func: 0,
                pc,
                line: 0,
            },
            space: Space::Global,
            kind: AccessKind::Load,
            size: 4,
            active: 1,
            addrs,
        });
    }

    /// `n` one-lane global loads of CTA `cta` at addresses 0, 128, ...
    fn cta(r: &mut TraceRecorder, cta: u32, n: u32) {
        r.cta_begin(cta);
        let mut addrs = [0u64; 32];
        for i in 0..n {
            addrs[0] = u64::from(i) * 128;
            load_at(r, cta, i, &addrs);
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

    const TWO_LOADS: &str = ".version 7.8\n.target sm_50\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n.reg .f32 %f<3>;\n\
        ld.param.u64 %rd1, [p];\nld.global.nc.f32 %f1, [%rd1];\n\
        ld.global.f32 %f2, [%rd1];\nret;\n}\n";

    /// The cache model's report of one load from each of `pcs` (CTA 0,
    /// warp 0, all at address 0), recorded with or without the module's
    /// read-only loads, on a part whose plain global loads skip L1.
    fn simulate_loads(know_module: bool, pcs: &[u32]) -> cachesim::CacheReport {
        let module = match ptx::parse("t.ptx", TWO_LOADS) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render("t.ptx", TWO_LOADS)),
        };
        let mut r = TraceRecorder::new(None);
        if know_module {
            r = r.with_read_only_loads(&module);
        }
        r.cta_begin(0);
        let addrs = [0u64; 32];
        for &pc in pcs {
            load_at(&mut r, 0, pc, &addrs);
        }
        r.cta_end(0);
        let t = match r.finish() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        let mut config = cachesim::CacheConfig::sm70_like(16 * 1024, 1 << 20);
        config.global_loads_allocate_l1 = false;
        let launch = cachesim::Launch {
            grid_ctas: 1,
            resident_ctas_per_sm: 1,
            num_sms: 1,
            cta_weight: None,
        };
        match cachesim::simulate(&config, &launch, &t.trace) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// `expect`: the (global, read-only) load requests the cache model sees.
    fn check_paths(know_module: bool, pcs: &[u32], expect: (u64, u64)) {
        let paths = simulate_loads(know_module, pcs).total.paths;
        assert_eq!(
            (paths.global.load_requests, paths.readonly.load_requests),
            expect,
            "loads at {pcs:?}, module known: {know_module}"
        );
    }

    #[test]
    fn read_only_loads_take_the_read_only_path() {
        // pc 1 is ld.global.nc, pc 2 ld.global (pc 0 is ld.param).
        check_paths(true, &[1], (0, 1));
        check_paths(true, &[2], (1, 0));
        check_paths(true, &[1, 2, 1], (1, 2));
        // Without the module, every global load is on the global path.
        check_paths(false, &[1, 2, 1], (3, 0));
        // A site past the function's instructions is a plain global load.
        check_paths(true, &[99], (1, 0));
    }

    #[test]
    fn a_read_only_load_is_cached_where_plain_global_loads_skip_l1() {
        // Two reads of the same sector: on the read-only path the second hits L1.
        assert_eq!(simulate_loads(true, &[1, 1]).total.l1.hits, 1);
        assert_eq!(simulate_loads(true, &[2, 2]).total.l1.hits, 0);
        assert_eq!(simulate_loads(false, &[1, 1]).total.l1.hits, 0);
    }
}
