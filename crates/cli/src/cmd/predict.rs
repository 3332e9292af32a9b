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

use arch::Gpu;

use models::registry;
use profile::{KernelProfile, ProfileError};
use report::predict::{self, Report};

use crate::error::{CliError, read_input};
use crate::output::json_text;

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
    /// GPU id from the catalog (`ptxperf gpus` lists them), or a GPU file of
    /// your own (`PATH.toml`, the catalog's format: gpus/README.md, "A GPU of
    /// your own"); repeatable or a
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
    /// Without ptxas, predict with the registers per thread estimated from
    /// the PTX even where the estimate's error (±90 %) changes the
    /// occupancy; without this flag that is refused, with the reason.
    #[arg(long)]
    pub register_estimate: bool,
}

fn parse_compiler(text: &str) -> Result<profile::CompilerVersion, String> {
    profile::CompilerVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a release like 12.9 or 13.0"))
}

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
    if profile.states_no_work() {
        // Not an error: a launch-only profile is a valid (if odd) input, but
        // it is far more often an empty or wrong file.
        eprintln!(
            "warning: {}: the profile states no instructions, traffic or analysis figures, \
             so every model sees an empty kernel and predicts the launch overhead alone \
             (examples/profiles/ shows the sections)",
            path.display()
        );
    }
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
        let gpu = super::named_gpu(id.trim(), args.clock_mhz)?;
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
            Ok(p) => reports.push(Report::new(gpu, p)),
            Err(e) => {
                failed_gpus.push((gpu.id.clone(), predict::fail_line(&e)));
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
        json_text(&predict::several_json(&reports, &comparison, &failed_gpus))?
    } else {
        predict::several_text(&reports, &comparison, &failed_gpus, crate::table::width())
    };
    crate::output::emit(&out)
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
    if !args.register_estimate {
        for gpu in gpus {
            if let Some(doubt) = pipeline::register_estimate_doubt(&profiled.profile, gpu)? {
                return Err(pipeline::PipelineError::Arch(format!(
                    "error: {doubt}.\n  Install ptxas for the exact count (`bash scripts/setup.sh`, \
                     or PTXPERF_PTXAS=/path/to/ptxas), or pass --register-estimate to predict \
                     with the estimate all the same."
                )));
            }
        }
    }
    Ok(pipeline::predict_spec_on_gpus(
        &loaded,
        &profiled,
        gpus,
        &args.models,
    ))
}

/// Write the SVG if asked, then the table or JSON.
fn emit(args: &Args, report: &Report) -> Result<(), CliError> {
    if let Some(svg_path) = &args.svg {
        let svg = predict::roofline_svg(report)
            .map_err(|e| CliError::diagnostic(format!("error: {e}")))?;
        crate::output::write_file(svg_path, svg)?;
    }
    let out = if args.json {
        json_text(&predict::json(report))?
    } else {
        predict::text(report, crate::table::width())
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
