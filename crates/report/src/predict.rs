//! `ptxperf predict`: one GPU's table (model, time, cycles, bottleneck;
//! default models that cannot handle the profile listed with the reason),
//! the occupancy and its limiter, the spread between the models, the hot
//! CUDA lines; its JSON (schema 1); several GPUs side by side; the roofline
//! chart with the kernel placed on it.

use crate::characterize::{place, snippet};
use arch::{Gpu, Occupancy};
use models::roofline::svg::{Chart, render};
use models::{Agreement, Prediction};
use profile::KernelProfile;
use serde_json::{Value, json};

/// Everything one GPU's prediction shows.
pub struct Report {
    pub profile: KernelProfile,
    pub gpu: Gpu,
    pub occupancy: Occupancy,
    pub predictions: Vec<Prediction>,
    /// Default models that could not handle the profile, with the reason.
    pub failed: Vec<pipeline::ModelFailure>,
    pub agreement: Option<Agreement>,
    /// CUDA lines priced on this GPU, most costly first.
    pub hot_lines: Vec<characterize::CudaLine>,
    /// The timing model's bottleneck and the lines that cause it.
    pub explanation: Option<pipeline::lines::Explanation>,
}

impl Report {
    /// The report of `gpu`'s predictions.
    pub fn new(gpu: Gpu, p: pipeline::Predictions) -> Self {
        Report {
            profile: p.profile,
            gpu,
            occupancy: p.occupancy,
            predictions: p.predictions,
            failed: p.failed,
            agreement: p.agreement,
            hot_lines: p.hot_lines,
            explanation: p.explanation,
        }
    }
}

/// Rows of the hot CUDA lines under the models' table.
const HOT_LINES_SHOWN: usize = 5;

/// Several GPUs' tables, then the comparison (`failed`: the GPUs that
/// could not be predicted, with their [`fail_line`]).
pub fn several_text(
    reports: &[Report],
    comparison: &[pipeline::ComparisonRow],
    failed: &[(String, String)],
    width: u16,
) -> String {
    let mut text = reports
        .iter()
        .map(|r| text(r, width))
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text.push_str(&comparison_text(comparison, failed, width));
    text
}

/// Several GPUs' JSON: each GPU's [`json`], the GPUs not predicted and the
/// comparison.
pub fn several_json(
    reports: &[Report],
    comparison: &[pipeline::ComparisonRow],
    failed: &[(String, String)],
) -> Value {
    json!({
        "schema": 1,
        "kernel": reports.first().map(|r| r.profile.kernel.clone()).unwrap_or_default(),
        "gpus": reports.iter().map(json).collect::<Vec<_>>(),
        "failed_gpus": failed
            .iter()
            .map(|(gpu, error)| json!({ "gpu": gpu, "error": error }))
            .collect::<Vec<_>>(),
        "comparison": comparison
            .iter()
            .map(|r| json!({
                "gpu": r.gpu,
                "model": r.model,
                "seconds": r.seconds,
                "bottleneck": r.bottleneck,
                "relative_to_fastest": r.relative,
            }))
            .collect::<Vec<_>>(),
    })
}

/// The first line of a GPU's error, without its `error: ` prefix.
pub fn fail_line(e: &pipeline::PipelineError) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// The GPUs side by side, fastest first, by the recommended model.
fn comparison_text(
    rows: &[pipeline::ComparisonRow],
    failed: &[(String, String)],
    width: u16,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let models: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    let by = if models.len() == 1 && models.contains(pipeline::RECOMMENDED_MODEL) {
        format!("the {} model (recommended)", pipeline::RECOMMENDED_MODEL)
    } else {
        format!(
            "the {} model where it ran, else the first model",
            pipeline::RECOMMENDED_MODEL
        )
    };
    let _ = writeln!(out, "comparison by {by}, fastest first:");
    let mut table = crate::table::new(width);
    table.set_header(vec!["gpu", "model", "time", "bottleneck", "vs fastest"]);
    for r in rows {
        table.add_row(vec![
            r.gpu.clone(),
            r.model.clone(),
            human_seconds(r.seconds),
            r.bottleneck.clone(),
            format!("{:.2}x", r.relative),
        ]);
    }
    for (gpu, why) in failed {
        table.add_row(vec![
            gpu.clone(),
            "-".to_string(),
            "-".to_string(),
            format!("not predicted: {why}"),
            "-".to_string(),
        ]);
    }
    let _ = writeln!(out, "{table}");
    out
}

/// A time with a unit that keeps 4 significant digits readable.
pub fn human_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.4} s")
    } else if s >= 1e-3 {
        format!("{:.4} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.4} us", s * 1e6)
    } else {
        format!("{:.4} ns", s * 1e9)
    }
}

fn registers_note(profile: &KernelProfile) -> String {
    let r = &profile.resources;
    if r.registers_per_thread == 0 {
        "registers unknown (not limiting)".to_string()
    } else {
        let source = match r.registers_source {
            profile::RegisterSource::Given => "given".to_string(),
            profile::RegisterSource::Ptxas => match r.ptxas_arch {
                Some(arch) => format!("from ptxas, {arch}"),
                None => "from ptxas".to_string(),
            },
            profile::RegisterSource::Estimate => format!(
                "estimated from the PTX, ±{} %: install ptxas (scripts/setup.sh or PTXPERF_PTXAS) for the exact count",
                ptx::analysis::registers::ERROR_BAND_PERCENT
            ),
        };
        format!("{} registers/thread ({source})", r.registers_per_thread)
    }
}

/// ptxas's register spills, and how far the timing model's charge for them
/// can be trusted: it runs the spill code as often as the code around it on
/// average, so spills that sit in a hot loop cost more than it charges
/// (docs/timing-model.md, "Register spills"). `None` without spills.
fn spill_note(profile: &KernelProfile) -> Option<String> {
    let s = &profile.analysis.spills;
    if s.store_bytes == 0 && s.load_bytes == 0 {
        return None;
    }
    let frame = if s.stack_frame_bytes > 0 {
        format!(", stack frame {} B", s.stack_frame_bytes)
    } else {
        String::new()
    };
    Some(format!(
        "register spills (ptxas): {} B of spill stores and {} B of spill loads in the code{frame}; \
         the timing model runs them as often as the code around them, so spills inside a hot \
         loop can cost several times its charge (docs/timing-model.md, \"Register spills\")",
        s.store_bytes, s.load_bytes
    ))
}

/// `1 block`, `512 blocks`.
fn blocks(n: u64) -> String {
    if n == 1 {
        "1 block".to_string()
    } else {
        format!("{n} blocks")
    }
}

/// Atomics whose lanes meet on one word: they serialize where the word
/// lives, which the timing model does not charge (one pass per warp
/// instruction), and a retry loop (`atomicCAS`) runs far more often under
/// contention than the emulator, which runs one warp at a time, counts.
/// `None` without atomics, or where a warp's lanes mostly hit different
/// words (mean under 2 lanes on the busiest word).
fn atomic_note(profile: &KernelProfile) -> Option<String> {
    let a = &profile.atomics;
    if a.global_instructions + a.shared_instructions <= 0.0 || a.mean_conflict_ways < 2.0 {
        return None;
    }
    Some(format!(
        "atomics on one word: a warp's atomic sends {:.1} of its lanes to the same word on average \
         ({:.0} thread-level operations); those serialize where the word lives, and under \
         contention a retry loop (atomicCAS) runs more rounds than the emulator, which runs one \
         warp at a time, counts; the timing model charges neither: read its time as a lower bound \
         (kernels/atomics_global, a retry loop on one word over 2,048 threads: 434.7 us measured \
         on an H100, 7.2 us predicted; docs/timing-model.md, \"Known gaps\")",
        a.mean_conflict_ways, a.thread_operations
    ))
}

/// Machine code beyond what the GPU's instruction caches hold at full rate:
/// how much of its issue rate the timing model leaves it, and whether that
/// curve was measured on this architecture or is the H100's read at a
/// larger size (docs/timing-model.md, "Instruction fetch"). `None` where the
/// timing model did not run, the code size is unknown or the code fits.
fn fetch_note(r: &Report) -> Option<String> {
    let timing = r.predictions.iter().find(|p| p.model == "timing")?;
    let code = *timing.breakdown.get("code_bytes")?;
    let scale = timing
        .breakdown
        .get("fetch_code_scale")
        .copied()
        .unwrap_or(1.0);
    let cc = &r.gpu.cc_figures;
    let curve = &cc.instruction_fetch;
    let read_at = code * scale;
    if !(code > 0.0 && read_at > curve.full_rate_up_to_bytes) {
        return None;
    }
    let fraction = models::timing::fetch::issue_fraction(curve, read_at);
    let measured = cc
        .sources
        .get("instruction_fetch")
        .is_none_or(|s| s.status != arch::SourceStatus::Assumption);
    let name = &cc.instruction_fetch_name;
    let kb = |b: f64| b / 1024.0;
    let line = if measured {
        format!(
            "machine code: {:.1} KB (ptxas), past the {:.0} KB that issue at full rate on {name} \
             (measured): the timing model issues at {fraction:.2} of the full rate",
            kb(code),
            kb(curve.full_rate_up_to_bytes)
        )
    } else {
        let sizes = match cc.instruction_cache_bytes {
            Some(b) => format!(
                "{:.0} KB of instruction cache over this GPU's {:.0} KB",
                kb(curve.instruction_cache_bytes),
                kb(b)
            ),
            None => "this GPU's instruction cache is not in the catalog".to_string(),
        };
        // Seen in the ground truth on Maxwell and Pascal only.
        let seen = if matches!(r.gpu.compute_capability.major, 5 | 6) {
            "; code this large has run slower than that on Maxwell and Pascal (GTX 1080 Ti, \
             GTX TITAN X: up to 2.1x per output past about 40 KB)"
        } else {
            ""
        };
        format!(
            "machine code: {:.1} KB (ptxas); this GPU's instruction fetch was not measured, so the \
             timing model reads {name}'s curve at {scale:.2}x the size ({sizes}: an assumption) \
             and issues at {fraction:.2} of the full rate{seen}",
            kb(code)
        )
    };
    Some(format!(
        "{line} (docs/timing-model.md, \"Instruction fetch\")"
    ))
}

/// Where ptxas built the kernel for a newer architecture than the GPU's:
/// the PTX targets it, so this GPU cannot run it, and the registers,
/// spills and code size are not those of a build for this GPU.
fn newer_target_note(profile: &KernelProfile, gpu: &Gpu) -> Option<String> {
    let built = profile.resources.ptxas_arch?;
    let cc = gpu.compute_capability;
    // sm_50 at the oldest: the closest NVRTC 12 builds for an older GPU.
    let own = pipeline::gpu_arch(gpu);
    (built > own).then(|| {
        format!(
            "note: the PTX targets {built}, newer than this GPU ({cc}), which cannot run it: \
             registers, spills and code size are ptxas's for {built}; set the spec's \
             `arch = \"{own}\"` to predict the build this GPU would run"
        )
    })
}

/// The core clock the models ran at, and where it came from.
fn clock_note(gpu: &Gpu) -> String {
    let rated = gpu.clocks.model_clock;
    match gpu.clocks.sustained_mhz {
        Some(mhz) => format!(
            "core clock {mhz} MHz (--clock-mhz; rated {rated} {} MHz)",
            gpu.rated_clock_mhz()
        ),
        None => format!(
            "core clock {} MHz (rated {rated}; --clock-mhz for the clock your GPU holds)",
            gpu.clock_mhz()
        ),
    }
}

/// The kernel's tensor-core work, and which of its kinds the GPU's catalog
/// entry has no rate for (the timing model charges those their issue slots
/// only); `None` for a kernel without matrix multiplies.
fn tensor_note(profile: &KernelProfile, gpu: &Gpu) -> Option<String> {
    let t = &profile.tensor;
    if t.is_empty() {
        return None;
    }
    let r = &gpu.throughput;
    let kinds = [
        ("f16", t.f16, r.tensor_f16),
        ("f16/bf16 with f32 accumulate", t.f16_f32, r.tensor_f16_f32),
        ("tf32", t.tf32, r.tensor_tf32),
        ("int8", t.int8, r.tensor_int8),
        ("fp64", t.fp64, r.tensor_fp64),
    ];
    let work: Vec<String> = kinds
        .iter()
        .filter(|(_, macs, _)| *macs > 0.0)
        .map(|(name, macs, _)| format!("{macs:.3e} {name}"))
        .collect();
    let unrated: Vec<&str> = kinds
        .iter()
        .filter(|(_, macs, rate)| *macs > 0.0 && rate.is_none())
        .map(|(name, _, _)| *name)
        .collect();
    let mut line = format!(
        "tensor cores: {} multiply-adds in {:.0} matrix multiplies",
        work.join(", "),
        t.instructions
    );
    if !unrated.is_empty() {
        line.push_str(&format!(
            "; the catalog has no {} rate for this GPU, so the timing model charges them issue slots only (docs/timing-model.md, \"Tensor cores\")",
            unrated.join(", ")
        ));
    }
    Some(line)
}

/// The CTAs the counts stand on, when they were extrapolated from a sample
/// (`None` when every CTA ran or the profile does not say).
fn sampling_note(profile: &KernelProfile) -> Option<String> {
    let (emulated, total) = sampling_ctas(profile)?;
    (emulated < total).then(|| {
        let error = profile.workload.sampling_error.unwrap_or(0.0);
        format!(
            "emulation: {emulated} of {total} CTAs, counts extrapolated to the grid; estimated sampling error {:.1} %{}",
            error * 100.0,
            if error > pipeline::SAMPLING_TARGET {
                format!(
                    " (above the {:.0} % target: the CTAs differ more than the sample could settle; raise --sample-ctas, or leave it out to run them all)",
                    pipeline::SAMPLING_TARGET * 100.0
                )
            } else {
                String::new()
            }
        )
    })
}

/// CTAs emulated and CTAs in the grid, where the profile records them.
fn sampling_ctas(profile: &KernelProfile) -> Option<(u64, u64)> {
    let emulated = profile.workload.ctas_emulated_count()?;
    Some((emulated, profile.launch.blocks()))
}

/// One GPU's table and notes.
pub fn text(r: &Report, width: u16) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let o = &r.occupancy;
    let name = if r.profile.kernel.is_empty() {
        "(unnamed kernel)"
    } else {
        r.profile.kernel.as_str()
    };
    let _ = writeln!(
        out,
        "kernel {name} on {} ({}), {}",
        r.gpu.name,
        r.gpu.id,
        clock_note(&r.gpu)
    );
    let _ = writeln!(
        out,
        "launch: {} x {} threads; occupancy {} blocks/SM, {} warps/SM ({:.0} %), limited by {}; {}",
        blocks(r.profile.launch.blocks()),
        r.profile.launch.threads_per_block(),
        o.active_blocks_per_sm,
        o.active_warps_per_sm,
        o.occupancy * 100.0,
        o.limiter,
        registers_note(&r.profile)
    );
    if let Some(line) = sampling_note(&r.profile) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = tensor_note(&r.profile, &r.gpu) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = newer_target_note(&r.profile, &r.gpu) {
        let _ = writeln!(out, "{line}");
    }
    for line in charge_notes(r) {
        let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
    }
    let c = &r.profile.cache;
    if !c.gpu.is_empty() {
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1} %", v * 100.0));
        let _ = writeln!(
            out,
            "cache model: L1 hit {}, L2 hit {}, DRAM {:.0} B read + {:.0} B written",
            pct(c.l1_hit_rate),
            pct(c.l2_hit_rate),
            c.dram_read_bytes.unwrap_or(0.0),
            c.dram_write_bytes.unwrap_or(0.0)
        );
    }
    let mut table = crate::table::new(width);
    table.set_header(vec!["model", "time", "cycles", "bottleneck"]);
    for p in &r.predictions {
        table.add_row(vec![
            p.model.clone(),
            human_seconds(p.seconds),
            format!("{:.0}", p.cycles),
            p.bottleneck.clone(),
        ]);
    }
    for f in &r.failed {
        table.add_row(vec![
            f.model.clone(),
            "-".to_string(),
            "-".to_string(),
            format!("not predicted: {}", f.reason),
        ]);
    }
    let _ = writeln!(out, "{table}");
    // One prediction agrees with itself: the line would say nothing.
    if let Some(a) = r.agreement.as_ref().filter(|_| r.predictions.len() > 1) {
        let _ = writeln!(
            out,
            "spread (max/min): {:.2}x; median {}; outlier: {} ({:.2} decades from the median)",
            a.spread,
            human_seconds(a.median_seconds),
            a.outlier,
            a.outlier_decades
        );
    }
    if let Some(e) = &r.explanation {
        let line = format!("why (timing model): {}", e.sentence);
        let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
    }
    if !r.hot_lines.is_empty() {
        let mut lines = crate::table::new(width);
        lines.set_header(vec![
            "cuda line",
            "cost cycles",
            "share",
            "largest term",
            "source",
        ]);
        for l in r.hot_lines.iter().take(HOT_LINES_SHOWN) {
            lines.add_row(vec![
                place(&l.file, l.line),
                format!("{:.0}", l.cost_cycles),
                format!("{:.1}%", 100.0 * l.cost_share),
                largest_term(l),
                snippet(l.text.as_deref()),
            ]);
        }
        let _ = writeln!(
            out,
            "hot CUDA lines (timing model terms on this GPU)\n{lines}"
        );
    }
    out
}

/// The name of a line's largest cost term (the busiest arithmetic pipe by
/// name where it outlasts the line's issue).
fn largest_term(l: &characterize::CudaLine) -> String {
    let pipe = l.pipe.as_deref().unwrap_or("pipe");
    let terms = [
        (l.issue_cycles + l.replay_cycles, "issue"),
        (l.pipe_cycles, pipe),
        (l.shared_cycles, "shared"),
        (l.l1_cycles, "L1"),
        (l.dram_cycles, "DRAM"),
    ];
    let mut best = terms[0];
    for t in &terms[1..] {
        if t.0 > best.0 {
            best = *t;
        }
    }
    if best.1 == "issue" && l.replay_cycles > 0.0 {
        "issue (bank replays)".to_string()
    } else {
        best.1.to_string()
    }
}

/// One GPU's JSON (schema 1).
pub fn json(r: &Report) -> Value {
    let models: Vec<serde_json::Value> = r
        .predictions
        .iter()
        .map(|p| {
            json!({
                "name": p.model,
                "seconds": p.seconds,
                "cycles": p.cycles,
                "bottleneck": p.bottleneck,
                "breakdown": p.breakdown,
            })
        })
        .collect();
    let failed: Vec<serde_json::Value> = r
        .failed
        .iter()
        .map(|f| json!({ "name": f.model, "error": f.reason }))
        .collect();
    let mut occupancy = serde_json::to_value(&r.occupancy).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut occupancy {
        map.insert(
            "registers_per_thread".into(),
            json!(r.profile.resources.registers_per_thread),
        );
        map.insert(
            "registers_source".into(),
            json!(r.profile.resources.registers_source),
        );
        if let Some(arch) = r.profile.resources.ptxas_arch {
            map.insert("ptxas_arch".into(), json!(arch.to_string()));
        }
    }
    let agreement = r.agreement.as_ref().map(|a| {
        json!({
            "spread": a.spread,
            "median_seconds": a.median_seconds,
            "outlier": a.outlier,
            "outlier_decades": a.outlier_decades,
        })
    });
    json!({
        "schema": 1,
        "gpu": r.gpu.id,
        "clock_mhz": r.gpu.clock_mhz(),
        "rated_clock_mhz": r.gpu.rated_clock_mhz(),
        "kernel": r.profile.kernel,
        "occupancy": occupancy,
        "models": models,
        "failed": failed,
        "agreement": agreement,
        "cache": (!r.profile.cache.gpu.is_empty()).then_some(&r.profile.cache),
        "sampling": sampling_ctas(&r.profile).map(|(emulated, total)| json!({
            "ctas_emulated": emulated,
            "ctas_total": total,
            "error": r.profile.workload.sampling_error,
        })),
        "explanation": r.explanation.as_ref().map(|e| json!({
            "limit": e.limit,
            "lines": e.lines.iter().map(|(f, l)| json!({ "file": f, "line": l })).collect::<Vec<_>>(),
            "sentence": e.sentence,
        })),
        "hot_lines": r.hot_lines,
        "notes": notes(r),
    })
}

/// The notes the table prints beside the predictions, in its order: a PTX
/// target newer than the GPU, then [`charge_notes`]. Unwrapped, one string
/// each.
fn notes(r: &Report) -> Vec<String> {
    newer_target_note(&r.profile, &r.gpu)
        .into_iter()
        .chain(charge_notes(r))
        .collect()
}

/// Where the timing model's charge is known to fall short, in the table's
/// order: register spills, machine code past the instruction caches' full
/// rate, atomics that meet on one word. The table wraps them; the JSON
/// ([`notes`]) keeps them whole.
fn charge_notes(r: &Report) -> Vec<String> {
    [
        spill_note(&r.profile),
        fetch_note(r),
        atomic_note(&r.profile),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The hierarchical roofline of the GPU with the kernel placed at its DRAM
/// intensity and the performance the median model predicts.
pub fn roofline_svg(r: &Report) -> Result<String, models::ModelError> {
    let (params, unit, result) = models::roofline::adapter::analyse(&r.profile, &r.gpu, true)?;
    let seconds = r
        .agreement
        .as_ref()
        .map_or(result.seconds, |a| a.median_seconds);
    let intensity = result.levels.first().map_or(0.0, |l| l.intensity);
    let label = if r.profile.kernel.is_empty() {
        "kernel".to_string()
    } else {
        r.profile.kernel.clone()
    };
    let chart = Chart {
        title: format!("{} roofline", r.gpu.name),
        unit: unit.name().to_string(),
        peak_g: params.peak / 1e9,
        roofs: params
            .levels
            .iter()
            .map(|l| (l.name.clone(), l.bandwidth / 1e9))
            .collect(),
        points: vec![(label, intensity, params.work / seconds / 1e9)],
    };
    render(&chart)
}
