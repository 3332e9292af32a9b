//! Running the cache model for one GPU and writing its figures into a profile.
//!
//! Geometry comes from the GPU catalog: the L2 size, and an L1 of the unified
//! L1/shared array minus the shared-memory carve-out the occupancy calculator
//! chose (or minus the largest shared memory per SM when the carve-out is
//! fixed), rounded down to whole sets. Everything else is
//! [`cachesim::CacheConfig::sm70_like`] (see the cachesim crate's ASSUMPTIONS).
//! Global loads allocate in L1 where the compute capability's
//! `l1_caches_global_loads` says its default `ld.global` caches there (Fermi,
//! GP100, Volta and later, with sources in gpus/compute-capabilities.toml);
//! Kepler, Maxwell and GP10x (CC 6.1, 6.2) cache global loads in L2 only by
//! default, so they go straight to L2. Read-only loads (`ld.global.nc`,
//! recorded on their own path by the trace) allocate in the L1 array on every
//! part: the unified L1/texture cache from Maxwell on. Kepler (CC 3.5, 3.7)
//! serves them from a separate 48 KB read-only data cache (GK110
//! whitepaper) that is not modelled apart: they share the L1 left beside
//! shared memory.
//! GPUs without an L2 for global data (CC 1.x, `l2_bytes = 0`) get no cache
//! model: their profile keeps transactions x transaction size as DRAM traffic.
//! A sample of the grid's CTAs is dealt over as many SMs as keep the launch's
//! CTAs per SM ([`sms_for_sample`]), so each L1 sees the launch's contention.

use arch::{Gpu, Occupancy};
use cachesim::{CacheConfig, CacheReport, Launch, Trace, simulate_warmed};
use profile::{CacheFigures, KernelProfile};

use crate::error::PipelineError;
use crate::warmup::Warmup;

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
    config.global_loads_allocate_l1 = l1 > 0 && gpu.cc_figures.l1_caches_global_loads;
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
///
/// With `warmup`, its CTAs that fit the GPU's L2 ([`Warmup::keeps`]) are
/// replayed into L2 first ([`cachesim::simulate_warmed`]).
pub fn simulate_on(
    gpu: &Gpu,
    occ: &Occupancy,
    trace: &Trace,
    warmup: Option<&Warmup>,
    ctas_total: u64,
    weight: f64,
) -> Result<Option<CacheReport>, PipelineError> {
    let Some(config) = cache_config(gpu, occ) else {
        return Ok(None);
    };
    let resident = occ.active_blocks_per_sm.max(1);
    let launch = Launch {
        grid_ctas: u32::try_from(ctas_total)
            .map_err(|_| PipelineError::Cache(format!("{ctas_total} CTAs is too many")))?,
        resident_ctas_per_sm: resident,
        num_sms: sms_for_sample(gpu.sm_count, resident, ctas_total, trace.cta_count()),
        cta_weight: (weight.is_finite() && weight > 0.0).then_some(weight),
    };
    let l2_bytes = config.l2.size_bytes;
    let keep = |id: u32| warmup.is_some_and(|w| w.keeps(id, l2_bytes));
    let warm = warmup.map(|w| cachesim::Warmup {
        trace: &w.trace,
        keep: &keep,
        lead: w.lead(l2_bytes, trace.cta_count()),
    });
    simulate_warmed(&config, &launch, trace, warm)
        .map(Some)
        .map_err(|e| PipelineError::Cache(e.to_string()))
}

/// The SMs a trace of `traced` CTAs (of a grid of `ctas_total`) is spread
/// over, so that each SM's L1 holds as many CTAs at once as it would in the
/// full launch.
///
/// The full grid fills each SM with `min(resident, ceil(grid / SMs))` CTAs.
/// A sample dealt round-robin over every SM would put only `traced / SMs` on
/// each: 128 sampled CTAs on 48 SMs are 2 or 3 per L1 where the launch keeps
/// 9, and the L1 would see a fraction of the competition for its lines (its
/// hit rate too high, the L2 traffic too low). Packing the sample onto fewer
/// SMs keeps the number of CTAs sharing one L1; the L2 is shared by all SMs
/// either way. A whole grid is dealt over every SM, as the launch deals it.
pub fn sms_for_sample(sm_count: u32, resident: u32, ctas_total: u64, traced: usize) -> u32 {
    let sms = u64::from(sm_count.max(1));
    if traced as u64 >= ctas_total {
        return sm_count.max(1);
    }
    let per_sm = u64::from(resident.max(1)).min(ctas_total.div_ceil(sms).max(1));
    let needed = (traced as u64).div_ceil(per_sm).max(1);
    u32::try_from(needed.min(sms)).unwrap_or(sm_count.max(1))
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
        l1_hit_ages: (r.total.l1.accesses() > 0).then(|| {
            let n = r.total.l1.accesses() as f64;
            r.total.l1_hit_ages.iter().map(|&h| h as f64 / n).collect()
        }),
        l2_hit_rate: rate(&r.total.l2),
        dram_read_bytes: Some(x.dram_read_bytes),
        dram_write_bytes: Some(x.dram_write_bytes),
        l2_to_sm_bytes: Some(x.l2_to_sm_bytes),
        sm_to_l2_bytes: Some(x.sm_to_l2_bytes),
    };
    profile.global.dram_bytes = Some(x.dram_read_bytes + x.dram_write_bytes);
    profile.global.l2_bytes = Some(x.l2_to_sm_bytes + x.sm_to_l2_bytes);
}

#[cfg(test)]
mod tests {
    use cachesim::{Access, CacheConfig, Kind, Launch, Path, Request, Trace, simulate};

    use super::sms_for_sample;

    /// `gpu`'s cache configuration for a 256-thread block with 4 KB of shared memory.
    fn config_of(gpu: &str) -> cachesim::CacheConfig {
        let catalog = arch::Catalog::bundled().unwrap_or_else(|e| panic!("{e}"));
        let gpu = catalog.get(gpu).unwrap_or_else(|e| panic!("{e}"));
        let input = arch::OccupancyInput {
            threads_per_block: 256,
            registers_per_thread: 32,
            shared_per_block_bytes: 4096,
        };
        let occ = arch::occupancy(gpu, &input).unwrap_or_else(|e| panic!("{e}"));
        super::cache_config(gpu, &occ).unwrap_or_else(|| panic!("no cache model"))
    }

    #[test]
    fn global_loads_allocate_in_l1_where_the_architecture_caches_them_by_default() {
        // Kepler, Maxwell and GP10x: L2 only; GP100, Turing, Ampere, Hopper: L1.
        for (gpu, l1) in [
            ("tesla-k20m", false),
            ("geforce-gtx-titan-x-maxwell", false),
            ("geforce-gtx-1080-ti", false),
            ("tesla-p100-pcie-16gb", true),
            ("geforce-rtx-2070-super", true),
            ("a100-sxm4-80gb", true),
            ("h100-sxm5-80gb", true),
        ] {
            let c = config_of(gpu);
            assert_eq!(c.global_loads_allocate_l1, l1, "{gpu}");
            // The read-only path is cached in the L1 array on all of them.
            assert_eq!(c.readonly, cachesim::ReadOnlyPath::ThroughL1, "{gpu}");
        }
    }

    #[test]
    fn the_profile_reads_hit_ages_in_the_cache_models_buckets() {
        assert_eq!(cachesim::HIT_AGE_BUCKETS, profile::L1_HIT_AGE_BUCKETS);
    }

    fn check(sms: u32, resident: u32, total: u64, traced: usize, expect: u32) {
        assert_eq!(
            sms_for_sample(sms, resident, total, traced),
            expect,
            "{traced} of {total} CTAs, {resident} resident on {sms} SMs"
        );
    }

    #[test]
    fn a_sample_fills_as_many_sms_as_it_has_resident_sets() {
        // 128 sampled CTAs of a 325,000-CTA grid, 9 resident: 15 SMs (14 full).
        check(48, 9, 325_000, 128, 15);
        check(48, 9, 325_000, 9, 1);
        check(48, 9, 325_000, 10, 2);
        // More than every SM can hold at once: all SMs, as before.
        check(48, 9, 325_000, 1_000, 48);
        // A grid of 200 fills each of 48 SMs with 5 CTAs at most, not 16.
        check(48, 16, 200, 64, 13);
        // The whole grid (or more) is dealt over every SM.
        check(48, 9, 100, 100, 48);
        check(48, 9, 100, 120, 48);
        // Degenerate inputs stay valid: at least one SM.
        check(48, 9, 325_000, 0, 1);
        check(0, 0, 0, 0, 1);
    }

    /// CTA `cta` reads its own `kib` KiB twice, one 128-byte line per request.
    fn two_passes(ctas: &[u32], kib: u64) -> Trace {
        let lines = kib * 1024 / 128;
        let mut reqs = Vec::new();
        for &cta in ctas {
            let base = u64::from(cta) * lines * 128;
            for seq in 0..2 * lines {
                let line = base + (seq % lines) * 128;
                reqs.push(Request {
                    cta,
                    warp: 0,
                    seq: u32::try_from(seq).expect("small"),
                    kind: Kind::Load,
                    path: Path::Global,
                    access: Access::Sectors((0..4).map(|s| line + s * 32).collect()),
                });
            }
        }
        Trace::from_requests(&reqs).expect("valid trace")
    }

    fn l1_hit_rate(trace: &Trace, grid: u32, sms: u32, resident: u32) -> f64 {
        let config = CacheConfig::sm70_like(64 * 1024, 4 << 20);
        let launch = Launch {
            grid_ctas: grid,
            resident_ctas_per_sm: resident,
            num_sms: sms,
            cta_weight: None,
        };
        simulate(&config, &launch, trace)
            .expect("simulates")
            .total
            .l1
            .hit_rate()
    }

    #[test]
    fn a_packed_sample_sees_the_l1_contention_of_the_full_launch() {
        // 64 KiB of L1 (128 sets of 4 ways), 4 resident CTAs of 32 KiB each:
        // alone a CTA puts 2 lines in each set and its second pass hits (rate
        // 1/2); four of them put 8 in each set, and LRU evicts every line
        // before its second use, so the full launch hits nothing.
        let (sms, resident, grid) = (8, 4, 64);
        let all: Vec<u32> = (0..grid).collect();
        let full = l1_hit_rate(&two_passes(&all, 32), grid, sms, resident);
        assert!(full.abs() < 1e-9, "full launch: {full}");
        // 8 sampled CTAs spread over the grid.
        let sample: Vec<u32> = (0..8).map(|i| i * 8).collect();
        let trace = two_passes(&sample, 32);
        // Dealt over all 8 SMs, each L1 holds one CTA: the hit rate of a CTA alone.
        let spread = l1_hit_rate(&trace, grid, sms, resident);
        assert!((spread - 0.5).abs() < 1e-9, "spread: {spread}");
        // Packed onto 2 SMs of 4 CTAs each, it matches the full launch.
        let packed_sms = sms_for_sample(sms, resident, u64::from(grid), sample.len());
        assert_eq!(packed_sms, 2);
        let packed = l1_hit_rate(&trace, grid, packed_sms, resident);
        assert!((packed - full).abs() < 1e-9, "packed {packed}, full {full}");
    }
}
