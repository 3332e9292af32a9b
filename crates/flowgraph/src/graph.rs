//! The input of every analysis: a directed graph over nodes `0..n` with one
//! entry node and a set of exit nodes, stored as compressed adjacency arrays.
//!
//! Successors and predecessors are kept in two flat arrays indexed by per-node
//! offsets (CSR form), so a graph of a few thousand blocks costs four
//! allocations, not one per node. Edge order is preserved: the successors of a
//! node come out in the order the edges were given, which makes depth-first
//! orders, and every choice that depends on them, deterministic.

use std::fmt;

/// A node index, `0..Graph::num_nodes()`.
pub type Node = usize;

/// The most nodes, and the most edges, a graph may have (2^30). Derived
/// graphs (the reversed graph with a virtual exit) then still fit in the
/// compact `u32` indices.
pub const MAX_SIZE: usize = 1 << 30;

/// Why a graph could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// The graph has no nodes, so it has no entry.
    Empty,
    /// The entry is not a node of the graph.
    EntryOutOfRange { entry: Node, num_nodes: usize },
    /// An edge names a node that does not exist.
    EdgeOutOfRange {
        from: Node,
        to: Node,
        num_nodes: usize,
    },
    /// An exit names a node that does not exist.
    ExitOutOfRange { exit: Node, num_nodes: usize },
    /// More than [`MAX_SIZE`] nodes or edges.
    TooLarge,
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::Empty => write!(f, "the graph has no nodes"),
            GraphError::EntryOutOfRange { entry, num_nodes } => {
                write!(
                    f,
                    "entry node {entry} is out of range (the graph has {num_nodes} nodes)"
                )
            }
            GraphError::EdgeOutOfRange {
                from,
                to,
                num_nodes,
            } => {
                write!(
                    f,
                    "edge {from} -> {to} is out of range (the graph has {num_nodes} nodes)"
                )
            }
            GraphError::ExitOutOfRange { exit, num_nodes } => {
                write!(
                    f,
                    "exit node {exit} is out of range (the graph has {num_nodes} nodes)"
                )
            }
            GraphError::TooLarge => write!(f, "the graph has more than 2^30 nodes or edges"),
        }
    }
}

impl std::error::Error for GraphError {}

/// A directed graph with one entry and a set of exit nodes.
///
/// An exit node is one whose execution may leave the function (PTX `exit`,
/// `ret`, `trap`); it may also have ordinary successors (a guarded `@p exit`
/// falls through when the guard is false).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    entry: Node,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    is_exit: Vec<bool>,
    exits: Vec<Node>,
}

impl Graph {
    /// Build a graph of `num_nodes` nodes from an edge list. Parallel edges and
    /// self-loops are allowed. Exits are deduplicated and kept sorted.
    pub fn from_edges(
        num_nodes: usize,
        entry: Node,
        edges: &[(Node, Node)],
        exits: &[Node],
    ) -> Result<Graph, GraphError> {
        if num_nodes == 0 {
            return Err(GraphError::Empty);
        }
        if num_nodes > MAX_SIZE || edges.len() > MAX_SIZE {
            return Err(GraphError::TooLarge);
        }
        if entry >= num_nodes {
            return Err(GraphError::EntryOutOfRange { entry, num_nodes });
        }
        for &(from, to) in edges {
            if from >= num_nodes || to >= num_nodes {
                return Err(GraphError::EdgeOutOfRange {
                    from,
                    to,
                    num_nodes,
                });
            }
        }
        if let Some(&exit) = exits.iter().find(|&&x| x >= num_nodes) {
            return Err(GraphError::ExitOutOfRange { exit, num_nodes });
        }
        Ok(Graph::build(num_nodes, entry, edges, exits))
    }

    /// Build from indices already known to be in range, with at most
    /// `2 * MAX_SIZE + 1` nodes and edges (so that they fit in `u32`).
    pub(crate) fn build(
        num_nodes: usize,
        entry: Node,
        edges: &[(Node, Node)],
        exits: &[Node],
    ) -> Graph {
        let mut is_exit = vec![false; num_nodes];
        for &exit in exits {
            is_exit[exit] = true;
        }
        let exits = (0..num_nodes).filter(|&n| is_exit[n]).collect();
        let (succ_start, succ) = bucket(num_nodes, edges.iter().map(|&(f, t)| (f, t)));
        let (pred_start, pred) = bucket(num_nodes, edges.iter().map(|&(f, t)| (t, f)));
        Graph {
            entry,
            succ_start,
            succ,
            pred_start,
            pred,
            is_exit,
            exits,
        }
    }

    /// Build a graph from one successor list per node.
    pub fn from_successors(
        succs: &[Vec<Node>],
        entry: Node,
        exits: &[Node],
    ) -> Result<Graph, GraphError> {
        let edges: Vec<(Node, Node)> = succs
            .iter()
            .enumerate()
            .flat_map(|(from, list)| list.iter().map(move |&to| (from, to)))
            .collect();
        Graph::from_edges(succs.len(), entry, &edges, exits)
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.is_exit.len()
    }

    /// Number of edges, parallel edges counted separately.
    pub fn num_edges(&self) -> usize {
        self.succ.len()
    }

    /// The entry node.
    pub fn entry(&self) -> Node {
        self.entry
    }

    /// The exit nodes, sorted, without duplicates.
    pub fn exits(&self) -> &[Node] {
        &self.exits
    }

    /// Whether `node` is an exit node (false for an out-of-range node).
    pub fn is_exit(&self, node: Node) -> bool {
        self.is_exit.get(node).copied().unwrap_or(false)
    }

    /// Successors of `node`, in the order the edges were given (empty for an
    /// out-of-range node).
    pub fn successors(&self, node: Node) -> impl ExactSizeIterator<Item = Node> + '_ {
        slice(&self.succ_start, &self.succ, node)
            .iter()
            .map(|&s| s as Node)
    }

    /// Predecessors of `node`, in edge order (empty for an out-of-range node).
    pub fn predecessors(&self, node: Node) -> impl ExactSizeIterator<Item = Node> + '_ {
        slice(&self.pred_start, &self.pred, node)
            .iter()
            .map(|&p| p as Node)
    }

    pub(crate) fn succ_slice(&self, node: Node) -> &[u32] {
        slice(&self.succ_start, &self.succ, node)
    }

    pub(crate) fn pred_slice(&self, node: Node) -> &[u32] {
        slice(&self.pred_start, &self.pred, node)
    }
}

fn slice<'a>(start: &[u32], items: &'a [u32], node: Node) -> &'a [u32] {
    match (start.get(node), start.get(node + 1)) {
        (Some(&a), Some(&b)) => &items[a as usize..b as usize],
        _ => &[],
    }
}

/// Counting sort of `(key, value)` pairs by key, stable, into CSR form.
/// Callers have checked that every key and value is below `num_nodes`.
fn bucket(
    num_nodes: usize,
    pairs: impl Iterator<Item = (Node, Node)> + Clone,
) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; num_nodes + 1];
    for (k, _) in pairs.clone() {
        start[k + 1] += 1;
    }
    for i in 0..num_nodes {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; start[num_nodes] as usize];
    for (k, v) in pairs {
        items[fill[k] as usize] = v as u32;
        fill[k] += 1;
    }
    (start, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_edge_order_and_builds_predecessors() {
        let g = Graph::from_edges(3, 0, &[(0, 2), (0, 1), (1, 2), (2, 2)], &[2, 2]).unwrap();
        assert_eq!(g.successors(0).collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(g.predecessors(2).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(g.exits(), &[2]);
        assert_eq!(g.num_edges(), 4);
        assert_eq!(g.successors(7).count(), 0);
    }

    #[test]
    fn rejects_bad_indices() {
        assert_eq!(Graph::from_edges(0, 0, &[], &[]), Err(GraphError::Empty));
        assert_eq!(
            Graph::from_edges(2, 2, &[], &[]),
            Err(GraphError::EntryOutOfRange {
                entry: 2,
                num_nodes: 2
            })
        );
        assert_eq!(
            Graph::from_edges(2, 0, &[(0, 5)], &[]),
            Err(GraphError::EdgeOutOfRange {
                from: 0,
                to: 5,
                num_nodes: 2
            })
        );
        assert_eq!(
            Graph::from_edges(2, 0, &[], &[3]),
            Err(GraphError::ExitOutOfRange {
                exit: 3,
                num_nodes: 2
            })
        );
    }
}
