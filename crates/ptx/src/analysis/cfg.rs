//! Basic blocks and the control-flow graph of one function, as a side table
//! over its flat instruction list.
//!
//! Leaders are: the first instruction, every label target, and the
//! instruction after a block-ending one (`bra`, `brx.idx`, `exit`, `ret`,
//! `trap`, guarded or not). Edges:
//! - `bra L`: to L; `@p bra L`: to L and to the next block (fall-through);
//! - `brx.idx`: to every label of its target list (plus fall-through when guarded);
//! - `exit`, `ret`: the block is an exit (an edge to the virtual exit of
//!   [`flowgraph`]); guarded, they also fall through;
//! - `trap` aborts the whole launch, so it is no way out of the function:
//!   guarded, it falls through; unguarded, its block *aborts* and no edge
//!   leads into it. A thread that takes such a path never continues and no
//!   other thread waits for it, so for reconvergence it is no path at all:
//!   the branch of `if (bad) trap;` reconverges where the other path goes on
//!   (as the GPU's warps do), not at the function's exit. A block whose every
//!   successor aborts (code that runs into a `trap`) aborts too. Aborting
//!   blocks are unreachable in the graph; [`BasicBlock::aborts`] marks them;
//! - `call` and everything else fall through; falling off the end of the body
//!   (or branching to a label placed after the last instruction) is an exit.
//!
//! A body without instructions gets one empty exit block, so every function
//! with a body has an entry block.

use crate::ir::{Function, Handle, Instruction, LabelDecl, Opcode, Operand};
use flowgraph::{Graph, Node};
use std::fmt;

/// Index of a block in [`Cfg::blocks`]; the entry block is 0.
pub type BlockId = usize;

/// A maximal straight-line run of instructions `start..end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasicBlock {
    /// First instruction index.
    pub start: u32,
    /// One past the last instruction index (`start == end` only for the
    /// empty block of an empty body).
    pub end: u32,
    /// Successor blocks: branch targets in operand order, then the
    /// fall-through; without duplicates.
    pub successors: Vec<BlockId>,
    /// Whether control may leave the function from this block.
    pub exits: bool,
    /// Whether every path through this block ends in an unguarded `trap`
    /// (no edge leads into it; see the module documentation).
    pub aborts: bool,
    /// The first label (in declaration order) placed at `start`, if any.
    pub label: Option<Handle<LabelDecl>>,
}

impl BasicBlock {
    /// Number of instructions.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Index of the last instruction, `None` for an empty block.
    pub fn last(&self) -> Option<u32> {
        self.end.checked_sub(1).filter(|&l| l >= self.start)
    }
}

/// A malformed body the CFG cannot be built from (a dangling label handle;
/// the parser's checks make this unreachable for parsed modules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgError {
    /// Index of the offending instruction.
    pub inst: u32,
    pub message: String,
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "instruction {}: {}", self.inst, self.message)
    }
}

impl std::error::Error for CfgError {}

/// Basic blocks, the instruction-to-block map and the block graph.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
    block_of: Vec<u32>,
    graph: Graph,
}

/// How an instruction affects control flow.
enum Flow {
    Next,
    /// Branch targets (instruction indices, possibly `len` = end of body), and
    /// whether control can also fall through.
    Jump(Vec<u32>, bool),
    /// Leaves the function; `true` when guarded (may fall through).
    Leave(bool),
    /// `trap`: aborts the launch; `true` when guarded (falls through).
    Abort(bool),
}

fn flow_of(func: &Function, index: u32, inst: &Instruction) -> Result<Flow, CfgError> {
    let guarded = inst.guard.is_some();
    let target = |label: Handle<LabelDecl>| {
        func.label_target(label).ok_or_else(|| CfgError {
            inst: index,
            message: "dangling label".into(),
        })
    };
    Ok(match inst.opcode {
        Opcode::Bra | Opcode::BrxIdx => {
            let mut targets = Vec::new();
            for op in &inst.operands {
                match op {
                    Operand::Label(l) => targets.push(target(*l)?),
                    Operand::BranchTargets(t) => {
                        let list = func.branch_targets.get(*t).ok_or_else(|| CfgError {
                            inst: index,
                            message: "dangling .branchtargets list".into(),
                        })?;
                        for &l in &list.labels {
                            targets.push(target(l)?);
                        }
                    }
                    _ => {}
                }
            }
            if targets.is_empty() {
                return Err(CfgError {
                    inst: index,
                    message: "branch without a label target".into(),
                });
            }
            Flow::Jump(targets, guarded)
        }
        Opcode::Exit | Opcode::Ret => Flow::Leave(guarded),
        Opcode::Trap => Flow::Abort(guarded),
        _ => Flow::Next,
    })
}

/// Marks as aborting every block whose successors all abort (it runs into a
/// `trap`; the entry block stays what it is, the graph's root), then removes
/// the edges into aborting blocks.
fn remove_aborting_paths(blocks: &mut [BasicBlock]) {
    loop {
        let mut changed = false;
        for b in 1..blocks.len() {
            let block = &blocks[b];
            if !block.aborts
                && !block.exits
                && !block.successors.is_empty()
                && block.successors.iter().all(|&s| blocks[s].aborts)
            {
                blocks[b].aborts = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let aborts: Vec<bool> = blocks.iter().map(|b| b.aborts).collect();
    for block in blocks.iter_mut() {
        block.successors.retain(|&s| !aborts[s]);
    }
}

impl Cfg {
    /// Build the CFG of a function body.
    pub fn build(func: &Function) -> Result<Cfg, CfgError> {
        let insts = func.instructions.as_slice();
        let len = insts.len() as u32;
        let flows: Vec<Flow> = insts
            .iter()
            .enumerate()
            .map(|(i, inst)| flow_of(func, i as u32, inst))
            .collect::<Result<_, _>>()?;
        // Leaders.
        let mut leader = vec![false; insts.len() + 1];
        leader[0] = true;
        for (_, l) in func.labels.iter() {
            if let Some(slot) = leader.get_mut(l.target as usize) {
                *slot = true;
            }
        }
        for (i, f) in flows.iter().enumerate() {
            if let Flow::Jump(targets, _) = f {
                for &t in targets {
                    if let Some(slot) = leader.get_mut(t as usize) {
                        *slot = true;
                    }
                }
            }
            if !matches!(f, Flow::Next) {
                leader[i + 1] = true;
            }
        }
        let starts: Vec<u32> = (0..len.max(1)).filter(|&i| leader[i as usize]).collect();
        let mut block_of = vec![0u32; insts.len()];
        let mut blocks: Vec<BasicBlock> = Vec::with_capacity(starts.len());
        for (b, &start) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(len);
            for slot in &mut block_of[start as usize..end as usize] {
                *slot = b as u32;
            }
            blocks.push(BasicBlock {
                start,
                end,
                successors: Vec::new(),
                exits: false,
                aborts: false,
                label: None,
            });
        }
        for (h, l) in func.labels.iter() {
            if let Ok(b) = starts.binary_search(&l.target) {
                let slot = &mut blocks[b].label;
                if slot.is_none() {
                    *slot = Some(h);
                }
            }
        }
        // Edges: a target at `len` (a label ending the body) leaves the function.
        let block_at =
            |i: u32| -> Option<BlockId> { block_of.get(i as usize).map(|&b| b as BlockId) };
        for block in blocks.iter_mut() {
            let (start, end) = (block.start, block.end);
            let mut succs: Vec<BlockId> = Vec::new();
            let mut exits = false;
            let falls = match block.last().map(|l| &flows[l as usize]) {
                None | Some(Flow::Next) => true,
                Some(Flow::Jump(targets, guarded)) => {
                    for &t in targets {
                        match block_at(t) {
                            Some(tb) => succs.push(tb),
                            None => exits = true,
                        }
                    }
                    *guarded
                }
                Some(Flow::Leave(guarded)) => {
                    exits = true;
                    *guarded
                }
                Some(Flow::Abort(guarded)) => {
                    block.aborts = !guarded;
                    *guarded
                }
            };
            if falls {
                match block_at(end) {
                    Some(next) if start != end => succs.push(next),
                    _ => exits = true,
                }
            }
            let mut seen = Vec::with_capacity(succs.len());
            for s in succs {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            block.successors = seen;
            block.exits = exits;
        }
        remove_aborting_paths(&mut blocks);
        let succ_lists: Vec<Vec<Node>> = blocks.iter().map(|b| b.successors.clone()).collect();
        let exit_nodes: Vec<Node> = (0..blocks.len()).filter(|&b| blocks[b].exits).collect();
        let graph = Graph::from_successors(&succ_lists, 0, &exit_nodes).map_err(|e| CfgError {
            inst: 0,
            message: format!("control-flow graph: {e}"),
        })?;
        Ok(Cfg {
            blocks,
            block_of,
            graph,
        })
    }

    /// The block holding instruction `inst`.
    pub fn block_of(&self, inst: u32) -> Option<BlockId> {
        self.block_of.get(inst as usize).map(|&b| b as BlockId)
    }

    /// The block graph (node `i` is `blocks[i]`, entry 0, exits = exiting blocks).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Predecessor blocks of `block`.
    pub fn predecessors(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.predecessors(block)
    }
}
