//! `ptxperf cfg K.ptx --kernel NAME [--dot]`: the control-flow graph of a
//! kernel, as a readable listing (blocks, successors, immediate dominators
//! and post-dominators, loop depth, static mix, registers, shared memory) or
//! as a Graphviz DOT graph (one node per basic block, solid CFG edges, dashed
//! immediate-post-dominator edges).

use crate::error::{CliError, read_input};
use ptx::analysis::kernel::{SelectError, select_function as select_function_in};
use ptx::analysis::{FunctionFlow, PostDom, declared_registers, shared_memory};
use ptx::analysis::{InstMix, Reconvergence};
use ptx::{Diagnostics, Function, Handle, Module};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Show the control-flow graph of a kernel.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf cfg kernels/matmul_tiled/sm_80.ptx
  ptxperf cfg kernels/divergence/sm_80.ptx --kernel divergence
  ptxperf cfg kernels/matmul_tiled/sm_80.ptx --dot > cfg.dot && dot -Tsvg cfg.dot -o cfg.svg")]
pub struct Args {
    /// The PTX file.
    pub input: PathBuf,
    /// The kernel (`.entry`); C++ kernels may be named by their plain name.
    /// Optional when the module has exactly one kernel. A `.func` with a
    /// body may be named exactly.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Print a Graphviz DOT graph instead of the listing.
    #[arg(long)]
    pub dot: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = read_input(&args.input)?;
    let file = args.input.display().to_string();
    let module =
        ptx::parse(&file, &text).map_err(|d| CliError::diagnostic(d.render(&file, &text)))?;
    let handle = select_function(&module, args.kernel.as_deref(), &file)?;
    let func = module
        .functions
        .get(handle)
        .ok_or_else(|| CliError::diagnostic(format!("{file}: error: function not found")))?;
    if !func.has_body {
        return Err(CliError::diagnostic(format!(
            "{file}: error: `{}` has no body",
            func.name
        )));
    }
    let flow = FunctionFlow::compute(func)
        .map_err(|e| CliError::diagnostic(format!("{file}: error: in `{}`: {e}", func.name)))?;
    let lines = instruction_lines(func, &text);
    let out = if args.dot {
        dot(func, &flow, &lines)
    } else {
        listing(&module, handle, func, &flow, &lines)
    };
    print!("{out}");
    Ok(())
}

/// The function to show; several kernels without --kernel is a usage error.
fn select_function(
    module: &Module,
    name: Option<&str>,
    file: &str,
) -> Result<Handle<Function>, CliError> {
    select_function_in(module, name).map_err(|e| match e {
        SelectError::SeveralKernels(names) => CliError::usage_diagnostic(format!(
            "{file}: error: the module has several kernels, choose one with --kernel: {}",
            names.join(", ")
        )),
        e => CliError::diagnostic(format!("{file}: error: {e}")),
    })
}

/// The one-based PTX line of each instruction.
fn instruction_lines(func: &Function, text: &str) -> Vec<usize> {
    func.instructions
        .spans()
        .iter()
        .map(|s| Diagnostics::line_col(text, s.start).0)
        .collect()
}

fn line_range(flow: &FunctionFlow, block: usize, lines: &[usize]) -> Option<(usize, usize)> {
    let b = &flow.cfg.blocks[block];
    let first = *lines.get(b.start as usize)?;
    let last = *lines.get(b.last()? as usize)?;
    Some((first, last))
}

fn block_label(func: &Function, flow: &FunctionFlow, block: usize) -> Option<String> {
    let l = flow.cfg.blocks[block].label?;
    func.labels.get(l).map(|l| l.name.clone())
}

fn post_dom(p: Option<PostDom>) -> String {
    match p {
        Some(PostDom::Node(b)) => format!("bb{b}"),
        Some(PostDom::VirtualExit) => "exit".into(),
        None => "-".into(),
    }
}

fn listing(
    module: &Module,
    handle: Handle<Function>,
    func: &Function,
    flow: &FunctionFlow,
    lines: &[usize],
) -> String {
    let mut out = String::new();
    let loops = &flow.flow.loops;
    let kind = if func.is_entry() {
        "kernel"
    } else {
        "function"
    };
    let _ = writeln!(
        out,
        "{kind} {}: {} blocks, {} instructions, {} loops{}",
        func.name,
        flow.cfg.blocks.len(),
        func.instructions.len(),
        loops.loops().len(),
        if loops.is_reducible() {
            ""
        } else {
            ", irreducible"
        }
    );
    for (b, block) in flow.cfg.blocks.iter().enumerate() {
        let label = block_label(func, flow, b)
            .map(|l| format!(" {l}"))
            .unwrap_or_default();
        let lines = line_range(flow, b, lines)
            .map(|(a, z)| format!(" lines {a}-{z}"))
            .unwrap_or_default();
        let mut succ: Vec<String> = block.successors.iter().map(|s| format!("bb{s}")).collect();
        if block.exits {
            succ.push("exit".into());
        }
        let reach = if flow.is_reachable(b) {
            ""
        } else {
            " (unreachable)"
        };
        let _ = writeln!(
            out,
            "bb{b}{label}: insts {}..{} ({}){lines}{reach}\n    succ: {}  idom: {}  ipdom: {}  loop depth: {}{}",
            block.start,
            block.end,
            block.len(),
            if succ.is_empty() {
                "-".into()
            } else {
                succ.join(" ")
            },
            flow.idom(b).map_or("-".into(), |d| format!("bb{d}")),
            post_dom(flow.ipdom(b)),
            flow.loop_depth(b),
            if loops.is_header(b) { " (header)" } else { "" },
        );
    }
    let branches = flow.branch_reconvergence(func);
    if !branches.is_empty() {
        let list: Vec<String> = branches
            .iter()
            .map(|(i, r)| match r {
                Reconvergence::Inst(j) => format!("{i}->{j}"),
                Reconvergence::FunctionExit => format!("{i}->exit"),
            })
            .collect();
        let line = format!("reconvergence (branch inst -> inst): {}", list.join(" "));
        let _ = writeln!(out, "{}", crate::table::wrap(&line));
    }
    if !loops.is_reducible() {
        let edges: Vec<String> = loops
            .irreducible_edges()
            .iter()
            .map(|(a, b)| format!("bb{a}->bb{b}"))
            .collect();
        let line = format!("irreducible edges: {}", edges.join(" "));
        let _ = writeln!(out, "{}", crate::table::wrap(&line));
    }
    let mix = InstMix::of_function(func);
    let classes: Vec<String> = mix
        .nonzero()
        .map(|(c, n)| format!("{} {n}", c.name()))
        .collect();
    let line = format!(
        "static mix: {}",
        if classes.is_empty() {
            "-".into()
        } else {
            classes.join(", ")
        }
    );
    let _ = writeln!(out, "{}", crate::table::wrap(&line));
    let regs = declared_registers(func);
    let by_type: Vec<String> = regs
        .by_type
        .iter()
        .map(|c| format!("{} {}", c.ty.name(), c.count))
        .collect();
    let line = format!(
        "registers: {} ({} bytes): {}",
        regs.count,
        regs.bytes,
        by_type.join(", ")
    );
    let _ = writeln!(out, "{}", crate::table::wrap(&line));
    let shared = shared_memory(module, handle);
    let _ = writeln!(
        out,
        "shared memory: {} bytes static{}",
        shared.static_bytes,
        if shared.uses_dynamic {
            " + dynamic (extern)"
        } else {
            ""
        }
    );
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn dot(func: &Function, flow: &FunctionFlow, lines: &[usize]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&func.name));
    let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
    let mut uses_exit = false;
    for (b, block) in flow.cfg.blocks.iter().enumerate() {
        let mut parts = vec![match block_label(func, flow, b) {
            Some(l) => format!("bb{b} {l}"),
            None => format!("bb{b}"),
        }];
        parts.push(format!("{} insts", block.len()));
        if let Some((a, z)) = line_range(flow, b, lines) {
            parts.push(format!("lines {a}-{z}"));
        }
        let depth = flow.loop_depth(b);
        if depth > 0 {
            parts.push(format!("loop depth {depth}"));
        }
        let label: Vec<String> = parts.iter().map(|p| dot_escape(p)).collect();
        let style = if flow.is_reachable(b) {
            ""
        } else {
            ", style=dotted"
        };
        let _ = writeln!(out, "  bb{b} [label=\"{}\"{style}];", label.join("\\n"));
    }
    for (b, block) in flow.cfg.blocks.iter().enumerate() {
        for s in &block.successors {
            let _ = writeln!(out, "  bb{b} -> bb{s};");
        }
        if block.exits {
            uses_exit = true;
            let _ = writeln!(out, "  bb{b} -> exit;");
        }
    }
    for b in 0..flow.cfg.blocks.len() {
        match flow.ipdom(b) {
            Some(PostDom::Node(p)) => {
                let _ = writeln!(
                    out,
                    "  bb{b} -> bb{p} [style=dashed, color=blue, constraint=false];"
                );
            }
            Some(PostDom::VirtualExit) => {
                uses_exit = true;
                let _ = writeln!(
                    out,
                    "  bb{b} -> exit [style=dashed, color=blue, constraint=false];"
                );
            }
            None => {}
        }
    }
    if uses_exit {
        let _ = writeln!(out, "  exit [shape=oval, label=\"exit\"];");
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .visible .entry _Z4testPf(.param .u64 p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\
        \tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tadd.u32 %r1, %r1, 1;\n$L__BB0_2:\n\tret;\n}\n\
        .visible .entry other()\n{\n\tret;\n}\n";

    fn module() -> Module {
        ptx::parse("t.ptx", PTX).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", PTX)))
    }

    /// Select `kernel`, then render the listing or the DOT graph.
    fn render(kernel: Option<&str>, as_dot: bool) -> Result<String, CliError> {
        let m = module();
        let h = select_function(&m, kernel, "t.ptx")?;
        let f = m
            .functions
            .get(h)
            .ok_or_else(|| CliError::user("missing"))?;
        let flow = FunctionFlow::compute(f).map_err(|e| CliError::of(&e))?;
        let lines = instruction_lines(f, PTX);
        Ok(if as_dot {
            dot(f, &flow, &lines)
        } else {
            listing(&m, h, f, &flow, &lines)
        })
    }

    fn check(kernel: Option<&str>, as_dot: bool, expected: &[&str]) {
        let out = match render(kernel, as_dot) {
            Ok(s) => s,
            Err(e) => format!("exit {}: {e}", e.code()),
        };
        for want in expected {
            assert!(out.contains(want), "missing `{want}` in:\n{out}");
        }
    }

    #[test]
    fn dot_has_blocks_edges_and_dashed_ipdom_edges() {
        check(
            Some("test"),
            true,
            &[
                "digraph \"_Z4testPf\"",
                "bb0 [label=\"bb0\\n2 insts\\nlines 8-9\"]",
                "bb2 [label=\"bb2 $L__BB0_2\\n1 insts\\nlines 12-12\"]",
                "bb0 -> bb2;",
                "bb0 -> bb1;",
                "bb2 -> exit;",
                "bb0 -> bb2 [style=dashed",
                "bb2 -> exit [style=dashed",
                "exit [shape=oval",
            ],
        );
    }

    #[test]
    fn listing_shows_blocks_ipdom_and_mix() {
        check(
            Some("_Z4testPf"),
            false,
            &[
                "kernel _Z4testPf: 3 blocks, 4 instructions, 0 loops",
                "bb0: insts 0..2 (2) lines 8-9",
                "succ: bb2 bb1  idom: -  ipdom: bb2  loop depth: 0",
                "reconvergence (branch inst -> inst): 1->3",
                "static mix: int_alu 1, compare 1, branch 1, call_ret 1",
                "registers: 4 (10 bytes): pred 2, b32 2",
                "shared memory: 0 bytes static",
            ],
        );
    }

    #[test]
    fn kernel_selection_errors() {
        check(
            Some("nope"),
            false,
            &[
                "exit 1",
                "no kernel named `nope`; available kernels: _Z4testPf, other",
            ],
        );
        check(
            None,
            false,
            &["exit 2", "several kernels", "_Z4testPf, other"],
        );
        check(Some("other"), false, &["kernel other: 1 blocks"]);
    }
}
