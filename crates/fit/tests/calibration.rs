//! Calibration: the level segmentation on hand-made step data, and the
//! gpu-benches fits of the shared ground-truth folder.

use fit::bench_dir::calibrate_dir;
use fit::calibrate::segment_levels;
use std::path::PathBuf;

#[track_caller]
fn check_levels(points: &[(f64, f64)], expect: &[(f64, f64, f64)]) {
    let levels = segment_levels(points, 6, 3);
    let got: Vec<(f64, f64, f64)> = levels
        .iter()
        .map(|l| (l.from_kb, l.to_kb, l.value))
        .collect();
    assert_eq!(got, expect);
}

#[test]
fn levels_of_step_data() {
    // Three clean plateaus: 30 cycles to 128 kB, 260 to 32 MB, 600 beyond.
    let mut pts = Vec::new();
    for kb in [1.0, 2.0, 8.0, 32.0, 128.0] {
        pts.push((kb, 30.0));
    }
    for kb in [512.0, 2048.0, 8192.0, 32768.0] {
        pts.push((kb, 260.0));
    }
    for kb in [1.0e5, 4.0e5, 1.6e6] {
        pts.push((kb, 600.0));
    }
    check_levels(
        &pts,
        &[
            (1.0, 128.0, 30.0),
            (512.0, 32768.0, 260.0),
            (1.0e5, 1.6e6, 600.0),
        ],
    );
    // One level when the data is flat, whatever the noise-free length.
    check_levels(
        &[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0), (4.0, 5.0)],
        &[(1.0, 4.0, 5.0)],
    );
    // A transition point joins a neighbour rather than forming a level of its own.
    let mut pts: Vec<(f64, f64)> = (0..6).map(|i| (i as f64, 30.0)).collect();
    pts.push((6.0, 120.0));
    pts.extend((7..13).map(|i| (i as f64, 260.0)));
    let levels = segment_levels(&pts, 6, 3);
    assert_eq!(levels.len(), 2);
    assert_eq!((levels[0].value, levels[1].value), (30.0, 260.0));
}

/// The shared folder lives beside the repository: `../shared` from the root.
fn groundtruth() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/groundtruth/gpu-benches");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: the shared ground-truth folder is missing at {}",
        dir.display()
    );
    eprintln!(
        "skipped: shared ground-truth data not found at {} (it sits beside the repository)",
        dir.display()
    );
    None
}

#[test]
fn gpu_benches_reproduce_peak_stream_bandwidth() {
    let Some(dir) = groundtruth() else { return };
    let cals = calibrate_dir(&dir, "test").expect("calibrate");
    let ids: Vec<&str> = cals.iter().map(|c| c.gpu.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a100-sxm4-80gb",
            "h100-pcie-80gb",
            "h200-sxm-141gb",
            "tesla-v100-sxm2-16gb"
        ]
    );
    for c in &cals {
        assert!(!c.stream.is_empty(), "{}: no stream fit", c.gpu);
        let file_max = c.stream.iter().map(|s| s.file_max_gbps).fold(0.0, f64::max);
        let peak = c.stream_peak_gbps.unwrap();
        let err = (peak - file_max).abs() / file_max;
        assert!(
            err < 0.05,
            "{}: fitted peak {peak:.0} GB/s vs file max {file_max:.0} GB/s ({:.1} %)",
            c.gpu,
            err * 100.0
        );
    }
    // H100 PCIe latency levels, against the values of the file itself:
    // about 34 cycles while the footprint fits L1, 265 in L2, and 600+ in DRAM.
    let h100 = cals.iter().find(|c| c.gpu == "h100-pcie-80gb").unwrap();
    let lat = h100.latency.as_ref().expect("latency fit");
    assert!(
        (lat.l1_hit_cycles - 34.2).abs() < 1.0,
        "L1 {}",
        lat.l1_hit_cycles
    );
    assert!(
        (lat.l2_hit_cycles - 265.5).abs() < 5.0,
        "L2 {}",
        lat.l2_hit_cycles
    );
    assert!(
        lat.dram_cycles > 550.0 && lat.dram_cycles < 700.0,
        "DRAM {}",
        lat.dram_cycles
    );
    let h200 = cals.iter().find(|c| c.gpu == "h200-sxm-141gb").unwrap();
    let launch = h200.launch.as_ref().expect("launch fit");
    assert!(
        launch.overhead_us > 0.5 && launch.overhead_us < 5.0,
        "launch overhead {} us",
        launch.overhead_us
    );
}
