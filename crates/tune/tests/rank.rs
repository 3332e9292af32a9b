//! Ranking, winners and the ground-truth metrics on small hand-made data.

use tune::{
    Bound, ModelTimes, RankBy, Winner, pick_metrics, rank, rank_models, ranked_times, shared_ranks,
    tie, tied_best, top_k, winners,
};

fn model(name: &str, times: &[Option<f64>]) -> ModelTimes {
    ModelTimes::estimates(name, times.to_vec())
}

fn check_rank(times: &[Option<f64>], expected: &[usize]) {
    assert_eq!(rank(times), expected, "{times:?}");
}

#[test]
fn ranking() {
    check_rank(&[Some(3.0), Some(1.0), Some(2.0)], &[1, 2, 0]);
    check_rank(&[Some(2.0), None, Some(1.0)], &[2, 0]);
    check_rank(&[Some(1.0), Some(1.0), Some(0.5)], &[2, 0, 1]);
    check_rank(&[Some(f64::NAN), Some(f64::INFINITY), Some(5.0)], &[2]);
    check_rank(&[], &[]);
    check_rank(&[None, None], &[]);
    assert_eq!(
        top_k(&[Some(4.0), Some(3.0), Some(2.0), Some(1.0)], 2),
        [3, 2]
    );
    assert_eq!(top_k(&[Some(4.0)], 10), [0]);
    let r = rank_models(&[model("a", &[Some(2.0), Some(1.0)]), model("b", &[])]);
    assert_eq!(r[0].order, [1, 0]);
    assert!(r[1].order.is_empty());
}

#[test]
fn disagreement() {
    let w = winners(&[
        model("roofline", &[Some(1.0), Some(2.0), Some(3.0)]),
        model("hong-kim", &[Some(2.0), Some(1.0), Some(3.0)]),
        model("mwp", &[Some(0.5), Some(2.0), Some(3.0)]),
        model("empty", &[None, None, None]),
    ]);
    assert_eq!(
        w.winners,
        [
            Winner {
                config: 0,
                models: vec!["roofline".into(), "mwp".into()],
                tied: vec![0],
            },
            Winner {
                config: 1,
                models: vec!["hong-kim".into()],
                tied: vec![1],
            },
        ]
    );
    assert_eq!(w.no_prediction, ["empty"]);
    assert!(w.disagree());
    let agree = winners(&[
        model("a", &[Some(1.0), Some(2.0)]),
        model("b", &[Some(3.0), Some(4.0)]),
    ]);
    assert!(!agree.disagree());
}

fn check_tie(a: f64, b: f64, expect: bool) {
    assert_eq!(tie(a, b), expect, "{a} ms and {b} ms");
    assert_eq!(tie(b, a), expect, "{b} ms and {a} ms");
}

#[test]
fn times_within_half_a_percent_or_printed_alike_tie() {
    check_tie(1.0, 1.0, true);
    check_tie(1.0, 1.004, true);
    check_tie(1.0, 1.005, true);
    check_tie(1.0, 1.006, false);
    check_tie(100.0, 100.4, true);
    check_tie(100.0, 101.0, false);
    // 7.35 us and 7.354 us: 0.05 % apart.
    check_tie(0.00735, 0.007354, true);
    // Printed alike though 4 % apart: 0.100 us and 0.104 us both print 0.10 us.
    check_tie(0.000_100, 0.000_104, true);
    check_tie(0.0050, 0.0051, false);
}

/// `times` ranked, then their shared ranks and the tie for first place.
fn check_ties(times: &[Option<f64>], ranks: &[usize], best: &[usize]) {
    let order = rank(times);
    assert_eq!(shared_ranks(times, &order), ranks, "{times:?}");
    assert_eq!(tied_best(times), best, "{times:?}");
}

#[test]
fn tied_configurations_share_a_rank() {
    // The quickstart's row sum: three block sizes at 7.35 us, one at 8.34.
    check_ties(
        &[Some(0.00834), Some(0.00735), Some(0.007352), Some(0.007351)],
        &[1, 1, 1, 4],
        &[1, 3, 2],
    );
    check_ties(&[Some(2.0), Some(1.0), Some(3.0)], &[1, 2, 3], &[1]);
    // A tie is measured from the first of its group: 1.000, 1.004 tie,
    // 1.008 is more than 0.5 % from 1.000 and starts a group of its own.
    check_ties(
        &[Some(1.0), Some(1.004), Some(1.008), Some(1.0085)],
        &[1, 1, 3, 3],
        &[0, 1],
    );
    check_ties(&[None, Some(f64::NAN)], &[], &[]);
}

#[test]
fn a_tie_for_first_place_is_one_winner_with_its_ties() {
    let w = winners(&[
        model("timing", &[Some(8.34), Some(7.35), Some(7.352)]),
        model("roofline", &[Some(8.0), Some(7.0), Some(7.5)]),
        model("mcm", &[Some(8.34), Some(7.35), Some(7.351)]),
    ]);
    assert_eq!(
        w.winners,
        [
            Winner {
                config: 1,
                models: vec!["timing".into(), "mcm".into()],
                tied: vec![1, 2],
            },
            Winner {
                config: 1,
                models: vec!["roofline".into()],
                tied: vec![1],
            },
        ]
    );
    assert!(w.winners[0].is_tie());
    assert!(!w.winners[1].is_tie());
}

/// (rank of measured best, its rank if in top k, pick, pick ratio).
fn check_metrics(
    predicted: &[Option<f64>],
    measured: &[Option<f64>],
    k: usize,
    expected: Option<(usize, Option<usize>, usize, f64)>,
) {
    let got = pick_metrics(&model("m", predicted), measured, k)
        .map(|m| (m.best_rank, m.best_rank_in_top_k, m.pick, m.pick_ratio));
    match (got, expected) {
        (Some(g), Some(e)) => {
            assert_eq!(
                (g.0, g.1, g.2),
                (e.0, e.1, e.2),
                "{predicted:?} {measured:?}"
            );
            assert!((g.3 - e.3).abs() < 1e-12, "{g:?} vs {e:?}");
        }
        (g, e) => assert_eq!(g.is_none(), e.is_none(), "{g:?} vs {e:?}"),
    }
}

#[test]
fn ground_truth_metrics() {
    let measured = [Some(10.0), Some(5.0), Some(8.0), Some(20.0)];
    // Perfect model.
    check_metrics(
        &[Some(1.0), Some(0.5), Some(0.8), Some(2.0)],
        &measured,
        10,
        Some((1, Some(1), 1, 1.0)),
    );
    // Picks config 2 (8.0 vs best 5.0); the best is its 3rd.
    check_metrics(
        &[Some(2.0), Some(3.0), Some(1.0), Some(9.0)],
        &measured,
        10,
        Some((3, Some(3), 2, 1.6)),
    );
    // Same, but only the top 2 count.
    check_metrics(
        &[Some(2.0), Some(3.0), Some(1.0), Some(9.0)],
        &measured,
        2,
        Some((3, None, 2, 1.6)),
    );
    // The model's favourite (3) failed on the GPU: only measured configs count.
    check_metrics(
        &[Some(2.0), Some(3.0), Some(4.0), Some(0.1)],
        &[Some(10.0), Some(5.0), Some(8.0), None],
        10,
        Some((2, Some(2), 0, 2.0)),
    );
    // The measured best has no prediction: the best among predicted counts.
    check_metrics(
        &[Some(1.0), None, Some(2.0), Some(3.0)],
        &measured,
        10,
        Some((2, Some(2), 0, 1.25)),
    );
    // Configs 1 and 2 tie for the first choice (0.2 % apart): the pick is
    // the faster, 2; the ratio is the tied pair's mean, (5 + 8) / 2 / 5.
    check_metrics(
        &[Some(2.0), Some(1.002), Some(1.0), Some(9.0)],
        &measured,
        10,
        Some((2, Some(2), 2, 1.3)),
    );
    // Nothing in common.
    check_metrics(&[Some(1.0), None], &[None, Some(1.0)], 10, None);
    check_metrics(&[], &[], 10, None);
    // A zero measured time cannot be divided by and is ignored.
    check_metrics(
        &[Some(1.0), Some(2.0)],
        &[Some(0.0), Some(3.0)],
        10,
        Some((1, Some(1), 1, 1.0)),
    );
}

#[test]
fn the_best_of_the_first_five_picks() {
    // Measured 7, 6, ..., 1 ms; the model ranks them in index order, so
    // its first five are measured 7 to 3: 3 over the best, 1.
    let measured: Vec<Option<f64>> = (0..7).map(|i| Some(7.0 - f64::from(i))).collect();
    let predicted: Vec<Option<f64>> = (0..7).map(|i| Some(1.0 + f64::from(i))).collect();
    let m = pick_metrics(&model("m", &predicted), &measured, 10);
    assert_eq!(
        m.as_ref().map(|m| m.best_of_first5_ratio),
        Some(3.0),
        "{m:?}"
    );
    // Configurations without a measurement are not among the five: the
    // model's first (unmeasured) is skipped, and the five are 6 to 2.
    let mut measured = measured;
    measured[0] = None;
    let m = pick_metrics(&model("m", &predicted), &measured, 10);
    assert_eq!(
        m.as_ref().map(|m| m.best_of_first5_ratio),
        Some(2.0),
        "{m:?}"
    );
}

/// `estimates` with `intervals` ranked `by`: the bound that ranked, the
/// order, and the winner (with its ties).
fn check_rank_by(
    estimates: &[Option<f64>],
    intervals: &[Option<[f64; 2]>],
    by: RankBy,
    bound: Bound,
    order: &[usize],
    best: &[usize],
) {
    let m = ranked_times("learned", estimates, intervals, by);
    let what = format!("{estimates:?} {intervals:?} by {by:?}");
    assert_eq!(m.bound, bound, "{what}");
    assert_eq!(rank(&m.times), order, "{what}");
    let w = winners(std::slice::from_ref(&m));
    assert_eq!(w.winners.len(), 1, "{what}");
    assert_eq!(w.winners[0].tied, best, "{what}");
}

#[test]
fn the_pessimistic_bound_ranks_by_the_upper_end_of_the_interval() {
    // Config 0 is the fastest estimate but the widest interval; config 1
    // is slower on the estimate and the safest bet.
    let estimates = [Some(1.0), Some(1.2), Some(1.5), None];
    let intervals = [
        Some([0.5, 3.0]),
        Some([1.1, 1.3]),
        Some([1.4, 1.6]),
        Some([0.1, 0.2]),
    ];
    check_rank_by(
        &estimates,
        &intervals,
        RankBy::Estimate,
        Bound::Estimate,
        &[0, 1, 2],
        &[0],
    );
    // Config 3 has an interval but no estimate (refused): never ranked.
    check_rank_by(
        &estimates,
        &intervals,
        RankBy::Pessimistic,
        Bound::Upper,
        &[1, 2, 0],
        &[1],
    );
    // Ties are taken on the bound that ranks: 1.3 and 1.302 tie.
    check_rank_by(
        &[Some(1.0), Some(1.2)],
        &[Some([0.9, 1.302]), Some([1.1, 1.3])],
        RankBy::Pessimistic,
        Bound::Upper,
        &[1, 0],
        &[1, 0],
    );
    // A model with no interval ranks by its estimate, and says so.
    check_rank_by(
        &[Some(2.0), Some(1.0)],
        &[None, None],
        RankBy::Pessimistic,
        Bound::Estimate,
        &[1, 0],
        &[1],
    );
    // A configuration without an interval ranks by its estimate.
    check_rank_by(
        &[Some(2.0), Some(1.0), Some(1.5)],
        &[Some([1.0, 4.0]), Some([0.5, 3.0]), None],
        RankBy::Pessimistic,
        Bound::Upper,
        &[2, 1, 0],
        &[2],
    );
}
