//! Immediate post-dominators with a virtual exit, including for nodes that
//! can never reach an exit.
//!
//! Node `d` post-dominates `n` when every path from `n` to the exit passes
//! through `d`. A function has several exits (PTX `exit`, `ret`, `trap`), so
//! the analysis adds a *virtual exit* node and an edge to it from every exit
//! node. Post-dominators are then the dominators of the reversed graph rooted
//! at the virtual exit, restricted to the nodes reachable from the entry.
//!
//! # Nodes that cannot reach an exit
//!
//! A block inside an infinite loop (`for (;;)` with no break, a spin loop)
//! never reaches an exit, so classically it has no post-dominator. The SIMT
//! emulator still needs a reconvergence point for branches there, so every
//! reachable node gets one under this rule:
//!
//! 1. A reachable node that cannot reach a real exit is *diverging*. The
//!    diverging nodes are closed under successors.
//! 2. Among them, take the strongly connected components with no edge to
//!    another diverging component: the *terminal regions*, loops that once
//!    entered are never left.
//! 3. In each terminal region, the node that comes last in the reverse
//!    postorder of the forward depth-first search from the entry (successors
//!    in edge order) gets a synthetic edge to the virtual exit.
//!
//! The chosen node is a latch: all of its successors inside the region come
//! earlier in reverse postorder, so all its edges are back edges. For the
//! usual `loop { if c { A } else { B }; }` that makes the loop's join block
//! the post-dominator of the branch, exactly where a warp should reconverge,
//! and it treats a terminal loop like an exit for the code around it (a
//! branch that sends some threads into a spin loop and the others towards
//! `ret` reconverges at the virtual exit). Only terminal regions get edges,
//! so a non-terminal diverging loop keeps the post-dominators the terminal
//! region below it induces. The rule is deterministic for a given graph.

use crate::dom::Dominators;
use crate::graph::{Graph, Node};
use crate::order::{DfsOrder, UNSEEN, depth_first};
use crate::scc::components;

/// A post-dominator: a node of the graph or the virtual exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PostDom {
    Node(Node),
    VirtualExit,
}

/// The post-dominator tree of a graph, rooted at the virtual exit.
#[derive(Debug, Clone)]
pub struct PostDominators {
    num_nodes: usize,
    /// Dominators of the reversed augmented graph; node `num_nodes` is the
    /// virtual exit.
    tree: Dominators,
    reaches_exit: Vec<bool>,
    synthetic_exits: Vec<Node>,
}

impl PostDominators {
    /// Post-dominators of `graph`, for the nodes reachable from its entry.
    pub fn compute(graph: &Graph) -> PostDominators {
        let order = depth_first(graph, graph.entry());
        PostDominators::with_order(graph, &order)
    }

    /// Same as [`PostDominators::compute`], reusing the depth-first order the
    /// dominator analysis already made.
    pub fn compute_with(graph: &Graph, dominators: &Dominators) -> PostDominators {
        PostDominators::with_order(graph, &dominators.order)
    }

    fn with_order(graph: &Graph, order: &DfsOrder) -> PostDominators {
        let n = graph.num_nodes();
        let reaches_exit = reaches_exit(graph, order);
        let synthetic_exits = terminal_region_exits(graph, order, &reaches_exit);
        let virtual_exit = n;
        let mut edges: Vec<(Node, Node)> =
            Vec::with_capacity(graph.num_edges() + graph.exits().len());
        for &x in graph.exits().iter().chain(&synthetic_exits) {
            if order.reached(x) {
                edges.push((virtual_exit, x));
            }
        }
        for &u in &order.rpo {
            for &v in graph.succ_slice(u) {
                edges.push((v as Node, u));
            }
        }
        // In range by construction; at most MAX_SIZE + 1 nodes and
        // 2 * MAX_SIZE edges, which `build` accepts.
        let reversed = Graph::build(n + 1, virtual_exit, &edges, &[]);
        let tree = Dominators::from_root(&reversed, virtual_exit);
        PostDominators {
            num_nodes: n,
            tree,
            reaches_exit,
            synthetic_exits,
        }
    }

    fn to_post_dom(&self, node: Node) -> PostDom {
        if node == self.num_nodes {
            PostDom::VirtualExit
        } else {
            PostDom::Node(node)
        }
    }

    fn index_of(&self, p: PostDom) -> Node {
        match p {
            PostDom::Node(n) if n < self.num_nodes => n,
            PostDom::Node(_) => usize::MAX,
            PostDom::VirtualExit => self.num_nodes,
        }
    }

    /// Whether `node` is reachable from the entry (only those have
    /// post-dominators).
    pub fn is_reachable(&self, node: Node) -> bool {
        node < self.num_nodes && self.tree.is_reachable(node)
    }

    /// The immediate post-dominator of `node`; `None` only for nodes not
    /// reachable from the entry (or out of range).
    pub fn ipdom(&self, node: Node) -> Option<PostDom> {
        if node >= self.num_nodes {
            return None;
        }
        self.tree.idom(node).map(|d| self.to_post_dom(d))
    }

    /// Whether `a` post-dominates `b` (reflexive). The virtual exit
    /// post-dominates every reachable node.
    pub fn post_dominates(&self, a: PostDom, b: Node) -> bool {
        b < self.num_nodes && self.tree.dominates(self.index_of(a), b)
    }

    /// Whether `node` is reachable from the entry and can reach a real exit
    /// node. Reachable nodes for which this is false are diverging: their
    /// post-dominators come from the synthetic exits.
    pub fn reaches_exit(&self, node: Node) -> bool {
        self.reaches_exit.get(node).copied().unwrap_or(false)
    }

    /// The nodes given a synthetic edge to the virtual exit, one per terminal
    /// region of diverging nodes, sorted.
    pub fn synthetic_exits(&self) -> &[Node] {
        &self.synthetic_exits
    }

    /// The nearest common post-dominator of two reachable nodes.
    pub fn nearest_common_post_dominator(&self, a: Node, b: Node) -> Option<PostDom> {
        if a >= self.num_nodes || b >= self.num_nodes {
            return None;
        }
        self.tree
            .nearest_common_dominator(a, b)
            .map(|d| self.to_post_dom(d))
    }

    /// Depth in the post-dominator tree (the virtual exit has depth 0).
    pub fn depth(&self, node: Node) -> Option<u32> {
        if node >= self.num_nodes {
            None
        } else {
            self.tree.depth(node)
        }
    }
}

/// Reachable nodes from which some reachable exit node can be reached.
fn reaches_exit(graph: &Graph, order: &DfsOrder) -> Vec<bool> {
    let mut seen = vec![false; graph.num_nodes()];
    let mut work: Vec<Node> = Vec::new();
    for &x in graph.exits() {
        if order.reached(x) && !seen[x] {
            seen[x] = true;
            work.push(x);
        }
    }
    while let Some(v) = work.pop() {
        for &p in graph.pred_slice(v) {
            let p = p as Node;
            if order.reached(p) && !seen[p] {
                seen[p] = true;
                work.push(p);
            }
        }
    }
    seen
}

/// One node per terminal region of the diverging nodes: the one latest in
/// reverse postorder. Sorted by node index.
fn terminal_region_exits(graph: &Graph, order: &DfsOrder, reaches_exit: &[bool]) -> Vec<Node> {
    let n = graph.num_nodes();
    let diverging: Vec<bool> = (0..n)
        .map(|v| order.reached(v) && !reaches_exit[v])
        .collect();
    if !diverging.iter().any(|&d| d) {
        return Vec::new();
    }
    let (comp, count) = components(graph, &diverging);
    let mut terminal = vec![true; count];
    let mut best: Vec<Option<Node>> = vec![None; count];
    for v in (0..n).filter(|&v| diverging[v]) {
        let c = comp[v] as usize;
        for &s in graph.succ_slice(v) {
            let cs = comp[s as usize];
            if cs != UNSEEN && cs as usize != c {
                terminal[c] = false;
            }
        }
        if best[c].is_none_or(|b| order.rpo_index[v] > order.rpo_index[b]) {
            best[c] = Some(v);
        }
    }
    let mut chosen: Vec<Node> = (0..count)
        .filter(|&c| terminal[c])
        .filter_map(|c| best[c])
        .collect();
    chosen.sort_unstable();
    chosen
}
