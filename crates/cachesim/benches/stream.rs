//! Throughput of the cache model on a synthetic, GPU-sized trace.
//! Run with `cargo bench -p cachesim --bench stream`; prints requests per second.

use std::hint::black_box;
use std::time::Instant;

use cachesim::{CacheConfig, Kind, Launch, Path, TraceBuilder, simulate};

/// A V100-sized setup: 80 SMs, 4 resident CTAs, 2048 CTAs of 8 warps, each warp
/// 64 coalesced 128 B loads (4 sectors) over a 1-D array read with a halo
/// (neighbouring CTAs overlap, so L1 and L2 see some reuse), plus one store per 8 loads.
fn build() -> Result<cachesim::Trace, cachesim::CacheSimError> {
    let mut b = TraceBuilder::new();
    let (ctas, warps, per_warp) = (2048u32, 8u32, 64u32);
    for cta in 0..ctas {
        for warp in 0..warps {
            for i in 0..per_warp {
                let line = u64::from(cta) * 256 + u64::from(warp) * 32 + u64::from(i % 40);
                let base = line * 128;
                let sectors = [base, base + 32, base + 64, base + 96];
                let (kind, addr_base) = if i % 8 == 7 {
                    (Kind::Store, 1 << 32)
                } else {
                    (Kind::Load, 0)
                };
                let s = sectors.map(|x| x + addr_base);
                b.push_sectors(cta, warp, i, kind, Path::Global, &s)?;
            }
        }
    }
    b.build()
}

fn main() {
    let t0 = Instant::now();
    let trace = match build() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("trace build failed: {e}");
            return;
        }
    };
    let build_s = t0.elapsed().as_secs_f64();
    let config = CacheConfig::sm70_like(128 * 1024, 6 * 1024 * 1024);
    let launch = Launch {
        grid_ctas: 2048,
        resident_ctas_per_sm: 4,
        num_sms: 80,
        cta_weight: None,
    };
    let reqs = trace.request_count() as f64;
    let sectors = trace.sector_count() as f64;
    println!(
        "trace: {} requests, {} sectors, built in {:.3} s ({:.1} M requests/s)",
        reqs,
        sectors,
        build_s,
        reqs / build_s / 1e6
    );
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        match simulate(black_box(&config), &launch, black_box(&trace)) {
            Ok(r) => {
                black_box(&r);
                let secs = t.elapsed().as_secs_f64();
                best = best.min(secs);
                println!(
                    "simulate: {:.3} s  L1 hit {:.3}  L2 hit {:.3}  DRAM read {} B write {} B  rounds {}",
                    secs,
                    r.total.l1.hit_rate(),
                    r.total.l2.hit_rate(),
                    r.dram_read_bytes,
                    r.dram_write_bytes,
                    r.rounds
                );
            }
            Err(e) => {
                eprintln!("simulate failed: {e}");
                return;
            }
        }
    }
    println!(
        "best of 5: {:.1} M requests/s, {:.1} M sectors/s",
        reqs / best / 1e6,
        sectors / best / 1e6
    );
}
