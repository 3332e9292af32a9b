//! Translate the IR of every function into [`Op`]s, once, before execution.
//!
//! Anything the executor cannot run becomes [`Op::Unsupported`], which only
//! faults if a thread reaches it, so a kernel with an exotic instruction on a
//! cold path still runs.

use ptx::analysis::{FunctionFlow, Reconvergence};
use ptx::{
    AddrBase, Address, Function, Immediate, Module, Operand, Reg, Rounding, StateSpace, Symbol,
    Type, TypeKind,
};

use super::layout::ModuleLayout;
use super::ops::*;
use crate::float::Round;
use crate::float::convert::RoundInt;
use crate::mem::Space;
use crate::mem::generic::Width;
use crate::simt::stack::NO_RECONVERGE;

mod inst;
mod tensor;
mod video;

/// Function "addresses" (`mov.u64 %rd, f`) are FUNC_BASE + the function's index.
pub const FUNC_BASE: u64 = 0x0005_0000_0000_0000;

/// One decoded function.
#[derive(Debug, Clone)]
pub struct Func {
    pub name: String,
    pub is_entry: bool,
    pub has_body: bool,
    pub ops: Vec<Op>,
    pub guards: Vec<Option<(P, bool)>>,
    /// 1-based PTX line of each op.
    pub lines: Vec<u32>,
    /// Printed instruction text of each op (for fault reports).
    pub text: Vec<String>,
    /// CUDA source line of each op, from `.loc` (a file of [`Program::source_files`]).
    pub source: Vec<Option<ptx::analysis::SourceLine>>,
    pub n_regs: usize,
    pub n_preds: usize,
    /// Register slot of each IR register: (is_pred, slot).
    pub frame_size: u64,
    pub params: Vec<(u64, u64)>,
    pub rets: Vec<(u64, u64)>,
    /// The register of each `.reg` parameter (`None` for `.param` ones),
    /// which a call writes instead of the frame slot.
    pub param_regs: Vec<Option<R>>,
    /// Likewise for return values: read at `ret` instead of the frame slot.
    pub ret_regs: Vec<Option<R>>,
}

/// A decoded module.
#[derive(Debug, Clone)]
pub struct Program {
    pub file: String,
    /// The module's `.file` names (CUDA sources), for [`Func::source`].
    pub source_files: Vec<String>,
    pub funcs: Vec<Func>,
}

struct Cx<'a> {
    module: &'a Module,
    layout: &'a ModuleLayout,
    func: &'a Function,
    func_index: usize,
    slots: Vec<(bool, u32)>,
    /// Elements of each vector register (`None` for scalars).
    lanes: Vec<Option<u8>>,
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

impl Program {
    /// Decode every function of the module. A function whose control-flow
    /// graph cannot be built is an error (`file:line: function `f`: ...`):
    /// without it, divergent branches would have no reconvergence point and
    /// the warp's results would silently differ from a GPU's.
    pub fn decode(
        module: &Module,
        layout: &ModuleLayout,
        text: &str,
        file: &str,
    ) -> Result<Program, DecodeError> {
        let starts = line_starts(text);
        let sources = ptx::analysis::SourceLines::of(module);
        let funcs = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, (_, f))| {
                let mut func = decode_func(module, layout, f, i, &starts, file)?;
                func.source = sources.function(i).to_vec();
                Ok(func)
            })
            .collect::<Result<_, _>>()?;
        Ok(Program {
            file: file.to_string(),
            source_files: sources.files.clone(),
            funcs,
        })
    }

    pub fn func_by_name(&self, name: &str) -> Option<usize> {
        self.funcs.iter().position(|f| f.name == name)
    }
}

/// 1-based line of the byte offset `start`.
fn line_of(starts: &[usize], start: usize) -> u32 {
    starts.partition_point(|&s| s <= start) as u32
}

fn decode_func(
    module: &Module,
    layout: &ModuleLayout,
    f: &Function,
    index: usize,
    starts: &[usize],
    file: &str,
) -> Result<Func, DecodeError> {
    let mut slots = Vec::with_capacity(f.regs.len());
    let mut lanes = Vec::with_capacity(f.regs.len());
    let (mut n_regs, mut n_preds) = (0u32, 0u32);
    for (_, r) in f.regs.iter() {
        // A vector register (`.reg .v4 .f32 v`) takes one slot per element.
        let n = r.vec.map_or(1, |v| v.lanes());
        if r.ty == Type::Pred {
            slots.push((true, n_preds));
            n_preds += n;
        } else {
            slots.push((false, n_regs));
            n_regs += n;
        }
        lanes.push(r.vec.map(|v| v.lanes() as u8));
    }
    let flow = FunctionFlow::compute(f).map_err(|e| {
        let line = f
            .instructions
            .iter()
            .nth(e.inst as usize)
            .map_or(0, |(h, _)| {
                line_of(starts, f.instructions.span(h).start as usize)
            });
        DecodeError::NoFlowGraph {
            file: file.to_string(),
            line,
            function: f.name.clone(),
            message: e.message.clone(),
        }
    })?;
    let cx = Cx {
        module,
        layout,
        func: f,
        func_index: index,
        slots,
        lanes,
    };
    let n = f.instructions.len();
    let mut ops = Vec::with_capacity(n);
    let mut guards = Vec::with_capacity(n);
    let mut lines = Vec::with_capacity(n);
    let mut text = Vec::with_capacity(n);
    for (i, (h, inst)) in f.instructions.iter().enumerate() {
        let reconv = match flow.reconvergence(i as u32) {
            Some(Reconvergence::Inst(j)) => j,
            _ => NO_RECONVERGE,
        };
        let op = cx.op(inst, reconv).unwrap_or_else(|e| Op::Unsupported(e.0));
        ops.push(op);
        guards.push(
            inst.guard
                .and_then(|g| cx.pred(g.reg).map(|p| (p, g.negated))),
        );
        let start = f.instructions.span(h).start as usize;
        lines.push(line_of(starts, start));
        let mut s = String::new();
        let _ = ptx::print::instruction(&mut s, module, f, inst);
        text.push(s);
    }
    // Every function has a frame layout: a missing one would give the
    // function a zero-sized frame, and its locals would fault or alias.
    let frame = layout
        .frames
        .get(index)
        .cloned()
        .ok_or_else(|| DecodeError::NoFrame {
            file: file.to_string(),
            function: f.name.clone(),
        })?;
    // A `.reg .pred` parameter has no value slot: such a call faults.
    let value_slot = |r: Option<ptx::Reg>| match r.map(|r| cx.slot(r)) {
        Some(Ok((false, s))) => Some(s),
        _ => None,
    };
    let param_regs = (0..f.params.len())
        .map(|i| value_slot(f.param_reg(i)))
        .collect();
    let ret_regs = (0..f.returns.len())
        .map(|i| value_slot(f.return_reg(i)))
        .collect();
    Ok(Func {
        name: f.name.clone(),
        is_entry: f.is_entry(),
        has_body: f.has_body,
        ops,
        guards,
        lines,
        text,
        source: Vec::new(),
        n_regs: n_regs as usize,
        n_preds: n_preds as usize,
        frame_size: frame.size,
        params: frame.params,
        rets: frame.rets,
        param_regs,
        ret_regs,
    })
}

/// An instruction form the emulator does not execute, as the fault shows it.
/// The instruction decodes to [`Op::Unsupported`] with this text, so a kernel
/// faults only if it reaches the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

impl From<String> for Unsupported {
    fn from(what: String) -> Self {
        Unsupported(what)
    }
}

impl From<&str> for Unsupported {
    fn from(what: &str) -> Self {
        Unsupported(what.to_string())
    }
}

type D<T> = Result<T, Unsupported>;

/// Why a module cannot be decoded at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Without a control-flow graph divergent branches have no
    /// reconvergence point and the results would silently differ from a GPU's.
    #[error(
        "{file}:{line}: function `{function}`: cannot build its control-flow graph, so \
         divergent branches have no reconvergence point: {message}"
    )]
    NoFlowGraph {
        file: String,
        line: u32,
        function: String,
        message: String,
    },
    #[error("{file}: internal: no frame layout for function `{function}`")]
    NoFrame { file: String, function: String },
}

fn to_round(r: Option<Rounding>) -> D<Round> {
    Ok(match r {
        None | Some(Rounding::Rn) => Round::Rn,
        Some(Rounding::Rz) => Round::Rz,
        Some(Rounding::Rm) => Round::Rm,
        Some(Rounding::Rp) => Round::Rp,
        Some(other) => return Err(format!("rounding mode .{}", other.name()).into()),
    })
}

fn to_round_int(r: Option<Rounding>) -> Option<RoundInt> {
    match r {
        Some(Rounding::Rni) => Some(RoundInt::Rni),
        Some(Rounding::Rzi) => Some(RoundInt::Rzi),
        Some(Rounding::Rmi) => Some(RoundInt::Rmi),
        Some(Rounding::Rpi) => Some(RoundInt::Rpi),
        _ => None,
    }
}

fn fty(t: Type) -> Option<FTy> {
    Some(match t {
        Type::F32 => FTy::F32,
        Type::F64 => FTy::F64,
        Type::F16 => FTy::F16,
        Type::Bf16 => FTy::Bf16,
        Type::F16x2 => FTy::F16x2,
        Type::Bf16x2 => FTy::Bf16x2,
        _ => return None,
    })
}

fn mem_space(s: Option<StateSpace>) -> D<MemSpace> {
    Ok(match s {
        None | Some(StateSpace::Generic) => MemSpace::Generic,
        Some(StateSpace::Global) => MemSpace::Global,
        Some(s) if s.is_shared() => MemSpace::Shared,
        Some(StateSpace::Local) => MemSpace::Local,
        Some(s) if s.is_param() => MemSpace::Param,
        Some(StateSpace::Const) => MemSpace::Const,
        Some(other) => return Err(format!("state space .{}", other.name()).into()),
    })
}

fn plain_space(s: Option<StateSpace>) -> D<Space> {
    Ok(match s {
        Some(StateSpace::Global) => Space::Global,
        Some(s) if s.is_shared() => Space::Shared,
        Some(StateSpace::Local) => Space::Local,
        Some(s) if s.is_param() => Space::Param,
        Some(StateSpace::Const) => Space::Const,
        other => return Err(format!("cvta/isspacep space {other:?}").into()),
    })
}

impl Cx<'_> {
    fn slot(&self, r: Reg) -> D<(bool, u32)> {
        if self.lanes.get(r.index()).copied().flatten().is_some() {
            return Err("a vector register where a scalar is needed".into());
        }
        self.slots
            .get(r.index())
            .copied()
            .ok_or_else(|| "dangling register".into())
    }

    /// The value slot of element `i` of a vector register (`v.y`).
    fn elem_slot(&self, r: Reg, i: u8) -> D<R> {
        match (self.slots.get(r.index()), self.lanes.get(r.index())) {
            (Some(&(false, s)), Some(Some(n))) if i < *n => Ok(s + i as u32),
            _ => Err("vector element out of range".into()),
        }
    }

    /// The operands a vector position stands for: the items of `{a, b}`, the
    /// elements of a vector register `V`, or `o` itself.
    pub(super) fn vector_items(&self, o: &Operand) -> Vec<Operand> {
        match o {
            Operand::Vector(items) => items.clone(),
            Operand::Reg(r) => match self.lanes.get(r.index()).copied().flatten() {
                Some(n) => (0..n).map(|i| Operand::VecElem(*r, i)).collect(),
                None => vec![o.clone()],
            },
            o => vec![o.clone()],
        }
    }

    fn pred(&self, r: Reg) -> Option<P> {
        match self.slots.get(r.index()) {
            Some(&(true, p)) => Some(p),
            _ => None,
        }
    }

    /// The coordinates of a texture fetch or surface access `op`, one per
    /// dimension: a 3D access writes a vector of four, the last unused.
    fn texture_coords(&self, op: ptx::Opcode, o: &Operand) -> D<Vec<Src>> {
        let rank = op.texture_rank() as usize;
        let want = if rank == 3 { 4 } else { rank };
        let items = self.vector_items(o);
        if items.len() != want {
            return Err(format!(
                "{} with {} coordinates (it takes {want})",
                op.name(),
                items.len()
            )
            .into());
        }
        items.iter().take(rank).map(|o| self.src(o)).collect()
    }

    /// The destination registers of a vector operand (`{%f1, _, %f3}`), a
    /// sink `None`.
    fn dest_items(&self, o: &Operand) -> D<Vec<Option<R>>> {
        self.vector_items(o)
            .iter()
            .map(|o| match o {
                Operand::Sink => Ok(None),
                o => self.dreg(o).map(Some),
            })
            .collect()
    }

    fn dreg(&self, o: &Operand) -> D<R> {
        match o {
            Operand::VecElem(r, i) => self.elem_slot(*r, *i),
            Operand::Reg(r) => match self.slot(*r)? {
                (false, s) => Ok(s),
                (true, _) => Err("predicate where a value register is needed".into()),
            },
            other => Err(format!("destination {other:?}").into()),
        }
    }

    /// The declared width of a destination register (8 to 64 bits).
    fn reg_bits(&self, o: &Operand) -> D<u8> {
        match o {
            Operand::Reg(r) => self
                .func
                .regs
                .get(*r)
                .map(|decl| decl.ty.bits().clamp(8, 64) as u8)
                .ok_or_else(|| "dangling register".into()),
            other => Err(format!("destination {other:?}").into()),
        }
    }

    fn dpred(&self, o: &Operand) -> D<P> {
        match o {
            Operand::Reg(r) => self
                .pred(*r)
                .ok_or_else(|| "value register where a predicate is needed".into()),
            other => Err(format!("predicate destination {other:?}").into()),
        }
    }

    /// A register, sink or predicate destination of vote/shfl.
    fn vdst(&self, o: &Operand) -> D<VoteDst> {
        match o {
            Operand::Reg(r) => Ok(match self.slot(*r)? {
                (true, p) => VoteDst::Pred(p),
                (false, s) => VoteDst::Reg(s),
            }),
            other => Err(format!("destination {other:?}").into()),
        }
    }

    fn symbol_addr(&self, s: &Symbol, offset: i64) -> D<Src> {
        let frame = self.layout.frames.get(self.func_index);
        let off = offset as u64;
        match s {
            Symbol::Global(g) => {
                let p = self
                    .layout
                    .globals
                    .get(g.index())
                    .copied()
                    .flatten()
                    .ok_or("symbol without storage")?;
                Ok(Src::Imm(p.addr.wrapping_add(off)))
            }
            Symbol::Local(l) => {
                let frame = frame.ok_or("no frame")?;
                if let Some(p) = frame.statics.get(&l.index()) {
                    Ok(Src::Imm(p.addr.wrapping_add(off)))
                } else if let Some(&o) = frame.shared.get(&l.index()) {
                    Ok(Src::Imm(o.wrapping_add(off)))
                } else {
                    let o = frame
                        .locals
                        .get(&l.index())
                        .copied()
                        .ok_or("local without storage")?;
                    Ok(Src::Frame(o.wrapping_add(off)))
                }
            }
            Symbol::Param(i) => {
                if self.func.is_entry() {
                    let kp = self
                        .layout
                        .kernel_params
                        .get(self.func_index)
                        .ok_or("no params")?;
                    let (o, _) = kp.get(*i as usize).copied().ok_or("param index")?;
                    Ok(Src::Imm(o.wrapping_add(off)))
                } else {
                    let (o, _) = frame
                        .and_then(|f| f.params.get(*i as usize))
                        .copied()
                        .ok_or("param index")?;
                    Ok(Src::Frame(o.wrapping_add(off)))
                }
            }
            Symbol::Return(i) => {
                let (o, _) = frame
                    .and_then(|f| f.rets.get(*i as usize))
                    .copied()
                    .ok_or("return index")?;
                Ok(Src::Frame(o.wrapping_add(off)))
            }
            // A function's address: an index above FUNC_BASE, which no memory
            // window uses, so a load through it faults.
            Symbol::Function(h) => Ok(Src::Imm(FUNC_BASE + h.index() as u64 + offset as u64)),
        }
    }

    /// The state space a symbol's storage is in (`None` for functions).
    fn symbol_space(&self, s: &Symbol) -> Option<MemSpace> {
        match s {
            Symbol::Global(g) => {
                let p = self.layout.globals.get(g.index()).copied().flatten()?;
                Some(match p.space {
                    Space::Global => MemSpace::Global,
                    Space::Shared => MemSpace::Shared,
                    Space::Local => MemSpace::Local,
                    Space::Param => MemSpace::Param,
                    Space::Const => MemSpace::Const,
                })
            }
            Symbol::Local(l) => {
                let frame = self.layout.frames.get(self.func_index)?;
                if let Some(p) = frame.statics.get(&l.index()) {
                    return Some(match p.space {
                        Space::Const => MemSpace::Const,
                        _ => MemSpace::Global,
                    });
                }
                Some(if frame.shared.contains_key(&l.index()) {
                    MemSpace::Shared
                } else {
                    MemSpace::Local
                })
            }
            Symbol::Param(_) if self.func.is_entry() => Some(MemSpace::Param),
            Symbol::Param(_) | Symbol::Return(_) => Some(MemSpace::Local),
            Symbol::Function(_) => None,
        }
    }

    fn src(&self, o: &Operand) -> D<Src> {
        match o {
            Operand::VecElem(r, i) => Ok(Src::Reg(self.elem_slot(*r, *i)?)),
            Operand::Reg(r) => match self.slot(*r)? {
                (false, s) => Ok(Src::Reg(s)),
                (true, _) => Err("predicate used as a value".into()),
            },
            Operand::Imm(Immediate::Int(i)) => Ok(Src::Imm(*i as u64)),
            Operand::Imm(Immediate::F32(b)) => Ok(Src::Imm(*b as u64)),
            Operand::Imm(Immediate::F64(b)) => Ok(Src::Imm(*b)),
            Operand::Special(s) => Ok(Src::Sreg(*s)),
            Operand::Symbol(s, off) => self.symbol_addr(s, *off),
            other => Err(format!("operand {other:?}").into()),
        }
    }

    /// A float-typed source: decimal literals arrive as f64 bits; narrow for f32.
    fn fsrc(&self, o: &Operand, t: Type) -> D<Src> {
        match (o, t) {
            (Operand::Imm(Immediate::F64(b)), Type::F32) => {
                Ok(Src::Imm((f64::from_bits(*b) as f32).to_bits() as u64))
            }
            (Operand::Imm(Immediate::F32(b)), Type::F64) => {
                Ok(Src::Imm((f32::from_bits(*b) as f64).to_bits()))
            }
            _ => self.src(o),
        }
    }

    fn psrc(&self, o: &Operand) -> D<PSrc> {
        match o {
            Operand::Reg(r) => self
                .pred(*r)
                .map(|p| PSrc::Reg(p, false))
                .ok_or_else(|| "not a predicate".into()),
            Operand::NotReg(r) => self
                .pred(*r)
                .map(|p| PSrc::Reg(p, true))
                .ok_or_else(|| "not a predicate".into()),
            Operand::Imm(Immediate::Int(i)) => Ok(PSrc::Imm(*i != 0)),
            other => Err(format!("predicate operand {other:?}").into()),
        }
    }

    fn addr(&self, o: &Operand, space: MemSpace) -> D<(Addr, MemSpace)> {
        let Operand::Address(Address { base, offset }) = o else {
            return Err(format!("address {o:?}").into());
        };
        let base_src = match base {
            AddrBase::Reg(r) => self.src(&Operand::Reg(*r))?,
            AddrBase::Absolute => Src::Imm(0),
            AddrBase::Symbol(s) => self.symbol_addr(s, 0)?,
        };
        // A frame symbol is thread-local storage whatever the instruction's space says
        // (`ld.param` of a device function's parameter or a call's argument).
        // A variable named in a generic address stands for its generic address
        // (PTX ISA "Addresses as Operands": `[var]` is the variable's address),
        // which resolves to the variable's own space: access that space directly.
        let space = match (base_src, space) {
            (Src::Frame(_), MemSpace::Param | MemSpace::Local | MemSpace::Generic) => {
                MemSpace::Local
            }
            (_, MemSpace::Generic) => match base {
                AddrBase::Symbol(s) => self.symbol_space(s).unwrap_or(MemSpace::Generic),
                _ => MemSpace::Generic,
            },
            (_, s) => s,
        };
        let space = match space {
            MemSpace::Generic if self.width() == Width::A32 => MemSpace::Generic32,
            s => s,
        };
        Ok((
            Addr {
                base: base_src,
                offset: *offset,
            },
            space,
        ))
    }

    /// The architecture of the module's `.target` (`sm_80` -> 80, `sm_90a`
    /// -> 90), if it names one.
    fn target_sm(&self) -> Option<u32> {
        self.module.target.iter().find_map(|t| {
            let digits: String = t
                .strip_prefix("sm_")?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
    }

    /// The generic map of the module (`.address_size 32` has its own).
    pub(super) fn width(&self) -> Width {
        if self.module.address_size == Some(32) {
            Width::A32
        } else {
            Width::A64
        }
    }

    fn int_ty(t: Type) -> (u8, bool) {
        (t.bits().clamp(1, 64) as u8, t.kind() == TypeKind::Signed)
    }
}
