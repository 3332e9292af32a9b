//! Warp-collective instructions: `shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync`. They read other lanes' registers, so they run over the
//! instruction's executing lanes as a whole.

use ptx::{AtomOp, MatchMode, ShflMode, VoteMode};

use super::execute::ExecResult;
use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::mask_of;
use crate::exec::ops::*;
use crate::fault::FaultKind;
use crate::simt::{Mask, WARP_SIZE, lanes};

impl Warp {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shuffle(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        exec: Mask,
        mode: &ShflMode,
        d: &R,
        dp: &Option<P>,
        a: &Src,
        b: &Src,
        c: &Src,
    ) -> ExecResult {
        let (x, bv, cv) = (
            self.fetch(lx, cta, *a),
            self.fetch(lx, cta, *b),
            self.fetch(lx, cta, *c),
        );
        let mut out = [0u64; WARP_SIZE];
        let mut valid: Mask = 0;
        for l in lanes(exec) {
            // c packs the clamp value (bits 0-4) and the segment mask (bits 8-12).
            let clamp = (cv[l] & 0x1f) as usize;
            let seg = ((cv[l] >> 8) & 0x1f) as usize;
            let bl = (bv[l] & 0x1f) as usize;
            let max_lane = (l & seg) | (clamp & !seg);
            let min_lane = l & seg;
            let (src, ok) = match mode {
                ShflMode::Up => (l.wrapping_sub(bl), l >= bl && l - bl >= min_lane),
                ShflMode::Down => (l + bl, l + bl <= max_lane),
                ShflMode::Bfly => (l ^ bl, (l ^ bl) <= max_lane),
                ShflMode::Idx => ((bl & !seg) | min_lane, ((bl & !seg) | min_lane) <= max_lane),
            };
            let src = if ok && src < WARP_SIZE && (exec >> src) & 1 != 0 {
                src
            } else {
                l
            };
            out[l] = x[src] & 0xffff_ffff;
            valid |= (ok as u32) << l;
        }
        self.write(*d, &out, exec);
        if let Some(p) = dp {
            self.set_pred(*p, valid, exec);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn vote(
        &mut self,
        exec: Mask,
        mode: &VoteMode,
        d: &VoteDst,
        a: &PSrc,
    ) -> ExecResult {
        let p = self.pred(*a) & exec;
        match (mode, d) {
            (VoteMode::Ballot, VoteDst::Reg(r)) => self.write(*r, &[p as u64; WARP_SIZE], exec),
            (VoteMode::All, VoteDst::Pred(q)) => {
                self.set_pred(*q, if p == exec { Mask::MAX } else { 0 }, exec)
            }
            (VoteMode::Any, VoteDst::Pred(q)) => {
                self.set_pred(*q, if p != 0 { Mask::MAX } else { 0 }, exec)
            }
            (VoteMode::Uni, VoteDst::Pred(q)) => {
                self.set_pred(*q, if p == 0 || p == exec { Mask::MAX } else { 0 }, exec)
            }
            _ => {
                return Err((
                    FaultKind::Unsupported(format!("vote.{} with this destination", mode.name())),
                    None,
                ));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn match_sync(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        exec: Mask,
        mode: &MatchMode,
        bits: &u8,
        d: &R,
        dp: &Option<P>,
        a: &Src,
    ) -> ExecResult {
        let x = self.fetch(lx, cta, *a);
        let m = mask_of(*bits as u32);
        let mut out = [0u64; WARP_SIZE];
        let mut pv: Mask = 0;
        for l in lanes(exec) {
            let same: Mask = lanes(exec)
                .filter(|&k| x[k] & m == x[l] & m)
                .fold(0, |acc, k| acc | 1 << k);
            match mode {
                MatchMode::Any => out[l] = same as u64,
                MatchMode::All => {
                    let all = same == exec;
                    out[l] = if all { exec as u64 } else { 0 };
                    pv |= (all as u32) << l;
                }
            }
        }
        self.write(*d, &out, exec);
        if let Some(p) = dp {
            self.set_pred(*p, pv, exec);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn redux(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        exec: Mask,
        op: &AtomOp,
        signed: &bool,
        d: &R,
        a: &Src,
    ) -> ExecResult {
        let x = self.fetch(lx, cta, *a);
        let vals = lanes(exec).map(|l| x[l] & 0xffff_ffff);
        let r = match op {
            AtomOp::Add => vals.fold(0u64, |s, v| s.wrapping_add(v)) & 0xffff_ffff,
            AtomOp::And => vals.fold(0xffff_ffff, |s, v| s & v),
            AtomOp::Or => vals.fold(0, |s, v| s | v),
            AtomOp::Xor => vals.fold(0, |s, v| s ^ v),
            AtomOp::Min if *signed => {
                vals.map(|v| v as u32 as i32).min().unwrap_or(0) as u32 as u64
            }
            AtomOp::Max if *signed => {
                vals.map(|v| v as u32 as i32).max().unwrap_or(0) as u32 as u64
            }
            AtomOp::Min => vals.min().unwrap_or(0),
            AtomOp::Max => vals.max().unwrap_or(0),
            other => {
                return Err((
                    FaultKind::Unsupported(format!("redux.{}", other.name())),
                    None,
                ));
            }
        };
        self.write(*d, &[r; WARP_SIZE], exec);
        Ok(())
    }
}
