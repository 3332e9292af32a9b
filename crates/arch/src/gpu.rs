//! The `Gpu` description, deserialised from one `gpus/<id>.toml` file.
//!
//! Units are fixed by the field names: `_mhz` megahertz, `_gbs` GB/s with
//! 1 GB = 1e9 B (the vendor convention, models.md 0.3), `_bytes` bytes, and
//! every latency is in core (SM) clock cycles. Counts are per SM unless the
//! name says otherwise. Every number carries a source in the `[sources]`
//! table (see [`Source`]); a key there may name a field (`"limits.max_warps_per_sm"`)
//! or a whole section (`"limits"`), and the most specific entry wins.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::cc::CcFigures;
use crate::error::{BadComputeCapability, ClockOutOfRange};

/// One GPU of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Lowercase, hyphenated identifier; equals the file stem (`a100-pcie-40gb`).
    pub id: String,
    /// Marketing name (`NVIDIA A100 PCIe 40 GB`).
    pub name: String,
    /// Architecture family (`Ampere`).
    pub architecture: String,
    /// Chip (`GA100`).
    pub chip: String,
    /// Compute capability, written `"8.0"` in the file.
    pub compute_capability: ComputeCapability,
    /// Streaming multiprocessors on this product.
    pub sm_count: u32,
    /// Execution units of one SM.
    pub sm: SmUnits,
    /// Core and memory clocks.
    pub clocks: Clocks,
    /// DRAM.
    pub memory: Memory,
    /// On-chip memories.
    pub caches: Caches,
    /// Occupancy limits and allocation rules of the compute capability.
    pub limits: Limits,
    /// Latencies in core clock cycles.
    pub latencies: Latencies,
    /// Issue throughput per instruction class, in thread-operations per clock per SM.
    #[serde(default)]
    pub throughput: Throughput,
    /// Parameters the seeds' models use directly, where a paper gives them.
    #[serde(default)]
    pub model_params: ModelParams,
    /// The host link, where known: what a kernel reading mapped (zero-copy)
    /// host memory is limited by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie: Option<Pcie>,
    /// Where each number comes from; keys are field paths or section names.
    pub sources: BTreeMap<String, Source>,
    /// The figures of its compute capability (`gpus/compute-capabilities.toml`,
    /// [`crate::cc`]), each with its own source: not written in a GPU file,
    /// attached by [`crate::catalog::parse_gpu`], which refuses a GPU whose
    /// compute capability has no entry. Until then (a `Gpu` deserialised by
    /// other means) its numbers are NaN, which every model refuses.
    #[serde(skip, default = "CcFigures::unresolved")]
    pub cc_figures: CcFigures,
}

/// A compute capability `major.minor`; ordered, so `cc >= ComputeCapability::new(8, 0)` works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ComputeCapability {
    pub major: u32,
    pub minor: u32,
}

impl ComputeCapability {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The `sm_XY` name ptxas and NVRTC take (`sm_80`).
    pub fn sm_name(&self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl TryFrom<String> for ComputeCapability {
    type Error = BadComputeCapability;
    fn try_from(s: String) -> Result<Self, BadComputeCapability> {
        let bad = || BadComputeCapability(s.clone());
        let (major, minor) = s.split_once('.').ok_or_else(bad)?;
        let major = major.trim().parse::<u32>().map_err(|_| bad())?;
        let minor = minor.trim().parse::<u32>().map_err(|_| bad())?;
        Ok(Self { major, minor })
    }
}

impl From<ComputeCapability> for String {
    fn from(cc: ComputeCapability) -> String {
        cc.to_string()
    }
}

/// Execution units of one SM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmUnits {
    /// FP32 lanes ("CUDA cores") per SM.
    pub fp32_lanes: u32,
    /// FP64 lanes per SM (0 when the SM has none, e.g. CC 1.0/1.1).
    pub fp64_lanes: u32,
    /// Special-function units per SM.
    pub sfu: u32,
    /// Warp schedulers per SM (1 for CC 1.x, where one warp instruction takes 4 cycles on 8 SPs).
    pub warp_schedulers: u32,
    /// Threads per warp (32 on every NVIDIA GPU so far).
    pub warp_size: u32,
    /// Tensor cores per SM (0 before Volta).
    #[serde(default)]
    pub tensor_cores: u32,
}

/// Which clock the models use to turn cycles into seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockChoice {
    Base,
    Boost,
}

impl fmt::Display for ClockChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Base => "base",
            Self::Boost => "boost",
        })
    }
}

/// Core (shader/SM) and memory clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    /// Base core clock (for CC 1.x: the shader clock), MHz.
    pub base_mhz: f64,
    /// Boost core clock, MHz (equal to the base clock for GPUs without boost).
    pub boost_mhz: f64,
    /// The clock models use (see [`Gpu::clock_mhz`]); the papers' own GPUs use
    /// the clock the papers used.
    pub model_clock: ClockChoice,
    /// Memory clock, MHz, as the vendor quotes it (effective data rates vary by
    /// memory type, so bandwidth is given separately and is authoritative).
    #[serde(default)]
    pub memory_mhz: Option<f64>,
    /// The core clock the GPU holds under a long compute load, MHz, where it
    /// is known: a measurement (nvidia-smi or NVML during the run, or a
    /// clock locked with `nvidia-smi -lgc`). When given, every model uses it
    /// instead of `model_clock`: GPU Boost runs a card anywhere between its
    /// base clock and well above its rated boost clock, as power and
    /// temperature allow. `ptxperf predict/validate/tune --clock-mhz` set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained_mhz: Option<f64>,
}

/// The PCI Express link between the host and the GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pcie {
    /// PCIe generation the GPU's link runs at (3: 8 GT/s, 4: 16 GT/s, ...).
    pub generation: u32,
    /// Lanes of the link (16 for a desktop card in an x16 slot).
    pub lanes: u32,
    /// Host-to-device bandwidth a kernel reaches reading mapped (zero-copy)
    /// host memory with coalesced, aligned warp loads, GB/s (1 GB = 1e9 B):
    /// the raw rate ([`Pcie::raw_gbs`]) less the protocol's and the host's
    /// overheads, from a measurement. The timing model uses it for both
    /// directions (device-to-host writes run on the other half of the link).
    pub mapped_read_gbs: f64,
}

impl Pcie {
    /// Payload bits per transferred bit of a generation's line code: 8b/10b
    /// for 1.x and 2.0, 128b/130b for 3.0 to 5.0; None for others (6.0's
    /// FLIT mode is not a line code).
    pub fn encoding(generation: u32) -> Option<f64> {
        match generation {
            1 | 2 => Some(8.0 / 10.0),
            3..=5 => Some(128.0 / 130.0),
            _ => None,
        }
    }

    /// Transfer rate of one lane, GT/s (PCI-SIG base specifications 1.0 to
    /// 5.0: 2.5, 5, 8, 16, 32).
    pub fn lane_rate_gts(generation: u32) -> Option<f64> {
        match generation {
            1 => Some(2.5),
            2 => Some(5.0),
            3 => Some(8.0),
            4 => Some(16.0),
            5 => Some(32.0),
            _ => None,
        }
    }

    /// Raw bandwidth of one direction, GB/s: lanes x rate x encoding / 8
    /// (4.0 x16: 16 x 16 x 128/130 / 8 = 31.5). None for an unknown generation.
    pub fn raw_gbs(&self) -> Option<f64> {
        let rate = Self::lane_rate_gts(self.generation)?;
        let code = Self::encoding(self.generation)?;
        Some(f64::from(self.lanes) * rate * code / 8.0)
    }

    /// The mapped-read bandwidth, bytes per second.
    pub fn mapped_read_bytes_per_second(&self) -> f64 {
        self.mapped_read_gbs * 1e9
    }
}

/// DRAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Memory technology (`GDDR6`, `HBM2e`, ...).
    pub kind: String,
    /// Capacity, GiB.
    pub size_gib: f64,
    /// Bus width in bits, where known.
    #[serde(default)]
    pub bus_width_bits: Option<u32>,
    /// Theoretical peak bandwidth, GB/s (1 GB = 1e9 B).
    pub bandwidth_gbs: f64,
}

/// On-chip memories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caches {
    /// Unified L1 + shared memory capacity per SM, bytes (shared memory only for CC 1.x).
    pub l1_shared_per_sm_bytes: u64,
    /// L2 size, bytes; 0 when there is no L2 for global data (CC 1.x).
    pub l2_bytes: u64,
}

/// How registers are allocated (CUDA Occupancy Calculator terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterGranularity {
    /// Per warp: `ceil(regs * warp_size, unit)` per warp (CC 2.0 and later).
    Warp,
    /// Per block: `ceil(ceil(warps, warp_gran) * warp_size * regs, unit)` per block (CC 1.x).
    Block,
}

/// Occupancy limits and allocation rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub max_threads_per_sm: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// 32-bit registers one block may use.
    pub max_registers_per_block: u32,
    pub max_registers_per_thread: u32,
    /// Registers are allocated in units of this many.
    pub register_allocation_unit: u32,
    pub register_allocation_granularity: RegisterGranularity,
    /// Warps are allocated in groups of this many (register sub-partitions on 2.0+).
    pub warp_allocation_granularity: u32,
    /// Largest shared memory per SM (the largest carve-out), bytes.
    pub shared_per_sm_bytes: u64,
    /// Shared memory per block without opt-in (static limit), bytes.
    pub shared_per_block_bytes: u64,
    /// Shared memory per block with `cudaFuncAttributeMaxDynamicSharedMemorySize` opt-in (7.0+), bytes.
    #[serde(default)]
    pub shared_per_block_optin_bytes: Option<u64>,
    /// Shared memory the runtime reserves per block (1 KB on CC 8.0 and later), bytes.
    #[serde(default)]
    pub reserved_shared_per_block_bytes: u64,
    /// Shared memory is allocated in units of this many bytes.
    pub shared_allocation_unit: u64,
    /// Shared-memory carve-outs the driver may choose, KiB, ascending; empty when fixed.
    #[serde(default)]
    pub shared_carveouts_kib: Vec<u32>,
}

/// Latencies in core clock cycles (dependent issue or pointer chasing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latencies {
    /// Global access that misses all caches (TLB hit).
    pub dram: f64,
    /// L2 hit; `None` where there is no L2 for global data.
    #[serde(default)]
    pub l2_hit: Option<f64>,
    /// L1 hit; `None` where there is no L1 for global data.
    #[serde(default)]
    pub l1_hit: Option<f64>,
    /// Shared-memory load without bank conflict.
    pub shared: f64,
    /// Dependent FP32 add/FMA.
    pub fp32: f64,
    /// Dependent FP64 add/FMA; `None` when the GPU has no FP64 units.
    #[serde(default)]
    pub fp64: Option<f64>,
    /// Special function (MUFU / transcendental).
    #[serde(default)]
    pub sfu: Option<f64>,
    /// Dependent 32-bit integer add.
    #[serde(default)]
    pub int_add: Option<f64>,
    /// Dependent 32-bit integer multiply.
    #[serde(default)]
    pub int_mul: Option<f64>,
}

/// Thread-operations per clock per SM (the CUDA Programming Guide's arithmetic
/// throughput table), where known. Missing values: see the accessor methods.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Throughput {
    #[serde(default)]
    pub fp32: Option<f64>,
    #[serde(default)]
    pub fp64: Option<f64>,
    #[serde(default)]
    pub sfu: Option<f64>,
    #[serde(default)]
    pub int_add: Option<f64>,
    #[serde(default)]
    pub int_mul: Option<f64>,
    #[serde(default)]
    pub shared_bytes_per_clock: Option<f64>,
    /// Shared-memory bytes per clock per SM that 64-bit accesses reach,
    /// where measured: the banks' data path when the LD/ST lanes, not the
    /// banks, hold back 32-bit accesses (GA10x: 126.1 against 62.8).
    #[serde(default)]
    pub shared_wide_bytes_per_clock: Option<f64>,
    /// Tensor-core multiply-adds per clock per SM, dense, of the warp-wide
    /// matrix multiplies (`mma`, `wmma.mma`) by kind: f16 multiplicands
    /// with an f16 accumulator; f16 or bf16 with an f32 accumulator (half
    /// the f16 rate on GeForce parts); tf32; 8-bit integers; f64. Absent
    /// where no source gives it: the timing model then charges such an
    /// instruction one issue slot only, and says so.
    #[serde(default)]
    pub tensor_f16: Option<f64>,
    #[serde(default)]
    pub tensor_f16_f32: Option<f64>,
    #[serde(default)]
    pub tensor_tf32: Option<f64>,
    #[serde(default)]
    pub tensor_int8: Option<f64>,
    #[serde(default)]
    pub tensor_fp64: Option<f64>,
}

/// The seeds' model parameters, where a paper or implementation states them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelParams {
    /// MWP-CWP `#Issue_cycles`: cycles to issue one warp instruction.
    #[serde(default)]
    pub issue_cycles: Option<f64>,
    /// MWP-CWP `Mem_LD`: DRAM access latency.
    #[serde(default)]
    pub mem_ld: Option<f64>,
    /// MWP-CWP `Departure_del_coal`.
    #[serde(default)]
    pub departure_del_coal: Option<f64>,
    /// MWP-CWP `Departure_del_uncoal`.
    #[serde(default)]
    pub departure_del_uncoal: Option<f64>,
    /// MWP-CWP `#Uncoal_per_mw`: transactions per uncoalesced memory warp instruction.
    #[serde(default)]
    pub uncoal_per_mw: Option<f64>,
    /// MWP-CWP `#Coal_per_mw`.
    #[serde(default)]
    pub coal_per_mw: Option<f64>,
    /// The core clock the seeds' papers used for this GPU, MHz, where it differs
    /// from the vendor clock (GTX 280: 1300 in Kothapalli and Hong & Kim, vendor 1296).
    #[serde(default)]
    pub paper_clock_mhz: Option<f64>,
    /// Kothapalli `D`: pipeline depth.
    #[serde(default)]
    pub kothapalli_pipeline_depth: Option<f64>,
    /// Kothapalli cost of one global access, cycles (seed 000: 500 on the GTX 280).
    #[serde(default)]
    pub kothapalli_global_cycles: Option<f64>,
    /// Kothapalli cost of one shared access, cycles (seed 000: 4).
    #[serde(default)]
    pub kothapalli_shared_cycles: Option<f64>,
    /// Kothapalli cost of an add / simple op (seed 000: 4).
    #[serde(default)]
    pub kothapalli_add_cycles: Option<f64>,
    /// Kothapalli cost of a 32-bit integer multiply (seed 000: 16).
    #[serde(default)]
    pub kothapalli_int_mul_cycles: Option<f64>,
    /// Kothapalli cost of a modulus (seed 000: 48).
    #[serde(default)]
    pub kothapalli_modulus_cycles: Option<f64>,
}

/// How far a number has been checked (models.md's legend).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    /// Read in a primary source (datasheet, whitepaper, paper table): models.md [V-src], [V-impl], [V-calc].
    Verified,
    /// From memory or a single secondary source: models.md [U].
    Unverified,
    /// Not measured or published for this GPU: a stated assumption.
    Assumption,
}

impl fmt::Display for SourceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Verified => "verified",
            Self::Unverified => "unverified",
            Self::Assumption => "assumption",
        })
    }
}

/// The source of one number or section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub status: SourceStatus,
    /// Datasheet, paper table, or "assumption: ...".
    pub source: String,
}

impl Gpu {
    /// The core clock the models use, MHz: the sustained clock where one is
    /// given, else the rated clock `model_clock` names.
    pub fn clock_mhz(&self) -> f64 {
        self.clocks
            .sustained_mhz
            .unwrap_or_else(|| self.rated_clock_mhz())
    }

    /// The datasheet clock `model_clock` names (base or boost), MHz: what
    /// figures measured in bytes per second are converted to per-clock
    /// figures with, whatever clock the models run at.
    pub fn rated_clock_mhz(&self) -> f64 {
        match self.clocks.model_clock {
            ClockChoice::Base => self.clocks.base_mhz,
            ClockChoice::Boost => self.clocks.boost_mhz,
        }
    }

    /// This GPU held at `mhz` (see [`Clocks::sustained_mhz`]): a clock
    /// below 1 MHz or above 10 GHz, or not a number, is refused.
    pub fn with_sustained_clock(&self, mhz: f64) -> Result<Gpu, ClockOutOfRange> {
        if !(1.0..=10_000.0).contains(&mhz) {
            return Err(ClockOutOfRange(mhz));
        }
        let mut gpu = self.clone();
        gpu.clocks.sustained_mhz = Some(mhz);
        Ok(gpu)
    }

    /// The core clock the models use, Hz.
    pub fn clock_hz(&self) -> f64 {
        self.clock_mhz() * 1e6
    }

    /// FP32 lanes on the whole GPU.
    pub fn fp32_lanes_total(&self) -> u64 {
        u64::from(self.sm_count) * u64::from(self.sm.fp32_lanes)
    }

    /// Peak FP32 rate counting an FMA as two flops, flop/s.
    pub fn peak_fp32_flops(&self) -> f64 {
        2.0 * self.fp32_lanes_total() as f64 * self.clock_hz()
    }

    /// Peak FP64 rate counting an FMA as two flops, flop/s.
    pub fn peak_fp64_flops(&self) -> f64 {
        2.0 * f64::from(self.sm_count) * f64::from(self.sm.fp64_lanes) * self.clock_hz()
    }

    /// DRAM bandwidth, bytes per second.
    pub fn dram_bytes_per_second(&self) -> f64 {
        self.memory.bandwidth_gbs * 1e9
    }

    /// L1 data-cache bytes per SM: the unified L1/shared array less the
    /// shared-memory carve-out (`carveout_bytes`, as the occupancy calculator
    /// chose it), or less the largest shared memory per SM when the carve-out
    /// is fixed (`None`). Maxwell and Pascal have a separate 24 or 48 KB
    /// L1/texture beside their shared memory, which the catalog's sum keeps.
    pub fn l1_data_bytes(&self, carveout_bytes: Option<u64>) -> u64 {
        let shared = carveout_bytes.unwrap_or(self.limits.shared_per_sm_bytes);
        self.caches.l1_shared_per_sm_bytes.saturating_sub(shared)
    }

    /// DRAM bytes per core clock cycle for the whole GPU.
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        self.dram_bytes_per_second() / self.clock_hz()
    }

    /// Cycles one warp instruction occupies a scheduler's FP32 lanes:
    /// the stated `model_params.issue_cycles`, else
    /// `warp_size / (fp32_lanes / warp_schedulers)` (models.md 7.4), at least 1.
    pub fn issue_cycles(&self) -> f64 {
        if let Some(c) = self.model_params.issue_cycles {
            return c;
        }
        let per_scheduler =
            f64::from(self.sm.fp32_lanes) / f64::from(self.sm.warp_schedulers.max(1));
        (f64::from(self.sm.warp_size) / per_scheduler.max(1.0)).max(1.0)
    }

    /// MWP-CWP `Mem_LD`: the stated value, else the DRAM latency.
    pub fn mem_ld(&self) -> f64 {
        self.model_params.mem_ld.unwrap_or(self.latencies.dram)
    }

    /// The source of a field path (`"limits.max_warps_per_sm"`): the most specific
    /// `[sources]` entry, trying the path, then each shorter prefix.
    pub fn source_of(&self, path: &str) -> Option<&Source> {
        let mut key = path;
        loop {
            if let Some(s) = self.sources.get(key) {
                return Some(s);
            }
            key = &key[..key.rfind('.')?];
        }
    }

    /// Every number of this GPU as `(field path, value)`, in file order of sections.
    /// Used to show a GPU in full and to check that each number has a source.
    pub fn numeric_fields(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        if let Ok(value) = toml::Value::try_from(self) {
            collect_numbers("", &value, &mut out);
        }
        out
    }
}

fn collect_numbers(prefix: &str, value: &toml::Value, out: &mut Vec<(String, f64)>) {
    match value {
        toml::Value::Integer(i) => out.push((prefix.to_string(), *i as f64)),
        toml::Value::Float(x) => out.push((prefix.to_string(), *x)),
        toml::Value::Table(t) => {
            for (k, v) in t {
                if prefix.is_empty() && k == "sources" {
                    continue;
                }
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                collect_numbers(&path, v, out);
            }
        }
        toml::Value::Array(items) => {
            // A list of numbers (carve-outs) is one field with one source.
            if let Some(first) = items.first() {
                collect_numbers(prefix, first, out);
            }
        }
        _ => {}
    }
}
