//! `ptxperf petri`: the Petri-net warp model's reports (one configuration,
//! a sweep over thread counts, emulated launch specs), their JSON and the
//! titles of their charts.

use std::fmt::Write as _;

use petri::WarpCounts;
use petri::emulated::{SpecRow, SpecSweep};
use petri::sweep::{SweepConfig, SweepRow};
use petri::warp::ModelReport;
use serde_json::{Value, json};

/// One configuration's JSON (schema 1).
pub fn model_json(report: &ModelReport) -> Value {
    json!({ "schema": 1, "model": "petri", "report": report })
}

/// A sweep's JSON (schema 1).
pub fn sweep_json(cfg: &SweepConfig, rows: &[SweepRow], best: Option<u32>) -> Value {
    json!({ "schema": 1, "model": "petri", "sweep": cfg, "rows": rows, "best_threads": best })
}

/// The emulated specs' JSON (schema 1).
pub fn specs_json(rows: &[SpecRow], best: &[(String, u32)]) -> Value {
    json!({
        "schema": 1, "model": "petri", "rows": rows,
        "best_threads": best.iter().map(|(s, t)| json!({"spec": s, "threads": t})).collect::<Vec<_>>(),
    })
}

/// The title of a sweep's chart.
pub fn sweep_title(total: &WarpCounts) -> String {
    format!(
        "Petri-net model: steps against threads (x_a={}, x_s={}, x_g={})",
        total.arithmetic, total.shared, total.global
    )
}

/// The title of the emulated specs' chart.
pub fn specs_title(cfg: &SpecSweep) -> String {
    format!(
        "Petri-net model: steps against threads (K = {}, l1 = {}, l2 = {}, {} runs)",
        cfg.schedulers, cfg.global_latency, cfg.shared_latency, cfg.runs
    )
}

/// One configuration's steps and each warp's finishing step.
pub fn model_text(r: &ModelReport, width: u16) -> String {
    let mut out = String::new();
    let c = &r.config;
    let counts = c.warps.first().copied().unwrap_or_default();
    let _ = writeln!(
        out,
        "Petri-net warp model (Gogolinska et al.): {} warps, {} places, {} transitions",
        c.warps.len(),
        r.places,
        r.transitions
    );
    let _ = writeln!(
        out,
        "  per warp: x_a = {}, x_s = {}, x_g = {}; schedulers K = {}; l1 = {}, l2 = {}; latency counting: {:?}",
        counts.arithmetic,
        counts.shared,
        counts.global,
        c.schedulers,
        c.global_latency,
        c.shared_latency,
        c.latency_counting
    );
    let _ = writeln!(out, "  runs: {}", r.runs.len());
    let _ = writeln!(
        out,
        "  steps:      {:.1} (min {}, max {})",
        r.mean_steps, r.min_steps, r.max_steps
    );
    let _ = writeln!(
        out,
        "  idle steps: {:.1} ({:.1}% of the steps)",
        r.mean_idle_steps,
        100.0 * r.mean_idle_steps / r.mean_steps.max(1.0)
    );
    let mut t = crate::table::new(width);
    t.set_header(vec!["warp", "mean finishing step"]);
    for (i, f) in r.mean_warp_finish.iter().enumerate() {
        t.add_row(vec![i.to_string(), format!("{f:.1}")]);
    }
    let _ = writeln!(out, "{t}");
    out
}

/// A sweep over thread counts, and the count with the fewest steps.
pub fn sweep_text(cfg: &SweepConfig, rows: &[SweepRow], best: Option<u32>, width: u16) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Petri-net warp model sweep: totals x_a = {}, x_s = {}, x_g = {} over the block; K = {}, l1 = {}, l2 = {}, {} runs each",
        cfg.total.arithmetic,
        cfg.total.shared,
        cfg.total.global,
        cfg.schedulers,
        cfg.global_latency,
        cfg.shared_latency,
        cfg.runs
    );
    let mut t = crate::table::new(width);
    t.set_header(vec![
        "threads",
        "warps",
        "x_a/warp",
        "x_s/warp",
        "x_g/warp",
        "mean steps",
        "min",
        "max",
        "idle",
    ]);
    for r in rows {
        t.add_row(vec![
            r.threads.to_string(),
            r.warps.to_string(),
            r.per_warp.arithmetic.to_string(),
            r.per_warp.shared.to_string(),
            r.per_warp.global.to_string(),
            format!("{:.1}", r.mean_steps),
            r.min_steps.to_string(),
            r.max_steps.to_string(),
            format!("{:.1}", r.mean_idle_steps),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if let Some(b) = best {
        let _ = writeln!(out, "fewest steps: {b} threads");
    }
    out
}

/// The emulated specs' rows, and per spec its best thread count when
/// several were run.
pub fn specs_text(cfg: &SpecSweep, rows: &[SpecRow], best: &[(String, u32)], width: u16) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Petri-net warp model from emulated runs: K = {}, l1 = {}, l2 = {}, {} runs each (x_a, x_s, x_g: warp instructions)",
        cfg.schedulers, cfg.global_latency, cfg.shared_latency, cfg.runs
    );
    let mut t = crate::table::new(width);
    t.set_header(vec![
        "kernel",
        "threads",
        "warps",
        "x_a/blk",
        "x_s/blk",
        "x_g/blk",
        "warp 0 (a,s,g)",
        "others (a,s,g)",
        "mean steps",
        "min",
        "max",
        "idle",
    ]);
    let abc = |c: &WarpCounts| format!("{}, {}, {}", c.arithmetic, c.shared, c.global);
    for r in rows {
        t.add_row(vec![
            r.kernel.clone(),
            r.block_threads.to_string(),
            r.warps.to_string(),
            r.block_counts.arithmetic.to_string(),
            r.block_counts.shared.to_string(),
            r.block_counts.global.to_string(),
            abc(&r.warp0),
            r.other_warps.as_ref().map_or("-".into(), abc),
            format!("{:.1}", r.mean_steps),
            r.min_steps.to_string(),
            r.max_steps.to_string(),
            format!("{:.1}", r.mean_idle_steps),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if cfg.threads.len() > 1 {
        for (spec, threads) in best {
            let _ = writeln!(out, "fewest steps: {threads} threads ({spec})");
        }
    }
    out
}
