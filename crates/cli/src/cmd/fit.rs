//! `ptxperf fit`: measured cost models (seed 004) and GPU calibration from
//! microbenchmarks.

use crate::error::{CliError, read_input};
use crate::output::{emit, json_text};
use clap::Subcommand;
use report::fit as fit_report;

use fit::forms::Form;
use fit::measurements::parse_csv;
use fit::plot::{PlotSpec, render_svg};
use fit::sets::{finalise, fit_sets};
use std::path::{Path, PathBuf};

/// Fit cost models to measurements, check them, and calibrate GPUs.
///
/// Examples:
///   ptxperf fit csv measurements.csv                  # one model per data set, 10 % check, finalised model
///   ptxperf fit csv m.csv --form linear --svg plots/  # seed 004's f(x) = A x + B, with plots
///   ptxperf fit gpu-benches ../shared/data/groundtruth/gpu-benches --write gpus/calibrated
///   ptxperf fit measure --gpu h100-pcie-80gb --out m.csv --reps 3   # needs `--features gpu` and a GPU
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// Fit a measurement CSV (columns gpu,benchmark,x,time,unit,repetition; one data set per repetition).
    Csv {
        /// The measurement CSV.
        file: PathBuf,
        /// Model form: auto (lowest AIC), linear, hinge, log or power.
        #[arg(long, default_value = "auto")]
        form: String,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Write one SVG per data set (points and fitted curve) into this folder.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Calibrate bandwidth, latency, cache bandwidth and launch overhead from gpu-benches tables.
    GpuBenches {
        /// Folder holding gpu-<benchmark>_<gpu>.txt files.
        dir: PathBuf,
        /// Write gpus-calibration TOML files (one per GPU) into this folder.
        #[arg(long)]
        write: Option<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Write SVG plots (stream bandwidth vs occupancy, latency vs footprint) into this folder.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Run the microbenchmarks on this machine's GPU and write a measurement CSV (build with `--features gpu`).
    Measure {
        /// Catalog id written in the CSV's gpu column.
        #[arg(long)]
        gpu: String,
        /// The measurement CSV to write.
        #[arg(long)]
        out: PathBuf,
        /// Repetitions (one data set each).
        #[arg(long, default_value_t = 3)]
        reps: u32,
        /// Dependent operations per thread for the op kernels: `1..256` doubles, `1,3,5` lists.
        #[arg(long)]
        ops: Option<String>,
        /// Words per thread for the transfer kernels, same syntax as --ops.
        #[arg(long)]
        elems: Option<String>,
    },
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.what {
        What::Csv {
            file,
            form,
            json,
            svg,
        } => run_csv(&file, &form, json, svg.as_deref()),
        What::GpuBenches {
            dir,
            write,
            json,
            svg,
        } => run_benches(&dir, write.as_deref(), json, svg.as_deref()),
        What::Measure {
            gpu,
            out,
            reps,
            ops,
            elems,
        } => run_measure(gpu, &out, reps, ops.as_deref(), elems.as_deref()),
    }
}

fn run_measure(
    gpu: String,
    out: &Path,
    reps: u32,
    ops: Option<&str>,
    elems: Option<&str>,
) -> Result<(), CliError> {
    let opts = gpurun::MeasureOptions {
        gpu,
        repetitions: reps,
    };
    let mut sweep = gpurun::Sweep::default();
    let usage = |e: gpurun::GpuRunError| CliError::usage_of(&e);
    if let Some(spec) = ops {
        sweep.ops = gpurun::sweep::parse_counts("--ops", spec).map_err(usage)?;
    }
    if let Some(spec) = elems {
        sweep.elems = gpurun::sweep::parse_counts("--elems", spec).map_err(usage)?;
    }
    let rows = gpurun::measure_sweep(&opts, &sweep).map_err(|e| CliError::of(&e))?;
    crate::output::write_file(out, gpurun::to_csv(&rows))?;
    println!("wrote {} measurement(s) to {}", rows.len(), out.display());
    Ok(())
}

fn run_csv(file: &Path, form: &str, json: bool, svg: Option<&Path>) -> Result<(), CliError> {
    let form = match form {
        "auto" => None,
        f => Some(Form::parse(f).ok_or_else(|| {
            CliError::usage(format!(
                "unknown form `{f}`: expected auto, linear, hinge, log or power"
            ))
        })?),
    };
    let text = read_input(file)?;
    let name = file.display().to_string();
    let sets = parse_csv(&name, &text).map_err(|e| CliError::of(&e))?;
    if sets.is_empty() {
        return Err(CliError::diagnostic(format!(
            "{name}: error: no measurements"
        )));
    }
    let reports = fit_sets(&name, &sets, form).map_err(|e| CliError::of(&e))?;
    if let Some(dir) = svg {
        for (set, r) in sets.iter().zip(&reports) {
            let title = format!(
                "{} {} rep {}",
                set.key.gpu, set.key.benchmark, set.key.repetition
            );
            let y_label = format!("time ({})", set.unit.name());
            let plot = PlotSpec {
                title: &title,
                x_label: "x",
                y_label: &y_label,
                xs: &set.xs,
                ys: &set.times,
                model: Some(&r.fitted.model),
                log_x: false,
            };
            let name = format!(
                "{}_{}_{}.svg",
                set.key.gpu, set.key.benchmark, set.key.repetition
            );
            write_svg(dir, &name, &plot)?;
        }
    }
    let finals = finalise(&reports, &sets);
    emit(&if json {
        json_text(&fit_report::sets_json(&reports, &finals))?
    } else {
        fit_report::sets_text(&reports, &finals, crate::table::width())
    })
}

fn run_benches(
    dir: &Path,
    write: Option<&Path>,
    json: bool,
    svg: Option<&Path>,
) -> Result<(), CliError> {
    let provenance = "te42kyfo/gpu-benches @ 1c36d50 (shared ground-truth folder)";
    let cals = fit::bench_dir::calibrate_dir(dir, provenance).map_err(|e| CliError::of(&e))?;
    if cals.is_empty() {
        return Err(CliError::diagnostic(format!(
            "{}: error: no gpu-<benchmark>_<gpu>.txt files found",
            dir.display()
        )));
    }
    if let Some(out) = write {
        std::fs::create_dir_all(out).map_err(|e| {
            CliError::diagnostic(format!(
                "{}: error: cannot create folder: {e}",
                out.display()
            ))
        })?;
        for c in &cals {
            let text = c.to_toml().map_err(|e| CliError::of(&e))?;
            let path = out.join(format!("{}.toml", c.gpu));
            crate::output::write_file(&path, text)?;
        }
    }
    if let Some(svg_dir) = svg {
        for c in &cals {
            let plots =
                fit::calibration_plots::calibration_plots(dir, c).map_err(|e| CliError::of(&e))?;
            for p in &plots {
                write_svg(svg_dir, &p.file_name, &p.spec())?;
            }
        }
    }
    let mut out = if json {
        json_text(&fit_report::calibrations_json(&cals))?
    } else {
        fit_report::calibrations_text(&cals, crate::table::width())
    };
    if let Some(dir) = write.filter(|_| !json) {
        out.push_str(&format!(
            "wrote {} calibration file(s) to {}\n",
            cals.len(),
            dir.display()
        ));
    }
    emit(&out)
}

fn write_svg(dir: &Path, name: &str, plot: &PlotSpec<'_>) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::diagnostic(format!(
            "{}: error: cannot create folder: {e}",
            dir.display()
        ))
    })?;
    let svg = render_svg(plot).map_err(|e| CliError::user(e.to_string()))?;
    let path = dir.join(name);
    crate::output::write_file(&path, svg)
}
