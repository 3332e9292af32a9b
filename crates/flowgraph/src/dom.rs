//! Dominators and the dominator tree.
//!
//! Node `d` dominates node `n` when every path from the entry to `n` passes
//! through `d` (every node dominates itself). The immediate dominators are
//! computed with the iterative algorithm of Cooper, Harvey and Kennedy ("A
//! Simple, Fast Dominance Algorithm", 2001): visit the nodes in reverse
//! postorder, set each node's idom to the intersection of its processed
//! predecessors' dominator chains, repeat until nothing changes. On the
//! reducible graphs that compilers emit this converges in two passes, so it is
//! linear in practice. The finished tree is then numbered by a depth-first
//! walk so that `dominates(a, b)` is an O(1) interval test.

use crate::graph::{Graph, Node};
use crate::order::{DfsOrder, UNSEEN, depth_first};

/// The dominator tree of a graph, rooted at its entry.
#[derive(Debug, Clone)]
pub struct Dominators {
    root: Node,
    /// Immediate dominator of each node; the root maps to itself, unreachable
    /// nodes to `UNSEEN`.
    idom: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Preorder and postorder numbers in the dominator tree.
    tree_pre: Vec<u32>,
    tree_post: Vec<u32>,
    depth: Vec<u32>,
    pub(crate) order: DfsOrder,
}

impl Dominators {
    /// Dominators of `graph` from its entry node.
    pub fn compute(graph: &Graph) -> Dominators {
        Dominators::from_root(graph, graph.entry())
    }

    pub(crate) fn from_root(graph: &Graph, root: Node) -> Dominators {
        let order = depth_first(graph, root);
        let idom = immediate_dominators(graph, &order);
        let n = graph.num_nodes();
        // Children lists in CSR form, in node order.
        let mut child_start = vec![0u32; n + 1];
        for (node, &d) in idom.iter().enumerate() {
            if d != UNSEEN && node != root {
                child_start[d as usize + 1] += 1;
            }
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; child_start[n] as usize];
        for (node, &d) in idom.iter().enumerate() {
            if d != UNSEEN && node != root {
                children[fill[d as usize] as usize] = node as u32;
                fill[d as usize] += 1;
            }
        }
        let mut dom = Dominators {
            root,
            idom,
            child_start,
            children,
            tree_pre: vec![UNSEEN; n],
            tree_post: vec![UNSEEN; n],
            depth: vec![UNSEEN; n],
            order,
        };
        dom.number_tree();
        dom
    }

    fn number_tree(&mut self) {
        if !self.order.reached(self.root) {
            return;
        }
        let mut pre = 0u32;
        let mut post = 0u32;
        let mut stack: Vec<(Node, usize)> = vec![(self.root, 0)];
        self.tree_pre[self.root] = pre;
        self.depth[self.root] = 0;
        pre += 1;
        while let Some(top) = stack.last_mut() {
            let (node, i) = *top;
            let a = self.child_start[node] as usize;
            let b = self.child_start[node + 1] as usize;
            if a + i < b {
                top.1 += 1;
                let child = self.children[a + i] as Node;
                self.tree_pre[child] = pre;
                pre += 1;
                self.depth[child] = self.depth[node] + 1;
                stack.push((child, 0));
            } else {
                self.tree_post[node] = post;
                post += 1;
                stack.pop();
            }
        }
    }

    /// The root of the tree (the graph's entry).
    pub fn root(&self) -> Node {
        self.root
    }

    /// Whether `node` is reachable from the root.
    pub fn is_reachable(&self, node: Node) -> bool {
        self.order.reached(node)
    }

    /// The immediate dominator of `node`: `None` for the root and for nodes
    /// unreachable from it.
    pub fn idom(&self, node: Node) -> Option<Node> {
        match self.idom.get(node) {
            Some(&d) if d != UNSEEN && node != self.root => Some(d as Node),
            _ => None,
        }
    }

    /// Whether `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: Node, b: Node) -> bool {
        self.is_reachable(a)
            && self.is_reachable(b)
            && self.tree_pre[a] <= self.tree_pre[b]
            && self.tree_post[b] <= self.tree_post[a]
    }

    /// Whether `a` dominates `b` and differs from it.
    pub fn strictly_dominates(&self, a: Node, b: Node) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The children of `node` in the dominator tree, in node order.
    pub fn children(&self, node: Node) -> impl ExactSizeIterator<Item = Node> + '_ {
        let (a, b) = match (self.child_start.get(node), self.child_start.get(node + 1)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => (0, 0),
        };
        self.children[a..b].iter().map(|&c| c as Node)
    }

    /// Depth of `node` in the dominator tree (the root has depth 0); `None`
    /// when unreachable.
    pub fn depth(&self, node: Node) -> Option<u32> {
        self.depth.get(node).copied().filter(|&d| d != UNSEEN)
    }

    /// The nodes reachable from the root, in reverse postorder of a
    /// depth-first search that visits successors in edge order.
    pub fn reverse_postorder(&self) -> &[Node] {
        &self.order.rpo
    }

    /// The deepest node dominating both `a` and `b`; `None` when either is
    /// unreachable.
    pub fn nearest_common_dominator(&self, a: Node, b: Node) -> Option<Node> {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return None;
        }
        let (mut a, mut b) = (a, b);
        while self.depth[a] > self.depth[b] {
            a = self.idom[a] as Node;
        }
        while self.depth[b] > self.depth[a] {
            b = self.idom[b] as Node;
        }
        while a != b {
            a = self.idom[a] as Node;
            b = self.idom[b] as Node;
        }
        Some(a)
    }
}

/// Cooper-Harvey-Kennedy, working on reverse-postorder indices so that
/// "walk up the finger that is later in the order" is an integer compare.
fn immediate_dominators(graph: &Graph, order: &DfsOrder) -> Vec<u32> {
    let n = graph.num_nodes();
    let rpo = &order.rpo;
    let index = &order.rpo_index;
    // idom by rpo index; the root (index 0) is its own idom.
    let mut doms = vec![UNSEEN; rpo.len()];
    if rpo.is_empty() {
        return vec![UNSEEN; n];
    }
    doms[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..rpo.len() {
            let mut new_idom = UNSEEN;
            for &p in graph.pred_slice(rpo[b]) {
                let p = index[p as usize];
                if p == UNSEEN || doms[p as usize] == UNSEEN {
                    continue;
                }
                new_idom = if new_idom == UNSEEN {
                    p
                } else {
                    intersect(&doms, p, new_idom)
                };
            }
            if new_idom != UNSEEN && doms[b] != new_idom {
                doms[b] = new_idom;
                changed = true;
            }
        }
    }
    let mut idom = vec![UNSEEN; n];
    for (i, &node) in rpo.iter().enumerate() {
        idom[node] = rpo[doms[i] as usize] as u32;
    }
    idom
}

fn intersect(doms: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = doms[a as usize];
        }
        while b > a {
            b = doms[b as usize];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond() {
        let g = Graph::from_edges(4, 0, &[(0, 1), (0, 2), (1, 3), (2, 3)], &[3]).unwrap();
        let d = Dominators::compute(&g);
        assert_eq!(d.idom(0), None);
        assert_eq!(d.idom(1), Some(0));
        assert_eq!(d.idom(3), Some(0));
        assert!(d.dominates(0, 3));
        assert!(!d.dominates(1, 3));
        assert_eq!(d.children(0).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(d.nearest_common_dominator(1, 2), Some(0));
        assert_eq!(d.depth(3), Some(1));
    }
}
