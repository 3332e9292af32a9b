//! `ptxperf characterize`: run a launch spec in the emulator and print the
//! Kerr et al. workload metrics (both reconvergence policies side by side by
//! default), a hot-lines table, JSON (schema 1, docs/json.md) or CSV.

use std::path::PathBuf;

use characterize::{Characterization, Options, characterize};
use comfy_table::Table;
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
    let gpu = super::catalog_gpu(&gpu_id, None)?;
    let mut runs = Vec::new();
    for &p in &policies {
        let opts = Options {
            policy: p,
            sample_ctas: args.sample_ctas,
            watch_ctas: None,
            run_ctas: None,
            threads: None,
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
        emit(&csv(&runs, args.lines, args.ptx_lines))?;
    } else {
        let mut out = format!("{}\n", metrics_table(&runs));
        if let Some(first) = runs.first() {
            let by_cuda = !args.ptx_lines && !first.cuda_lines.is_empty();
            let table = if by_cuda {
                cuda_lines_table(first, args.lines)
            } else {
                lines_table(first, args.lines).to_string()
            };
            out.push_str(&format!(
                "hot {} by cost on {} ({} reconvergence; cycles of the timing model's largest term, no cache hits assumed)\n{table}\n",
                if by_cuda { "CUDA lines" } else { "PTX lines" },
                gpu.id,
                first.reconvergence,
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
    let mut t = crate::table::new();
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

/// `file:line` with the file's directories dropped.
fn place(file: &str, line: u32) -> String {
    format!("{}:{line}", file.rsplit(['/', '\\']).next().unwrap_or(file))
}

/// A source line's text for a table cell: trimmed and at most 60 characters.
fn snippet(text: Option<&str>) -> String {
    let t = text.map_or("", str::trim);
    if t.chars().count() > 60 {
        format!("{}...", t.chars().take(57).collect::<String>())
    } else {
        t.to_string()
    }
}

/// The hot CUDA lines: a table of their costs, then each line's source text
/// (below the table, so that the numbers keep their columns within the
/// width and the source is not wrapped into a narrow one).
fn cuda_lines_table(c: &Characterization, n: usize) -> String {
    let mut t = crate::table::new();
    t.set_header(vec![
        "cuda line",
        "cost\ncycles",
        "share",
        "issue",
        "replays",
        "shared",
        "L1",
        "DRAM",
        "executions",
        "conflict\nways",
        "ptx\nlines",
    ]);
    let mut sources = String::new();
    for r in c.hot_cuda_lines(n) {
        let ptx = match (r.ptx_lines.first(), r.ptx_lines.last()) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => String::new(),
        };
        t.add_row(vec![
            place(&r.file, r.line),
            format!("{:.0}", r.cost_cycles),
            format!("{:.1}%", 100.0 * r.cost_share),
            format!("{:.0}", r.issue_cycles),
            format!("{:.0}", r.replay_cycles),
            format!("{:.0}", r.shared_cycles),
            format!("{:.0}", r.l1_cycles),
            format!("{:.0}", r.dram_cycles),
            format!("{:.0}", r.executions),
            format!("{:.2}", r.conflict_ways),
            ptx,
        ]);
        let line = format!("{}  {}", place(&r.file, r.line), snippet(r.text.as_deref()));
        sources.push('\n');
        sources.push_str(&crate::table::wrap(&line));
    }
    format!("{t}{sources}")
}

fn lines_table(c: &Characterization, n: usize) -> Table {
    let mut t = crate::table::new();
    t.set_header(vec![
        "ptx line",
        "cuda line",
        "cost cycles",
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
            match (&r.cuda_file, r.cuda_line) {
                (Some(f), Some(l)) => place(f, l),
                _ => "-".to_string(),
            },
            format!("{:.0}", r.cost_cycles),
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

fn csv(runs: &[Characterization], n: usize, ptx_lines: bool) -> String {
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
    if let Some(c) = runs
        .first()
        .filter(|c| !ptx_lines && !c.cuda_lines.is_empty())
    {
        out.push_str("\nreconvergence,cuda_file,cuda_line,cost_cycles,cost_share,issue_cycles,replay_cycles,shared_cycles,l1_cycles,dram_cycles,divergence_cycles,executions,mean_active_threads,divergent,shared_requests,bank_replays,conflict_ways,global_sectors,global_bytes,ptx_lines,text\n");
        for r in c.hot_cuda_lines(n) {
            let ptx: Vec<String> = r.ptx_lines.iter().map(u32::to_string).collect();
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                c.reconvergence,
                r.file,
                r.line,
                r.cost_cycles,
                r.cost_share,
                r.issue_cycles,
                r.replay_cycles,
                r.shared_cycles,
                r.l1_cycles,
                r.dram_cycles,
                r.divergence_cycles,
                r.executions,
                r.mean_active_threads,
                r.divergent,
                r.shared_requests,
                r.bank_replays,
                r.conflict_ways,
                r.global_sectors,
                r.global_bytes,
                ptx.join(" "),
                csv_field(r.text.as_deref().unwrap_or("").trim()),
            ));
        }
    } else if let Some(c) = runs.first() {
        out.push_str("\nreconvergence,function,ptx_line,cuda_file,cuda_line,cost_cycles,class,executions,mean_active_threads,divergent,transactions_cc12,transactions_sectors,conflict_ways\n");
        for r in c.hot_lines(n) {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                c.reconvergence,
                r.function,
                r.ptx_line,
                r.cuda_file.as_deref().unwrap_or(""),
                r.cuda_line.map_or(String::new(), |l| l.to_string()),
                r.cost_cycles,
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

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a newline.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
