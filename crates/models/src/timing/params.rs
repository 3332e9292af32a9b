//! The GPU side of the timing model: issue rates, pipe rates, latencies and
//! bandwidths, from the catalog ([`arch::Gpu`], with the figures of its
//! compute capability, [`arch::CcFigures`]) and, where a GPU has one, the
//! microbenchmark calibration. The defaults that stand in for a missing
//! calibration are named here with their sources (the table of
//! `docs/timing-model.md` repeats them); GPU figures live in the catalog.

use arch::{FetchCurve, Gpu};

use super::calibration::Calibration;
use crate::prediction::{ModelError, positive};

/// Where a figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Fitted to the gpu-benches microbenchmarks of this GPU (gpus/calibrated).
    Calibrated,
    /// The catalog's datasheet/paper figure, or a documented estimate from it.
    Datasheet,
    /// Not in this GPU's catalog entry: the model's documented default
    /// (only the PCIe figure, [`DEFAULT_PCIE_GBS`]).
    Default,
}

/// Fraction of the datasheet DRAM bandwidth a stream kernel reaches, for GPUs
/// without a calibration: the mean of stream plateau / datasheet over the four
/// calibrated GPUs (gpu-benches fits: A100 80GB 1888.5/2039, H100 PCIe
/// 2009.0/2039, H200 3900.1/4800, V100 SXM2 898.9/900; mean 0.931).
pub const DRAM_EFFICIENCY: f64 = 0.931;

/// L2 over DRAM bandwidth for GPUs without an L2 calibration: the H100 PCIe
/// gpu-l2-cache plateau over its stream plateau (7005.2 / 2009.0 GB/s), the
/// only GPU with both measured.
pub const L2_OVER_DRAM: f64 = 3.487;

/// Launch overhead for GPUs without a small-kernels calibration, seconds: the
/// gpu-small-kernels fit of the H200 (2.40 µs), the only one measured.
pub const DEFAULT_LAUNCH_SECONDS: f64 = 2.40e-6;

/// Mapped-read bandwidth of the host link for GPUs whose catalog entry has
/// no `[pcie]`, GB/s: PCIe 3.0 x16 (15.75 GB/s raw per direction) at the
/// 0.78 that Min et al. (EMOGI, PVLDB 2020) measured for coalesced
/// zero-copy reads, the figure of the catalog's Gen3 x16 GPUs. An
/// assumption for any GPU it is used for (the breakdown's `catalog_pcie` is
/// 0 then).
pub const DEFAULT_PCIE_GBS: f64 = 12.3;

/// Issue slots of an integer division or modulus before Maxwell: Kothapalli
/// et al. (seed 000) cost a modulus at 48 cycles against 4 for an add, i.e.
/// 12 instruction slots (a GPU of the catalog may give its own figures).
pub const INT_DIV_SLOTS: f64 = 12.0;

/// Sectors per clock that pass the L1TEX pipeline between L1 and L2 on
/// Volta and later: one, as one wavefront passes a stage per clock
/// (NVIDIA's developer forum, "What's the difference between wavefronts
/// and sectors/req": "a notion of processing a wavefront per cycle in
/// L1TEX"); a missed sector is handled again when its fill returns. The
/// rate is an ASSUMPTION chosen on the development part (docs: "Sectors to
/// and from L2 in the LSU pipe").
pub const L1TEX_L2_SECTORS_PER_CLOCK: f64 = 1.0;

/// Issue slots of a 32-bit integer division or modulus by a register, as
/// ptxas 12.9 expands them (`scripts/sass-per-op.py`,
/// data/ptxas/sass-per-op.tsv): the mean of `div.s32`, `div.u32`,
/// `rem.s32` and `rem.u32`, straight-line SASS with no branch. Maxwell and
/// Pascal (sm_50 to sm_61): 34.7, 29.7, 32.4 and 28.4, mean 31.3; Volta
/// to Hopper (sm_70 to sm_90): 23.8 to 25.0, 17.6 to 18.8, 21.5 to 21.6
/// and 16.5 to 17.0, mean 20.
pub fn int_div_slots_measured(cc_major: u32) -> Option<f64> {
    match cc_major {
        5 | 6 => Some(31.3),
        7.. => Some(20.0),
        _ => None,
    }
}

/// Issue slots of an IEEE-rounded FP32 division (`div.rn.f32`): ptxas 12.9
/// expands one into 12.3 to 13.0 SASS instructions on sm_50 to sm_90 (an SFU
/// reciprocal, FMA refinement, a range check and a branch around a
/// slow-path call), measured by `scripts/sass-per-op.py`
/// (data/ptxas/sass-per-op.tsv). One of them runs on the SFU, the rest are
/// charged to the FP32 pipe. IEEE `rcp.rn.f32` and `sqrt.rn.f32` cost
/// about the same (11.4 to 13.2 and 11.4 to 12.9 on sm_50 to sm_90) and are
/// charged alike.
pub const FP32_DIV_SLOTS: f64 = 13.0;

/// Load/store lanes per SM: the SM's LD/ST units (`max_lanes`, the catalog's
/// `lsu_lanes` of its compute capability), fewer where the shared memory
/// delivers less than 4 B per lane per clock. Jia et al. (2019) compute the
/// theoretical shared bandwidth as LSU count x 4 B, so the catalog's
/// `shared_bytes_per_clock` / 4 is the LSU count; the catalog holds the
/// measured rate (57.6 on the T4, 62.8 on an RTX 3060, 127.4 on the H100), a
/// little under LSU count x 4 B, and LSU counts are powers of two, so the
/// quotient is rounded up to one. At least one lane.
pub fn lsu_lanes(shared_bytes_per_clock: f64, max_lanes: f64) -> f64 {
    let max_lanes = max_lanes.max(1.0);
    let lanes = (shared_bytes_per_clock / 4.0).clamp(1.0, max_lanes);
    lanes.log2().ceil().exp2().min(max_lanes)
}

/// The GPU figures of the model; rates are warp instructions per clock per SM,
/// latencies core cycles, bandwidths bytes per second.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchParams {
    pub sm_count: f64,
    pub clock_hz: f64,
    /// Warp instructions the SM issues per clock (schedulers x 1).
    pub issue_per_clock: f64,
    /// Warp schedulers per SM: a warp belongs to one, and gets its share
    /// (1 / schedulers) of each pipe.
    pub schedulers: f64,
    pub rate_fp32: f64,
    pub rate_fp64: f64,
    pub rate_sfu: f64,
    pub rate_int: f64,
    pub rate_int_mul: f64,
    pub rate_convert: f64,
    /// Global/local/atomic warp instructions per clock (LSU).
    pub rate_lsu: f64,
    /// Issue slots of one integer division.
    pub int_div_slots: f64,
    /// Issue slots of one IEEE FP32 division, reciprocal or square root
    /// ([`FP32_DIV_SLOTS`]).
    pub fp32_div_slots: f64,
    /// Shared-memory bank passes per clock (bytes per clock / 128): the
    /// rate of wide accesses where it was measured, else the 32-bit one.
    pub shared_passes_per_clock: f64,
    /// Whether the banks' rate for accesses of 64 bits and wider was
    /// measured (the catalog's `shared_wide_bytes_per_clock`): then a wide
    /// access takes its passes at that rate without replays, and the LD/ST
    /// lanes bound the 32-bit ones (docs: "Shared memory"). Otherwise a
    /// request's first pass and its conflicts go at the 32-bit rate and
    /// the passes its width adds at the banks' full width (docs: "Wide
    /// accesses where no wide rate is measured"); either way only the
    /// conflicts are replays.
    pub shared_wide_measured: bool,
    /// Sectors per clock the L1TEX pipeline passes between L1 and L2 (a
    /// load's missed sector, a store's), charged in the LSU pipe beside the
    /// requests (docs: "Sectors to and from L2 in the LSU pipe"): Volta and
    /// later, [`L1TEX_L2_SECTORS_PER_CLOCK`]; `None` before Volta, whose L1
    /// split requests before its tag stage and cached global loads only on
    /// request.
    pub l1tex_l2_sectors_per_clock: Option<f64>,
    /// L1 data bytes per clock per SM.
    pub l1_bytes_per_clock: f64,
    /// How issue slows as the code outgrows the instruction caches (the
    /// catalog's curve for the GPU's compute capability; [`super::fetch`]).
    pub instruction_fetch: FetchCurve,
    /// What the code size is multiplied by before that curve is read: the
    /// curve's GPU's instruction cache over this GPU's (the catalog's
    /// `instruction_cache_bytes`; 1 where its compute capability has none).
    pub fetch_code_scale: f64,
    pub lat_fp32: f64,
    pub lat_fp64: f64,
    pub lat_sfu: f64,
    pub lat_int: f64,
    pub lat_int_mul: f64,
    pub lat_shared: f64,
    pub lat_l1: f64,
    pub lat_l2: f64,
    pub lat_dram: f64,
    pub l2_bytes_per_second: f64,
    pub dram_bytes_per_second: f64,
    pub launch_seconds: f64,
    /// Host-link bytes per second of mapped (zero-copy) host memory, each
    /// direction: the catalog's `pcie.mapped_read_gbs`, else
    /// [`DEFAULT_PCIE_GBS`].
    pub pcie_bytes_per_second: f64,
    pub dram_origin: Origin,
    pub l2_origin: Origin,
    pub latency_origin: Origin,
    pub launch_origin: Origin,
    /// [`Origin::Datasheet`]: the catalog's `[pcie]`; [`Origin::Default`]:
    /// the GPU has none (the breakdown's `catalog_pcie` says which). No PCIe
    /// microbenchmark is calibrated.
    pub pcie_origin: Origin,
}

impl ArchParams {
    /// Every rate, latency and bandwidth must be positive and finite.
    pub fn check(&self) -> Result<(), ModelError> {
        let m = super::NAME;
        for (n, v) in [
            ("SM count", self.sm_count),
            ("clock", self.clock_hz),
            ("issue rate", self.issue_per_clock),
            ("schedulers", self.schedulers),
            ("fp32 rate", self.rate_fp32),
            ("fp64 rate", self.rate_fp64),
            ("sfu rate", self.rate_sfu),
            ("int rate", self.rate_int),
            ("int mul rate", self.rate_int_mul),
            ("convert rate", self.rate_convert),
            ("lsu rate", self.rate_lsu),
            ("int div slots", self.int_div_slots),
            ("fp32 div slots", self.fp32_div_slots),
            ("shared passes per clock", self.shared_passes_per_clock),
            ("L1 bytes per clock", self.l1_bytes_per_clock),
            ("fp32 latency", self.lat_fp32),
            ("fp64 latency", self.lat_fp64),
            ("sfu latency", self.lat_sfu),
            ("int latency", self.lat_int),
            ("int mul latency", self.lat_int_mul),
            ("shared latency", self.lat_shared),
            ("L1 latency", self.lat_l1),
            ("L2 latency", self.lat_l2),
            ("DRAM latency", self.lat_dram),
            ("L2 bandwidth", self.l2_bytes_per_second),
            ("DRAM bandwidth", self.dram_bytes_per_second),
            ("PCIe bandwidth", self.pcie_bytes_per_second),
            ("instruction-fetch code scale", self.fetch_code_scale),
        ] {
            positive(m, n, v)?;
        }
        if self.instruction_fetch.full_rate_point().is_none() {
            return Err(crate::prediction::invalid(
                m,
                "the instruction-fetch curve has no full-rate point",
            ));
        }
        crate::prediction::non_negative(m, "launch overhead", self.launch_seconds)?;
        Ok(())
    }
}

/// Thread operations per clock per SM over the warp size, at least one lane's worth.
fn warp_rate(per_clock: Option<f64>, lanes: u32, warp: f64) -> f64 {
    per_clock.unwrap_or(f64::from(lanes)).max(1.0) / warp
}

/// Fill the model's GPU figures from the catalog and an optional calibration.
pub fn arch_params(gpu: &Gpu, cal: Option<&Calibration>) -> ArchParams {
    let warp = f64::from(gpu.sm.warp_size.max(1));
    let t = &gpu.throughput;
    let l = &gpu.latencies;
    let cc = &gpu.cc_figures;
    let clock_hz = gpu.clock_hz();
    let sm_count = f64::from(gpu.sm_count);
    // From Kepler (3.0) on each scheduler issues one warp instruction per clock;
    // before, one warp instruction occupies a scheduler's lanes for
    // `issue_cycles` clocks (4 on CC 1.x, 2 on Fermi).
    let schedulers = f64::from(gpu.sm.warp_schedulers.max(1));
    let issue_per_clock = if gpu.compute_capability.major >= 3 {
        schedulers
    } else {
        schedulers / gpu.issue_cycles().max(1.0)
    };
    let rate_fp32 = warp_rate(t.fp32, gpu.sm.fp32_lanes, warp);
    let rate_int = warp_rate(t.int_add, gpu.sm.fp32_lanes, warp);
    let int_div_slots = match (
        gpu.model_params.kothapalli_modulus_cycles,
        gpu.model_params.kothapalli_add_cycles,
    ) {
        (Some(m), Some(a)) if m > 0.0 && a > 0.0 => m / a,
        _ => int_div_slots_measured(gpu.compute_capability.major).unwrap_or(INT_DIV_SLOTS),
    };
    let shared_bpc = t.shared_bytes_per_clock.unwrap_or(128.0).max(1.0);
    let shared_wide_bpc = t
        .shared_wide_bytes_per_clock
        .filter(|v| v.is_finite() && *v > 0.0);

    let lat_cal = cal
        .and_then(|c| c.latency.as_ref())
        .filter(|x| x.l1_hit_cycles > 0.0 && x.l2_hit_cycles > 0.0 && x.dram_cycles > 0.0);
    let (lat_l1, lat_l2, lat_dram, latency_origin) = match lat_cal {
        Some(x) => (
            x.l1_hit_cycles,
            x.l2_hit_cycles,
            x.dram_cycles,
            Origin::Calibrated,
        ),
        None => (
            l.l1_hit.unwrap_or(l.shared).max(1.0),
            l.l2_hit.unwrap_or(l.dram).max(1.0),
            l.dram.max(1.0),
            Origin::Datasheet,
        ),
    };
    let datasheet_dram = gpu.dram_bytes_per_second();
    let (dram_bytes_per_second, dram_origin) =
        match cal.and_then(|c| c.stream_peak_gbps).filter(|g| *g > 0.0) {
            Some(g) => (g * 1e9, Origin::Calibrated),
            None => (datasheet_dram * DRAM_EFFICIENCY, Origin::Datasheet),
        };
    let (l2_bytes_per_second, l2_origin) = match cal
        .and_then(|c| c.l2_bandwidth.as_ref())
        .map(|b| b.first_level_gbps)
        .filter(|g| *g > 0.0)
    {
        Some(g) => (g * 1e9, Origin::Calibrated),
        // No L2 for global data (CC 1.x): the L2 term is the DRAM term.
        None if gpu.caches.l2_bytes == 0 => (dram_bytes_per_second, Origin::Datasheet),
        None => (datasheet_dram * L2_OVER_DRAM, Origin::Datasheet),
    };
    // Per clock at the rated clock: an SM's L1 moves its bytes per clock at
    // whatever clock it runs (a sustained clock scales the bandwidth).
    let rated_clock_hz = gpu.rated_clock_mhz() * 1e6;
    let l1_bytes_per_clock = cal
        .and_then(|c| c.l1_bandwidth.as_ref())
        .map(|b| b.first_level_gbps * 1e9 / (sm_count.max(1.0) * rated_clock_hz))
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(cc.l1_bytes_per_clock);
    let (launch_seconds, launch_origin) = match cal
        .and_then(|c| c.launch.as_ref())
        .map(|x| x.overhead_us)
        .filter(|v| v.is_finite() && *v >= 0.0)
    {
        Some(us) => (us * 1e-6, Origin::Calibrated),
        None => (DEFAULT_LAUNCH_SECONDS, Origin::Datasheet),
    };
    let (pcie_bytes_per_second, pcie_origin) = match &gpu.pcie {
        Some(p) if p.mapped_read_gbs > 0.0 => (p.mapped_read_bytes_per_second(), Origin::Datasheet),
        _ => (DEFAULT_PCIE_GBS * 1e9, Origin::Default),
    };
    let lat_fp32 = l.fp32.max(1.0);
    ArchParams {
        sm_count,
        clock_hz,
        issue_per_clock,
        schedulers,
        rate_fp32,
        rate_fp64: warp_rate(t.fp64, gpu.sm.fp64_lanes, warp),
        rate_sfu: warp_rate(t.sfu, gpu.sm.sfu, warp),
        rate_int,
        rate_int_mul: warp_rate(t.int_mul, gpu.sm.fp32_lanes, warp),
        // A pipe delivers no more conversions than the SM has lanes (8 on CC 1.x).
        rate_convert: cc
            .convert_per_clock
            .min(f64::from(gpu.sm.fp32_lanes).max(1.0))
            / warp,
        rate_lsu: lsu_lanes(shared_bpc, f64::from(cc.lsu_lanes)) / warp,
        int_div_slots,
        fp32_div_slots: FP32_DIV_SLOTS,
        shared_passes_per_clock: shared_wide_bpc.unwrap_or(shared_bpc) / 128.0,
        shared_wide_measured: shared_wide_bpc.is_some(),
        l1tex_l2_sectors_per_clock: (gpu.compute_capability.major >= 7)
            .then_some(L1TEX_L2_SECTORS_PER_CLOCK),
        l1_bytes_per_clock,
        instruction_fetch: cc.instruction_fetch.clone(),
        fetch_code_scale: cc.fetch_code_scale(),
        lat_fp32,
        // Missing latencies: FP64 twice FP32, SFU four times FP32 (Jia et al.
        // 2018 Volta: DFMA 8 vs FFMA 4; MUFU 14-23), integers as FP32.
        lat_fp64: l.fp64.unwrap_or(2.0 * lat_fp32).max(1.0),
        lat_sfu: l.sfu.unwrap_or(4.0 * lat_fp32).max(1.0),
        lat_int: l.int_add.unwrap_or(lat_fp32).max(1.0),
        lat_int_mul: l.int_mul.or(l.int_add).unwrap_or(lat_fp32).max(1.0),
        lat_shared: l.shared.max(1.0),
        lat_l1,
        lat_l2,
        lat_dram,
        l2_bytes_per_second,
        dram_bytes_per_second,
        launch_seconds,
        pcie_bytes_per_second,
        dram_origin,
        l2_origin,
        latency_origin,
        launch_origin,
        pcie_origin,
    }
}
