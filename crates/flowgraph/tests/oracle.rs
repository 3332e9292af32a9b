//! Property tests: dominators, post-dominators (with the virtual exit and the
//! terminal-region rule for infinite loops) and loop nesting against
//! brute-force oracles on random graphs.
//!
//! The oracles share no code with the crate: reachability is recomputed with
//! a node deleted, the depth-first order is recursive, strongly connected
//! regions come from mutual reachability, and reducibility from T1/T2
//! reduction.

use flowgraph::{FlowAnalysis, Graph, PostDom};
use proptest::prelude::*;

/// A random graph: successor lists (self-loops, parallel edges and unreachable
/// nodes arise naturally) and an exit flag per node (possibly none at all, so
/// whole functions can be infinite loops).
#[derive(Debug, Clone)]
struct Case {
    succs: Vec<Vec<usize>>,
    exits: Vec<usize>,
}

fn case(max_nodes: usize) -> impl Strategy<Value = Case> {
    (1..=max_nodes).prop_flat_map(|n| {
        let lists = proptest::collection::vec(proptest::collection::vec(0..n, 0..=3), n);
        let exits = proptest::collection::vec(proptest::bool::weighted(0.25), n);
        (lists, exits).prop_map(|(succs, flags)| Case {
            succs,
            exits: flags
                .iter()
                .enumerate()
                .filter(|(_, f)| **f)
                .map(|(i, _)| i)
                .collect(),
        })
    })
}

/// Nodes reachable from `from` following `succs`, never entering `deleted`.
fn reach(succs: &[Vec<usize>], from: usize, deleted: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; succs.len()];
    if Some(from) == deleted {
        return seen;
    }
    let mut work = vec![from];
    seen[from] = true;
    while let Some(v) = work.pop() {
        for &s in &succs[v] {
            if !seen[s] && Some(s) != deleted {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}

fn rpo_recursive(succs: &[Vec<usize>], v: usize, seen: &mut Vec<bool>, post: &mut Vec<usize>) {
    seen[v] = true;
    for &s in &succs[v] {
        if !seen[s] {
            rpo_recursive(succs, s, seen, post);
        }
    }
    post.push(v);
}

struct Oracle {
    n: usize,
    reachable: Vec<bool>,
    /// Augmented graph restricted to reachable nodes; node `n` is the virtual exit.
    augmented: Vec<Vec<usize>>,
    reaches_exit: Vec<bool>,
    synthetic: Vec<usize>,
}

impl Oracle {
    fn new(c: &Case) -> Oracle {
        let n = c.succs.len();
        let reachable = reach(&c.succs, 0, None);
        let is_exit = |v: usize| c.exits.contains(&v);
        let reaches_exit: Vec<bool> = (0..n)
            .map(|v| {
                reachable[v]
                    && reach(&c.succs, v, None)
                        .iter()
                        .enumerate()
                        .any(|(x, &r)| r && is_exit(x))
            })
            .collect();
        let diverging: Vec<bool> = (0..n).map(|v| reachable[v] && !reaches_exit[v]).collect();
        let closure: Vec<Vec<bool>> = (0..n).map(|v| reach(&c.succs, v, None)).collect();
        let mut seen = vec![false; n];
        let mut post = Vec::new();
        rpo_recursive(&c.succs, 0, &mut seen, &mut post);
        post.reverse();
        let rpo_pos = |v: usize| post.iter().position(|&x| x == v).unwrap_or(usize::MAX);
        let mut synthetic = Vec::new();
        for v in (0..n).filter(|&v| diverging[v]) {
            let scc: Vec<usize> = (0..n).filter(|&w| closure[v][w] && closure[w][v]).collect();
            let terminal = (0..n).all(|w| !closure[v][w] || scc.contains(&w));
            let last = scc.iter().copied().max_by_key(|&w| rpo_pos(w));
            if terminal && last == Some(v) {
                synthetic.push(v);
            }
        }
        let mut augmented: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for v in (0..n).filter(|&v| reachable[v]) {
            augmented[v] = c.succs[v].clone();
            if is_exit(v) || synthetic.contains(&v) {
                augmented[v].push(n);
            }
        }
        Oracle {
            n,
            reachable,
            augmented,
            reaches_exit,
            synthetic,
        }
    }

    /// `d` post-dominates `v` (node `n` is the virtual exit).
    fn pdom(&self, d: usize, v: usize) -> bool {
        d == v || d == self.n || !reach(&self.augmented, v, Some(d))[self.n]
    }

    fn ipdom(&self, v: usize) -> Option<PostDom> {
        if !self.reachable[v] {
            return None;
        }
        let strict: Vec<usize> = (0..=self.n)
            .filter(|&d| d != v && self.pdom(d, v))
            .collect();
        let imm = strict
            .iter()
            .copied()
            .find(|&c| strict.iter().all(|&e| e == c || self.pdom(e, c)))?;
        Some(if imm == self.n {
            PostDom::VirtualExit
        } else {
            PostDom::Node(imm)
        })
    }

    fn dom(&self, succs: &[Vec<usize>], d: usize, v: usize) -> bool {
        self.reachable[d] && self.reachable[v] && (d == v || !reach(succs, 0, Some(d))[v])
    }

    fn idom(&self, succs: &[Vec<usize>], v: usize) -> Option<usize> {
        if !self.reachable[v] || v == 0 {
            return None;
        }
        let strict: Vec<usize> = (0..self.n)
            .filter(|&d| d != v && self.dom(succs, d, v))
            .collect();
        strict
            .iter()
            .copied()
            .find(|&c| strict.iter().all(|&e| e == c || self.dom(succs, e, c)))
    }
}

/// T1/T2 reduction of the reachable subgraph: reducible iff it collapses to
/// one node.
fn reducible_by_t1_t2(c: &Case, reachable: &[bool]) -> bool {
    let n = c.succs.len();
    let mut alive: Vec<bool> = reachable.to_vec();
    let mut edges: std::collections::BTreeSet<(usize, usize)> = std::collections::BTreeSet::new();
    for v in (0..n).filter(|&v| reachable[v]) {
        for &s in &c.succs[v] {
            edges.insert((v, s));
        }
    }
    loop {
        edges.retain(|&(a, b)| a != b); // T1
        let mut merged = false;
        for v in (1..n).filter(|&v| alive[v]) {
            let preds: Vec<usize> = edges.iter().filter(|e| e.1 == v).map(|e| e.0).collect();
            if preds.len() == 1 {
                let p = preds[0];
                let moved: Vec<(usize, usize)> = edges
                    .iter()
                    .filter(|e| e.0 == v || e.1 == v)
                    .copied()
                    .collect();
                for (a, b) in moved {
                    edges.remove(&(a, b));
                    if a == v {
                        edges.insert((p, b));
                    }
                }
                alive[v] = false;
                merged = true;
                break;
            }
        }
        if !merged {
            break;
        }
    }
    alive.iter().filter(|&&a| a).count() == 1
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let g = Graph::from_successors(&c.succs, 0, &c.exits)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let fa = FlowAnalysis::compute(&g);
    let o = Oracle::new(c);
    let n = o.n;
    let mut synthetic = o.synthetic.clone();
    synthetic.sort_unstable();
    prop_assert_eq!(fa.post_dominators.synthetic_exits(), &synthetic[..]);
    for v in 0..n {
        prop_assert_eq!(fa.dominators.is_reachable(v), o.reachable[v]);
        prop_assert_eq!(
            fa.post_dominators.reaches_exit(v),
            o.reaches_exit[v],
            "reaches_exit({})",
            v
        );
        prop_assert_eq!(fa.post_dominators.ipdom(v), o.ipdom(v), "ipdom({})", v);
        prop_assert_eq!(fa.dominators.idom(v), o.idom(&c.succs, v), "idom({})", v);
        for d in 0..n {
            prop_assert_eq!(
                fa.dominators.dominates(d, v),
                o.dom(&c.succs, d, v),
                "dom({}, {})",
                d,
                v
            );
            let want = o.reachable[v] && o.reachable[d] && o.pdom(d, v);
            prop_assert_eq!(
                fa.post_dominators.post_dominates(PostDom::Node(d), v),
                want,
                "pdom({}, {})",
                d,
                v
            );
        }
        prop_assert_eq!(
            fa.post_dominators.post_dominates(PostDom::VirtualExit, v),
            o.reachable[v]
        );
    }
    // Natural loops: header h with latches u (h dominates u); body = h plus
    // every node that reaches a latch with h deleted.
    let mut depth = vec![0u32; n];
    let mut headers = Vec::new();
    for h in 0..n {
        let latches: Vec<usize> = (0..n)
            .filter(|&u| o.reachable[u] && c.succs[u].contains(&h) && o.dom(&c.succs, h, u))
            .collect();
        if latches.is_empty() {
            continue;
        }
        headers.push(h);
        let body: Vec<usize> = (0..n)
            .filter(|&x| {
                o.reachable[x]
                    && (x == h || latches.iter().any(|&u| reach(&c.succs, x, Some(h))[u]))
            })
            .collect();
        for &x in &body {
            depth[x] += 1;
        }
        let id = fa.loops.loop_with_header(h);
        prop_assert!(id.is_some(), "no loop for header {}", h);
        if let Some(id) = id {
            prop_assert_eq!(&fa.loops.loops()[id].body, &body);
            prop_assert_eq!(&fa.loops.loops()[id].latches, &latches);
        }
    }
    prop_assert_eq!(fa.loops.loops().len(), headers.len());
    for (v, &want) in depth.iter().enumerate() {
        prop_assert_eq!(fa.loops.depth(v), want, "depth({})", v);
    }
    prop_assert_eq!(fa.loops.is_reducible(), reducible_by_t1_t2(c, &o.reachable));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn small_graphs_match_the_oracle(c in case(8)) {
        check_case(&c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn larger_graphs_match_the_oracle(c in case(18)) {
        check_case(&c)?;
    }
}
