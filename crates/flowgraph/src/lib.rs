//! flowgraph: dominators, post-dominators with a virtual exit, and loop
//! nesting on plain index graphs.
//!
//! Knows nothing of PTX: a [`Graph`] is nodes `0..n`, successor lists, one
//! entry and a set of exit nodes. The `ptx` crate builds one per function from
//! its basic blocks; the SIMT emulator reconverges divergent warps at the
//! immediate post-dominator of a branch block.
//!
//! A short tour:
//! - [`graph`]: the compact graph ([`Graph::from_edges`], [`Graph::from_successors`]).
//! - [`dom`]: [`Dominators`], Cooper-Harvey-Kennedy on reverse postorder, with
//!   O(1) `dominates` queries on the numbered dominator tree.
//! - [`postdom`]: [`PostDominators`] and [`PostDom`]: immediate
//!   post-dominators with a virtual exit, defined for every reachable node,
//!   including nodes in infinite loops (see the module docs for the rule).
//! - [`loops`]: [`LoopForest`]: natural loops, headers, latches, nesting
//!   depth, and irreducible edges reported as data.
//! - [`FlowAnalysis`] runs all three.
//!
//! Every query takes plain indices and answers `None`/`false` for nodes out of
//! range or unreachable from the entry; nothing panics on any graph. All
//! traversals are iterative and the results are deterministic for a given
//! graph (they depend on edge order only where the docs say so).

pub mod dom;
pub mod graph;
pub mod loops;
mod order;
pub mod postdom;
mod scc;

pub use dom::Dominators;
pub use graph::{Graph, GraphError, MAX_SIZE, Node};
pub use loops::{Loop, LoopForest, LoopId};
pub use postdom::{PostDom, PostDominators};

/// Dominators, post-dominators and loops of one graph.
#[derive(Debug, Clone)]
pub struct FlowAnalysis {
    pub dominators: Dominators,
    pub post_dominators: PostDominators,
    pub loops: LoopForest,
}

impl FlowAnalysis {
    /// Run every analysis on `graph` (one depth-first search shared by all).
    pub fn compute(graph: &Graph) -> FlowAnalysis {
        let dominators = Dominators::compute(graph);
        let post_dominators = PostDominators::compute_with(graph, &dominators);
        let loops = LoopForest::compute(graph, &dominators);
        FlowAnalysis {
            dominators,
            post_dominators,
            loops,
        }
    }
}
