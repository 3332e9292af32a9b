//! `ptxperf predict`: every analytical model side by side for one kernel on one GPU.
//!
//! The profile comes from a hand-written TOML file (`--profile P.toml`, see
//! examples/profiles/) or from emulating a launch spec (`predict SPEC.toml`)
//! through the `pipeline` crate: load (NVRTC for `.cu`), emulate once with the
//! characterize collector, run the cache model for the GPU, then the models.
//! Output: a table (model,
//! time, cycles, bottleneck; default models that cannot handle the profile
//! are listed with the reason), the occupancy and its limiter, the spread
//! between the models and the outlier; or JSON schema 1 (`--json`); and
//! optionally an SVG roofline chart (`--svg FILE`).

use std::path::PathBuf;

use arch::{Gpu, Occupancy};

use models::roofline::svg::{Chart, render};
use models::{Agreement, Prediction, registry};
use profile::{KernelProfile, ProfileError};
use serde_json::json;

use crate::error::{CliError, read_input};

/// Predict a kernel's time on a GPU with every analytical model.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf predict examples/saxpy.toml --gpu a100-pcie-40gb
  ptxperf predict examples/saxpy.toml --gpu rtx-a4000 --model timing --json
  ptxperf predict experiments/seed002/matmul_tiled.toml --gpu h100-sxm5-80gb --set N=256 --svg roofline.svg
  ptxperf predict --profile examples/profiles/mwp-cwp-worked-example.toml --gpu hong-kim-2009-example
  ptxperf predict examples/saxpy.toml --gpu rtx-a4000 --gpu a100-pcie-40gb --gpu h100-sxm5-80gb
  ptxperf predict examples/saxpy.toml --gpu rtx-a4000,h100-sxm5-80gb --model timing --json

The models: docs/models.md. The JSON fields: docs/json.md.")]
pub struct Args {
    /// Launch spec (TOML): the kernel is emulated to build its profile.
    pub spec: Option<PathBuf>,
    /// Hand-written kernel profile (TOML), e.g. examples/profiles/kothapalli-list-ranking.toml.
    #[arg(long, value_name = "P.toml")]
    pub profile: Option<PathBuf>,
    /// GPU id from the catalog (`ptxperf gpus` lists them); repeatable or a
    /// comma list: the kernel is emulated once and predicted on each GPU
    /// (cache model, occupancy and models per GPU), one table per GPU, then
    /// a comparison by the recommended `timing` model.
    #[arg(long, value_name = "ID", required = true, value_delimiter = ',')]
    pub gpu: Vec<String>,
    /// Run only this model (repeatable); default: all but the MWP-CWP
    /// rounding variants. A default model that cannot handle the profile is
    /// listed as "not predicted" with the reason (JSON: `failed`); one named
    /// here that fails is an error.
    #[arg(long = "model", value_name = "NAME")]
    pub models: Vec<String>,
    /// Print JSON (schema 1) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (shown only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write a roofline chart with the kernel placed on it, as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// With a launch spec: emulate only K CTAs (spread over the grid; while they disagree, up to 16 K that do work, stratified by a probe of the grid) and extrapolate.
    #[arg(long, value_name = "K")]
    pub sample_ctas: Option<u64>,
    /// With a launch spec: override a define, --set N=1024. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// With a launch spec: reconvergence policy of the emulator.
    #[arg(long, value_name = "POLICY", default_value = "ipdom", value_parser = ["ipdom", "barrier"])]
    pub reconvergence: String,
    /// The CUDA compiler release that will build the kernel you time
    /// ("13.0"): the timing model follows its SASS where releases are known
    /// to differ (8/16-bit unsigned to FP32 runs on the integer ALU from
    /// CC 8.6 with 13.x). Default: the profile's `resources.compiler`, the
    /// ptxas that reported its registers.
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = parse_compiler)]
    pub compiler: Option<profile::CompilerVersion>,
    /// The core clock the GPU holds while the kernel runs, MHz: what
    /// `nvidia-smi --query-gpu=clocks.sm --format=csv -lms 100` shows during
    /// the run, or a clock locked with `nvidia-smi -lgc`. Default: the
    /// catalog's rated clock (`ptxperf gpus ID`), which GPU Boost can run a
    /// card well above or below. DRAM bandwidth stays the catalog's.
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,
}

fn parse_compiler(text: &str) -> Result<profile::CompilerVersion, String> {
    profile::CompilerVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a release like 12.9 or 13.0"))
}

/// Everything one run computes, before it is printed.
struct Report {
    profile: KernelProfile,
    gpu: Gpu,
    occupancy: Occupancy,
    predictions: Vec<Prediction>,
    /// Default models that could not handle the profile, with the reason.
    failed: Vec<pipeline::ModelFailure>,
    agreement: Option<Agreement>,
    /// CUDA lines priced on this GPU, most costly first.
    hot_lines: Vec<characterize::CudaLine>,
    /// The timing model's bottleneck and the lines that cause it.
    explanation: Option<pipeline::lines::Explanation>,
}

/// Rows of the hot CUDA lines under the models' table.
const HOT_LINES_SHOWN: usize = 5;

pub fn run(args: Args) -> Result<(), CliError> {
    let path = match (&args.spec, &args.profile) {
        (Some(_), Some(_)) => {
            return Err(CliError::usage(
                "give either a launch spec or --profile, not both",
            ));
        }
        (None, None) => return Err(CliError::usage("give a launch spec or --profile P.toml")),
        (Some(spec), None) => return run_spec(&args, spec),
        (None, Some(p)) => p.clone(),
    };
    registry::check_names(&args.models).map_err(|e| CliError::usage_of(&e))?;

    let text = read_input(&path)?;
    let mut profile = KernelProfile::from_toml(&text).map_err(|e| profile_error(&path, e))?;
    if args.compiler.is_some() {
        profile.resources.compiler = args.compiler;
    }
    let gpus = gpus(&args)?;
    let per_gpu = pipeline::predict_profile_on_gpus(&profile, &gpus, &args.models);
    let fail = |e: pipeline::PipelineError| match e {
        pipeline::PipelineError::Model(m) | pipeline::PipelineError::Arch(m) => {
            let m = m.strip_prefix("error: ").unwrap_or(&m);
            CliError::diagnostic(format!("{}: error: {m}", path.display()))
        }
        other => CliError::of(&other),
    };
    emit_all(&args, gpus, per_gpu, &fail)
}

/// The `--gpu` GPUs from the catalog, each once.
fn gpus(args: &Args) -> Result<Vec<Gpu>, CliError> {
    if args.gpu.len() > 1 {
        if args.clock_mhz.is_some() {
            return Err(CliError::usage(
                "--clock-mhz is one GPU's clock: give it with a single --gpu",
            ));
        }
        if args.svg.is_some() {
            return Err(CliError::usage("--svg takes one --gpu"));
        }
    }
    let mut gpus: Vec<Gpu> = Vec::with_capacity(args.gpu.len());
    for id in &args.gpu {
        let gpu = super::catalog_gpu(id.trim(), args.clock_mhz)?;
        if gpus.iter().any(|g| g.id == gpu.id) {
            return Err(CliError::usage(format!("--gpu {} is given twice", gpu.id)));
        }
        gpus.push(gpu);
    }
    if gpus.is_empty() {
        return Err(CliError::usage("give --gpu ID"));
    }
    Ok(gpus)
}

/// One GPU: its report, or its error exactly as before. Several: every
/// GPU's report, the GPUs that could not be predicted, and the comparison;
/// an error only when no GPU was predicted.
fn emit_all(
    args: &Args,
    gpus: Vec<Gpu>,
    per_gpu: Vec<pipeline::GpuPredictions>,
    fail: &dyn Fn(pipeline::PipelineError) -> CliError,
) -> Result<(), CliError> {
    let comparison = pipeline::compare(&per_gpu);
    let several = gpus.len() > 1;
    let mut reports = Vec::new();
    let mut failed_gpus = Vec::new();
    let mut first_error = None;
    for (gpu, g) in gpus.into_iter().zip(per_gpu) {
        match g.result {
            Ok(p) => reports.push(Report {
                profile: p.profile,
                gpu,
                occupancy: p.occupancy,
                predictions: p.predictions,
                failed: p.failed,
                agreement: p.agreement,
                hot_lines: p.hot_lines,
                explanation: p.explanation,
            }),
            Err(e) => {
                failed_gpus.push((gpu.id.clone(), fail_line(&e)));
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error.filter(|_| reports.is_empty() || !several) {
        return Err(fail(e));
    }
    if !several {
        return match reports.pop() {
            Some(report) => emit(args, &report),
            None => Err(CliError::usage("give --gpu ID")),
        };
    }
    let out = if args.json {
        let value = json!({
            "schema": 1,
            "kernel": reports.first().map(|r| r.profile.kernel.clone()).unwrap_or_default(),
            "gpus": reports.iter().map(to_json).collect::<Vec<_>>(),
            "failed_gpus": failed_gpus
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
        });
        let mut text = serde_json::to_string_pretty(&value)
            .map_err(|e| CliError::diagnostic(format!("error: {e}")))?;
        text.push('\n');
        text
    } else {
        let mut text = reports
            .iter()
            .map(table_text)
            .collect::<Vec<_>>()
            .join("\n");
        text.push('\n');
        text.push_str(&comparison_text(&comparison, &failed_gpus));
        text
    };
    crate::output::emit(&out)
}

/// The first line of a GPU's error, without its `error: ` prefix.
fn fail_line(e: &pipeline::PipelineError) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// The GPUs side by side, fastest first, by the recommended model.
fn comparison_text(rows: &[pipeline::ComparisonRow], failed: &[(String, String)]) -> String {
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
    let mut table = crate::table::new();
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

/// `predict SPEC.toml`: load, emulate, simulate the caches, predict.
fn run_spec(args: &Args, spec: &std::path::Path) -> Result<(), CliError> {
    if args.sample_ctas == Some(0) {
        return Err(CliError::usage("--sample-ctas must be at least 1"));
    }
    let sets = crate::args::parse_sets(&args.set)?;
    registry::check_names(&args.models).map_err(|e| CliError::usage_of(&e))?;
    let gpus = gpus(args)?;
    let fail = |e: pipeline::PipelineError| CliError::of(&e);
    let per_gpu =
        super::report::with_progress(args.quiet, || predict_spec(args, spec, &sets, &gpus))
            .map_err(fail)?;
    emit_all(args, gpus, per_gpu, &fail)
}

/// Load, emulate and predict a launch spec on `gpus` (the library's part of
/// [`run_spec`], under its progress).
fn predict_spec(
    args: &Args,
    spec: &std::path::Path,
    sets: &[(String, String)],
    gpus: &[arch::Gpu],
) -> Result<Vec<pipeline::GpuPredictions>, pipeline::PipelineError> {
    let loaded = pipeline::load_spec(spec, sets)?;
    let options = pipeline::Options {
        policy: if args.reconvergence == "barrier" {
            pipeline::Policy::Barrier
        } else {
            pipeline::Policy::Ipdom
        },
        sample_ctas: args.sample_ctas,
        // The cache model for the first GPU now; the others rerun it on the trace.
        gpu: gpus.first().cloned(),
        ..pipeline::Options::default()
    };
    let mut profiled = pipeline::profile(&loaded, &options)?;
    if args.compiler.is_some() {
        profiled.profile.resources.compiler = args.compiler;
    }
    Ok(pipeline::predict_on_gpus(&profiled, gpus, &args.models))
}

/// Write the SVG if asked, then the table or JSON.
fn emit(args: &Args, report: &Report) -> Result<(), CliError> {
    if let Some(svg_path) = &args.svg {
        let svg = roofline_svg(report)?;
        crate::output::write_file(svg_path, svg)?;
    }
    let out = if args.json {
        let value = to_json(report);
        let mut text = serde_json::to_string_pretty(&value)
            .map_err(|e| CliError::diagnostic(format!("error: {e}")))?;
        text.push('\n');
        text
    } else {
        table_text(report)
    };
    crate::output::emit(&out)
}

fn profile_error(path: &std::path::Path, e: ProfileError) -> CliError {
    match e {
        ProfileError::Parse { line, col, message } => {
            CliError::diagnostic(format!("{}:{line}:{col}: error: {message}", path.display()))
        }
        ProfileError::Invalid { field, message } => {
            CliError::diagnostic(format!("{}: error: {field}: {message}", path.display()))
        }
    }
}

/// A time with a unit that keeps 4 significant digits readable.
fn human_seconds(s: f64) -> String {
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
            profile::RegisterSource::Ptxas => "from ptxas".to_string(),
            profile::RegisterSource::Estimate => format!(
                "estimated from the PTX, ±{} %: install ptxas (scripts/setup.sh or PTXPERF_PTXAS) for the exact count",
                ptx::analysis::registers::ERROR_BAND_PERCENT
            ),
        };
        format!("{} registers/thread ({source})", r.registers_per_thread)
    }
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

fn table_text(r: &Report) -> String {
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
        "launch: {} blocks x {} threads; occupancy {} blocks/SM, {} warps/SM ({:.0} %), limited by {}; {}",
        r.profile.launch.blocks(),
        r.profile.launch.threads_per_block(),
        o.active_blocks_per_sm,
        o.active_warps_per_sm,
        o.occupancy * 100.0,
        o.limiter,
        registers_note(&r.profile)
    );
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
    let mut table = crate::table::new();
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
        let _ = writeln!(out, "{}", crate::table::wrap(&line));
    }
    if !r.hot_lines.is_empty() {
        let mut lines = crate::table::new();
        lines.set_header(vec![
            "cuda line",
            "cost cycles",
            "share",
            "largest term",
            "source",
        ]);
        for l in r.hot_lines.iter().take(HOT_LINES_SHOWN) {
            let file = l.file.rsplit(['/', '\\']).next().unwrap_or(&l.file);
            lines.add_row(vec![
                format!("{file}:{}", l.line),
                format!("{:.0}", l.cost_cycles),
                format!("{:.1}%", 100.0 * l.cost_share),
                largest_term(l).to_string(),
                l.text.as_deref().map_or(String::new(), |t| {
                    let t = t.trim();
                    if t.chars().count() > 60 {
                        format!("{}...", t.chars().take(57).collect::<String>())
                    } else {
                        t.to_string()
                    }
                }),
            ]);
        }
        let _ = writeln!(
            out,
            "hot CUDA lines (timing model terms on this GPU)\n{lines}"
        );
    }
    out
}

/// The name of a line's largest cost term.
fn largest_term(l: &characterize::CudaLine) -> &'static str {
    let terms = [
        (l.issue_cycles + l.replay_cycles, "issue"),
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
        "issue (bank replays)"
    } else {
        best.1
    }
}

fn to_json(r: &Report) -> serde_json::Value {
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
        "explanation": r.explanation.as_ref().map(|e| json!({
            "limit": e.limit,
            "lines": e.lines.iter().map(|(f, l)| json!({ "file": f, "line": l })).collect::<Vec<_>>(),
            "sentence": e.sentence,
        })),
        "hot_lines": r.hot_lines,
    })
}

/// The hierarchical roofline of the GPU with the kernel placed at its DRAM
/// intensity and the performance the median model predicts.
fn roofline_svg(r: &Report) -> Result<String, CliError> {
    let fail = |e: models::ModelError| CliError::diagnostic(format!("error: {e}"));
    let (params, unit, result) =
        models::roofline::adapter::analyse(&r.profile, &r.gpu, true).map_err(fail)?;
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
    render(&chart).map_err(fail)
}
