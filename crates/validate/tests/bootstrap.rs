//! Bootstrap intervals of the accuracy figures: known samples, degenerate
//! sets, and the same intervals on any number of threads.

use validate::bootstrap::{Bootstrap, BootstrapError, Interval, Intervals, intervals};
use validate::score::{ModelScore, intervals as score_intervals};

/// The figures' intervals as (lo, hi) pairs, in the order MAPE, median APE,
/// median pred/meas, Spearman, Kendall, best ratio.
type Expect = [Option<(f64, f64)>; 6];

fn pairs(i: &Intervals) -> [Option<(f64, f64)>; 6] {
    [
        i.mape,
        i.median_ape,
        i.median_ratio,
        i.spearman,
        i.kendall,
        i.best_ratio,
    ]
    .map(|v| v.map(|Interval { lo, hi }| (lo, hi)))
}

/// Each interval within `tol` of the expected one (None: none drawn).
#[track_caller]
fn check(points: &[(f64, f64)], expect: Expect, tol: f64) {
    let got = intervals(points, &Bootstrap::default()).unwrap_or_else(|e| panic!("{e}"));
    for (k, (g, e)) in pairs(&got).iter().zip(expect).enumerate() {
        match (g, e) {
            (Some((gl, gh)), Some((el, eh))) => assert!(
                (gl - el).abs() <= tol && (gh - eh).abs() <= tol && gl <= gh,
                "figure {k}: [{gl}, {gh}], expected [{el}, {eh}] +- {tol}"
            ),
            (None, None) => {}
            _ => panic!("figure {k}: {g:?}, expected {e:?}; notes {:?}", got.notes),
        }
    }
}

fn exact(n: usize, factor: f64) -> Vec<(f64, f64)> {
    (1..=n).map(|t| (factor * t as f64, t as f64)).collect()
}

#[test]
fn an_exact_or_scaled_prediction_has_point_intervals() {
    let one = Some((1.0, 1.0));
    check(
        &exact(20, 1.0),
        [Some((0.0, 0.0)), Some((0.0, 0.0)), one, one, one, one],
        1e-12,
    );
    // Twice the measured time everywhere: 100 % error on every resample.
    check(
        &exact(20, 2.0),
        [
            Some((100.0, 100.0)),
            Some((100.0, 100.0)),
            Some((2.0, 2.0)),
            one,
            one,
            one,
        ],
        1e-12,
    );
}

/// Half the configurations 10 % off, half 30 % off: the MAPE of a resample
/// of n is 20 % +- 10 % / sqrt(n) (one standard deviation), so its 90 %
/// interval is about 20 +- 1.645 * 10 / sqrt(n): [18.36, 21.64] for n = 100.
/// The median APE's is [10, 30]: half the resamples have more 10 % than 30 %
/// errors.
#[test]
fn the_mape_interval_of_a_known_sample_is_the_normal_one() {
    let points: Vec<(f64, f64)> = (1..=100)
        .map(|t| {
            let m = t as f64;
            let err = if t % 2 == 0 { 1.1 } else { 1.3 };
            (err * m, m)
        })
        .collect();
    let got = intervals(&points, &Bootstrap::default()).unwrap_or_else(|e| panic!("{e}"));
    let Some(Interval { lo, hi }) = got.mape else {
        panic!("no MAPE interval: {:?}", got.notes);
    };
    let half = 1.645 * 10.0 / 10.0;
    assert!((lo - (20.0 - half)).abs() < 0.25, "MAPE [{lo}, {hi}]");
    assert!((hi - (20.0 + half)).abs() < 0.25, "MAPE [{lo}, {hi}]");
    let median = got.median_ape.map(|i| (i.lo, i.hi));
    assert!(
        median.is_some_and(|(lo, hi)| (lo - 10.0).abs() < 1e-9 && (hi - 30.0).abs() < 1e-9),
        "median APE {median:?}"
    );
}

#[test]
fn one_or_two_configurations_give_no_interval() {
    for n in [0, 1, 2] {
        let points = exact(n, 1.5);
        assert_eq!(
            intervals(&points, &Bootstrap::default()),
            Err(BootstrapError::TooFew(n))
        );
        let score = ModelScore {
            points,
            ..ModelScore::default()
        };
        let i = score_intervals(&score, &Bootstrap::default());
        assert_eq!(pairs(&i), [None; 6]);
        assert_eq!(i.notes.len(), 1, "{:?}", i.notes);
        assert!(i.notes[0].contains("at least 3"), "{:?}", i.notes);
    }
}

/// Three configurations: a resample repeats one configuration thrice in
/// 3 of 27 draws, where a rank correlation is undefined; more than 5 % of
/// resamples, so no rank interval, and a note says so. MAPE has one.
#[test]
fn three_configurations_give_intervals_where_defined() {
    let points = [(1.0, 1.0), (3.0, 2.0), (2.0, 4.0)];
    let got = intervals(&points, &Bootstrap::default()).unwrap_or_else(|e| panic!("{e}"));
    // Errors 0, 50 and 50 %: a resample's MAPE lies in [0, 50].
    let mape = got.mape.map(|i| (i.lo, i.hi));
    assert!(
        mape.is_some_and(|(lo, hi)| (0.0..=50.0).contains(&lo) && lo < hi && hi <= 50.0),
        "{mape:?}"
    );
    assert_eq!(got.spearman, None);
    assert_eq!(got.kendall, None);
    assert!(
        got.notes
            .iter()
            .any(|n| n.starts_with("Spearman: no interval, undefined on")),
        "{:?}",
        got.notes
    );
}

#[test]
fn bad_settings_are_errors() {
    let points = exact(10, 1.0);
    let how = |resamples, confidence| Bootstrap {
        resamples,
        seed: 1,
        confidence,
    };
    assert_eq!(
        intervals(&points, &how(0, 0.9)),
        Err(BootstrapError::NoResamples)
    );
    assert_eq!(
        intervals(&points, &how(10, 1.0)),
        Err(BootstrapError::BadConfidence(1.0))
    );
    assert!(matches!(
        intervals(&[(1.0, 0.0), (1.0, 1.0), (2.0, 2.0)], &how(10, 0.9)),
        Err(BootstrapError::Stats(_))
    ));
}

/// Scattered points, as a real model gives them.
fn scattered(n: usize) -> Vec<(f64, f64)> {
    let mut rng = prng::Rng::new(11);
    (0..n)
        .map(|_| {
            let m = 0.1 + 10.0 * rng.next_f64();
            (m * (0.5 + rng.next_f64()), m)
        })
        .collect()
}

#[test]
fn intervals_do_not_depend_on_the_thread_count() {
    let points = scattered(300);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("{e}"))
            .install(|| intervals(&points, &Bootstrap::default()))
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one, run(8));
    // Another seed draws other resamples.
    let other = intervals(
        &points,
        &Bootstrap {
            seed: 2,
            ..Bootstrap::default()
        },
    );
    assert_ne!(one, other);
    // Every interval holds the figure of the whole sample here.
    let Ok(one) = one else { panic!("{one:?}") };
    let (p, m): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
    let whole = [
        validate::stats::mape(&p, &m),
        validate::stats::median_ape(&p, &m),
        validate::stats::median_ratio(&p, &m),
        validate::stats::spearman(&p, &m),
        validate::stats::kendall_tau_b(&p, &m),
    ];
    for (k, (i, w)) in pairs(&one).iter().zip(whole).enumerate() {
        let (Some((lo, hi)), Ok(w)) = (i, &w) else {
            panic!("figure {k}: {i:?}, {w:?}")
        };
        assert!(lo <= w && w <= hi, "figure {k}: {w} not in [{lo}, {hi}]");
    }
}
