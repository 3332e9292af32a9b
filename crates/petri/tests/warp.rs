//! The generated warp net against Table 1 / §4 of seed 003, and its behaviour
//! on small cases whose step counts follow by hand from the arcs.

use petri::warp::{self, PLACES_PER_WARP, TRANSITIONS_PER_WARP};
use petri::{ArcKind, LatencyCounting, WarpCounts, WarpModelConfig};
use std::collections::BTreeSet;

fn config(n: usize, counts: WarpCounts, k: u32, counting: LatencyCounting) -> WarpModelConfig {
    WarpModelConfig {
        schedulers: k,
        latency_counting: counting,
        ..WarpModelConfig::uniform(n, counts)
    }
}

/// The arcs of warp `w` as (kind, place label, transition label, weight),
/// labels with the `.w<i>` suffix stripped.
fn warp_arcs(wnet: &petri::WarpNet, w: usize) -> BTreeSet<(ArcKind, String, String, u32)> {
    let suffix = format!(".w{w}");
    let net = &wnet.net;
    net.arcs()
        .iter()
        .filter(|a| {
            net.transitions()[a.transition.index()]
                .name
                .ends_with(&suffix)
        })
        .map(|a| {
            let strip = |s: &str| s.trim_end_matches(&suffix).to_string();
            (
                a.kind,
                strip(&net.places()[a.place.index()].name),
                strip(&net.transitions()[a.transition.index()].name),
                a.weight,
            )
        })
        .collect()
}

fn expected_arcs(
    counting: LatencyCounting,
    l1: u32,
    l2: u32,
) -> BTreeSet<(ArcKind, String, String, u32)> {
    use ArcKind::{Inhibitor as H, Input as I, Output as O};
    let mut v: Vec<(ArcKind, &str, &str, u32)> = vec![
        (I, "p0", "t1", 1),
        (I, "p2", "t1", 1),
        (I, "p4", "t1", 1),
        (I, "p1", "t1", 1),
        (O, "p1", "t1", 1),
        (O, "p11", "t1", 1),
        (I, "p3", "t2", 1),
        (I, "p5", "t2", 1),
        (O, "p4", "t2", 1),
        (O, "p6", "t2", 1),
        (I, "p3", "t3", 1),
        (I, "p7", "t3", 1),
        (O, "p4", "t3", 1),
        (O, "p8", "t3", 1),
        (I, "p3", "t4", 1),
        (I, "p9", "t4", 1),
        (O, "p4", "t4", 1),
        (O, "p10", "t4", 1),
        (I, "p11", "t7", 1),
        (I, "p6", "t7", 1),
        (O, "p12", "t7", 1),
        (I, "p12", "t15", 1),
        (O, "p0", "t15", 1),
        (O, "p2", "t15", 1),
        (O, "p3", "t15", 1),
        (I, "p11", "t6", 1),
        (I, "p8", "t6", 1),
        (O, "p13", "t6", 1),
        (I, "p15", "t14", 1),
        (O, "p0", "t14", 1),
        (O, "p2", "t14", 1),
        (O, "p3", "t14", 1),
        (I, "p11", "t5", 1),
        (I, "p10", "t5", 1),
        (O, "p0", "t5", 1),
        (O, "p16", "t5", 1),
        (I, "p18", "t11", 1),
        (O, "p2", "t11", 1),
        (O, "p3", "t11", 1),
        (I, "p1", "t16", 1),
        (I, "p2", "t16", 1),
        (I, "p3", "t16", 1),
        (H, "p5", "t16", 1),
        (H, "p7", "t16", 1),
        (H, "p9", "t16", 1),
        (I, "p14", "t13", 1),
        (H, "p13", "t13", 1),
        (I, "p17", "t10", 1),
        (H, "p16", "t10", 1),
        (I, "p13", "t12", 1),
        (O, "p15", "t12", 1),
        (I, "p16", "t9", 1),
        (O, "p18", "t9", 1),
        (I, "p13", "t17", 1),
        (O, "p13", "t17", 1),
        (I, "p16", "t8", 1),
        (O, "p16", "t8", 1),
    ];
    match counting {
        LatencyCounting::CountUp => {
            v.extend([
                (O, "p14", "t17", 1),
                (I, "p14", "t12", l2),
                (O, "p17", "t8", 1),
                (I, "p17", "t9", l1),
            ]);
        }
        LatencyCounting::Countdown => {
            v.extend([
                (O, "p14", "t6", l2),
                (I, "p14", "t17", 1),
                (H, "p14", "t12", 1),
                (O, "p17", "t5", l1),
                (I, "p17", "t8", 1),
                (H, "p17", "t9", 1),
            ]);
        }
    }
    v.into_iter()
        .map(|(k, p, t, w)| (k, p.to_string(), t.to_string(), w))
        .collect()
}

#[test]
fn sizes_follow_table_1() {
    for n in [1usize, 2, 7, 32] {
        let wnet =
            warp::build(&WarpModelConfig::uniform(n, WarpCounts::new(3, 2, 1))).expect("builds");
        assert_eq!(wnet.net.places().len(), 1 + PLACES_PER_WARP * n);
        assert_eq!(wnet.net.transitions().len(), 1 + TRANSITIONS_PER_WARP * n);
        assert_eq!((PLACES_PER_WARP, TRANSITIONS_PER_WARP), (18, 17));
        let per_warp: BTreeSet<String> = wnet
            .net
            .places()
            .iter()
            .filter_map(|p| p.name.strip_suffix(".w0").map(str::to_string))
            .collect();
        assert_eq!(per_warp, (1..=18).map(|k| format!("p{k}")).collect());
    }
}

#[test]
fn warp_part_arcs() {
    for counting in [LatencyCounting::CountUp, LatencyCounting::Countdown] {
        let mut cfg = config(3, WarpCounts::new(1, 1, 1), 2, counting);
        cfg.global_latency = 20;
        cfg.shared_latency = 2;
        let wnet = warp::build(&cfg).expect("builds");
        for w in 0..3 {
            assert_eq!(
                warp_arcs(&wnet, w),
                expected_arcs(counting, 20, 2),
                "{counting:?} warp {w}"
            );
        }
    }
}

#[test]
fn shared_parts_follow_section_4() {
    let wnet = warp::build(&config(
        4,
        WarpCounts::new(5, 6, 7),
        2,
        LatencyCounting::CountUp,
    ))
    .expect("builds");
    let net = &wnet.net;
    let m0 = net.initial_marking();
    assert_eq!(m0[wnet.sm.index()], 2, "p0 holds one token per scheduler");
    for w in &wnet.warps {
        assert_eq!(
            [m0[w.p(5).index()], m0[w.p(7).index()], m0[w.p(9).index()]],
            [5, 6, 7],
            "x_a, x_s, x_g in p5, p7, p9"
        );
    }
    // "each place corresponding to p2 [...] should be connected by an inhibitor arc with the transition t0"
    let inhibiting_t0: BTreeSet<usize> = net
        .arcs()
        .iter()
        .filter(|a| a.transition == wnet.waiting && a.kind == ArcKind::Inhibitor)
        .map(|a| a.place.index())
        .collect();
    assert_eq!(
        inhibiting_t0,
        wnet.warps.iter().map(|w| w.p(2).index()).collect()
    );
    // "each transition corresponding to t1 should be connected with the place p0 (SM). The same goes for t5, t14 and t15":
    // t1 takes the token, t5, t14 and t15 give it back, t0 is a loop on it; nothing else touches p0.
    let touching: BTreeSet<(ArcKind, String)> = net
        .arcs()
        .iter()
        .filter(|a| a.place == wnet.sm)
        .map(|a| {
            (
                a.kind,
                net.transitions()[a.transition.index()]
                    .name
                    .split('.')
                    .next()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    let expect: BTreeSet<(ArcKind, String)> = [
        (ArcKind::Input, "t0"),
        (ArcKind::Output, "t0"),
        (ArcKind::Input, "t1"),
        (ArcKind::Output, "t5"),
        (ArcKind::Output, "t14"),
        (ArcKind::Output, "t15"),
    ]
    .into_iter()
    .map(|(k, s)| (k, s.to_string()))
    .collect();
    assert_eq!(touching, expect);
}

/// One run's steps and idle steps.
fn check_single(
    counts: WarpCounts,
    k: u32,
    counting: LatencyCounting,
    l1: u32,
    l2: u32,
    steps: u64,
    idle: u64,
) {
    let mut cfg = config(1, counts, k, counting);
    cfg.global_latency = l1;
    cfg.shared_latency = l2;
    let report = warp::simulate(&cfg, 3, 1, None).expect("runs");
    for r in &report.runs {
        assert_eq!((r.steps, r.idle_steps), (steps, idle), "{counts:?} K={k}");
        assert_eq!(r.warp_finish, vec![steps]);
    }
}

#[test]
fn one_warp_step_counts_by_hand() {
    use LatencyCounting::Countdown as C;
    // No instruction: t16 fires at once.
    check_single(WarpCounts::new(0, 0, 0), 1, C, 20, 2, 1, 0);
    // Arithmetic: select, issue (t1), execute (t7), finish (t15): 4 steps each, then t16.
    for n in [1u32, 5, 40] {
        check_single(
            WarpCounts::new(n, 0, 0),
            1,
            C,
            20,
            2,
            4 * u64::from(n) + 1,
            0,
        );
        // A second scheduler idles (t0) while the only warp executes (2 steps each).
        check_single(
            WarpCounts::new(n, 0, 0),
            2,
            C,
            20,
            2,
            4 * u64::from(n) + 1,
            2 * u64::from(n),
        );
    }
    // Global: select, issue, t5 (SM freed), l1 ticks of t8, t9, t11: 5 + l1 steps;
    // the freed scheduler idles from the step after t5 until t11: l1 + 2 steps.
    for (n, l1) in [(1u32, 20u32), (3, 5), (2, 0)] {
        check_single(
            WarpCounts::new(0, 0, n),
            1,
            C,
            l1,
            2,
            u64::from(n) * (5 + u64::from(l1)) + 1,
            u64::from(n) * (u64::from(l1) + 2),
        );
    }
    // Shared: the SM is held until t14: 5 + l2 steps, never idle with K = 1.
    for (n, l2) in [(1u32, 2u32), (4, 7)] {
        check_single(
            WarpCounts::new(0, n, 0),
            1,
            C,
            20,
            l2,
            u64::from(n) * (5 + u64::from(l2)) + 1,
            0,
        );
    }
}

#[test]
fn count_up_latency_is_at_least_l_and_about_one_step_more() {
    let (n, l1) = (200u32, 10u32);
    let mut cfg = config(1, WarpCounts::new(0, 0, n), 1, LatencyCounting::CountUp);
    cfg.global_latency = l1;
    let report = warp::simulate(&cfg, 5, 3, None).expect("runs");
    let exact = u64::from(n) * (5 + u64::from(l1)) + 1;
    for r in &report.runs {
        assert!(r.steps > exact, "{} vs {exact}", r.steps);
        // One extra step per access on average (a fair coin per step after l1 ticks).
        let extra = (r.steps - exact) as f64 / f64::from(n);
        assert!((0.7..1.3).contains(&extra), "extra per access {extra}");
    }
}

#[test]
fn more_warps_hide_the_global_latency() {
    // §2 / Figure 1: waiting warps are hidden behind the computations of others.
    let counts = WarpCounts::new(60, 0, 20);
    let steps = |n: usize| {
        warp::simulate(
            &config(n, counts, 1, LatencyCounting::Countdown),
            4,
            7,
            None,
        )
        .expect("runs")
    };
    let one = steps(1);
    let eight = steps(8);
    // Eight warps do eight times the work in far less than eight times the steps.
    assert!(
        eight.mean_steps < 3.0 * one.mean_steps,
        "{} vs {}",
        eight.mean_steps,
        one.mean_steps
    );
    assert!(eight.mean_idle_steps < one.mean_idle_steps);
    assert_eq!(eight.mean_warp_finish.len(), 8);
    assert!(
        eight
            .mean_warp_finish
            .iter()
            .all(|&f| f <= eight.mean_steps)
    );
}

#[test]
fn every_warp_executes_all_its_instructions() {
    let mut cfg = WarpModelConfig::uniform(5, WarpCounts::new(7, 3, 4));
    cfg.warps[2] = WarpCounts::new(1, 0, 9);
    let wnet = warp::build(&cfg).expect("builds");
    let run = warp::simulate_once(&wnet, 99, warp::default_budget(&cfg)).expect("runs");
    assert_eq!(run.steps, *run.warp_finish.iter().max().unwrap_or(&0));
    // Re-run with a simulator to read the firing counters.
    let mut sim = petri::Simulator::new(&wnet.net, 99);
    while sim.steps() < run.steps {
        sim.step().expect("ok");
    }
    for (w, counts) in wnet.warps.iter().zip(&cfg.warps) {
        let f = |k: usize| sim.firings()[w.t(k).index()];
        assert_eq!(
            [f(7), f(6), f(5)],
            [
                u64::from(counts.arithmetic),
                u64::from(counts.shared),
                u64::from(counts.global)
            ]
        );
        assert_eq!(f(1), counts.total());
        assert_eq!(f(16), 1);
    }
}

#[test]
fn same_seed_same_numbers() {
    let cfg = WarpModelConfig::uniform(6, WarpCounts::new(30, 5, 5));
    let a = warp::simulate(&cfg, 4, 12345, None).expect("runs");
    let b = warp::simulate(&cfg, 4, 12345, None).expect("runs");
    assert_eq!(a, b);
    let c = warp::simulate(&cfg, 4, 54321, None).expect("runs");
    assert_ne!(a.runs, c.runs);
}

#[test]
fn bad_configurations_are_errors() {
    assert!(warp::build(&WarpModelConfig::uniform(0, WarpCounts::default())).is_err());
    let mut cfg = WarpModelConfig::uniform(1, WarpCounts::new(1, 0, 0));
    cfg.schedulers = 0;
    assert!(warp::build(&cfg).is_err());
    assert!(
        warp::simulate(
            &WarpModelConfig::uniform(1, WarpCounts::new(1, 0, 0)),
            0,
            0,
            None
        )
        .is_err()
    );
    let too_small = warp::simulate(
        &WarpModelConfig::uniform(2, WarpCounts::new(100, 0, 0)),
        1,
        0,
        Some(10),
    );
    assert!(matches!(
        too_small,
        Err(petri::WarpError::Budget { budget: 10 })
    ));
}
