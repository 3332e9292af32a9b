//! The plain counters the collector accumulates, kept apart from the event
//! handling so that sampling can scale them in one place.

use crate::coalesce::Coalescing;
use ptx::analysis::InstClass;

use crate::static_info::Special;
use crate::tensor_work::TensorKind;

/// Counts by instruction class.
pub type ClassCounts = [u64; InstClass::COUNT];

/// Traffic of one kind of access (loads, stores or atomics) to one space.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AccessCounters {
    /// Warp-level accesses with at least one active lane.
    pub requests: u64,
    /// Thread-level accesses.
    pub thread_accesses: u64,
    /// Under the CC 1.2 half-warp protocol.
    pub cc12: Coalescing,
    /// Under the sector protocol.
    pub sectors: Coalescing,
    /// Requests served by the fewest sectors their bytes allow.
    pub coalesced_requests: u64,
    /// Sectors of those requests.
    pub coalesced_sectors: u64,
}

impl AccessCounters {
    pub fn add(&mut self, o: &AccessCounters) {
        self.requests += o.requests;
        self.thread_accesses += o.thread_accesses;
        self.cc12.add(&o.cc12);
        self.sectors.add(&o.sectors);
        self.coalesced_requests += o.coalesced_requests;
        self.coalesced_sectors += o.coalesced_sectors;
    }
}

/// Shared-memory traffic of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SharedCounters {
    pub requests: u64,
    pub thread_accesses: u64,
    pub bytes: u64,
    /// Sum of conflict ways (32 banks, warp).
    pub ways: u64,
    /// Sum of conflict ways (16 banks, per half-warp: the larger half).
    pub ways16: u64,
    /// Sum of serialised passes (16 banks, both half-warps).
    pub passes16: u64,
    /// Largest conflict ways of one request (32 banks).
    pub max_ways: u64,
}

impl SharedCounters {
    pub fn add(&mut self, o: &SharedCounters) {
        self.requests += o.requests;
        self.thread_accesses += o.thread_accesses;
        self.bytes += o.bytes;
        self.ways += o.ways;
        self.ways16 += o.ways16;
        self.passes16 += o.passes16;
        self.max_ways = self.max_ways.max(o.max_ways);
    }
}

/// One PTX instruction's (line's) attribution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounters {
    /// Warp executions.
    pub executions: u64,
    /// Sum of active threads over executions.
    pub threads: u64,
    /// Executions as a divergent branch.
    pub divergent: u64,
    /// Global transactions, CC 1.2 protocol.
    pub transactions_cc12: u64,
    /// Global transactions, sector protocol.
    pub transactions_sectors: u64,
    /// Shared-memory requests.
    pub shared_requests: u64,
    /// Sum of bank-conflict ways over shared requests.
    pub conflict_ways: u64,
    /// Shared bytes the active lanes requested.
    pub shared_bytes: u64,
    /// Global bytes the active lanes requested.
    pub global_bytes: u64,
}

impl LineCounters {
    pub fn add(&mut self, o: &LineCounters) {
        self.executions += o.executions;
        self.threads += o.threads;
        self.divergent += o.divergent;
        self.transactions_cc12 += o.transactions_cc12;
        self.transactions_sectors += o.transactions_sectors;
        self.shared_requests += o.shared_requests;
        self.conflict_ways += o.conflict_ways;
        self.shared_bytes += o.shared_bytes;
        self.global_bytes += o.global_bytes;
    }
}

/// Add `o` to `a` class by class.
pub fn add_classes(a: &mut ClassCounts, o: &ClassCounts) {
    a.iter_mut().zip(o).for_each(|(x, y)| *x += y);
}

/// Everything additive about a run (or a sampled part of one).
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    pub warp: ClassCounts,
    pub thread: ClassCounts,
    /// Warp and thread counts of float fma/mad, by class (fp32, fp64, fp16).
    pub fused: (ClassCounts, ClassCounts),
    /// Warp and thread counts of each [`Special`], indexed by it.
    pub special: ([u64; Special::COUNT], [u64; Special::COUNT]),
    /// Every branch instruction executed (warp level).
    pub branches: u64,
    pub divergent_branches: u64,
    /// Branches with a guard.
    pub conditional_branches: u64,
    pub divergent_conditional: u64,
    pub barriers: u64,
    /// Index 0 loads, 1 stores, 2 atomics.
    pub global: [AccessCounters; 3],
    /// The global loads on the read-only path (`ld.global.nc`), also
    /// counted in `global[0]`.
    pub read_only_loads: AccessCounters,
    pub local: [AccessCounters; 3],
    /// Index 0 loads, 1 stores, 2 atomics.
    pub shared: [SharedCounters; 3],
    /// Sum over atomic requests of the largest number of lanes on one address.
    pub atomic_conflicts: u64,
    pub atomic_requests: u64,
    /// 4-byte words loaded from shared memory, and those produced by another thread.
    pub shared_words_loaded: u64,
    pub inter_thread_words: u64,
    /// Global sector accesses (sum over requests of distinct sectors).
    pub sector_accesses: u64,
    /// Wavefronts of the global loads in the L1's data stage: the bank
    /// passes of each load's words, by phase, as a shared access of the
    /// same addresses takes (`BankLayout::WARP32.for_width`).
    pub global_load_wavefronts: u64,
    /// Shared accesses counted as part of a wider one
    /// ([`crate::wide_shared`]): PTX instructions ptxas does not issue.
    pub shared_merged: u64,
    /// Multiply-adds of the warp-wide matrix multiplies, indexed by
    /// [`TensorKind`], and the instructions (warp level).
    pub tensor_macs: [u64; TensorKind::COUNT],
    pub tensor_instructions: u64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals::new()
    }
}

impl Totals {
    pub fn new() -> Totals {
        const ZERO: ClassCounts = [0; InstClass::COUNT];
        Totals {
            warp: ZERO,
            thread: ZERO,
            fused: (ZERO, ZERO),
            special: ([0; Special::COUNT], [0; Special::COUNT]),
            branches: 0,
            divergent_branches: 0,
            conditional_branches: 0,
            divergent_conditional: 0,
            barriers: 0,
            global: [AccessCounters::default(); 3],
            read_only_loads: AccessCounters::default(),
            local: [AccessCounters::default(); 3],
            shared: [SharedCounters::default(); 3],
            atomic_conflicts: 0,
            atomic_requests: 0,
            shared_words_loaded: 0,
            inter_thread_words: 0,
            sector_accesses: 0,
            global_load_wavefronts: 0,
            shared_merged: 0,
            tensor_macs: [0; TensorKind::COUNT],
            tensor_instructions: 0,
        }
    }

    /// Add another part of the run (the maximum conflict ways are a
    /// maximum). Destructured, so that a new field cannot be forgotten.
    pub fn add(&mut self, o: &Totals) {
        let Totals {
            warp,
            thread,
            fused,
            special,
            branches,
            divergent_branches,
            conditional_branches,
            divergent_conditional,
            barriers,
            global,
            read_only_loads,
            local,
            shared,
            atomic_conflicts,
            atomic_requests,
            shared_words_loaded,
            inter_thread_words,
            sector_accesses,
            global_load_wavefronts,
            shared_merged,
            tensor_macs,
            tensor_instructions,
        } = o;
        add_classes(&mut self.warp, warp);
        add_classes(&mut self.thread, thread);
        add_classes(&mut self.fused.0, &fused.0);
        add_classes(&mut self.fused.1, &fused.1);
        for (a, b) in [
            (&mut self.special.0, &special.0),
            (&mut self.special.1, &special.1),
        ] {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.branches += branches;
        self.divergent_branches += divergent_branches;
        self.conditional_branches += conditional_branches;
        self.divergent_conditional += divergent_conditional;
        self.barriers += barriers;
        self.global
            .iter_mut()
            .zip(global)
            .for_each(|(a, b)| a.add(b));
        self.read_only_loads.add(read_only_loads);
        self.local.iter_mut().zip(local).for_each(|(a, b)| a.add(b));
        self.shared
            .iter_mut()
            .zip(shared)
            .for_each(|(a, b)| a.add(b));
        self.atomic_conflicts += atomic_conflicts;
        self.atomic_requests += atomic_requests;
        self.shared_words_loaded += shared_words_loaded;
        self.inter_thread_words += inter_thread_words;
        self.sector_accesses += sector_accesses;
        self.global_load_wavefronts += global_load_wavefronts;
        self.shared_merged += shared_merged;
        self.tensor_macs
            .iter_mut()
            .zip(tensor_macs)
            .for_each(|(a, b)| *a += b);
        self.tensor_instructions += tensor_instructions;
    }

    pub fn warp_instructions(&self) -> u64 {
        self.warp.iter().sum()
    }

    pub fn thread_instructions(&self) -> u64 {
        self.thread.iter().sum()
    }

    /// Every global access kind summed.
    pub fn global_all(&self) -> AccessCounters {
        let mut all = AccessCounters::default();
        self.global.iter().for_each(|g| all.add(g));
        all
    }

    /// Every shared access kind summed (loads and stores only).
    pub fn shared_ls(&self) -> SharedCounters {
        let mut all = self.shared[0];
        all.add(&self.shared[1]);
        all
    }
}

/// Kind index of an access for the `[loads, stores, atomics]` arrays.
pub fn kind_index(kind: emu::observer::AccessKind) -> usize {
    match kind {
        emu::observer::AccessKind::Load => 0,
        emu::observer::AccessKind::Store => 1,
        emu::observer::AccessKind::Atomic => 2,
    }
}
