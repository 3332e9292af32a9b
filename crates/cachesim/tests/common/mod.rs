//! Helpers shared by the integration tests: small configurations, a compact
//! way to write streams, and the `check` helper comparing counters.

#![allow(dead_code)]

use cachesim::{
    CacheConfig, CacheGeometry, CacheReport, Kind, Launch, Path, ReadOnlyPath, Trace, TraceBuilder,
    simulate,
};

/// One request: (cta, warp, kind, path, sector addresses). `seq` is the order
/// in which requests of the same warp appear in the list.
pub type Req<'a> = (u32, u32, Kind, Path, &'a [u64]);

pub fn geom(size: u64, line: u32, sector: u32, ways: u32) -> CacheGeometry {
    CacheGeometry {
        size_bytes: size,
        line_bytes: line,
        sector_bytes: sector,
        ways,
        index: cachesim::SetIndex::Modulo,
    }
}

/// L1: 1 KiB, 128 B lines, 32 B sectors, 2 ways -> 4 sets (line n in set n % 4).
/// L2: 4 KiB, 128 B lines, 32 B sectors, 4 ways -> 8 sets (line n in set n % 8).
/// Constant: 256 B, 64 B lines and sectors, 2 ways -> 2 sets.
pub fn small() -> CacheConfig {
    CacheConfig {
        l1: geom(1024, 128, 32, 2),
        global_loads_allocate_l1: true,
        readonly: ReadOnlyPath::ThroughL1,
        constant: geom(256, 64, 64, 2),
        l2: geom(4096, 128, 32, 4),
        l2_fill_bytes: 32,
        flush_l2_at_end: true,
    }
}

pub fn launch(grid: u32, resident: u32, sms: u32) -> Launch {
    Launch {
        grid_ctas: grid,
        resident_ctas_per_sm: resident,
        num_sms: sms,
        cta_weight: None,
    }
}

/// Builds a trace; the seq of each request is its position among its warp's requests.
pub fn trace(reqs: &[Req]) -> Trace {
    let mut b = TraceBuilder::new();
    let mut seqs: Vec<((u32, u32), u32)> = Vec::new();
    for &(cta, warp, kind, path, sectors) in reqs {
        let seq = match seqs.iter_mut().find(|(k, _)| *k == (cta, warp)) {
            Some((_, s)) => {
                *s += 1;
                *s
            }
            None => {
                seqs.push(((cta, warp), 0));
                0
            }
        };
        b.push_sectors(cta, warp, seq, kind, path, sectors).unwrap();
    }
    b.build().unwrap()
}

/// Sector addresses of `n` consecutive sectors starting at byte `base`.
pub fn run(base: u64, n: u64) -> Vec<u64> {
    (0..n).map(|i| base + 32 * i).collect()
}

/// Expected counters. L1 and L2 are (hits, misses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    pub l1: (u64, u64),
    pub l2: (u64, u64),
    pub dram_read: u64,
    pub dram_write: u64,
}

pub fn check(config: &CacheConfig, launch: &Launch, trace: &Trace, expect: Expect) -> CacheReport {
    let r = simulate(config, launch, trace).unwrap();
    let got = Expect {
        l1: (r.total.l1.hits, r.total.l1.misses),
        l2: (r.total.l2.hits, r.total.l2.misses),
        dram_read: r.dram_read_bytes,
        dram_write: r.dram_write_bytes,
    };
    assert_eq!(got, expect);
    r
}
