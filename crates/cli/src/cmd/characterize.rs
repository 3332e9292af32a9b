//! `ptxperf characterize`: run a launch spec in the emulator and print the
//! Kerr et al. workload metrics (both reconvergence policies side by side by
//! default), a hot-lines table, JSON (schema 1, docs/json.md) or CSV.

use std::path::PathBuf;

use characterize::{Characterization, Options, characterize};
use comfy_table::{Table, presets};
use emu::simt::stack::Policy;

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
    /// Override a define of the spec: --set N=1024. Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let policies = policies(args.reconvergence.as_deref(), args.json)?;
    if args.sample_ctas == Some(0) {
        return Err(CliError::usage("--sample-ctas must be at least 1"));
    }
    let sets = crate::args::parse_sets(&args.set)?;
    // The shared loader: spec, NVRTC for .cu (cached), entry resolution.
    let loaded = pipeline::load_spec(&args.spec, &sets).map_err(|e| CliError::of(&e))?;
    let mut runs = Vec::new();
    for &p in &policies {
        let opts = Options {
            policy: p,
            sample_ctas: args.sample_ctas,
            watch_ctas: None,
            run_ctas: None,
            threads: None,
        };
        runs.push(
            characterize(
                &loaded.module,
                &loaded.ptx,
                &loaded.ptx_file,
                &loaded.spec,
                opts,
            )
            .map_err(|e| CliError::of(&loaded.emulation_error(e)))?,
        );
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
        emit(&csv(&runs, args.lines))?;
    } else {
        let mut out = format!("{}\n", metrics_table(&runs));
        if let Some(first) = runs.first() {
            out.push_str(&format!(
                "hot lines ({} reconvergence)\n{}\n",
                first.reconvergence,
                lines_table(first, args.lines)
            ));
        }
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

/// (label, value formatter) for each metric row.
fn metric_rows(c: &Characterization) -> Vec<(&'static str, String)> {
    let f = |x: f64| format!("{x:.4}");
    let n = |x: f64| format!("{x:.0}");
    vec![
        ("warp instructions", n(c.warp_instructions)),
        ("thread instructions", n(c.thread_instructions)),
        ("branches", n(c.branches)),
        ("divergent branches", n(c.divergent_branches)),
        ("divergent-branch ratio", f(c.divergent_branch_ratio)),
        ("activity factor", f(c.activity_factor)),
        (
            "max reconvergence depth",
            c.max_reconvergence_depth.to_string(),
        ),
        ("memory intensity", f(c.memory_intensity)),
        ("memory efficiency (CC 1.2, eq. 3)", f(c.memory_efficiency)),
        (
            "memory efficiency (sectors, bytes)",
            f(c.memory_efficiency_sectors),
        ),
        ("global requests", n(c.global_requests)),
        ("global transactions (CC 1.2)", n(c.global_transactions)),
        ("global sectors", n(c.global_sectors)),
        ("shared requests", n(c.shared_requests)),
        (
            "shared bank conflicts (extra passes)",
            n(c.shared_bank_conflicts),
        ),
        ("inter-thread data flow", f(c.inter_thread_data_flow)),
        ("MIMD parallelism", f(c.mimd_parallelism)),
        ("SIMD parallelism", f(c.simd_parallelism)),
        (
            "CTAs emulated",
            format!("{} of {}", c.ctas_emulated, c.ctas_total),
        ),
        ("sampling error (est.)", f(c.sampling_error)),
    ]
}

fn metrics_table(runs: &[Characterization]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    let mut header = vec!["metric".to_string()];
    header.extend(runs.iter().map(|r| r.reconvergence.clone()));
    t.set_header(header);
    let rows: Vec<Vec<(&str, String)>> = runs.iter().map(metric_rows).collect();
    if let Some(first) = rows.first() {
        for (i, (label, _)) in first.iter().enumerate() {
            let mut row = vec![label.to_string()];
            row.extend(
                rows.iter()
                    .map(|r| r.get(i).map_or(String::new(), |x| x.1.clone())),
            );
            t.add_row(row);
        }
    }
    t
}

fn lines_table(c: &Characterization, n: usize) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "ptx line",
        "cuda line",
        "class",
        "executions",
        "mean active",
        "divergent",
        "trans. cc1.2",
        "sectors",
        "conflict ways",
    ]);
    for r in c.hot_lines(n) {
        t.add_row(vec![
            r.ptx_line.to_string(),
            r.cuda_line.map_or("-".to_string(), |l| l.to_string()),
            r.class.clone(),
            format!("{:.0}", r.executions),
            format!("{:.2}", r.mean_active_threads),
            format!("{:.0}", r.divergent),
            format!("{:.0}", r.transactions_cc12),
            format!("{:.0}", r.transactions_sectors),
            format!("{:.2}", r.conflict_ways),
        ]);
    }
    t
}

fn csv(runs: &[Characterization], n: usize) -> String {
    let mut out = String::from("metric");
    for r in runs {
        out.push(',');
        out.push_str(&r.reconvergence);
    }
    out.push('\n');
    let rows: Vec<Vec<(&str, String)>> = runs.iter().map(metric_rows).collect();
    if let Some(first) = rows.first() {
        for (i, (label, _)) in first.iter().enumerate() {
            out.push_str(label);
            for r in &rows {
                out.push(',');
                out.push_str(&r.get(i).map_or(String::new(), |x| x.1.replace(',', ";")));
            }
            out.push('\n');
        }
    }
    if let Some(c) = runs.first() {
        out.push_str("\nreconvergence,function,ptx_line,cuda_line,class,executions,mean_active_threads,divergent,transactions_cc12,transactions_sectors,conflict_ways\n");
        for r in c.hot_lines(n) {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{}\n",
                c.reconvergence,
                r.function,
                r.ptx_line,
                r.cuda_line.map_or(String::new(), |l| l.to_string()),
                r.class,
                r.executions,
                r.mean_active_threads,
                r.divergent,
                r.transactions_cc12,
                r.transactions_sectors,
                r.conflict_ways
            ));
        }
    }
    out
}
