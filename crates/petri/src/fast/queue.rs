//! The warps waiting for a scheduler token (their t1 is enabled but for p0),
//! stored column-wise so that the per-step work of scheduler-bound runs, one
//! key per waiting warp, is a branch-free loop over 32-bit codes that the
//! compiler vectorises, followed by a minimum search over 32-bit keys.

use crate::rng::{StepKeys, StepSalt, TransitionCode};

#[derive(Debug, Default)]
pub(super) struct IssueQueue {
    /// Key code of each waiting warp's t1.
    codes: Vec<TransitionCode>,
    /// Net index of that t1.
    ts: Vec<u32>,
    /// The warp.
    ws: Vec<u32>,
    /// This step's keys, by position (scratch).
    keys: Vec<u32>,
}

impl IssueQueue {
    pub(super) fn len(&self) -> usize {
        self.ws.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ws.is_empty()
    }

    pub(super) fn push(&mut self, code: TransitionCode, t: u32, w: u32) {
        self.codes.push(code);
        self.ts.push(t);
        self.ws.push(w);
    }

    /// Remove every warp, appending them to `out`.
    pub(super) fn drain_all(&mut self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.ws);
        self.codes.clear();
        self.ts.clear();
        self.ws.clear();
    }

    /// Remove the `take` warps whose t1 has the lowest (key, index) in the
    /// step salted `salt`, appending them to `out` lowest first.
    ///
    /// Keys of distinct transitions in one step are distinct ([`StepKeys`] is
    /// a bijection of the index for a fixed step), so the first position
    /// holding the minimum key is the lowest (key, t): the tie-break by index
    /// never has to act.
    pub(super) fn take_lowest(&mut self, salt: StepSalt, take: usize, out: &mut Vec<u32>) {
        let mut keys = std::mem::take(&mut self.keys);
        let mut min = fill_keys(salt, &self.codes, &mut keys);
        for round in 0..take {
            if round > 0 {
                min = min_key(&keys);
            }
            let Some(pos) = keys.iter().position(|&k| k == min) else {
                break;
            };
            keys.swap_remove(pos);
            self.codes.swap_remove(pos);
            self.ts.swap_remove(pos);
            out.push(self.ws.swap_remove(pos));
        }
        self.keys = keys;
    }
}

/// Set `keys` to the keys of `codes` in the step salted `salt`; returns the
/// lowest.
fn fill_keys(salt: StepSalt, codes: &[TransitionCode], keys: &mut Vec<u32>) -> u32 {
    keys.clear();
    keys.extend(codes.iter().map(|&c| StepKeys::key_coded(salt, c)));
    min_key(keys)
}

/// The lowest of `keys` (`u32::MAX` when empty).
fn min_key(keys: &[u32]) -> u32 {
    keys.iter().copied().fold(u32::MAX, u32::min)
}
