//! What counting bank conflicts costs per warp access: `bank_conflicts` on
//! the access shapes a GEMM and a convolution make (32-bit words by
//! consecutive lanes, float2 and float4 by phases with and without
//! conflicts, one word for all lanes, a strided column, a predicated half
//! warp, a matrix column too wide for the fast path), through both layouts
//! the collector counts every shared access in (`WARP32.for_width(size)`
//! and `HALF_WARP16`) and the global loads' unpaired phases.
//!
//! Then what the collector pays per shared access (the two layouts) when
//! the access repeats moved by a row of banks, as an inner loop's do:
//! counted each time, and through the [`BankMemo`] (a hit after the
//! first).
//!
//! Run: `cargo bench -p characterize --bench banks` (a plain main that times
//! and prints). Each figure is the best of `PTXPERF_BENCH_REPEATS` rounds
//! (default 5) of 2,000,000 accesses, in ns per access.

use std::hint::black_box;
use std::time::Instant;

use characterize::bank_memo::BankMemo;
use characterize::{BankLayout, bank_conflicts};
use emu::simt::{Mask, WARP_SIZE};

/// (name, bytes per lane, active lanes, address of lane l).
type Shape = (&'static str, u32, Mask, fn(u64) -> u64);

const SHAPES: [Shape; 8] = [
    ("32-bit, consecutive", 4, !0, |l| 0x400 + 4 * l),
    ("32-bit, one word", 4, !0, |_| 0x400),
    ("32-bit, column of 33", 4, !0, |l| 4 * 33 * l),
    ("float2, consecutive", 8, !0, |l| 8 * l),
    ("float4, consecutive", 16, !0, |l| 16 * l),
    ("float4, 64 B apart (4 ways)", 16, !0, |l| 64 * (l % 8)),
    ("float4, half warp", 16, 0xFFFF, |l| 16 * l),
    // A column of a 4096-float matrix: too wide for the rows, sorted.
    ("32-bit, 16 KiB apart (sorted)", 4, !0, |l| 16384 * l),
];

fn main() {
    let repeats: usize = std::env::var("PTXPERF_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    const N: usize = 2_000_000;
    println!("| access | ns per access (3 layouts) | passes |");
    println!("|---|---:|---|");
    let mut total = 0.0;
    for (name, size, active, f) in SHAPES {
        let addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| f(l as u64));
        let layouts = [
            BankLayout::WARP32.for_width(size),
            BankLayout::HALF_WARP16,
            BankLayout::WARP32.for_width(size).unpaired(),
        ];
        let passes: Vec<u32> = layouts
            .iter()
            .map(|l| bank_conflicts(*l, active, &addrs, size).passes)
            .collect();
        let mut best = f64::MAX;
        for _ in 0..repeats.max(1) {
            let t = Instant::now();
            let mut sum = 0u64;
            for i in 0..N {
                let layout = layouts[i % 3];
                let c = bank_conflicts(
                    black_box(layout),
                    black_box(active),
                    black_box(&addrs),
                    size,
                );
                sum += u64::from(c.passes);
            }
            black_box(sum);
            best = best.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
        }
        total += best;
        println!("| {name} | {best:.1} | {passes:?} |");
    }
    println!("| mean | {:.1} | |", total / SHAPES.len() as f64);
    println!();
    println!("| access, moved 128 B a call | counted (ns, 2 layouts) | memo (ns) | memo hits |");
    println!("|---|---:|---:|---:|");
    for (name, size, active, f) in SHAPES {
        let layouts = [BankLayout::WARP32.for_width(size), BankLayout::HALF_WARP16];
        let at = |i: usize| -> [u64; WARP_SIZE] {
            std::array::from_fn(|l| f(l as u64) + 128 * (i % 64) as u64)
        };
        let (mut counted, mut memoised, mut hits) = (f64::MAX, f64::MAX, 0);
        for _ in 0..repeats.max(1) {
            let t = Instant::now();
            let mut sum = 0u64;
            for i in 0..N {
                let addrs = at(i);
                for l in layouts {
                    sum += u64::from(bank_conflicts(l, active, black_box(&addrs), size).passes);
                }
            }
            black_box(sum);
            counted = counted.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
            let mut memo = BankMemo::<2>::default();
            let t = Instant::now();
            for i in 0..N {
                let addrs = at(i);
                let c = memo.costs(black_box(7), layouts, active, black_box(&addrs), size);
                sum += u64::from(c[0].passes + c[1].passes);
            }
            black_box(sum);
            memoised = memoised.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
            hits = memo.hits;
        }
        println!("| {name} | {counted:.1} | {memoised:.1} | {hits} |");
    }
}
