//! Translation of the video instructions: the SIMD ones (`vadd2` ...
//! `vset4`, with lane selectors and mask) and the scalar ones (`vadd` ...
//! `vmad`, with operand selectors).

use ptx::{Instruction, Opcode, SimdSel};

use super::{Cx, D};
use crate::exec::ops::*;

impl Cx<'_> {
    pub(super) fn video(&self, inst: &Instruction) -> D<Op> {
        use Opcode as O;
        let (op, four) = match inst.opcode {
            O::Vadd2 => (VideoOp::Add, false),
            O::Vsub2 => (VideoOp::Sub, false),
            O::Vavrg2 => (VideoOp::Avrg, false),
            O::Vabsdiff2 => (VideoOp::Absdiff, false),
            O::Vmin2 => (VideoOp::Min, false),
            O::Vmax2 => (VideoOp::Max, false),
            O::Vadd4 => (VideoOp::Add, true),
            O::Vsub4 => (VideoOp::Sub, true),
            O::Vavrg4 => (VideoOp::Avrg, true),
            O::Vabsdiff4 => (VideoOp::Absdiff, true),
            O::Vmin4 => (VideoOp::Min, true),
            O::Vmax4 => (VideoOp::Max, true),
            O::Vset2 => (
                VideoOp::Set(inst.mods.cmp.ok_or("vset2 comparison")?),
                false,
            ),
            O::Vset4 => (VideoOp::Set(inst.mods.cmp.ok_or("vset4 comparison")?), true),
            other => return Err(format!("`{}` is not a video instruction", other.name()).into()),
        };
        // vset2 / vset4 name only atype.btype: their result is unsigned.
        let set = matches!(op, VideoOp::Set(_));
        let signed = |i: usize| {
            let i = if set { i.checked_sub(1) } else { Some(i) };
            i.and_then(|i| inst.types.get(i))
                .is_some_and(|t| t.is_signed())
        };
        let ops = &inst.operands;
        let get = |i: usize| ops.get(i).ok_or_else(|| format!("missing operand {i}"));
        let [dsel, asel, bsel] = inst.mods.simd_sel;
        let (n, elems) = if four { (4, 8) } else { (2, 4) };
        // Defaults: a's lanes, b's lanes, every lane written.
        let default: [u8; 4] = std::array::from_fn(|i| i as u8);
        let lanes = |sel: Option<SimdSel>, base: u8| -> D<[u8; 4]> {
            let Some(s) = sel else {
                return Ok(default.map(|i| i + base));
            };
            if s.half == four || s.lanes().len() != n || s.lanes().iter().any(|&e| e >= elems) {
                return Err(format!("selector .{s} for a {n}-lane video instruction").into());
            }
            // Written most significant lane first.
            Ok(std::array::from_fn(|i| {
                s.lanes().get(n.wrapping_sub(1 + i)).copied().unwrap_or(0)
            }))
        };
        let mask = match dsel {
            None => (1u8 << n) - 1,
            Some(s) if s.half != four && s.lanes().iter().all(|&l| (l as usize) < n) => {
                s.lanes().iter().fold(0, |m, &l| m | 1 << l)
            }
            Some(s) => return Err(format!("mask .{s} for a {n}-lane video instruction").into()),
        };
        Ok(Op::Video {
            f: VideoForm {
                op,
                four,
                d_signed: signed(0),
                a_signed: signed(1),
                b_signed: signed(2),
                sat: inst.mods.sat,
                add: inst.mods.video_add,
                asel: lanes(asel, 0)?,
                bsel: lanes(bsel, n as u8)?,
                mask,
            },
            d: self.dreg(get(0)?)?,
            a: self.src(get(1)?)?,
            b: self.src(get(2)?)?,
            c: self.src(get(3)?)?,
        })
    }

    pub(super) fn scalar_video(&self, inst: &Instruction) -> D<Op> {
        use Opcode as O;
        let m = &inst.mods;
        let op = match inst.opcode {
            O::Vadd => ScalarVideoOp::Add,
            O::Vsub => ScalarVideoOp::Sub,
            O::Vabsdiff => ScalarVideoOp::Absdiff,
            O::Vmin => ScalarVideoOp::Min,
            O::Vmax => ScalarVideoOp::Max,
            O::Vshl => ScalarVideoOp::Shl,
            O::Vshr => ScalarVideoOp::Shr,
            O::Vset => ScalarVideoOp::Set(m.cmp.ok_or("vset comparison")?),
            O::Vmad => ScalarVideoOp::Mad {
                po: m.video_po,
                shift: match m.video_scale {
                    None => 0,
                    Some(ptx::VideoScale::Shr7) => 7,
                    Some(ptx::VideoScale::Shr15) => 15,
                },
                neg: m.video_neg,
            },
            other => {
                return Err(format!("`{}` is not a scalar video instruction", other.name()).into());
            }
        };
        // vset names only atype.btype; its result is unsigned.
        let tys = if inst.opcode == O::Vset {
            [None, inst.types.first(), inst.types.get(1)]
        } else {
            [inst.types.first(), inst.types.get(1), inst.types.get(2)]
        };
        let signed = |i: usize| tys[i].is_some_and(|t| t.is_signed());
        let ops = &inst.operands;
        let get = |i: usize| ops.get(i).ok_or_else(|| format!("missing operand {i}"));
        Ok(Op::ScalarVideo {
            f: ScalarVideo {
                op,
                d_signed: signed(0),
                a_signed: signed(1),
                b_signed: signed(2),
                sat: m.sat,
                clamp: m.shf_mode == Some(ptx::ShfMode::Clamp),
                op2: m.video_op2,
                sel: m.video_sel,
            },
            d: self.dreg(get(0)?)?,
            a: self.src(get(1)?)?,
            b: self.src(get(2)?)?,
            c: ops.get(3).map_or(Ok(Src::Imm(0)), |o| self.src(o))?,
        })
    }
}
