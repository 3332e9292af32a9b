//! Translation of the tensor-core and matrix-movement instructions (`mma`,
//! `wmma.*`, `ldmatrix`, `stmatrix`).

use ptx::{Fragment, Instruction, Layout, Opcode, Operand, Shape, StateSpace, Type, WmmaOp};

use super::{Cx, D, mem_space};
use crate::exec::ops::*;

/// The end of every "not emulated" message of `mma` (see [`Cx::mma`]).
const MMA_RUNS: &str = "is not emulated (mma runs .f16 and .bf16 m16n8k8 / m16n8k16, \
                        .tf32 m16n8k8, .u8 and .s8 m8n8k16 / m16n8k16 / m16n8k32)";

/// Why an `mma` shape and multiplicand types do not run.
fn not_emulated(s: Option<Shape>, ta: Type, tb: Type) -> String {
    let shape = s.map_or_else(
        || "(no shape)".into(),
        |s| format!("m{}n{}k{}", s.m, s.n, s.k),
    );
    format!("mma.{shape}.{}.{} {MMA_RUNS}", ta.name(), tb.name())
}

const M16N16K16: Shape = Shape {
    m: 16,
    n: 16,
    k: 16,
};

const M16N16K8: Shape = Shape { m: 16, n: 16, k: 8 };

impl Cx<'_> {
    /// The registers of a `{...}` vector operand (or of a single register).
    fn reg_vec(&self, o: &Operand, want: usize, what: &str) -> D<Vec<R>> {
        let regs = match o {
            Operand::Vector(items) => items.iter().map(|i| self.dreg(i)).collect::<D<Vec<_>>>()?,
            o => vec![self.dreg(o)?],
        };
        if regs.len() != want {
            return Err(
                format!("{what}: {} registers where {want} are expected", regs.len()).into(),
            );
        }
        Ok(regs)
    }

    fn src_vec(&self, o: &Operand, want: usize, what: &str) -> D<Vec<Src>> {
        let srcs = match o {
            Operand::Vector(items) => items.iter().map(|i| self.src(i)).collect::<D<Vec<_>>>()?,
            o => vec![self.src(o)?],
        };
        if srcs.len() != want {
            return Err(
                format!("{what}: {} registers where {want} are expected", srcs.len()).into(),
            );
        }
        Ok(srcs)
    }

    pub(super) fn tensor(&self, inst: &Instruction) -> D<Op> {
        let t = match inst.opcode {
            Opcode::Mma => self.mma(inst)?,
            Opcode::Wmma => self.wmma(inst)?,
            _ => self.matrix8x8(inst)?,
        };
        Ok(Op::Tensor(Box::new(t)))
    }

    /// `mma.sync.aligned`, of the PTX ISA's table of shapes and types
    /// ("Warp-level matrix multiply-accumulate instructions: mma"), runs:
    ///
    /// | shape | layout | d / c | a / b |
    /// | --- | --- | --- | --- |
    /// | m16n8k8, m16n8k16 | row.col | f16 or f32 (each) | f16 |
    /// | m16n8k8, m16n8k16 | row.col | f32 | bf16 |
    /// | m16n8k8 | row.col | f32 | tf32 |
    /// | m8n8k16, m16n8k16, m16n8k32 | row.col {.satfinite} | s32 | u8 / s8 (each) |
    ///
    /// The rest of the table decodes to an `Unsupported` op that faults with
    /// its reason when reached, never a wrong answer: m8n8k4 (f16, any
    /// layouts), m16n8k4 tf32, f64 (m8n8k4 .. m16n8k16), e4m3 /
    /// e5m2 (m16n8k16, m16n8k32; sm_89), u4 / s4 (m8n8k32, m16n8k32,
    /// m16n8k64), b1 (m8n8k128, m16n8k128, m16n8k256), block-scaled kinds.
    fn mma(&self, inst: &Instruction) -> D<TensorOp> {
        let m = &inst.mods;
        if m.layout_a != Some(Layout::Row) || m.layout_b != Some(Layout::Col) {
            return Err("mma layouts other than .row.col".into());
        }
        let ty = |i: usize| inst.types.get(i).copied().ok_or("mma type");
        let (td, ta, tb, tc) = (ty(0)?, ty(1)?, ty(2)?, ty(3)?);
        if matches!(ta, Type::U8 | Type::S8) || matches!(tb, Type::U8 | Type::S8) {
            return self.mma_int(inst, [td, ta, tb, tc]);
        }
        if m.satfinite {
            // ISA "mma": .satfinite is on the integer forms only.
            return Err("mma .satfinite on a floating-point form (integer forms only)".into());
        }
        let shape = match m.shape {
            Some(Shape { m: 16, n: 8, k: 16 }) => MmaShape::M16n8k16,
            Some(Shape { m: 16, n: 8, k: 8 }) => MmaShape::M16n8k8,
            other => return Err(not_emulated(other, ta, tb).into()),
        };
        let ab = match (ta, tb) {
            (Type::F16, Type::F16) => MmaIn::F16,
            (Type::Bf16, Type::Bf16) => MmaIn::Bf16,
            (Type::Tf32, Type::Tf32) if shape == MmaShape::M16n8k8 => MmaIn::Tf32,
            _ => return Err(format!("mma.{}.{} {MMA_RUNS}", ta.name(), tb.name()).into()),
        };
        let acc = |t: Type| -> D<bool> {
            match t {
                Type::F32 => Ok(true),
                Type::F16 if ab == MmaIn::F16 => Ok(false),
                other => Err(format!("mma accumulator type {other:?}").into()),
            }
        };
        let (d_f32, c_f32) = (acc(td)?, acc(tc)?);
        // Registers of A and B: two 16-bit elements each (f16, bf16), or
        // one tf32 each (A 16 x 8: four; B 8 x 8: two).
        let k_regs = match (shape, ab) {
            (_, MmaIn::Tf32) => 2,
            (MmaShape::M16n8k16, _) => 2,
            (MmaShape::M16n8k8, _) => 1,
        };
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        let acc_regs = |f32: bool| if f32 { 4 } else { 2 };
        Ok(TensorOp::Mma {
            shape,
            ab,
            d_f32,
            c_f32,
            d: self.reg_vec(get(0)?, acc_regs(d_f32), "mma d")?,
            a: self.src_vec(get(1)?, 2 * k_regs, "mma a")?,
            b: self.src_vec(get(2)?, k_regs, "mma b")?,
            c: self.src_vec(get(3)?, acc_regs(c_f32), "mma c")?,
        })
    }

    /// Integer `mma` with 8-bit multiplicands: m8n8k16, m16n8k16, m16n8k32.
    fn mma_int(&self, inst: &Instruction, [td, ta, tb, tc]: [Type; 4]) -> D<TensorOp> {
        let (m, k) = match inst.mods.shape {
            Some(Shape { m: 8, n: 8, k: 16 }) => (8u8, 16u8),
            Some(Shape { m: 16, n: 8, k: 16 }) => (16, 16),
            Some(Shape { m: 16, n: 8, k: 32 }) => (16, 32),
            other => return Err(not_emulated(other, ta, tb).into()),
        };
        let signed = |t: Type| -> D<bool> {
            match t {
                Type::S8 => Ok(true),
                Type::U8 => Ok(false),
                _ => Err(format!("mma.{}.{} {MMA_RUNS}", ta.name(), tb.name()).into()),
            }
        };
        let (a_signed, b_signed) = (signed(ta)?, signed(tb)?);
        if td != Type::S32 || tc != Type::S32 {
            return Err("integer mma needs .s32 d and c".into());
        }
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        // Registers per fragment: four 8-bit elements per .b32 of A and B,
        // one .s32 per element of C and D (ISA "Matrix fragments for mma").
        let (mk, kn, mn) = (m as usize * k as usize, k as usize * 8, m as usize * 8);
        Ok(TensorOp::MmaInt {
            m,
            k,
            a_signed,
            b_signed,
            satfinite: inst.mods.satfinite,
            d: self.reg_vec(get(0)?, mn / 32, "mma d")?,
            a: self.src_vec(get(1)?, mk / 128, "mma a")?,
            b: self.src_vec(get(2)?, kn / 128, "mma b")?,
            c: self.src_vec(get(3)?, mn / 32, "mma c")?,
        })
    }

    fn wmma(&self, inst: &Instruction) -> D<TensorOp> {
        let m = &inst.mods;
        // m16n16k8 is the tf32 shape: its accumulator is m16n16k16's.
        let k8 = m.shape == Some(M16N16K8);
        if m.shape != Some(M16N16K16) && !k8 {
            return Err(format!(
                "wmma shape {:?} (m16n16k16, and m16n16k8 tf32, run)",
                m.shape
            )
            .into());
        }
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        let ty = inst.ty().ok_or("wmma type")?;
        let row = |l: Option<Layout>| l != Some(Layout::Col);
        let space = || mem_space(m.space.or(Some(StateSpace::Generic)));
        let stride = |i: usize| inst.operands.get(i).map(|o| self.src(o)).transpose();
        match m.wmma_op {
            Some(WmmaOp::Load) => {
                let (frag, f32, n) = match (m.fragment, ty) {
                    (Some(Fragment::A), Type::F16) if !k8 => (WmmaFrag::A, false, 8),
                    (Some(Fragment::B), Type::F16) if !k8 => (WmmaFrag::B, false, 8),
                    (Some(Fragment::A), Type::Tf32) if k8 => (WmmaFrag::ATf32, true, 4),
                    (Some(Fragment::B), Type::Tf32) if k8 => (WmmaFrag::BTf32, true, 4),
                    (Some(Fragment::C), Type::F16) => (WmmaFrag::Acc, false, 4),
                    (Some(Fragment::C), Type::F32) => (WmmaFrag::Acc, true, 8),
                    other => return Err(format!("wmma.load of {other:?}").into()),
                };
                let (addr, space) = self.addr(get(1)?, space()?)?;
                Ok(TensorOp::WmmaLoad {
                    frag,
                    row: row(m.layout_a),
                    f32,
                    space,
                    d: self.reg_vec(get(0)?, n, "wmma.load")?,
                    addr,
                    stride: stride(2)?,
                })
            }
            Some(WmmaOp::Store) => {
                let (f32, n) = match ty {
                    Type::F16 => (false, 4),
                    Type::F32 => (true, 8),
                    other => return Err(format!("wmma.store of {other:?}").into()),
                };
                let (addr, space) = self.addr(get(0)?, space()?)?;
                Ok(TensorOp::WmmaStore {
                    row: row(m.layout_a),
                    f32,
                    space,
                    src: self.src_vec(get(1)?, n, "wmma.store")?,
                    addr,
                    stride: stride(2)?,
                })
            }
            Some(WmmaOp::Mma) => {
                // ISA "wmma.mma": .satfinite is on the integer forms only,
                // and only f16 multiplicands run here.
                if m.satfinite {
                    return Err(
                        "wmma.mma .satfinite on a floating-point form (integer forms only)".into(),
                    );
                }
                let acc = |i: usize| -> D<bool> {
                    match inst.types.get(i) {
                        Some(Type::F32) => Ok(true),
                        Some(Type::F16) => Ok(false),
                        other => Err(format!("wmma.mma accumulator {other:?}").into()),
                    }
                };
                let (d_f32, c_f32) = (acc(0)?, acc(inst.types.len().saturating_sub(1))?);
                // The multiplicands' types sit between the accumulators':
                // .dtype.atype.btype.ctype.
                let ab = (inst.types.len() == 4).then(|| (inst.types[1], inst.types[2]));
                let tf32 = match (k8, ab) {
                    (true, Some((Type::Tf32, Type::Tf32))) => true,
                    (false, None | Some((Type::F16, Type::F16))) => false,
                    (_, ab) => {
                        return Err(
                            format!("wmma.mma {:?} with multiplicands {ab:?}", m.shape).into()
                        );
                    }
                };
                if tf32 && !d_f32 {
                    return Err("wmma.mma tf32 with an f16 accumulator".into());
                }
                let n = |f32: bool| if f32 { 8 } else { 4 };
                let ab_regs = if tf32 { 4 } else { 8 };
                Ok(TensorOp::WmmaMma {
                    a_row: row(m.layout_a),
                    b_row: row(m.layout_b),
                    tf32,
                    d_f32,
                    c_f32,
                    d: self.reg_vec(get(0)?, n(d_f32), "wmma.mma d")?,
                    a: self.src_vec(get(1)?, ab_regs, "wmma.mma a")?,
                    b: self.src_vec(get(2)?, ab_regs, "wmma.mma b")?,
                    c: self.src_vec(get(3)?, n(c_f32), "wmma.mma c")?,
                })
            }
            None => Err("wmma without an operation".into()),
        }
    }

    fn matrix8x8(&self, inst: &Instruction) -> D<TensorOp> {
        let m = &inst.mods;
        if m.shape.is_some_and(|s| s.m != 8 || s.n != 8) {
            return Err(format!("{} shape {:?} (m8n8 runs)", inst.opcode.name(), m.shape).into());
        }
        if inst.ty().is_some_and(|t| t.bits() != 16) {
            return Err(format!("{} of {:?} (b16 runs)", inst.opcode.name(), inst.ty()).into());
        }
        let n = m.num.unwrap_or(1) as usize;
        // ISA "ldmatrix" / "stmatrix": without `.shared` the address is
        // generic (and must point into shared memory).
        let space = mem_space(m.space.or(Some(StateSpace::Generic)))?;
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        let store = inst.opcode == Opcode::Stmatrix;
        let (regs_at, addr_at) = if store { (1, 0) } else { (0, 1) };
        let regs = if store {
            self.src_vec(get(regs_at)?, n, "stmatrix")?
        } else {
            self.reg_vec(get(regs_at)?, n, "ldmatrix")?
                .into_iter()
                .map(Src::Reg)
                .collect()
        };
        let (addr, space) = self.addr(get(addr_at)?, space)?;
        Ok(TensorOp::Matrix8x8 {
            store,
            trans: m.trans,
            space,
            regs,
            addr,
        })
    }
}
