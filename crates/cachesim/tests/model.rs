//! Hand-computed cases pinning the cache model. Each case states its arithmetic.
//! Unless a case says otherwise the caches are `common::small()`:
//! L1 1 KiB / 128 B lines / 2 ways (4 sets), L2 4 KiB / 128 B lines / 4 ways (8 sets),
//! 32 B sectors, L2 fills one sector, dirty L2 sectors flushed at the end.

mod common;

use cachesim::{Kind::*, Path::*, ReadOnlyPath, simulate};
use common::{Expect, check, geom, launch, run, small, trace};

#[test]
fn streaming_touches_each_sector_once() {
    // 2 CTAs on 2 SMs, one warp each, 4 requests of one 128 B line each,
    // disjoint: CTA 0 reads bytes 0..512, CTA 1 reads 512..1024.
    // 32 distinct sectors: L1 0 hits / 32 misses, L2 0 / 32, DRAM = 32 x 32 = 1024 B.
    let mut reqs = Vec::new();
    let lines: Vec<Vec<u64>> = (0..8).map(|l| run(128 * l, 4)).collect();
    for (i, l) in lines.iter().enumerate() {
        reqs.push(((i / 4) as u32, 0, Load, Global, l.as_slice()));
    }
    let r = check(
        &small(),
        &launch(2, 1, 2),
        &trace(&reqs),
        Expect {
            l1: (0, 32),
            l2: (0, 32),
            dram_read: 1024,
            dram_write: 0,
        },
    );
    assert_eq!(r.total.l1.hit_rate(), 0.0);
    assert_eq!(r.total.l2.hit_rate(), 0.0);
    // Every sector crossed L2 -> SM once: 32 x 32 B.
    assert_eq!(r.l2_to_sm_bytes, 1024);
    // Each SM saw its own 16 sectors.
    assert_eq!(r.l1_per_sm[0].misses, 16);
    assert_eq!(r.l1_per_sm[1].misses, 16);
}

#[test]
fn streaming_stores_write_the_footprint() {
    // One warp stores 2 lines (8 sectors). Stores skip L1 and allocate in L2
    // without a fill: L1 0/0, L2 0 hits / 8 misses, DRAM read 0,
    // DRAM write 8 x 32 = 256 B (end-of-kernel flush).
    let (a, b) = (run(0, 4), run(128, 4));
    let r = check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Store, Global, &a), (0, 0, Store, Global, &b)]),
        Expect {
            l1: (0, 0),
            l2: (0, 8),
            dram_read: 0,
            dram_write: 256,
        },
    );
    assert_eq!(r.flush_write_sectors, 8);
    assert_eq!(r.sm_to_l2_bytes, 256);
}

#[test]
fn reuse_within_a_warp() {
    // One warp reads lines 0 and 1 (8 sectors), then reads them again.
    // 256 B fits the 1 KiB L1 (lines 0 and 1 are in sets 0 and 1).
    // L1: first pass 8 misses, second pass 8 hits -> 8/8 (rate 0.5).
    // L2 sees only the 8 first-pass misses: 0/8. DRAM 8 x 32 = 256 B.
    let (a, b) = (run(0, 4), run(128, 4));
    let t = trace(&[
        (0, 0, Load, Global, &a),
        (0, 0, Load, Global, &b),
        (0, 0, Load, Global, &a),
        (0, 0, Load, Global, &b),
    ]);
    let r = check(
        &small(),
        &launch(1, 1, 1),
        &t,
        Expect {
            l1: (8, 8),
            l2: (0, 8),
            dram_read: 256,
            dram_write: 0,
        },
    );
    assert_eq!(r.total.l1.hit_rate(), 0.5);
}

#[test]
fn reuse_across_warps_of_a_cta() {
    // Warps 0 and 1 of one CTA read the same line in round 0; warp 0 issues first.
    // Warp 0: 4 L1 misses, 4 L2 misses; warp 1: 4 L1 hits. DRAM 4 x 32 = 128 B.
    let a = run(0, 4);
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Load, Global, &a), (0, 1, Load, Global, &a)]),
        Expect {
            l1: (4, 4),
            l2: (0, 4),
            dram_read: 128,
            dram_write: 0,
        },
    );
}

#[test]
fn reuse_across_ctas_on_different_sms() {
    // CTAs 0 and 1 run in the same wave on SM 0 and SM 1 and read the same line.
    // SM 0 goes first: 4 L1 misses + 4 L2 misses. SM 1: 4 L1 misses (its own L1
    // is cold) + 4 L2 hits. L1 0/8, L2 4/4, DRAM 128 B.
    let a = run(0, 4);
    let r = check(
        &small(),
        &launch(2, 1, 2),
        &trace(&[(0, 0, Load, Global, &a), (1, 0, Load, Global, &a)]),
        Expect {
            l1: (0, 8),
            l2: (4, 4),
            dram_read: 128,
            dram_write: 0,
        },
    );
    assert_eq!(r.total.l2.hit_rate(), 0.5);
    assert_eq!(r.total.l2_loads.hits, 4);
}

#[test]
fn reuse_across_ctas_on_one_sm() {
    // Same stream, but 1 SM with 2 resident CTAs: both share SM 0's L1.
    // CTA 0: 4 L1 misses, 4 L2 misses; CTA 1: 4 L1 hits. L1 4/4, L2 0/4.
    let a = run(0, 4);
    check(
        &small(),
        &launch(2, 2, 1),
        &trace(&[(0, 0, Load, Global, &a), (1, 0, Load, Global, &a)]),
        Expect {
            l1: (4, 4),
            l2: (0, 4),
            dram_read: 128,
            dram_write: 0,
        },
    );
}

#[test]
fn thrashing_one_l1_set() {
    // Lines 0, 4 and 8 (bytes 0, 512, 1024) all map to L1 set 0 (n % 4 = 0),
    // which has 2 ways. Cycling A B C A B C A B C with LRU evicts each line just
    // before its reuse: L1 0 hits / 9 misses. L2 (set n % 8: 0, 4, 0; 4 ways)
    // holds all three: 3 misses then 6 hits. DRAM 3 x 32 = 96 B.
    let (a, b, c) = ([0u64], [512u64], [1024u64]);
    let mut reqs = Vec::new();
    for _ in 0..3 {
        for s in [&a, &b, &c] {
            reqs.push((0, 0, Load, Global, s.as_slice()));
        }
    }
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&reqs),
        Expect {
            l1: (0, 9),
            l2: (6, 3),
            dram_read: 96,
            dram_write: 0,
        },
    );
}

#[test]
fn thrashing_one_l2_set() {
    // Global loads bypass L1 here. Lines 0, 8, 16, 24, 32 (bytes 0, 1024, ...)
    // all map to L2 set 0 (n % 8 = 0), 4 ways: a cycle of 5 > 4 lines, twice,
    // gives 0 hits / 10 misses and DRAM 10 x 32 = 320 B.
    let mut cfg = small();
    cfg.global_loads_allocate_l1 = false;
    let lines: Vec<[u64; 1]> = (0..5).map(|i| [1024 * i]).collect();
    let mut reqs = Vec::new();
    for _ in 0..2 {
        for l in &lines {
            reqs.push((0, 0, Load, Global, l.as_slice()));
        }
    }
    check(
        &cfg,
        &launch(1, 1, 1),
        &trace(&reqs),
        Expect {
            l1: (0, 0),
            l2: (0, 10),
            dram_read: 320,
            dram_write: 0,
        },
    );
}

#[test]
fn thrashing_a_fully_associative_l1() {
    // L1 of 1 KiB with 8 ways = 1 set of 8 lines. Cycling over 9 lines (sector 0
    // of lines 0..9), twice: 0 L1 hits / 18 misses. L2 (32 lines, 8 sets x 4)
    // keeps all 9 (set 0 holds lines 0 and 8, the others one each): 9 misses, 9 hits.
    let mut cfg = small();
    cfg.l1 = geom(1024, 128, 32, 8);
    let lines: Vec<[u64; 1]> = (0..9).map(|i| [128 * i]).collect();
    let mut reqs = Vec::new();
    for _ in 0..2 {
        for l in &lines {
            reqs.push((0, 0, Load, Global, l.as_slice()));
        }
    }
    check(
        &cfg,
        &launch(1, 1, 1),
        &trace(&reqs),
        Expect {
            l1: (0, 18),
            l2: (9, 9),
            dram_read: 288,
            dram_write: 0,
        },
    );
}

#[test]
fn store_then_load_hits_in_l2_not_l1() {
    // Store sector 0: no L1 allocation, L2 write miss (allocated, dirty, no fill).
    // Load sector 0: L1 miss, L2 hit. L1 0/1, L2 1/1, DRAM read 0, write 32 (flush).
    let s = [0u64];
    let t = trace(&[(0, 0, Store, Global, &s), (0, 0, Load, Global, &s)]);
    check(
        &small(),
        &launch(1, 1, 1),
        &t,
        Expect {
            l1: (0, 1),
            l2: (1, 1),
            dram_read: 0,
            dram_write: 32,
        },
    );
    // Without the end-of-kernel flush the dirty sector is never counted.
    let mut cfg = small();
    cfg.flush_l2_at_end = false;
    check(
        &cfg,
        &launch(1, 1, 1),
        &t,
        Expect {
            l1: (0, 1),
            l2: (1, 1),
            dram_read: 0,
            dram_write: 0,
        },
    );
}

#[test]
fn store_updates_a_resident_l1_copy() {
    // Load (L1 miss, L2 miss, DRAM 32), store (write-through: L1 copy kept,
    // L2 write hit), load (L1 hit). L1 1/1, L2 1/1, DRAM read 32, write 32.
    let s = [0u64];
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[
            (0, 0, Load, Global, &s),
            (0, 0, Store, Global, &s),
            (0, 0, Load, Global, &s),
        ]),
        Expect {
            l1: (1, 1),
            l2: (1, 1),
            dram_read: 32,
            dram_write: 32,
        },
    );
}

#[test]
fn local_memory_is_write_back_in_l1() {
    // st.local allocates in L1 (dirty), ld.local hits: L1 1/0, nothing reaches L2.
    let s = [4096u64];
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Store, Local, &s), (0, 0, Load, Local, &s)]),
        Expect {
            l1: (1, 0),
            l2: (0, 0),
            dram_read: 0,
            dram_write: 0,
        },
    );
    // Dirty local sector in L1 set 0 (line 32), then global loads of lines 0 and 4
    // (also set 0, 2 ways): line 4 evicts the LRU line 32, whose dirty sector is
    // written to L2 (write miss). L1 0/2; L2: 2 load misses + 1 write miss = 0/3;
    // DRAM read 64; write 32 (flush of the written-back sector).
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[
            (0, 0, Store, Local, &s),
            (0, 0, Load, Global, &[0]),
            (0, 0, Load, Global, &[512]),
        ]),
        Expect {
            l1: (0, 2),
            l2: (0, 3),
            dram_read: 64,
            dram_write: 32,
        },
    );
}

#[test]
fn atomics_read_modify_write_at_l2() {
    // Two atomics to sector 0: first L2 miss (DRAM read 32), second hit; L1 untouched;
    // the dirty sector is flushed: write 32.
    let s = [0u64];
    let r = check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Atomic, Global, &s), (0, 0, Atomic, Global, &s)]),
        Expect {
            l1: (0, 0),
            l2: (1, 1),
            dram_read: 32,
            dram_write: 32,
        },
    );
    assert_eq!(r.total.atomic_sectors_at_l2, 2);
    assert_eq!(r.total.paths.global.atomic_requests, 2);
}

#[test]
fn dirty_l2_evictions_are_dram_writes() {
    // Stores to lines 0, 8, 16, 24, 32 (L2 set 0, 4 ways): the 5th evicts dirty
    // line 0 (1 sector written during the run); 4 dirty sectors flushed at the end.
    // L2 0/5, DRAM write 5 x 32 = 160 B, of which the flush is 4 sectors.
    let lines: Vec<[u64; 1]> = (0..5).map(|i| [1024 * i]).collect();
    let reqs: Vec<_> = lines
        .iter()
        .map(|l| (0, 0, Store, Global, l.as_slice()))
        .collect();
    let r = check(
        &small(),
        &launch(1, 1, 1),
        &trace(&reqs),
        Expect {
            l1: (0, 0),
            l2: (0, 5),
            dram_read: 0,
            dram_write: 160,
        },
    );
    assert_eq!(r.flush_write_sectors, 4);
}

#[test]
fn l2_fill_granularity_prefetches_the_pair() {
    // l2_fill_bytes = 64: a miss on sector 0 also fills sector 32 (DRAM 64 B);
    // the load of sector 32 then hits. Loads bypass L1. L2 1/1, DRAM read 64.
    let mut cfg = small();
    cfg.global_loads_allocate_l1 = false;
    cfg.l2_fill_bytes = 64;
    check(
        &cfg,
        &launch(1, 1, 1),
        &trace(&[(0, 0, Load, Global, &[0]), (0, 0, Load, Global, &[32])]),
        Expect {
            l1: (0, 0),
            l2: (1, 1),
            dram_read: 64,
            dram_write: 0,
        },
    );
}

#[test]
fn readonly_and_constant_paths() {
    // Read-only path through L1: ld.global.nc then ld.global of the same sector -> L1 1/1.
    let s = [0u64];
    check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Load, ReadOnly, &s), (0, 0, Load, Global, &s)]),
        Expect {
            l1: (1, 1),
            l2: (0, 1),
            dram_read: 32,
            dram_write: 0,
        },
    );
    // A separate read-only cache keeps the two apart: RO miss, L1 miss, L2 0 then 1 hit.
    let mut cfg = small();
    cfg.readonly = ReadOnlyPath::Separate(geom(512, 128, 32, 2));
    let r = check(
        &cfg,
        &launch(1, 1, 1),
        &trace(&[
            (0, 0, Load, ReadOnly, &s),
            (0, 0, Load, Global, &s),
            (0, 0, Load, ReadOnly, &s),
        ]),
        Expect {
            l1: (0, 1),
            l2: (1, 1),
            dram_read: 32,
            dram_write: 0,
        },
    );
    assert_eq!(
        (r.total.readonly_cache.hits, r.total.readonly_cache.misses),
        (1, 1)
    );
    // Constant cache: 64 B lines and sectors, so trace sectors 0 and 32 share one
    // constant sector: miss, hit. The miss fetches the whole 64 B sector from L2 as
    // two 32 B pieces (0 and 32): L2 0/2, DRAM 64.
    let r = check(
        &small(),
        &launch(1, 1, 1),
        &trace(&[(0, 0, Load, Constant, &[0]), (0, 0, Load, Constant, &[32])]),
        Expect {
            l1: (0, 0),
            l2: (0, 2),
            dram_read: 64,
            dram_write: 0,
        },
    );
    assert_eq!(
        (r.total.constant_cache.hits, r.total.constant_cache.misses),
        (1, 1)
    );
    assert_eq!(r.total.paths.constant.load_sectors, 2);
}

#[test]
fn sampled_ctas_extrapolate_by_weight() {
    // 3 sampled CTAs of a 300-CTA grid, each streaming one distinct line:
    // DRAM 3 x 128 = 384 B simulated; weight 300 / 3 = 100 -> 38400 B.
    let (a, b, c) = (run(0, 4), run(128, 4), run(256, 4));
    let t = trace(&[
        (0, 0, Load, Global, &a),
        (100, 0, Load, Global, &b),
        (200, 0, Load, Global, &c),
    ]);
    let r = simulate(&small(), &launch(300, 1, 2), &t).unwrap();
    assert_eq!(r.dram_read_bytes, 384);
    assert_eq!(r.extrapolated.weight, 100.0);
    assert_eq!(r.extrapolated.dram_read_bytes, 38400.0);
    // An explicit weight wins.
    let mut l = launch(300, 1, 2);
    l.cta_weight = Some(2.5);
    let r = simulate(&small(), &l, &t).unwrap();
    assert_eq!(r.extrapolated.dram_read_bytes, 960.0);
    // CTA 200 lies outside a 150-CTA grid.
    assert!(simulate(&small(), &launch(150, 1, 2), &t).is_err());
}

#[test]
fn invalid_inputs_are_errors() {
    let t = trace(&[(0, 0, Load, Global, &[0])]);
    assert!(simulate(&small(), &launch(1, 0, 1), &t).is_err());
    assert!(simulate(&small(), &launch(1, 1, 0), &t).is_err());
    let mut cfg = small();
    cfg.l1 = geom(1000, 128, 32, 2);
    assert!(simulate(&cfg, &launch(1, 1, 1), &t).is_err());
    let mut cfg = small();
    cfg.l2 = geom(4096, 128, 16, 4);
    assert!(simulate(&cfg, &launch(1, 1, 1), &t).is_err());
    let mut cfg = small();
    cfg.l2_fill_bytes = 256;
    assert!(simulate(&cfg, &launch(1, 1, 1), &t).is_err());
    let mut l = launch(1, 1, 1);
    l.cta_weight = Some(f64::NAN);
    assert!(simulate(&small(), &l, &t).is_err());
}

#[test]
fn lanes_and_sectors_give_the_same_trace() {
    use cachesim::{Access, Request, Trace};
    // 32 lanes x 4 B from byte 64: bytes 64..192 = sectors 64, 96, 128, 160.
    let lanes = Request {
        cta: 0,
        warp: 0,
        seq: 0,
        kind: Load,
        path: Global,
        access: Access::Lanes {
            addrs: (0..32).map(|i| 64 + 4 * i).collect(),
            bytes: 4,
        },
    };
    let sectors = Request {
        access: Access::Sectors(vec![160, 64, 96, 128, 96]),
        ..lanes.clone()
    };
    let a = Trace::from_requests(&[lanes]).unwrap();
    let b = Trace::from_requests(&[sectors]).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.sector_count(), 4);
}

#[test]
fn volta_like_defaults_are_valid() {
    // V100: 128 KiB L1 (max carve-out), 6 MiB L2: 1024 L1 lines in 256 sets of 4,
    // 49152 L2 lines in 3072 sets of 16.
    let c = cachesim::CacheConfig::sm70_like(128 * 1024, 6 * 1024 * 1024);
    assert_eq!(c.validate(), Ok(()));
    assert_eq!((c.l1.sets(), c.l2.sets()), (256, 3072));
    // A tag store larger than 2^24 lines is refused instead of allocating.
    let huge = cachesim::CacheConfig::sm70_like(128 * 1024, 1 << 40);
    assert!(huge.validate().is_err());
}

/// Runs `reqs` on one SM with every CTA resident and checks the L1 hits by
/// age bucket (rounds since the sector's fill: 0, 1, 2-3, 4-7, 8-15, 16+).
fn check_ages(reqs: &[common::Req], expect: [u64; 6]) {
    let ctas = reqs.iter().map(|r| r.0).max().map_or(1, |c| c + 1);
    let r = simulate(&small(), &launch(ctas, ctas, 1), &trace(reqs));
    match r {
        Ok(r) => assert_eq!(r.total.l1_hit_ages, expect, "{:?}", r.total.l1),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn l1_hits_are_aged_in_rounds_since_the_fill() {
    let a = run(0, 4);
    let b = run(128, 4);
    // Two warps read the same line in round 0: warp 1's 4 hits are 0 rounds
    // old (on a GPU, a miss in flight).
    check_ages(
        &[(0, 0, Load, Global, &a), (0, 1, Load, Global, &a)],
        [4, 0, 0, 0, 0, 0],
    );
    // One warp reads a, then b, then a again in round 2: 4 hits, 2 rounds old.
    check_ages(
        &[
            (0, 0, Load, Global, &a),
            (0, 0, Load, Global, &b),
            (0, 0, Load, Global, &a),
        ],
        [0, 0, 4, 0, 0, 0],
    );
    // Read-only loads through L1 are aged too; the next round's re-read is 1 old.
    check_ages(
        &[(0, 0, Load, ReadOnly, &a), (0, 0, Load, ReadOnly, &a)],
        [0, 4, 0, 0, 0, 0],
    );
    // Local loads are not: the sector a local store allocated is no miss.
    check_ages(&[(0, 0, Store, Local, &a), (0, 0, Load, Local, &a)], [0; 6]);
    // Twenty requests apart: the last bucket.
    let mut reqs = vec![(0, 0, Load, Global, a.as_slice())];
    reqs.extend((0..19).map(|_| (0, 0, Store, Global, b.as_slice())));
    reqs.push((0, 0, Load, Global, a.as_slice()));
    check_ages(&reqs, [0, 0, 0, 0, 0, 4]);
}

#[test]
fn a_refilled_sector_is_aged_from_its_new_fill() {
    // L1 sets hold 2 ways: lines 0, 4 and 8 share set 0. Round 0 reads line 0,
    // rounds 1 and 2 lines 4 and 8 (line 0 evicted), round 3 line 0 again (a
    // miss, refilled), round 4 line 0 (hits 1 round after the refill).
    let l = |n: u64| run(128 * n, 4);
    let (l0, l4, l8) = (l(0), l(4), l(8));
    check_ages(
        &[
            (0, 0, Load, Global, &l0),
            (0, 0, Load, Global, &l4),
            (0, 0, Load, Global, &l8),
            (0, 0, Load, Global, &l0),
            (0, 0, Load, Global, &l0),
        ],
        [0, 4, 0, 0, 0, 0],
    );
}
