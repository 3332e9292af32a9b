//! Static instruction- and memory-level parallelism of a function: how many
//! independent instructions (ILP) and independent loads (MLP) one warp has in
//! flight, from the dependence graph of each basic block.
//!
//! Within a block, instruction `j` depends on instruction `i < j` when `j`
//! reads a register `i` wrote last (read after write through registers, the
//! guard predicate and address bases included), and through memory order:
//! a load or store depends on the last earlier store to the same state space
//! (conservative: addresses are not compared), and a barrier, fence, atomic
//! or call depends on everything before it and everything after depends on
//! it. Values defined in other blocks are ready when the block starts.
//!
//! Each instruction is a node of one of four kinds: *compute* (arithmetic,
//! logic, moves, compares, conversions, control), *global load* (`ld`/`ldu`
//! global, local or generic), *shared load*, or *free*. Free nodes are
//! parameter and constant loads (ptxas folds them into `c[bank][offset]`
//! operands: nothing is issued and they add no latency), stores, barriers and
//! the like (they order the graph but are costed elsewhere). For each kind K
//! the block's critical path `cp_K` is the largest number of K nodes on one
//! dependence path, and the block's parallelism of that kind is
//! `n_K / cp_K`: the classic "instructions over critical-path length" with
//! unit latency, counted separately for compute, global loads and shared
//! loads so that each matches one term of a latency chain
//! (`n_compute λ / ILP + n_global λ_g / MLP_g + n_shared λ_sh / MLP_s`).
//!
//! Blocks are then merged into regions (one per innermost loop, see
//! [`Parallelism`]) whose instructions are analysed together, with the
//! warp's in-order issue kept at the branches ptxas does not if-convert
//! (`ends_in_kept_branch`). A function's
//! figure weights each block by how often it runs:
//! `Σ_b w_b n_b / Σ_r w_r cp_r` (total work over total critical path, so a
//! hot serial loop dominates a cold parallel prologue). The weights are the
//! block's dynamic execution counts when a profile gives them
//! ([`Parallelism::weighted`]), else `LOOP_WEIGHT ^ loop depth`
//! ([`Parallelism::by_loop_depth`]).

use std::collections::HashMap;

use crate::analysis::cfg::{BlockId, Cfg, CfgError};
use crate::analysis::flow::FunctionFlow;
use crate::analysis::mix::{InstClass, class_of};
use crate::ir::{AddrBase, Function, Instruction, Opcode, Operand, Reg, StateSpace};

/// Assumed trip count of a loop when no profile gives execution counts: a
/// block at loop depth d weighs `LOOP_WEIGHT^d` (a static guess, only the
/// fallback when the dynamic counts are unknown).
pub const LOOP_WEIGHT: f64 = 10.0;

/// What one instruction contributes to the critical paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Issued arithmetic, logic, move, compare, conversion or control.
    Compute,
    /// Global, local or generic load (goes through L1/L2/DRAM).
    GlobalLoad,
    /// Shared-memory load.
    SharedLoad,
    /// Costs nothing on a path: parameter/constant loads (folded by ptxas),
    /// stores, barriers, fences, atomics (costed by the other terms).
    Free,
}

/// The kind of one instruction (see the module docs).
pub fn node_kind(inst: &Instruction) -> NodeKind {
    use InstClass as C;
    match class_of(inst) {
        C::LdGlobal | C::LdLocal | C::LdGeneric => NodeKind::GlobalLoad,
        C::LdShared => NodeKind::SharedLoad,
        C::LdParam | C::LdConst => NodeKind::Free,
        C::StGlobal
        | C::StShared
        | C::StLocal
        | C::StParam
        | C::StGeneric
        | C::AtomGlobal
        | C::AtomShared
        | C::AtomGeneric
        | C::Barrier
        | C::Fence
        | C::AsyncCopy
        | C::Exit
        | C::CallRet => NodeKind::Free,
        _ => NodeKind::Compute,
    }
}

/// Counts and critical paths of one basic block, per node kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockParallelism {
    /// Compute instructions, and the most of them on one dependence path.
    pub compute: u32,
    pub compute_path: u32,
    /// Global loads, and the most of them on one dependence path.
    pub global_loads: u32,
    pub global_path: u32,
    /// Shared loads, and the most of them on one dependence path.
    pub shared_loads: u32,
    pub shared_path: u32,
}

impl BlockParallelism {
    /// Compute instructions over their critical path (`None` without any).
    pub fn ilp(&self) -> Option<f64> {
        ratio(self.compute, self.compute_path)
    }

    /// Global loads over their critical path (`None` without any).
    pub fn mlp_global(&self) -> Option<f64> {
        ratio(self.global_loads, self.global_path)
    }

    /// Shared loads over their critical path (`None` without any).
    pub fn mlp_shared(&self) -> Option<f64> {
        ratio(self.shared_loads, self.shared_path)
    }
}

fn ratio(n: u32, path: u32) -> Option<f64> {
    (n > 0 && path > 0).then(|| f64::from(n) / f64::from(path))
}

/// The function-level figures: ILP, MLP (global) and MLP (shared), each
/// `None` when the function has no node of that kind with positive weight.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ParallelismEstimate {
    pub ilp: Option<f64>,
    pub mlp_global: Option<f64>,
    pub mlp_shared: Option<f64>,
}

/// Per-block and per-region parallelism of one function.
///
/// A *region* is the set of blocks whose innermost loop is the same (or no
/// loop): one iteration of a loop body, or the straight-line code of the
/// function around its loops. Its instructions are analysed together, in
/// program order, as if its hammocks were predicated: ptxas if-converts the
/// small guarded blocks of bounds checks (`if (x < n) a[i] = b[x]`) into
/// predicated instructions, so the guarded loads of an unrolled loop body are
/// in flight together even though each sits in a block of its own. Other
/// branches stay branches and fix the issue order at their place (see
/// `block_parallelism`).
#[derive(Clone, Debug)]
pub struct Parallelism {
    /// Each block alone, indexed like [`Cfg::blocks`].
    pub blocks: Vec<BlockParallelism>,
    /// The region of each block (index into `regions`).
    pub region_of: Vec<usize>,
    /// Each region's instructions analysed together.
    pub regions: Vec<BlockParallelism>,
    /// First instruction index of each block (to look up execution counts).
    pub starts: Vec<u32>,
    /// Loop depth of each block (0 outside loops and for unreachable blocks).
    pub loop_depths: Vec<u32>,
}

impl Parallelism {
    /// Analyse every block and region of `func`.
    pub fn of_function(func: &Function) -> Result<Parallelism, CfgError> {
        let flow = FunctionFlow::compute(func)?;
        let cfg: &Cfg = &flow.cfg;
        let insts: Vec<&Instruction> = func.instructions.iter().map(|(_, i)| i).collect();
        let n = cfg.blocks.len();
        let mut blocks = Vec::with_capacity(n);
        let mut starts = Vec::with_capacity(n);
        let mut loop_depths = Vec::with_capacity(n);
        let mut region_of = Vec::with_capacity(n);
        // Region keys: the innermost loop, None for the function level.
        let mut keys: Vec<Option<usize>> = Vec::new();
        let mut members: Vec<Vec<&Instruction>> = Vec::new();
        // Where a region's issue order is fixed (after a branch ptxas keeps).
        let mut boundaries: Vec<Vec<usize>> = Vec::new();
        for (id, b) in cfg.blocks.iter().enumerate() {
            let range = insts
                .get(b.start as usize..b.end as usize)
                .unwrap_or_default();
            blocks.push(block_parallelism(range, &[]));
            starts.push(b.start);
            let reachable = flow.is_reachable(id as BlockId);
            loop_depths.push(if reachable {
                flow.loop_depth(id as BlockId)
            } else {
                0
            });
            let key = if reachable {
                flow.flow.loops.innermost_loop(id)
            } else {
                None
            };
            let r = match keys.iter().position(|k| *k == key) {
                Some(r) => r,
                None => {
                    keys.push(key);
                    members.push(Vec::new());
                    boundaries.push(Vec::new());
                    keys.len() - 1
                }
            };
            members[r].extend_from_slice(range);
            if ends_in_kept_branch(cfg, &insts, id) {
                boundaries[r].push(members[r].len());
            }
            region_of.push(r);
        }
        let regions = members
            .iter()
            .zip(&boundaries)
            .map(|(m, b)| block_parallelism(m, b))
            .collect();
        Ok(Parallelism {
            blocks,
            region_of,
            regions,
            starts,
            loop_depths,
        })
    }

    /// Weighted by `LOOP_WEIGHT ^ loop depth`.
    pub fn by_loop_depth(&self) -> ParallelismEstimate {
        let w: Vec<f64> = self
            .loop_depths
            .iter()
            .map(|&d| LOOP_WEIGHT.powi(d.min(16) as i32))
            .collect();
        self.weighted(&w)
    }

    /// Weighted by `weights[b]` (e.g. the dynamic executions of block b);
    /// missing, negative or non-finite weights count as 0. The work of each
    /// block counts with its own weight; the critical path of a region with
    /// the largest weight of its blocks (its header runs every iteration).
    pub fn weighted(&self, weights: &[f64]) -> ParallelismEstimate {
        let w = |i: usize| {
            weights
                .get(i)
                .copied()
                .filter(|v| v.is_finite() && *v > 0.0)
                .unwrap_or(0.0)
        };
        let mut region_weight = vec![0.0f64; self.regions.len()];
        for (b, &r) in self.region_of.iter().enumerate() {
            if let Some(x) = region_weight.get_mut(r) {
                *x = x.max(w(b));
            }
        }
        let sum = |n: fn(&BlockParallelism) -> u32, p: fn(&BlockParallelism) -> u32| {
            let num: f64 = self
                .blocks
                .iter()
                .enumerate()
                .map(|(i, b)| w(i) * f64::from(n(b)))
                .sum();
            let den: f64 = self
                .regions
                .iter()
                .zip(&region_weight)
                .map(|(r, rw)| rw * f64::from(p(r)))
                .sum();
            (den > 0.0 && num > 0.0).then(|| (num / den).max(1.0))
        };
        ParallelismEstimate {
            ilp: sum(|b| b.compute, |b| b.compute_path),
            mlp_global: sum(|b| b.global_loads, |b| b.global_path),
            mlp_shared: sum(|b| b.shared_loads, |b| b.shared_path),
        }
    }
}

/// Whether block `b` ends in a branch that ptxas keeps as a branch, which
/// fixes the issue order of the code around it (see [`block_parallelism`]).
///
/// ptxas if-converts a *hammock*: a conditional branch whose two successors
/// meet at once, each successor being either the join itself or a block of
/// the branch alone that goes straight to the join (a bounds check around a
/// load and its store: `@%p bra SKIP; ld; st; SKIP:`). The unconditional
/// branch that closes one arm of such a diamond belongs to it too. Any other
/// branch (the exits of an unrolled loop's remainder, `@%p bra DONE` over
/// further guarded loads) stays a branch; the SASS of Kernel Tuner's
/// convolution shows both cases (docs/timing-model.md, "ILP and MLP").
fn ends_in_kept_branch(cfg: &Cfg, insts: &[&Instruction], b: BlockId) -> bool {
    let Some(block) = cfg.blocks.get(b) else {
        return false;
    };
    let last = block.last().and_then(|l| insts.get(l as usize));
    let Some(bra) = last.filter(|i| i.opcode == Opcode::Bra) else {
        return false;
    };
    if bra.guard.is_some() {
        return hammock_join(cfg, b).is_none();
    }
    // An unconditional branch: part of a hammock when it closes an arm.
    let preds: Vec<BlockId> = cfg.predecessors(b).collect();
    !matches!((preds.as_slice(), block.successors.as_slice()),
        ([p], [join]) if hammock_join(cfg, *p) == Some(*join))
}

/// The join of the hammock that block `b`'s two successors form, if they do
/// (see [`ends_in_kept_branch`]).
fn hammock_join(cfg: &Cfg, b: BlockId) -> Option<BlockId> {
    let succs = &cfg.blocks.get(b)?.successors;
    let [s1, s2] = succs.as_slice() else {
        return None;
    };
    // The block an arm leads to: itself when it is the join, else its only
    // successor when `b` is its only predecessor.
    let arm = |s: BlockId| -> Option<BlockId> {
        let blk = cfg.blocks.get(s)?;
        let only_from_b = cfg.predecessors(s).all(|p| p == b);
        match blk.successors.as_slice() {
            [next] if only_from_b => Some(*next),
            _ => None,
        }
    };
    // A triangle: one successor is the join and the other leads to it.
    if arm(*s1) == Some(*s2) {
        return Some(*s2);
    }
    if arm(*s2) == Some(*s1) {
        return Some(*s1);
    }
    // A diamond: both lead to the same join.
    match (arm(*s1), arm(*s2)) {
        (Some(j1), Some(j2)) if j1 == j2 => Some(j1),
        _ => None,
    }
}

/// Registers an instruction writes and reads (guard and address bases are reads).
pub(crate) fn defs_and_uses(inst: &Instruction) -> (Vec<Reg>, Vec<Reg>) {
    use Opcode::*;
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    if let Some(g) = &inst.guard {
        uses.push(g.reg);
    }
    // Opcodes without a register destination: every operand is read.
    let no_dest = matches!(
        inst.opcode,
        St | Red
            | Bra
            | BrxIdx
            | Ret
            | Exit
            | Trap
            | Bar
            | Barrier
            | Fence
            | Membar
            | Prefetch
            | Prefetchu
            | Nanosleep
            | Pmevent
            | Brkpt
            | BarWarpSync
            | CpAsync
            | CpAsyncCommitGroup
            | CpAsyncWaitGroup
            | CpAsyncWaitAll
            | CpAsyncMbarrierArrive
            | CpAsyncBulk
            | CpAsyncBulkCommitGroup
            | CpAsyncBulkWaitGroup
            | CpAsyncBulkPrefetch
            | GriddepcontrolWait
            | GriddepcontrolLaunchDependents
            | Stmatrix
            | Sust1d
            | Sust2d
            | Sust3d
    );
    for (i, op) in inst.operands.iter().enumerate() {
        if !no_dest && i == 0 {
            collect(op, &mut defs, &mut uses);
        } else {
            let mut addr = Vec::new();
            collect(op, &mut uses, &mut addr);
            uses.extend(addr);
        }
    }
    (defs, uses)
}

/// Registers named by `op` into `regs`; address base registers into `addr`
/// (an address is always read, wherever it stands).
fn collect(op: &Operand, regs: &mut Vec<Reg>, addr: &mut Vec<Reg>) {
    match op {
        Operand::Reg(r) | Operand::NotReg(r) | Operand::VecElem(r, _) | Operand::SinkPair(r) => {
            regs.push(*r)
        }
        Operand::Pair(a, b) => {
            regs.push(*a);
            regs.push(*b);
        }
        Operand::Vector(v) | Operand::List(v) => {
            for o in v {
                collect(o, regs, addr);
            }
        }
        Operand::Address(a) => {
            if let AddrBase::Reg(r) = a.base {
                addr.push(r);
            }
        }
        _ => {}
    }
}

/// The memory an access orders against: shared (any spelling), param,
/// local, or "global" for global, generic and anything else (generic
/// pointers may alias global memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Memory {
    Shared,
    Param,
    Local,
    Global,
}

fn memory_of(inst: &Instruction) -> Memory {
    match inst.mods.space {
        Some(s) if s.is_shared() => Memory::Shared,
        Some(s) if s.is_param() => Memory::Param,
        Some(StateSpace::Local) => Memory::Local,
        _ => Memory::Global,
    }
}

/// Critical paths of a run of instructions analysed together (one block,
/// or a region as if predicated).
///
/// `boundaries` lists the positions (ascending) where a branch ptxas keeps
/// stood: the warp issues in order, so no instruction after a boundary
/// issues before every instruction ahead of it has, and an instruction
/// issues once its operands are ready. A load after a boundary therefore
/// waits for every load whose value was used before it (the store of a
/// loaded value into shared memory, then the next guarded load: one global
/// latency each), but not for loads whose values are not used yet.
fn block_parallelism(insts: &[&Instruction], boundaries: &[usize]) -> BlockParallelism {
    // For each node: the most compute / global / shared nodes on a path
    // ending at it (itself included).
    let mut depth: Vec<[u32; 3]> = Vec::with_capacity(insts.len());
    // The latest issue so far (the paths of every node's operands), and
    // the floor it sets at the last boundary passed.
    let mut issued = [0u32; 3];
    let mut floor = [0u32; 3];
    let mut next_boundary = boundaries.iter().peekable();
    let mut last_def: HashMap<Reg, usize> = HashMap::new();
    let mut last_store: HashMap<Memory, usize> = HashMap::new();
    let mut last_fence: Option<usize> = None;
    let mut out = BlockParallelism::default();
    for (j, inst) in insts.iter().enumerate() {
        while next_boundary.next_if(|&&b| b <= j).is_some() {
            floor = issued;
        }
        let kind = node_kind(inst);
        let (defs, uses) = defs_and_uses(inst);
        let mut preds: Vec<usize> = uses
            .iter()
            .filter_map(|r| last_def.get(r).copied())
            .collect();
        preds.extend(last_fence);
        let is_fence = matches!(
            class_of(inst),
            InstClass::Barrier
                | InstClass::Fence
                | InstClass::AtomGlobal
                | InstClass::AtomShared
                | InstClass::AtomGeneric
                | InstClass::CallRet
                | InstClass::AsyncCopy
        );
        let is_load = matches!(inst.opcode, Opcode::Ld | Opcode::Ldu);
        let is_store = inst.opcode == Opcode::St;
        if (is_load || is_store)
            && let Some(&p) = last_store.get(&memory_of(inst))
        {
            preds.push(p);
        }
        let mut d = floor;
        if is_fence {
            // Everything before a fence precedes it.
            for k in 0..3 {
                d[k] = depth.iter().map(|x| x[k]).max().unwrap_or(0);
            }
        }
        for p in preds {
            if let Some(x) = depth.get(p) {
                for k in 0..3 {
                    d[k] = d[k].max(x[k]);
                }
            }
        }
        for k in 0..3 {
            issued[k] = issued[k].max(d[k]);
        }
        match kind {
            NodeKind::Compute => {
                d[0] += 1;
                out.compute += 1;
            }
            NodeKind::GlobalLoad => {
                d[1] += 1;
                out.global_loads += 1;
            }
            NodeKind::SharedLoad => {
                d[2] += 1;
                out.shared_loads += 1;
            }
            NodeKind::Free => {}
        }
        out.compute_path = out.compute_path.max(d[0]);
        out.global_path = out.global_path.max(d[1]);
        out.shared_path = out.shared_path.max(d[2]);
        depth.push(d);
        for r in defs {
            last_def.insert(r, j);
        }
        if is_store {
            last_store.insert(memory_of(inst), j);
        }
        if is_fence {
            last_fence = Some(j);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Small hand-written kernels; the expectation of each is worked out in
    //! its comment (instruction indices 0, 1, ... in the body).

    use super::*;
    use crate::ir::Module;

    fn module(body: &str) -> Module {
        let text = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<32>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<16>;\n\
             .shared .align 4 .b8 sh[1024];\n.const .align 4 .b8 cf[64];\n{body}\n}}\n"
        );
        match crate::parse("t.ptx", &text) {
            Ok(m) => m,
            Err(d) => panic!("test kernel does not parse:\n{}", d.render("t.ptx", &text)),
        }
    }

    fn analyse(body: &str) -> Parallelism {
        let m = module(body);
        let f = m.functions.iter().map(|(_, f)| f).find(|f| f.has_body);
        let f = f.unwrap_or_else(|| panic!("no function"));
        Parallelism::of_function(f).unwrap_or_else(|e| panic!("{e}"))
    }

    /// (compute, compute_path, global, global_path, shared, shared_path) of block `b`.
    fn check(body: &str, b: usize, expected: [u32; 6]) {
        let p = analyse(body);
        let x = p.blocks[b];
        let got = [
            x.compute,
            x.compute_path,
            x.global_loads,
            x.global_path,
            x.shared_loads,
            x.shared_path,
        ];
        assert_eq!(got, expected, "block {b} of:\n{body}");
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn dependent_chain_has_ilp_one() {
        // 0 -> 1 -> 2 -> 3 (each reads the previous result): 4 on one path.
        check(
            "add.s32 %r2, %r1, 1;\nadd.s32 %r3, %r2, 1;\nadd.s32 %r4, %r3, 1;\nadd.s32 %r5, %r4, 1;\nret;",
            0,
            [4, 4, 0, 0, 0, 0],
        );
    }

    #[test]
    fn independent_instructions() {
        // Four adds of the block's input %r1: four paths of one. (`ret` is a
        // free node in every test: it orders but costs nothing.)
        check(
            "add.s32 %r2, %r1, 1;\nadd.s32 %r3, %r1, 2;\nadd.s32 %r4, %r1, 3;\nadd.s32 %r5, %r1, 4;\nret;",
            0,
            [4, 1, 0, 0, 0, 0],
        );
    }

    #[test]
    fn independent_accumulators() {
        // Two accumulators, two FMAs each: 0 -> 2, 1 -> 3; then 4 sums them.
        // Path 0 -> 2 -> 4 = 3 compute of 5.
        check(
            "fma.rn.f32 %f1, %f10, %f11, %f1;\nfma.rn.f32 %f2, %f10, %f12, %f2;\n\
             fma.rn.f32 %f1, %f13, %f11, %f1;\nfma.rn.f32 %f2, %f13, %f12, %f2;\n\
             add.f32 %f3, %f1, %f2;\nret;",
            0,
            [5, 3, 0, 0, 0, 0],
        );
    }

    #[test]
    fn independent_global_loads_overlap() {
        // Three loads from addresses known at block entry: three in flight.
        // The adds: 3 reads loads 0 and 1, 4 reads 3 and load 2: compute path 2.
        check(
            "ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd1+4];\nld.global.f32 %f3, [%rd1+8];\n\
             add.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\nret;",
            0,
            [2, 2, 3, 1, 0, 0],
        );
    }

    #[test]
    fn pointer_chase_serialises_loads() {
        // Each load's address is the previous load's value: one in flight.
        check(
            "ld.global.u64 %rd2, [%rd1];\nld.global.u64 %rd3, [%rd2];\nld.global.u64 %rd4, [%rd3];\nret;",
            0,
            [0, 0, 3, 3, 0, 0],
        );
    }

    #[test]
    fn param_and_constant_loads_are_free() {
        // ld.param and ld.const add no level and are not counted: the path is
        // the cvta, the add after it (2); the fma is on its own path (1).
        check(
            "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nld.const.f32 %f1, [cf];\n\
             fma.rn.f32 %f2, %f1, %f1, %f3;\nadd.s64 %rd3, %rd2, 4;\nret;",
            0,
            [3, 2, 0, 0, 0, 0],
        );
    }

    #[test]
    fn barrier_orders_shared_loads() {
        // Two independent shared loads, but a barrier between them: the second
        // waits for everything before the barrier, so both are on one path.
        check(
            "ld.shared.f32 %f1, [sh];\nbar.sync 0;\nld.shared.f32 %f2, [sh+4];\nret;",
            0,
            [0, 0, 0, 0, 2, 2],
        );
    }

    #[test]
    fn store_orders_later_loads_of_its_space() {
        // global load -> shared store -> shared load (ordered after the store):
        // one global and one shared on the path, then the add.
        check(
            "ld.global.f32 %f1, [%rd1];\nst.shared.f32 [sh], %f1;\nld.shared.f32 %f2, [sh+4];\n\
             add.f32 %f3, %f2, %f2;\nret;",
            0,
            [1, 1, 1, 1, 1, 1],
        );
    }

    const LOOP: &str = "mov.u32 %r1, 0;\nmov.u32 %r2, 0;\nmov.u32 %r3, 0;\nmov.u32 %r4, 0;\n\
        LOOP:\nadd.s32 %r5, %r5, %r1;\nadd.s32 %r5, %r5, %r2;\nadd.s32 %r1, %r1, 1;\n\
        setp.lt.s32 %p1, %r1, 10;\n@%p1 bra LOOP;\nret;";

    #[test]
    fn loop_blocks() {
        // bb0: four independent movs (path 1). bb1, the loop: 4 -> 5 chain
        // (2), 6 -> 7 -> 8 (setp reads 6, the guarded bra reads 7): path 3 of 5.
        check(LOOP, 0, [4, 1, 0, 0, 0, 0]);
        check(LOOP, 1, [5, 3, 0, 0, 0, 0]);
        // bb2: the ret alone, nothing on a path.
        check(LOOP, 2, [0, 0, 0, 0, 0, 0]);
        let p = analyse(LOOP);
        assert_eq!(p.loop_depths[..2], [0, 1]);
    }

    /// A loop body unrolled twice, each load behind its own bounds check.
    const GUARDED: &str = "mov.u32 %r1, 0;\n\
        LOOP:\nsetp.lt.s32 %p1, %r1, %r9;\n@!%p1 bra SKIP1;\n\
        ld.global.f32 %f1, [%rd1];\nst.shared.f32 [sh], %f1;\n\
        SKIP1:\nsetp.lt.s32 %p2, %r1, %r8;\n@!%p2 bra SKIP2;\n\
        ld.global.f32 %f2, [%rd1+4];\nst.shared.f32 [sh+4], %f2;\n\
        SKIP2:\nadd.s32 %r1, %r1, 2;\nsetp.lt.s32 %p3, %r1, 10;\n@%p3 bra LOOP;\nret;";

    #[test]
    fn guarded_loads_of_a_loop_body_overlap() {
        // Blocks: bb0 mov; bb1 setp, bra; bb2 ld, st; bb3 setp, bra; bb4 ld,
        // st; bb5 add, setp, bra; bb6 ret. Each guarded block has one load
        // (MLP 1 alone), but the loop region bb1..bb5 has both loads
        // independent: 2 loads on a global path of 1.
        let p = analyse(GUARDED);
        assert_eq!(p.blocks.len(), 7);
        assert_eq!(p.blocks[2].global_loads, 1);
        assert_eq!(p.blocks[2].global_path, 1);
        let r = p.regions[p.region_of[2]];
        assert_eq!(p.region_of[1], p.region_of[4]);
        assert_ne!(p.region_of[0], p.region_of[1]);
        assert_eq!((r.global_loads, r.global_path), (2, 1));
        // Every block of the loop runs 10 times: (10 + 10) / (10 x 1).
        let w = [1.0, 10.0, 10.0, 10.0, 10.0, 10.0, 1.0];
        assert!(close(p.weighted(&w).mlp_global, 2.0));
        // Only one guard ever passes: 10 loads over a path of 10.
        let w = [1.0, 10.0, 10.0, 10.0, 0.0, 10.0, 1.0];
        assert!(close(p.weighted(&w).mlp_global, 1.0));
    }

    /// The remainder of a loop unrolled by 3 (as NVRTC emits it for Kernel
    /// Tuner's convolution): each guarded load sits in a hammock (if-converted)
    /// but the remainder's exits (`@%p1 bra DONE` with further loads behind)
    /// stay branches.
    const REMAINDER: &str = "mov.u32 %r1, 0;\n\
        LOOP:\nsetp.eq.s32 %p1, %r2, 1;\n@!%p3 bra SKIP1;\n\
        ld.global.f32 %f1, [%rd1];\nst.shared.f32 [sh], %f1;\n\
        SKIP1:\n@%p1 bra DONE;\n\
        @!%p2 bra SKIP2;\n\
        ld.global.f32 %f2, [%rd1+4];\nst.shared.f32 [sh+4], %f2;\n\
        SKIP2:\nld.global.f32 %f3, [%rd1+8];\nadd.f32 %f4, %f4, %f3;\n\
        DONE:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p3, %r1, 10;\n@%p3 bra LOOP;\nret;";

    #[test]
    fn a_kept_branch_fixes_the_issue_order_of_loads_and_their_uses() {
        // Blocks: bb0 mov; bb1 setp, bra SKIP1 (a hammock over bb2: if-
        // converted); bb2 ld, st; bb3 `@%p1 bra DONE` (its fall-through bb4
        // branches on: kept); bb4 bra SKIP2 (hammock over bb5); bb5 ld, st;
        // bb6 ld, add; bb7 add, setp, bra; bb8 ret. The store of the first
        // load issues before the kept branch, so the loads after it issue
        // once the first has returned: the second and third load are on a
        // path of 2, not 1, and the region's three loads have a path of 2.
        let p = analyse(REMAINDER);
        assert_eq!(p.blocks.len(), 9);
        let r = p.regions[p.region_of[2]];
        assert_eq!(p.region_of[1], p.region_of[7]);
        assert_eq!((r.global_loads, r.global_path), (3, 2));
        // Without the kept branch (GUARDED above) the loads overlap fully.
        let g = analyse(GUARDED);
        let r = g.regions[g.region_of[2]];
        assert_eq!((r.global_loads, r.global_path), (2, 1));
    }

    #[test]
    fn a_load_whose_value_is_not_used_before_a_kept_branch_stays_in_flight() {
        // As REMAINDER, but the first load's value is used only after the
        // exit: nothing before the branch waits for it, so all three loads
        // are in flight together.
        let body = REMAINDER
            .replace("st.shared.f32 [sh], %f1;\n", "")
            .replace("add.f32 %f4, %f4, %f3;", "add.f32 %f4, %f1, %f3;");
        let p = analyse(&body);
        let r = p.regions[p.region_of[2]];
        assert_eq!((r.global_loads, r.global_path), (3, 1));
    }

    #[test]
    fn an_if_else_diamond_is_if_converted() {
        // bb1: ld, st, `@%p1 bra ELSE`; bb2: add, `bra.uni JOIN` (closes an
        // arm); bb3 ELSE: add; bb4 JOIN: ld, add, setp, bra. Neither branch
        // is kept, so the second load does not wait for the first's store.
        let body = "mov.u32 %r1, 0;\nLOOP:\nld.global.f32 %f1, [%rd1];\n\
            st.shared.f32 [sh], %f1;\n@%p1 bra ELSE;\nadd.f32 %f2, %f2, 0f3F800000;\n\
            bra.uni JOIN;\nELSE:\nadd.f32 %f2, %f2, 0f40000000;\n\
            JOIN:\nld.global.f32 %f3, [%rd1+4];\nadd.s32 %r1, %r1, 1;\n\
            setp.lt.s32 %p1, %r1, 10;\n@%p1 bra LOOP;\nret;";
        let p = analyse(body);
        let r = p.regions[p.region_of[1]];
        assert_eq!(p.region_of[1], p.region_of[4]);
        assert_eq!((r.global_loads, r.global_path), (2, 1));
    }

    #[test]
    fn loop_depth_weighting() {
        // (1 x 4 + 10 x 5 + 1 x 0) / (1 x 1 + 10 x 3 + 1 x 0) = 54 / 31.
        let p = analyse(LOOP);
        let e = p.by_loop_depth();
        assert!(close(e.ilp, 54.0 / 31.0), "{e:?}");
        assert_eq!(e.mlp_global, None);
        assert_eq!(e.mlp_shared, None);
    }

    #[test]
    fn dynamic_weighting() {
        // Executions 1, 100, 1: (4 + 500) / (1 + 300) = 504 / 301.
        let p = analyse(LOOP);
        assert!(close(p.weighted(&[1.0, 100.0, 1.0]).ilp, 504.0 / 301.0));
        // Only the prologue ran: 4 / 1.
        assert!(close(p.weighted(&[1.0, 0.0, 0.0]).ilp, 4.0));
        // Nothing ran (or bad weights): no figure.
        assert_eq!(p.weighted(&[0.0, f64::NAN, -1.0]).ilp, None);
    }
}
