//! What coalescing costs per global access: `coalesce::both_protocols`
//! (the CC 1.2 half-warp protocol, the sector protocol and the merged byte
//! intervals the collector keeps) on the lane orders kernels make: lanes
//! ascending, descending, in runs that overlap (a dedispersion warp that
//! spans several DM trials, each run shifted by its delay), and scattered.
//!
//! Run: `cargo bench -p characterize --bench coalesce` (a plain main that
//! times and prints). Each figure is the best of `PTXPERF_BENCH_REPEATS`
//! rounds (default 5) of 2,000,000 accesses, in ns per access; the
//! scattered shape cycles through 64 address sets so that the branch
//! predictor cannot learn one.

use std::hint::black_box;
use std::time::Instant;

use characterize::coalesce::both_protocols;
use emu::simt::{Mask, WARP_SIZE};

/// Address sets of a shape (several, so scattered ones differ).
fn shape(name: &str, seed: u64) -> Vec<[u64; WARP_SIZE]> {
    let mut rng = prng::Rng::new(seed);
    (0..64)
        .map(|_| {
            let base = 0x1000_0000 + (rng.next_u64() % (1 << 20));
            let scatter: [u64; WARP_SIZE] = std::array::from_fn(|_| rng.next_u64() % (1 << 20));
            std::array::from_fn(|l| {
                let l = l as u64;
                match name {
                    "ascending floats" => base + 4 * l,
                    "ascending bytes" => base + l,
                    "descending floats" => base + 4 * (31 - l),
                    "2 runs of 16 bytes, overlapping" => base + (l % 16) + 5 * (l / 16),
                    "4 runs of 8 bytes, overlapping" => base + (l % 8) + 3 * (l / 8),
                    "8 runs of 4 floats, 1 KiB apart, shuffled" => {
                        base + 4 * (l % 4) + 1024 * ((l / 4 * 5) % 8)
                    }
                    _ => base + scatter[l as usize],
                }
            })
        })
        .collect()
}

const SHAPES: [(&str, u32, Mask); 7] = [
    ("ascending floats", 4, !0),
    ("ascending bytes", 1, !0),
    ("descending floats", 4, !0),
    ("2 runs of 16 bytes, overlapping", 1, !0),
    ("4 runs of 8 bytes, overlapping", 1, !0),
    ("8 runs of 4 floats, 1 KiB apart, shuffled", 4, !0),
    ("scattered floats (1 MiB)", 4, !0),
];

fn main() {
    let repeats: usize = std::env::var("PTXPERF_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    const N: usize = 2_000_000;
    println!("| access | ns per access | sectors, cc12 transactions |");
    println!("|---|---:|---|");
    for (k, (name, size, active)) in SHAPES.into_iter().enumerate() {
        let sets = shape(name, 0x9E37_79B9_7F4A_7C15 ^ k as u64);
        let (cc12, sectors, _) = both_protocols(active, &sets[0], size);
        let mut best = f64::MAX;
        for _ in 0..repeats.max(1) {
            let t = Instant::now();
            let mut sum = 0u64;
            for i in 0..N {
                let (c, s, iv) = both_protocols(active, black_box(&sets[i % sets.len()]), size);
                sum = sum.wrapping_add(c.transactions + s.transactions + iv.spans().len() as u64);
            }
            black_box(sum);
            best = best.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
        }
        println!(
            "| {name} | {best:.1} | {}, {} |",
            sectors.transactions, cc12.transactions
        );
    }
}
