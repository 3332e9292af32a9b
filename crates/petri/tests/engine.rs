//! The engine on classic nets whose behaviour is known, and a randomized
//! cross-check of the incremental step against a direct reading of §3's definitions.

use petri::{ArcKind, Net, NetBuilder, Rng, Simulator, StopReason, TransitionId};

fn named(net: &Net, name: &str) -> TransitionId {
    net.transition_named(name)
        .unwrap_or_else(|| panic!("no transition {name}"))
}

/// Run to a dead marking (within `budget`) and compare the step count and the
/// final marking of the named places.
fn check_run(net: &Net, seed: u64, budget: u64, steps: u64, places: &[(&str, u32)]) {
    let mut sim = Simulator::new(net, seed);
    assert_eq!(sim.run(budget).expect("no overflow"), StopReason::Dead);
    assert_eq!(sim.steps(), steps, "steps of {}", net.name());
    for &(name, tokens) in places {
        let p = net.place_named(name).expect("place exists");
        assert_eq!(sim.tokens(p), tokens, "tokens in {name}");
    }
}

fn mutex() -> Net {
    let mut b = NetBuilder::new("mutex");
    let m = b.place("mutex", 1);
    for i in 1..=2 {
        let idle = b.place(format!("idle{i}"), 1);
        let crit = b.place(format!("critical{i}"), 0);
        let enter = b.transition(format!("enter{i}"));
        let leave = b.transition(format!("leave{i}"));
        b.input(idle, enter, 1)
            .input(m, enter, 1)
            .output(enter, crit, 1);
        b.input(crit, leave, 1)
            .output(leave, idle, 1)
            .output(leave, m, 1);
    }
    b.build().expect("valid")
}

#[test]
fn mutual_exclusion_holds_and_alternates_enter_and_leave() {
    let net = mutex();
    let (c1, c2, m) = (
        net.place_named("critical1").unwrap(),
        net.place_named("critical2").unwrap(),
        net.place_named("mutex").unwrap(),
    );
    let mut sim = Simulator::new(&net, 11);
    for step in 1..=1000u64 {
        assert!(sim.step().expect("ok"), "never dead");
        // Exactly one transition per step: the two enters conflict on the
        // mutex, and a leave returns it only at the end of its step.
        assert_eq!(sim.last_fired().len(), 1);
        assert_eq!(
            sim.tokens(c1) + sim.tokens(c2) + sim.tokens(m),
            1,
            "step {step}"
        );
    }
    let f = sim.firings();
    let enters = f[named(&net, "enter1").index()] + f[named(&net, "enter2").index()];
    let leaves = f[named(&net, "leave1").index()] + f[named(&net, "leave2").index()];
    assert_eq!((enters, leaves), (500, 500));
    // The random permutation lets both processes in.
    assert!(
        f[named(&net, "enter1").index()] > 100 && f[named(&net, "enter2").index()] > 100,
        "{f:?}"
    );
}

/// Producer-consumer with a buffer of `slots` places (complement place
/// `empty`), a producer that puts `batch` items per firing and `batches` batches.
fn producer_consumer(slots: u32, batch: u32, batches: u32) -> Net {
    let mut b = NetBuilder::new("producer-consumer");
    let todo = b.place("todo", batches);
    let empty = b.place("empty", slots);
    let full = b.place("full", 0);
    let done = b.place("done", 0);
    let produce = b.transition("produce");
    let consume = b.transition("consume");
    b.input(todo, produce, 1)
        .input(empty, produce, batch)
        .output(produce, full, batch);
    b.input(full, consume, 1)
        .output(consume, empty, 1)
        .output(consume, done, 1);
    b.build().expect("valid")
}

#[test]
fn producer_consumer_step_counts_under_maximal_concurrency() {
    // One slot: the consumer frees it only at the end of its step, so
    // producer and consumer alternate: 2K steps.
    check_run(
        &producer_consumer(1, 1, 5),
        0,
        100,
        10,
        &[("done", 5), ("empty", 1), ("full", 0)],
    );
    // Enough slots: produce in steps 1..=K, consume in steps 2..=K+1.
    check_run(
        &producer_consumer(4, 1, 5),
        0,
        100,
        6,
        &[("done", 5), ("empty", 4)],
    );
    // Batches of 2 into 3 slots: P, C, P+C, C, P+C, C, C (traced by hand).
    check_run(
        &producer_consumer(3, 2, 3),
        0,
        100,
        7,
        &[("done", 6), ("empty", 3), ("todo", 0)],
    );
    // A batch larger than the buffer never fits: dead at once.
    check_run(
        &producer_consumer(1, 2, 3),
        0,
        100,
        0,
        &[("done", 0), ("todo", 3)],
    );
}

#[test]
fn the_buffer_never_overflows() {
    let net = producer_consumer(3, 2, 50);
    let full = net.place_named("full").unwrap();
    let empty = net.place_named("empty").unwrap();
    let mut sim = Simulator::new(&net, 5);
    while sim.step().expect("ok") {
        assert!(sim.tokens(full) <= 3);
        assert_eq!(sim.tokens(full) + sim.tokens(empty), 3);
    }
    assert_eq!(sim.tokens(net.place_named("done").unwrap()), 100);
}

#[test]
fn inhibitor_guard_waits_for_the_counter_to_empty() {
    for n in [0u32, 1, 3, 10] {
        let mut b = NetBuilder::new("countdown");
        let count = b.place("count", n);
        let start = b.place("start", 1);
        let finished = b.place("finished", 0);
        let dec = b.transition("dec");
        let done = b.transition("done");
        b.input(count, dec, 1)
            .input(start, done, 1)
            .output(done, finished, 1)
            .inhibitor(count, done);
        let net = b.build().expect("valid");
        // `dec` fires once per step; `done` sees the empty counter only at the
        // start of the next step (inhibitors test the marking before the step).
        check_run(
            &net,
            3,
            100,
            u64::from(n) + 1,
            &[("finished", 1), ("count", 0)],
        );
    }
}

#[test]
fn capacity_blocks_a_source_transition() {
    let mut b = NetBuilder::new("cap");
    let p = b.place_with_capacity("p", 0, Some(3));
    let gen_t = b.transition("gen");
    b.output(gen_t, p, 1);
    let net = b.build().expect("valid");
    check_run(&net, 0, 100, 3, &[("p", 3)]);

    // With a consumer and capacity 1, producer and consumer alternate: the
    // producer is enabled only when its single firing fits.
    let mut b = NetBuilder::new("cap-alt");
    let p = b.place_with_capacity("p", 0, Some(1));
    let gen_t = b.transition("gen");
    let eat = b.transition("eat");
    b.output(gen_t, p, 1).input(p, eat, 1);
    let net = b.build().expect("valid");
    let mut sim = Simulator::new(&net, 0);
    assert_eq!(sim.run(10).expect("ok"), StopReason::Budget);
    assert_eq!(sim.firings(), &[5, 5]);
}

#[test]
fn dead_marking_is_detected_without_stepping() {
    let mut b = NetBuilder::new("dead");
    let p = b.place("p", 1);
    let t = b.transition("t");
    b.input(p, t, 2);
    let net = b.build().expect("valid");
    let mut sim = Simulator::new(&net, 0);
    assert!(sim.is_dead());
    assert!(!sim.step().expect("ok"));
    assert_eq!(sim.steps(), 0);
    assert!(sim.fire(t).is_err());
}

#[test]
fn independent_chains_run_in_parallel() {
    // Chains of 2, 5 and 3 transitions: maximal concurrency runs them side by
    // side, so the run takes as many steps as the longest chain.
    let mut b = NetBuilder::new("chains");
    for (c, len) in [2u32, 5, 3].into_iter().enumerate() {
        let mut prev = b.place(format!("c{c}p0"), 1);
        for k in 0..len {
            let t = b.transition(format!("c{c}t{k}"));
            let next = b.place(format!("c{c}p{}", k + 1), 0);
            b.input(prev, t, 1).output(t, next, 1);
            prev = next;
        }
    }
    let net = b.build().expect("valid");
    check_run(&net, 0, 100, 5, &[("c0p2", 1), ("c1p5", 1), ("c2p3", 1)]);
}

#[test]
fn single_firing_follows_the_interleaving_semantics() {
    let net = mutex();
    let mut sim = Simulator::new(&net, 0);
    let (e1, e2, l1) = (
        named(&net, "enter1"),
        named(&net, "enter2"),
        named(&net, "leave1"),
    );
    assert_eq!(sim.enabled(), vec![e1, e2]);
    sim.fire(e1).expect("enabled");
    assert!(!sim.is_enabled(e2));
    assert!(sim.fire(e2).is_err());
    sim.fire(l1).expect("enabled");
    assert_eq!(sim.enabled(), vec![e1, e2]);
    assert_eq!(sim.steps(), 2);
}

#[test]
fn conflicts_are_resolved_at_random_but_reproducibly() {
    let mut b = NetBuilder::new("race");
    let token = b.place("token", 1);
    for i in 0..3 {
        let t = b.transition(format!("t{i}"));
        let won = b.place(format!("won{i}"), 0);
        b.input(token, t, 1).output(t, won, 1);
    }
    let net = b.build().expect("valid");
    let winner = |seed| {
        let mut sim = Simulator::new(&net, seed);
        sim.step().expect("ok");
        assert_eq!(sim.last_fired().len(), 1);
        sim.last_fired()[0].index()
    };
    let mut wins = [0u32; 3];
    for seed in 0..300 {
        let w = winner(seed);
        assert_eq!(w, winner(seed), "same seed, same winner");
        wins[w] += 1;
    }
    assert!(wins.iter().all(|&w| w > 60), "{wins:?}");
}

/// A random net of `np` places and `nt` transitions, some inhibitor arcs and capacities.
fn random_net(rng: &mut Rng, np: u32, nt: u32, capacities: bool, hub_fanout: usize) -> Net {
    let mut b = NetBuilder::new("random");
    b.hub_fanout(hub_fanout);
    let places: Vec<_> = (0..np)
        .map(|i| {
            let cap = (capacities && rng.below(3) == 0).then(|| 2 + rng.below(4));
            let init = rng.below(cap.map_or(4, |c| c + 1));
            b.place_with_capacity(format!("p{i}"), init, cap)
        })
        .collect();
    for i in 0..nt {
        let t = b.transition(format!("t{i}"));
        let mut used = std::collections::HashSet::new();
        for _ in 0..1 + rng.below(3) {
            let p = places[rng.below(np) as usize];
            let kind = match rng.below(6) {
                0 => ArcKind::Inhibitor,
                1 | 2 => ArcKind::Output,
                _ => ArcKind::Input,
            };
            if !used.insert((kind, p)) {
                continue;
            }
            let w = 1 + rng.below(2);
            match kind {
                ArcKind::Input => b.input(p, t, w),
                ArcKind::Output => b.output(t, p, w),
                ArcKind::Inhibitor => b.inhibitor(p, t),
            };
        }
        let out = places[rng.below(np) as usize];
        if used.insert((ArcKind::Output, out)) {
            b.output(t, out, 1);
        }
    }
    b.build().expect("valid random net")
}

#[test]
fn every_step_is_an_enabled_maximal_step_and_the_bookkeeping_matches() {
    let mut gen_rng = Rng::new(2024);
    for case in 0..600u64 {
        let capacities = case % 3 == 0;
        let (np, nt) = (2 + gen_rng.below(8), 1 + gen_rng.below(10));
        // Every fourth case treats every place as a hub (all input arcs checked at draw time).
        let hub_fanout = if case % 4 == 1 { 0 } else { 2 };
        let net = random_net(&mut gen_rng, np, nt, capacities, hub_fanout);
        let mut sim = Simulator::new(&net, case);
        for _ in 0..40 {
            let before = sim.marking().to_vec();
            let direct: Vec<TransitionId> = (0..net.transitions().len())
                .map(|i| net.transition_named(&format!("t{i}")).unwrap())
                .filter(|&t| net.is_enabled_at(&before, t))
                .collect();
            assert_eq!(
                sim.enabled(),
                direct,
                "case {case}: incremental enabled set"
            );
            match sim.step() {
                Ok(true) => {}
                Ok(false) => {
                    assert!(direct.is_empty());
                    break;
                }
                Err(_) => break,
            }
            let fired = sim.last_fired().to_vec();
            assert!(!fired.is_empty());
            assert!(
                net.is_step_enabled_at(&before, &fired),
                "case {case}: step {fired:?} at {before:?}"
            );
            // Maximality (§3): no other enabled transition can join the step.
            // With capacities the greedy check is not maximal in general, so
            // only the no-capacity nets are held to it.
            if !capacities {
                for &t in &direct {
                    if !fired.contains(&t) {
                        let mut more = fired.clone();
                        more.push(t);
                        assert!(
                            !net.is_step_enabled_at(&before, &more),
                            "case {case}: {t:?} could join {fired:?}"
                        );
                    }
                }
            }
            // M' = M - sum of entries + sum of exits.
            let mut expect: Vec<i64> = before.iter().map(|&m| i64::from(m)).collect();
            for a in net.arcs() {
                if fired.contains(&a.transition) {
                    match a.kind {
                        ArcKind::Input => expect[a.place.index()] -= i64::from(a.weight),
                        ArcKind::Output => expect[a.place.index()] += i64::from(a.weight),
                        ArcKind::Inhibitor => {}
                    }
                }
            }
            let got: Vec<i64> = sim.marking().iter().map(|&m| i64::from(m)).collect();
            assert_eq!(got, expect, "case {case}");
        }
    }
}

#[test]
fn same_seed_same_run() {
    let net = producer_consumer(3, 2, 40);
    let trace = |seed| {
        let mut sim = Simulator::new(&net, seed);
        let mut out = Vec::new();
        while sim.step().expect("ok") {
            out.push(sim.last_fired().to_vec());
        }
        out
    };
    assert_eq!(trace(9), trace(9));
}
