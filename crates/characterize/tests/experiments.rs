//! Seed 000's Appendix B experiments as pure address patterns: every STRIDE of
//! the coalescing experiment and every BANK of the bank-conflict experiment,
//! checked against the independent reference models in `common`.

mod common;

use characterize::metrics::memory_efficiency;
use characterize::{BankLayout, Protocol, bank_conflicts, coalesce};
use common::{LaneAccess, cc12_reference, gcd, listing1_index, sectors_reference};

const WARP: usize = 32;

fn to_array(accesses: &[LaneAccess]) -> (u32, [u64; WARP]) {
    let mut addrs = [0u64; WARP];
    let mut mask = 0u32;
    for &(l, a) in accesses {
        addrs[l] = a;
        mask |= 1 << l;
    }
    (mask, addrs)
}

/// Runs one warp request through both protocols and checks it against the references.
/// Returns (cc12 transactions, sector transactions, used bytes).
fn check_request(accesses: &[LaneAccess], size: u32) -> (u64, u64, u64) {
    let (mask, addrs) = to_array(accesses);
    let cc12 = coalesce(Protocol::HalfWarpCc12, mask, &addrs, size);
    let sec = coalesce(Protocol::Sectors, mask, &addrs, size);
    let (ref_t, ref_bytes) = cc12_reference(accesses, u64::from(size));
    let (ref_sectors, ref_used) = sectors_reference(accesses, u64::from(size));
    assert_eq!(
        (cc12.transactions, cc12.bytes_transferred),
        (ref_t, ref_bytes),
        "cc12 {accesses:?}"
    );
    assert_eq!(
        (sec.transactions, sec.bytes_used),
        (ref_sectors, ref_used),
        "sectors {accesses:?}"
    );
    assert_eq!(sec.bytes_transferred, 32 * ref_sectors);
    (cc12.transactions, sec.transactions, sec.bytes_used)
}

/// "Thread i reads element i*STRIDE of a float array", warps of a 128-thread block.
#[test]
fn strided_floats_every_stride() {
    for stride in 1..=32u64 {
        let (mut requests, mut cc12, mut sectors, mut used) = (0u64, 0u64, 0u64, 0u64);
        for warp in 0..4u64 {
            let accesses: Vec<LaneAccess> = (0..WARP)
                .map(|l| (l, 4 * (warp * 32 + l as u64) * stride))
                .collect();
            let (t, s, u) = check_request(&accesses, 4);
            requests += 1;
            cc12 += t;
            sectors += s;
            used += u;
            // Closed forms: a warp covers 128*stride bytes, one sector per lane
            // once lanes are 32 bytes apart.
            assert_eq!(s, (4 * stride).min(32), "sectors, stride {stride}");
            // Per half-warp: 64*stride bytes; one segment per lane from 128-byte spacing.
            // Lanes less than 128 bytes apart leave no segment between the
            // first and last untouched.
            let expected_cc12: u64 = (0..2)
                .map(|h| {
                    let first = 4 * stride * (warp * 32 + 16 * h);
                    let last = first + 4 * stride * 15;
                    if stride >= 32 {
                        16
                    } else {
                        last / 128 - first / 128 + 1
                    }
                })
                .sum();
            assert_eq!(t, expected_cc12, "cc12 transactions, stride {stride}");
        }
        assert_eq!(used, requests * 128);
        // Sector byte efficiency: 128 used bytes over min(32, 4*stride) sectors.
        let sector_eff = used as f64 / (32 * sectors) as f64;
        assert_eq!(sector_eff, 1.0 / stride.min(8) as f64, "stride {stride}");
        let eff = memory_efficiency(requests, cc12);
        let expected = 2.0 * requests as f64 / cc12 as f64;
        assert!((eff - expected).abs() < 1e-12);
        if stride == 1 {
            assert_eq!(eff, 1.0, "unit stride is fully coalesced");
        }
    }
}

/// Listing 1 itself: thread t of block b touches a[start + k*STRIDE].
#[test]
fn listing1_every_stride() {
    // The corpus spec (N = 4096: 8 elements per thread) and N = 16384 (32 per
    // thread, the case seed 000 section 4.1 describes for STRIDE = 1).
    for n in [4096u64, 16384] {
        listing1(n);
    }
}

fn listing1(n: u64) {
    let (grid, block) = (4u64, 128u64);
    let per = n / (grid * block);
    for stride in 1..=32u64 {
        let (mut requests, mut cc12, mut sectors) = (0u64, 0u64, 0u64);
        for b in 0..grid {
            for warp in 0..block / 32 {
                for k in 0..per {
                    let accesses: Vec<LaneAccess> = (0..WARP)
                        .filter_map(|l| {
                            let t = warp * 32 + l as u64;
                            listing1_index(stride, per, block, n, b, t, k).map(|i| (l, 4 * i))
                        })
                        .collect();
                    if accesses.is_empty() {
                        continue;
                    }
                    let (t, s, _) = check_request(&accesses, 4);
                    requests += 1;
                    cc12 += t;
                    sectors += s;
                }
            }
        }
        // Every thread has per iterations when STRIDE divides the block; the
        // experiment keeps the work independent of STRIDE.
        if block % stride == 0 {
            assert_eq!(requests, grid * block / 32 * per, "stride {stride}");
        }
        // Closed forms for strides dividing 32: groups of STRIDE consecutive floats,
        // groups 32*STRIDE bytes apart.
        if 32 % stride == 0 {
            let groups_per_warp = 32 / stride;
            let sectors_per_group = (4 * stride).div_ceil(32);
            assert_eq!(
                sectors,
                requests * groups_per_warp * sectors_per_group,
                "stride {stride}"
            );
        }
        if stride == 32 {
            assert_eq!(memory_efficiency(requests, cc12), 1.0);
        }
        if stride == 1 {
            // Lanes 4*per bytes apart: a half-warp spans 64*per bytes, every
            // 128-byte segment in it touched (in both halves: lanes are at most
            // 64 bytes apart when per < 32); at per = 32 one per lane, the "16
            // memory transactions for a half-warp" of seed 000 section 4.1.
            let per_half = if 4 * per >= 128 {
                16
            } else {
                (64 * per).div_ceil(128)
            };
            assert_eq!(cc12, requests * 2 * per_half, "n {n}");
            if per == 32 {
                assert_eq!(cc12, requests * 32);
            }
        }
    }
}

fn expected_ways(bank: u64, banks: u64, group: u64) -> u32 {
    if bank == 0 {
        return 1; // every lane on one word
    }
    let lanes_per_bank = gcd(bank, banks).min(group);
    let period = 512 / gcd(bank, 512); // lanes between repeats of a word
    let ways = if period >= group {
        lanes_per_bank
    } else {
        lanes_per_bank * period / group
    };
    ways as u32
}

/// Listing 2: thread t stores an int to S[(t*BANK) % 512].
#[test]
fn listing2_every_bank() {
    for bank in 0..=32u64 {
        for warp in 0..4u64 {
            let mut addrs = [0u64; WARP];
            for (l, a) in addrs.iter_mut().enumerate() {
                *a = 4 * (((warp * 32 + l as u64) * bank) % 512);
            }
            let w32 = bank_conflicts(BankLayout::WARP32, !0, &addrs, 4);
            assert_eq!(
                w32.ways,
                expected_ways(bank, 32, 32),
                "32 banks, BANK {bank}, warp {warp}"
            );
            let h16 = bank_conflicts(BankLayout::HALF_WARP16, !0, &addrs, 4);
            assert_eq!(
                h16.ways,
                expected_ways(bank, 16, 16),
                "16 banks, BANK {bank}, warp {warp}"
            );
            assert_eq!(h16.passes, 2 * h16.ways);
        }
    }
}
