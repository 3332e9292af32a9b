//! Times the analyses on 10k-node graphs: a structured one (chains of
//! diamonds inside nested loops, like compiled kernels) and a random one.
//! Run with `cargo bench -p flowgraph`.

use flowgraph::{FlowAnalysis, Graph};
use std::time::Instant;

/// Nested loops of depth 3 around a chain of diamonds, with early exits.
fn structured(n: usize) -> Graph {
    let mut edges = Vec::new();
    let mut exits = Vec::new();
    let mut v = 0;
    let mut loop_heads = Vec::new();
    while v + 8 < n {
        match (v / 4) % 6 {
            0 => {
                loop_heads.push(v);
                edges.push((v, v + 1));
            }
            1..=3 => {
                edges.extend([(v, v + 1), (v, v + 2), (v + 1, v + 3), (v + 2, v + 3)]);
                v += 3;
                continue;
            }
            4 => {
                edges.extend([(v, v + 1), (v, v + 2)]);
                exits.push(v + 1);
                edges.push((v + 2, v + 3));
                v += 3;
                continue;
            }
            _ => {
                edges.push((v, v + 1));
                if let Some(h) = loop_heads.pop() {
                    edges.push((v, h));
                }
            }
        }
        v += 1;
    }
    exits.push(v);
    Graph::from_edges(v + 1, 0, &edges, &exits).unwrap_or_else(|e| panic!("bench graph: {e}"))
}

/// A random graph with two successors per node (xorshift, fixed seed).
fn random(n: usize) -> Graph {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut edges = Vec::new();
    let mut exits = Vec::new();
    for v in 0..n {
        edges.push((v, (v + 1) % n));
        edges.push((v, (next() % n as u64) as usize));
        if next() % 50 == 0 {
            exits.push(v);
        }
    }
    Graph::from_edges(n, 0, &edges, &exits).unwrap_or_else(|e| panic!("bench graph: {e}"))
}

fn time(name: &str, g: &Graph) {
    let reps = 20;
    let start = Instant::now();
    let mut loops = 0;
    for _ in 0..reps {
        let fa = FlowAnalysis::compute(g);
        loops += fa.loops.loops().len();
    }
    let per = start.elapsed() / reps;
    println!(
        "{name}: {} nodes, {} edges, {} loops: {:?} per FlowAnalysis::compute",
        g.num_nodes(),
        g.num_edges(),
        loops / reps as usize,
        per
    );
}

fn main() {
    time("structured", &structured(10_000));
    time("random", &random(10_000));
}
