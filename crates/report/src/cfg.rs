//! `ptxperf cfg`: the control-flow graph of a kernel as a readable listing
//! (blocks, successors, immediate dominators and post-dominators, loop
//! depth, static mix, registers, shared memory) or as a Graphviz DOT graph
//! (one node per basic block, solid CFG edges, dashed
//! immediate-post-dominator edges).

use ptx::analysis::{FunctionFlow, PostDom, declared_registers, shared_memory};
use ptx::analysis::{InstMix, Reconvergence};
use ptx::{Diagnostics, Function, Handle, Module};
use std::fmt::Write as _;

/// The one-based PTX line of each instruction.
pub fn instruction_lines(func: &Function, text: &str) -> Vec<usize> {
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

/// The listing, its long lines wrapped to `width` columns.
pub fn listing(
    module: &Module,
    handle: Handle<Function>,
    func: &Function,
    flow: &FunctionFlow,
    lines: &[usize],
    width: u16,
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
        } else if block.aborts {
            // No edge leads into a block that traps (ptx::analysis::cfg).
            " (aborts: ends in or runs into a trap)"
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
        let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
    }
    if !loops.is_reducible() {
        let edges: Vec<String> = loops
            .irreducible_edges()
            .iter()
            .map(|(a, b)| format!("bb{a}->bb{b}"))
            .collect();
        let line = format!("irreducible edges: {}", edges.join(" "));
        let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
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
    let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
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
    let _ = writeln!(out, "{}", crate::table::wrap(&line, width));
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

/// The Graphviz DOT graph.
pub fn dot(func: &Function, flow: &FunctionFlow, lines: &[usize]) -> String {
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
    use ptx::analysis::kernel::select_function;

    const PTX: &str = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .visible .entry _Z4testPf(.param .u64 p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\
        \tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tadd.u32 %r1, %r1, 1;\n$L__BB0_2:\n\tret;\n}\n\
        .visible .entry other()\n{\n\tret;\n}\n";

    /// Select `kernel`, then render the listing or the DOT graph.
    fn check(kernel: &str, as_dot: bool, expected: &[&str]) {
        let m = ptx::parse("t.ptx", PTX).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", PTX)));
        let h = select_function(&m, Some(kernel)).unwrap_or_else(|e| panic!("{e}"));
        let Some(f) = m.functions.get(h) else {
            panic!("missing {kernel}");
        };
        let flow = FunctionFlow::compute(f).unwrap_or_else(|e| panic!("{e}"));
        let lines = instruction_lines(f, PTX);
        let out = if as_dot {
            dot(f, &flow, &lines)
        } else {
            listing(&m, h, f, &flow, &lines, crate::table::PIPE_WIDTH)
        };
        for want in expected {
            assert!(out.contains(want), "missing `{want}` in:\n{out}");
        }
    }

    #[test]
    fn dot_has_blocks_edges_and_dashed_ipdom_edges() {
        check(
            "test",
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
            "_Z4testPf",
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
}
