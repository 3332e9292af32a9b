//! `ptxperf run`: execute a kernel described by a launch spec on the SIMT
//! emulator, print its printf output and a short summary, optionally dump
//! every pointer argument's buffer.

use std::path::{Path, PathBuf};
use std::time::Instant;

use emu::exec::{LaunchOptions, RunError, run_ptx};
use emu::observer::NoObserver;
use emu::simt::stack::Policy;

use crate::error::CliError;

/// Run a kernel on the SIMT emulator (CPU), as a launch spec describes it.
#[derive(clap::Args)]
#[command(long_about = LONG_ABOUT)]
pub struct Args {
    /// The launch spec (TOML).
    #[arg(value_name = "SPEC.toml")]
    spec: PathBuf,
    /// Write every buffer after the run (pointer, texture and surface arguments) to DIR/<arg name>.bin.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Override a define of the spec: --set N=8192. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Where divergent threads reconverge: at the immediate post-dominator, or only at barriers and exit.
    #[arg(long, value_name = "POLICY", default_value = "ipdom", value_parser = ["ipdom", "barrier"])]
    reconvergence: String,
    /// Run the CTAs one after another on one host thread (the default runs them in parallel; outputs are the same).
    #[arg(long)]
    sequential: bool,
    /// Instruction budget per warp (default: the spec's `fuel`, else 2^24).
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Path to libnvrtc.so.12, for .cu sources.
    #[arg(long, value_name = "PATH")]
    nvrtc: Option<PathBuf>,
    /// No progress on stderr (shown only when stderr is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

const LONG_ABOUT: &str = "\
Run a kernel on the SIMT emulator, as a launch spec (TOML) describes it: the \
source (.ptx, or .cu compiled with NVRTC), the kernel, the grid and block, and \
the arguments (scalars and freshly initialised buffers).

The kernel's printf output goes to stdout, followed by a summary: CTAs, warps, \
warp and thread instructions, and the host time taken. A kernel fault (an \
out-of-bounds or misaligned access, a divergent barrier, a deadlock, trap, a \
runaway loop, a call-stack overflow) is reported with the CTA, the thread, the \
PTX file:line and the instruction, and the exit status is 1.

Examples:
  ptxperf run kernels/matmul_tiled/spec.toml
  ptxperf run kernels/coalescing/spec.toml --set STRIDE=1 --dump out/
  ptxperf run kernels/divergence/spec.toml --reconvergence barrier --sequential";

pub fn run(args: Args) -> Result<(), CliError> {
    let sets = crate::args::parse_sets(&args.set)?;
    // The shared loader: spec, NVRTC for .cu (cached), C++ entry resolution.
    let load = pipeline::LoadOptions {
        nvrtc: args.nvrtc.clone(),
        ptx: None,
    };
    let loaded = super::report::with_progress(args.quiet, || {
        pipeline::load_spec_with(&args.spec, &sets, &load)
    })
    .map_err(|e| CliError::of(&e))?;
    let (ptx, file, spec) = (&loaded.ptx, &loaded.ptx_file, &loaded.spec);
    let policy = if args.reconvergence == "barrier" {
        Policy::Barrier
    } else {
        Policy::Ipdom
    };
    let opts = LaunchOptions {
        policy,
        parallel: !args.sequential,
        fuel: args.fuel,
        ..Default::default()
    };
    let start = Instant::now();
    let result = super::report::with_progress(args.quiet, || {
        run_ptx(ptx, file, spec, opts, &mut NoObserver)
    })
    .map_err(|e| match e {
        RunError::Parse(diags) => CliError::diagnostic(diags),
        RunError::Fault(f) => CliError::of(&loaded.annotate_fault(*f)),
    })?;
    let elapsed = start.elapsed().as_secs_f64();
    print!("{}", result.printf);
    if let Some(dir) = &args.dump {
        dump(dir, &result)?;
    }
    let s = result.stats;
    let threads = spec.threads_per_cta();
    let activity = if s.warp_instructions > 0 {
        100.0 * s.thread_instructions as f64 / (32.0 * s.warp_instructions as f64)
    } else {
        0.0
    };
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    println!(
        "kernel {}: {} x {} threads, {}",
        loaded.kernel_name,
        plural(s.ctas, "CTA", "CTAs"),
        threads,
        plural(s.warps, "warp", "warps")
    );
    println!(
        "warp instructions {}, thread instructions {} with a true guard ({:.1}% of issue slots; `characterize` counts guarded-off lanes as active)",
        s.warp_instructions, s.thread_instructions, activity
    );
    let rate = if elapsed > 0.0 {
        s.thread_instructions as f64 / elapsed
    } else {
        0.0
    };
    let mode = if args.sequential || s.ran_sequentially {
        "sequential"
    } else {
        "parallel"
    };
    println!(
        "time {elapsed:.3} s ({rate:.3e} thread instructions/s, {mode}, {} reconvergence)",
        args.reconvergence
    );
    if args.sequential || !s.ran_sequentially {
        return Ok(());
    }
    println!(
        "note: the kernel uses global atomics or device malloc, so its CTAs ran sequentially (the same results on any number of threads)"
    );
    Ok(())
}

fn dump(dir: &Path, result: &emu::exec::LaunchResult) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::diagnostic(format!(
            "{}: error: cannot create directory: {e}",
            dir.display()
        ))
    })?;
    for b in &result.buffers {
        let path = dir.join(format!("{}.bin", b.name));
        crate::output::write_file(&path, &b.bytes)?;
    }
    Ok(())
}
