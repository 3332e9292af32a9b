//! The simulator's output: counters per level, per SM, per path and per wave,
//! the CTA placement, and the extrapolation to the full grid.

use serde::{Deserialize, Serialize};

/// Hits and misses of one cache, counted per 32-byte trace sector looked up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelStats {
    /// Sector lookups that found the sector valid.
    pub hits: u64,
    /// Sector lookups that did not.
    pub misses: u64,
}

impl LevelStats {
    /// `hits + misses`.
    pub fn accesses(&self) -> u64 {
        self.hits + self.misses
    }

    /// `hits / accesses`, or 0 when there were none.
    pub fn hit_rate(&self) -> f64 {
        match self.accesses() {
            0 => 0.0,
            n => self.hits as f64 / n as f64,
        }
    }

    pub(crate) fn record(&mut self, hit: bool) {
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
    }

    pub(crate) fn add(&mut self, o: &LevelStats) {
        self.hits += o.hits;
        self.misses += o.misses;
    }
}

/// Request and sector counts of one memory path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathStats {
    /// Warp-level load requests.
    pub load_requests: u64,
    /// Warp-level store requests.
    pub store_requests: u64,
    /// Warp-level atomic requests.
    pub atomic_requests: u64,
    /// Sectors touched by loads.
    pub load_sectors: u64,
    /// Sectors touched by stores.
    pub store_sectors: u64,
    /// Sectors touched by atomics.
    pub atomic_sectors: u64,
}

impl PathStats {
    pub(crate) fn add(&mut self, o: &PathStats) {
        self.load_requests += o.load_requests;
        self.store_requests += o.store_requests;
        self.atomic_requests += o.atomic_requests;
        self.load_sectors += o.load_sectors;
        self.store_sectors += o.store_sectors;
        self.atomic_sectors += o.atomic_sectors;
    }
}

/// Per-path counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathCounts {
    /// `ld/st/atom.global`.
    pub global: PathStats,
    /// `ld.global.nc`.
    pub readonly: PathStats,
    /// `ld.const`.
    pub constant: PathStats,
    /// `ld/st.local`.
    pub local: PathStats,
}

impl PathCounts {
    pub(crate) fn get_mut(&mut self, i: usize) -> &mut PathStats {
        match i {
            0 => &mut self.global,
            1 => &mut self.readonly,
            2 => &mut self.constant,
            _ => &mut self.local,
        }
    }

    pub(crate) fn add(&mut self, o: &PathCounts) {
        self.global.add(&o.global);
        self.readonly.add(&o.readonly);
        self.constant.add(&o.constant);
        self.local.add(&o.local);
    }
}

/// Counters accumulated over a set of requests (one wave, or the whole run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// CTAs (for a wave: dispatched in it).
    pub ctas: u64,
    /// Warp-level requests issued.
    pub requests: u64,
    /// L1 lookups of loads on paths cached in L1 (global when allocating, read-only
    /// through L1, local). Stores and atomics are not counted (see crate docs).
    pub l1: LevelStats,
    /// Separate read-only cache lookups (zero when the path goes through L1).
    pub readonly_cache: LevelStats,
    /// Constant cache lookups.
    pub constant_cache: LevelStats,
    /// L2 lookups: every sector that reaches L2 (load misses, bypassed loads,
    /// stores, atomics, L1 write-backs).
    pub l2: LevelStats,
    /// L2 lookups by loads only (the part that returns data to the SMs).
    pub l2_loads: LevelStats,
    /// Sectors sent from L2 to the SMs for loads.
    pub l2_to_sm_sectors: u64,
    /// Sectors written from the SMs to L2 (stores, local write-backs).
    pub sm_to_l2_write_sectors: u64,
    /// Sectors of atomics performed at L2.
    pub atomic_sectors_at_l2: u64,
    /// L2 sectors filled from DRAM (includes `l2_fill_bytes` prefetch).
    pub dram_read_sectors: u64,
    /// Dirty L2 sectors written back to DRAM.
    pub dram_write_sectors: u64,
    /// Per-path request and sector counts.
    pub paths: PathCounts,
    /// The L1 hits of `l1` by rounds since their sector was filled
    /// ([`HIT_AGE_BUCKETS`]): a hit on a sector filled a few rounds before
    /// (by the same warp's previous requests, or by another warp issuing
    /// alongside) finds on a GPU a miss still in flight, and waits for it.
    pub l1_hit_ages: [u64; HIT_AGE_BUCKETS.len()],
}

/// The age buckets of [`Tally::l1_hit_ages`]: the least age of each, in
/// rounds; the last holds every older hit.
pub const HIT_AGE_BUCKETS: [u32; 6] = [0, 1, 2, 4, 8, 16];

/// Index of the bucket of [`HIT_AGE_BUCKETS`] that holds `age`.
#[inline]
pub(crate) fn hit_age_bucket(age: u32) -> usize {
    HIT_AGE_BUCKETS
        .iter()
        .rposition(|&lo| age >= lo)
        .unwrap_or(0)
}

impl Tally {
    pub(crate) fn add(&mut self, o: &Tally) {
        self.ctas += o.ctas;
        self.requests += o.requests;
        self.l1.add(&o.l1);
        self.readonly_cache.add(&o.readonly_cache);
        self.constant_cache.add(&o.constant_cache);
        self.l2.add(&o.l2);
        self.l2_loads.add(&o.l2_loads);
        self.l2_to_sm_sectors += o.l2_to_sm_sectors;
        self.sm_to_l2_write_sectors += o.sm_to_l2_write_sectors;
        self.atomic_sectors_at_l2 += o.atomic_sectors_at_l2;
        self.dram_read_sectors += o.dram_read_sectors;
        self.dram_write_sectors += o.dram_write_sectors;
        self.paths.add(&o.paths);
        for (a, b) in self.l1_hit_ages.iter_mut().zip(o.l1_hit_ages) {
            *a += b;
        }
    }
}

/// Where and when one CTA ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaPlacement {
    /// CTA id.
    pub cta: u32,
    /// SM it ran on.
    pub sm: u32,
    /// Residency slot on that SM (0..resident).
    pub slot: u32,
    /// Wave: how many CTAs used this (SM, slot) before it.
    pub wave: u32,
    /// First round in which its warps issue.
    pub start_round: u64,
    /// Round in which its last request issued (`start_round` for an empty CTA).
    pub end_round: u64,
}

/// DRAM and L2 traffic scaled from the simulated CTAs to the whole grid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Extrapolated {
    /// The factor applied: `cta_weight` if given, else grid CTAs / simulated CTAs.
    pub weight: f64,
    /// Estimated DRAM bytes read by the full grid.
    pub dram_read_bytes: f64,
    /// Estimated DRAM bytes written by the full grid.
    pub dram_write_bytes: f64,
    /// Estimated bytes from L2 to the SMs.
    pub l2_to_sm_bytes: f64,
    /// Estimated bytes from the SMs to L2.
    pub sm_to_l2_bytes: f64,
}

/// Everything [`crate::simulate`] measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheReport {
    /// Totals over the run (all waves, plus the end-of-kernel L2 flush).
    pub total: Tally,
    /// L1 lookups per SM (index = SM id).
    pub l1_per_sm: Vec<LevelStats>,
    /// Counters per wave (index = wave); writes of the final flush are in `total` only.
    pub waves: Vec<Tally>,
    /// Dirty L2 sectors written to DRAM by the end-of-kernel flush.
    pub flush_write_sectors: u64,
    /// DRAM bytes read (`dram_read_sectors` x L2 sector size).
    pub dram_read_bytes: u64,
    /// DRAM bytes written (`dram_write_sectors` x L2 sector size).
    pub dram_write_bytes: u64,
    /// Bytes from L2 to the SMs (`l2_to_sm_sectors` x 32).
    pub l2_to_sm_bytes: u64,
    /// Bytes from the SMs to L2 (`sm_to_l2_write_sectors` x 32).
    pub sm_to_l2_bytes: u64,
    /// Lockstep rounds simulated.
    pub rounds: u64,
    /// The CTA placement, in dispatch order.
    pub schedule: Vec<CtaPlacement>,
    /// The traffic scaled to the whole grid.
    pub extrapolated: Extrapolated,
}
