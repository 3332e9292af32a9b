//! Loop nesting: natural loops, their headers, latches, bodies and depths, and
//! the edges that make a graph irreducible.
//!
//! A *back edge* is an edge `u -> h` whose target dominates its source; `h` is
//! a loop header and `u` a latch. The natural loop of a header is the header
//! plus every node that reaches one of its latches without passing through the
//! header; back edges sharing a header make one loop. Natural loops are either
//! disjoint or nested, which gives the loop forest.
//!
//! The bodies are found by walking predecessors backwards from the latches,
//! headers taken innermost first (latest in reverse postorder first). When the
//! walk meets a node already claimed by an inner loop, it jumps to that loop's
//! outermost known ancestor, adopts it as a child and continues from its
//! header's predecessors, so each node is claimed once: linear in the graph
//! size times the nesting depth.
//!
//! # Irreducible control flow
//!
//! A *retreating* edge (source a descendant of its target in the depth-first
//! tree) whose target does not dominate its source enters a cycle at a node
//! that is not its single entry. Such cycles have no natural loop; they are
//! not counted in the nesting depth, and the offending edges are reported by
//! [`LoopForest::irreducible_edges`] rather than treated as an error. The graph
//! is reducible exactly when that list is empty.

use crate::dom::Dominators;
use crate::graph::{Graph, Node};

/// Index of a loop in [`LoopForest::loops`].
pub type LoopId = usize;

/// One natural loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// The single entry of the loop; it dominates the whole body.
    pub header: Node,
    /// Sources of the back edges to the header, sorted.
    pub latches: Vec<Node>,
    /// The innermost loop strictly containing this one.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop, parent's depth + 1 otherwise.
    pub depth: u32,
    /// Every node of the loop, nested loops included, sorted.
    pub body: Vec<Node>,
}

/// The loops of a graph, ordered by the position of their header in reverse
/// postorder, so that a parent always comes before its children.
#[derive(Debug, Clone)]
pub struct LoopForest {
    loops: Vec<Loop>,
    innermost: Vec<Option<LoopId>>,
    irreducible_edges: Vec<(Node, Node)>,
}

impl LoopForest {
    /// The loop forest of `graph`, given its dominators.
    pub fn compute(graph: &Graph, dominators: &Dominators) -> LoopForest {
        let n = graph.num_nodes();
        let order = &dominators.order;
        // Discovery, innermost headers first; ids in discovery order.
        let mut headers: Vec<Node> = Vec::new();
        let mut latches: Vec<Vec<Node>> = Vec::new();
        let mut parent: Vec<Option<usize>> = Vec::new();
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        let mut work: Vec<Node> = Vec::new();
        for &h in order.rpo.iter().rev() {
            let mut back: Vec<Node> = graph
                .pred_slice(h)
                .iter()
                .map(|&p| p as Node)
                .filter(|&p| dominators.dominates(h, p))
                .collect();
            if back.is_empty() {
                continue;
            }
            back.sort_unstable();
            back.dedup();
            let id = headers.len();
            headers.push(h);
            parent.push(None);
            innermost[h] = Some(id);
            work.extend(back.iter().copied());
            latches.push(back);
            while let Some(x) = work.pop() {
                match innermost[x] {
                    Some(inner) => {
                        let mut top = inner;
                        while let Some(p) = parent[top] {
                            top = p;
                        }
                        if top == id {
                            continue;
                        }
                        parent[top] = Some(id);
                        let inner_header = headers[top];
                        work.extend(
                            graph
                                .pred_slice(inner_header)
                                .iter()
                                .map(|&p| p as Node)
                                .filter(|&p| order.reached(p)),
                        );
                    }
                    None => {
                        innermost[x] = Some(id);
                        work.extend(
                            graph
                                .pred_slice(x)
                                .iter()
                                .map(|&p| p as Node)
                                .filter(|&p| order.reached(p)),
                        );
                    }
                }
            }
        }
        // Renumber so that ids follow the headers' reverse-postorder position.
        let count = headers.len();
        let mut new_id = vec![0usize; count];
        for (old, slot) in new_id.iter_mut().enumerate() {
            *slot = count - 1 - old;
        }
        let mut loops: Vec<Loop> = (0..count)
            .rev()
            .map(|old| Loop {
                header: headers[old],
                latches: std::mem::take(&mut latches[old]),
                parent: parent[old].map(|p| new_id[p]),
                depth: 0,
                body: Vec::new(),
            })
            .collect();
        for slot in innermost.iter_mut() {
            *slot = slot.map(|old| new_id[old]);
        }
        for id in 0..loops.len() {
            loops[id].depth = match loops[id].parent {
                Some(p) => loops[p].depth + 1,
                None => 1,
            };
        }
        for (node, &inner) in innermost.iter().enumerate() {
            let mut cur = inner;
            while let Some(l) = cur {
                loops[l].body.push(node);
                cur = loops[l].parent;
            }
        }
        let mut irreducible_edges = Vec::new();
        for &u in &order.rpo {
            for &v in graph.succ_slice(u) {
                let v = v as Node;
                if order.is_tree_ancestor(v, u) && !dominators.dominates(v, u) {
                    irreducible_edges.push((u, v));
                }
            }
        }
        irreducible_edges.sort_unstable();
        irreducible_edges.dedup();
        LoopForest {
            loops,
            innermost,
            irreducible_edges,
        }
    }

    /// All natural loops, parents before children.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The innermost loop containing `node`.
    pub fn innermost_loop(&self, node: Node) -> Option<LoopId> {
        self.innermost.get(node).copied().flatten()
    }

    /// How many natural loops contain `node` (0 outside any loop).
    pub fn depth(&self, node: Node) -> u32 {
        self.innermost_loop(node).map_or(0, |l| self.loops[l].depth)
    }

    /// The loop whose header is `node`, if any.
    pub fn loop_with_header(&self, node: Node) -> Option<LoopId> {
        self.innermost_loop(node)
            .filter(|&l| self.loops[l].header == node)
    }

    /// Whether `node` is a loop header.
    pub fn is_header(&self, node: Node) -> bool {
        self.loop_with_header(node).is_some()
    }

    /// Whether loop `id` contains `node` (directly or in a nested loop).
    pub fn contains(&self, id: LoopId, node: Node) -> bool {
        let mut cur = self.innermost_loop(node);
        while let Some(l) = cur {
            if l == id {
                return true;
            }
            cur = self.loops[l].parent;
        }
        false
    }

    /// Retreating edges `(from, to)` whose target does not dominate their
    /// source, sorted: each enters a cycle that has no single header.
    pub fn irreducible_edges(&self) -> &[(Node, Node)] {
        &self.irreducible_edges
    }

    /// Whether the reachable part of the graph is reducible.
    pub fn is_reducible(&self) -> bool {
        self.irreducible_edges.is_empty()
    }
}
