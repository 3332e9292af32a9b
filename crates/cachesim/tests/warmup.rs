//! The warm-up replay of CTAs that precede the simulated ones
//! (`simulate_warmed`): replayed whole before the simulation when their data
//! fits in L2, or a little ahead of it when it does not.

mod common;

use cachesim::{Kind::*, Path::*, Warmup, simulate_warmed};
use common::{launch, small, trace};

/// L2 hits and misses of CTA 1, which reads `n` sectors one request at a
/// time, after CTA 0, which read the same sectors the same way, is replayed
/// `lead` ahead (the small configuration's L2 holds 128 sectors; CTA 1's
/// own L1 is cold either way).
fn l2_of_the_sampled_cta(n: u64, lead: f64) -> (u64, u64) {
    let sectors: Vec<Vec<u64>> = (0..n).map(|i| vec![32 * i]).collect();
    let reqs = |cta: u32| -> Vec<common::Req<'_>> {
        sectors
            .iter()
            .map(|s| (cta, 0, Load, Global, s.as_slice()))
            .collect()
    };
    let neighbour = trace(&reqs(0));
    let sampled = trace(&reqs(1));
    let keep = |_: u32| true;
    let warm = Warmup {
        trace: &neighbour,
        keep: &keep,
        lead,
    };
    let r = simulate_warmed(&small(), &launch(2, 1, 1), &sampled, Some(warm)).unwrap();
    (r.total.l2.hits, r.total.l2.misses)
}

#[test]
fn a_neighbour_that_fits_is_replayed_whole_and_hits() {
    // 64 sectors: half of L2; replayed before or alongside, every read hits.
    assert_eq!(l2_of_the_sampled_cta(64, 1.0), (64, 0));
    assert_eq!(l2_of_the_sampled_cta(64, 0.1), (64, 0));
}

#[test]
fn a_neighbour_larger_than_l2_hits_only_when_replayed_alongside() {
    // 512 sectors: four times L2. Replayed whole first, its first sectors are
    // gone when the sampled CTA reads them and each read pushes out the next
    // one it needs (LRU): nothing hits. Replayed a little ahead, all do.
    assert_eq!(l2_of_the_sampled_cta(512, 1.0), (0, 512));
    assert_eq!(l2_of_the_sampled_cta(512, 0.1), (512, 0));
}
