//! The transferred-best baseline on small made-up spaces: the other GPU's
//! fastest configuration, what is passed over when it is not in the set,
//! and the mismatches that are errors.

use validate::transfer::{PassedOver, TransferError, transferred_best};
use validate::{Dataset, FailReason, Measured, ParamValue, Row, Timing};

fn time(ms: f64) -> Measured {
    Measured::Time(Timing {
        mean_ms: ms,
        median_ms: None,
        min_ms: None,
        std_ms: None,
        n: None,
        drift: None,
    })
}

/// A space over parameters `params`; each row is (values, time or None for failed).
fn dataset(gpu: &str, kernel: &str, params: &[&str], rows: &[(&[i64], Option<f64>)]) -> Dataset {
    Dataset {
        gpu: gpu.to_string(),
        kernel: kernel.to_string(),
        problem_size: None,
        params: params.iter().map(|p| p.to_string()).collect(),
        rows: rows
            .iter()
            .map(|(v, t)| Row {
                values: v.iter().map(|&x| ParamValue::Int(x)).collect(),
                measured: t.map_or(Measured::Failed(FailReason::Runtime), time),
            })
            .collect(),
        compiler: None,
    }
}

/// This GPU: four configurations of (a, b), the best (2, 1) at 1 ms.
fn here() -> Dataset {
    dataset(
        "here",
        "k",
        &["a", "b"],
        &[
            (&[1, 1], Some(2.0)),
            (&[2, 1], Some(1.0)),
            (&[1, 2], Some(4.0)),
            (&[2, 2], None),
        ],
    )
}

/// The other GPU, its columns in the other order (b, a): fastest first
/// (a, b) = (3, 3) (absent here), (2, 2) (failed here), (1, 2), (1, 1), (2, 1).
fn there() -> Dataset {
    dataset(
        "there",
        "k",
        &["b", "a"],
        &[
            (&[1, 2], Some(5.0)),
            (&[3, 3], Some(0.5)),
            (&[2, 2], Some(0.6)),
            (&[2, 1], Some(0.7)),
            (&[1, 1], Some(0.9)),
            (&[9, 9], None),
        ],
    )
}

/// (row here, rank there, passed over, ratio) of the transfer within `set`.
#[track_caller]
fn check(set: &[usize], expect: Result<(usize, usize, PassedOver, f64), TransferError>) {
    let got = transferred_best(&here(), set, &there())
        .map(|t| (t.row, t.rank_there, t.passed_over, t.ratio));
    assert_eq!(got, expect);
}

fn passed(missing_here: usize, failed_here: usize, outside_set: usize) -> PassedOver {
    PassedOver {
        missing_here,
        failed_here,
        outside_set,
    }
}

#[test]
fn the_fastest_there_that_exists_here_is_transferred() {
    // (3, 3) is not here, (2, 2) failed here: the third fastest there,
    // (1, 2), runs 4 ms against the best 1 ms.
    check(&[0, 1, 2, 3], Ok((2, 3, passed(1, 1, 0), 4.0)));
}

#[test]
fn within_a_set_the_set_decides_both_the_pick_and_the_best() {
    // Without row 2, (1, 1) (row 0) is next: 2 ms over the best 1 ms.
    check(&[0, 1, 3], Ok((0, 4, passed(1, 1, 1), 2.0)));
    // Without the best row 1, the best is row 0 (2 ms); (1, 2) runs 4 ms.
    check(&[0, 2], Ok((2, 3, passed(1, 1, 0), 2.0)));
    // Only the best: it is transferred, last there but for the failed one.
    check(&[1, 1, 99], Ok((1, 5, passed(1, 1, 2), 1.0)));
}

#[test]
fn the_figures_of_a_transfer() {
    let t = transferred_best(&here(), &[0, 1, 2, 3], &there()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.from_gpu, "there");
    assert_eq!((t.measured_ms, t.best_ms, t.best_row), (4.0, 1.0, 1));
    assert_eq!(t.set_measured, 3);
    assert_eq!(t.percent_of_optimum(), 25.0);
    assert_eq!(t.passed_over.total(), 2);
}

#[test]
fn nothing_to_compare_is_an_error() {
    check(&[3], Err(TransferError::NothingMeasuredHere));
    check(&[], Err(TransferError::NothingMeasuredHere));
    let far = dataset("far", "k", &["a", "b"], &[(&[7, 7], Some(1.0))]);
    assert_eq!(
        transferred_best(&here(), &[0, 1], &far),
        Err(TransferError::NothingInCommon { measured: 1 })
    );
}

#[test]
fn another_kernel_or_other_parameters_are_errors() {
    let other_kernel = dataset("there", "k2", &["a", "b"], &[(&[1, 1], Some(1.0))]);
    let e = transferred_best(&here(), &[0], &other_kernel);
    assert_eq!(
        e,
        Err(TransferError::KernelMismatch {
            this: "k".to_string(),
            other: "k2".to_string()
        })
    );
    let other_params = dataset("there", "k", &["a", "c"], &[(&[1, 1], Some(1.0))]);
    let e = transferred_best(&here(), &[0], &other_params);
    assert_eq!(
        e.as_ref().map_err(ToString::to_string),
        Err(
            "the tunable parameters differ: [a, b] here, [a, c] in the other GPU's data"
                .to_string()
        )
    );
    let fewer = dataset("there", "k", &["a"], &[(&[1], Some(1.0))]);
    assert!(matches!(
        transferred_best(&here(), &[0], &fewer),
        Err(TransferError::ParameterMismatch { .. })
    ));
}

#[test]
fn ordinals() {
    let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
        .into_iter()
        .map(validate::transfer::ordinal)
        .collect();
    assert_eq!(
        got,
        [
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
        ]
    );
}
