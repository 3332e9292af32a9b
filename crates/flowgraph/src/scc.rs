//! Strongly connected components of an induced subgraph (Tarjan's algorithm,
//! iterative).
//!
//! Used by the post-dominator analysis to find the terminal regions of the
//! nodes that cannot reach an exit. Only nodes with `include[n]` take part, and
//! only edges between two included nodes are followed.

use crate::graph::{Graph, Node};
use crate::order::UNSEEN;

/// Component number of each included node (`UNSEEN` for excluded nodes) and
/// the number of components. Components are numbered in the order Tarjan
/// completes them, which is a reverse topological order of the condensation:
/// a component's successors all have smaller numbers.
pub(crate) fn components(graph: &Graph, include: &[bool]) -> (Vec<u32>, usize) {
    let n = graph.num_nodes();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut scc_stack: Vec<Node> = Vec::new();
    let mut call: Vec<(Node, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut count = 0usize;
    for start in 0..n {
        if !include[start] || index[start] != UNSEEN {
            continue;
        }
        index[start] = next_index;
        low[start] = next_index;
        next_index += 1;
        scc_stack.push(start);
        on_stack[start] = true;
        call.push((start, 0));
        while let Some(top) = call.last_mut() {
            let (v, edge) = *top;
            if let Some(&w) = graph.succ_slice(v).get(edge) {
                top.1 += 1;
                let w = w as Node;
                if !include[w] {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    scc_stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = scc_stack.pop() {
                    on_stack[w] = false;
                    comp[w] = count as u32;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cycles_and_a_tail() {
        // 0 <-> 1 -> 2 <-> 3 ; 4 excluded.
        let g = Graph::from_edges(5, 0, &[(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (3, 4)], &[])
            .unwrap();
        let (comp, count) = components(&g, &[true, true, true, true, false]);
        assert_eq!(count, 2);
        assert_eq!(comp[0], comp[1]);
        assert_eq!(comp[2], comp[3]);
        assert!(comp[2] < comp[0], "successor components complete first");
        assert_eq!(comp[4], UNSEEN);
    }
}
