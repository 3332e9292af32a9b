//! The reconvergence stack of a warp, under either of Kerr et al.'s policies
//! (seeds/001, section IV "Divergent Branches"):
//!
//! - [`Policy::Ipdom`] ("ideal"): a divergent branch turns the current entry
//!   into the join entry, parked at the branch's immediate post-dominator,
//!   and pushes one entry per path; an entry that reaches its reconvergence
//!   PC is popped, so the join entry resumes with the union of the paths.
//! - [`Policy::Barrier`]: divergent paths become independent splits that
//!   never join at post-dominators, only when every split waits at a barrier
//!   (splits at the same PC merge) or by exiting.
//!
//! Entries are executed from the top. Exited threads leave every entry.

use super::Mask;

/// "No reconvergence point": a branch whose paths only meet at exit, or any
/// split under the barrier policy.
pub const NO_RECONVERGE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Ipdom,
    Barrier,
}

/// One stack entry: the threads of `mask` run from `pc` until `rpc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub pc: u32,
    pub rpc: u32,
    pub mask: Mask,
    /// Parked at a barrier (`pc` is already past the barrier instruction).
    pub waiting: bool,
}

/// What a branch did to the warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchOutcome {
    Uniform,
    Divergent,
}

#[derive(Debug, Clone)]
pub struct SimtStack {
    policy: Policy,
    entries: Vec<Entry>,
    exited: Mask,
    max_depth: usize,
}

impl SimtStack {
    /// A warp whose threads `mask` start at `pc`.
    pub fn new(policy: Policy, mask: Mask, pc: u32) -> Self {
        let entries = if mask == 0 {
            Vec::new()
        } else {
            vec![Entry {
                pc,
                rpc: NO_RECONVERGE,
                mask,
                waiting: false,
            }]
        };
        Self {
            policy,
            entries,
            exited: 0,
            max_depth: 1,
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// True once every thread has exited.
    pub fn done(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn top(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// PC of the running entry (meaningless when done).
    pub fn pc(&self) -> u32 {
        self.entries.last().map_or(NO_RECONVERGE, |e| e.pc)
    }

    /// Active mask of the running entry; 0 when done.
    pub fn active(&self) -> Mask {
        self.entries.last().map_or(0, |e| e.mask)
    }

    /// Threads not exited.
    pub fn live(&self) -> Mask {
        self.entries.iter().fold(0, |m, e| m | e.mask)
    }

    pub fn exited(&self) -> Mask {
        self.exited
    }

    pub fn depth(&self) -> usize {
        self.entries.len()
    }

    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Move the running entry to `pc` (the next instruction, or a uniform jump),
    /// then reconverge.
    #[inline]
    pub fn goto(&mut self, pc: u32) {
        if let Some(top) = self.entries.last_mut() {
            top.pc = pc;
            if top.pc == top.rpc {
                self.reconverge();
            }
        }
    }

    /// Pop every entry that reached its reconvergence PC.
    fn reconverge(&mut self) {
        while let Some(top) = self.entries.last() {
            if top.pc == top.rpc && self.entries.len() > 1 {
                self.entries.pop();
            } else {
                break;
            }
        }
    }

    /// A conditional branch of the running entry: lanes `taken` go to
    /// `target`, the others to `fallthrough`; `reconv` is the branch's
    /// reconvergence PC (its IPDOM, or [`NO_RECONVERGE`]).
    pub fn branch(
        &mut self,
        taken: Mask,
        target: u32,
        fallthrough: u32,
        reconv: u32,
    ) -> BranchOutcome {
        let Some(top) = self.entries.last_mut() else {
            return BranchOutcome::Uniform;
        };
        let active = top.mask;
        let taken = taken & active;
        let not_taken = active & !taken;
        if not_taken == 0 {
            self.goto(target);
            return BranchOutcome::Uniform;
        }
        if taken == 0 {
            self.goto(fallthrough);
            return BranchOutcome::Uniform;
        }
        match self.policy {
            Policy::Ipdom => {
                top.pc = reconv;
                // A path that starts at the join has nothing to run before it.
                for (pc, mask) in [(fallthrough, not_taken), (target, taken)] {
                    if pc != reconv {
                        self.entries.push(Entry {
                            pc,
                            rpc: reconv,
                            mask,
                            waiting: false,
                        });
                    }
                }
            }
            Policy::Barrier => {
                *top = Entry {
                    pc: fallthrough,
                    rpc: NO_RECONVERGE,
                    mask: not_taken,
                    waiting: false,
                };
                self.entries.push(Entry {
                    pc: target,
                    rpc: NO_RECONVERGE,
                    mask: taken,
                    waiting: false,
                });
            }
        }
        self.max_depth = self.max_depth.max(self.entries.len());
        self.reconverge();
        BranchOutcome::Divergent
    }

    /// A multiway branch (`brx.idx`): each group of lanes goes to its target.
    /// With one group this is a uniform jump; otherwise every group becomes an
    /// entry joining at `reconv` (IPDOM), or an independent split (barrier policy).
    pub fn branch_multi(&mut self, groups: &[(Mask, u32)], reconv: u32) -> BranchOutcome {
        let groups: Vec<(Mask, u32)> = groups.iter().copied().filter(|(m, _)| *m != 0).collect();
        if let [(_, target)] = groups.as_slice() {
            self.goto(*target);
            return BranchOutcome::Uniform;
        }
        let Some(top) = self.entries.last_mut() else {
            return BranchOutcome::Uniform;
        };
        match self.policy {
            Policy::Ipdom => {
                top.pc = reconv;
                for &(mask, pc) in groups.iter().rev() {
                    if pc != reconv {
                        self.entries.push(Entry {
                            pc,
                            rpc: reconv,
                            mask,
                            waiting: false,
                        });
                    }
                }
            }
            Policy::Barrier => {
                self.entries.pop();
                for &(mask, pc) in groups.iter().rev() {
                    self.entries.push(Entry {
                        pc,
                        rpc: NO_RECONVERGE,
                        mask,
                        waiting: false,
                    });
                }
            }
        }
        self.max_depth = self.max_depth.max(self.entries.len());
        self.reconverge();
        BranchOutcome::Divergent
    }

    /// Threads of `mask` exit: they leave every entry; empty entries go.
    pub fn exit(&mut self, mask: Mask) {
        self.exited |= mask;
        for e in &mut self.entries {
            e.mask &= !mask;
        }
        self.entries.retain(|e| e.mask != 0);
        self.reconverge();
    }

    /// The running entry executed a barrier and moved to `next_pc`; park it.
    /// Returns true when the whole warp is now waiting (every entry parked);
    /// otherwise a non-waiting entry is brought to the top to run.
    pub fn park(&mut self, next_pc: u32) -> bool {
        let Some(top) = self.entries.last_mut() else {
            return true;
        };
        top.pc = next_pc;
        top.waiting = true;
        match self.entries.iter().rposition(|e| !e.waiting) {
            None => true,
            Some(i) => {
                // Only the barrier policy has independent splits to switch to;
                // under IPDOM the caller treats a partial warp as a divergent barrier.
                let e = self.entries.remove(i);
                self.entries.push(e);
                false
            }
        }
    }

    /// The running entry waits on a condition other threads must make true
    /// (an `mbarrier` wait that found its phase incomplete), so another path
    /// of the warp runs next: a path that still has to arrive (the elected
    /// thread issuing a bulk copy, say) is not starved by one that spins, as
    /// on GPUs with independent thread scheduling (sm_70 on). Under the
    /// barrier policy the entry goes to the bottom and the next split not
    /// parked at a barrier runs. Under IPDOM the paths are nested: the entry
    /// changes places only with its siblings, the paths of the same branch
    /// that have not reached their join (same reconvergence PC, above the
    /// join entry), so every path still joins where it did.
    pub fn yield_split(&mut self) {
        let n = self.entries.len();
        if n < 2 {
            return;
        }
        match self.policy {
            Policy::Barrier => {
                if let Some(top) = self.entries.pop() {
                    self.entries.insert(0, top);
                }
                if let Some(i) = self.entries.iter().rposition(|e| !e.waiting) {
                    let e = self.entries.remove(i);
                    self.entries.push(e);
                }
            }
            Policy::Ipdom => {
                let rpc = self.entries[n - 1].rpc;
                let sibling = |e: &Entry| e.rpc == rpc && e.pc != e.rpc && !e.waiting;
                let mut first = n - 1;
                while first > 0 && sibling(&self.entries[first - 1]) {
                    first -= 1;
                }
                if first < n - 1
                    && let Some(top) = self.entries.pop()
                {
                    self.entries.insert(first, top);
                }
            }
        }
    }

    /// True when the running entry holds every live thread of the warp.
    pub fn converged(&self) -> bool {
        self.active() == self.live()
    }

    /// The barrier released this warp: entries resume; under the barrier
    /// policy splits waiting at the same PC merge into one.
    pub fn release(&mut self) {
        for e in &mut self.entries {
            e.waiting = false;
        }
        if self.policy == Policy::Barrier {
            let mut merged: Vec<Entry> = Vec::with_capacity(self.entries.len());
            for e in self.entries.drain(..) {
                match merged.iter_mut().find(|m| m.pc == e.pc) {
                    Some(m) => m.mask |= e.mask,
                    None => merged.push(e),
                }
            }
            self.entries = merged;
        }
    }

    /// Whether the warp is parked at a barrier.
    pub fn waiting(&self) -> bool {
        self.entries.last().is_some_and(|e| e.waiting)
    }
}
