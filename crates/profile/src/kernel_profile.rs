//! [`KernelProfile`]: everything the analytical models know about one kernel launch.
//!
//! The same struct is written by hand in TOML (for the seeds' pseudo-code
//! analyses) and, later, filled by the emulator's collector. Counts are `f64`
//! so that hand-derived figures such as "4 log N accesses per thread" and
//! per-thread means can be written directly; measured counts are integral and
//! exact in `f64` up to 2^53.
//!
//! Conventions: a *warp instruction* is one issue of an instruction by a warp,
//! whatever its active mask (the Hong & Kim and GPUPerf counts); a *thread
//! instruction* is one execution by one active thread (Kerr et al.'s
//! thread-level count). Kernel totals are summed over the whole grid.

use serde::{Deserialize, Serialize};

/// One kernel launch, measured or hand-analysed. Every section defaults to
/// zeros, so a hand-written profile only states what its analysis knows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KernelProfile {
    /// Kernel entry name, for display only.
    pub kernel: String,
    /// Free text: where the numbers come from.
    pub description: String,
    /// Launch configuration.
    pub launch: Launch,
    /// Dynamic warp instructions by class, kernel total (count of warp issues).
    pub warp_instructions: ClassMix,
    /// Dynamic thread instructions by class, kernel total (count of active-thread executions).
    pub thread_instructions: ClassMix,
    /// Per-thread operation counts by class: the maximum and the mean over threads.
    pub per_thread: PerThread,
    /// Global-memory traffic.
    pub global: GlobalMemory,
    /// Shared-memory traffic and bank conflicts.
    pub shared: SharedMemory,
    /// Local-memory (per-thread spill/stack) traffic.
    pub local: LocalMemory,
    /// Barriers.
    pub sync: Synchronisation,
    /// Atomic operations.
    pub atomics: Atomics,
    /// Branches and divergence.
    pub branches: Branches,
    /// Registers and static shared memory, the inputs of the occupancy calculation.
    pub resources: Resources,
    /// Optional figures that particular analyses state directly (they override
    /// what the models would derive from the counts above).
    pub analysis: AnalysisInputs,
    /// Kerr et al. workload metrics and footprint, when measured (emulator runs).
    pub workload: crate::workload::Workload,
    /// Cache-model figures (hit rates, DRAM bytes) for one GPU, when simulated.
    pub cache: crate::workload::CacheFigures,
    /// Tensor-core work of the warp-wide matrix multiplies (`mma`,
    /// `wmma.mma`); absent (all zero) for kernels without them.
    #[serde(skip_serializing_if = "TensorWork::is_empty")]
    pub tensor: TensorWork,
}

/// Tensor-core work, kernel totals: the multiply-adds of the warp-wide
/// matrix multiplies (m x n x k per instruction, a sparse form counted
/// dense), by the kind of their inputs and accumulator, and the
/// instructions. The instructions are also in the class mixes (`other`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TensorWork {
    /// f16 multiplicands, f16 accumulator. Multiply-adds.
    pub f16: f64,
    /// f16 or bf16 multiplicands, f32 accumulator. Multiply-adds.
    pub f16_f32: f64,
    /// tf32 multiplicands (f32 accumulator). Multiply-adds.
    pub tf32: f64,
    /// 8-bit integer multiplicands (s32 accumulator). Multiply-adds.
    pub int8: f64,
    /// f64 multiplicands and accumulator. Multiply-adds.
    pub fp64: f64,
    /// Warp-level matrix-multiply instructions. Count.
    pub instructions: f64,
}

impl TensorWork {
    /// No tensor work at all (what a profile without the section holds).
    pub fn is_empty(&self) -> bool {
        *self == TensorWork::default()
    }
}

/// Launch configuration (as in the launch spec of DESIGN.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Launch {
    /// Blocks per grid dimension (x, y, z), blocks; 1 to 3 entries in TOML, missing ones are 1.
    #[serde(deserialize_with = "dims")]
    pub grid: [u32; 3],
    /// Threads per block dimension (x, y, z), threads; 1 to 3 entries in TOML, missing ones are 1.
    #[serde(deserialize_with = "dims")]
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: u64,
}

/// Read 1 to 3 dimensions (as the launch spec of DESIGN.md allows), padding with 1.
fn dims<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[u32; 3], D::Error> {
    let v = Vec::<u32>::deserialize(d)?;
    match v.as_slice() {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(serde::de::Error::invalid_length(
            v.len(),
            &"1 to 3 dimensions",
        )),
    }
}

impl Default for Launch {
    fn default() -> Self {
        Self {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
        }
    }
}

impl Launch {
    /// Number of blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// Warps per block for a warp of `warp_size` threads (rounded up).
    pub fn warps_per_block(&self, warp_size: u32) -> u64 {
        self.threads_per_block()
            .div_ceil(u64::from(warp_size.max(1)))
    }

    /// Threads in the whole grid.
    pub fn threads(&self) -> u64 {
        self.blocks().saturating_mul(self.threads_per_block())
    }
}

/// Counts by instruction class. The unit is "instructions" (or operations)
/// and depends on where the mix is used: warp issues, thread executions, or
/// operations of one thread. Memory classes count memory *instructions* (one
/// per load/store executed), not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassMix {
    /// Simple integer: add, sub, logic, shift, compare, min/max, select, move. Count.
    pub int_add: f64,
    /// 32-bit integer multiply and multiply-add. Count.
    pub int_mul: f64,
    /// Integer division and remainder (modulus). Count.
    pub int_div: f64,
    /// FP32 add, mul, min/max, compare (one flop each). Count.
    pub fp32: f64,
    /// IEEE-rounded FP32 division (`div.rn.f32`, one flop each): a
    /// sequence of about 13 machine instructions (an SFU reciprocal, FMA
    /// refinement, a range check), not in `fp32`. Count.
    pub fp32_div: f64,
    /// FP32 fused multiply-add (two flops each). Count.
    pub fp32_fma: f64,
    /// FP64 add, mul, compare (one flop each). Count.
    pub fp64: f64,
    /// FP64 fused multiply-add (two flops each). Count.
    pub fp64_fma: f64,
    /// FP16/BF16 arithmetic, scalar or packed. Count.
    pub fp16: f64,
    /// Special-function unit: approximate rcp, sqrt, rsqrt, sin, cos, lg2,
    /// ex2, FP32 div (`.approx`, `.full`). Count.
    pub sfu: f64,
    /// IEEE-rounded FP32 reciprocal and square root (`rcp.rn.f32`,
    /// `sqrt.rn.f32`): one SFU instruction in a sequence of about 13
    /// machine instructions, not in `sfu`. Count.
    pub sfu_ieee: f64,
    /// Conversions between types. Count.
    pub convert: f64,
    /// Control flow: branch, call, return, exit. Count.
    pub control: f64,
    /// Everything else that computes (shuffles, votes, special registers). Count.
    pub other: f64,
    /// Global loads (including read-only/texture paths). Count of memory instructions.
    pub global_load: f64,
    /// Global stores. Count of memory instructions.
    pub global_store: f64,
    /// Shared-memory loads. Count of memory instructions.
    pub shared_load: f64,
    /// Shared-memory stores. Count of memory instructions.
    pub shared_store: f64,
    /// Local-memory loads and stores. Count of memory instructions.
    pub local: f64,
    /// Constant and parameter loads with an immediate address (ptxas
    /// folds them into operands). Count of memory instructions.
    pub constant: f64,
    /// Constant loads with a register in the address: an `LDC`
    /// instruction each, not in `constant`. Count of memory instructions.
    pub constant_indexed: f64,
    /// Atomic and reduction operations (global or shared). Count.
    pub atomic: f64,
    /// Barriers (`bar.sync`, `__syncthreads`). Count.
    pub barrier: f64,
}

impl ClassMix {
    /// Arithmetic, conversion, control and other non-memory instructions.
    pub fn compute(&self) -> f64 {
        self.int_add
            + self.int_mul
            + self.int_div
            + self.fp32
            + self.fp32_div
            + self.fp32_fma
            + self.fp64
            + self.fp64_fma
            + self.fp16
            + self.sfu
            + self.sfu_ieee
            + self.convert
            + self.control
            + self.other
    }

    /// Global loads plus stores (atomics not included).
    pub fn global(&self) -> f64 {
        self.global_load + self.global_store
    }

    /// Shared loads plus stores.
    pub fn shared(&self) -> f64 {
        self.shared_load + self.shared_store
    }

    /// Every memory instruction class, atomics and barriers included.
    pub fn memory_and_sync(&self) -> f64 {
        self.global()
            + self.shared()
            + self.local
            + self.constant
            + self.constant_indexed
            + self.atomic
            + self.barrier
    }

    /// All classes.
    pub fn total(&self) -> f64 {
        self.compute() + self.memory_and_sync()
    }

    /// Floating-point operations, FMA counted as two (FP16 counted as one per instruction).
    pub fn flops(&self) -> f64 {
        self.fp32
            + self.fp32_div
            + 2.0 * self.fp32_fma
            + self.fp64
            + 2.0 * self.fp64_fma
            + self.fp16
    }

    /// Every field with its name, in declaration order (for validation and display).
    pub fn fields(&self) -> [(&'static str, f64); 23] {
        [
            ("int_add", self.int_add),
            ("int_mul", self.int_mul),
            ("int_div", self.int_div),
            ("fp32", self.fp32),
            ("fp32_div", self.fp32_div),
            ("fp32_fma", self.fp32_fma),
            ("fp64", self.fp64),
            ("fp64_fma", self.fp64_fma),
            ("fp16", self.fp16),
            ("sfu", self.sfu),
            ("sfu_ieee", self.sfu_ieee),
            ("convert", self.convert),
            ("control", self.control),
            ("other", self.other),
            ("global_load", self.global_load),
            ("global_store", self.global_store),
            ("shared_load", self.shared_load),
            ("shared_store", self.shared_store),
            ("local", self.local),
            ("constant", self.constant),
            ("constant_indexed", self.constant_indexed),
            ("atomic", self.atomic),
            ("barrier", self.barrier),
        ]
    }
}

/// Per-thread operation counts (operations executed by one thread).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PerThread {
    /// The maximum over threads, class by class (operations per thread).
    pub max: ClassMix,
    /// The mean over threads, class by class (operations per thread).
    pub mean: ClassMix,
}

/// Traffic of one direction (loads or stores) of a memory space.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Traffic {
    /// Warp-level memory instructions (requests), kernel total. Count.
    pub requests: f64,
    /// Memory transactions (segments/sectors) the requests turned into, kernel total. Count.
    pub transactions: f64,
    /// Bytes requested by the active threads, kernel total. Bytes.
    pub bytes: f64,
}

/// Global-memory traffic, kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GlobalMemory {
    /// Global loads.
    pub loads: Traffic,
    /// Global stores.
    pub stores: Traffic,
    /// Warp-level global memory instructions whose accesses coalesced (loads and
    /// stores; a request served by the minimum number of segments). Count.
    pub coalesced_instructions: f64,
    /// Warp-level global memory instructions that did not coalesce. Count.
    pub uncoalesced_instructions: f64,
    /// Transactions of the coalesced instructions. Count.
    pub coalesced_transactions: f64,
    /// Transactions of the uncoalesced instructions. Count.
    pub uncoalesced_transactions: f64,
    /// Bytes moved between DRAM and the chip, when known (e.g. a cache model or a
    /// counter); absent = transactions x transaction size. Bytes.
    pub dram_bytes: Option<f64>,
    /// Bytes moved between L2 and the SMs, when known; absent = the DRAM bytes. Bytes.
    pub l2_bytes: Option<f64>,
    /// Bytes the kernel reads from buffers in mapped (zero-copy) host memory:
    /// they cross PCIe host to device during the kernel (32-byte sectors,
    /// each counted once). Absent: the kernel maps no host memory. Bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_mapped_read_bytes: Option<f64>,
    /// Bytes the kernel writes to buffers in mapped host memory (device to
    /// host over PCIe), as `host_mapped_read_bytes`. Bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_mapped_written_bytes: Option<f64>,
    /// Distinct 128-byte lines each warp-level global load touches, summed
    /// over the loads (at least their requests). Absent in profiles written
    /// before 2026-12-04 and in hand-written ones. Count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_lines: Option<f64>,
    /// Of the global loads, those on the read-only path (`ld.global.nc`,
    /// `__ldg`): their requests. Absent as `load_lines`. Count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_load_requests: Option<f64>,
    /// The distinct 128-byte lines of those read-only loads, summed. Count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_load_lines: Option<f64>,
    /// Wavefronts the global loads take in the L1's data stage, summed: each
    /// load's bank passes by phase (half-warps for 64-bit lanes,
    /// quarter-warps for 128-bit ones), as a shared load of the same
    /// addresses takes. Absent in profiles written before 2026-12-04's
    /// fourth H200 loan and in hand-written ones. Count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_wavefronts: Option<f64>,
}

impl GlobalMemory {
    /// Warp-level global memory instructions (loads plus stores).
    pub fn requests(&self) -> f64 {
        self.loads.requests + self.stores.requests
    }

    /// Transactions (loads plus stores).
    pub fn transactions(&self) -> f64 {
        self.loads.transactions + self.stores.transactions
    }

    /// Bytes requested (loads plus stores).
    pub fn bytes(&self) -> f64 {
        self.loads.bytes + self.stores.bytes
    }
}

/// Shared-memory traffic, kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SharedMemory {
    /// Shared loads.
    pub loads: Traffic,
    /// Shared stores.
    pub stores: Traffic,
    /// Largest bank-conflict degree seen in one request (1 = conflict-free). Ways.
    pub max_conflict_ways: f64,
    /// Warp-level shared loads and stores of the PTX that ptxas issues as
    /// part of a wider access (neighbouring words of one base: four 32-bit
    /// `ld.shared` as one `LDS.128`); the requests above count the wider
    /// access once. Absent in profiles written before 2026-12-04 and in
    /// hand-written ones. Count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_accesses: Option<f64>,
}

impl SharedMemory {
    /// Warp-level shared memory instructions (loads plus stores).
    pub fn requests(&self) -> f64 {
        self.loads.requests + self.stores.requests
    }

    /// Bank-serialised passes, i.e. transactions (loads plus stores).
    pub fn transactions(&self) -> f64 {
        self.loads.transactions + self.stores.transactions
    }

    /// Mean bank-conflict degree: transactions per request (1 when there is no traffic).
    pub fn mean_conflict_ways(&self) -> f64 {
        let r = self.requests();
        if r > 0.0 {
            (self.transactions() / r).max(1.0)
        } else {
            1.0
        }
    }
}

/// Local-memory traffic, kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalMemory {
    /// Local loads.
    pub loads: Traffic,
    /// Local stores.
    pub stores: Traffic,
}

/// Barrier synchronisation.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Synchronisation {
    /// Barriers each thread passes (the maximum over threads; Hong & Kim's
    /// `#Synch_insts`). Count per thread.
    pub barriers_per_thread: f64,
    /// Warp-level barrier instructions, kernel total. Count.
    pub barrier_instructions: f64,
}

/// Atomic operations, kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Atomics {
    /// Warp-level atomic instructions on global memory. Count.
    pub global_instructions: f64,
    /// Warp-level atomic instructions on shared memory. Count.
    pub shared_instructions: f64,
    /// Thread-level atomic operations (all spaces). Count.
    pub thread_operations: f64,
    /// Mean number of threads of a warp hitting the same address in one atomic
    /// instruction (1 = no conflict). Threads.
    pub mean_conflict_ways: f64,
}

/// Branches, kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Branches {
    /// Warp-level conditional branch instructions. Count.
    pub branches: f64,
    /// Of those, the ones whose active threads did not all go the same way. Count.
    pub divergent: f64,
}

/// Where a register count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterSource {
    /// Written by hand (a paper's figure or a guess).
    #[default]
    Given,
    /// Reported by ptxas for the target architecture.
    Ptxas,
    /// Estimated from the PTX (virtual registers, liveness).
    Estimate,
}

/// Per-thread and per-block resources.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Resources {
    /// 32-bit registers per thread; 0 = unknown (occupancy is then not limited by registers).
    pub registers_per_thread: u32,
    /// Where `registers_per_thread` came from.
    pub registers_source: RegisterSource,
    /// Statically declared shared memory per block, bytes.
    pub static_shared_per_block: u64,
    /// The compiler release (NVRTC / ptxas, "major.minor") whose SASS the
    /// models assume: the ptxas that reported the registers, or the one that
    /// built the measured kernels where a measurement says so (`validate`
    /// sets it). Unknown: the models assume ptxas 12.x lowering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiler: Option<CompilerVersion>,
    /// The architecture ptxas built the kernel for when it reported the
    /// registers (and the spills and code size of `analysis.spills`):
    /// the GPU's own where it can run the PTX (`predict` and `validate`
    /// run ptxas per GPU), else the PTX's target. None without ptxas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptxas_arch: Option<crate::SmArch>,
}

/// A CUDA compiler release, written "major.minor" ("12.9", "13.0").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CompilerVersion {
    /// Major release (12 for CUDA 12.x).
    pub major: u32,
    /// Minor release.
    pub minor: u32,
}

impl CompilerVersion {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> CompilerVersion {
        CompilerVersion { major, minor }
    }

    /// "12.9", "13.0", "11.8.89" or "V12.9.86" (a patch level is ignored);
    /// `None` for anything else.
    pub fn parse(text: &str) -> Option<CompilerVersion> {
        let t = text.trim();
        let t = t.strip_prefix(['V', 'v']).unwrap_or(t);
        let mut parts = t.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        if parts.any(|p| p.parse::<u32>().is_err()) {
            return None;
        }
        Some(CompilerVersion { major, minor })
    }
}

impl std::fmt::Display for CompilerVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for CompilerVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CompilerVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        CompilerVersion::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "compiler version {text:?} is not \"major.minor\" (for example \"12.9\")"
            ))
        })
    }
}

/// Figures that a paper's analysis states directly; each overrides what the
/// models would otherwise derive from the counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalysisInputs {
    /// Kothapalli et al. (seed 000) per-thread cycle counts.
    pub kothapalli: KothapalliInputs,
    /// Hong & Kim MWP-CWP per-thread instruction counts and occupancy.
    pub mwp_cwp: MwpCwpInputs,
    /// GPUPerf parallelism and overhead inputs.
    pub gpuperf: GpuPerfInputs,
    /// Roofline work.
    pub roofline: RooflineInputs,
    /// Static instruction- and memory-level parallelism (`ptx::analysis::ilp`,
    /// filled by the pipeline; read by the timing model).
    pub parallelism: ParallelismInputs,
    /// Register spills ptxas reports for the entry (filled by the pipeline;
    /// read by the timing model).
    pub spills: SpillInputs,
}

/// What ptxas's `-v` says about register spills of the entry: static code,
/// bytes per thread, with the entry's static instruction count to spread
/// them over the executed instructions.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpillInputs {
    /// "N bytes spill stores". Bytes per thread; 0 = none or unknown.
    pub store_bytes: u64,
    /// "N bytes spill loads". Bytes per thread; 0 = none or unknown.
    pub load_bytes: u64,
    /// PTX instructions in the entry's body (0 = unknown). Instructions.
    pub static_instructions: u64,
    /// Bytes of SASS ptxas built for the entry (its `.text` section in the
    /// cubin; 0 = unknown, e.g. profiles saved before 2026-12-06 or
    /// registers estimated without ptxas): the code the instruction caches
    /// hold. Bytes.
    pub sass_bytes: u64,
    /// "N bytes stack frame": the local memory one thread's spills (and
    /// local arrays) occupy, so the footprint that competes for L1. Bytes
    /// per thread; 0 = none or unknown.
    pub stack_frame_bytes: u64,
}

/// Independent work one warp has in flight, from the dependence graph of each
/// basic block weighted by its executions (`ptx::analysis::ilp`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParallelismInputs {
    /// Compute instructions over their critical path. Instructions.
    pub ilp: Option<f64>,
    /// Global/local loads over their critical path. Requests.
    pub mlp_global: Option<f64>,
    /// Shared loads over their critical path. Requests.
    pub mlp_shared: Option<f64>,
}

/// Kothapalli et al.'s per-thread cycle counts (section 3.2: N_comp and N_memory).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KothapalliInputs {
    /// N_comp: computation cycles of the costliest thread. Cycles.
    pub comp_cycles: Option<f64>,
    /// N_memory: memory cycles (global and shared) of the costliest thread. Cycles.
    pub memory_cycles: Option<f64>,
}

/// Hong & Kim's per-thread (= per-warp) program parameters (models.md 1.2).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MwpCwpInputs {
    /// `#Comp_insts`: dynamic computation instructions per thread. Count.
    pub comp_insts: Option<f64>,
    /// `#Coal_Mem_insts`: coalesced global memory instructions per thread. Count.
    pub coal_mem_insts: Option<f64>,
    /// `#Uncoal_Mem_insts`: uncoalesced global memory instructions per thread. Count.
    pub uncoal_mem_insts: Option<f64>,
    /// `#Synch_insts`: barriers per thread. Count.
    pub synch_insts: Option<f64>,
    /// `#Coal_per_mw`: transactions per coalesced memory warp instruction. Count.
    pub coal_per_mw: Option<f64>,
    /// `#Uncoal_per_mw`: transactions per uncoalesced memory warp instruction. Count.
    pub uncoal_per_mw: Option<f64>,
    /// `Load_bytes_per_warp`: bytes one warp moves per memory instruction. Bytes.
    pub load_bytes_per_warp: Option<f64>,
    /// `#Active_blocks_per_SM`, when the analysis fixes it (else the occupancy calculator). Blocks.
    pub active_blocks_per_sm: Option<f64>,
}

/// GPUPerf's kernel inputs that counts alone do not give (models.md 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpuPerfInputs {
    /// Instruction-level parallelism within a warp (default 1). Instructions.
    pub ilp: Option<f64>,
    /// Memory-level parallelism within a warp (default 1). Requests.
    pub mlp: Option<f64>,
    /// Fraction of global accesses that reach DRAM (default 1). Ratio.
    pub miss_ratio: Option<f64>,
    /// Cache hit latency added to every access (default 0). Cycles.
    pub hit_latency: Option<f64>,
    /// O_CFdiv: control-flow divergence serialisation per SM. Cycles.
    pub cf_div_cycles: Option<f64>,
    /// O_bank: shared-memory bank-conflict serialisation per SM. Cycles.
    pub bank_cycles: Option<f64>,
}

/// Roofline work, when the analysis states it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RooflineInputs {
    /// Floating-point operations of the whole kernel. Flop.
    pub flops: Option<f64>,
}
