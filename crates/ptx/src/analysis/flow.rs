//! Dominators, immediate post-dominators and loops of a function's blocks,
//! and the reconvergence point of each branch: what the SIMT emulator uses.
//!
//! The graph algorithms are in [`flowgraph`]; this module maps their node
//! answers back to blocks and instruction indices. A divergent warp at a
//! branch reconverges at the first instruction of the immediate
//! post-dominator of the branch's block, or at function exit when that is the
//! virtual exit. Blocks inside infinite loops get an answer too (see
//! [`flowgraph::postdom`] for the rule).

use super::cfg::{BlockId, Cfg, CfgError};
use crate::ir::{Function, Opcode};
use flowgraph::{FlowAnalysis, PostDom};

/// Where the threads of a divergent branch meet again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reconvergence {
    /// At this instruction index (the first of the post-dominating block).
    Inst(u32),
    /// Only when the function returns or exits.
    FunctionExit,
}

/// The control-flow analyses of one function.
#[derive(Clone, Debug)]
pub struct FunctionFlow {
    pub cfg: Cfg,
    pub flow: FlowAnalysis,
}

impl FunctionFlow {
    /// Build the CFG of `func` and run the analyses on it.
    pub fn compute(func: &Function) -> Result<FunctionFlow, CfgError> {
        let cfg = Cfg::build(func)?;
        let flow = FlowAnalysis::compute(cfg.graph());
        Ok(FunctionFlow { cfg, flow })
    }

    /// The block holding instruction `inst`.
    pub fn block_of(&self, inst: u32) -> Option<BlockId> {
        self.cfg.block_of(inst)
    }

    /// Whether the block is reachable from the function's entry.
    pub fn is_reachable(&self, block: BlockId) -> bool {
        self.flow.dominators.is_reachable(block)
    }

    /// Immediate dominator of a block (`None` for the entry and unreachable blocks).
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        self.flow.dominators.idom(block)
    }

    /// Immediate post-dominator of a block (`None` only when unreachable).
    pub fn ipdom(&self, block: BlockId) -> Option<PostDom> {
        self.flow.post_dominators.ipdom(block)
    }

    /// Number of natural loops containing the block.
    pub fn loop_depth(&self, block: BlockId) -> u32 {
        self.flow.loops.depth(block)
    }

    /// The reconvergence point of the block holding `inst`: the first
    /// instruction of its immediate post-dominator. `None` when `inst` is out
    /// of range or its block is unreachable.
    pub fn reconvergence(&self, inst: u32) -> Option<Reconvergence> {
        let block = self.block_of(inst)?;
        Some(match self.ipdom(block)? {
            PostDom::Node(b) => Reconvergence::Inst(self.cfg.blocks[b].start),
            PostDom::VirtualExit => Reconvergence::FunctionExit,
        })
    }

    /// Every reachable branch instruction (`bra`, `brx.idx`) with its
    /// reconvergence point, in instruction order.
    pub fn branch_reconvergence(&self, func: &Function) -> Vec<(u32, Reconvergence)> {
        func.instructions
            .iter()
            .enumerate()
            .filter(|(_, (_, inst))| matches!(inst.opcode, Opcode::Bra | Opcode::BrxIdx))
            .filter_map(|(i, _)| self.reconvergence(i as u32).map(|r| (i as u32, r)))
            .collect()
    }
}
