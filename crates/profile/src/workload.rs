//! Measured-only sections of the [`crate::KernelProfile`]: the Kerr et al.
//! workload metrics ([`Workload`]) and what a cache model says about the
//! memory hierarchy ([`CacheFigures`]).
//!
//! Hand-written profiles usually leave both out; every field is optional
//! (`None` = not measured), so a model that uses one must fall back to its own
//! derivation when it is absent. The emulator-driven pipeline fills them.

use serde::{Deserialize, Serialize};

/// The characterization metrics of Kerr, Diamos and Yalamanchili (seed 001),
/// plus the footprint figures the cache-aware models use.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    /// Activity factor (eq. 1): mean fraction of a warp's threads active per issue. Ratio in [0, 1].
    pub activity_factor: Option<f64>,
    /// Divergent conditional branches over conditional branches. Ratio in [0, 1].
    pub divergent_branch_ratio: Option<f64>,
    /// Deepest reconvergence stack seen. Entries.
    pub max_reconvergence_depth: Option<f64>,
    /// Memory intensity (eq. 2): global memory instructions per instruction, weighted by activity. Ratio.
    pub memory_intensity: Option<f64>,
    /// Memory efficiency (eq. 3) under the CC 1.2 half-warp protocol: requests per transaction. Ratio.
    pub memory_efficiency: Option<f64>,
    /// Memory efficiency under the sector protocol: bytes used over bytes moved. Ratio in [0, 1].
    pub memory_efficiency_sectors: Option<f64>,
    /// Inter-thread data flow: shared words loaded that another thread stored, over words loaded. Ratio.
    pub inter_thread_data_flow: Option<f64>,
    /// MIMD parallelism (eq. 6): warp instructions over those of the busiest CTA. CTAs.
    pub mimd_parallelism: Option<f64>,
    /// SIMD parallelism (eq. 7): mean active threads per issue, CTA-weighted. Threads.
    pub simd_parallelism: Option<f64>,
    /// Mean shared-memory bank-conflict ways with 16 banks per half-warp (CC 1.x). Ways.
    pub shared_conflict_ways_16banks: Option<f64>,
    /// Distinct global bytes touched, counted in 32-byte sectors. Bytes.
    pub footprint_sector_bytes: Option<f64>,
    /// Distinct global bytes touched, counted in 128-byte lines. Bytes.
    pub footprint_line_bytes: Option<f64>,
    /// Sector accesses per distinct sector (1 = no reuse). Ratio.
    pub sector_reuse: Option<f64>,
    /// CTAs emulated (of `launch.blocks()`); counts were scaled up from them. CTAs.
    pub ctas_emulated: Option<f64>,
    /// Estimated relative error of counts extrapolated from sampled CTAs (0 = full run). Ratio.
    pub sampling_error: Option<f64>,
    /// Executed `cvt` warp instructions whose source and destination are both
    /// integer types (widenings, narrowings), over all executed `cvt`. SASS runs
    /// them on the integer ALU, not the conversion unit. Ratio in [0, 1].
    pub integer_convert_fraction: Option<f64>,
    /// Executed `cvt.{rn,rz}.f32.{s32,u32}` (32-bit integer to FP32) over all
    /// executed `cvt`. From CC 8.6 on, SASS runs them as `I2FP` on the integer
    /// ALU, not the conversion unit. Ratio in [0, 1].
    pub int32_to_f32_convert_fraction: Option<f64>,
    /// Executed `cvt.{rn,rz}.f32.{u8,u16}` (8/16-bit unsigned integer to
    /// FP32) over all executed `cvt`. From CC 8.6 on, ptxas 13 runs them as
    /// `I2FP.F32.U32` on the integer ALU; ptxas 12.9 keeps the conversion
    /// unit's `I2F.U8`/`I2F.U16`. Ratio in [0, 1].
    pub narrow_uint_to_f32_convert_fraction: Option<f64>,
    /// Executed `cvt` between a float and a 64-bit type (`cvt.f64.f32`,
    /// `cvt.rn.f32.f64`, `cvt.rn.f32.s64`, ...) over all executed `cvt`. They
    /// run at the FP64 unit's rate where it is below the conversion unit's
    /// (the CUDA C++ Programming Guide's "type conversions from and to 64-bit
    /// types"). Ratio in [0, 1].
    pub float64_convert_fraction: Option<f64>,
    /// Executed `div.rn.f64` and `sqrt.rn.f64` over all executed FP64
    /// instructions: ptxas builds each as a sequence of FP64 operations.
    /// Ratio in [0, 1].
    pub fp64_div_sqrt_fraction: Option<f64>,
    /// Executed `rcp.rn.f64` over all executed FP64 instructions (a shorter
    /// sequence). Ratio in [0, 1].
    pub fp64_rcp_fraction: Option<f64>,
}

impl Workload {
    /// [`Workload::ctas_emulated`] as a count of CTAs, where it is one.
    pub fn ctas_emulated_count(&self) -> Option<u64> {
        self.ctas_emulated
            .filter(|c| c.is_finite() && *c >= 0.0)
            .map(|c| c.round() as u64)
    }

    /// Every present field with its dotted path (for validation).
    pub fn numbers(&self) -> Vec<(String, f64)> {
        let fields = [
            ("activity_factor", self.activity_factor),
            ("divergent_branch_ratio", self.divergent_branch_ratio),
            ("max_reconvergence_depth", self.max_reconvergence_depth),
            ("memory_intensity", self.memory_intensity),
            ("memory_efficiency", self.memory_efficiency),
            ("memory_efficiency_sectors", self.memory_efficiency_sectors),
            ("inter_thread_data_flow", self.inter_thread_data_flow),
            ("mimd_parallelism", self.mimd_parallelism),
            ("simd_parallelism", self.simd_parallelism),
            (
                "shared_conflict_ways_16banks",
                self.shared_conflict_ways_16banks,
            ),
            ("footprint_sector_bytes", self.footprint_sector_bytes),
            ("footprint_line_bytes", self.footprint_line_bytes),
            ("sector_reuse", self.sector_reuse),
            ("ctas_emulated", self.ctas_emulated),
            ("sampling_error", self.sampling_error),
            ("integer_convert_fraction", self.integer_convert_fraction),
            (
                "int32_to_f32_convert_fraction",
                self.int32_to_f32_convert_fraction,
            ),
            (
                "narrow_uint_to_f32_convert_fraction",
                self.narrow_uint_to_f32_convert_fraction,
            ),
            ("float64_convert_fraction", self.float64_convert_fraction),
            ("fp64_div_sqrt_fraction", self.fp64_div_sqrt_fraction),
            ("fp64_rcp_fraction", self.fp64_rcp_fraction),
        ];
        fields
            .into_iter()
            .filter_map(|(n, v)| v.map(|v| (format!("workload.{n}"), v)))
            .collect()
    }
}

/// The age buckets of [`CacheFigures::l1_hit_ages`]: the least age of each,
/// in the cache model's lockstep rounds; the last holds every older hit.
/// The cache model counts by the same buckets (`cachesim::HIT_AGE_BUCKETS`;
/// the pipeline's tests keep the two equal).
pub const L1_HIT_AGE_BUCKETS: [u32; 6] = [0, 1, 2, 4, 8, 16];

/// What a cache model (the `cachesim` crate) measured for one GPU's hierarchy.
/// The DRAM and L2 byte totals are also written to
/// [`crate::GlobalMemory::dram_bytes`] and [`crate::GlobalMemory::l2_bytes`],
/// which is where the models read them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheFigures {
    /// The GPU id whose cache sizes were simulated (empty: none).
    pub gpu: String,
    /// L1 sector hit rate of loads that look up L1. Ratio in [0, 1].
    pub l1_hit_rate: Option<f64>,
    /// The L1 hits of global loads by rounds since their sector was filled
    /// (cache model's lockstep rounds, one request per warp; buckets of
    /// [`L1_HIT_AGE_BUCKETS`]: ages 0, 1, 2-3, 4-7, 8-15 and 16 on), each as
    /// a share of the L1 lookups. A hit a few
    /// rounds after the fill finds the miss still in flight on a GPU.
    /// Absent from profiles made before ptxperf counted it.
    pub l1_hit_ages: Option<Vec<f64>>,
    /// L2 sector hit rate over every sector reaching L2. Ratio in [0, 1].
    pub l2_hit_rate: Option<f64>,
    /// Bytes read from DRAM, kernel total (extrapolated from sampled CTAs). Bytes.
    pub dram_read_bytes: Option<f64>,
    /// Bytes written to DRAM, kernel total. Bytes.
    pub dram_write_bytes: Option<f64>,
    /// Bytes sent from L2 to the SMs, kernel total. Bytes.
    pub l2_to_sm_bytes: Option<f64>,
    /// Bytes written from the SMs to L2, kernel total. Bytes.
    pub sm_to_l2_bytes: Option<f64>,
}

impl CacheFigures {
    /// Every present field with its dotted path (for validation).
    pub fn numbers(&self) -> Vec<(String, f64)> {
        let fields = [
            ("l1_hit_rate", self.l1_hit_rate),
            ("l2_hit_rate", self.l2_hit_rate),
            ("dram_read_bytes", self.dram_read_bytes),
            ("dram_write_bytes", self.dram_write_bytes),
            ("l2_to_sm_bytes", self.l2_to_sm_bytes),
            ("sm_to_l2_bytes", self.sm_to_l2_bytes),
        ];
        let ages = self.l1_hit_ages.iter().flatten().enumerate();
        fields
            .into_iter()
            .filter_map(|(n, v)| v.map(|v| (format!("cache.{n}"), v)))
            .chain(ages.map(|(i, &v)| (format!("cache.l1_hit_ages[{i}]"), v)))
            .collect()
    }
}
