//! `mbarrier.*`: the asynchronous barriers of sm_80 and later (what
//! `cuda::barrier` and `cuda::pipeline` compile to), one 8-byte object in
//! shared memory per barrier.
//!
//! The object is opaque to PTX (only mbarrier instructions may touch it), so
//! the emulator chooses its encoding: bits 0..32 the arrivals still pending
//! in the current phase, bits 32..63 the arrivals each phase expects, bit 63
//! the current phase's parity. `mbarrier.arrive` returns the object as it
//! was before the arrival: its bit 63 is the phase the token belongs to.
//!
//! Each active thread arrives on its own, in lane order (one deterministic
//! serialisation, as for atomics). When the pending count reaches zero the
//! phase completes: the parity flips and the pending count is reset to the
//! expected count (lowered by `arrive_drop`). A wait (`test_wait` or
//! `try_wait`) answers whether the phase of its token, or of the parity it is
//! given, has completed; a thread waits by looping on it, so when a lane
//! finds its phase incomplete the warp ends its time slice and the other
//! warps of the CTA run (they are the ones that will arrive). The
//! transaction count of `expect_tx`/`complete_tx` is not kept: the bulk
//! copies (TMA) that would complete it are not emulated.

use super::execute::{ExecResult, mem_err};
use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::L;
use crate::exec::ops::{Addr, MemSpace, Src, VoteDst};
use crate::simt::{Mask, WARP_SIZE, lanes};
use ptx::MbarrierOp;

const PENDING: u64 = 0xffff_ffff;
const EXPECTED_SHIFT: u32 = 32;
const EXPECTED: u64 = 0x7fff_ffff;
const PHASE: u64 = 1 << 63;

/// A fresh object expecting `count` arrivals per phase, in phase 0.
fn init(count: u64) -> u64 {
    let c = count & EXPECTED;
    (c << EXPECTED_SHIFT) | c
}

/// `count` arrivals on `state` (`drop`: each also leaves the barrier, lowering
/// the expected count); the new state.
fn arrive(state: u64, count: u64, drop: bool) -> u64 {
    let mut expected = (state >> EXPECTED_SHIFT) & EXPECTED;
    let pending = state & PENDING;
    if drop {
        expected = expected.saturating_sub(count);
    }
    let left = pending.saturating_sub(count);
    let phase = state & PHASE;
    if left == 0 {
        (phase ^ PHASE) | (expected << EXPECTED_SHIFT) | expected
    } else {
        phase | (expected << EXPECTED_SHIFT) | left
    }
}

/// The pending arrivals each lane's state token holds (`mbarrier.pending_count`).
pub(super) fn pending(tokens: &L) -> L {
    tokens.map(|t| t & PENDING)
}

/// Whether the phase a wait names has completed: the token's phase (or the
/// `parity` given) differs from the object's current phase.
fn completed(state: u64, operand: u64, parity: bool) -> bool {
    let current = state >> 63;
    let waited = if parity { operand & 1 } else { operand >> 63 };
    current != waited
}

impl Warp {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mbarrier(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        exec: Mask,
        op: MbarrierOp,
        space: MemSpace,
        addr: &Addr,
        d: Option<VoteDst>,
        b: Option<Src>,
        parity: bool,
    ) -> ExecResult {
        let bv: L = match b {
            Some(b) => self.fetch(lx, cta, b),
            None => [1; WARP_SIZE],
        };
        let addrs = self.addrs(lx, cta, addr);
        let mut out = [0u64; WARP_SIZE];
        let mut waiting = false;
        for l in lanes(exec) {
            let mut buf = [0u8; 8];
            self.load_lane(lx, cta, space, l, addrs[l], &mut buf, 8)
                .map_err(mem_err(l))?;
            let state = u64::from_le_bytes(buf);
            let new = match op {
                MbarrierOp::Init => Some(init(bv[l])),
                MbarrierOp::Inval => Some(0),
                MbarrierOp::Arrive | MbarrierOp::ArriveDrop => {
                    out[l] = state;
                    Some(arrive(state, bv[l], op == MbarrierOp::ArriveDrop))
                }
                MbarrierOp::TestWait | MbarrierOp::TryWait => {
                    let done = completed(state, bv[l], parity);
                    waiting |= !done;
                    out[l] = u64::from(done);
                    None
                }
                // pending_count is its own op (no address): never here.
                MbarrierOp::ExpectTx | MbarrierOp::CompleteTx | MbarrierOp::PendingCount => None,
            };
            if let Some(new) = new {
                self.store_lane(lx, cta, space, l, addrs[l], &new.to_le_bytes(), 8)
                    .map_err(mem_err(l))?;
            }
        }
        if let Some(d) = d {
            self.deliver(d, &out, exec);
        }
        if waiting {
            self.yield_slice = true;
        }
        Ok(())
    }

    /// Write a per-lane result to a value register or a predicate.
    fn deliver(&mut self, d: VoteDst, v: &L, exec: Mask) {
        match d {
            VoteDst::Reg(r) => self.write(r, v, exec),
            VoteDst::Pred(p) => {
                let mut bits: Mask = 0;
                for l in lanes(exec) {
                    if v[l] != 0 {
                        bits |= 1 << l;
                    }
                }
                self.set_pred(p, bits, exec);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_on_the_last_arrival_and_flips_the_parity() {
        let mut s = init(3);
        assert_eq!(s & PENDING, 3);
        let token = s;
        s = arrive(s, 1, false);
        s = arrive(s, 1, false);
        assert!(!completed(s, token, false), "two of three arrived");
        assert!(!completed(s, 0, true), "phase 0 still running");
        s = arrive(s, 1, false);
        assert!(completed(s, token, false));
        assert!(completed(s, 0, true));
        assert!(!completed(s, 1, true), "phase 1 has just begun");
        assert_eq!(s & PENDING, 3, "pending reset to the expected count");
        assert_eq!(s >> 63, 1);
    }

    #[test]
    fn arrive_counts_and_drops() {
        let s = arrive(init(8), 5, false);
        assert_eq!(s & PENDING, 3);
        // Dropping lowers what the next phases expect.
        let s = arrive(s, 3, true);
        assert_eq!(s >> 63, 1, "the phase completed");
        assert_eq!(s & PENDING, 5);
        assert_eq!((s >> EXPECTED_SHIFT) & EXPECTED, 5);
    }
}
