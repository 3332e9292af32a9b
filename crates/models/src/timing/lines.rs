//! Per-line cost: the terms of one wave ([`super::wave_cycles`]) for the
//! work of one source line (or one PTX instruction) alone, over the whole
//! kernel, in core clock cycles of the GPU (SM terms spread evenly over
//! the SMs). The terms are the model's: issue slots (integer and FP32
//! division expanded), bank-conflict replays, shared-memory bank passes (or
//! the LD/ST lanes' time for the shared requests, where longer), the L1
//! data path, and DRAM bytes (sectors that miss L1 and L2 at the kernel's
//! hit rates). A line's cost is the largest of them, as a wave's time is
//! the largest of its limits; the lines ranked by cost say where the time
//! goes, where counts of executions only say what runs often.

use super::{ArchParams, Limit};

/// The arithmetic pipes of the wave's `arithmetic` terms
/// ([`super::wave_cycles`]), each at its rate per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    /// FP32 add, multiply, FMA (FP16 too, as the wave issues it).
    Fp32,
    /// FP64 arithmetic.
    Fp64,
    /// Special functions (MUFU): the SFU.
    Sfu,
    /// Integer ALU, logic, compares, moves and control.
    Int,
    /// Integer multiply and multiply-add.
    IntMul,
    /// Type conversions.
    Convert,
}

impl Pipe {
    /// Every pipe, in the order of [`LineCost::pipe_cycles`].
    pub const ALL: [Pipe; 6] = [
        Pipe::Fp32,
        Pipe::Fp64,
        Pipe::Sfu,
        Pipe::Int,
        Pipe::IntMul,
        Pipe::Convert,
    ];

    /// How tables and sentences name it.
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Fp32 => "FP32 pipe",
            Pipe::Fp64 => "FP64 pipe",
            Pipe::Sfu => "SFU",
            Pipe::Int => "integer pipe",
            Pipe::IntMul => "integer multiply pipe",
            Pipe::Convert => "conversion pipe",
        }
    }

    /// Warp instructions per clock per SM.
    pub fn rate(self, arch: &ArchParams) -> f64 {
        match self {
            Pipe::Fp32 => arch.rate_fp32,
            Pipe::Fp64 => arch.rate_fp64,
            Pipe::Sfu => arch.rate_sfu,
            Pipe::Int => arch.rate_int,
            Pipe::IntMul => arch.rate_int_mul,
            Pipe::Convert => arch.rate_convert,
        }
    }

    /// Position in [`Pipe::ALL`] and [`LineCost::pipe_cycles`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The work of one line over the whole kernel (warp-level counts).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LineLoad {
    /// Warp instructions executed.
    pub warp_instructions: f64,
    /// The integer divisions among them (each expands to several slots).
    pub int_div: f64,
    /// The IEEE FP32 divisions, reciprocals and square roots among them
    /// (each expands to several slots).
    pub fp32_div: f64,
    /// Mean active lanes per execution (32: no divergence).
    pub mean_active_threads: f64,
    /// Shared-memory requests and their bank passes (requests x conflict ways).
    pub shared_requests: f64,
    pub shared_passes: f64,
    /// The passes the shared accesses' width needs (one per request, or
    /// bytes / 128 where more; [`super::adapter::wide_passes_of`]).
    pub shared_wide_passes: f64,
    /// 32-byte sectors of global and local accesses.
    pub sectors: f64,
    /// Bytes those accesses hand to or take from the lanes, a byte once per
    /// active lane ([`super::TimingInputs::lane_bytes`]).
    pub lane_bytes: f64,
    /// The arithmetic pipe its instructions run on (None: memory, barriers;
    /// the divisions above take the pipes their sequences use).
    pub pipe: Option<Pipe>,
}

/// The cost terms of one line, cycles over the whole kernel.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LineCost {
    /// Issue slots (replays excluded).
    pub issue_cycles: f64,
    /// Bank-conflict replays ([`super::shared_passes_and_replays`]).
    pub replay_cycles: f64,
    /// All shared-memory bank passes, or the LD/ST lanes' time for the
    /// shared requests where longer.
    pub shared_cycles: f64,
    /// The L1 data path (sectors x 32 bytes, or the lanes' bytes where more).
    pub l1_cycles: f64,
    /// DRAM time of the sectors that miss L1 and L2.
    pub dram_cycles: f64,
    /// The issue cycles spent on inactive lanes (divergence, guarded-off
    /// tails): part of `issue_cycles`, shown apart.
    pub divergence_cycles: f64,
    /// Each arithmetic pipe's time, in the order of [`Pipe::ALL`].
    pub pipe_cycles: [f64; 6],
}

impl LineCost {
    /// The busiest arithmetic pipe and its time (None where no pipe is used).
    pub fn busiest_pipe(&self) -> Option<(Pipe, f64)> {
        let mut best: Option<(Pipe, f64)> = None;
        for p in Pipe::ALL {
            let t = self.pipe_cycles[p.index()];
            if t > 0.0 && best.is_none_or(|(_, b)| t > b) {
                best = Some((p, t));
            }
        }
        best
    }

    /// One pipe's time.
    pub fn pipe(&self, p: Pipe) -> f64 {
        self.pipe_cycles[p.index()]
    }

    /// Issue (with its replays) or the busiest pipe, whichever is longer:
    /// the line's share of the "compute issue" limit.
    pub fn compute_cycles(&self) -> f64 {
        let pipe = self.busiest_pipe().map_or(0.0, |(_, t)| t);
        (self.issue_cycles + self.replay_cycles).max(pipe)
    }

    /// The line's cost: the largest of its limits (issue includes its
    /// replays; the pipes are compute too).
    pub fn cycles(&self) -> f64 {
        self.compute_cycles()
            .max(self.shared_cycles)
            .max(self.l1_cycles)
            .max(self.dram_cycles)
    }

    /// Sum of two lines' terms (a CUDA line of several PTX instructions).
    pub fn add(&mut self, o: &LineCost) {
        self.issue_cycles += o.issue_cycles;
        self.replay_cycles += o.replay_cycles;
        self.shared_cycles += o.shared_cycles;
        self.l1_cycles += o.l1_cycles;
        self.dram_cycles += o.dram_cycles;
        self.divergence_cycles += o.divergence_cycles;
        for (a, b) in self.pipe_cycles.iter_mut().zip(o.pipe_cycles) {
            *a += b;
        }
    }

    /// The term of the model's binding limit (how much of what bounds the
    /// kernel this line uses); the line's cost for the limits no line owns
    /// (latency, launch/tail).
    pub fn term(&self, limit: Limit) -> f64 {
        match limit {
            Limit::ComputeIssue => self.compute_cycles(),
            Limit::SharedMemory => self.shared_cycles,
            Limit::L1Bandwidth => self.l1_cycles,
            Limit::DramBandwidth | Limit::L2Bandwidth | Limit::PcieBandwidth => {
                self.dram_cycles.max(self.l1_cycles)
            }
            Limit::Latency | Limit::LaunchTail => self.cycles(),
        }
    }
}

/// The cost of `load` on the GPU of `arch`, with the kernel's L1 and L2
/// sector hit rates (0 and 0 when unknown: every sector from DRAM, an
/// upper bound).
pub fn line_cost(
    load: &LineLoad,
    arch: &ArchParams,
    l1_hit_rate: f64,
    l2_hit_rate: f64,
) -> LineCost {
    let sms = arch.sm_count.max(1.0);
    let per_sm = |x: f64| x / sms;
    let slots = load.warp_instructions - load.int_div - load.fp32_div
        + load.int_div * arch.int_div_slots
        + load.fp32_div * arch.fp32_div_slots;
    let issue = per_sm(slots / arch.issue_per_clock.max(f64::MIN_POSITIVE));
    let passes_per_clock = arch.shared_passes_per_clock.max(f64::MIN_POSITIVE);
    let (passes, replays) = super::shared_passes_and_replays(
        load.shared_passes,
        load.shared_wide_passes,
        load.shared_requests,
        arch,
    );
    let bytes = load.sectors * 32.0;
    // L1 carries the lanes' bytes where more; DRAM moves sectors only.
    let l1_bytes = super::l1_data_bytes(load.sectors, load.lane_bytes);
    let miss = (1.0 - l1_hit_rate.clamp(0.0, 1.0)) * (1.0 - l2_hit_rate.clamp(0.0, 1.0));
    let dram_bytes_per_clock = arch.dram_bytes_per_second / arch.clock_hz.max(f64::MIN_POSITIVE);
    let inactive = if load.mean_active_threads > 0.0 {
        (1.0 - load.mean_active_threads / 32.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // The pipes, as the wave charges them: an FP32 division (or IEEE
    // reciprocal, square root) is one SFU instruction and FP32-pipe
    // refinement, an integer division integer-pipe slots; the rest run
    // on the instruction's own pipe.
    let mut pipe_cycles = [0.0; 6];
    let mut charge = |p: Pipe, n: f64| {
        if n > 0.0 {
            pipe_cycles[p.index()] += per_sm(n / p.rate(arch).max(f64::MIN_POSITIVE));
        }
    };
    charge(Pipe::Sfu, load.fp32_div);
    charge(
        Pipe::Fp32,
        load.fp32_div * (arch.fp32_div_slots - 1.0).max(0.0),
    );
    charge(Pipe::Int, load.int_div * arch.int_div_slots);
    if let Some(p) = load.pipe {
        charge(
            p,
            (load.warp_instructions - load.int_div - load.fp32_div).max(0.0),
        );
    }
    LineCost {
        issue_cycles: issue,
        replay_cycles: per_sm(replays / passes_per_clock),
        // The banks' passes, or the LD/ST lanes' time for the requests
        // where that is longer (GA10x's 32-bit accesses: the wave charges
        // it in the LSU pipe).
        shared_cycles: per_sm(
            (passes / passes_per_clock)
                .max(load.shared_requests / arch.rate_lsu.max(f64::MIN_POSITIVE)),
        ),
        l1_cycles: per_sm(l1_bytes / arch.l1_bytes_per_clock.max(f64::MIN_POSITIVE)),
        dram_cycles: if dram_bytes_per_clock > 0.0 {
            bytes * miss / dram_bytes_per_clock
        } else {
            0.0
        },
        divergence_cycles: issue * inactive,
        pipe_cycles,
    }
}

/// The [`Limit`] a timing prediction's bottleneck text names (its first words).
pub fn limit_of(bottleneck: &str) -> Option<Limit> {
    [
        Limit::ComputeIssue,
        Limit::Latency,
        Limit::SharedMemory,
        Limit::L1Bandwidth,
        Limit::L2Bandwidth,
        Limit::DramBandwidth,
        Limit::PcieBandwidth,
        Limit::LaunchTail,
    ]
    .into_iter()
    .find(|l| bottleneck.starts_with(l.name()))
}
