//! What a run for addresses alone may leave out: pure ops whose results no
//! address, branch or other effect reads ([`ptx::analysis::idle`]) are
//! skipped, and loads whose results nothing needed reads check their
//! addresses and make their request but read no data. A profile wants
//! events only (the characterization's collector, the L2 warm-up of a
//! sample's neighbours: sites, masks, addresses), and on a GEMM most of
//! what a CTA executes is the multiply-adds whose results are only stored,
//! and the loads that feed them ([`crate::exec::LaunchOptions::addresses_only`]). A skipped op still counts as
//! executed (fuel, instruction counts, the observer's `instruction`), so
//! everything but those registers' values is as in a full run.

use ptx::Module;

use super::decode::Program;
use super::ops::Op;

/// What a run for addresses does with an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Idle {
    /// Runs it.
    #[default]
    Runs,
    /// Skips it (a pure op whose results nothing needed reads).
    Skips,
    /// Makes its request but reads no data (a load whose results nothing
    /// needed reads).
    Unread,
}

/// Per function of a program, per pc: what a run for addresses does.
#[derive(Debug, Clone, Default)]
pub struct IdleOps {
    funcs: Vec<Vec<Idle>>,
}

impl IdleOps {
    /// The idle ops of `prog` (decoded from `module`). None at all where
    /// the module calls functions (arguments and results pass through
    /// registers and `.param` memory the analysis does not follow).
    pub fn of(module: &Module, prog: &Program) -> IdleOps {
        let calls = prog.funcs.iter().any(|f| {
            f.ops
                .iter()
                .any(|op| matches!(op, Op::Call { .. } | Op::CallIndirect { .. }))
        });
        if calls || module.functions.len() != prog.funcs.len() {
            return IdleOps::default();
        }
        let funcs = module
            .functions
            .iter()
            .zip(&prog.funcs)
            .map(|((_, ir), func)| {
                let pure: Vec<bool> = func.ops.iter().map(is_pure).collect();
                let unneeded = ptx::analysis::unneeded_results(ir, &pure);
                func.ops
                    .iter()
                    .zip(unneeded)
                    .map(|(op, unneeded)| match op {
                        _ if !unneeded => Idle::Runs,
                        Op::Ld { .. } => Idle::Unread,
                        op if is_pure(op) => Idle::Skips,
                        _ => Idle::Runs,
                    })
                    .collect()
            })
            .collect();
        IdleOps { funcs }
    }

    /// What the run does with op `pc` of function `func`.
    #[inline]
    pub fn of_op(&self, func: u32, pc: u32) -> Idle {
        self.funcs
            .get(func as usize)
            .and_then(|f| f.get(pc as usize))
            .copied()
            .unwrap_or_default()
    }
}

/// An op that computes registers from registers (or immediates and special
/// registers) and does nothing else: no memory, no control, no carry flag,
/// no fault that depends on the values.
fn is_pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Mov { .. }
            | Op::MovVec { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::IntHalves { .. }
            | Op::Int2 { .. }
            | Op::Int1 { .. }
            | Op::Int3 { .. }
            | Op::Bfi { .. }
            | Op::F2 { .. }
            | Op::F1 { .. }
            | Op::Fma { .. }
            | Op::Setp { .. }
            | Op::Set { .. }
            | Op::Selp { .. }
            | Op::PredLogic { .. }
            | Op::CvtTf32 { .. }
            | Op::Cvt { .. }
            | Op::CvtPack { .. }
            | Op::Cvta { .. }
            | Op::Isspacep { .. }
            | Op::Testp { .. }
            | Op::Slct { .. }
            | Op::Dp4a { .. }
            | Op::Dp2a { .. }
            | Op::Video { .. }
            | Op::ScalarVideo { .. }
    )
}
