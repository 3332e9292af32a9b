//! `ptxperf characterize`: run a launch spec in the emulator and print the
//! Kerr et al. workload metrics (both reconvergence policies side by side by
//! default), a hot-lines table, JSON (schema 1, docs/json.md) or CSV.

use std::path::PathBuf;

use ::characterize::{Options, characterize};
use emu::simt::stack::Policy;
use report::characterize;

use crate::error::CliError;
use crate::output::emit;

/// Characterize a kernel launch: activity factor, divergence, memory intensity and efficiency, data flow, parallelism.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf characterize examples/saxpy.toml
  ptxperf characterize kernels/coalescing/spec.toml --set STRIDE=1 --lines 5
  ptxperf characterize kernels/matmul_tiled/spec.toml --json > metrics.json
  ptxperf characterize kernels/divergence/spec.toml --reconvergence barrier --csv
  ptxperf characterize kernels/matmul_tiled/spec.toml --sample-ctas 4
  ptxperf characterize kernels/transpose_tiled/spec.toml --ptx-lines --gpu h100-sxm5-80gb

Hot lines are ranked by cost: the timing model's terms (issue, bank-conflict
replays, shared bank passes, L1 sectors, DRAM bytes with no cache hits) in
GPU cycles, the largest term of each line; `predict` prices them with the
cache model's hit rates.

The JSON fields: docs/json.md. The launch spec: docs/launch-spec.md.")]
pub struct Args {
    /// The launch spec (TOML).
    #[arg(value_name = "SPEC.toml")]
    spec: PathBuf,
    /// Print JSON (schema 1; with `--reconvergence both`, an array of one object per policy).
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print CSV: the metrics (one column per policy), a blank line, then the hot lines.
    #[arg(long)]
    csv: bool,
    /// Reconvergence policy: ipdom (immediate post-dominator), barrier, or both.
    /// Default: both for the table and CSV, ipdom for JSON.
    #[arg(long, value_name = "ipdom|barrier|both")]
    reconvergence: Option<String>,
    /// Emulate only K CTAs, spread over every dimension of the grid, and extrapolate.
    #[arg(long, value_name = "K")]
    sample_ctas: Option<u64>,
    /// Rows of the hot-lines table.
    #[arg(long, value_name = "N", default_value_t = 10)]
    lines: usize,
    /// Hot lines by PTX instruction (with its CUDA line) instead of by CUDA source line.
    #[arg(long)]
    ptx_lines: bool,
    /// The GPU whose timing-model terms price the lines (default: the
    /// datacenter GPU of the PTX's architecture, e.g. sm_80: a100-sxm4-80gb).
    #[arg(long, value_name = "ID")]
    gpu: Option<String>,
    /// Override a define of the spec: --set N=1024. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// No progress on stderr (shown only when stderr is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let policies = policies(args.reconvergence.as_deref(), args.json)?;
    if args.sample_ctas == Some(0) {
        return Err(CliError::usage("--sample-ctas must be at least 1"));
    }
    let sets = crate::args::parse_sets(&args.set)?;
    // The shared loader: spec, NVRTC for .cu (cached), entry resolution.
    let loaded =
        super::report::with_progress(args.quiet, || pipeline::load_spec(&args.spec, &sets))
            .map_err(|e| CliError::of(&e))?;
    let gpu_id = args
        .gpu
        .clone()
        .unwrap_or_else(|| pipeline::lines::default_gpu_for(&loaded.arch).to_string());
    let gpu = super::named_gpu(&gpu_id, None)?;
    let mut runs = Vec::new();
    for &p in &policies {
        let opts = Options {
            policy: p,
            sample_ctas: args.sample_ctas,
            watch_ctas: None,
            run_ctas: None,
            threads: None,
            every_value: false,
        };
        let mut ch = super::report::with_progress(args.quiet, || {
            characterize(
                &loaded.module,
                &loaded.ptx,
                &loaded.ptx_file,
                &loaded.spec,
                opts,
            )
        })
        .map_err(|e| CliError::of(&loaded.emulation_error(e)))?;
        pipeline::lines::fill_text(&mut ch, &loaded);
        pipeline::lines::attach_costs(&mut ch, &gpu, None, None);
        runs.push(ch);
    }
    if args.json {
        // Serialised from the structs, so fields keep the schema's order.
        let text = if runs.len() == 1 {
            serde_json::to_string_pretty(&runs[0])
        } else {
            serde_json::to_string_pretty(&runs)
        }
        .map_err(|e| CliError::diagnostic(format!("error: cannot write JSON: {e}")))?;
        emit(&format!("{text}\n"))?;
    } else if args.csv {
        emit(&characterize::csv(&runs, args.lines, args.ptx_lines))?;
    } else {
        let out = characterize::text(
            &runs,
            &gpu.id,
            args.lines,
            args.ptx_lines,
            crate::table::width(),
        );
        emit(&out)?;
    }
    Ok(())
}

fn policies(arg: Option<&str>, json: bool) -> Result<Vec<Policy>, CliError> {
    match arg {
        Some("ipdom") => Ok(vec![Policy::Ipdom]),
        Some("barrier") => Ok(vec![Policy::Barrier]),
        Some("both") => Ok(vec![Policy::Ipdom, Policy::Barrier]),
        None if json => Ok(vec![Policy::Ipdom]),
        None => Ok(vec![Policy::Ipdom, Policy::Barrier]),
        Some(other) => Err(CliError::usage(format!(
            "--reconvergence {other}: expected ipdom, barrier or both"
        ))),
    }
}
