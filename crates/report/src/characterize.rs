//! `ptxperf characterize`: the metrics of Kerr et al. per reconvergence
//! policy, the hot CUDA (or PTX) lines priced by the timing model's terms,
//! as tables or CSV.

use characterize::Characterization;
use comfy_table::Table;

/// The metrics of each run side by side, then the first run's hot lines
/// (CUDA lines unless `ptx_lines` or the PTX has no line information; `n`
/// of them) priced on `gpu`, in tables `width` columns wide.
pub fn text(runs: &[Characterization], gpu: &str, n: usize, ptx_lines: bool, width: u16) -> String {
    let mut out = format!("{}\n", metrics_table(runs, width));
    if let Some(first) = runs.first() {
        let by_cuda = !ptx_lines && !first.cuda_lines.is_empty();
        let table = if by_cuda {
            cuda_lines_table(first, n, width)
        } else {
            lines_table(first, n, width).to_string()
        };
        out.push_str(&format!(
        "hot {} by cost on {} ({} reconvergence; cycles of the timing model's largest term, no cache hits assumed)\n{table}\n",
        if by_cuda { "CUDA lines" } else { "PTX lines" },
        gpu,
        first.reconvergence,
    ));
    }
    out
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

fn metrics_table(runs: &[Characterization], width: u16) -> Table {
    let mut t = crate::table::new(width);
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
pub(crate) fn place(file: &str, line: u32) -> String {
    format!("{}:{line}", file.rsplit(['/', '\\']).next().unwrap_or(file))
}

/// A source line's text for a table cell: trimmed and at most 60 characters.
pub(crate) fn snippet(text: Option<&str>) -> String {
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
fn cuda_lines_table(c: &Characterization, n: usize, width: u16) -> String {
    let mut t = crate::table::new(width);
    t.set_header(vec![
        "cuda line",
        "cost\ncycles",
        "share",
        "issue",
        "replays",
        "pipe",
        "shared",
        "L1",
        "DRAM",
        "executions",
        "conflict\nways",
        "ptx\nlines",
    ]);
    // The place stays whole (`kernel.cu:44` is what the reader looks for);
    // the numbers' headers wrap instead.
    if let Some(c) = t.column_mut(0) {
        c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
    }
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
            pipe_cell(r),
            format!("{:.0}", r.shared_cycles),
            format!("{:.0}", r.l1_cycles),
            format!("{:.0}", r.dram_cycles),
            format!("{:.0}", r.executions),
            format!("{:.2}", r.conflict_ways),
            ptx,
        ]);
        let line = format!("{}  {}", place(&r.file, r.line), snippet(r.text.as_deref()));
        sources.push('\n');
        sources.push_str(&crate::table::wrap(&line, width));
    }
    format!("{t}{sources}")
}

/// A line's busiest arithmetic pipe: its cycles and a short name.
fn pipe_cell(r: &characterize::CudaLine) -> String {
    match r.pipe.as_deref() {
        Some(name) if r.pipe_cycles > 0.0 => {
            let short = match name {
                "integer pipe" => "int",
                "integer multiply pipe" => "imul",
                "conversion pipe" => "cvt",
                other => other.trim_end_matches(" pipe"),
            };
            format!("{:.0} {short}", r.pipe_cycles)
        }
        _ => "0".to_string(),
    }
}

fn lines_table(c: &Characterization, n: usize, width: u16) -> Table {
    let mut t = crate::table::new(width);
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

/// The metrics and the hot lines as CSV.
pub fn csv(runs: &[Characterization], n: usize, ptx_lines: bool) -> String {
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
        out.push_str("\nreconvergence,cuda_file,cuda_line,cost_cycles,cost_share,issue_cycles,replay_cycles,shared_cycles,l1_cycles,dram_cycles,divergence_cycles,pipe_cycles,pipe,executions,mean_active_threads,divergent,shared_requests,bank_replays,conflict_ways,global_sectors,global_bytes,ptx_lines,text\n");
        for r in c.hot_cuda_lines(n) {
            let ptx: Vec<String> = r.ptx_lines.iter().map(u32::to_string).collect();
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
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
                r.pipe_cycles,
                r.pipe.as_deref().unwrap_or(""),
                r.executions,
                r.mean_active_threads,
                r.divergent,
                r.shared_requests,
                r.bank_replays,
                r.conflict_ways,
                r.global_sectors,
                r.global_bytes,
                ptx.join(" "),
                crate::csv::field(r.text.as_deref().unwrap_or("").trim()),
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
