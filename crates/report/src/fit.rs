//! `ptxperf fit`: the fitted cost models per data set and the finalised
//! ones (seed 004), and the gpu-benches calibrations, as tables and JSON.

use std::fmt::Write as _;

use fit::bench_dir::Calibration;
use fit::sets::{Finalised, SetReport};
use serde_json::{Value, json};

/// The fits per data set and the finalised models as JSON (schema 1).
pub fn sets_json(reports: &[SetReport], finals: &[Finalised]) -> Value {
    json!({"schema": 1, "data_sets": reports, "finalised": finals})
}

/// The fits per data set, then the finalised models.
pub fn sets_text(reports: &[SetReport], finals: &[Finalised], width: u16) -> String {
    let mut out = String::new();
    let mut t = crate::table::new(width);
    t.set_header([
        "gpu",
        "benchmark",
        "rep",
        "form",
        "model",
        "R²",
        "within 10 %",
    ]);
    for r in reports {
        t.add_row([
            r.gpu.clone(),
            r.benchmark.clone(),
            r.repetition.to_string(),
            r.fitted.model.form().name().to_string(),
            format!("{} [{}]", r.formula, r.unit),
            format!("{:.4}", r.fitted.r2),
            format!("{:.1} %", 100.0 * r.within_10_percent),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if !finals.is_empty() {
        let mut t = crate::table::new(width);
        t.set_header([
            "gpu",
            "benchmark",
            "finalised A",
            "finalised B",
            "data sets",
            "within 10 %",
        ]);
        for f in finals {
            t.add_row([
                f.gpu.clone(),
                f.benchmark.clone(),
                format!("{:.6e}", f.a),
                format!("{:.6e}", f.b),
                f.data_sets.to_string(),
                format!("{:.1} %", 100.0 * f.within_10_percent),
            ]);
        }
        let _ = writeln!(
            out,
            "\nFinalised models (A and B averaged over data sets, seed 004):\n{t}"
        );
    }
    out
}

/// The calibrations as JSON (schema 1).
pub fn calibrations_json(cals: &[Calibration]) -> Value {
    json!({"schema": 1, "calibrations": cals})
}

/// One row per calibrated GPU.
pub fn calibrations_text(cals: &[Calibration], width: u16) -> String {
    let mut out = String::new();
    let mut t = crate::table::new(width);
    t.set_header([
        "gpu",
        "stream peak GB/s (fit / file max)",
        "saturating occupancy",
        "L1 / L2 / DRAM latency (cycles)",
        "L1 / L2 bandwidth GB/s",
        "launch overhead",
    ]);
    let opt = |v: Option<f64>, unit: &str| v.map_or("-".to_string(), |v| format!("{v:.1}{unit}"));
    for c in cals {
        let file_max = c.stream.iter().map(|s| s.file_max_gbps).reduce(f64::max);
        let best = c
            .stream
            .iter()
            .max_by(|a, b| a.peak_gbps.total_cmp(&b.peak_gbps));
        t.add_row([
            c.gpu.clone(),
            format!("{} / {}", opt(c.stream_peak_gbps, ""), opt(file_max, "")),
            best.map_or("-".into(), |s| {
                format!("{:.0} % ({})", s.saturation_occupancy_pct, s.kernel)
            }),
            c.latency.as_ref().map_or("-".into(), |l| {
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    l.l1_hit_cycles, l.l2_hit_cycles, l.dram_cycles
                )
            }),
            format!(
                "{} / {}",
                opt(c.l1_bandwidth.as_ref().map(|b| b.first_level_gbps), ""),
                opt(c.l2_bandwidth.as_ref().map(|b| b.first_level_gbps), "")
            ),
            opt(c.launch.as_ref().map(|l| l.overhead_us), " µs"),
        ]);
    }
    let _ = writeln!(out, "{t}");
    out
}
