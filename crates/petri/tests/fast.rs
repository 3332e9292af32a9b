//! The specialised warp executor against the general engine: identical step
//! counts, idle steps, finishing steps and firing counts of every transition,
//! over many random configurations and seeds (both latency wirings, latencies
//! including 0, warps with some kinds absent, one or several schedulers).

use petri::warp;
use petri::{LatencyCounting, Rng, WarpCounts, WarpModelConfig};

/// Run both executors on `cfg` with `seed` and compare everything they report.
fn check_same(cfg: &WarpModelConfig, seed: u64) {
    let wnet = warp::build(cfg).expect("valid configuration");
    let budget = warp::default_budget(cfg);
    let reference = warp::simulate_once_reference(&wnet, seed, budget).expect("reference runs");
    let fast = warp::simulate_once(&wnet, seed, budget).expect("fast path runs");
    assert_eq!(fast.steps, reference.steps, "steps, seed {seed}, {cfg:?}");
    assert_eq!(
        fast.idle_steps, reference.idle_steps,
        "idle, seed {seed}, {cfg:?}"
    );
    assert_eq!(
        fast.warp_finish, reference.warp_finish,
        "finish, seed {seed}, {cfg:?}"
    );
    assert_eq!(
        fast.firings, reference.firings,
        "firings, seed {seed}, {cfg:?}"
    );
    assert_eq!(fast, reference);
}

/// A random configuration: 1-12 warps with 0-40 instructions of each kind
/// (each kind absent with probability 1/4), 1-4 schedulers, latencies 0-25.
fn random_config(rng: &mut Rng) -> WarpModelConfig {
    let count = |rng: &mut Rng| {
        if rng.below(4) == 0 { 0 } else { rng.below(41) }
    };
    let n = 1 + rng.below(12) as usize;
    let warps = (0..n)
        .map(|_| WarpCounts::new(count(rng), count(rng), count(rng)))
        .collect();
    WarpModelConfig {
        warps,
        schedulers: 1 + rng.below(4),
        global_latency: rng.below(26),
        shared_latency: rng.below(6),
        latency_counting: if rng.below(2) == 0 {
            LatencyCounting::CountUp
        } else {
            LatencyCounting::Countdown
        },
    }
}

#[test]
fn fast_path_matches_general_engine_on_random_configurations() {
    let mut rng = Rng::new(2024);
    for case in 0..300u64 {
        let cfg = random_config(&mut rng);
        check_same(&cfg, case);
        check_same(&cfg, case.wrapping_mul(0x9E37_79B9) ^ 0xABCD);
    }
}

#[test]
fn fast_path_matches_general_engine_on_edge_configurations() {
    let uniform = |n, c: WarpCounts, k, l1, l2, counting| WarpModelConfig {
        schedulers: k,
        global_latency: l1,
        shared_latency: l2,
        latency_counting: counting,
        ..WarpModelConfig::uniform(n, c)
    };
    for counting in [LatencyCounting::CountUp, LatencyCounting::Countdown] {
        for seed in 0..5 {
            // A warp with nothing to do terminates in the first step.
            check_same(
                &uniform(3, WarpCounts::new(0, 0, 0), 4, 20, 2, counting),
                seed,
            );
            // Global only, many warps on one scheduler: the SM is the bottleneck.
            check_same(
                &uniform(40, WarpCounts::new(0, 0, 30), 1, 20, 2, counting),
                seed,
            );
            // More schedulers than warps: nobody waits for the SM.
            check_same(
                &uniform(3, WarpCounts::new(20, 20, 20), 8, 7, 3, counting),
                seed,
            );
            // Zero latencies.
            check_same(
                &uniform(6, WarpCounts::new(5, 25, 25), 2, 0, 0, counting),
                seed,
            );
            // A long latency with all kinds.
            check_same(
                &uniform(16, WarpCounts::new(50, 10, 10), 4, 400, 30, counting),
                seed,
            );
        }
    }
}

#[test]
fn fast_path_reports_the_same_budget_error() {
    let cfg = WarpModelConfig::uniform(4, WarpCounts::new(10, 10, 10));
    let wnet = warp::build(&cfg).expect("valid");
    for budget in [1, 10, 50] {
        let a = warp::simulate_once_reference(&wnet, 3, budget);
        let b = warp::simulate_once(&wnet, 3, budget);
        assert_eq!(a, b, "budget {budget}");
        assert!(b.is_err());
    }
}
