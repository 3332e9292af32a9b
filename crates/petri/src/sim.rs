//! Execution of a [`Net`]: single firings (interleaving semantics) and maximal
//! concurrent steps with conflicts resolved by a seeded random permutation,
//! as in seed 003, §4: "in every step, a permutation of the enabled transitions
//! is randomly generated (using uniform distribution). Transitions are executed
//! according to an order determined by the generated permutation. If two (or
//! more) transitions are in a conflict, the transition appearing earlier in the
//! considered order is executed."
//!
//! # Cost of a step
//! The simulator keeps, per transition, the number of its enabling conditions
//! that fail (`unsat`), and per place its conditions sorted by threshold, so a
//! change of marking from `a` to `b` visits only the conditions whose threshold
//! lies between `a` and `b`. Transitions whose conditions all hold are the
//! *candidates* of the next step.
//!
//! Input arcs from *hub* places (see [`crate::NetBuilder::hub_fanout`]) are not
//! tracked per transition: a candidate with one hub arc sits in its hub's
//! candidate list whatever the hub holds, and its hub tokens are checked when
//! it is drawn. The other candidates form the plain list.
//!
//! A step orders the candidates by their keys ([`StepKeys`]: independent
//! uniform 64-bit numbers drawn from `(seed, step, transition)`, so the order is
//! a uniform random permutation) and fires each one whose entries still hold
//! its tokens after the earlier ones. The candidates of an empty hub would all
//! fail, so they are left out at once. A step thus costs O(c log c) for c
//! candidates plus the arcs touched, not O(net). Because a key does not depend
//! on the rest of the candidate set, any executor that fires the same enabled
//! transitions in key order gets exactly this engine's run (the warp model's
//! specialised executor, [`crate::fast`], relies on it).
//!
//! Capacities are checked greedily in the drawn order against the tokens left
//! plus the tokens already produced in this step.

use crate::net::{Net, PlaceId, TransitionId};
use crate::rng::StepKeys;

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// No transition is enabled.
    Dead,
    /// The step budget was used up first.
    Budget,
}

/// Errors while executing a net.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("transition `{0}` is not enabled")]
    NotEnabled(String),
    #[error("transition #{0} does not belong to this net")]
    UnknownTransition(u32),
    #[error("place `{0}` would hold more than 2^32 - 1 tokens")]
    Overflow(String),
}

const NOWHERE: u32 = u32::MAX;
/// `TransState::list` of a transition that is not a candidate.
const NOT_LISTED: u32 = u32::MAX;
/// `TransState::list` of a candidate in the plain list; hub lists are `0..hubs`.
const PLAIN: u32 = u32::MAX - 1;
/// Condition lists longer than this are searched by bisection, shorter ones scanned.
const LINEAR_SCAN: usize = 16;

/// Per-transition bookkeeping.
#[derive(Debug, Clone, Copy)]
struct TransState {
    /// Enabling conditions that fail (hub token conditions excluded).
    unsat: u32,
    /// Which candidate list holds it (`PLAIN`, a hub index, `NOT_LISTED`) and where.
    list: u32,
    pos: u32,
}

/// A running net: the marking, the candidate lists, the counters and the PRNG.
/// After an error the state is unspecified; start a new simulator.
#[derive(Debug, Clone)]
pub struct Simulator<'n> {
    net: &'n Net,
    marking: Vec<u32>,
    keys: StepKeys,
    steps: u64,
    firings: Vec<u64>,
    fired: Vec<TransitionId>,
    trans: Vec<TransState>,
    plain: Vec<u32>,
    hubs: Vec<Vec<u32>>,
    // Scratch, reused by every step.
    order: Vec<(u64, u32)>,
    touched: Vec<u32>,
    touched_in: Vec<u64>,
    old: Vec<u32>,
    pending: Vec<u32>,
    epoch: u64,
}

impl<'n> Simulator<'n> {
    /// A simulator at the net's initial marking, drawing conflicts from `seed`.
    pub fn new(net: &'n Net, seed: u64) -> Self {
        let np = net.places().len();
        let nt = net.transitions().len();
        let mut sim = Simulator {
            net,
            marking: net.initial_marking(),
            keys: StepKeys::new(seed),
            steps: 0,
            firings: vec![0; nt],
            fired: Vec::new(),
            trans: net
                .conditions
                .iter()
                .map(|&c| TransState {
                    unsat: c,
                    list: NOT_LISTED,
                    pos: NOWHERE,
                })
                .collect(),
            plain: Vec::new(),
            hubs: vec![Vec::new(); net.hub_count],
            order: Vec::new(),
            touched: Vec::new(),
            touched_in: vec![0; np],
            old: vec![0; np],
            pending: vec![0; np],
            epoch: 1,
        };
        // Count the failing conditions at M0: every condition counts as
        // failing until shown to hold.
        for p in 0..np as u32 {
            let m = sim.marking[p as usize];
            for w in net.at_least_of(p) {
                if m >= w.threshold {
                    sim.trans[w.transition as usize].unsat -= 1;
                }
            }
            for w in net.at_most_of(p) {
                if m <= w.threshold {
                    sim.trans[w.transition as usize].unsat -= 1;
                }
            }
        }
        for t in 0..nt as u32 {
            if sim.trans[t as usize].unsat == 0 {
                sim.list(t);
            }
        }
        sim
    }

    pub fn net(&self) -> &'n Net {
        self.net
    }

    /// The current marking, indexed by place.
    pub fn marking(&self) -> &[u32] {
        &self.marking
    }

    pub fn tokens(&self, p: PlaceId) -> u32 {
        self.marking.get(p.index()).copied().unwrap_or(0)
    }

    /// Steps executed so far (a single firing counts as a step of one transition).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// How many times each transition has fired, indexed by transition.
    pub fn firings(&self) -> &[u64] {
        &self.firings
    }

    /// The transitions fired by the last step, in firing order.
    pub fn last_fired(&self) -> &[TransitionId] {
        &self.fired
    }

    /// Is `t` enabled at the current marking?
    pub fn is_enabled(&self, t: TransitionId) -> bool {
        self.trans
            .get(t.index())
            .is_some_and(|s| s.list != NOT_LISTED)
            && self.has_tokens(t.0)
    }

    fn candidates(&self) -> impl Iterator<Item = u32> + '_ {
        self.plain.iter().chain(self.hubs.iter().flatten()).copied()
    }

    /// The enabled transitions, in increasing index order.
    pub fn enabled(&self) -> Vec<TransitionId> {
        let mut v: Vec<TransitionId> = self
            .candidates()
            .filter(|&t| self.has_tokens(t))
            .map(TransitionId)
            .collect();
        v.sort_unstable();
        v
    }

    /// A dead marking: no transition is enabled.
    pub fn is_dead(&self) -> bool {
        !self.candidates().any(|t| self.has_tokens(t))
    }

    /// Do the entries of a candidate hold its tokens?
    fn has_tokens(&self, t: u32) -> bool {
        self.net
            .pre_of(t)
            .iter()
            .all(|&(p, w)| self.marking[p as usize] >= w)
    }

    /// Fire one enabled transition (interleaving semantics).
    pub fn fire(&mut self, t: TransitionId) -> Result<(), SimError> {
        let Some(tr) = self.net.transition(t) else {
            return Err(SimError::UnknownTransition(t.0));
        };
        if !self.is_enabled(t) {
            return Err(SimError::NotEnabled(tr.name.clone()));
        }
        self.epoch += 1;
        self.fired.clear();
        self.consume(t.0);
        self.fired.push(t);
        self.finish_step()
    }

    /// Execute one maximally concurrent step. Returns `Ok(false)` without
    /// stepping at a dead marking.
    pub fn step(&mut self) -> Result<bool, SimError> {
        self.epoch += 1;
        self.fired.clear();
        let net = self.net;
        let salt = self.keys.step_salt(self.steps);
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(self.plain.iter().map(|&t| (StepKeys::key(salt, t), t)));
        for (h, list) in self.hubs.iter().enumerate() {
            // Candidates of an empty hub cannot fire: leave them out at once.
            if self.marking[net.hubs[h] as usize] > 0 {
                order.extend(list.iter().map(|&t| (StepKeys::key(salt, t), t)));
            }
        }
        order.sort_unstable();
        for &(_, t) in &order {
            if !self.can_take(t) {
                continue;
            }
            if net.fills_bounded[t as usize] {
                for &(p, w) in net.post_of(t) {
                    self.pending[p as usize] += w;
                }
            }
            self.consume(t);
            self.fired.push(TransitionId(t));
        }
        self.order = order;
        if net.has_capacities {
            for i in 0..self.fired.len() {
                let t = self.fired[i].0;
                if net.fills_bounded[t as usize] {
                    for &(p, _) in net.post_of(t) {
                        self.pending[p as usize] = 0;
                    }
                }
            }
        }
        if self.fired.is_empty() {
            return Ok(false);
        }
        self.finish_step()?;
        Ok(true)
    }

    /// Run maximal steps until a dead marking or until `budget` steps have run.
    pub fn run(&mut self, budget: u64) -> Result<StopReason, SimError> {
        for _ in 0..budget {
            if !self.step()? {
                return Ok(StopReason::Dead);
            }
        }
        Ok(if self.is_dead() {
            StopReason::Dead
        } else {
            StopReason::Budget
        })
    }

    /// Can the candidate `t` fire with the tokens left in this step?
    fn can_take(&self, t: u32) -> bool {
        let pre = self.net.pre_of(t);
        if !pre.iter().all(|&(p, w)| self.marking[p as usize] >= w) {
            return false;
        }
        if !self.net.fills_bounded[t as usize] {
            return true;
        }
        self.net.post_of(t).iter().all(|&(p, w)| {
            let Some(cap) = self.net.places()[p as usize].capacity else {
                return true;
            };
            let taken = pre.iter().find(|a| a.0 == p).map_or(0, |a| a.1);
            u64::from(self.marking[p as usize]) - u64::from(taken)
                + u64::from(self.pending[p as usize])
                + u64::from(w)
                <= u64::from(cap)
        })
    }

    fn touch(&mut self, p: u32) {
        if self.touched_in[p as usize] != self.epoch {
            self.touched_in[p as usize] = self.epoch;
            self.old[p as usize] = self.marking[p as usize];
            self.touched.push(p);
        }
    }

    fn consume(&mut self, t: u32) {
        let net = self.net;
        for &(p, w) in net.pre_of(t) {
            self.touch(p);
            self.marking[p as usize] -= w;
        }
    }

    /// Put the outputs of the fired transitions, then bring the candidate
    /// lists up to date for the places that changed.
    fn finish_step(&mut self) -> Result<(), SimError> {
        let net = self.net;
        for i in 0..self.fired.len() {
            let t = self.fired[i].0;
            self.firings[t as usize] += 1;
            for &(p, w) in net.post_of(t) {
                self.touch(p);
                let slot = &mut self.marking[p as usize];
                *slot = slot
                    .checked_add(w)
                    .ok_or_else(|| SimError::Overflow(net.places()[p as usize].name.clone()))?;
            }
        }
        self.steps += 1;
        for i in 0..self.touched.len() {
            let p = self.touched[i];
            let (old, new) = (self.old[p as usize], self.marking[p as usize]);
            if old != new {
                self.update_conditions(p, old, new);
            }
        }
        self.touched.clear();
        Ok(())
    }

    /// The marking of `p` went from `old` to `new`: flip the conditions whose
    /// threshold lies between them.
    fn update_conditions(&mut self, p: u32, old: u32, new: u32) {
        let net = self.net;
        let (lo, hi) = (old.min(new), old.max(new));
        let rising = new > old;
        // AtLeast(θ) holds iff m >= θ: it changes iff lo < θ <= hi.
        let al = net.at_least_of(p);
        let from = if al.len() > LINEAR_SCAN {
            al.partition_point(|w| w.threshold <= lo)
        } else {
            0
        };
        for w in &al[from..] {
            if w.threshold <= lo {
                continue;
            }
            if w.threshold > hi {
                break;
            }
            if rising {
                self.condition_holds(w.transition)
            } else {
                self.condition_fails(w.transition)
            }
        }
        // AtMost(θ) holds iff m <= θ: it changes iff lo <= θ < hi.
        let am = net.at_most_of(p);
        let from = if am.len() > LINEAR_SCAN {
            am.partition_point(|w| w.threshold < lo)
        } else {
            0
        };
        for w in &am[from..] {
            if w.threshold < lo {
                continue;
            }
            if w.threshold >= hi {
                break;
            }
            if rising {
                self.condition_fails(w.transition)
            } else {
                self.condition_holds(w.transition)
            }
        }
    }

    fn condition_holds(&mut self, t: u32) {
        let st = &mut self.trans[t as usize];
        st.unsat -= 1;
        if st.unsat == 0 {
            self.list(t);
        }
    }

    fn condition_fails(&mut self, t: u32) {
        let st = &mut self.trans[t as usize];
        st.unsat += 1;
        if st.unsat == 1 {
            self.unlist(t);
        }
    }

    /// Make `t` a candidate: its hub's list if it has one hub arc, else the plain list.
    fn list(&mut self, t: u32) {
        let home = self.net.home_hub[t as usize];
        let (list, which) = if home == NOWHERE {
            (&mut self.plain, PLAIN)
        } else {
            (&mut self.hubs[home as usize], home)
        };
        self.trans[t as usize].list = which;
        self.trans[t as usize].pos = list.len() as u32;
        list.push(t);
    }

    fn unlist(&mut self, t: u32) {
        let st = self.trans[t as usize];
        let list = match st.list {
            NOT_LISTED => return,
            PLAIN => &mut self.plain,
            h => &mut self.hubs[h as usize],
        };
        let pos = st.pos as usize;
        list.swap_remove(pos);
        if let Some(&moved) = list.get(pos) {
            self.trans[moved as usize].pos = pos as u32;
        }
        self.trans[t as usize] = TransState {
            unsat: st.unsat,
            list: NOT_LISTED,
            pos: NOWHERE,
        };
    }
}
