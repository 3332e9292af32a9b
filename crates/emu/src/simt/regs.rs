//! Structure-of-arrays registers of a warp: each PTX register is 32 lanes
//! side by side, so one warp-wide operation is a tight loop the compiler can
//! vectorise. 8-, 16- and 32-bit registers live in `b32` (zero-extended),
//! 64-bit ones in `b64`, predicates as one mask each.

use super::{Mask, WARP_SIZE};

/// A 32-bit register of every lane.
pub type Lanes32 = [u32; WARP_SIZE];
/// A 64-bit register of every lane.
pub type Lanes64 = [u64; WARP_SIZE];

#[derive(Debug, Clone)]
pub struct RegFile {
    pub b32: Vec<Lanes32>,
    pub b64: Vec<Lanes64>,
    pub pred: Vec<Mask>,
}

impl RegFile {
    /// Registers start at zero (PTX leaves them undefined; zero is deterministic).
    pub fn new(n32: usize, n64: usize, npred: usize) -> Self {
        Self {
            b32: vec![[0; WARP_SIZE]; n32],
            b64: vec![[0; WARP_SIZE]; n64],
            pred: vec![0; npred],
        }
    }

    /// Write `value` to the lanes of `mask` only: inactive lanes keep their
    /// value, written without branches so the loop vectorises.
    #[inline]
    pub fn blend32(dst: &mut Lanes32, value: &Lanes32, mask: Mask) {
        for (l, (d, v)) in dst.iter_mut().zip(value).enumerate() {
            let on = (mask >> l) & 1 != 0;
            *d = if on { *v } else { *d };
        }
    }

    #[inline]
    pub fn blend64(dst: &mut Lanes64, value: &Lanes64, mask: Mask) {
        for (l, (d, v)) in dst.iter_mut().zip(value).enumerate() {
            let on = (mask >> l) & 1 != 0;
            *d = if on { *v } else { *d };
        }
    }

    /// Set predicate `p` to `value` in the lanes of `mask`.
    #[inline]
    pub fn set_pred(&mut self, p: usize, value: Mask, mask: Mask) {
        if let Some(r) = self.pred.get_mut(p) {
            *r = (*r & !mask) | (value & mask);
        }
    }
}
