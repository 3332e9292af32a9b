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
//!
//! A store's values are left uncomputed only where no needed load may read
//! the places its address reaches: the launch says where each pointer
//! parameter points ([`LaunchPlaces`]), so a table read from one buffer
//! that feeds the addresses does not make the values stored to another
//! count. Such a store ([`Idle::Stale`]) marks the places it wrote, and a
//! needed load that reads a marked place stops the run with
//! [`STALE_READ`]: the analysis can only be wrong through pointer
//! arithmetic that leaves its allocation, and then the caller runs the
//! launch whole.

use ptx::analysis::{Bindings, Places};
use ptx::{Module, StateSpace, Symbol};

use super::decode::Program;
use super::layout::Placed;
use super::ops::Op;
use crate::mem::{GlobalMemory, Region, Space};

/// The message of the fault that stops a run for addresses where a needed
/// load reads what a store wrote uncomputed: the caller runs again whole.
pub const STALE_READ: &str = "a run for addresses alone read a value it had not computed";

/// Whether `fault` is the one that stops a run for addresses alone where
/// its analysis was wrong ([`STALE_READ`]): the launch is to run again
/// whole, with `LaunchOptions::addresses_only` off.
pub fn is_stale_read(fault: &crate::fault::Fault) -> bool {
    matches!(&fault.kind, crate::fault::FaultKind::Internal(m) if m == STALE_READ)
}

/// The place bit of global allocation `i` (the last bits shared by every
/// allocation from 61 on).
pub(crate) fn global_place(i: usize) -> u64 {
    1 << i.min(61)
}

/// The place bit of the CTA's shared memory.
pub(crate) const SHARED_PLACE: u64 = 1 << 62;
/// The place bit of the threads' local memory.
pub(crate) const LOCAL_PLACE: u64 = 1 << 63;

/// Where a prepared launch placed what the kernel's pointers start from:
/// its parameters' values and its variables.
pub(super) struct LaunchPlaces<'a> {
    pub(super) module: &'a Module,
    /// The kernel's parameters' (offset, bytes) in `params`.
    pub(super) kernel_params: &'a [(u64, u64)],
    pub(super) params: &'a Region,
    /// Per module variable, where the launch placed it.
    pub(super) globals: &'a [Option<Placed>],
    pub(super) global: &'a GlobalMemory,
}

impl LaunchPlaces<'_> {
    fn place_of(&self, addr: u64) -> Places {
        match self.global.locate(addr, 1, false) {
            Ok((i, _)) => Places(global_place(i)),
            Err(_) => Places::NONE,
        }
    }

    fn space_place(&self, space: Space, addr: u64) -> Places {
        match space {
            Space::Global => self.place_of(addr),
            Space::Shared => Places(SHARED_PLACE),
            Space::Local => Places(LOCAL_PLACE),
            // Read-only: no store writes it.
            Space::Const | Space::Param => Places::NONE,
        }
    }
}

/// [`LaunchPlaces`] seen from one function: only the kernel's own
/// parameters have values the launch knows.
struct FunctionPlaces<'a> {
    launch: &'a LaunchPlaces<'a>,
    func: &'a ptx::Function,
    entry: bool,
}

impl Bindings for FunctionPlaces<'_> {
    fn param(&self, index: u32, offset: i64) -> Places {
        let width = super::bind::pointer_bytes(self.launch.module);
        let Some(&(at, size)) = self.launch.kernel_params.get(index as usize) else {
            return Places::ANY;
        };
        let Ok(offset) = u64::try_from(offset) else {
            return Places::ANY;
        };
        if !self.entry || offset + width > size {
            return Places::ANY;
        }
        let mut value = [0u8; 8];
        let Some(bytes) = self.launch.params.bytes().get((at + offset) as usize..) else {
            return Places::ANY;
        };
        let Some(bytes) = bytes.get(..width as usize) else {
            return Places::ANY;
        };
        value[..bytes.len()].copy_from_slice(bytes);
        // A value in no allocation is a scalar (a count, a stride).
        self.launch.place_of(u64::from_le_bytes(value))
    }

    fn symbol(&self, symbol: Symbol) -> Places {
        match symbol {
            Symbol::Global(h) => match self.launch.globals.get(h.index()) {
                Some(Some(placed)) => self.launch.space_place(placed.space, placed.addr),
                _ => Places::ANY,
            },
            Symbol::Local(h) => match self.func.locals.get(h).map(|l| l.var.space) {
                Some(s) if s.is_shared() => Places(SHARED_PLACE),
                Some(StateSpace::Local) => Places(LOCAL_PLACE),
                _ => Places::ANY,
            },
            _ => Places::ANY,
        }
    }
}

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
    /// Runs, and nothing needed reads its results: an atomic, which may
    /// read a place written with values not computed without harm.
    Blind,
    /// Runs, writing values the run did not compute (a store to places no
    /// needed load reads), and marks the places it wrote.
    Stale,
}

/// Per function of a program, per pc: what a run for addresses does.
#[derive(Debug, Clone, Default)]
pub struct IdleOps {
    funcs: Vec<Vec<Idle>>,
}

impl IdleOps {
    /// The idle ops of `prog` (decoded from `module`), its kernel `entry`
    /// launched as `places` says. None at all where the module calls
    /// functions (arguments and results pass through registers and
    /// `.param` memory the analysis does not follow).
    pub(super) fn of(
        module: &Module,
        prog: &Program,
        entry: u32,
        places: &LaunchPlaces<'_>,
    ) -> IdleOps {
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
            .map(|((h, ir), func)| {
                let pure: Vec<bool> = func.ops.iter().map(is_pure).collect();
                let bind = FunctionPlaces {
                    launch: places,
                    func: ir,
                    entry: h.index() as u32 == entry,
                };
                let idle = ptx::analysis::idle_results(ir, &pure, &bind);
                func.ops
                    .iter()
                    .zip(idle.unneeded.iter().zip(&idle.stale_stores))
                    .map(|(op, (&unneeded, &stale))| match op {
                        _ if stale => Idle::Stale,
                        _ if !unneeded => Idle::Runs,
                        Op::Atom { .. } | Op::AtomVec { .. } => Idle::Blind,
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
