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

use std::collections::{BTreeMap, HashMap, HashSet};

use emu::mem::Space;
use emu::observer::{AccessKind, BarrierEvent, BranchEvent, MemEvent, Observer, Site};
use emu::simt::{Mask, WARP_SIZE, lanes};
use ptx::analysis::InstClass;

use crate::banks::{BankLayout, bank_conflicts};
use crate::coalesce::{Coalescing, Protocol, SECTOR_BYTES, coalesce};
use crate::counters::{AccessCounters, ClassCounts, LineCounters, Totals, kind_index};
use crate::static_info::InstTable;

/// One CTA's dynamic instruction counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaCounts {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
}

/// Per-CTA state while the CTA runs.
#[derive(Debug, Default)]
struct LiveCta {
    /// Per thread of the CTA, operations by class.
    per_thread: Vec<ClassCounts>,
    /// Shared word address -> thread that last stored to it (non-exempt stores).
    producers: HashMap<u64, u32>,
}

/// Counts events of the CTAs it is told to watch.
#[derive(Debug)]
pub struct Collector<'t> {
    table: &'t InstTable,
    threads_per_cta: u32,
    /// CTAs to watch (None: all).
    watch: Option<HashSet<u32>>,
    pub(crate) totals: Totals,
    pub(crate) ctas: BTreeMap<u32, CtaCounts>,
    live: BTreeMap<u32, LiveCta>,
    pub(crate) max_depth: u32,
    /// Per-thread maximum and sum over threads of the watched CTAs, by class.
    pub(crate) thread_max: ClassCounts,
    pub(crate) thread_sum: ClassCounts,
    pub(crate) threads_seen: u64,
    /// `[func][pc]` attribution.
    pub(crate) lines: Vec<Vec<LineCounters>>,
    /// Distinct global sectors and lines touched.
    pub(crate) sectors_touched: HashSet<u64>,
    pub(crate) lines_touched: HashSet<u64>,
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
            watch: watch.map(|w| w.iter().copied().collect()),
            totals: Totals::new(),
            ctas: BTreeMap::new(),
            live: BTreeMap::new(),
            max_depth: 0,
            thread_max: [0; InstClass::COUNT],
            thread_sum: [0; InstClass::COUNT],
            threads_seen: 0,
            lines,
            sectors_touched: HashSet::new(),
            lines_touched: HashSet::new(),
        }
    }

    pub fn table(&self) -> &InstTable {
        self.table
    }

    fn watched(&self, cta: u32) -> bool {
        self.watch.as_ref().is_none_or(|w| w.contains(&cta))
    }

    fn line_mut(&mut self, site: Site) -> Option<&mut LineCounters> {
        self.lines
            .get_mut(site.func as usize)?
            .get_mut(site.pc as usize)
    }

    /// Count `mask`'s lanes as executing the instruction at `site` (thread level).
    fn count_threads(
        &mut self,
        site: Site,
        class: InstClass,
        mask: Mask,
        fused: bool,
        int_div: bool,
    ) {
        let n = u64::from(mask.count_ones());
        self.totals.thread[class.index()] += n;
        if fused {
            self.totals.fused.1[class.index()] += n;
        }
        if int_div {
            self.totals.int_div.1 += n;
        }
        if let Some(c) = self.ctas.get_mut(&site.cta) {
            c.thread_instructions += n;
        }
        if let Some(l) = self.line_mut(site) {
            l.threads += n;
        }
        let threads = self.threads_per_cta as usize;
        if let Some(live) = self.live.get_mut(&site.cta) {
            for lane in lanes(mask) {
                let t = site.warp as usize * WARP_SIZE + lane;
                if t < threads
                    && let Some(row) = live.per_thread.get_mut(t)
                {
                    row[class.index()] += 1;
                }
            }
        }
    }

    fn global_access(&mut self, e: &MemEvent<'_>) {
        let cc12 = coalesce(Protocol::HalfWarpCc12, e.active, e.addrs, e.size);
        let sectors = coalesce(Protocol::Sectors, e.active, e.addrs, e.size);
        let minimal = sectors.bytes_used.div_ceil(SECTOR_BYTES).max(1);
        let counters = &mut self.totals.global[kind_index(e.kind)];
        add_access(counters, e.active, &cc12, &sectors, minimal);
        self.totals.sector_accesses += sectors.transactions;
        for lane in lanes(e.active) {
            let (a, end) = (
                e.addrs[lane],
                e.addrs[lane].saturating_add(u64::from(e.size.max(1))),
            );
            for s in a / SECTOR_BYTES..=(end - 1) / SECTOR_BYTES {
                self.sectors_touched.insert(s);
            }
            for l in a / 128..=(end - 1) / 128 {
                self.lines_touched.insert(l);
            }
        }
        if let Some(l) = self.line_mut(e.site) {
            l.transactions_cc12 += cc12.transactions;
            l.transactions_sectors += sectors.transactions;
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
        let w32 = bank_conflicts(BankLayout::WARP32, e.active, e.addrs, e.size);
        let h16 = bank_conflicts(BankLayout::HALF_WARP16, e.active, e.addrs, e.size);
        let s = &mut self.totals.shared[kind_index(e.kind)];
        s.requests += 1;
        s.thread_accesses += u64::from(e.active.count_ones());
        s.bytes += u64::from(e.active.count_ones()) * u64::from(e.size);
        s.ways += u64::from(w32.ways);
        s.max_ways = s.max_ways.max(u64::from(w32.ways));
        s.ways16 += u64::from(h16.ways);
        s.passes16 += u64::from(h16.passes);
        if e.kind != AccessKind::Atomic
            && let Some(l) = self.line_mut(e.site)
        {
            l.shared_requests += 1;
            l.conflict_ways += u64::from(w32.ways);
        }
        self.data_flow(e);
    }

    /// Inter-thread data flow through shared memory (Kerr et al. section IV.C).
    fn data_flow(&mut self, e: &MemEvent<'_>) {
        let exempt = self
            .table
            .get(e.site.func, e.site.pc)
            .is_some_and(|i| i.exempt_store);
        let Some(live) = self.live.get_mut(&e.site.cta) else {
            return;
        };
        let words = u64::from(e.size.max(1)).div_ceil(4);
        for lane in lanes(e.active) {
            let thread = e.site.warp * WARP_SIZE as u32 + lane as u32;
            let first = e.addrs[lane] / 4;
            for w in first..first.saturating_add(words) {
                match e.kind {
                    AccessKind::Load => {
                        self.totals.shared_words_loaded += 1;
                        if live.producers.get(&w).is_some_and(|&p| p != thread) {
                            self.totals.inter_thread_words += 1;
                        }
                    }
                    // Exempt stores leave the annotation as it was (the paper's words).
                    AccessKind::Store if !exempt => {
                        live.producers.insert(w, thread);
                    }
                    AccessKind::Store | AccessKind::Atomic => {}
                }
            }
        }
    }
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
    let mut v: Vec<u64> = lanes(active).map(|l| addrs[l]).collect();
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
        if !self.watched(cta) {
            return;
        }
        self.ctas.entry(cta).or_default();
        let live = LiveCta {
            per_thread: vec![[0; InstClass::COUNT]; self.threads_per_cta as usize],
            ..Default::default()
        };
        self.live.insert(cta, live);
    }

    fn cta_end(&mut self, cta: u32) {
        let Some(live) = self.live.remove(&cta) else {
            return;
        };
        for row in &live.per_thread {
            for (k, &n) in row.iter().enumerate() {
                self.thread_max[k] = self.thread_max[k].max(n);
                self.thread_sum[k] += n;
            }
        }
        self.threads_seen += live.per_thread.len() as u64;
    }

    fn instruction(&mut self, site: Site, active: Mask) {
        if !self.watched(site.cta) {
            return;
        }
        let Some(info) = self.table.get(site.func, site.pc) else {
            return;
        };
        let (class, fused, int_div) = (info.class, info.fused, info.int_div);
        self.totals.warp[class.index()] += 1;
        if fused {
            self.totals.fused.0[class.index()] += 1;
        }
        if int_div {
            self.totals.int_div.0 += 1;
        }
        if let Some(c) = self.ctas.get_mut(&site.cta) {
            c.warp_instructions += 1;
        }
        if let Some(l) = self.line_mut(site) {
            l.executions += 1;
        }
        self.count_threads(site, class, active, fused, int_div);
    }

    fn memory(&mut self, e: &MemEvent<'_>) {
        if !self.watched(e.site.cta) || e.active == 0 {
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
    }

    fn branch(&mut self, e: &BranchEvent) {
        if !self.watched(e.site.cta) {
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
            self.count_threads(e.site, InstClass::Branch, not_taken, false, false);
        }
    }

    fn barrier(&mut self, e: &BarrierEvent) {
        if self.watched(e.site.cta) {
            self.totals.barriers += 1;
        }
    }

    fn stack_depth(&mut self, cta: u32, _warp: u32, depth: u32) {
        if self.watched(cta) {
            self.max_depth = self.max_depth.max(depth);
        }
    }
}
