//! Ridge points of models.md 6.1 from the specs of models.md 7.1, and the bound.

use super::*;

/// Ridge point of a GPU: `SMs x lanes x flops per lane per cycle x clock / bandwidth`.
fn check_ridge(
    sms: f64,
    lanes: f64,
    flops_per_lane: f64,
    clock_ghz: f64,
    bandwidth_gbs: f64,
    expected: f64,
    tol: f64,
) {
    let peak = sms * lanes * flops_per_lane * clock_ghz * 1e9;
    let got = ridge(peak, bandwidth_gbs * 1e9);
    assert!(
        (got - expected).abs() <= tol,
        "ridge {got}, expected {expected}"
    );
}

#[test]
fn ridge_points_of_models_md() {
    // 8800 GTX: 128 SPs, MAD + MUL = 3 flops, 1.35 GHz, 86.4 GB/s.
    check_ridge(16.0, 8.0, 3.0, 1.35, 86.4, 6.0, 0.005);
    // GTX 280: 240 x 3 x 1.296 GHz = 933.1 GFLOP/s over 141.7 GB/s.
    check_ridge(30.0, 8.0, 3.0, 1.296, 141.7, 6.59, 0.005);
    // C2075: 14 x 32 x 2 x 1.15 GHz over 144 GB/s.
    check_ridge(14.0, 32.0, 2.0, 1.15, 144.0, 7.16, 0.005);
    // GTX 680: 8 x 192 x 2 x 1.006 GHz over 192.3 GB/s.
    check_ridge(8.0, 192.0, 2.0, 1.006, 192.3, 16.07, 0.005);
    // GTX 960M: 5 x 128 x 2 x 1.096 GHz over 80 GB/s.
    check_ridge(5.0, 128.0, 2.0, 1.096, 80.0, 17.5, 0.05);
    // V100 SXM2: 80 x 64 x 2 x 1.53 GHz over 900 GB/s.
    check_ridge(80.0, 64.0, 2.0, 1.53, 900.0, 17.4, 0.05);
    // A100 SXM4 40 GB: 108 x 64 x 2 x 1.41 GHz over 1555 GB/s.
    check_ridge(108.0, 64.0, 2.0, 1.41, 1555.0, 12.5, 0.05);
    // H100 SXM: 132 x 128 x 2 x 1.98 GHz over 3350 GB/s.
    check_ridge(132.0, 128.0, 2.0, 1.98, 3350.0, 20.0, 0.05);
    // RTX 4090: 128 x 128 x 2 x 2.52 GHz over 1008 GB/s.
    check_ridge(128.0, 128.0, 2.0, 2.52, 1008.0, 81.9, 0.05);
}

fn level(name: &str, bytes: f64, bandwidth: f64) -> Level {
    Level {
        name: name.to_string(),
        bytes,
        bandwidth,
    }
}

/// Evaluate and compare the time (relative 1e-12) and the binding roof.
fn check(p: &RooflineParams, seconds: f64, binding: &str) {
    let r = match evaluate(p) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert!(
        (r.seconds - seconds).abs() <= 1e-12 * seconds,
        "{} s, expected {seconds}",
        r.seconds
    );
    assert_eq!(r.binding, binding);
}

#[test]
fn classic_memory_and_compute_bound() {
    // 1 TFLOP/s, 100 GB/s, ridge 10 flop/B.
    check(
        &RooflineParams {
            work: 1e9,
            peak: 1e12,
            levels: vec![level("DRAM", 1e9, 1e11)],
        },
        1e-2,
        "DRAM",
    );
    check(
        &RooflineParams {
            work: 1e12,
            peak: 1e12,
            levels: vec![level("DRAM", 1e9, 1e11)],
        },
        1.0,
        "compute",
    );
}

#[test]
fn hierarchical_binding_level() {
    let p = RooflineParams {
        work: 1e9,
        peak: 1e12,
        levels: vec![
            level("DRAM", 1e8, 1e11),
            level("L2", 1e10, 4e11),
            level("shared", 1e10, 1e13),
        ],
    };
    check(&p, 1e10 / 4e11, "L2");
    let r = evaluate(&p).map(|r| {
        r.levels
            .iter()
            .map(|l| (l.intensity, l.attainable))
            .collect::<Vec<_>>()
    });
    assert_eq!(r, Ok(vec![(10.0, 1e12), (0.1, 4e10), (0.1, 1e12)]));
}

#[test]
fn attainable_below_and_above_ridge() {
    assert_eq!(attainable(1e12, 1e11, 1.0), 1e11);
    assert_eq!(attainable(1e12, 1e11, 100.0), 1e12);
}

#[test]
fn zero_bandwidth_is_an_error() {
    assert!(
        evaluate(&RooflineParams {
            work: 1.0,
            peak: 1.0,
            levels: vec![level("DRAM", 1.0, 0.0)]
        })
        .is_err()
    );
    assert!(
        evaluate(&RooflineParams {
            work: 1.0,
            peak: 0.0,
            levels: vec![]
        })
        .is_err()
    );
}
