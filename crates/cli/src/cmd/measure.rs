//! `ptxperf measure`: run a launch spec's kernel on this machine's GPU (build
//! with `--features gpu`), time it, and compare its buffers with the emulator's.

use std::path::PathBuf;

use emu::exec::{LaunchOptions, launch_boxed};
use emu::observer::NoObserver;
use gpurun::compare::compare_buffers;
use gpurun::{SpecRun, TimeStats};
use report::measure;

use crate::args::parse_sets;
use crate::error::CliError;

/// Run a launch spec's kernel on this machine's GPU, time it, and compare its outputs with the emulator.
#[derive(clap::Args)]
#[command(long_about = LONG_ABOUT)]
pub struct Args {
    /// The launch spec (TOML).
    #[arg(value_name = "SPEC.toml")]
    spec: PathBuf,
    /// Use this PTX instead of compiling the spec's source (e.g. the corpus's kernels/K/sm_90.ptx).
    #[arg(long, value_name = "FILE")]
    ptx: Option<PathBuf>,
    /// Timed launches.
    #[arg(long, value_name = "N", default_value_t = 20)]
    reps: u32,
    /// Untimed launches after the first one, before the timed ones.
    #[arg(long, value_name = "N", default_value_t = 3)]
    warmup: u32,
    /// Also run the emulator on the whole grid and compare every buffer with the GPU's after its first launch.
    #[arg(long)]
    compare: bool,
    /// Print one JSON object (one line) instead of text.
    #[arg(long)]
    json: bool,
    /// Override a define of the spec: --set N=8192. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Path to libnvrtc.so.12, for .cu sources.
    #[arg(long, value_name = "PATH")]
    nvrtc: Option<PathBuf>,
}

const LONG_ABOUT: &str = "\
Run a launch spec's kernel on this machine's GPU (device 0) and time it: the \
PTX (the spec's source compiled by NVRTC, or --ptx) is JIT-compiled by the \
driver, the arguments and constants get exactly the bytes the emulator gives \
them, the kernel runs once, its buffers are copied back, then it runs --warmup \
times untimed and --reps times, each launch timed with CUDA events. Later \
launches start from what the previous one left, so a kernel that updates its \
data in place is timed on modified data.

Prints the kernel, grid and block, the device and its compute capability, and \
the median, minimum, mean and maximum time per launch in µs.

--compare also runs the emulator on the whole grid (as `ptxperf run` does) \
and compares every buffer after the GPU's first launch with the emulator's: \
integers exactly, floats within a relative tolerance (f32: |a-b| <= \
1e-5 max(|a|,|b|); f64 1e-12, f16 1e-2, bf16 5e-2; NaN equals NaN). Each \
buffer is identical, within tolerance (with the largest relative and ulp \
difference), or DIFFERENT (first index, both values, how many). Kernels with \
atomics or races may legitimately differ: a buffer whose `[[arg]]` in the spec \
says `order_dependent = true` (an atomicCAS winner, say) is still compared, \
but a difference there is reported as order-dependent and is no failure. The \
exit status is 1 when a buffer \
differs, when the kernel faults, or without a GPU; this needs a binary built \
with `cargo build --release -p ptxperf --features gpu`.

--json prints one object: kernel, entry, device, cc, grid, block, warmup, \
reps, times_ms, median_ms, min_ms, mean_ms, max_ms and, with --compare, \
compare: [{buffer, status, differing, max_rel_diff, max_ulp, \
first_diff_index, first_diff_gpu, first_diff_emu}] (status identical, \
within_tolerance, order_dependent, different or different_length). Device printf output, if \
any, comes before it on stdout.

Examples:
  ptxperf measure kernels/map/spec.toml --ptx kernels/map/sm_90.ptx
  ptxperf measure kernels/matmul_tiled/spec.toml --compare --reps 100
  ptxperf measure kernels/histogram_shared/spec.toml --ptx kernels/histogram_shared/sm_80.ptx --compare --json
  scripts/gpu/measure-corpus.sh target/release/ptxperf out/   # the whole corpus";

pub fn run(args: Args) -> Result<(), CliError> {
    // Without a GPU there is nothing to do: say so before compiling anything.
    gpurun::available().map_err(|e| CliError::of(&e))?;
    let sets = parse_sets(&args.set)?;
    let load = pipeline::LoadOptions {
        nvrtc: args.nvrtc.clone(),
        ptx: args.ptx.clone(),
    };
    let loaded =
        pipeline::load_spec_with(&args.spec, &sets, &load).map_err(|e| CliError::of(&e))?;
    let host = emu::exec::host_launch(&loaded.module, &loaded.ptx_file, &loaded.spec)
        .map_err(|f| CliError::of(&f))?;
    let spec_run = SpecRun::new(&loaded.ptx, &loaded.spec, host, args.warmup, args.reps);
    let measured = gpurun::run_spec(&spec_run).map_err(|e| CliError::of(&e))?;
    let comparisons = if args.compare {
        let opts = LaunchOptions {
            parallel: true,
            ..Default::default()
        };
        let emulated = launch_boxed(
            &loaded.module,
            &loaded.ptx,
            &loaded.ptx_file,
            &loaded.spec,
            opts,
            &mut NoObserver,
        )
        .map_err(|f| CliError::diagnostic(format!("the emulator: {f}")))?;
        Some(compare_buffers(&measured, &emulated.buffers, &loaded.spec))
    } else {
        None
    };
    let stats = TimeStats::of(&measured.times_ms)
        .ok_or_else(|| CliError::diagnostic("error: no timed launch"))?;
    let report = measure::Report {
        kernel: &loaded.kernel_name,
        entry: &spec_run.entry,
        run: &spec_run,
        measured: &measured,
        stats,
        comparisons: comparisons.as_deref(),
    };
    crate::output::emit(&if args.json {
        format!("{}\n", report.json())
    } else {
        report.text()
    })?;
    let differing = comparisons
        .iter()
        .flatten()
        .filter(|c| c.status.is_different())
        .count();
    if differing > 0 {
        return Err(CliError::diagnostic(format!(
            "error: {differing} buffer(s) differ between the GPU and the emulator"
        )));
    }
    Ok(())
}
