//! The corpus kernels in the emulator against their CPU references, and the
//! sweep's predictions against the model's equations.

use super::calibrated::parse_calibrated;
use super::corpus::{Combinator, CorpusOptions, emulate};
use super::inputs::OpLatencies;
use super::predict::predict_pipeline;
use super::reference::{check_fold, check_map, check_scan};
use super::sweep::gpu_params;
use arch::{Catalog, Gpu};
use std::path::Path;

fn opts() -> CorpusOptions {
    CorpusOptions {
        kernels: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels"),
        sample_ctas: 16,
    }
}

fn gpu() -> Gpu {
    Catalog::bundled()
        .and_then(|c| c.get("h100-pcie-80gb").cloned())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Emulating checks the output against the CPU reference; an Err is a mismatch.
fn check_correct(comb: Combinator, n: u64) {
    let stages = emulate(&opts(), &gpu(), comb, n).unwrap_or_else(|e| panic!("{e}"));
    assert!(!stages.is_empty());
    let bytes: f64 = stages[0].load_bytes;
    // Every combinator reads its N 4-byte inputs once.
    assert_eq!(bytes, 4.0 * n as f64, "{comb:?} N={n}");
}

#[test]
fn combinators_match_cpu_references_in_the_emulator() {
    for n in [4096, 16384, 65536] {
        check_correct(Combinator::Map, n);
        check_correct(Combinator::Fold, n);
        check_correct(Combinator::Scan, n);
    }
}

#[test]
fn references_reject_wrong_outputs() {
    assert!(check_map(&[1.0, 3.5, 7.0], 3).is_ok());
    assert!(check_map(&[1.0, 3.5, 7.5], 3).is_err());
    assert!(check_fold(&[2.0, 2.0], 4).is_ok());
    assert!(check_fold(&[2.0, 1.0], 4).is_err());
    assert!(check_scan(&[0, 1, 3, 6, 4, 9], 6, 4).is_ok());
    assert!(check_scan(&[0, 1, 3, 6, 10, 15], 6, 4).is_err());
    assert!(check_scan(&[0], 1, 0).is_ok());
}

#[test]
fn combinator_names_round_trip() {
    for c in Combinator::ALL {
        assert_eq!(Combinator::from_name(&format!(" {} ", c.name())), Some(c));
    }
    assert_eq!(Combinator::from_name("zip"), None);
}

#[test]
fn map_cost_follows_bytes_over_fitted_bandwidth() {
    let o = opts();
    let g = gpu();
    let cal_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gpus/calibrated/h100-pcie-80gb.toml");
    let cal = parse_calibrated(
        "h100",
        &std::fs::read_to_string(&cal_path).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let params = gpu_params(&g, &cal, &cal_path).unwrap_or_else(|e| panic!("{e}"));
    let lat = OpLatencies::default();
    // Both grids fill the H100's 114 x 64 warp slots (2048 and 4096 CTAs of 4 warps).
    let (n1, n2) = (262144u64, 524288u64);
    let s1 = emulate(&o, &g, Combinator::Map, n1).unwrap_or_else(|e| panic!("{e}"));
    let s2 = emulate(&o, &g, Combinator::Map, n2).unwrap_or_else(|e| panic!("{e}"));
    let p1 = predict_pipeline(&params, &lat, &s1);
    let p2 = predict_pipeline(&params, &lat, &s2);
    assert_eq!(p1.stages[0].bound, "memory");
    assert_eq!(p1.stages[0].occupancy_pct, p2.stages[0].occupancy_pct);
    let bw = p1.stages[0].bandwidth_gbps * 1e9;
    let expected = 8.0 * (n2 - n1) as f64 / bw;
    let got = p2.total_s - p1.total_s;
    assert!(
        (got - expected).abs() <= 1e-9 * expected,
        "{got} vs {expected}"
    );
    // A pipeline costs the sum of its stages (fold: two launches).
    let mut stages = s2.clone();
    stages.extend(emulate(&o, &g, Combinator::Fold, n2).unwrap_or_else(|e| panic!("{e}")));
    let pipe = predict_pipeline(&params, &lat, &stages);
    assert_eq!(pipe.stages.len(), 3);
    let sum: f64 = pipe.stages.iter().map(|s| s.total_s).sum();
    assert!((pipe.total_s - sum).abs() <= 1e-15);
}
