//! [`Collector`]: the observer of the emulator that counts what the metrics need.
//!
//! Conventions:
//! - a warp instruction is counted whatever its mask; its active threads are
//!   the lanes the emulator reports (guard-false lanes excluded), except that
//!   every active lane of a branch executes it (the emulator reports the taken
//!   lanes as the mask of a guarded branch; the branch event restores the rest);
//! - memory requests are warp accesses with at least one active lane
//!   (Kerr et al.'s "dynamic warps");
//! - inter-thread data flow is counted per 4-byte word: each word a lane
//!   loads from shared memory counts once, and counts as inter-thread when the
//!   last non-exempt store to it came from another thread of the CTA (see
//!   [`crate::static_info`] for the exemption).

use emu::mem::Space;
use emu::observer::{AccessKind, BarrierEvent, BranchEvent, MemEvent, Observer, Site};
use emu::simt::{Mask, WARP_SIZE, lanes};
use ptx::analysis::InstClass;

use crate::bank_memo::BankMemo;
use crate::banks::BankLayout;
use crate::coalesce::{Coalescing, Intervals, SECTOR_BYTES, both_protocols};
use crate::counters::{AccessCounters, ClassCounts, LineCounters, Totals, kind_index};
use crate::live_cta::LiveCta;
use crate::sector_set::SectorSet;
use crate::static_info::{InstTable, Specials};
use crate::wide_shared::{Pending, Wide};

/// One CTA's dynamic instruction counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaCounts {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
}

/// Global sectors that a collector's CTAs loaded and stored.
#[derive(Debug, Clone, Default)]
pub(crate) struct Traffic {
    pub(crate) loads: SectorSet,
    /// Stores and atomics.
    pub(crate) stores: SectorSet,
}

impl Traffic {
    fn set(&mut self, kind: AccessKind) -> &mut SectorSet {
        match kind {
            AccessKind::Load => &mut self.loads,
            AccessKind::Store | AccessKind::Atomic => &mut self.stores,
        }
    }

    fn add(&mut self, kind: AccessKind, intervals: &Intervals) {
        let set = self.set(kind);
        for &(s, e) in intervals.spans() {
            set.insert_bytes(s, e);
        }
    }

    pub(crate) fn union_with(&mut self, o: &Traffic) {
        self.loads.union_with(&o.loads);
        self.stores.union_with(&o.stores);
    }
}

/// The parts of an instruction's class it is counted in as well (see
/// [`crate::static_info::InstInfo`]).
#[derive(Debug, Clone, Copy, Default)]
struct Parts {
    fused: bool,
    specials: Specials,
}

/// Counts events of the CTAs it is told to watch.
#[derive(Debug)]
pub struct Collector<'t> {
    pub(crate) table: &'t InstTable,
    pub(crate) threads_per_cta: u32,
    /// CTAs to watch, ascending (None: all).
    pub(crate) watch: Option<Vec<u32>>,
    pub(crate) totals: Totals,
    /// Watched CTAs in the order they ran (ascending once merged).
    pub(crate) ctas: Vec<(u32, CtaCounts)>,
    live: LiveCta,
    pub(crate) max_depth: u32,
    /// Per-thread maximum and sum over threads of the watched CTAs, by class.
    pub(crate) thread_max: ClassCounts,
    pub(crate) thread_sum: ClassCounts,
    pub(crate) threads_seen: u64,
    /// `[func][pc]` attribution.
    pub(crate) lines: Vec<Vec<LineCounters>>,
    /// Global sectors of the watched CTAs' global accesses (the footprint).
    pub(crate) watched: Traffic,
    /// When set, the global bytes every other access touches too (unwatched
    /// CTAs, generic lanes inside non-global events): a forked run checks
    /// with them that no range read what an earlier range wrote.
    pub(crate) others: Option<Traffic>,
    /// Byte ranges `[base, end)` of the buffers in mapped (zero-copy) host
    /// memory, set after the run (None: the launch has none).
    pub(crate) host_mapped: Option<Vec<(u64, u64)>>,
    /// Per warp of the running CTA, the members of merged shared accesses
    /// still to run ([`crate::wide_shared`]).
    wide_pending: Vec<Pending>,
    /// The bank conflicts of each shared instruction's last access (warp
    /// and half-warp layouts), and of each global load's data stage.
    shared_banks: BankMemo<2>,
    load_banks: BankMemo<1>,
}

/// A memo's key for the instruction at `site`.
fn site_key(site: Site) -> u64 {
    (u64::from(site.func) << 32) | u64::from(site.pc)
}

impl<'t> Collector<'t> {
    /// A collector for a launch with `threads_per_cta` threads per CTA;
    /// `watch` limits it to some CTAs (sampling).
    pub fn new(table: &'t InstTable, threads_per_cta: u32, watch: Option<&[u32]>) -> Collector<'t> {
        let lines = (0..table.functions() as u32)
            .map(|f| vec![LineCounters::default(); table.len(f)])
            .collect();
        Collector {
            table,
            threads_per_cta,
            watch: watch.map(|w| {
                let mut v = w.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            }),
            totals: Totals::new(),
            ctas: Vec::new(),
            live: LiveCta::default(),
            max_depth: 0,
            thread_max: [0; InstClass::COUNT],
            thread_sum: [0; InstClass::COUNT],
            threads_seen: 0,
            lines,
            watched: Traffic::default(),
            others: None,
            host_mapped: None,
            wide_pending: vec![
                Pending::default();
                threads_per_cta.div_ceil(WARP_SIZE as u32) as usize
            ],
            shared_banks: BankMemo::default(),
            load_banks: BankMemo::default(),
        }
    }

    /// A collector that also records every global access of every CTA, for
    /// one range of a forked run.
    pub(crate) fn tracking(
        table: &'t InstTable,
        threads_per_cta: u32,
        watch: Option<&[u32]>,
    ) -> Collector<'t> {
        Collector {
            others: Some(Traffic::default()),
            ..Collector::new(table, threads_per_cta, watch)
        }
    }

    /// Distinct sectors the watched CTAs loaded from, and stored or did
    /// atomics to, buffers in mapped host memory (None: there are none).
    pub(crate) fn host_mapped_sectors(&self) -> Option<(u64, u64)> {
        let ranges = self.host_mapped.as_ref()?;
        let count = |set: &SectorSet| -> u64 {
            ranges
                .iter()
                .filter(|(base, end)| end > base)
                .map(|&(base, end)| set.sectors_in(base / SECTOR_BYTES, (end - 1) / SECTOR_BYTES))
                .sum()
        };
        Some((count(&self.watched.loads), count(&self.watched.stores)))
    }

    pub fn table(&self) -> &InstTable {
        self.table
    }

    fn watched(&self, cta: u32) -> bool {
        self.watch
            .as_ref()
            .is_none_or(|w| w.binary_search(&cta).is_ok())
    }

    fn line_mut(&mut self, site: Site) -> Option<&mut LineCounters> {
        self.lines
            .get_mut(site.func as usize)?
            .get_mut(site.pc as usize)
    }

    /// Count `mask`'s lanes as executing the instruction at `site` (thread level).
    fn count_threads(&mut self, site: Site, class: InstClass, mask: Mask, parts: Parts) {
        let n = u64::from(mask.count_ones());
        self.totals.thread[class.index()] += n;
        if parts.fused {
            self.totals.fused.1[class.index()] += n;
        }
        parts.specials.add_to(&mut self.totals.special.1, n);
        self.live.thread_instructions += n;
        if let Some(l) = self.line_mut(site) {
            l.threads += n;
        }
        self.live.count(site.warp, class, mask);
    }

    fn global_access(&mut self, e: &MemEvent<'_>) {
        let (cc12, sectors, intervals) = both_protocols(e.active, e.addrs, e.size);
        let minimal = sectors.bytes_used.div_ceil(SECTOR_BYTES).max(1);
        let counters = &mut self.totals.global[kind_index(e.kind)];
        add_access(counters, e.active, &cc12, &sectors, minimal);
        if e.kind == AccessKind::Load
            && self
                .table
                .get(e.site.func, e.site.pc)
                .is_some_and(|i| i.read_only)
        {
            let ro = &mut self.totals.read_only_loads;
            add_access(ro, e.active, &cc12, &sectors, minimal);
        }
        self.totals.sector_accesses += sectors.transactions;
        if e.kind == AccessKind::Load {
            // From Volta on, L1 and shared memory are one banked array: a
            // global load's data leaves it in passes as a shared load of
            // the same addresses would (Nsight Compute on the H200: CLBlast's
            // GEMM, data/measured/h200-sxm-141gb/README.md, "Fourth loan"),
            // except that every phase takes its own pass: the counters show
            // no pair of phases sharing one, as a shared load's do.
            let layout = BankLayout::WARP32.for_width(e.size).unpaired();
            let [c] = self
                .load_banks
                .costs(site_key(e.site), [layout], e.active, e.addrs, e.size);
            let passes = c.passes;
            self.totals.global_load_wavefronts += u64::from(passes);
        }
        // The sectors of the merged byte intervals are those of the lanes.
        self.watched.add(e.kind, &intervals);
        if let Some(l) = self.line_mut(e.site) {
            l.transactions_cc12 += cc12.transactions;
            l.transactions_sectors += sectors.transactions;
            l.global_bytes += sectors.bytes_requested;
        }
    }

    /// Record for the range check the global bytes of an access the
    /// counters do not see: all of it when the event says global, else its
    /// lanes whose generic address lands in global memory.
    fn track(&mut self, e: &MemEvent<'_>) {
        let Some(others) = self.others.as_mut() else {
            return;
        };
        let mask = if e.space == Space::Global {
            e.active
        } else {
            lanes(e.active)
                .filter(|&l| is_global(e.addrs[l]))
                .fold(0, |m, l| m | 1 << l)
        };
        if mask != 0 {
            others.add(e.kind, &Intervals::of(mask, e.addrs, e.size));
        }
    }

    fn local_access(&mut self, e: &MemEvent<'_>) {
        // Local memory is interleaved per thread by the hardware, so a warp's
        // access to the same local offset is contiguous: ceil(bytes / 32) sectors.
        let bytes = u64::from(e.active.count_ones()) * u64::from(e.size.max(1));
        let sectors = bytes.div_ceil(SECTOR_BYTES);
        let c = Coalescing {
            transactions: sectors,
            bytes_transferred: sectors * SECTOR_BYTES,
            bytes_used: bytes,
            bytes_requested: bytes,
            lines: bytes.div_ceil(128),
        };
        add_access(
            &mut self.totals.local[kind_index(e.kind)],
            e.active,
            &c,
            &c,
            sectors,
        );
    }

    fn shared_access(&mut self, e: &MemEvent<'_>) {
        // Neighbouring accesses ptxas issues as one wider access count as
        // that access, at its first member (`wide_shared`); the bytes and
        // the data flow stay each member's.
        let mut window = [0u64; WARP_SIZE];
        let wide = match self.table.get(e.site.func, e.site.pc) {
            Some(info) if info.wide.iter().any(Option::is_some) => {
                match self.wide_pending.get_mut(e.site.warp as usize) {
                    Some(p) => p.access(
                        e,
                        &info.wide,
                        |g| self.table.wide_group(e.site.func, g),
                        &mut window,
                    ),
                    None => Wide::Single,
                }
            }
            _ => Wide::Single,
        };
        let access = match wide {
            Wide::Single => Some((e.size, e.addrs)),
            Wide::Merged(width) => Some((width, &window)),
            Wide::Covered => {
                self.totals.shared_merged += 1;
                None
            }
        };
        let s = &mut self.totals.shared[kind_index(e.kind)];
        s.thread_accesses += u64::from(e.active.count_ones());
        s.bytes += u64::from(e.active.count_ones()) * u64::from(e.size);
        let mut passes = 0;
        if let Some((size, addrs)) = access {
            let layouts = [BankLayout::WARP32.for_width(size), BankLayout::HALF_WARP16];
            let [w32, h16] =
                self.shared_banks
                    .costs(site_key(e.site), layouts, e.active, addrs, size);
            s.requests += 1;
            // Passes, not ways: a wide access is served by phases (`for_width`).
            s.ways += u64::from(w32.passes);
            s.max_ways = s.max_ways.max(u64::from(w32.ways));
            s.ways16 += u64::from(h16.ways);
            s.passes16 += u64::from(h16.passes);
            passes = w32.passes;
        }
        if e.kind != AccessKind::Atomic
            && let Some(l) = self.line_mut(e.site)
        {
            if access.is_some() {
                l.shared_requests += 1;
                l.conflict_ways += u64::from(passes);
            }
            l.shared_bytes += u64::from(e.active.count_ones()) * u64::from(e.size);
        }
        self.data_flow(e);
    }

    /// Inter-thread data flow through shared memory (Kerr et al. section IV.C).
    fn data_flow(&mut self, e: &MemEvent<'_>) {
        let exempt = self
            .table
            .get(e.site.func, e.site.pc)
            .is_some_and(|i| i.exempt_store);
        let words = u64::from(e.size.max(1)).div_ceil(4);
        for lane in lanes(e.active) {
            let thread = e.site.warp * WARP_SIZE as u32 + lane as u32;
            let first = e.addrs[lane] / 4;
            for w in first..first.saturating_add(words) {
                match e.kind {
                    AccessKind::Load => {
                        self.totals.shared_words_loaded += 1;
                        if self.live.producer(w).is_some_and(|p| p != thread) {
                            self.totals.inter_thread_words += 1;
                        }
                    }
                    // Exempt stores leave the annotation as it was (the paper's words).
                    AccessKind::Store if !exempt => self.live.set_producer(w, thread),
                    AccessKind::Store | AccessKind::Atomic => {}
                }
            }
        }
    }
}

/// Whether a (global or generic) address is in global memory: explicit
/// shared and local addresses are small offsets, generic windows of the
/// other spaces sit far above the global allocations.
fn is_global(addr: u64) -> bool {
    addr >= emu::mem::generic::WINDOW && emu::mem::generic::resolve(addr).0 == Space::Global
}

fn add_access(
    c: &mut AccessCounters,
    active: Mask,
    cc12: &Coalescing,
    sectors: &Coalescing,
    minimal: u64,
) {
    c.requests += 1;
    c.thread_accesses += u64::from(active.count_ones());
    c.cc12.add(cc12);
    c.sectors.add(sectors);
    if sectors.transactions <= minimal {
        c.coalesced_requests += 1;
        c.coalesced_sectors += sectors.transactions;
    }
}

/// Largest number of active lanes on one address.
fn same_address_lanes(active: Mask, addrs: &[u64; WARP_SIZE]) -> u64 {
    let mut buf = [0u64; WARP_SIZE];
    let mut n = 0;
    for l in lanes(active) {
        buf[n] = addrs[l];
        n += 1;
    }
    let v = &mut buf[..n];
    v.sort_unstable();
    let (mut best, mut run) = (0u64, 0u64);
    for (i, a) in v.iter().enumerate() {
        run = if i > 0 && v[i - 1] == *a { run + 1 } else { 1 };
        best = best.max(run);
    }
    best
}

impl Observer for Collector<'_> {
    fn cta_begin(&mut self, cta: u32) {
        self.wide_pending.iter_mut().for_each(Pending::clear);
        if self.watched(cta) {
            self.live.begin(cta, self.threads_per_cta as usize);
        } else {
            self.live.watched = false;
        }
    }

    fn cta_end(&mut self, cta: u32) {
        if !self.live.watched || self.live.id != cta {
            return;
        }
        let counts = CtaCounts {
            warp_instructions: self.live.warp_instructions,
            thread_instructions: self.live.thread_instructions,
        };
        self.ctas.push((cta, counts));
        self.threads_seen += self.live.finish(&mut self.thread_max, &mut self.thread_sum);
    }

    fn instruction(&mut self, site: Site, active: Mask) {
        if !self.live.watched {
            return;
        }
        let Some(info) = self.table.get(site.func, site.pc) else {
            return;
        };
        let class = info.class;
        let parts = Parts {
            fused: info.fused,
            specials: info.specials,
        };
        self.totals.warp[class.index()] += 1;
        if parts.fused {
            self.totals.fused.0[class.index()] += 1;
        }
        if let Some((kind, macs)) = info.tensor {
            self.totals.tensor_macs[kind.index()] += u64::from(macs);
            self.totals.tensor_instructions += 1;
        }
        parts.specials.add_to(&mut self.totals.special.0, 1);
        self.live.warp_instructions += 1;
        if let Some(l) = self.line_mut(site) {
            l.executions += 1;
        }
        self.count_threads(site, class, active, parts);
    }

    fn memory(&mut self, e: &MemEvent<'_>) {
        if e.active == 0 {
            return;
        }
        if !self.live.watched {
            self.track(e);
            return;
        }
        if e.kind == AccessKind::Atomic {
            self.totals.atomic_requests += 1;
            self.totals.atomic_conflicts += same_address_lanes(e.active, e.addrs);
        }
        match e.space {
            Space::Global => self.global_access(e),
            Space::Shared => self.shared_access(e),
            Space::Local => self.local_access(e),
            Space::Param | Space::Const => {}
        }
        if e.space != Space::Global {
            self.track(e);
        }
    }

    fn branch(&mut self, e: &BranchEvent) {
        if !self.live.watched {
            return;
        }
        let conditional = self
            .table
            .get(e.site.func, e.site.pc)
            .is_some_and(|i| i.conditional);
        self.totals.branches += 1;
        if conditional {
            self.totals.conditional_branches += 1;
        }
        if e.divergent {
            self.totals.divergent_branches += 1;
            if conditional {
                self.totals.divergent_conditional += 1;
            }
            if let Some(l) = self.line_mut(e.site) {
                l.divergent += 1;
            }
        }
        // Lanes whose guard was false executed the branch too (not taken).
        let not_taken = e.active & !e.taken;
        if not_taken != 0 {
            self.count_threads(e.site, InstClass::Branch, not_taken, Parts::default());
        }
    }

    fn barrier(&mut self, _e: &BarrierEvent) {
        if self.live.watched {
            self.totals.barriers += 1;
        }
    }

    fn stack_depth(&mut self, _cta: u32, _warp: u32, depth: u32) {
        if self.live.watched {
            self.max_depth = self.max_depth.max(depth);
        }
    }
}
