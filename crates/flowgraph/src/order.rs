//! Depth-first numbering from a root: preorder, postorder and reverse postorder.
//!
//! Iterative (an explicit stack of `(node, next successor)` pairs), so deep
//! graphs cannot overflow the call stack. Successors are visited in edge
//! order, which fixes the numbering for a given graph.

use crate::graph::{Graph, Node};

/// Marks a node the search did not reach.
pub(crate) const UNSEEN: u32 = u32::MAX;

/// The numbering of one depth-first search.
#[derive(Debug, Clone)]
pub(crate) struct DfsOrder {
    /// Preorder number of each node, `UNSEEN` when unreachable from the root.
    pub pre: Vec<u32>,
    /// Postorder number of each node, `UNSEEN` when unreachable.
    pub post: Vec<u32>,
    /// Reachable nodes in reverse postorder (the root first).
    pub rpo: Vec<Node>,
    /// Position of each node in `rpo`, `UNSEEN` when unreachable.
    pub rpo_index: Vec<u32>,
}

impl DfsOrder {
    pub fn reached(&self, node: Node) -> bool {
        self.pre.get(node).is_some_and(|&p| p != UNSEEN)
    }

    /// Whether `anc` is an ancestor of `node` (or `node` itself) in the DFS tree.
    pub fn is_tree_ancestor(&self, anc: Node, node: Node) -> bool {
        self.reached(anc)
            && self.reached(node)
            && self.pre[anc] <= self.pre[node]
            && self.post[node] <= self.post[anc]
    }
}

/// Depth-first search of `graph` from `root` along successor edges.
pub(crate) fn depth_first(graph: &Graph, root: Node) -> DfsOrder {
    let n = graph.num_nodes();
    let mut pre = vec![UNSEEN; n];
    let mut post = vec![UNSEEN; n];
    let mut postorder = Vec::with_capacity(n);
    let mut stack: Vec<(Node, usize)> = Vec::new();
    let mut next_pre = 0u32;
    if root < n {
        pre[root] = next_pre;
        next_pre += 1;
        stack.push((root, 0));
    }
    while let Some(top) = stack.last_mut() {
        let (node, edge) = *top;
        let succs = graph.succ_slice(node);
        if let Some(&s) = succs.get(edge) {
            top.1 += 1;
            let s = s as Node;
            if pre[s] == UNSEEN {
                pre[s] = next_pre;
                next_pre += 1;
                stack.push((s, 0));
            }
        } else {
            post[node] = postorder.len() as u32;
            postorder.push(node);
            stack.pop();
        }
    }
    postorder.reverse();
    let rpo = postorder;
    let mut rpo_index = vec![UNSEEN; n];
    for (i, &node) in rpo.iter().enumerate() {
        rpo_index[node] = i as u32;
    }
    DfsOrder {
        pre,
        post,
        rpo,
        rpo_index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_numbering() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3; node 4 unreachable.
        let g = Graph::from_edges(5, 0, &[(0, 1), (0, 2), (1, 3), (2, 3), (4, 0)], &[3]).unwrap();
        let o = depth_first(&g, 0);
        assert_eq!(o.rpo, vec![0, 2, 1, 3]);
        assert!(!o.reached(4));
        assert!(o.is_tree_ancestor(0, 3));
        assert!(o.is_tree_ancestor(1, 3));
        assert!(!o.is_tree_ancestor(2, 3));
    }
}
