//! Properties over random small traces: conservation of accesses, DRAM bytes
//! bounded below by the cold-cache footprint, determinism and independence
//! from the order in which requests are handed over.

mod common;

use std::collections::BTreeSet;

use cachesim::{CacheConfig, Kind, Launch, Path, ReadOnlyPath, TraceBuilder, simulate};
use common::{geom, small};
use proptest::prelude::*;

/// (cta, warp, kind/path choice, first sector index, sector count)
type Spec = (u32, u32, u8, u64, u64);

fn kind_path(choice: u8) -> (Kind, Path) {
    match choice % 8 {
        0 | 1 => (Kind::Load, Path::Global),
        2 => (Kind::Load, Path::ReadOnly),
        3 => (Kind::Load, Path::Constant),
        4 => (Kind::Load, Path::Local),
        5 => (Kind::Store, Path::Global),
        6 => (Kind::Atomic, Path::Global),
        _ => (Kind::Store, Path::Local),
    }
}

fn config(variant: u8) -> CacheConfig {
    let mut c = small();
    match variant % 4 {
        0 => {}
        1 => c.global_loads_allocate_l1 = false,
        2 => {
            c.readonly = ReadOnlyPath::Separate(geom(512, 128, 32, 2));
            c.l2_fill_bytes = 64;
        }
        _ => c.l2 = geom(6144, 128, 32, 4), // 12 sets: modulo, not mask
    }
    c
}

/// Builds a trace from specs in the given order; seq = position in `specs`.
fn build(specs: &[Spec], order: &[usize]) -> cachesim::Trace {
    let mut b = TraceBuilder::new();
    for &i in order {
        let (cta, warp, choice, first, n) = specs[i];
        let (kind, path) = kind_path(choice);
        let sectors: Vec<u64> = (first..first + n).map(|s| s * 32).collect();
        b.push_sectors(cta, warp, i as u32, kind, path, &sectors)
            .unwrap();
    }
    b.build().unwrap()
}

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec((0u32..6, 0u32..3, any::<u8>(), 0u64..200, 1u64..6), 0..80)
}

proptest! {
    #[test]
    fn counters_are_consistent(specs in specs(), variant in any::<u8>(), sms in 1u32..4, resident in 1u32..3) {
        let cfg = config(variant);
        let launch = Launch { grid_ctas: 6, resident_ctas_per_sm: resident, num_sms: sms, cta_weight: None };
        let order: Vec<usize> = (0..specs.len()).collect();
        let trace = build(&specs, &order);
        let r = simulate(&cfg, &launch, &trace).unwrap();
        let t = &r.total;

        // Expected L1 lookups, from the trace alone: load sectors on paths cached in L1.
        let mut l1_lookups = 0u64;
        let mut requests = 0u64;
        for &(_, _, choice, _, n) in &specs {
            requests += 1;
            let in_l1 = match kind_path(choice) {
                (Kind::Load, Path::Global) => cfg.global_loads_allocate_l1,
                (Kind::Load, Path::ReadOnly) => cfg.readonly == ReadOnlyPath::ThroughL1,
                (Kind::Load, Path::Local) => true,
                _ => false,
            };
            if in_l1 { l1_lookups += n; }
        }
        prop_assert_eq!(t.requests, requests);
        prop_assert_eq!(t.l1.hits + t.l1.misses, l1_lookups);
        let per_sm: u64 = r.l1_per_sm.iter().map(|s| s.hits + s.misses).sum();
        prop_assert_eq!(per_sm, l1_lookups);
        // Every sector reaching L2 is a load, a write or an atomic.
        prop_assert_eq!(t.l2.accesses(), t.l2_to_sm_sectors + t.sm_to_l2_write_sectors + t.atomic_sectors_at_l2);
        prop_assert_eq!(t.l2_loads.accesses(), t.l2_to_sm_sectors);
        // Each CTA in the trace was scheduled exactly once.
        prop_assert_eq!(r.schedule.len(), trace.cta_count());
        let waves_ctas: u64 = r.waves.iter().map(|w| w.ctas).sum();
        prop_assert_eq!(waves_ctas, trace.cta_count() as u64);

        // Cold cache: each distinct sector touched outside local stores must be
        // read from DRAM or (if first stored) written to it eventually (flush on).
        // Sectors a local store touched are excluded: they may live in L1 only (local
        // data is dead at kernel end and is not flushed), and this generator lets
        // local and global addresses overlap, which real programs never do.
        let is_local_store = |s: &&Spec| kind_path(s.2) == (Kind::Store, Path::Local);
        let local: BTreeSet<u64> =
            specs.iter().filter(is_local_store).flat_map(|&(_, _, _, f, n)| f..f + n).collect();
        let distinct: BTreeSet<u64> = specs
            .iter()
            .filter(|s| !is_local_store(s))
            .flat_map(|&(_, _, _, f, n)| f..f + n)
            .filter(|s| !local.contains(s))
            .collect();
        prop_assert!(r.dram_read_bytes + r.dram_write_bytes >= 32 * distinct.len() as u64);
        // Load-only footprint: all of it must come from DRAM.
        let loads_only = specs.iter().all(|s| kind_path(s.2).0 == Kind::Load);
        if loads_only {
            prop_assert!(r.dram_read_bytes >= 32 * distinct.len() as u64);
        }

        // Deterministic, and independent of the order requests were pushed in.
        prop_assert_eq!(&simulate(&cfg, &launch, &trace).unwrap(), &r);
        let reversed: Vec<usize> = (0..specs.len()).rev().collect();
        prop_assert_eq!(&simulate(&cfg, &launch, &build(&specs, &reversed)).unwrap(), &r);
    }
}
