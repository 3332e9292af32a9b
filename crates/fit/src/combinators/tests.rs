//! The model's equations checked on hand-made inputs: costs follow size as
//! the fitted bandwidth says, pipelines are the sum of their stages.

use super::calibrated::parse_calibrated;
use super::*;
use crate::measurements::parse_csv;
use std::collections::BTreeMap;

fn gpu(launch: Option<f64>) -> GpuParams {
    let mut throughput = BTreeMap::new();
    throughput.insert(OpClass::Fp32, 128.0);
    throughput.insert(OpClass::IntAdd, 64.0);
    throughput.insert(OpClass::Other, 128.0);
    GpuParams {
        id: "test".into(),
        sm_count: 100,
        clock_hz: 1.5e9,
        max_warps_per_sm: 64,
        throughput,
        barrier_cycles: 30.0,
        read_curve: BandwidthCurve::Calibrated {
            kernel: "read".into(),
            peak_gbps: 2000.0,
            saturation_pct: 50.0,
        },
        copy_curve: BandwidthCurve::Calibrated {
            kernel: "scale".into(),
            peak_gbps: 1600.0,
            saturation_pct: 40.0,
        },
        launch_overhead_s: launch.map(|us| us * 1e-6),
        launch_source: "test".into(),
    }
}

/// A map over n f32 elements: 8 bytes and 3 fp32 operations per element.
fn map_counts(n: f64) -> StageCounts {
    let mut ops = BTreeMap::new();
    ops.insert(OpClass::Fp32, 3.0 * n);
    StageCounts {
        name: "map".into(),
        load_bytes: 4.0 * n,
        store_bytes: 4.0 * n,
        ops,
        barriers_per_thread: 0.0,
        ctas: (n / 256.0).ceil() as u64,
        threads_per_cta: 256,
        blocks_per_sm: 8,
        occupancy: 1.0,
        separate_launch: false,
    }
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn check_size_step(n1: f64, n2: f64) {
    let g = gpu(Some(2.0));
    let lat = OpLatencies::default();
    let (c1, c2) = (map_counts(n1), map_counts(n2));
    let (p1, p2) = (predict_stage(&g, &lat, &c1), predict_stage(&g, &lat, &c2));
    assert_eq!(p1.bound, "memory");
    assert_eq!(p2.bound, "memory");
    // Both grids fill the GPU: the same occupancy, the plateau bandwidth.
    assert_eq!(p1.occupancy_pct, p2.occupancy_pct);
    let bw = g.copy_curve.gbps_at(p1.occupancy_pct) * 1e9;
    let expected = (c2.load_bytes + c2.store_bytes - c1.load_bytes - c1.store_bytes) / bw;
    assert!(rel(p2.total_s - p1.total_s, expected) < 1e-9);
}

#[test]
fn bandwidth_bound_map_cost_steps_by_bytes_over_bandwidth() {
    check_size_step(1048576.0, 4194304.0);
    check_size_step(4194304.0, 16777216.0);
    check_size_step(1048576.0, 67108864.0);
}

fn check_occupancy(ctas: u64, threads: u64, occ: f64, expected_pct: f64) {
    let c = StageCounts {
        ctas,
        threads_per_cta: threads,
        occupancy: occ,
        ..StageCounts::default()
    };
    let got = effective_occupancy_pct(&gpu(None), &c);
    assert!((got - expected_pct).abs() < 1e-9, "{got} vs {expected_pct}");
}

#[test]
fn effective_occupancy_is_limited_by_grid_and_by_sm() {
    // 100 SMs x 64 warps = 6400 warp slots.
    check_occupancy(100, 256, 1.0, 12.5); // 800 warps
    check_occupancy(800, 256, 1.0, 100.0);
    check_occupancy(8000, 256, 0.5, 50.0);
    check_occupancy(1, 32, 1.0, 100.0 / 6400.0);
}

fn check_curve(curve: &BandwidthCurve, occ: f64, expected: f64) {
    assert!(rel(curve.gbps_at(occ), expected) < 1e-12);
}

#[test]
fn calibrated_curve_rises_linearly_then_plateaus() {
    let c = gpu(None).read_curve;
    check_curve(&c, 25.0, 1000.0);
    check_curve(&c, 50.0, 2000.0);
    check_curve(&c, 90.0, 2000.0);
    check_curve(&c, 5.0, 200.0);
}

#[test]
fn low_occupancy_lowers_bandwidth_and_raises_cost() {
    let g = gpu(None);
    let lat = OpLatencies::default();
    // 4096 elements: 16 CTAs of 256 threads = 128 warps of 6400: 2 % occupancy.
    let p = predict_stage(&g, &lat, &map_counts(4096.0));
    assert!((p.occupancy_pct - 2.0).abs() < 1e-9);
    assert!(rel(p.bandwidth_gbps, 1600.0 * 2.0 / 40.0) < 1e-12);
    assert!(rel(p.memory_s, 8.0 * 4096.0 / (80.0 * 1e9)) < 1e-12);
}

fn check_pipeline(launch: Option<f64>, sizes: &[f64]) {
    let g = gpu(launch);
    let lat = OpLatencies::default();
    let stages: Vec<StageCounts> = sizes.iter().map(|&n| map_counts(n)).collect();
    let pipe = predict_pipeline(&g, &lat, &stages);
    let sum: f64 = stages
        .iter()
        .map(|s| predict_stage(&g, &lat, s).total_s)
        .sum();
    assert!(rel(pipe.total_s, sum) < 1e-12);
    let expected_launch = launch.unwrap_or(0.0) * 1e-6 * sizes.len() as f64;
    assert!((pipe.launch_overheads_s - expected_launch).abs() < 1e-15);
    assert_eq!(pipe.fused.is_some(), sizes.len() >= 2);
    if let Some(f) = &pipe.fused {
        // One launch, and no more bytes than the stages moved.
        assert_eq!(f.fused.launch_s, launch.unwrap_or(0.0) * 1e-6);
        assert!(f.separate.is_empty());
        assert!(f.total_s <= pipe.total_s);
    }
}

#[test]
fn pipeline_is_the_sum_of_its_stages_with_one_launch_each() {
    check_pipeline(Some(2.4), &[1e6, 1e6]);
    check_pipeline(None, &[1e6, 1e6, 1e6]);
    check_pipeline(Some(5.0), &[4096.0]);
    check_pipeline(Some(1.0), &[65536.0, 1e7]);
}

#[test]
fn compute_bound_stage_uses_catalog_or_fitted_latency() {
    let g = gpu(None);
    let mut c = map_counts(1e6);
    c.ops.insert(OpClass::Fp32, 1e12);
    let p = predict_stage(&g, &OpLatencies::default(), &c);
    assert_eq!(p.bound, "compute");
    assert!(rel(p.compute_s, 1e12 / (128.0 * 100.0 * 1.5e9)) < 1e-12);
    // A fitted latency of 64 cycles at full occupancy: 2048 threads / 64 = 32 ops/cycle/SM.
    let mut lat = OpLatencies::default();
    lat.by_class
        .insert(OpClass::Fp32, (64.0, "fp32_bench".to_string()));
    let p = predict_stage(&g, &lat, &c);
    assert!(rel(p.compute_s, 1e12 / (32.0 * 100.0 * 1.5e9)) < 1e-12);
}

#[test]
fn op_latencies_are_fitted_from_a_measurement_csv() {
    let csv = "gpu,benchmark,x,time,unit,repetition\n\
               g,int_add,1,10,cycles,0\ng,int_add,2,14,cycles,0\ng,int_add,4,22,cycles,0\n\
               g,int_add,1,12,cycles,1\ng,int_add,2,16,cycles,1\ng,int_add,4,24,cycles,1\n\
               g,int_mul,1,10,cycles,0\ng,int_mul,3,20,cycles,0\n\
               other,int_add,1,1,cycles,0\nother,int_add,2,100,cycles,0\n\
               g,h2d_copy,1,1,us,0\ng,h2d_copy,2,2,us,0\n";
    let sets = parse_csv("t.csv", csv).expect("valid csv");
    let lat = OpLatencies::from_datasets(&sets, "g");
    assert_eq!(lat.by_class.len(), 2);
    assert!(rel(lat.by_class[&OpClass::IntAdd].0, 4.0) < 1e-9);
    assert!(rel(lat.by_class[&OpClass::IntMul].0, 5.0) < 1e-9);
}

#[test]
fn calibration_file_is_read_back() {
    let text = "gpu = \"x\"\nstream_peak_gbps = 10.0\n[source]\nstream = \"s\"\n\
                [[stream]]\nkernel = \"read\"\npeak_gbps = 100.0\nfile_max_gbps = 99.0\n\
                saturation_occupancy_pct = 50.0\nr2 = 0.99\n[launch]\noverhead_us = 2.5\n\
                per_block_size = [[32, 2.5, 1.0, 0.9]]\nmax_bytes = 4.0\n";
    let c = parse_calibrated("x.toml", text).expect("valid");
    assert_eq!(c.gpu, "x");
    assert_eq!(c.launch_overhead_us, Some(2.5));
    check_curve(c.stream("read").expect("read curve"), 25.0, 50.0);
    assert!(c.stream("scale").is_none());
    let bad = parse_calibrated("x.toml", "gpu = 3\n");
    assert!(matches!(bad, Err(crate::FitError::Parse { line: 1, .. })));
}
