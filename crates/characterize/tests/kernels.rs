//! Corpus kernels through the emulator: the Appendix B experiments for every
//! STRIDE and BANK against the reference protocol models, and sampled
//! against full instruction counts.

mod common;

use characterize::Options;
use characterize::metrics::memory_efficiency;
use common::corpus::{characterize, characterize_with};
use common::{LaneAccess, cc12_reference, gcd, listing1_index, sectors_reference};
use emu::simt::stack::Policy;

/// Expected (requests, cc12 transactions, sectors, used bytes) of one pass of
/// Listing 1's accesses (loads or stores) by CTAs 0..3. Buffers are 256-byte
/// aligned in the emulator, so offsets from the buffer start give the same
/// segments.
///
/// Only CTAs 0-2 are watched: in the last CTA, when STRIDE does not divide
/// the block, some threads' ranges are cut at N and they loop fewer times
/// than the rest of their warp, so how their accesses group into warp
/// instructions depends on how NVRTC unrolled the loop. In CTAs 0-2 every
/// thread makes exactly n_elem_per_thread accesses (a range that overruns
/// its block stays below N), so iteration k of a warp is one request.
fn listing1_expected(stride: u64) -> (u64, u64, u64, u64) {
    let (n, grid, block) = (4096u64, 4u64, 128u64);
    let per = n / (grid * block);
    let (mut req, mut t, mut s, mut u) = (0, 0, 0, 0);
    for b in 0..WATCHED {
        for warp in 0..block / 32 {
            for k in 0..per {
                let acc: Vec<LaneAccess> = (0..32usize)
                    .filter_map(|l| {
                        listing1_index(stride, per, block, n, b, warp * 32 + l as u64, k)
                            .map(|i| (l, 4 * i))
                    })
                    .collect();
                if acc.is_empty() {
                    continue;
                }
                req += 1;
                t += cc12_reference(&acc, 4).0;
                let (sec, used) = sectors_reference(&acc, 4);
                s += sec;
                u += used;
            }
        }
    }
    (req, t, s, u)
}

const WATCHED: u64 = 3;

fn same(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

#[test]
fn coalescing_kernel_every_stride() {
    for stride in 1..=32u64 {
        let opts = Options {
            watch_ctas: Some(vec![0, 1, 2]),
            run_ctas: None,
            ..Options::default()
        };
        let c = characterize_with("coalescing", &[("STRIDE", stride.to_string())], opts);
        let (req, t, s, u) = listing1_expected(stride);
        // Counts are extrapolated from 3 CTAs to the grid's 4.
        let k = 4.0 / WATCHED as f64;
        let mi = &c.model_inputs;
        // Each element is loaded, doubled and stored back: loads and stores alike.
        assert!(
            same(mi.global_loads, k * req as f64) && same(mi.global_stores, k * req as f64),
            "stride {stride}"
        );
        assert!(
            same(c.global_requests, k * 2.0 * req as f64),
            "stride {stride}"
        );
        assert!(
            same(c.global_transactions, k * 2.0 * t as f64),
            "stride {stride}"
        );
        assert!(
            same(c.global_sectors, k * 2.0 * s as f64),
            "stride {stride}"
        );
        let per_request = c.global_transactions / c.global_requests;
        assert!(
            same(per_request, t as f64 / req as f64),
            "stride {stride}: {per_request}"
        );
        assert_eq!(
            c.memory_efficiency,
            memory_efficiency(req, t),
            "stride {stride}"
        );
        assert_eq!(
            c.memory_efficiency_sectors,
            u as f64 / (32 * s) as f64,
            "stride {stride}"
        );
        if stride == 32 {
            assert_eq!(c.memory_efficiency, 1.0, "fully coalesced");
        }
    }
}

fn expected_ways(bank: u64) -> f64 {
    if bank == 0 {
        return 1.0;
    }
    let period = 512 / gcd(bank, 512);
    let lanes = gcd(bank, 32);
    (if period >= 32 {
        lanes
    } else {
        lanes * period / 32
    }) as f64
}

#[test]
fn bank_conflict_kernel_every_bank() {
    for bank in 0..=32u64 {
        let c = characterize(
            "bank_conflicts",
            &[("BANK", bank.to_string())],
            Policy::Ipdom,
            None,
        );
        let mi = &c.model_inputs;
        let want = expected_ways(bank);
        assert!(mi.shared_stores > 0.0, "BANK {bank}: no shared stores");
        assert_eq!(mi.shared_max_conflict_ways, want, "BANK {bank}");
        assert_eq!(mi.shared_conflict_ways_mean, want, "BANK {bank}");
        assert_eq!(
            c.shared_bank_conflicts,
            c.shared_requests * (want - 1.0),
            "BANK {bank}"
        );
        // 16 banks per half-warp (the GTX 280 of seed 000): gcd(BANK, 16) ways.
        let want16 = if bank == 0 { 1.0 } else { gcd(bank, 16) as f64 };
        assert_eq!(mi.shared_conflict_ways_mean_16banks, want16, "BANK {bank}");
    }
}

#[test]
fn tiled_matmul_has_no_inter_thread_flow() {
    // Shared tiles are filled straight from global loads: the exemption.
    let c = characterize("matmul_tiled", &[], Policy::Ipdom, None);
    assert!(c.shared_requests > 0.0);
    assert_eq!(c.inter_thread_data_flow, 0.0);
}

/// Every corpus kernel with more than a handful of CTAs, sampled against the full run.
#[test]
fn sampled_counts_within_two_percent() {
    let dir = common::corpus::kernels_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("spec.toml").exists() && e.path().join("sm_80.ptx").exists())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut compared = 0;
    for name in &names {
        let full = characterize(name, &[], Policy::Ipdom, None);
        if full.ctas_total < 4 {
            continue;
        }
        let k = (full.ctas_total / 2).max(3);
        let sampled = characterize(name, &[], Policy::Ipdom, Some(k));
        assert_eq!(sampled.ctas_emulated, k.min(full.ctas_total), "{name}");
        let err =
            (sampled.warp_instructions - full.warp_instructions).abs() / full.warp_instructions;
        assert!(
            err <= 0.02,
            "{name}: sampled {} vs full {}",
            sampled.warp_instructions,
            full.warp_instructions
        );
        let err = (sampled.thread_instructions - full.thread_instructions).abs()
            / full.thread_instructions;
        assert!(
            err <= 0.02,
            "{name}: threads sampled {} vs full {}",
            sampled.thread_instructions,
            full.thread_instructions
        );
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} corpus kernels compared");
}
