//! `mbarrier.*`: the asynchronous barriers of sm_80 and later (what
//! `cuda::barrier` and `cuda::pipeline` compile to), one 8-byte object in
//! shared memory per barrier.
//!
//! The object is opaque to PTX (only mbarrier instructions may touch it), so
//! the emulator chooses its encoding: bits 0..20 the arrivals still pending
//! in the current phase, bits 20..40 the arrivals each phase expects (the
//! PTX ISA bounds both by 2^20 - 1), bits 40..61 the transaction count in
//! two's complement (bytes expected by `expect_tx` less those completed by
//! `complete_tx` and bulk copies; within +-(2^20 - 1)), bit 63 the current
//! phase's parity. `mbarrier.arrive` returns the object as it was before the
//! arrival: its bit 63 is the phase the token belongs to.
//!
//! Each active thread arrives on its own, in lane order (one deterministic
//! serialisation, as for atomics). The phase completes when no arrival is
//! pending and the transaction count is zero (a bulk copy may complete its
//! bytes before the thread that issued it expects them: the count goes
//! below zero meanwhile): the parity flips, the pending count is reset to
//! the expected count (lowered by `arrive_drop`) and the transaction count
//! to zero. A wait (`test_wait` or `try_wait`) answers whether the phase of
//! its token, or of the parity it is given, has completed; a thread waits by
//! looping on it, so when a lane finds its phase incomplete the warp ends
//! its time slice and the other warps of the CTA run (they are the ones that
//! will arrive).

use super::execute::{ExecResult, mem_err};
use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::L;
use crate::exec::ops::{Addr, MemSpace, Src, VoteDst};
use crate::simt::{Mask, WARP_SIZE, lanes};
use ptx::MbarrierOp;

const COUNT_BITS: u32 = 20;
const PENDING: u64 = (1 << COUNT_BITS) - 1;
const EXPECTED_SHIFT: u32 = COUNT_BITS;
const EXPECTED: u64 = PENDING;
const TX_SHIFT: u32 = 2 * COUNT_BITS;
const TX_BITS: u32 = 21;
const TX_MASK: u64 = (1 << TX_BITS) - 1;
const PHASE: u64 = 1 << 63;

/// The transaction count of `state`.
fn tx_of(state: u64) -> i64 {
    let raw = (state >> TX_SHIFT) & TX_MASK;
    // Sign-extend the 21-bit field.
    ((raw << (64 - TX_BITS)) as i64) >> (64 - TX_BITS)
}

/// The object of `phase` (0 or `PHASE`) with these counts, its phase
/// completed where nothing is pending.
fn settle(phase: u64, expected: u64, pending: u64, tx: i64) -> u64 {
    let (phase, pending, tx) = if pending == 0 && tx == 0 {
        (phase ^ PHASE, expected, 0)
    } else {
        (phase, pending, tx)
    };
    phase | (expected << EXPECTED_SHIFT) | pending | (((tx as u64) & TX_MASK) << TX_SHIFT)
}

/// A fresh object expecting `count` arrivals per phase, in phase 0.
fn init(count: u64) -> u64 {
    let c = count & EXPECTED;
    (c << EXPECTED_SHIFT) | c
}

/// `count` arrivals on `state` (`drop`: each also leaves the barrier, lowering
/// the expected count), after `tx` more bytes are expected; the new state.
fn arrive(state: u64, count: u64, drop: bool, tx: i64) -> u64 {
    let mut expected = (state >> EXPECTED_SHIFT) & EXPECTED;
    if drop {
        expected = expected.saturating_sub(count);
    }
    let pending = (state & PENDING).saturating_sub(count);
    settle(state & PHASE, expected, pending, tx_of(state) + tx)
}

/// `bytes` more expected (negative: completed) on `state`, no arrival.
fn transact(state: u64, bytes: i64) -> u64 {
    let expected = (state >> EXPECTED_SHIFT) & EXPECTED;
    settle(
        state & PHASE,
        expected,
        state & PENDING,
        tx_of(state) + bytes,
    )
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
        tx: Option<Src>,
        parity: bool,
    ) -> ExecResult {
        let bv: L = match b {
            Some(b) => self.fetch(lx, cta, b),
            None => [1; WARP_SIZE],
        };
        let txv: L = match tx {
            Some(t) => self.fetch(lx, cta, t),
            None => [0; WARP_SIZE],
        };
        let addrs = self.addrs(lx, cta, addr);
        let mut out = [0u64; WARP_SIZE];
        let mut waiting = false;
        for l in lanes(exec) {
            let state = self.object(lx, cta, space, l, addrs[l])?;
            let new = match op {
                MbarrierOp::Init => Some(init(bv[l])),
                MbarrierOp::Inval => Some(0),
                MbarrierOp::Arrive | MbarrierOp::ArriveDrop => {
                    out[l] = state;
                    let drop = op == MbarrierOp::ArriveDrop;
                    Some(arrive(state, bv[l], drop, i64::from(txv[l] as u32)))
                }
                MbarrierOp::ExpectTx => Some(transact(state, i64::from(bv[l] as u32))),
                MbarrierOp::CompleteTx => Some(transact(state, -i64::from(bv[l] as u32))),
                MbarrierOp::TestWait | MbarrierOp::TryWait => {
                    let done = completed(state, bv[l], parity);
                    waiting |= !done;
                    out[l] = u64::from(done);
                    None
                }
                // pending_count is its own op (no address): never here.
                MbarrierOp::PendingCount => None,
            };
            if let Some(new) = new {
                self.set_object(lx, cta, space, l, addrs[l], new)?;
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

    /// `bytes` of a bulk copy by `lane` complete on the mbarrier at `addr`.
    pub(super) fn complete_tx(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        space: MemSpace,
        lane: usize,
        addr: u64,
        bytes: u64,
    ) -> ExecResult {
        let state = self.object(lx, cta, space, lane, addr)?;
        self.set_object(lx, cta, space, lane, addr, transact(state, -(bytes as i64)))
    }

    /// The 8-byte mbarrier object `lane` names at `addr`.
    fn object(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        space: MemSpace,
        lane: usize,
        addr: u64,
    ) -> Result<u64, (crate::fault::FaultKind, Option<usize>)> {
        let mut buf = [0u8; 8];
        self.load_lane(lx, cta, space, lane, addr, &mut buf, 8)
            .map_err(mem_err(lane))?;
        Ok(u64::from_le_bytes(buf))
    }

    fn set_object(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        space: MemSpace,
        lane: usize,
        addr: u64,
        state: u64,
    ) -> ExecResult {
        self.store_lane(lx, cta, space, lane, addr, &state.to_le_bytes(), 8)
            .map_err(mem_err(lane))
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
        s = arrive(s, 1, false, 0);
        s = arrive(s, 1, false, 0);
        assert!(!completed(s, token, false), "two of three arrived");
        assert!(!completed(s, 0, true), "phase 0 still running");
        s = arrive(s, 1, false, 0);
        assert!(completed(s, token, false));
        assert!(completed(s, 0, true));
        assert!(!completed(s, 1, true), "phase 1 has just begun");
        assert_eq!(s & PENDING, 3, "pending reset to the expected count");
        assert_eq!(s >> 63, 1);
    }

    #[test]
    fn arrive_counts_and_drops() {
        let s = arrive(init(8), 5, false, 0);
        assert_eq!(s & PENDING, 3);
        // Dropping lowers what the next phases expect.
        let s = arrive(s, 3, true, 0);
        assert_eq!(s >> 63, 1, "the phase completed");
        assert_eq!(s & PENDING, 5);
        assert_eq!((s >> EXPECTED_SHIFT) & EXPECTED, 5);
    }

    #[test]
    fn a_phase_waits_for_its_transaction_bytes() {
        // Two threads; one expects 4096 bytes as it arrives.
        let token = init(2);
        let s = arrive(token, 1, false, 4096);
        let s = arrive(s, 1, false, 0);
        assert!(!completed(s, token, false), "arrived, 4096 bytes to come");
        assert_eq!((s & PENDING, tx_of(s)), (0, 4096));
        let s = transact(s, -1024);
        assert!(!completed(s, token, false), "3072 bytes to come");
        let s = transact(s, -3072);
        assert!(completed(s, token, false));
        assert_eq!(
            (s & PENDING, tx_of(s)),
            (2, 0),
            "the next phase starts afresh"
        );
    }

    #[test]
    fn bytes_may_complete_before_they_are_expected() {
        // What NVRTC makes of cuda::memcpy_async on sm_90: the bulk copy,
        // then `mbarrier.expect_tx`, then the arrivals.
        let token = init(1);
        let s = transact(token, -512);
        assert_eq!(tx_of(s), -512);
        let s = transact(s, 512);
        assert!(!completed(s, token, false), "no arrival yet");
        let s = arrive(s, 1, false, 0);
        assert!(completed(s, token, false));
        // The largest counts fit their fields.
        let big = init(PENDING);
        assert_eq!(
            (big & PENDING, (big >> EXPECTED_SHIFT) & EXPECTED),
            (PENDING, PENDING)
        );
        assert_eq!(tx_of(transact(big, -((1 << 20) - 1))), -((1 << 20) - 1));
        assert_eq!(tx_of(transact(big, (1 << 20) - 1)), (1 << 20) - 1);
    }
}
