//! Running the cache model for one GPU and writing its figures into a profile.
//!
//! Geometry comes from the GPU catalog: the L2 size, and an L1 of the unified
//! L1/shared array minus the shared-memory carve-out the occupancy calculator
//! chose (or minus the largest shared memory per SM when the carve-out is
//! fixed), rounded down to whole sets. Everything else is
//! [`cachesim::CacheConfig::sm70_like`] (see the cachesim crate's ASSUMPTIONS).
//! Global loads allocate in L1 on Fermi (CC 2.x) and Volta and later (CC 7.0+),
//! whose default `ld.global` caches in L1; Kepler, Maxwell and Pascal cache
//! global loads in L2 only by default (CUDA C programming guide, compute
//! capability 3.x/5.x/6.x "Global Memory" sections), so they go straight to L2.
//! GPUs without an L2 for global data (CC 1.x, `l2_bytes = 0`) get no cache
//! model: their profile keeps transactions x transaction size as DRAM traffic.

use arch::{Gpu, Occupancy};
use cachesim::{CacheConfig, CacheReport, Launch, Trace, simulate};
use profile::{CacheFigures, KernelProfile};

use crate::error::PipelineError;

/// L1 and L2 line size of the model; sizes are rounded down to whole sets of it.
const LINE: u64 = 128;

/// The cache configuration for `gpu` with the carve-out `occ` implies, or
/// `None` when the GPU has no L2 for global data.
pub fn cache_config(gpu: &Gpu, occ: &Occupancy) -> Option<CacheConfig> {
    let l2 = gpu.caches.l2_bytes;
    if l2 == 0 {
        return None;
    }
    let mut config = CacheConfig::sm70_like(0, 0);
    let l1_unit = u64::from(config.l1.ways) * LINE;
    let l2_unit = u64::from(config.l2.ways) * LINE;
    let l1 = gpu.l1_data_bytes(occ.carveout_bytes) / l1_unit * l1_unit;
    let cc = gpu.compute_capability;
    config.global_loads_allocate_l1 = l1 > 0 && (cc.major == 2 || cc.major >= 7);
    // A part with no L1 left still needs a valid geometry (local memory uses it): one set.
    config.l1.size_bytes = l1.max(l1_unit);
    config.l2.size_bytes = (l2 / l2_unit * l2_unit).max(l2_unit);
    Some(config)
}

/// Simulate `trace` (of `ctas_total` CTAs in the grid) on `gpu`, each traced
/// CTA standing for `weight` CTAs of the grid.
///
/// The weight is the grid's CTAs over the emulated ones, whether or not they
/// touched memory (the trace holds only CTAs with memory requests, so
/// weighting by the traced CTAs would scale the traffic of a grid whose CTAs
/// past the data exit at once by the inverse of its busy fraction), times the
/// requests each traced request stands for when the trace hit its cap.
pub fn simulate_on(
    gpu: &Gpu,
    occ: &Occupancy,
    trace: &Trace,
    ctas_total: u64,
    weight: f64,
) -> Result<Option<CacheReport>, PipelineError> {
    let Some(config) = cache_config(gpu, occ) else {
        return Ok(None);
    };
    let launch = Launch {
        grid_ctas: u32::try_from(ctas_total)
            .map_err(|_| PipelineError::Cache(format!("{ctas_total} CTAs is too many")))?,
        resident_ctas_per_sm: occ.active_blocks_per_sm.max(1),
        num_sms: gpu.sm_count,
        cta_weight: (weight.is_finite() && weight > 0.0).then_some(weight),
    };
    simulate(&config, &launch, trace)
        .map(Some)
        .map_err(|e| PipelineError::Cache(e.to_string()))
}

/// Write the cache figures of `report` (simulated for `gpu_id`) into `profile`:
/// the `cache` section, and `global.dram_bytes` / `global.l2_bytes` that the
/// models read. `None` clears them (the models then derive DRAM traffic from
/// transactions).
pub fn apply(profile: &mut KernelProfile, gpu_id: &str, report: Option<&CacheReport>) {
    let Some(r) = report else {
        profile.cache = CacheFigures::default();
        profile.global.dram_bytes = None;
        profile.global.l2_bytes = None;
        return;
    };
    let x = &r.extrapolated;
    let rate = |s: &cachesim::LevelStats| (s.accesses() > 0).then(|| s.hit_rate());
    profile.cache = CacheFigures {
        gpu: gpu_id.to_string(),
        l1_hit_rate: rate(&r.total.l1),
        l2_hit_rate: rate(&r.total.l2),
        dram_read_bytes: Some(x.dram_read_bytes),
        dram_write_bytes: Some(x.dram_write_bytes),
        l2_to_sm_bytes: Some(x.l2_to_sm_bytes),
        sm_to_l2_bytes: Some(x.sm_to_l2_bytes),
    };
    profile.global.dram_bytes = Some(x.dram_read_bytes + x.dram_write_bytes);
    profile.global.l2_bytes = Some(x.l2_to_sm_bytes + x.sm_to_l2_bytes);
}
