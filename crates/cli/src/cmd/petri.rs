//! `ptxperf petri`: the Petri-net warp model of Gogolinska et al. (seed 003)
//! from instruction counts: one configuration, or a sweep over thread counts
//! with a fixed total amount of work; PNML / DOT export of the generated net;
//! or from launch specs: each kernel is emulated (per thread count with
//! `--threads`), its instruction classes are mapped to x_a, x_s, x_g per warp
//! ([`petri::counts`]) and the model is run on one block's warps.

use crate::error::CliError;
use crate::output::{emit, json_text, write_file};
use report::petri as petri_report;

use petri::sweep::{self, SweepConfig};
use petri::warp::{self, DEFAULT_GLOBAL_LATENCY, DEFAULT_SCHEDULERS, DEFAULT_SHARED_LATENCY};
use petri::{InhibitorStyle, LatencyCounting, WarpCounts, WarpModelConfig};
use std::path::PathBuf;

/// Run the Petri-net warp model (Gogolinska et al.) on instruction counts.
///
/// One configuration: `--warps N` warps, each executing `--xa` arithmetic,
/// `--xs` shared-memory and `--xg` global-memory instructions, on one SM with
/// `--schedulers` warp schedulers. Prints the model steps (the paper's time
/// unit), the idle steps (the `waiting` transition) and each warp's finishing
/// step, averaged over `--runs` seeded runs.
///
/// Sweep: `--sweep-threads 32,64,...` takes `--xa/--xs/--xg` as totals over all
/// threads of the block; for T threads each thread gets ceil(total / T) of each
/// kind, there are ceil(T / 32) warps, and each warp executes the per-thread
/// counts (its 32 threads run in lock step).
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf petri --warps 8 --xa 1000 --xs 100 --xg 200
  ptxperf petri --warps 4 --xa 50 --xg 10 --l1 400 --schedulers 2 --runs 20 --json
  ptxperf petri --warps 2 --xa 3 --xs 1 --xg 1 --pnml net.pnml --dot net.dot
  ptxperf petri --sweep-threads 32,64,128,256,512,1024 --xa 3000000 --xg 400000 --svg steps.svg
  ptxperf petri kernels/radix_global/spec.toml
  ptxperf petri docs/petri/radix_global.toml docs/petri/radix_tree.toml --threads 32,64,128 --svg steps.svg")]
pub struct Args {
    /// Launch specs to emulate: the counts x_a, x_s, x_g per warp come from
    /// the emulated run (one block's warps on one SM). Several specs are
    /// compared (one line each in the --svg plot).
    specs: Vec<PathBuf>,
    /// With specs: override a define, --set N=1024. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// With specs: comma-separated block sizes; each is given to the define
    /// named by --threads-define (the spec derives its block and sizes from it).
    #[arg(long, value_delimiter = ',')]
    threads: Vec<u32>,
    /// The define that --threads sets.
    #[arg(long, default_value = "THREADS")]
    threads_define: String,
    /// With specs: emulate only this many CTAs (spread over the grid; more, stratified by a probe of the grid, while they disagree) and extrapolate.
    #[arg(long)]
    sample_ctas: Option<u64>,
    /// Number of warps (one warp part of the net each).
    #[arg(long)]
    warps: Option<usize>,
    /// Arithmetic instructions per warp (with --sweep-threads: in total).
    #[arg(long, default_value_t = 0)]
    xa: u32,
    /// Shared-memory accesses per warp (with --sweep-threads: in total).
    #[arg(long, default_value_t = 0)]
    xs: u32,
    /// Global-memory accesses per warp (with --sweep-threads: in total).
    #[arg(long, default_value_t = 0)]
    xg: u32,
    /// Global memory latency l1, in steps.
    #[arg(long, default_value_t = DEFAULT_GLOBAL_LATENCY)]
    l1: u32,
    /// Shared memory latency l2, in steps.
    #[arg(long, default_value_t = DEFAULT_SHARED_LATENCY)]
    l2: u32,
    /// Warp schedulers of the SM (tokens of the SM place).
    #[arg(long, default_value_t = DEFAULT_SCHEDULERS)]
    schedulers: u32,
    /// How the latency counters are wired: count-up (closest to the paper's
    /// text; latency l plus about one step) or countdown (exactly l).
    #[arg(long, value_enum, default_value_t = Counting::CountUp)]
    latency_counting: Counting,
    /// Runs to average (the paper averages ten).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Seed of the first run; the others follow from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Step budget per run (default: generous, from the counts).
    #[arg(long)]
    budget: Option<u64>,
    /// Comma-separated thread counts to sweep over, e.g. 32,64,128.
    #[arg(long, value_delimiter = ',')]
    sweep_threads: Vec<u32>,
    /// With --sweep-threads: write the steps-against-threads plot (SVG) here.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write the generated net as PNML (ISO/IEC 15909-2, P/T net type).
    #[arg(long)]
    pnml: Option<PathBuf>,
    /// PNML inhibitor arcs as a toolspecific child instead of the type="inhibitor" attribute.
    #[arg(long)]
    pnml_toolspecific: bool,
    /// Write the generated net as Graphviz DOT.
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Counting {
    CountUp,
    Countdown,
}

impl From<Counting> for LatencyCounting {
    fn from(c: Counting) -> Self {
        match c {
            Counting::CountUp => LatencyCounting::CountUp,
            Counting::Countdown => LatencyCounting::Countdown,
        }
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.runs == 0 {
        return Err(CliError::usage("--runs must be at least 1"));
    }
    if args.schedulers == 0 {
        return Err(CliError::usage("--schedulers must be at least 1"));
    }
    if !args.specs.is_empty() {
        spec_path::run_specs(&args)
    } else if !args.threads.is_empty() || !args.set.is_empty() {
        Err(CliError::usage("--threads and --set need launch specs"))
    } else if args.sweep_threads.is_empty() {
        run_single(&args)
    } else {
        run_sweep(&args)
    }
}

fn run_single(args: &Args) -> Result<(), CliError> {
    let Some(warps) = args.warps else {
        return Err(CliError::usage(
            "give --warps N (or --sweep-threads LIST for a sweep)",
        ));
    };
    if warps == 0 {
        return Err(CliError::usage("--warps must be at least 1"));
    }
    if args.svg.is_some() {
        return Err(CliError::usage("--svg plots a sweep: add --sweep-threads"));
    }
    let config = WarpModelConfig {
        warps: vec![WarpCounts::new(args.xa, args.xs, args.xg); warps],
        schedulers: args.schedulers,
        global_latency: args.l1,
        shared_latency: args.l2,
        latency_counting: args.latency_counting.into(),
    };
    if args.pnml.is_some() || args.dot.is_some() {
        let wnet = warp::build(&config).map_err(|e| CliError::of(&e))?;
        if let Some(path) = &args.pnml {
            let style = if args.pnml_toolspecific {
                InhibitorStyle::ToolSpecific
            } else {
                InhibitorStyle::TypeAttribute
            };
            write_file(path, petri::to_pnml(&wnet.net, style))?;
        }
        if let Some(path) = &args.dot {
            write_file(path, petri::to_dot(&wnet.net))?;
        }
    }
    let report =
        warp::simulate(&config, args.runs, args.seed, args.budget).map_err(|e| CliError::of(&e))?;
    emit(&if args.json {
        json_text(&petri_report::model_json(&report))?
    } else {
        petri_report::model_text(&report, crate::table::width())
    })
}

fn run_sweep(args: &Args) -> Result<(), CliError> {
    if args.warps.is_some() {
        return Err(CliError::usage(
            "--warps and --sweep-threads exclude each other: the sweep derives the warps from the thread counts",
        ));
    }
    if args.pnml.is_some() || args.dot.is_some() {
        return Err(CliError::usage(
            "--pnml/--dot export one configuration: use --warps instead of --sweep-threads",
        ));
    }
    if let Some(&bad) = args.sweep_threads.iter().find(|&&t| t == 0) {
        return Err(CliError::usage(format!(
            "--sweep-threads: thread count {bad} must be positive"
        )));
    }
    let cfg = SweepConfig {
        total: WarpCounts::new(args.xa, args.xs, args.xg),
        threads: args.sweep_threads.clone(),
        schedulers: args.schedulers,
        global_latency: args.l1,
        shared_latency: args.l2,
        latency_counting: args.latency_counting.into(),
        runs: args.runs,
        seed: args.seed,
    };
    let rows = sweep::sweep(&cfg).map_err(|e| CliError::of(&e))?;
    let best = sweep::best(&rows).map(|r| r.threads);
    if let Some(path) = &args.svg {
        let title = petri_report::sweep_title(&cfg.total);
        let svg = sweep::plot_svg(&rows, &title).map_err(|e| CliError::user(e.to_string()))?;
        write_file(path, &svg)?;
    }
    emit(&if args.json {
        json_text(&petri_report::sweep_json(&cfg, &rows, best))?
    } else {
        petri_report::sweep_text(&cfg, &rows, best, crate::table::width())
    })
}

/// The emulator path: launch spec -> emulated instruction classes -> counts
/// per warp -> model ([`petri::emulated`]).
mod spec_path {
    use super::{Args, petri_report, write_file};
    use crate::error::CliError;
    use crate::output::{emit, json_text};

    use petri::emulated::{self, SpecSweep};
    use petri::sweep::plot_series_svg;

    pub fn run_specs(args: &Args) -> Result<(), CliError> {
        if args.warps.is_some() || !args.sweep_threads.is_empty() {
            return Err(CliError::usage(
                "launch specs give the counts: leave out --warps and --sweep-threads",
            ));
        }
        if args.pnml.is_some() || args.dot.is_some() {
            return Err(CliError::usage(
                "--pnml/--dot export a net given by counts: use --warps",
            ));
        }
        if args.sample_ctas == Some(0) {
            return Err(CliError::usage("--sample-ctas must be at least 1"));
        }
        if let Some(&bad) = args.threads.iter().find(|&&t| t == 0) {
            return Err(CliError::usage(format!(
                "--threads: {bad} must be positive"
            )));
        }
        let sets = crate::args::parse_sets(&args.set)?;
        let cfg = SpecSweep {
            schedulers: args.schedulers,
            global_latency: args.l1,
            shared_latency: args.l2,
            latency_counting: args.latency_counting.into(),
            runs: args.runs,
            seed: args.seed,
            budget: args.budget,
            sample_ctas: args.sample_ctas,
            threads_define: args.threads_define.clone(),
            threads: args.threads.clone(),
        };
        let rows = emulated::run_specs(&args.specs, &sets, &cfg)?;
        let best = emulated::best_threads(&rows);
        if let Some(path) = &args.svg {
            let title = petri_report::specs_title(&cfg);
            let series = emulated::series(&args.specs, &rows);
            write_file(
                path,
                &plot_series_svg(&series, &title).map_err(|e| CliError::user(e.to_string()))?,
            )?;
        }
        emit(&if args.json {
            json_text(&petri_report::specs_json(&rows, &best))?
        } else {
            petri_report::specs_text(&cfg, &rows, &best, crate::table::width())
        })
    }
}
