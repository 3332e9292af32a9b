//! A kernel timing model for current GPUs (Volta to Hopper; older GPUs get
//! sane figures from the same equations). Equations, symbols and sources:
//! `docs/timing-model.md`.
//!
//! It keeps the seeds' two ideas, latency hiding by warp parallelism
//! (MWP-CWP: a warp's dependent chain against the SM's issue throughput) and
//! per-operation accounting (Kothapalli: each class of operation costs its own
//! cycles), and adds what the 2009 models lack: per-class issue rates and
//! latencies per architecture, instruction- and memory-level parallelism,
//! shared-memory bank conflicts, L1/L2 hit rates, L2 and DRAM bandwidth
//! limits, wave quantization with the tail of the last wave, and the launch
//! overhead.
//!
//! Layers: [`evaluate`] on explicit [`TimingInputs`] and [`ArchParams`]
//! (testable by hand); [`params::arch_params`] fills the GPU side from an
//! [`arch::Gpu`] and an optional [`calibration::Calibration`];
//! [`adapter::predict`] fills the kernel side from a [`profile::KernelProfile`].

pub mod adapter;
pub mod calibration;
pub mod fetch;
pub mod interference;
pub mod lines;
pub mod params;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::prediction::{ModelError, Prediction, invalid, non_negative, positive};

pub use params::{ArchParams, Origin};

/// The model name in the registry.
pub const NAME: &str = "timing";

/// Per-warp dynamic instruction counts by class (warp instructions executed by
/// one warp, the kernel total divided by the number of warps).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WarpMix {
    /// FP32 add/mul/FMA (and FP16, issued on the FP32 pipe).
    pub fp32: f64,
    /// IEEE FP32 divisions, reciprocals and square roots (each expanded by
    /// the compiler into a sequence around one SFU instruction).
    pub fp32_div: f64,
    /// FP64 arithmetic.
    pub fp64: f64,
    /// Special functions (MUFU).
    pub sfu: f64,
    /// Simple integer, control flow and other ALU work.
    pub int_add: f64,
    /// Integer multiply / multiply-add.
    pub int_mul: f64,
    /// Integer division and modulus (expanded by the compiler into a sequence).
    pub int_div: f64,
    /// Type conversions.
    pub convert: f64,
    /// Register-addressed constant loads: an `LDC` each, which takes an
    /// issue slot (immediate-addressed ones are folded into operands).
    pub const_loads: f64,
    /// Global and local loads and stores (LSU, through L1), register
    /// spills included.
    pub global: f64,
    /// The stores among `global` (spill stores included): they issue and
    /// occupy the LSU but no warp waits for them.
    pub global_stores: f64,
    /// The register-spill reloads among `global`: local memory a thread
    /// wrote shortly before, so they wait for an L1 hit, not the global mix.
    pub spill_loads: f64,
    /// Shared-memory loads and stores (requests).
    pub shared: f64,
    /// Atomics (global or shared).
    pub atomic: f64,
    /// Barriers.
    pub barrier: f64,
    /// Replays of global loads whose lanes touch more than one 128-byte
    /// line (Fermi and Kepler: docs, "Replays of divergent loads"): each an
    /// issue slot, an LSU pass and a cycle of the warp's chain.
    pub load_replays: f64,
    /// SM cycles one warp's matrix multiplies hold the tensor cores: their
    /// multiply-adds of each kind over the GPU's tensor rate of that kind
    /// (docs: "Tensor cores"). Not instructions: those issue as `int_add`.
    pub tensor_cycles: f64,
}

impl WarpMix {
    /// The FP32-pipe instructions of the IEEE FP32 sequences: all but the
    /// one SFU instruction of each.
    fn fp32_div_refinement(&self, arch: &ArchParams) -> f64 {
        self.fp32_div * (arch.fp32_div_slots - 1.0).max(0.0)
    }

    /// Compute (non-memory) instructions.
    pub fn compute(&self) -> f64 {
        self.fp32
            + self.fp32_div
            + self.fp64
            + self.sfu
            + self.int_add
            + self.int_mul
            + self.int_div
            + self.convert
            + self.const_loads
    }
}

/// Everything the model needs to know about the kernel and its launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingInputs {
    /// Blocks in the grid.
    pub blocks: f64,
    /// Warps per block.
    pub warps_per_block: f64,
    /// Resident blocks per SM (occupancy), at least 1.
    pub resident_blocks_per_sm: f64,
    /// Instructions of one warp, by class.
    pub mix: WarpMix,
    /// Shared-memory bank passes per warp (requests x conflict degree).
    pub shared_passes: f64,
    /// The passes the same accesses take for their width alone: one per
    /// request, or their bytes over the 128 B a pass returns (a warp's
    /// 64-bit access takes 2, a 128-bit one 4) where that is more.
    pub shared_wide_passes: f64,
    /// Wavefronts one warp's global loads take in the L1's data stage
    /// (bank passes by phase, as shared accesses of the same addresses),
    /// where L1 and shared memory are one array (Volta and later); 0
    /// elsewhere and for profiles without the count (docs: "The L1 data
    /// stage").
    pub global_load_wavefronts: f64,
    /// 32-byte sectors one warp's global/local accesses touch (L1 traffic).
    pub sectors: f64,
    /// Bytes one warp's global/local accesses hand to or take from its
    /// lanes, a byte once per active lane (a warp's 128-bit load: 512 B,
    /// however few sectors it touches).
    pub lane_bytes: f64,
    /// Fraction of global sectors that hit in L1, `[0, 1]`.
    pub l1_hit_rate: f64,
    /// Fraction of global sectors that hit in L1 a sector whose miss is
    /// still in flight (part of `l1_hit_rate`; docs: "Hits on misses in
    /// flight"): they wait like the miss.
    pub l1_pending_hit_rate: f64,
    /// Fraction of the L1 misses that hit in L2, `[0, 1]`.
    pub l2_hit_rate: f64,
    /// Fraction of the register-spill accesses that hit in L1, `[0, 1]`
    /// (docs: "Register spills"); the rest are served by L2.
    pub spill_l1_hit_rate: f64,
    /// Bytes between L2 and the SMs, whole kernel.
    pub l2_bytes: f64,
    /// Bytes between DRAM and L2, whole kernel.
    pub dram_bytes: f64,
    /// Independent compute instructions a warp has in flight (>= 1).
    pub ilp: f64,
    /// Independent global loads a warp has in flight (>= 1).
    pub mlp_global: f64,
    /// Independent shared loads a warp has in flight (>= 1).
    pub mlp_shared: f64,
    /// Bytes of machine code of the kernel (static instructions x bytes per
    /// instruction); 0 when unknown (docs: "Instruction fetch").
    pub code_bytes: f64,
    /// Bytes read from mapped (zero-copy) host memory over PCIe, whole
    /// kernel (docs: "Mapped host memory"); 0 for kernels that map none.
    pub pcie_read_bytes: f64,
    /// Bytes written to mapped host memory over PCIe, whole kernel.
    pub pcie_write_bytes: f64,
    /// Tensor multiply-adds of kinds the GPU's catalog entry gives no rate
    /// for, whole kernel: charged their issue slots only (the breakdown's
    /// `tensor_unrated_macs`).
    pub tensor_unrated_macs: f64,
}

/// The limit that binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Instruction issue or an arithmetic pipe.
    ComputeIssue,
    /// A warp's dependent chain (not enough warps to hide latency).
    Latency,
    /// Shared-memory bank passes.
    SharedMemory,
    /// L1 / load-store data path.
    L1Bandwidth,
    /// L2 bandwidth.
    L2Bandwidth,
    /// DRAM bandwidth.
    DramBandwidth,
    /// PCIe: reads and writes of mapped host memory.
    PcieBandwidth,
    /// Launch overhead or the tail of the last wave.
    LaunchTail,
}

impl Limit {
    /// Name as the breakdown and the command line show it.
    pub fn name(self) -> &'static str {
        match self {
            Self::ComputeIssue => "compute issue",
            Self::Latency => "latency",
            Self::SharedMemory => "shared memory",
            Self::L1Bandwidth => "L1 bandwidth",
            Self::L2Bandwidth => "L2 bandwidth",
            Self::DramBandwidth => "DRAM bandwidth",
            Self::PcieBandwidth => "PCIe bandwidth (mapped host memory)",
            Self::LaunchTail => "launch/tail",
        }
    }
}

/// Cycles of one wave on one SM, by limit (docs: T_wave).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WaveCycles {
    /// Issue slots: all warps' instructions over the schedulers.
    pub issue: f64,
    /// The busiest pipe (arithmetic, or the LSU pipe's global, local,
    /// atomic and shared accesses, and from Volta on the sectors between
    /// L1 and L2).
    pub pipe: f64,
    /// The LSU pipe's time, the part of it its shared requests take, and
    /// the part the sectors between L1 and L2 take (Volta and later).
    pub lsu: f64,
    /// The busiest arithmetic pipe alone (the LSU pipe left out).
    pub alu: f64,
    /// How much longer the scheduler's dispatch and pipes take together
    /// than the busiest of them alone, at least 1 (docs: "Dispatch and
    /// pipes share the warps"; [`interference::interference`]).
    pub interference: f64,
    pub lsu_shared: f64,
    pub lsu_l2: f64,
    /// The L1's data stage: shared-memory bank passes and, from Volta on,
    /// the global loads' wavefronts (docs: "The L1 data stage").
    pub shared: f64,
    /// The global loads' part of `shared`.
    pub shared_global: f64,
    /// L1 data path.
    pub l1: f64,
    /// The latency term: one warp's dependent chain, or with barriers one
    /// block's (its load chain before its own work; docs: T_block).
    pub latency: f64,
    /// One warp's dependent chain alone (docs: T_chain).
    pub warp_chain: f64,
    /// Resident warps per warp scheduler in this wave (docs: "Few warps").
    pub warps_per_scheduler: f64,
    /// With barriers, the resident blocks of the wave, which queue for the
    /// SM each served its share of the throughput limit (its compute
    /// phase); 0 without barriers (docs: "Few warps").
    pub barrier_blocks: f64,
}

impl WaveCycles {
    /// The largest throughput limit: issue or a pipe (with what they lose
    /// to each other), the banks or L1.
    pub fn throughput(&self) -> f64 {
        (self.issue.max(self.pipe) * self.interference)
            .max(self.shared)
            .max(self.l1)
    }

    /// The wave's time (docs: "Few warps"). Each limit alone bounds it
    /// from below; between the two bounds the warps of a scheduler queue
    /// for its busiest resource while the others wait out their latencies,
    /// so where neither limit dominates the time exceeds both.
    pub fn total(&self) -> f64 {
        (self.throughput() / self.utilisation()).max(self.latency)
    }

    /// The busiest resource's utilisation as a closed queue of the
    /// scheduler's warps ([`closed_queue_utilisation`]); 1 with one warp
    /// per scheduler or fewer (the warp's chain already holds its share of
    /// every pipe, `warp_chain_cycles`) and where no warp waits.
    pub fn utilisation(&self) -> f64 {
        let tp = self.throughput();
        // With barriers the latency term is a block's: its load chain, then
        // its own compute phase, which is the block's whole share of the
        // busiest resource. The customers of the queue are then the
        // blocks, each thinking through its load phase and served for its
        // compute phase; counting its warps as customers would take the
        // block's own service for think time and charge it twice.
        if self.barrier_blocks >= 1.0 && tp > 0.0 {
            let service = tp / self.barrier_blocks;
            let think = self.latency - service;
            if think <= 0.0 {
                return 1.0;
            }
            return closed_queue_utilisation(self.barrier_blocks, service / think);
        }
        let w = self.warps_per_scheduler;
        if tp <= 0.0 || w <= 1.0 {
            return 1.0;
        }
        // Per warp: `service` cycles on the busiest resource, `think` cycles
        // of its chain spent waiting (the rest of the chain is that service).
        let service = tp / w;
        let think = self.latency - service;
        if think <= 0.0 {
            return 1.0;
        }
        closed_queue_utilisation(w, service / think)
    }

    /// Which per-SM limit is largest (first wins a tie, in the order of the
    /// doc). The pipes are "shared memory" where the LSU pipe is the
    /// busiest and shared requests take at least half of it (the LD/ST
    /// lanes, not the banks, hold back GA10x's 32-bit shared loads), "L1
    /// bandwidth" where the sectors between L1 and L2 take at least half of
    /// it (the L1TEX pipeline, not the issue of the loads, holds them
    /// back), and the banks win a tie with the pipes (conflict-free shared
    /// loads load a GPU of 32 LD/ST lanes' banks and pipe alike), as does
    /// the latency with fewer warps than schedulers (a lone warp's chain at
    /// one instruction a clock is its scheduler's issue time). The data
    /// stage is "L1 bandwidth" where the global loads' wavefronts take at
    /// least half of it.
    pub fn binding(&self) -> Limit {
        let lsu_binds = self.pipe > self.issue && self.lsu >= self.pipe;
        let pipes = if lsu_binds && 2.0 * self.lsu_shared >= self.lsu {
            Limit::SharedMemory
        } else if lsu_binds && 2.0 * self.lsu_l2 >= self.lsu {
            Limit::L1Bandwidth
        } else {
            Limit::ComputeIssue
        };
        let stage = if 2.0 * self.shared_global > self.shared {
            Limit::L1Bandwidth
        } else {
            Limit::SharedMemory
        };
        let mut best = (self.issue.max(self.pipe), pipes);
        for (v, l) in [
            (self.latency, Limit::Latency),
            (self.shared, stage),
            (self.l1, Limit::L1Bandwidth),
        ] {
            // With fewer warps than schedulers a warp's chain at one
            // instruction a clock is its scheduler's issue time: the chain
            // wins, as more warps (not fewer instructions) would fill the
            // idle schedulers.
            let few = l == Limit::Latency && self.warps_per_scheduler < 1.0;
            let wins_tie = (l == Limit::SharedMemory || few) && best.1 == Limit::ComputeIssue;
            if v > best.0 || (wins_tie && v == best.0 && v > 0.0) {
                best = (v, l);
            }
        }
        best.1
    }
}

/// The model's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Predicted time, seconds (launch overhead included).
    pub seconds: f64,
    /// The limit that binds.
    pub limit: Limit,
    /// Terms by name (units in the name).
    pub breakdown: BTreeMap<String, f64>,
}

/// Utilisation of one server shared by `customers` that each need `ratio`
/// units of service per unit of waiting elsewhere: the machine-repairman
/// queue (finite-source M/M/1//W; Kleinrock, Queueing Systems vol. 1, 1975,
/// section 3.8), `1 - p0` with `p0 = 1 / sum_k W!/(W-k)! ratio^k`. Fewer
/// than one customer counts as one; a fractional count interpolates between
/// its neighbours (schedulers hold whole warps, some one more than others).
pub fn closed_queue_utilisation(customers: f64, ratio: f64) -> f64 {
    let at = |n: u32| {
        let mut sum = 0.0;
        let mut term = 1.0;
        for k in 0..=n {
            sum += term;
            term *= f64::from(n - k) * ratio;
            if !term.is_finite() {
                return 1.0;
            }
        }
        1.0 - 1.0 / sum
    };
    let w = customers.clamp(1.0, 4096.0);
    let lo = w.floor();
    let frac = w - lo;
    // `lo` is a whole number in [1, 4096]: the cast is exact.
    let lo_u = lo as u32;
    if frac == 0.0 {
        at(lo_u)
    } else {
        (1.0 - frac) * at(lo_u) + frac * at(lo_u + 1)
    }
}

/// How much longer the busiest warp scheduler's work takes than an even
/// share of the SM's: `warps` resident warps dealt to `schedulers` in turn
/// (each warp stays on the scheduler it was given) put ceil(W / S) on the
/// busiest, `ceil(W / S) S / W` times the mean W / S (docs: "Warps per
/// scheduler, rounded up"). 1 where the warps divide evenly, with one
/// scheduler, or with no warps.
pub fn scheduler_imbalance(warps: f64, schedulers: f64) -> f64 {
    if warps.is_nan() || schedulers.is_nan() || warps <= 0.0 || schedulers <= 1.0 {
        return 1.0;
    }
    (warps / schedulers).ceil() * schedulers / warps
}

/// One wave on one SM with `b` resident blocks (docs, section "One wave").
pub fn wave_cycles(inp: &TimingInputs, arch: &ArchParams, b: f64) -> WaveCycles {
    let m = &inp.mix;
    let warps = b * inp.warps_per_block;
    // Issue slots of one warp: integer division expands to `int_div_slots`
    // instructions, FP32 division to `fp32_div_slots`; everything else
    // issues once.
    let slots = m.compute() - m.int_div - m.fp32_div
        + m.int_div * arch.int_div_slots
        + m.fp32_div * arch.fp32_div_slots
        + m.global
        + m.load_replays
        + m.shared
        + m.atomic
        + m.barrier;
    let (passes, replays) =
        shared_passes_and_replays(inp.shared_passes, inp.shared_wide_passes, m.shared, arch);
    // Bank-conflict serialisation (GPUPerf, Sim et al. 2012, eq. 2 and 6:
    // O_bank is part of W_serial, added to the compute time, not hidden
    // under it): the replayed passes of a shared request hold the dispatch
    // like issued instructions.
    let bank = warps * replays / arch.shared_passes_per_clock;
    // The busiest scheduler holds ceil(W / S) of the wave's warps: issue
    // and the pipes, which each scheduler owns a share of, take that
    // scheduler's time, not the SM's mean (docs: "Warps per scheduler,
    // rounded up"). The banks and the L1 serve the whole SM.
    let busiest = scheduler_imbalance(warps, arch.schedulers);
    // The fetch curve is read at the size the code would have in the
    // curve's GPU's instruction cache (docs: "Instruction fetch").
    let fetch_code_bytes = inp.code_bytes * arch.fetch_code_scale;
    let issue = busiest
        * (warps * slots
            / (arch.issue_per_clock
                * fetch::issue_fraction(&arch.instruction_fetch, fetch_code_bytes))
            + bank);
    // An FP32 division is one SFU reciprocal and FP32-pipe refinement.
    let div_fp32 = m.fp32_div_refinement(arch);
    // The LSU pipe issues global, local and shared accesses alike
    // (Nsight Compute's pipe `lsu`); on Volta and later the sectors that
    // pass between L1 and L2 (misses, stores) hold it too.
    let lsu_l2 = l1tex_l2_cycles(inp, arch) * warps;
    let lsu = (m.global + m.load_replays + m.atomic + m.shared) / arch.rate_lsu * warps + lsu_l2;
    let lsu_shared = m.shared / arch.rate_lsu * warps;
    let arithmetic = [
        (m.fp32 + div_fp32) / arch.rate_fp32,
        m.fp64 / arch.rate_fp64,
        (m.sfu + m.fp32_div) / arch.rate_sfu,
        (m.int_add + m.int_div * arch.int_div_slots) / arch.rate_int,
        m.int_mul / arch.rate_int_mul,
        m.convert / arch.rate_convert,
        m.tensor_cycles,
    ];
    let even_pipe = arithmetic.into_iter().fold(0.0, f64::max) * warps;
    let alu = busiest * even_pipe;
    let even_pipe = even_pipe.max(lsu);
    let pipe = busiest * even_pipe;
    // The scheduler's dispatch, each of its arithmetic pipes and its LSU
    // pipe, as servers its warps queue for (docs: "Dispatch and pipes
    // share the warps").
    let mut resources = [0.0; 9];
    resources[0] = issue;
    for (r, t) in resources[1..8].iter_mut().zip(arithmetic) {
        *r = busiest * t * warps;
    }
    resources[8] = busiest * lsu;
    let interference = interference::interference(warps / arch.schedulers.max(1.0), &resources);
    // Global loads leave the L1 through the same banks as shared accesses,
    // a wavefront per pass (docs: "The L1 data stage").
    let shared_global = warps * inp.global_load_wavefronts / arch.shared_passes_per_clock;
    let shared = warps * passes / arch.shared_passes_per_clock + shared_global;
    let l1 = warps * l1_data_bytes(inp.sectors, inp.lane_bytes) / arch.l1_bytes_per_clock;
    // A warp runs on one scheduler, which gets 1 / schedulers of each pipe
    // and of the shared-memory banks: the warp needs at least that share of
    // its busiest pipe's time, however much parallelism its code has
    // (measured on the H100: one warp issues conflict-free shared loads one
    // per 4 clocks where the SM serves 1 per clock; docs: T_chain).
    let share = arch.schedulers * even_pipe.max(shared) / warps.max(1.0);
    let chain = warp_chain_cycles(inp, arch).max(share);
    // A barrier holds every warp of a block until the block's slowest one
    // arrives, so the global loads before it (a tiled kernel's tile loads)
    // cannot overlap the block's own work after it: one block takes at least
    // its load chain plus its own throughput time, and no other resident
    // block can shorten that (docs: T_block).
    let (latency, barrier_blocks) = if m.barrier > 0.0 {
        let one_block = (issue.max(pipe) * interference).max(shared).max(l1) / b.max(1.0);
        let loads = global_chain_cycles(inp, arch);
        (
            chain.max(loads + (chain - loads).max(one_block)),
            b.max(1.0),
        )
    } else {
        (chain, 0.0)
    };
    WaveCycles {
        issue,
        pipe,
        lsu: busiest * lsu,
        alu,
        interference,
        lsu_shared: busiest * lsu_shared,
        lsu_l2: busiest * lsu_l2,
        shared_global,
        shared,
        l1,
        latency,
        warp_chain: chain,
        warps_per_scheduler: warps / arch.schedulers.max(1.0),
        barrier_blocks,
    }
}

/// Clocks of one warp's sectors between L1 and L2 in the L1TEX pipeline
/// (docs: "Sectors to and from L2 in the LSU pipe"): the cache model's
/// L1-L2 traffic of the launch per warp, at the architecture's
/// [`ArchParams::l1tex_l2_sectors_per_clock`]; none before Volta.
pub fn l1tex_l2_cycles(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    let warps = (inp.blocks * inp.warps_per_block).max(1.0);
    arch.l1tex_l2_sectors_per_clock
        .filter(|r| *r > 0.0)
        .map_or(0.0, |r| inp.l2_bytes / 32.0 / warps / r)
}

/// Bytes that accesses of `sectors` 32-byte sectors handing their lanes
/// `lane_bytes` move through the L1 data path (docs: "L1 data path"): the
/// sectors', or the lanes' where more. The data path that returns a shared
/// load's 128 B per pass returns a global load's lanes too, so a warp's
/// 128-bit load moves 512 B through it even when its lanes share eight
/// sectors. The wave ([`wave_cycles`]) and the per-line cost
/// ([`lines::line_cost`]) both charge this.
pub fn l1_data_bytes(sectors: f64, lane_bytes: f64) -> f64 {
    (sectors * 32.0).max(lane_bytes)
}

/// One pass of the banks per clock: 32 banks of 4 bytes return 128 B each
/// clock (the CUDA C Programming Guide's shared-memory section).
pub const BANK_PASSES_PER_CLOCK: f64 = 1.0;

/// Shared-memory bank passes and the replays among them (docs: "Shared
/// memory"), from the passes counted, the passes the accesses' width needs
/// and the requests. The passes are counted at the catalog's rate
/// (`shared_passes_per_clock`): the caller divides them by it. An access
/// takes at least the passes its width needs, and only the passes beyond
/// those (bank conflicts) are replays in the issue slots. Where the banks'
/// rate for wide accesses was measured, every pass goes at it. Elsewhere a
/// request's first pass and its conflicts go at the 32-bit rate (what the
/// LD/ST lanes pass), and the passes its width needs beyond the first at
/// the banks' full width, [`BANK_PASSES_PER_CLOCK`] (docs: "Wide accesses
/// where no wide rate is measured"): returned as the 32-bit-rate passes
/// that take as long.
pub fn shared_passes_and_replays(
    passes: f64,
    wide_passes: f64,
    requests: f64,
    arch: &ArchParams,
) -> (f64, f64) {
    let total = passes.max(wide_passes);
    let replays = (passes - wide_passes.max(requests)).max(0.0);
    if arch.shared_wide_measured {
        return (total, replays);
    }
    let width_beyond_first = (wide_passes - requests).max(0.0);
    let rate = arch.shared_passes_per_clock.max(f64::MIN_POSITIVE);
    let at_full_width = width_beyond_first * rate / rate.max(BANK_PASSES_PER_CLOCK);
    (total - width_beyond_first + at_full_width, replays)
}

/// Mean latency of one global access, cycles: the hit-rate weighted levels.
pub fn global_latency(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    // A hit on a miss in flight waits like the miss.
    let h1 = (inp.l1_hit_rate - inp.l1_pending_hit_rate).max(0.0);
    let h2 = inp.l2_hit_rate;
    h1 * arch.lat_l1 + (1.0 - h1) * (h2 * arch.lat_l2 + (1.0 - h2) * arch.lat_dram)
}

/// One warp's dependent chain, cycles (docs: T_chain). Compute instructions
/// cost their dependent latency divided by the ILP; loads their latency
/// divided by the MLP; each at least one cycle; bank conflicts lengthen
/// every shared access.
pub fn warp_chain_cycles(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    let m = &inp.mix;
    // A warp issues at most one instruction per clock, so however much
    // parallelism the code has, each instruction adds at least a cycle.
    // Code beyond the instruction caches stretches that cycle (fetch).
    let floor = fetch::warp_slowdown(
        &arch.instruction_fetch,
        inp.code_bytes * arch.fetch_code_scale,
    );
    let step = |latency: f64, parallelism: f64| (latency / parallelism).max(floor);
    let div_fp32 = m.fp32_div_refinement(arch);
    let compute = (m.fp32 + div_fp32) * step(arch.lat_fp32, inp.ilp)
        + m.fp64 * step(arch.lat_fp64, inp.ilp)
        + (m.sfu + m.fp32_div) * step(arch.lat_sfu, inp.ilp)
        + (m.const_loads + m.load_replays) * floor
        + (m.int_add + m.convert + m.int_div * arch.int_div_slots) * step(arch.lat_int, inp.ilp)
        + m.int_mul * step(arch.lat_int_mul, inp.ilp);
    let conflict = if m.shared > 0.0 {
        (inp.shared_passes / m.shared).max(1.0)
    } else {
        1.0
    };
    compute
        + global_chain_cycles(inp, arch)
        + m.shared * step(arch.lat_shared + conflict - 1.0, inp.mlp_shared)
        + m.barrier * arch.lat_shared
}

/// The global-memory part of one warp's chain, cycles: each global load
/// (and atomic) waits the mean global latency over the MLP, at least a
/// cycle; a spill reload waits an L1 hit, or an L2 hit when the spills do
/// not fit in L1 ([`spill_latency`]). Stores wait for nothing.
pub fn global_chain_cycles(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    let m = &inp.mix;
    let loads = (m.global - m.global_stores - m.spill_loads).max(0.0) + m.atomic;
    loads * (global_latency(inp, arch) / inp.mlp_global).max(1.0)
        + m.spill_loads * spill_latency(inp, arch)
}

/// Mean latency of one spill reload, cycles: L1 for the share of the spills
/// that fits there, L2 for the rest.
pub fn spill_latency(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    let h = inp.spill_l1_hit_rate.clamp(0.0, 1.0);
    h * arch.lat_l1 + (1.0 - h) * arch.lat_l2
}

/// Check the inputs the equations divide by or weight with.
fn check(inp: &TimingInputs, arch: &ArchParams) -> Result<(), ModelError> {
    positive(NAME, "blocks", inp.blocks)?;
    positive(NAME, "warps per block", inp.warps_per_block)?;
    positive(NAME, "resident blocks per SM", inp.resident_blocks_per_sm)?;
    for (n, v) in [
        ("ilp", inp.ilp),
        ("mlp_global", inp.mlp_global),
        ("mlp_shared", inp.mlp_shared),
    ] {
        if !(v.is_finite() && v >= 1.0) {
            return Err(invalid(NAME, format!("{n} must be at least 1, got {v}")));
        }
    }
    for (n, v) in [
        ("l1 hit rate", inp.l1_hit_rate),
        ("l1 pending hit rate", inp.l1_pending_hit_rate),
        ("l2 hit rate", inp.l2_hit_rate),
    ] {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            return Err(invalid(NAME, format!("{n} must be in [0, 1], got {v}")));
        }
    }
    let m = &inp.mix;
    for (n, v) in [
        ("fp32", m.fp32),
        ("fp32_div", m.fp32_div),
        ("fp64", m.fp64),
        ("sfu", m.sfu),
        ("int_add", m.int_add),
        ("int_mul", m.int_mul),
        ("int_div", m.int_div),
        ("convert", m.convert),
        ("const_loads", m.const_loads),
        ("global", m.global),
        ("load replays", m.load_replays),
        ("tensor cycles", m.tensor_cycles),
        ("shared", m.shared),
        ("atomic", m.atomic),
        ("barrier", m.barrier),
        ("shared passes", inp.shared_passes),
        ("sectors", inp.sectors),
        ("l2 bytes", inp.l2_bytes),
        ("dram bytes", inp.dram_bytes),
        ("PCIe read bytes", inp.pcie_read_bytes),
        ("PCIe write bytes", inp.pcie_write_bytes),
    ] {
        non_negative(NAME, n, v)?;
    }
    arch.check()
}

/// The model (docs, section "Kernel time").
pub fn evaluate(inp: &TimingInputs, arch: &ArchParams) -> Result<Timing, ModelError> {
    check(inp, arch)?;
    let sms = arch.sm_count;
    let b = inp.resident_blocks_per_sm.floor().max(1.0);
    // Waves: full waves of b blocks on every SM, then a tail wave whose SMs
    // hold ceil(rest / SMs) blocks each.
    let wave_blocks = b * sms;
    let full_waves = (inp.blocks / wave_blocks).floor();
    let rest = inp.blocks - full_waves * wave_blocks;
    let tail_blocks_per_sm = (rest / sms).ceil();
    let full = wave_cycles(inp, arch, b);
    let tail = if rest > 0.0 {
        wave_cycles(inp, arch, tail_blocks_per_sm)
    } else {
        WaveCycles::default()
    };
    let sm_cycles = full_waves * full.total() + tail.total();
    let sm_seconds = sm_cycles / arch.clock_hz;
    let l2_seconds = inp.l2_bytes / arch.l2_bytes_per_second;
    let dram_seconds = inp.dram_bytes / arch.dram_bytes_per_second;
    let device = sm_seconds.max(l2_seconds).max(dram_seconds);
    let pcie_seconds = pcie_seconds(inp, arch);
    let waves = (inp.blocks / wave_blocks).ceil().max(1.0);
    let body = overlap_pcie(device, pcie_seconds, waves);
    let seconds = body + arch.launch_seconds;

    // Which limit binds: the largest whole-kernel term; within the SM term,
    // the largest per-SM limit of the wave that dominates, and "launch/tail"
    // when the launch overhead or the tail wave costs more than the full waves.
    let per_sm = if full_waves > 0.0 { full } else { tail };
    let tail_seconds = tail.total() / arch.clock_hz;
    let mut limit = if sm_seconds >= l2_seconds && sm_seconds >= dram_seconds {
        per_sm.binding()
    } else if dram_seconds >= l2_seconds {
        Limit::DramBandwidth
    } else {
        Limit::L2Bandwidth
    };
    let full_seconds = full_waves * full.total() / arch.clock_hz;
    if pcie_seconds > device {
        limit = Limit::PcieBandwidth;
    }
    if arch.launch_seconds > body
        || (full_waves > 0.0
            && sm_seconds >= l2_seconds.max(dram_seconds)
            && tail_seconds > full_seconds)
    {
        limit = Limit::LaunchTail;
    }

    let mut bd = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        bd.insert(k.to_string(), v);
    };
    put("resident_blocks_per_sm", b);
    put("waves", inp.blocks / wave_blocks);
    put("full_waves", full_waves);
    put(
        "tail_blocks_per_sm",
        if rest > 0.0 { tail_blocks_per_sm } else { 0.0 },
    );
    put("wave_issue_cycles", full.issue.max(tail.issue));
    put("wave_pipe_cycles", full.pipe.max(tail.pipe));
    put("wave_lsu_cycles", full.lsu.max(tail.lsu));
    put("wave_alu_cycles", full.alu.max(tail.alu));
    put("dispatch_interference", full.interference);
    put("wave_shared_cycles", full.shared.max(tail.shared));
    if inp.global_load_wavefronts > 0.0 {
        // The global loads' part of the data stage (docs: "The L1 data stage").
        put(
            "wave_shared_global_cycles",
            full.shared_global.max(tail.shared_global),
        );
    }
    put("wave_l1_cycles", full.l1.max(tail.l1));
    put("warp_chain_cycles", full.warp_chain.max(tail.warp_chain));
    put("block_chain_cycles", full.latency.max(tail.latency));
    put("full_wave_cycles", full.total());
    put("tail_wave_cycles", tail.total());
    put(
        "warps_per_scheduler",
        full.warps_per_scheduler.max(tail.warps_per_scheduler),
    );
    put("queue_utilisation", per_sm.utilisation());
    put("sm_seconds", sm_seconds);
    put("l2_seconds", l2_seconds);
    put("dram_seconds", dram_seconds);
    put("launch_seconds", arch.launch_seconds);
    if inp.pcie_read_bytes > 0.0 || inp.pcie_write_bytes > 0.0 {
        put("pcie_seconds", pcie_seconds);
        put("pcie_read_bytes", inp.pcie_read_bytes);
        put("pcie_write_bytes", inp.pcie_write_bytes);
        put("pcie_gbs_used", arch.pcie_bytes_per_second / 1e9);
        put(
            "catalog_pcie",
            f64::from(u8::from(arch.pcie_origin == Origin::Datasheet)),
        );
        put("device_seconds", device);
    }
    put("tail_seconds", tail_seconds);
    put("global_latency_cycles", global_latency(inp, arch));
    put("global_chain_cycles", global_chain_cycles(inp, arch));
    put("code_bytes", inp.code_bytes);
    put("fetch_code_scale", arch.fetch_code_scale);
    put("l1_hit_rate", inp.l1_hit_rate);
    put("l1_pending_hit_rate", inp.l1_pending_hit_rate);
    put("l2_hit_rate", inp.l2_hit_rate);
    if inp.mix.spill_loads > 0.0 {
        put("spill_l1_hit_rate", inp.spill_l1_hit_rate);
        put("spill_latency_cycles", spill_latency(inp, arch));
    }
    put("l2_bytes", inp.l2_bytes);
    put("dram_bytes", inp.dram_bytes);
    if inp.mix.tensor_cycles > 0.0 {
        put("tensor_cycles_per_warp", inp.mix.tensor_cycles);
    }
    if inp.tensor_unrated_macs > 0.0 {
        put("tensor_unrated_macs", inp.tensor_unrated_macs);
    }
    put("ilp", inp.ilp);
    if inp.mix.load_replays > 0.0 {
        put("load_replays", inp.mix.load_replays);
    }
    put("mlp_global", inp.mlp_global);
    put("mlp_shared", inp.mlp_shared);
    put("dram_gbs_used", arch.dram_bytes_per_second / 1e9);
    put("l2_gbs_used", arch.l2_bytes_per_second / 1e9);
    put(
        "calibrated_dram",
        f64::from(u8::from(arch.dram_origin == Origin::Calibrated)),
    );
    put(
        "calibrated_l2",
        f64::from(u8::from(arch.l2_origin == Origin::Calibrated)),
    );
    put(
        "calibrated_latency",
        f64::from(u8::from(arch.latency_origin == Origin::Calibrated)),
    );
    put(
        "calibrated_launch",
        f64::from(u8::from(arch.launch_origin == Origin::Calibrated)),
    );
    Ok(Timing {
        seconds,
        limit,
        breakdown: bd,
    })
}

/// Seconds the PCIe link needs for the kernel's mapped host memory (docs:
/// "Mapped host memory"): reads host to device and writes device to host run
/// on the two directions of the link at once, each at the mapped-read rate.
pub fn pcie_seconds(inp: &TimingInputs, arch: &ArchParams) -> f64 {
    let bw = arch.pcie_bytes_per_second;
    (inp.pcie_read_bytes / bw).max(inp.pcie_write_bytes / bw)
}

/// The kernel body with the PCIe time of mapped host memory (docs: "Mapped
/// host memory"): a block loads its data, then computes, so the link and
/// the SMs work as a two-stage pipeline over `waves` waves of blocks. While
/// one wave computes, the next one's reads cross the link; only one wave's
/// share of the shorter stage is exposed:
/// `max(device, pcie) + min(device, pcie) / waves`. One wave is the sum,
/// many waves tend to the max. Without mapped memory it is `device`.
pub fn overlap_pcie(device: f64, pcie: f64, waves: f64) -> f64 {
    if pcie <= 0.0 {
        return device;
    }
    device.max(pcie) + device.min(pcie) / waves.max(1.0)
}

/// [`evaluate`] as a [`Prediction`]; the bottleneck names the binding limit
/// and whether the bandwidths came from a calibration or the datasheet.
pub fn prediction(inp: &TimingInputs, arch: &ArchParams) -> Result<Prediction, ModelError> {
    let t = evaluate(inp, arch)?;
    let origin = if arch.dram_origin == Origin::Calibrated {
        "calibrated"
    } else {
        "datasheet"
    };
    Prediction::from_cycles(
        NAME,
        t.seconds * arch.clock_hz,
        arch.clock_hz,
        format!("{} ({origin} bandwidths)", t.limit.name()),
        t.breakdown,
    )
}
