//! Named control-flow shapes with their expected dominators, post-dominators
//! and loops, written as small text specs.
//!
//! Graph syntax: `A->B,C` edges separated by spaces or newlines, `A->exit`
//! marks A as an exit node; node 0 is the entry; the node count is the largest
//! index + 1. Expectations, separated by spaces: `ipdom(A)=B`, `ipdom(A)=exit`,
//! `ipdom(A)=none`, `idom(A)=B|none`, `depth(A)=N`, `reaches_exit(A)=bool`,
//! `synthetic=A,B` (or `synthetic=`), `reducible=bool`, `header(A)=bool`.

use flowgraph::{FlowAnalysis, Graph, PostDom};

fn parse_graph(spec: &str) -> Graph {
    let mut edges = Vec::new();
    let mut exits = Vec::new();
    let mut max = 0;
    for item in spec.split_whitespace() {
        let (from, tos) = item.split_once("->").expect("edge syntax A->B");
        let from: usize = from.parse().expect("node number");
        max = max.max(from);
        for to in tos.split(',') {
            if to == "exit" {
                exits.push(from);
            } else {
                let to: usize = to.parse().expect("node number");
                max = max.max(to);
                edges.push((from, to));
            }
        }
    }
    Graph::from_edges(max + 1, 0, &edges, &exits).expect("valid graph")
}

fn show_pd(p: Option<PostDom>) -> String {
    match p {
        Some(PostDom::Node(n)) => n.to_string(),
        Some(PostDom::VirtualExit) => "exit".into(),
        None => "none".into(),
    }
}

fn arg(key: &str) -> usize {
    let inner = key
        .split_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
        .expect("query(A)");
    inner.parse().expect("node number")
}

#[track_caller]
fn check(graph: &str, expected: &str) {
    let g = parse_graph(graph);
    let fa = FlowAnalysis::compute(&g);
    let mut failures = Vec::new();
    for item in expected.split_whitespace() {
        let (key, want) = item.split_once('=').expect("key=value");
        let got = match key {
            "synthetic" => fa
                .post_dominators
                .synthetic_exits()
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "reducible" => fa.loops.is_reducible().to_string(),
            k if k.starts_with("ipdom(") => show_pd(fa.post_dominators.ipdom(arg(k))),
            k if k.starts_with("idom(") => fa
                .dominators
                .idom(arg(k))
                .map_or("none".into(), |n| n.to_string()),
            k if k.starts_with("depth(") => fa.loops.depth(arg(k)).to_string(),
            k if k.starts_with("reaches_exit(") => {
                fa.post_dominators.reaches_exit(arg(k)).to_string()
            }
            k if k.starts_with("header(") => fa.loops.is_header(arg(k)).to_string(),
            k => panic!("unknown expectation {k}"),
        };
        if got != want {
            failures.push(format!("{key}: expected {want}, got {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "graph `{graph}`:\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn straight_line() {
    check(
        "0->1 1->2 2->exit",
        "ipdom(0)=1 ipdom(1)=2 ipdom(2)=exit idom(2)=1 depth(1)=0 reducible=true",
    );
}

#[test]
fn diamond() {
    check(
        "0->1,2 1->3 2->3 3->exit",
        "ipdom(0)=3 ipdom(1)=3 ipdom(2)=3 ipdom(3)=exit idom(1)=0 idom(3)=0 synthetic=",
    );
}

#[test]
fn if_without_else() {
    check("0->1,2 1->2 2->exit", "ipdom(0)=2 ipdom(1)=2 idom(2)=0");
}

#[test]
fn nested_if() {
    // if (a) { if (b) {2} else {3}; 4 } ; 5
    check(
        "0->1,5 1->2,3 2->4 3->4 4->5 5->exit",
        "ipdom(0)=5 ipdom(1)=4 ipdom(2)=4 ipdom(4)=5 idom(4)=1 idom(5)=0",
    );
}

#[test]
fn loop_with_break_and_continue() {
    // 1: header; 2: `if (c) continue` -> 1; 3: `if (d) break` -> 5; 4: latch; 5: after.
    check(
        "0->1 1->2,5 2->1,3 3->5,4 4->1 5->exit",
        "ipdom(1)=5 ipdom(2)=5 ipdom(3)=5 ipdom(4)=1 header(1)=true depth(2)=1 depth(4)=1 depth(5)=0 \
         idom(5)=1 reducible=true",
    );
}

#[test]
fn early_return() {
    // if (tid >= n) return; body; return.
    check(
        "0->1,2 1->exit 2->3 3->exit",
        "ipdom(0)=exit ipdom(2)=3 ipdom(1)=exit idom(3)=2",
    );
}

#[test]
fn multiple_returns_joining_nothing() {
    check(
        "0->1,2 1->3,4 2->exit 3->exit 4->exit",
        "ipdom(0)=exit ipdom(1)=exit ipdom(3)=exit reaches_exit(4)=true",
    );
}

#[test]
fn trap_as_exit_inside_a_loop() {
    // 1: header, 2: `if (bad) trap` (node 3 is the trap block), 4: latch.
    // The trap block never returns to the latch, so it is outside the
    // natural loop.
    check(
        "0->1 1->2,5 2->3,4 3->exit 4->1 5->exit",
        "ipdom(2)=exit ipdom(1)=exit ipdom(4)=1 depth(3)=0 depth(4)=1 header(1)=true",
    );
}

#[test]
fn guarded_exit_falls_through() {
    // `@p exit` in node 1 both exits and falls through to 2.
    check(
        "0->1 1->exit,2 2->exit",
        "ipdom(1)=exit ipdom(0)=1 ipdom(2)=exit",
    );
}

#[test]
fn infinite_loop() {
    // for (;;) { if (c) {2} else {3}; } : 4 is the join and latch.
    check(
        "0->1 1->2,3 2->4 3->4 4->1",
        "reaches_exit(1)=false synthetic=4 ipdom(1)=4 ipdom(2)=4 ipdom(4)=exit ipdom(0)=1 depth(4)=1",
    );
}

#[test]
fn infinite_loop_with_side_exit() {
    // The loop can be left through 3 -> exit, so nothing is synthetic.
    check(
        "0->1 1->2,3 2->1 3->exit,1",
        "synthetic= reaches_exit(2)=true ipdom(1)=3 ipdom(2)=1 ipdom(3)=exit depth(3)=1",
    );
}

#[test]
fn branch_into_spin_loop_or_return() {
    // 1 -> 2 (spin loop, self edge) or 3 (ret): reconverge at the virtual exit.
    check(
        "0->1 1->2,3 2->2 3->exit",
        "synthetic=2 ipdom(1)=exit ipdom(2)=exit reaches_exit(2)=false reaches_exit(1)=true header(2)=true",
    );
}

#[test]
fn diverging_loop_feeding_a_terminal_loop() {
    // {1,2} can be left only into the self-loop 3: only 3 gets a synthetic exit.
    check(
        "0->1 1->2,3 2->1 3->3",
        "synthetic=3 ipdom(1)=3 ipdom(2)=1 ipdom(0)=1 depth(2)=1 depth(3)=1",
    );
}

#[test]
fn whole_function_is_one_self_loop() {
    check(
        "0->0",
        "synthetic=0 ipdom(0)=exit idom(0)=none header(0)=true depth(0)=1",
    );
}

#[test]
fn two_terminal_loops() {
    check(
        "0->1,3 1->2 2->1 3->4 4->3",
        "synthetic=2,4 ipdom(0)=exit ipdom(1)=2 ipdom(3)=4",
    );
}

#[test]
fn nested_infinite_loops() {
    // outer 1..5 forever, inner 2<->3; 4 outer latch.
    check(
        "0->1 1->2 2->3 3->2,4 4->1",
        "synthetic=4 depth(2)=2 depth(3)=2 depth(4)=1 ipdom(3)=4 ipdom(2)=3",
    );
}

#[test]
fn nested_loops_depth() {
    check(
        "0->1 1->2,6 2->3 3->3,4 4->2,5 5->1 6->exit",
        "depth(0)=0 depth(1)=1 depth(2)=2 depth(3)=3 depth(4)=2 depth(5)=1 depth(6)=0 header(3)=true",
    );
}

#[test]
fn unreachable_nodes_have_no_answers() {
    check(
        "0->exit 1->2 2->exit",
        "ipdom(1)=none idom(2)=none reaches_exit(1)=false depth(1)=0",
    );
}

#[test]
fn irreducible_is_reported() {
    // 0 branches into the middle of the cycle 1 <-> 2.
    check(
        "0->1,2 1->2 2->1,3 3->exit",
        "reducible=false header(1)=false header(2)=false ipdom(0)=2 ipdom(1)=2",
    );
}
