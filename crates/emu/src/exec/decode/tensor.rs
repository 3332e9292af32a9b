//! Translation of the tensor-core and matrix-movement instructions (`mma`,
//! `wmma.*`, `ldmatrix`, `stmatrix`).

use ptx::{
    Fragment, Instruction, Layout, Opcode, Operand, Rounding, Shape, StateSpace, Type, WmmaOp,
};

use super::{Cx, D, mem_space};
use crate::exec::ops::*;

/// The end of every "not emulated" message of `mma` (see [`Cx::mma`]).
const MMA_RUNS: &str = "is not emulated (mma runs .f16 and .bf16 m16n8k8 / m16n8k16, \
                        .tf32 m16n8k4 / m16n8k8, .u8 and .s8 m8n8k16 / m16n8k16 / m16n8k32, \
                        .f64 m8n8k4)";

/// Why an `mma` shape and multiplicand types do not run.
fn not_emulated(s: Option<Shape>, ta: Type, tb: Type) -> String {
    let shape = s.map_or_else(
        || "(no shape)".into(),
        |s| format!("m{}n{}k{}", s.m, s.n, s.k),
    );
    format!("mma.{shape}.{}.{} {MMA_RUNS}", ta.name(), tb.name())
}

/// The `wmma` shapes and multiplicand types that run (PTX ISA "Warp-level
/// matrix multiply-accumulate instructions: wmma"), as refused otherwise.
const WMMA_RUNS: &str = "wmma runs .f16 and .bf16 m16n16k16 / m32n8k16 / m8n32k16, \
                         .u8 and .s8 m16n16k16 / m32n8k16 / m8n32k16, .tf32 m16n16k8 \
                         and .f64 m8n8k4";

/// The fragment element type of a PTX type.
fn wmma_elem(t: Type) -> Option<WmmaElem> {
    Some(match t {
        Type::F16 => WmmaElem::F16,
        Type::Bf16 => WmmaElem::Bf16,
        Type::Tf32 => WmmaElem::Tf32,
        Type::S8 => WmmaElem::S8,
        Type::U8 => WmmaElem::U8,
        Type::F32 => WmmaElem::F32,
        Type::S32 => WmmaElem::S32,
        Type::F64 => WmmaElem::F64,
        _ => return None,
    })
}

/// Whether multiplicands of `ab` run at `shape`, and the accumulator types
/// they take.
fn wmma_accumulators(shape: WmmaShape, ab: WmmaElem) -> Option<&'static [WmmaElem]> {
    let s = (shape.m, shape.n, shape.k);
    let k16 = matches!(s, (16, 16, 16) | (32, 8, 16) | (8, 32, 16));
    Some(match ab {
        WmmaElem::F16 if k16 => &[WmmaElem::F16, WmmaElem::F32],
        WmmaElem::Bf16 if k16 => &[WmmaElem::F32],
        WmmaElem::S8 | WmmaElem::U8 if k16 => &[WmmaElem::S32],
        WmmaElem::Tf32 if s == (16, 16, 8) => &[WmmaElem::F32],
        WmmaElem::F64 if s == (8, 8, 4) => &[WmmaElem::F64],
        _ => return None,
    })
}

/// Registers of a fragment (ISA "Matrix fragments for WMMA"): every lane
/// holds an equal share of the matrix, except f16 A and B, whose eight
/// `.f16x2` registers hold 16 elements per lane at any shape.
pub(crate) fn wmma_regs(shape: WmmaShape, frag: WmmaFrag, elem: WmmaElem) -> usize {
    let (r, c) = shape.dims(frag);
    let per_lane = match (frag, elem) {
        (WmmaFrag::A | WmmaFrag::B, WmmaElem::F16) => 16,
        _ => r * c / 32,
    };
    per_lane / elem.per_reg()
}

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

    /// The requests a wmma load or store of fragment `frag` of `elem` at
    /// `shape` makes ([`WmmaAccess`]): the SASS pattern where it was read
    /// (m16n16k16, m32n8k16 and m8n32k16; 16-bit tiles and 32-bit
    /// accumulators; a `.target` of sm_75 or later), else one request per
    /// register.
    fn wmma_access(
        &self,
        shape: WmmaShape,
        frag: WmmaFrag,
        elem: WmmaElem,
        row: bool,
    ) -> WmmaAccess {
        let turing_on = self.target_sm().is_some_and(|sm| sm >= 75);
        let read = matches!(
            (shape.m, shape.n, shape.k),
            (16, 16, 16) | (32, 8, 16) | (8, 32, 16)
        );
        if !turing_on || !read {
            return WmmaAccess::PerRegister;
        }
        let (r, c) = shape.dims(frag);
        let (rows, cols) = if row {
            (r as u8, c as u8)
        } else {
            (c as u8, r as u8)
        };
        // ptxas runs m8n32k16 as the transposed m32n8k16 problem.
        let transposed = shape.m == 8;
        match (elem.bits(), frag) {
            (16, _) => WmmaAccess::Pairs16 { rows, cols },
            (32, WmmaFrag::Acc) if row != transposed => WmmaAccess::Rows32 { rows, cols },
            (32, WmmaFrag::Acc) => WmmaAccess::Cols32 { rows, cols },
            _ => WmmaAccess::PerRegister,
        }
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
    /// | m16n8k4, m16n8k8 | row.col | f32 | tf32 |
    /// | m8n8k16, m16n8k16, m16n8k32 | row.col {.satfinite} | s32 | u8 / s8 (each) |
    /// | m8n8k4 | row.col {.rn} | f64 | f64 |
    ///
    /// The rest of the table decodes to an `Unsupported` op that faults with
    /// its reason when reached, never a wrong answer: m8n8k4 (f16, any
    /// layouts), f64 m16n8k4 .. m16n8k16 (sm_90), e4m3 /
    /// e5m2 (m16n8k16, m16n8k32; sm_89), u4 / s4 (m8n8k32, m16n8k32,
    /// m16n8k64), b1 (m8n8k128, m16n8k128, m16n8k256), block-scaled kinds.
    fn mma(&self, inst: &Instruction) -> D<TensorOp> {
        let m = &inst.mods;
        if m.layout_a != Some(Layout::Row) || m.layout_b != Some(Layout::Col) {
            return Err("mma layouts other than .row.col".into());
        }
        let ty = |i: usize| inst.types.get(i).copied().ok_or("mma type");
        let (td, ta, tb, tc) = (ty(0)?, ty(1)?, ty(2)?, ty(3)?);
        // ISA "mma": a rounding modifier belongs to the f64 forms only.
        if let Some(r) = m.rounding
            && ta != Type::F64
        {
            return Err(format!("mma .{} on a form other than f64", r.name()).into());
        }
        if matches!(ta, Type::U8 | Type::S8) || matches!(tb, Type::U8 | Type::S8) {
            return self.mma_int(inst, [td, ta, tb, tc]);
        }
        if ta == Type::F64 || tb == Type::F64 {
            return self.mma_f64(inst, [td, ta, tb, tc]);
        }
        if m.satfinite {
            // ISA "mma": .satfinite is on the integer forms only.
            return Err("mma .satfinite on a floating-point form (integer forms only)".into());
        }
        let shape = match m.shape {
            Some(Shape { m: 16, n: 8, k: 16 }) => MmaShape::M16n8k16,
            Some(Shape { m: 16, n: 8, k: 8 }) => MmaShape::M16n8k8,
            Some(Shape { m: 16, n: 8, k: 4 }) if ta == Type::Tf32 => MmaShape::M16n8k4,
            other => return Err(not_emulated(other, ta, tb).into()),
        };
        let ab = match (ta, tb) {
            (Type::F16, Type::F16) => MmaIn::F16,
            (Type::Bf16, Type::Bf16) => MmaIn::Bf16,
            (Type::Tf32, Type::Tf32) if shape != MmaShape::M16n8k16 => MmaIn::Tf32,
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
            (MmaShape::M16n8k4, _) => 1,
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

    /// `mma` with f64 multiplicands: m8n8k4 (`.rn`, the default), all four
    /// types f64; the larger f64 shapes of sm_90 are not emulated.
    fn mma_f64(&self, inst: &Instruction, [td, ta, tb, tc]: [Type; 4]) -> D<TensorOp> {
        if inst.mods.shape != Some(Shape { m: 8, n: 8, k: 4 }) {
            return Err(not_emulated(inst.mods.shape, ta, tb).into());
        }
        if [td, ta, tb, tc].iter().any(|t| *t != Type::F64) {
            return Err(format!(
                "mma.m8n8k4 with types .{}.{}.{}.{} (all four .f64 run)",
                td.name(),
                ta.name(),
                tb.name(),
                tc.name()
            )
            .into());
        }
        if let Some(r) = inst.mods.rounding.filter(|r| *r != Rounding::Rn) {
            return Err(
                format!("mma f64 rounding .{} is not emulated (.rn runs)", r.name()).into(),
            );
        }
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        Ok(TensorOp::MmaF64 {
            d: self.reg_vec(get(0)?, 2, "mma d")?,
            a: self.src_vec(get(1)?, 1, "mma a")?,
            b: self.src_vec(get(2)?, 1, "mma b")?,
            c: self.src_vec(get(3)?, 2, "mma c")?,
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
        let shape = match m.shape {
            Some(Shape { m, n, k }) => WmmaShape {
                m: m as u8,
                n: n as u8,
                k: k as u8,
            },
            None => return Err("wmma without a shape".into()),
        };
        let get = |i: usize| {
            inst.operands
                .get(i)
                .ok_or_else(|| format!("missing operand {i}"))
        };
        let elem_of = |t: Option<&Type>| -> D<WmmaElem> {
            t.copied()
                .and_then(wmma_elem)
                .ok_or_else(|| format!("wmma of {t:?} ({WMMA_RUNS})").into())
        };
        let row = |l: Option<Layout>| l != Some(Layout::Col);
        let space = || mem_space(m.space.or(Some(StateSpace::Generic)));
        let stride = |i: usize| inst.operands.get(i).map(|o| self.src(o)).transpose();
        let shape_name = format!("m{}n{}k{}", shape.m, shape.n, shape.k);
        // Every multiplicand type that runs at this shape, and their
        // accumulators: what a load or store of a fragment may be.
        let fits = |frag: WmmaFrag, elem: WmmaElem| {
            let abs = [
                WmmaElem::F16,
                WmmaElem::Bf16,
                WmmaElem::Tf32,
                WmmaElem::S8,
                WmmaElem::U8,
                WmmaElem::F64,
            ];
            abs.into_iter().any(|ab| {
                wmma_accumulators(shape, ab).is_some_and(|accs| match frag {
                    WmmaFrag::Acc => accs.contains(&elem),
                    _ => ab == elem,
                })
            })
        };
        if m.rounding.is_some() && m.wmma_op != Some(WmmaOp::Mma) {
            return Err("a rounding modifier on a wmma load or store".into());
        }
        match m.wmma_op {
            Some(WmmaOp::Load) => {
                let frag = match m.fragment {
                    Some(Fragment::A) => WmmaFrag::A,
                    Some(Fragment::B) => WmmaFrag::B,
                    Some(Fragment::C) => WmmaFrag::Acc,
                    Some(Fragment::D) | None => {
                        return Err("wmma.load needs .a, .b or .c".into());
                    }
                };
                let elem = elem_of(inst.ty().as_ref())?;
                if !fits(frag, elem) {
                    return Err(format!(
                        "wmma.load.{} of {elem:?} at {shape_name} ({WMMA_RUNS})",
                        frag_name(frag)
                    )
                    .into());
                }
                let (addr, space) = self.addr(get(1)?, space()?)?;
                Ok(TensorOp::WmmaLoad {
                    frag,
                    shape,
                    elem,
                    row: row(m.layout_a),
                    space,
                    access: self.wmma_access(shape, frag, elem, row(m.layout_a)),
                    d: self.reg_vec(get(0)?, wmma_regs(shape, frag, elem), "wmma.load")?,
                    addr,
                    stride: stride(2)?,
                })
            }
            Some(WmmaOp::Store) => {
                let elem = elem_of(inst.ty().as_ref())?;
                if !fits(WmmaFrag::Acc, elem) {
                    return Err(
                        format!("wmma.store.d of {elem:?} at {shape_name} ({WMMA_RUNS})").into(),
                    );
                }
                let (addr, space) = self.addr(get(0)?, space()?)?;
                Ok(TensorOp::WmmaStore {
                    shape,
                    elem,
                    row: row(m.layout_a),
                    space,
                    access: self.wmma_access(shape, WmmaFrag::Acc, elem, row(m.layout_a)),
                    src: self.src_vec(
                        get(1)?,
                        wmma_regs(shape, WmmaFrag::Acc, elem),
                        "wmma.store",
                    )?,
                    addr,
                    stride: stride(2)?,
                })
            }
            Some(WmmaOp::Mma) => {
                // The types are .dtype.ctype (f16 multiplicands) or
                // .dtype.atype.btype.ctype.
                let (d_elem, ab, c_elem) = match inst.types.as_slice() {
                    [d, c] => (elem_of(Some(d))?, WmmaElem::F16, elem_of(Some(c))?),
                    [d, a, b, c] if a == b => {
                        (elem_of(Some(d))?, elem_of(Some(a))?, elem_of(Some(c))?)
                    }
                    [d, a, b, c]
                        if matches!((a, b), (Type::S8 | Type::U8, Type::S8 | Type::U8)) =>
                    {
                        return Err(format!(
                            "wmma.mma.{}.{}.{}.{}: mixed signedness of the multiplicands is not emulated",
                            d.name(),
                            a.name(),
                            b.name(),
                            c.name()
                        )
                        .into());
                    }
                    other => return Err(format!("wmma.mma types {other:?}").into()),
                };
                let accs = wmma_accumulators(shape, ab).ok_or_else(|| {
                    format!("wmma.mma {shape_name} with {ab:?} multiplicands ({WMMA_RUNS})")
                })?;
                if !accs.contains(&d_elem) || !accs.contains(&c_elem) {
                    return Err(format!(
                        "wmma.mma {shape_name} {ab:?} with accumulators {d_elem:?} and {c_elem:?}"
                    )
                    .into());
                }
                let integer = matches!(ab, WmmaElem::S8 | WmmaElem::U8);
                // ISA "wmma.mma": .satfinite is on the integer forms only;
                // a rounding modifier on the f64 form only (.rn runs).
                if m.satfinite && !integer {
                    return Err(
                        "wmma.mma .satfinite on a floating-point form (integer forms only)".into(),
                    );
                }
                match (m.rounding, ab) {
                    (None, _) | (Some(Rounding::Rn), WmmaElem::F64) => {}
                    (Some(r), WmmaElem::F64) => {
                        return Err(format!(
                            "wmma.mma f64 rounding .{} is not emulated (.rn runs)",
                            r.name()
                        )
                        .into());
                    }
                    (Some(r), _) => {
                        return Err(
                            format!("wmma.mma .{} on a form other than f64", r.name()).into()
                        );
                    }
                }
                Ok(TensorOp::WmmaMma {
                    shape,
                    ab,
                    d_elem,
                    c_elem,
                    satfinite: m.satfinite,
                    d: self.reg_vec(
                        get(0)?,
                        wmma_regs(shape, WmmaFrag::Acc, d_elem),
                        "wmma.mma d",
                    )?,
                    a: self.src_vec(get(1)?, wmma_regs(shape, WmmaFrag::A, ab), "wmma.mma a")?,
                    b: self.src_vec(get(2)?, wmma_regs(shape, WmmaFrag::B, ab), "wmma.mma b")?,
                    c: self.src_vec(
                        get(3)?,
                        wmma_regs(shape, WmmaFrag::Acc, c_elem),
                        "wmma.mma c",
                    )?,
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

fn frag_name(f: WmmaFrag) -> &'static str {
    match f {
        WmmaFrag::A => "a",
        WmmaFrag::B => "b",
        WmmaFrag::Acc => "c",
    }
}
