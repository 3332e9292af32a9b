//! cachesim: an L1/L2 cache model driven by warp-level address streams.
//!
//! # Tour
//!
//! - [`request`]: the input. A [`Request`] is one warp-level memory instruction
//!   (CTA, warp, `seq` = order within the warp, [`Kind`], [`Path`], and the
//!   32-byte sectors it touches, given directly or computed from per-lane
//!   addresses). A [`TraceBuilder`] collects requests into a [`Trace`]: flat
//!   arrays grouped by CTA, then warp, then `seq`.
//! - [`config`]: [`CacheConfig`], the geometry ([`CacheGeometry`]) and policies
//!   of each level; [`CacheConfig::sm70_like`] gives Volta-style defaults.
//! - `tagstore`: one sectored set-associative cache with true LRU, as flat
//!   arrays (tags `u64`, valid/dirty sector masks `u32`, last-use stamps `u64`).
//! - `hierarchy`: the per-SM caches in front of the shared L2 and DRAM, and the
//!   policy for each (kind, path) pair.
//! - `sim`: [`simulate`], the wave scheduler and lockstep rounds; [`Launch`].
//! - [`report`]: [`CacheReport`]: hits/misses per level (and per SM for L1),
//!   traffic between levels, DRAM bytes, per-path and per-wave [`Tally`]s, the
//!   CTA placement and the extrapolation to the full grid.
//!
//! # Model and assumptions (cite these)
//!
//! Counting. Hits and misses are counted per 32-byte sector looked up (like
//! Nsight Compute's sector hit rates), not per request. The L1 figures count
//! loads only: global loads when they allocate in L1, read-only loads routed
//! through L1, and local loads. Stores and atomics are not L1 lookups. The L2
//! figures count every sector that reaches L2 (loads that missed above or
//! bypassed L1, stores, atomics, L1 write-backs); `l2_loads` has loads only.
//!
//! Geometry. L1 and L2 lines of 128 B with 32 B sectors: a miss fills only the
//! missing sector, not the line. Source: NVIDIA developer forum answer on the
//! Volta L1 ("128 byte cache lines divided into 4 sectors ... on miss the cache
//! will only fetch the unique 32 byte sectors that missed";
//! forums.developer.nvidia.com/t/pascal-l1-cache/49571/14) and the Nsight Compute
//! profiling guide (sector = 32 B). Sizes are inputs (the `arch` crate's job).
//! Associativity defaults (L1 4 ways, L2 16 ways) are ASSUMPTIONS: NVIDIA does
//! not publish them, and microbenchmarks (Jia et al. 2018) report non-LRU
//! replacement; this model uses true LRU everywhere (ASSUMPTION).
//!
//! Set index ([`SetIndex`]). L1 and the constant cache: the line number
//! modulo the number of sets (a mask when it is a power of two). L2: modulo,
//! rotated by a hash of the quotient, so that lines a power-of-two stride
//! apart (the column panel of a row-major matrix) spread over every set
//! instead of stacking into a few, while a run of consecutive lines still
//! fills distinct sets. NVIDIA does not document its L2 hash; Accel-Sim's
//! validated configurations (gpgpu-sim_distribution @ 667834c,
//! configs/tested-cfgs: SM7_QV100, SM75_RTX2060, SM86_RTX3070) index L2 sets
//! with a polynomial hash and L1 sets linearly, which is what this follows.
//! The hash itself is ours (ASSUMPTION: any hash with those two properties).
//!
//! Global loads. Allocate in L1 when `global_loads_allocate_l1` (default true:
//! on sm_70+ `ld.global` with the default `.ca` operator is cached in L1, see
//! the Nsight "Memory Statistics - Global" page on `-dlcm=ca`/`cg`); false
//! models `-dlcm=cg` or L2-only parts, and those loads go straight to L2.
//!
//! Read-only path (`ld.global.nc`/`__ldg`). [`ReadOnlyPath::ThroughL1`]
//! (default): Volta unified the texture cache with L1 (Volta tuning guide,
//! "Unified Shared Memory/L1/Texture Cache"), so these loads share the L1 array
//! and always allocate. [`ReadOnlyPath::Separate`] models a Kepler/Maxwell-style
//! separate texture cache.
//!
//! Constant cache. Always a separate per-SM cache; the default 2 KiB, 64 B
//! lines, 4 ways is an ASSUMPTION (order of magnitude from microbenchmark
//! papers; the intermediate constant cache level is not modelled: misses go to
//! L2). A miss in any cache whose sector is larger than 32 B fetches the whole
//! sector from L2 as 32 B pieces.
//!
//! Global stores. Write-through, no-allocate in L1: a resident copy of the
//! sector is updated (and stays valid), nothing is allocated, every sector goes
//! to L2. ASSUMPTION consistent with NVIDIA's descriptions of L1 as
//! write-through for global memory since Fermi.
//!
//! Local memory. Write-back, write-allocate in L1 (`st.local` marks the sector
//! dirty; an evicted dirty sector is written to L2). Dirty local data left in
//! L1 at kernel end is dead and never written (ASSUMPTION).
//!
//! Atomics. Performed at L2 as a read-modify-write: a miss reads the sector
//! from DRAM, the sector becomes dirty; L1 is neither consulted nor
//! invalidated. Results returned to the SM are not counted as L2-to-SM traffic.
//!
//! L2. Shared by all SMs, sectored, write-back, write-allocate. A write miss
//! allocates the sector without reading DRAM (ASSUMPTION: byte-masked sectors,
//! so partial writes need no fill). A read miss fetches the sector, plus the
//! other sectors of its aligned `l2_fill_bytes` block (default 32 = none; 64
//! models the `cudaLimitMaxL2FetchGranularity` prefetch). Evicted dirty sectors
//! are DRAM writes; with `flush_l2_at_end` (default) the sectors still dirty
//! at the end also count, since they reach DRAM eventually. DRAM bytes are L2
//! sectors moved times the L2 sector size.
//!
//! Hit ages. Every L1 hit of a global or read-only load is counted by the
//! rounds (below) since its sector was filled ([`Tally::l1_hit_ages`],
//! buckets [`HIT_AGE_BUCKETS`]): a hit in the round of the fill, or a few
//! rounds after, is on a GPU a hit on a miss still in flight, which waits
//! like the miss. The counts of hits and misses are not changed by it.
//! Local loads are not aged (a sector a local store allocated is no miss).
//!
//! Scheduling. CTAs of the trace are dispatched in ascending id. Residency slot
//! `k` (0..`num_sms * resident`) belongs to SM `k % num_sms`, so the first wave
//! goes round-robin over the SMs (CTA i on SM i mod num_SMs), up to `resident`
//! per SM. When a CTA issues its last request its slot is freed; freed slots are
//! refilled in slot order with the next CTAs, which start in the next round. A
//! CTA's wave is the number of CTAs that used its slot before it. Each round,
//! SM 0..n-1 in turn let every warp of every resident CTA (slot order, then warp
//! order) issue its next request: one request per warp per round, a stand-in
//! for concurrency that ignores latencies and issue rates. Deterministic.
//!
//! Sampling. The model runs on the CTAs it is given, placed as if they were the
//! whole grid (so a sample keeps full-machine concurrency but loses reuse
//! between unsampled neighbours). [`Extrapolated`] multiplies the traffic by
//! `cta_weight`, or by `grid_ctas / sampled CTAs` when none is given: linear
//! scaling, correct when the sample is representative and its reuse pattern is
//! that of the grid. Hit rates need no scaling. [`simulate_warmed`] first
//! replays, into L2 only, CTAs that ran before the sample (the sampled CTAs'
//! neighbours), so that the reuse between neighbours is kept.
pub mod config;
pub mod error;
mod hierarchy;
pub mod report;
pub mod request;
mod sim;
mod tagstore;

pub use config::{CacheConfig, CacheGeometry, ReadOnlyPath, SetIndex};
pub use error::CacheSimError;
pub use report::{
    CacheReport, CtaPlacement, Extrapolated, HIT_AGE_BUCKETS, LevelStats, PathCounts, PathStats,
    Tally,
};
pub use request::{
    Access, Kind, Path, Request, TRACE_SECTOR_BYTES, Trace, TraceBuilder, TraceMark,
};
pub use sim::{Launch, Warmup, simulate, simulate_warmed};
