//! The translation of one instruction: opcode, modifiers and operands to an [`Op`].

use ptx::{
    BarMode, Immediate, Instruction, MbarrierOp, MulPart, Opcode, Operand, Precision, ShfDir,
    ShfMode, StateSpace, Symbol, Type,
};

use super::{Cx, D, fty, mem_space, plain_space, to_round, to_round_int};
use crate::exec::ops::*;
use crate::simt::barrier::RedOp;

impl Cx<'_> {
    pub(super) fn op(&self, inst: &Instruction, reconv: u32) -> D<Op> {
        use Opcode as O;
        let ops = &inst.operands;
        let m = &inst.mods;
        let ty = inst.ty().unwrap_or(Type::B32);
        let get = |i: usize| ops.get(i).ok_or_else(|| format!("missing operand {i}"));
        let fmods = || -> D<FMods> {
            Ok(FMods {
                round: to_round(m.rounding)?,
                ftz: m.ftz,
                sat: m.sat,
                relu: m.relu,
                xorsign_abs: m.xorsign_abs,
            })
        };
        let (bits, signed) = Self::int_ty(ty);
        let halves = matches!(ty, Type::U16x2 | Type::S16x2);
        let int2 = |op: IntOp2| -> D<Op> {
            if halves || m.relu {
                return Ok(Op::IntHalves {
                    op: packed_int_op(op, ty, m.relu)?,
                    halves,
                    signed,
                    relu: m.relu,
                    d: self.dreg(get(0)?)?,
                    a: self.src(get(1)?)?,
                    b: self.src(get(2)?)?,
                });
            }
            Ok(Op::Int2 {
                op,
                bits,
                signed,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
            })
        };
        let float_or_int2 = |fop: FOp2, iop: IntOp2| -> D<Op> {
            match fty(ty) {
                Some(t) => Ok(Op::F2 {
                    op: fop,
                    ty: t,
                    m: fmods()?,
                    d: self.dreg(get(0)?)?,
                    a: self.fsrc(get(1)?, ty)?,
                    b: self.fsrc(get(2)?, ty)?,
                }),
                None => int2(iop),
            }
        };
        Ok(match inst.opcode {
            O::Add | O::Sub if m.carry_out && !ty.is_float() => Op::Carry {
                sub: inst.opcode == O::Sub,
                carry_in: false,
                carry_out: true,
                bits,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
            },
            O::Mad | O::Madc if (m.carry_out || inst.opcode == O::Madc) && !ty.is_float() => {
                Op::MadCarry {
                    hi: m.mul_part == Some(MulPart::Hi),
                    signed,
                    carry_in: inst.opcode == O::Madc,
                    carry_out: m.carry_out,
                    bits,
                    d: self.dreg(get(0)?)?,
                    a: self.src(get(1)?)?,
                    b: self.src(get(2)?)?,
                    c: self.src(get(3)?)?,
                }
            }
            O::Addc | O::Subc => Op::Carry {
                sub: inst.opcode == O::Subc,
                carry_in: true,
                carry_out: m.carry_out,
                bits,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
            },
            O::CpAsync => {
                let (dst, dst_space) =
                    self.addr(get(0)?, mem_space(m.space.or(Some(StateSpace::Shared)))?)?;
                let (src, src_space) = self.addr(
                    get(1)?,
                    mem_space(m.src_space.or(Some(StateSpace::Global)))?,
                )?;
                let src_size = match ops.get(3) {
                    Some(o @ (Operand::Imm(_) | Operand::Reg(_))) => Some(self.src(o)?),
                    _ => None,
                };
                Op::CpAsync {
                    dst,
                    src,
                    dst_space,
                    src_space,
                    size: self.src(get(2)?)?,
                    src_size,
                }
            }
            O::CpAsyncCommitGroup | O::CpAsyncWaitGroup | O::CpAsyncWaitAll => Op::Nop,
            // Bulk copies complete at once too, so their groups and waits
            // have nothing left to wait for; a prefetch moves no data.
            O::CpAsyncBulkCommitGroup | O::CpAsyncBulkWaitGroup | O::CpAsyncBulkPrefetch => Op::Nop,
            O::CpAsyncBulk => {
                let (dst, dst_space) = self.addr(get(0)?, mem_space(m.space)?)?;
                let (src, src_space) = self.addr(get(1)?, mem_space(m.src_space)?)?;
                let mbar = match m.completion {
                    Some(ptx::BulkCompletion::CompleteTx) => {
                        Some(self.addr(get(3)?, MemSpace::Shared)?)
                    }
                    _ => None,
                };
                Op::BulkCopy {
                    dst,
                    dst_space,
                    src,
                    src_space,
                    size: self.src(get(2)?)?,
                    mbar,
                }
            }
            // The thread's cp.async copies are complete already (they copy at
            // once), so the arrive happens now. Without `.noinc` the pending
            // count is raised by one first: no change at all.
            O::CpAsyncMbarrierArrive if !m.noinc => Op::Nop,
            O::CpAsyncMbarrierArrive => {
                let (addr, space) =
                    self.addr(get(0)?, mem_space(m.space.or(Some(StateSpace::Shared)))?)?;
                Op::Mbarrier {
                    op: MbarrierOp::Arrive,
                    space,
                    addr,
                    d: None,
                    b: None,
                    tx: None,
                    parity: false,
                }
            }
            O::Mbarrier => {
                let op = m.mbarrier_op.ok_or("mbarrier operation")?;
                if m.space == Some(StateSpace::SharedCluster) {
                    return Err("mbarrier on another CTA's shared memory (.shared::cluster)".into());
                }
                let space = mem_space(m.space)?;
                let (d, a, b) = match op {
                    MbarrierOp::Init
                    | MbarrierOp::Inval
                    | MbarrierOp::ExpectTx
                    | MbarrierOp::CompleteTx => (None, 0, ops.get(1)),
                    MbarrierOp::PendingCount => {
                        return Ok(Op::MbarrierPendingCount {
                            d: self.dreg(get(0)?)?,
                            state: self.src(get(1)?)?,
                        });
                    }
                    _ => {
                        let d = match get(0)? {
                            Operand::Sink => None,
                            o => Some(self.vdst(o)?),
                        };
                        // arrive.expect_tx's third operand is bytes, not a count.
                        let b = if m.expect_tx { None } else { ops.get(2) };
                        (d, 1, b)
                    }
                };
                let tx = if m.expect_tx { ops.get(2) } else { None };
                let (addr, space) = self.addr(get(a)?, space)?;
                Op::Mbarrier {
                    op,
                    space,
                    addr,
                    d,
                    b: b.map(|o| self.src(o)).transpose()?,
                    tx: tx.map(|o| self.src(o)).transpose()?,
                    parity: m.parity,
                }
            }
            O::Add if m.sat && !ty.is_float() => int2(IntOp2::AddSat)?,
            O::Sub if m.sat && !ty.is_float() => int2(IntOp2::SubSat)?,
            O::Add => float_or_int2(FOp2::Add, IntOp2::Add)?,
            O::Sub => float_or_int2(FOp2::Sub, IntOp2::Sub)?,
            O::Mul if ty.is_float() => float_or_int2(FOp2::Mul, IntOp2::MulLo)?,
            O::Mul => int2(match m.mul_part {
                Some(MulPart::Hi) => IntOp2::MulHi,
                Some(MulPart::Wide) => IntOp2::MulWide,
                _ => IntOp2::MulLo,
            })?,
            O::Mul24 => int2(if m.mul_part == Some(MulPart::Hi) {
                IntOp2::Mul24Hi
            } else {
                IntOp2::Mul24Lo
            })?,
            O::Div if ty.is_float() => {
                let op = if m.precision == Some(Precision::Approx)
                    || (m.precision.is_some() && ty == Type::F32)
                {
                    FOp2::DivApprox
                } else {
                    FOp2::Div
                };
                float_or_int2(op, IntOp2::Div)?
            }
            O::Div => int2(IntOp2::Div)?,
            O::Rem => int2(IntOp2::Rem)?,
            O::Min | O::Max => {
                min_max_mods(ty, m.relu, m.xorsign_abs)?;
                let (fop, iop) = match (inst.opcode == O::Min, m.nan) {
                    (true, false) => (FOp2::Min, IntOp2::Min),
                    (true, true) => (FOp2::MinNan, IntOp2::Min),
                    (false, false) => (FOp2::Max, IntOp2::Max),
                    (false, true) => (FOp2::MaxNan, IntOp2::Max),
                };
                float_or_int2(fop, iop)?
            }
            O::Copysign => float_or_int2(FOp2::Copysign, IntOp2::Or)?,
            O::And if ty == Type::Pred => self.pred2(PredOp::And, ops)?,
            O::Or if ty == Type::Pred => self.pred2(PredOp::Or, ops)?,
            O::Xor if ty == Type::Pred => self.pred2(PredOp::Xor, ops)?,
            O::Not if ty == Type::Pred => self.pred2(PredOp::Not, ops)?,
            O::And => int2(IntOp2::And)?,
            O::Or => int2(IntOp2::Or)?,
            O::Xor => int2(IntOp2::Xor)?,
            O::Shl => int2(IntOp2::Shl)?,
            O::Shr => int2(IntOp2::Shr)?,
            O::Bmsk => int2(IntOp2::Bmsk {
                clamp: m.shf_mode == Some(ShfMode::Clamp),
            })?,
            O::Neg | O::Abs if ty.is_float() => {
                let t = fty(ty).ok_or("float type")?;
                let op = if inst.opcode == O::Neg {
                    FOp1::Neg
                } else {
                    FOp1::Abs
                };
                Op::F1 {
                    op,
                    ty: t,
                    m: fmods()?,
                    d: self.dreg(get(0)?)?,
                    a: self.src(get(1)?)?,
                }
            }
            O::Neg | O::Abs | O::Not | O::Cnot | O::Popc | O::Clz | O::Brev | O::Bfind => {
                if halves {
                    return Err(format!("{:?} on .{}", inst.opcode, ty.name()).into());
                }
                let op = match inst.opcode {
                    O::Neg => IntOp1::Neg,
                    O::Abs => IntOp1::Abs,
                    O::Not => IntOp1::Not,
                    O::Cnot => IntOp1::Cnot,
                    O::Popc => IntOp1::Popc,
                    O::Clz => IntOp1::Clz,
                    O::Brev => IntOp1::Brev,
                    _ if m.shiftamt => IntOp1::BfindShiftAmt,
                    _ => IntOp1::Bfind,
                };
                Op::Int1 {
                    op,
                    bits,
                    signed,
                    d: self.dreg(get(0)?)?,
                    a: self.src(get(1)?)?,
                }
            }
            O::Sqrt | O::Rsqrt | O::Rcp | O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh => {
                let t = fty(ty).ok_or("float type")?;
                let approx = m.precision.is_some() || m.rounding.is_none();
                let op = match inst.opcode {
                    O::Sqrt if approx && t == FTy::F32 => FOp1::SqrtApprox,
                    O::Sqrt => FOp1::Sqrt,
                    O::Rsqrt => FOp1::Rsqrt,
                    O::Rcp if approx => FOp1::RcpApprox,
                    O::Rcp => FOp1::Rcp,
                    O::Sin => FOp1::Sin,
                    O::Cos => FOp1::Cos,
                    O::Lg2 => FOp1::Lg2,
                    O::Ex2 => FOp1::Ex2,
                    _ => FOp1::Tanh,
                };
                Op::F1 {
                    op,
                    ty: t,
                    m: fmods()?,
                    d: self.dreg(get(0)?)?,
                    a: self.fsrc(get(1)?, ty)?,
                }
            }
            O::Fma | O::Mad if ty.is_float() => Op::Fma {
                m: fma_mods(fmods()?, ty, m.satfinite)?,
                ty: fty(ty).ok_or("float type")?,
                d: self.dreg(get(0)?)?,
                a: self.fsrc(get(1)?, ty)?,
                b: self.fsrc(get(2)?, ty)?,
                c: self.fsrc(get(3)?, ty)?,
            },
            O::Mad | O::Mad24 | O::Bfe | O::Prmt | O::Shf | O::Lop3 | O::Sad => {
                if halves {
                    return Err(format!("{:?} on .{}", inst.opcode, ty.name()).into());
                }
                let op = match inst.opcode {
                    O::Mad if m.mul_part == Some(MulPart::Hi) && m.sat => IntOp3::MadHiSat,
                    O::Mad if m.mul_part == Some(MulPart::Hi) => IntOp3::MadHi,
                    O::Mad if m.mul_part == Some(MulPart::Wide) => IntOp3::MadWide,
                    O::Mad => IntOp3::MadLo,
                    O::Mad24 if m.mul_part == Some(MulPart::Hi) => return Err("mad24.hi".into()),
                    O::Mad24 => IntOp3::Mad24Lo,
                    O::Bfe => IntOp3::Bfe,
                    O::Prmt => match m.prmt_mode {
                        Some(mode) => IntOp3::PrmtMode(mode),
                        None => IntOp3::Prmt,
                    },
                    O::Shf => {
                        let clamp = m.shf_mode == Some(ShfMode::Clamp);
                        if m.shf_dir == Some(ShfDir::L) {
                            IntOp3::ShfL { clamp }
                        } else {
                            IntOp3::ShfR { clamp }
                        }
                    }
                    O::Lop3 => {
                        let lut = match ops.get(4) {
                            Some(Operand::Imm(Immediate::Int(i))) => *i as u8,
                            _ => return Err("lop3 without an immediate table".into()),
                        };
                        IntOp3::Lop3(lut)
                    }
                    _ => IntOp3::Sad,
                };
                Op::Int3 {
                    op,
                    bits,
                    signed,
                    d: self.dreg(get(0)?)?,
                    a: self.src(get(1)?)?,
                    b: self.src(get(2)?)?,
                    c: self.src(get(3)?)?,
                }
            }
            O::Bfi => Op::Bfi {
                bits,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
                pos: self.src(get(3)?)?,
                len: self.src(get(4)?)?,
            },
            O::Setp | O::Set => {
                let src_ty = if inst.opcode == O::Set {
                    *inst.types.get(1).ok_or("set source type")?
                } else {
                    ty
                };
                let cty = match fty(src_ty) {
                    Some(t) => CmpTy::Float { ty: t, ftz: m.ftz },
                    None => {
                        let (b, s) = Self::int_ty(src_ty);
                        CmpTy::Int { bits: b, signed: s }
                    }
                };
                let cmp = m.cmp.ok_or("comparison")?;
                let packed = matches!(src_ty, Type::F16x2 | Type::Bf16x2);
                let (a, b) = (self.fsrc(get(1)?, src_ty)?, self.fsrc(get(2)?, src_ty)?);
                let comb = match m.bool_op {
                    Some(bop) => Some((bop, self.psrc(get(3)?)?)),
                    None => None,
                };
                if inst.opcode == O::Set {
                    Op::Set {
                        cmp,
                        ty: cty,
                        packed,
                        one: set_true_value(ty, packed),
                        d: self.dreg(get(0)?)?,
                        a,
                        b,
                        comb,
                    }
                } else {
                    let (d, d2) = match get(0)? {
                        Operand::Pair(p, q) => (
                            self.pred(*p).ok_or("pred")?,
                            Some(self.pred(*q).ok_or("pred")?),
                        ),
                        o => (self.dpred(o)?, None),
                    };
                    Op::Setp {
                        cmp,
                        ty: cty,
                        packed,
                        d,
                        d2,
                        a,
                        b,
                        comb,
                    }
                }
            }
            O::Selp => Op::Selp {
                d: self.dreg(get(0)?)?,
                a: self.fsrc(get(1)?, ty)?,
                b: self.fsrc(get(2)?, ty)?,
                p: self.psrc(get(3)?)?,
            },
            O::Mov if m.vec.is_some() => self.mov_vec(ty, m.vec, ops)?,
            O::Mov => self.mov(ty, ops)?,
            O::Cvt => {
                let to = *inst.types.first().ok_or("cvt type")?;
                let from = *inst.types.get(1).ok_or("cvt source type")?;
                if to == Type::Tf32 {
                    if from != Type::F32 || m.relu {
                        return Err(format!("cvt to tf32 from {from:?} (from f32 runs)").into());
                    }
                    let round = match m.rounding {
                        Some(ptx::Rounding::Rna) => Tf32Round::NearestAway,
                        Some(ptx::Rounding::Rn) => Tf32Round::NearestEven,
                        Some(ptx::Rounding::Rz) => Tf32Round::Zero,
                        other => return Err(format!("cvt to tf32 rounding {other:?}").into()),
                    };
                    return Ok(Op::CvtTf32 {
                        round,
                        satfinite: m.satfinite,
                        d: self.dreg(get(0)?)?,
                        a: self.src(get(1)?)?,
                    });
                }
                let round_int = to_round_int(m.rounding);
                let round = if round_int.is_some() {
                    None
                } else {
                    m.rounding.map(|r| to_round(Some(r))).transpose()?
                };
                if to == Type::Pred || from == Type::Pred {
                    return Err("cvt of a predicate".into());
                }
                if let Some(kind) = cvt_pack_kind(m.pack, to, from) {
                    let src = |i: usize| ops.get(i).map_or(Ok(Src::Imm(0)), |o| self.fsrc(o, from));
                    return Ok(Op::CvtPack {
                        kind,
                        m: CvtPackMods {
                            round: round.unwrap_or(crate::float::Round::Rn),
                            relu: m.relu,
                            satfinite: m.satfinite,
                        },
                        d: self.dreg(get(0)?)?,
                        a: src(1)?,
                        b: src(2)?,
                        c: src(3)?,
                    });
                }
                Op::Cvt {
                    from,
                    to,
                    m: CvtMods {
                        round,
                        round_int,
                        ftz: m.ftz,
                        sat: m.sat,
                        relu: m.relu,
                        satfinite: m.satfinite,
                    },
                    dbits: self.reg_bits(get(0)?)?,
                    d: self.dreg(get(0)?)?,
                    a: self.fsrc(get(1)?, from)?,
                }
            }
            O::Cvta => Op::Cvta {
                to_generic: !m.cvta_to,
                width: self.width(),
                space: plain_space(m.space)?,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                bits32: ty.bits() == 32,
            },
            O::Isspacep => Op::Isspacep {
                width: self.width(),
                space: plain_space(m.space)?,
                d: self.dpred(get(0)?)?,
                a: self.src(get(1)?)?,
            },
            O::Ld | O::Ldu => {
                let (addr, space) = self.addr(get(1)?, mem_space(m.space)?)?;
                let d = self.dest_items(get(0)?)?;
                if ty == Type::B128 || ty.bytes() as usize * d.len() > 64 {
                    return Err("load wider than 64 bytes".into());
                }
                // ISA 9.4.1 "Operand Size Exceeding Instruction-Type Size": a
                // signed load into a wider register is sign-extended to that
                // register's width, every other type zero-extended.
                let sext = match (ty.is_signed(), get(0)?) {
                    (false, _) => Vec::new(),
                    (true, Operand::Vector(items)) => items
                        .iter()
                        .map(|o| match o {
                            Operand::Sink => Ok(0),
                            o => self.reg_bits(o),
                        })
                        .collect::<D<Vec<_>>>()?,
                    (true, o) => vec![self.reg_bits(o)?],
                };
                Op::Ld {
                    space,
                    bytes: ty.bytes() as u8,
                    sext,
                    d,
                    addr,
                }
            }
            O::St => {
                let (addr, space) = self.addr(get(0)?, mem_space(m.space)?)?;
                let src = self
                    .vector_items(get(1)?)
                    .iter()
                    .map(|o| self.fsrc(o, ty))
                    .collect::<D<Vec<_>>>()?;
                if ty == Type::B128 || ty.bytes() as usize * src.len() > 64 {
                    return Err("store wider than 64 bytes".into());
                }
                Op::St {
                    space,
                    bytes: ty.bytes() as u8,
                    src,
                    addr,
                }
            }
            O::Atom | O::Red => {
                let op = m.atom_op.ok_or("atomic operation")?;
                let base = if inst.opcode == O::Atom { 1 } else { 0 };
                let (addr, space) = self.addr(get(base)?, mem_space(m.space)?)?;
                if m.vec.is_some() {
                    let parts = |o: &Operand| -> Vec<Operand> {
                        match o {
                            Operand::Vector(items) => items.clone(),
                            o => vec![o.clone()],
                        }
                    };
                    let d = if inst.opcode == O::Atom {
                        parts(get(0)?)
                            .iter()
                            .map(|o| match o {
                                Operand::Sink => Ok(None),
                                o => self.dreg(o).map(Some),
                            })
                            .collect::<D<Vec<_>>>()?
                    } else {
                        Vec::new()
                    };
                    let b = parts(get(base + 1)?)
                        .iter()
                        .map(|o| self.fsrc(o, ty))
                        .collect::<D<Vec<_>>>()?;
                    if ty.bytes() > 8 || b.is_empty() || b.len() > 8 {
                        return Err("vector atomic of this width".into());
                    }
                    return Ok(Op::AtomVec {
                        space,
                        op,
                        ty,
                        d,
                        addr,
                        b,
                    });
                }
                if ty.bytes() > 8 {
                    return Err("128-bit atomic".into());
                }
                let d = if inst.opcode == O::Atom {
                    Some(self.dreg(get(0)?)?)
                } else {
                    None
                };
                let c = ops.get(base + 2).map(|o| self.fsrc(o, ty)).transpose()?;
                Op::Atom {
                    space,
                    op,
                    ty,
                    d,
                    addr,
                    b: self.fsrc(get(base + 1)?, ty)?,
                    c,
                }
            }
            O::Bra => {
                let target = match get(0)? {
                    Operand::Label(l) => self.func.label_target(*l).ok_or("dangling label")?,
                    other => return Err(format!("branch target {other:?}").into()),
                };
                Op::Bra { target, reconv }
            }
            O::BrxIdx => {
                let idx = self.src(get(0)?)?;
                let targets = match get(1)? {
                    Operand::BranchTargets(t) => {
                        let list = self
                            .func
                            .branch_targets
                            .get(*t)
                            .ok_or("dangling .branchtargets")?;
                        list.labels
                            .iter()
                            .map(|l| self.func.label_target(*l).ok_or("dangling label"))
                            .collect::<Result<Vec<_>, _>>()?
                    }
                    other => return Err(format!("brx.idx targets {other:?}").into()),
                };
                Op::BrxIdx {
                    idx,
                    targets,
                    reconv,
                }
            }
            O::Testp => Op::Testp {
                op: m.testp.ok_or("testp class")?,
                f64: ty == Type::F64,
                d: self.dpred(get(0)?)?,
                a: self.src(get(1)?)?,
            },
            O::Slct => Op::Slct {
                d: self.dreg(get(0)?)?,
                a: self.fsrc(get(1)?, ty)?,
                b: self.fsrc(get(2)?, ty)?,
                c: self.fsrc(get(3)?, Type::F32)?,
                float_c: inst.types.get(1) == Some(&Type::F32),
                ftz: m.ftz,
            },
            O::Dp4a => Op::Dp4a {
                a_signed: ty.is_signed(),
                b_signed: inst.types.get(1).is_some_and(|t| t.is_signed()),
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
                c: self.src(get(3)?)?,
            },
            O::Dp2a => Op::Dp2a {
                hi: m.mul_part == Some(MulPart::Hi),
                a_signed: ty.is_signed(),
                b_signed: inst.types.get(1).is_some_and(|t| t.is_signed()),
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
                b: self.src(get(2)?)?,
                c: self.src(get(3)?)?,
            },
            O::Vadd2
            | O::Vsub2
            | O::Vabsdiff2
            | O::Vmin2
            | O::Vmax2
            | O::Vavrg2
            | O::Vadd4
            | O::Vsub4
            | O::Vabsdiff4
            | O::Vmin4
            | O::Vmax4
            | O::Vavrg4
            | O::Vset2
            | O::Vset4 => self.video(inst)?,
            O::Vadd
            | O::Vsub
            | O::Vabsdiff
            | O::Vmin
            | O::Vmax
            | O::Vshl
            | O::Vshr
            | O::Vset
            | O::Vmad => self.scalar_video(inst)?,
            O::Mma | O::Wmma | O::Ldmatrix | O::Stmatrix => self.tensor(inst)?,
            O::Call => self.call(ops)?,
            O::Ret => Op::Ret,
            O::Exit => Op::Exit,
            O::Trap => Op::Trap,
            O::Brkpt => Op::Brkpt,
            O::Bar | O::Barrier => {
                let mode = m.bar_mode.unwrap_or(BarMode::Sync);
                let (d, first) = if mode == BarMode::Red {
                    (Some(self.vdst(get(0)?)?), 1)
                } else {
                    (None, 0)
                };
                let id = self.src(get(first)?)?;
                let (count, red) = if mode == BarMode::Red {
                    let op = match m.atom_op {
                        Some(ptx::AtomOp::Popc) => RedOp::Popc,
                        Some(ptx::AtomOp::And) => RedOp::And,
                        Some(ptx::AtomOp::Or) => RedOp::Or,
                        other => return Err(format!("bar.red {other:?}").into()),
                    };
                    let (count, p) = if ops.len() > first + 2 {
                        (Some(self.src(get(first + 1)?)?), get(first + 2)?)
                    } else {
                        (None, get(first + 1)?)
                    };
                    (count, Some((op, self.psrc(p)?)))
                } else {
                    (ops.get(first + 1).map(|o| self.src(o)).transpose()?, None)
                };
                Op::Bar {
                    mode,
                    id,
                    count,
                    red,
                    d,
                }
            }
            O::BarWarpSync => Op::WarpSync,
            // A cache policy is an opaque 64-bit value that loads and stores
            // with `.L2::cache_hint` take as a hint; the emulator ignores
            // hints, so the value is its own encoding of the kind and the
            // priorities (ISA "createpolicy": only such an instruction may
            // read it). `.cvt` passes the access property through.
            O::Createpolicy => {
                let d = self.dreg(get(0)?)?;
                match m.policy {
                    Some(ptx::PolicyKind::Cvt) => Op::Mov {
                        d,
                        a: self.src(get(1)?)?,
                    },
                    kind => {
                        let code = |p: Option<&ptx::L2Priority>| p.map_or(0, |p| *p as u64 + 1);
                        let value = kind.map_or(0, |k| k as u64 + 1)
                            | code(m.priorities.first()) << 4
                            | code(m.priorities.get(1)) << 8;
                        Op::Mov {
                            d,
                            a: Src::Imm(value),
                        }
                    }
                }
            }
            O::Fence | O::Membar | O::Prefetch | O::Prefetchu | O::Nanosleep | O::Pmevent => {
                Op::Nop
            }
            O::Shfl => {
                let mode = m.shfl_mode.ok_or("shfl mode")?;
                let (d, dp) = match get(0)? {
                    Operand::Pair(r, p) => (
                        self.dreg(&Operand::Reg(*r))?,
                        Some(self.pred(*p).ok_or("pred")?),
                    ),
                    o => (self.dreg(o)?, None),
                };
                Op::Shfl {
                    mode,
                    d,
                    dp,
                    a: self.src(get(1)?)?,
                    b: self.src(get(2)?)?,
                    c: self.src(get(3)?)?,
                }
            }
            O::Vote => Op::Vote {
                mode: m.vote_mode.ok_or("vote mode")?,
                d: self.vdst(get(0)?)?,
                a: self.psrc(get(1)?)?,
            },
            O::Activemask => Op::Activemask {
                d: self.dreg(get(0)?)?,
            },
            O::Elect => {
                let (d, p) = match get(0)? {
                    Operand::Pair(r, p) => (Some(self.dreg(&Operand::Reg(*r))?), *p),
                    Operand::SinkPair(p) => (None, *p),
                    other => return Err(format!("elect destination {other:?}").into()),
                };
                Op::Elect {
                    d,
                    p: self.pred(p).ok_or("elect predicate")?,
                    mask: self.src(get(1)?)?,
                }
            }
            // One grid is emulated: no earlier grid to wait for, none to release.
            O::GriddepcontrolWait | O::GriddepcontrolLaunchDependents => Op::Nop,
            O::Match => {
                let (d, dp) = match get(0)? {
                    Operand::Pair(r, p) => (
                        self.dreg(&Operand::Reg(*r))?,
                        Some(self.pred(*p).ok_or("pred")?),
                    ),
                    o => (self.dreg(o)?, None),
                };
                Op::Match {
                    mode: m.match_mode.ok_or("match mode")?,
                    bits,
                    d,
                    dp,
                    a: self.src(get(1)?)?,
                }
            }
            O::Redux => Op::Redux {
                op: m.atom_op.ok_or("redux op")?,
                signed,
                d: self.dreg(get(0)?)?,
                a: self.src(get(1)?)?,
            },
            op if op.is_surface_load() || op.is_surface_store() => {
                let rank = op.texture_rank();
                let load = op.is_surface_load();
                let (handle, coords) = if load { (1, 2) } else { (0, 1) };
                let coords = self.texture_coords(op, get(coords)?)?;
                let access = SurfaceAccess {
                    rank,
                    bytes: ty.bytes() as u8,
                    clamp: m
                        .surface_clamp
                        .ok_or("surface access without a boundary mode")?,
                };
                let handle = self.src(get(handle)?)?;
                let data = self.vector_items(get(if load { 0 } else { 2 })?);
                if data.is_empty() || data.len() * access.bytes as usize > 32 {
                    return Err(format!("{} of {} elements", op.name(), data.len()).into());
                }
                if load {
                    Op::Suld {
                        access,
                        d: self.dest_items(get(0)?)?,
                        handle,
                        coords,
                    }
                } else {
                    Op::Sust {
                        access,
                        src: self
                            .vector_items(get(2)?)
                            .iter()
                            .map(|o| self.src(o))
                            .collect::<D<Vec<_>>>()?,
                        handle,
                        coords,
                    }
                }
            }
            O::Tex1d | O::Tex2d | O::Tex3d => {
                let d = self.dest_items(get(0)?)?;
                let rank = inst.opcode.texture_rank();
                let coords = self.texture_coords(inst.opcode, get(2)?)?;
                Op::Tex {
                    rank,
                    float_coords: inst.types.get(1) == Some(&Type::F32),
                    out: match ty {
                        Type::F32 => TexOut::F32,
                        Type::S32 => TexOut::S32,
                        Type::U32 => TexOut::U32,
                        other => {
                            return Err(
                                format!("{} into .{}", inst.opcode.name(), other.name()).into()
                            );
                        }
                    },
                    d,
                    handle: self.src(get(1)?)?,
                    coords,
                }
            }
            other => return Err(format!("`{}` is not executed yet", other.name()).into()),
        })
    }

    fn pred2(&self, op: PredOp, ops: &[Operand]) -> D<Op> {
        let d = self.dpred(ops.first().ok_or("operand")?)?;
        let a = self.psrc(ops.get(1).ok_or("operand")?)?;
        let b = match ops.get(2) {
            Some(o) => self.psrc(o)?,
            None => PSrc::Imm(false),
        };
        Ok(Op::PredLogic { op, d, a, b })
    }

    /// `mov.v4.f32 V, {a,b,c,d}`, `mov.v2.u32 {a,b}, V`, `mov.v4.f32 V, W`:
    /// element by element (ISA 6.4.2 "Vector Operands").
    fn mov_vec(&self, ty: Type, vec: Option<ptx::VecWidth>, ops: &[Operand]) -> D<Op> {
        let n = vec.map_or(1, |v| v.lanes()) as usize;
        let items = |i: usize| -> D<_> {
            let items = self.vector_items(ops.get(i).ok_or("operand")?);
            if items.len() == n && n <= 4 {
                Ok(items)
            } else {
                Err(format!("mov.v{n}: an operand of {} elements", items.len()).into())
            }
        };
        let d = items(0)?
            .iter()
            .map(|o| match o {
                Operand::Sink => Ok(None),
                o => self.dreg(o).map(Some),
            })
            .collect::<D<Vec<_>>>()?;
        let a = items(1)?
            .iter()
            .map(|o| self.fsrc(o, ty))
            .collect::<D<Vec<_>>>()?;
        Ok(Op::MovVec { d, a })
    }

    fn mov(&self, ty: Type, ops: &[Operand]) -> D<Op> {
        let dst = ops.first().ok_or("operand")?;
        let src = ops.get(1).ok_or("operand")?;
        if ty == Type::Pred {
            return Ok(Op::PredLogic {
                op: PredOp::Mov,
                d: self.dpred(dst)?,
                a: self.psrc(src)?,
                b: PSrc::Imm(false),
            });
        }
        match (dst, src) {
            (Operand::Vector(parts), s) => {
                let n = parts.len().max(1) as u32;
                let parts = parts
                    .iter()
                    .map(|o| match o {
                        Operand::Sink => Ok(None),
                        o => self.dreg(o).map(Some),
                    })
                    .collect::<D<Vec<_>>>()?;
                Ok(Op::Unpack {
                    parts,
                    a: self.src(s)?,
                    bits: (ty.bits() / n) as u8,
                })
            }
            (d, Operand::Vector(parts)) => {
                let n = parts.len().max(1) as u32;
                let parts = parts.iter().map(|o| self.src(o)).collect::<D<Vec<_>>>()?;
                Ok(Op::Pack {
                    d: self.dreg(d)?,
                    parts,
                    bits: (ty.bits() / n) as u8,
                })
            }
            (d, s) => Ok(Op::Mov {
                d: self.dreg(d)?,
                a: self.fsrc(s, ty)?,
            }),
        }
    }

    /// A `.param` variable of the frame is passed by its offset; a register
    /// or immediate by value (to a `.reg` parameter, ISA 7.1).
    fn call_arg(&self, o: &Operand) -> D<CallArg> {
        match o {
            Operand::Symbol(s, off) => match self.symbol_addr(s, *off)? {
                Src::Frame(f) => Ok(CallArg::Frame(f)),
                _ => Err("call argument outside the frame".into()),
            },
            Operand::Reg(_) | Operand::Imm(_) => Ok(CallArg::Value(self.src(o)?)),
            other => Err(format!("call argument {other:?}").into()),
        }
    }

    fn call_ret(&self, o: &Operand) -> D<CallRet> {
        match self.call_arg(o)? {
            CallArg::Frame(f) => Ok(CallRet::Frame(f)),
            CallArg::Value(Src::Reg(r)) => Ok(CallRet::Reg(r)),
            CallArg::Value(_) => Err(format!("call result into {o:?}").into()),
        }
    }

    fn call(&self, ops: &[Operand]) -> D<Op> {
        let mut k = 0;
        let mut rets = Vec::new();
        if let Some(Operand::List(list)) = ops.first() {
            rets = list.clone();
            k = 1;
        }
        let args = match ops.get(k + 1) {
            Some(Operand::List(list)) => list.as_slice(),
            _ => &[],
        };
        let args = args
            .iter()
            .map(|o| self.call_arg(o))
            .collect::<D<Vec<_>>>()?;
        let rets = rets
            .iter()
            .map(|o| self.call_ret(o))
            .collect::<D<Vec<_>>>()?;
        let callee = match ops.get(k) {
            Some(Operand::Symbol(Symbol::Function(h), 0)) => *h,
            // `call (r), %rd, (a), proto`: the target is a register holding
            // a function address (see [`FUNC_BASE`]).
            Some(o @ Operand::Reg(_)) => {
                let target = self.src(o)?;
                return Ok(Op::CallIndirect { target, args, rets });
            }
            _ => return Err("call target".into()),
        };
        let f = self
            .module
            .functions
            .get(callee)
            .ok_or("dangling function")?;
        if f.params
            .iter()
            .chain(&f.returns)
            .any(|p| p.space == ptx::StateSpace::Reg && p.ty == Type::Pred)
        {
            return Err(format!("`{}` has a .reg .pred parameter", f.name).into());
        }
        if !f.has_body {
            if f.name == "vprintf"
                && let [CallArg::Frame(fmt), CallArg::Frame(a)] = args[..]
            {
                let ret = match rets.first() {
                    Some(CallRet::Frame(o)) => Some(*o),
                    Some(CallRet::Reg(_)) => return Err("vprintf result in a register".into()),
                    None => None,
                };
                return Ok(Op::Vprintf { fmt, args: a, ret });
            }
            // Device-side malloc and free (CUDA's device heap): the
            // declarations NVRTC emits for them, a size_t size and a pointer
            // (8 bytes, 4 in an `.address_size 32` module).
            let width = |v: Option<&ptx::ir::Variable>| v.map(|p| p.ty.bits() / 8);
            match (f.name.as_str(), &args[..], &rets[..]) {
                ("malloc", [size], [ret]) => {
                    let (size_bytes, ret_bytes) =
                        (width(f.params.first()), width(f.returns.first()));
                    let (Some(size_bytes @ (4 | 8)), Some(ret_bytes @ (4 | 8))) =
                        (size_bytes, ret_bytes)
                    else {
                        return Err(
                            "malloc declared with a size or result that is not 32 or 64 bits"
                                .into(),
                        );
                    };
                    return Ok(Op::Malloc {
                        size: *size,
                        ret: *ret,
                        size_bytes: size_bytes as u8,
                        ret_bytes: ret_bytes as u8,
                    });
                }
                ("free", [_], []) => return Ok(Op::Free),
                _ => {}
            }
            return Err(format!("call of external function `{}`", f.name).into());
        }
        Ok(Op::Call {
            callee: callee.index() as u32,
            args,
            rets,
        })
    }
}

/// What `set` writes for true (PTX ISA, "Comparison and Selection
/// Instructions: set" and "Half Precision Comparison Instructions: set"):
/// 1.0 in the destination's float format, all ones for an integer
/// destination; with packed `.f16x2`/`.bf16x2` sources each 16-bit half of
/// the result is 1.0 (f16 or bf16 destination) or 0xffff.
fn set_true_value(dty: Type, packed: bool) -> u64 {
    match (dty, packed) {
        (Type::F16x2 | Type::F16, _) => 0x3c00,
        (Type::Bf16x2 | Type::Bf16, _) => 0x3f80,
        (_, true) => 0xffff,
        (Type::F32, false) => 0x3f80_0000,
        (t, false) => crate::exec::alu::mask_of(t.bits()),
    }
}

/// Which packed form a `cvt` is, if any: `cvt.pack`, or a packed float
/// destination or source (PTX ISA "cvt", Semantics).
fn cvt_pack_kind(pack: bool, to: Type, from: Type) -> Option<CvtPack> {
    let e5m2 = |t: Type| t == Type::E5m2x2;
    Some(match (to, from) {
        (t, _) if pack => CvtPack::Int {
            bits: t.bits() as u8,
            signed: t.is_signed(),
        },
        (Type::F16x2 | Type::Bf16x2, Type::F32) => CvtPack::F32ToHalf2 {
            bf: to == Type::Bf16x2,
        },
        (Type::E4m3x2 | Type::E5m2x2, Type::F32) => CvtPack::F32ToF8x2 { e5m2: e5m2(to) },
        (Type::E4m3x2 | Type::E5m2x2, Type::F16x2) => CvtPack::F16x2ToF8x2 { e5m2: e5m2(to) },
        (Type::F16x2, Type::E4m3x2 | Type::E5m2x2) => CvtPack::F8x2ToF16x2 { e5m2: e5m2(from) },
        _ => return None,
    })
}

/// The operation of [`Op::IntHalves`]: `add`, `sub`, `min`, `max` on
/// `.u16x2`/`.s16x2` (PTX ISA 9.7.1.1, 9.7.1.2, 9.7.1.10, 9.7.1.11), and
/// `.relu` only on `min`/`max` `.s32`/`.s16x2` ("min{.relu}.btype",
/// .btype = { .s16x2, .s32 }). Anything else is refused rather than run
/// as a 32-bit operation.
fn packed_int_op(op: IntOp2, ty: Type, relu: bool) -> D<IntOp2> {
    let ok = match op {
        IntOp2::Add | IntOp2::Sub => !relu,
        IntOp2::Min | IntOp2::Max => !relu || matches!(ty, Type::S32 | Type::S16x2),
        _ => false,
    };
    if ok {
        Ok(op)
    } else {
        let r = if relu { ".relu" } else { "" };
        Err(format!("{op:?}{r} on .{}", ty.name()).into())
    }
}

/// Modifiers `min`/`max` define for `ty`: `.relu` is integer-only (see
/// [`packed_int_op`]); `.xorsign.abs` exists for f32, f16 and bf16 (PTX ISA
/// 9.7.3.10, 9.7.4.7), not for f64 or integers.
fn min_max_mods(ty: Type, relu: bool, xorsign_abs: bool) -> D<()> {
    if relu && ty.is_float() {
        return Err(format!("min/max .relu on .{} (integer .s32/.s16x2 only)", ty.name()).into());
    }
    if xorsign_abs && (!ty.is_float() || ty == Type::F64) {
        return Err(format!("min/max .xorsign.abs on .{}", ty.name()).into());
    }
    Ok(())
}

/// `fma`'s modifiers checked against the ISA's lines (9.7.3.6, 9.7.4.4):
/// `.relu` exists only for the 16-bit types and never beside `.sat`;
/// no `fma` line has `.satfinite`.
fn fma_mods(m: FMods, ty: Type, satfinite: bool) -> D<FMods> {
    let half = matches!(ty, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2);
    if satfinite {
        return Err("fma.satfinite (no such form in the PTX ISA)".into());
    }
    if m.relu && (!half || m.sat) {
        return Err(format!(
            "fma.relu on .{}{}",
            ty.name(),
            if m.sat { " with .sat" } else { "" }
        )
        .into());
    }
    Ok(m)
}
