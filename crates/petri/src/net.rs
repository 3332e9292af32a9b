//! The structure of a place/transition net with arc weights, inhibitor arcs and
//! optional place capacities (Definition 1 of Gogolinska et al., seed 003, §3:
//! `S = (P, T, W, I, M0)`), built with [`NetBuilder`] and then frozen into a
//! [`Net`] whose arc lists are precomputed per transition and per place, so that
//! the simulator never scans the whole net.

use serde::Serialize;

/// A place of one [`Net`]: an index into its place list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct PlaceId(pub(crate) u32);

/// A transition of one [`Net`]: an index into its transition list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct TransitionId(pub(crate) u32);

impl PlaceId {
    /// The position of this place in [`Net::places`] and in markings.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl TransitionId {
    /// The position of this transition in [`Net::transitions`] and in counters.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A place: its name, initial marking and optional capacity (`None`: unbounded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    pub name: String,
    pub initial: u32,
    pub capacity: Option<u32>,
}

/// A transition: its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub name: String,
}

/// The three kinds of arcs: `W(p, t)`, `W(t, p)` and the inhibition relation `I`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArcKind {
    /// Place to transition: firing removes `weight` tokens.
    Input,
    /// Transition to place: firing adds `weight` tokens.
    Output,
    /// Place to transition: the transition is enabled only when the place is empty.
    Inhibitor,
}

/// One arc. Inhibitor arcs have weight 1 (they test for zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Arc {
    pub kind: ArcKind,
    pub place: PlaceId,
    pub transition: TransitionId,
    pub weight: u32,
}

/// Why a net could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    #[error(
        "arc {kind:?} between place #{place} and transition #{transition} refers to a node this net does not have"
    )]
    UnknownNode {
        kind: ArcKind,
        place: u32,
        transition: u32,
    },
    #[error("arc {kind:?} between place `{place}` and transition `{transition}` has weight 0")]
    ZeroWeight {
        kind: ArcKind,
        place: String,
        transition: String,
    },
    #[error("arc {kind:?} between place `{place}` and transition `{transition}` is given twice")]
    DuplicateArc {
        kind: ArcKind,
        place: String,
        transition: String,
    },
    #[error("place `{place}` starts with {initial} tokens, above its capacity {capacity}")]
    InitialAboveCapacity {
        place: String,
        initial: u32,
        capacity: u32,
    },
    #[error("the net has {count} {what}, more than the engine's limit of 2^32 - 1")]
    TooLarge { what: &'static str, count: usize },
}

/// Collects places, transitions and arcs; [`NetBuilder::build`] checks and freezes them.
#[derive(Debug, Clone, Default)]
pub struct NetBuilder {
    name: String,
    places: Vec<Place>,
    transitions: Vec<Transition>,
    arcs: Vec<Arc>,
    hub_fanout: Option<usize>,
}

/// Places with more consuming transitions than this are *hubs* (see [`NetBuilder::hub_fanout`]).
pub const DEFAULT_HUB_FANOUT: usize = 8;

impl NetBuilder {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// A place consumed by more than `fanout` transitions is a *hub* (like the
    /// SM place of the warp model, read by every warp). The simulator does not
    /// track the token condition of a hub's input arcs per transition: it
    /// checks it when the step draws the transition. This keeps a step from
    /// touching every consumer of the hub each time the hub empties and
    /// refills, and lets a step skip the hub's candidates at once when the hub
    /// is empty. Behaviour is the same whatever the value; only speed differs.
    /// Default: [`DEFAULT_HUB_FANOUT`].
    pub fn hub_fanout(&mut self, fanout: usize) -> &mut Self {
        self.hub_fanout = Some(fanout);
        self
    }

    /// An unbounded place with `initial` tokens.
    pub fn place(&mut self, name: impl Into<String>, initial: u32) -> PlaceId {
        self.place_with_capacity(name, initial, None)
    }

    /// A place holding at most `capacity` tokens (`None`: unbounded). A
    /// transition whose firing would overfill it is not enabled.
    pub fn place_with_capacity(
        &mut self,
        name: impl Into<String>,
        initial: u32,
        capacity: Option<u32>,
    ) -> PlaceId {
        let id = PlaceId(self.places.len() as u32);
        self.places.push(Place {
            name: name.into(),
            initial,
            capacity,
        });
        id
    }

    pub fn transition(&mut self, name: impl Into<String>) -> TransitionId {
        let id = TransitionId(self.transitions.len() as u32);
        self.transitions.push(Transition { name: name.into() });
        id
    }

    /// Arc place -> transition: firing `t` takes `weight` tokens from `p`.
    pub fn input(&mut self, p: PlaceId, t: TransitionId, weight: u32) -> &mut Self {
        self.arcs.push(Arc {
            kind: ArcKind::Input,
            place: p,
            transition: t,
            weight,
        });
        self
    }

    /// Arc transition -> place: firing `t` puts `weight` tokens into `p`.
    pub fn output(&mut self, t: TransitionId, p: PlaceId, weight: u32) -> &mut Self {
        self.arcs.push(Arc {
            kind: ArcKind::Output,
            place: p,
            transition: t,
            weight,
        });
        self
    }

    /// A read arc ("loop"): `t` needs `weight` tokens in `p` and gives them back.
    pub fn read(&mut self, p: PlaceId, t: TransitionId, weight: u32) -> &mut Self {
        self.input(p, t, weight).output(t, p, weight)
    }

    /// Inhibitor arc: `t` is enabled only while `p` is empty.
    pub fn inhibitor(&mut self, p: PlaceId, t: TransitionId) -> &mut Self {
        self.arcs.push(Arc {
            kind: ArcKind::Inhibitor,
            place: p,
            transition: t,
            weight: 1,
        });
        self
    }

    /// Check the arcs and precompute the per-transition and per-place arc lists.
    pub fn build(self) -> Result<Net, NetError> {
        Net::compile(self)
    }
}

/// A condition on one place that a transition needs to be enabled, as a threshold:
/// `AtLeast` holds when the marking is `>= threshold` (input arcs), `AtMost`
/// when it is `<= threshold` (inhibitor arcs: 0; capacities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Watch {
    pub threshold: u32,
    pub transition: u32,
}

/// A frozen net. The public part is the description (for export and
/// inspection); the crate-private part is the compiled arc lists.
#[derive(Debug, Clone)]
pub struct Net {
    name: String,
    places: Vec<Place>,
    transitions: Vec<Transition>,
    arcs: Vec<Arc>,
    /// Input arcs of each transition, `(place, weight)`, CSR layout.
    pub(crate) pre_start: Vec<u32>,
    pub(crate) pre: Vec<(u32, u32)>,
    /// Output arcs of each transition, `(place, weight)`.
    pub(crate) post_start: Vec<u32>,
    pub(crate) post: Vec<(u32, u32)>,
    pub(crate) hub_count: usize,
    /// The hub places, by hub index.
    pub(crate) hubs: Vec<u32>,
    /// Per transition: the hub whose candidate list holds it when it has
    /// exactly one input arc from a hub, else `u32::MAX`.
    pub(crate) home_hub: Vec<u32>,
    /// Per place: `AtLeast` conditions sorted by threshold.
    pub(crate) at_least_start: Vec<u32>,
    pub(crate) at_least: Vec<Watch>,
    /// Per place: `AtMost` conditions sorted by threshold.
    pub(crate) at_most_start: Vec<u32>,
    pub(crate) at_most: Vec<Watch>,
    /// Number of enabling conditions of each transition (for the initial count).
    pub(crate) conditions: Vec<u32>,
    /// Transitions that put tokens into a place with a capacity.
    pub(crate) fills_bounded: Vec<bool>,
    pub(crate) has_capacities: bool,
}

fn csr<T: Copy>(n: usize, items: &[(usize, T)]) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for &(k, _) in items {
        start[k + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out: Vec<Option<T>> = vec![None; items.len()];
    for &(k, v) in items {
        out[fill[k] as usize] = Some(v);
        fill[k] += 1;
    }
    (start, out.into_iter().flatten().collect())
}

impl Net {
    fn compile(b: NetBuilder) -> Result<Net, NetError> {
        let np = b.places.len();
        let nt = b.transitions.len();
        if np >= u32::MAX as usize {
            return Err(NetError::TooLarge {
                what: "places",
                count: np,
            });
        }
        if nt >= u32::MAX as usize {
            return Err(NetError::TooLarge {
                what: "transitions",
                count: nt,
            });
        }
        for p in &b.places {
            if let Some(cap) = p.capacity
                && p.initial > cap
            {
                return Err(NetError::InitialAboveCapacity {
                    place: p.name.clone(),
                    initial: p.initial,
                    capacity: cap,
                });
            }
        }
        let names = |a: &Arc| {
            (
                b.places[a.place.index()].name.clone(),
                b.transitions[a.transition.index()].name.clone(),
            )
        };
        let mut seen = std::collections::HashSet::new();
        for a in &b.arcs {
            if a.place.index() >= np || a.transition.index() >= nt {
                return Err(NetError::UnknownNode {
                    kind: a.kind,
                    place: a.place.0,
                    transition: a.transition.0,
                });
            }
            if a.weight == 0 {
                let (place, transition) = names(a);
                return Err(NetError::ZeroWeight {
                    kind: a.kind,
                    place,
                    transition,
                });
            }
            if !seen.insert((a.kind, a.place, a.transition)) {
                let (place, transition) = names(a);
                return Err(NetError::DuplicateArc {
                    kind: a.kind,
                    place,
                    transition,
                });
            }
        }

        let weight_of = |kind: ArcKind, p: PlaceId, t: TransitionId| {
            b.arcs
                .iter()
                .find(|a| a.kind == kind && a.place == p && a.transition == t)
                .map_or(0, |a| a.weight)
        };
        let fanout = b.hub_fanout.unwrap_or(DEFAULT_HUB_FANOUT);
        let mut consumer_count = vec![0usize; np];
        for a in b.arcs.iter().filter(|a| a.kind == ArcKind::Input) {
            consumer_count[a.place.index()] += 1;
        }
        let hub: Vec<bool> = consumer_count.iter().map(|&c| c > fanout).collect();
        let mut hub_index = vec![u32::MAX; np];
        let mut hub_count = 0usize;
        for p in 0..np {
            if hub[p] {
                hub_index[p] = hub_count as u32;
                hub_count += 1;
            }
        }
        let mut home_hub = vec![u32::MAX; nt];
        let mut hub_arcs = vec![0u32; nt];
        for a in b
            .arcs
            .iter()
            .filter(|a| a.kind == ArcKind::Input && hub[a.place.index()])
        {
            hub_arcs[a.transition.index()] += 1;
            home_hub[a.transition.index()] = hub_index[a.place.index()];
        }
        for t in 0..nt {
            if hub_arcs[t] != 1 {
                home_hub[t] = u32::MAX;
            }
        }
        let mut pre_items = Vec::new();
        let mut post_items = Vec::new();
        let mut at_least_items = Vec::new();
        let mut at_most_items = Vec::new();
        let mut conditions = vec![0u32; nt];
        let mut fills_bounded = vec![false; nt];
        for a in &b.arcs {
            let (p, t) = (a.place.index(), a.transition.index());
            match a.kind {
                ArcKind::Input => {
                    pre_items.push((t, (a.place.0, a.weight)));
                    if !hub[p] {
                        at_least_items.push((
                            p,
                            Watch {
                                threshold: a.weight,
                                transition: a.transition.0,
                            },
                        ));
                        conditions[t] += 1;
                    }
                }
                ArcKind::Inhibitor => {
                    at_most_items.push((
                        p,
                        Watch {
                            threshold: 0,
                            transition: a.transition.0,
                        },
                    ));
                    conditions[t] += 1;
                }
                ArcKind::Output => {
                    post_items.push((t, (a.place.0, a.weight)));
                    if let Some(cap) = b.places[p].capacity {
                        fills_bounded[t] = true;
                        let pre_w = weight_of(ArcKind::Input, a.place, a.transition);
                        if a.weight > pre_w {
                            // Firing alone must not overfill: M(p) - pre + post <= cap,
                            // i.e. M(p) <= cap - (post - pre); impossible if negative.
                            let gain = a.weight - pre_w;
                            let threshold = cap.checked_sub(gain);
                            match threshold {
                                Some(th) => at_most_items.push((
                                    p,
                                    Watch {
                                        threshold: th,
                                        transition: a.transition.0,
                                    },
                                )),
                                // Never satisfiable: a condition that no marking meets.
                                None => at_least_items.push((
                                    p,
                                    Watch {
                                        threshold: u32::MAX,
                                        transition: a.transition.0,
                                    },
                                )),
                            }
                            conditions[t] += 1;
                        }
                    }
                }
            }
        }
        let (pre_start, pre) = csr(nt, &pre_items);
        let (post_start, post) = csr(nt, &post_items);
        let (at_least_start, mut at_least) = csr(np, &at_least_items);
        let (at_most_start, mut at_most) = csr(np, &at_most_items);
        for p in 0..np {
            at_least[at_least_start[p] as usize..at_least_start[p + 1] as usize].sort_unstable();
            at_most[at_most_start[p] as usize..at_most_start[p + 1] as usize].sort_unstable();
        }
        let has_capacities = b.places.iter().any(|p| p.capacity.is_some());
        Ok(Net {
            name: b.name,
            places: b.places,
            transitions: b.transitions,
            arcs: b.arcs,
            pre_start,
            pre,
            post_start,
            post,
            hub_count,
            hubs: (0..np as u32).filter(|&p| hub[p as usize]).collect(),
            home_hub,
            at_least_start,
            at_least,
            at_most_start,
            at_most,
            conditions,
            fills_bounded,
            has_capacities,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn places(&self) -> &[Place] {
        &self.places
    }

    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// Every arc, in the order they were added.
    pub fn arcs(&self) -> &[Arc] {
        &self.arcs
    }

    pub fn place(&self, p: PlaceId) -> Option<&Place> {
        self.places.get(p.index())
    }

    pub fn transition(&self, t: TransitionId) -> Option<&Transition> {
        self.transitions.get(t.index())
    }

    /// The place with this name, if any (first match).
    pub fn place_named(&self, name: &str) -> Option<PlaceId> {
        self.places
            .iter()
            .position(|p| p.name == name)
            .map(|i| PlaceId(i as u32))
    }

    /// The transition with this name, if any (first match).
    pub fn transition_named(&self, name: &str) -> Option<TransitionId> {
        self.transitions
            .iter()
            .position(|t| t.name == name)
            .map(|i| TransitionId(i as u32))
    }

    /// The initial marking `M0`, indexed by place.
    pub fn initial_marking(&self) -> Vec<u32> {
        self.places.iter().map(|p| p.initial).collect()
    }

    pub(crate) fn pre_of(&self, t: u32) -> &[(u32, u32)] {
        &self.pre[self.pre_start[t as usize] as usize..self.pre_start[t as usize + 1] as usize]
    }

    pub(crate) fn post_of(&self, t: u32) -> &[(u32, u32)] {
        &self.post[self.post_start[t as usize] as usize..self.post_start[t as usize + 1] as usize]
    }

    pub(crate) fn at_least_of(&self, p: u32) -> &[Watch] {
        &self.at_least
            [self.at_least_start[p as usize] as usize..self.at_least_start[p as usize + 1] as usize]
    }

    pub(crate) fn at_most_of(&self, p: u32) -> &[Watch] {
        &self.at_most
            [self.at_most_start[p as usize] as usize..self.at_most_start[p as usize + 1] as usize]
    }

    /// Is `t` enabled at marking `m` (interleaving semantics: all entries hold
    /// enough tokens, all inhibitor places are empty, no capacity overflows)?
    /// A direct check from the arc list, independent of the simulator's
    /// incremental bookkeeping (tests compare the two).
    pub fn is_enabled_at(&self, m: &[u32], t: TransitionId) -> bool {
        self.is_step_enabled_at(m, &[t])
    }

    /// Is the set of transitions `step` (each at most once) enabled at `m`
    /// (§3: `sum of entries <= M`, every inhibitor place empty at `M`; and the
    /// result within the capacities)?
    pub fn is_step_enabled_at(&self, m: &[u32], step: &[TransitionId]) -> bool {
        if m.len() != self.places.len() {
            return false;
        }
        let mut need = vec![0u64; m.len()];
        let mut gain = vec![0u64; m.len()];
        for &t in step {
            if t.index() >= self.transitions.len() {
                return false;
            }
            for &(p, w) in self.pre_of(t.0) {
                need[p as usize] += u64::from(w);
            }
            for &(p, w) in self.post_of(t.0) {
                gain[p as usize] += u64::from(w);
            }
        }
        let inhibited = self.arcs.iter().any(|a| {
            a.kind == ArcKind::Inhibitor && step.contains(&a.transition) && m[a.place.index()] > 0
        });
        if inhibited {
            return false;
        }
        self.places.iter().enumerate().all(|(i, pl)| {
            let have = u64::from(m[i]);
            have >= need[i]
                && pl
                    .capacity
                    .is_none_or(|c| have - need[i] + gain[i] <= u64::from(c))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_error(build: impl FnOnce(&mut NetBuilder), expected: &str) {
        let mut b = NetBuilder::new("n");
        build(&mut b);
        let err = b.build().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(expected), "got `{err}`, want `{expected}`");
    }

    #[test]
    fn bad_nets_are_refused_with_a_reason() {
        check_error(
            |b| {
                let p = b.place("p", 0);
                let t = b.transition("t");
                b.input(p, t, 0);
            },
            "weight 0",
        );
        check_error(
            |b| {
                let p = b.place("p", 0);
                let t = b.transition("t");
                b.input(p, t, 1).input(p, t, 2);
            },
            "given twice",
        );
        check_error(
            |b| {
                b.place_with_capacity("p", 3, Some(2));
            },
            "above its capacity",
        );
        check_error(
            |b| {
                let t = b.transition("t");
                b.input(PlaceId(5), t, 1);
            },
            "does not have",
        );
    }

    #[test]
    fn arc_lists_are_grouped_per_transition_and_place() {
        let mut b = NetBuilder::new("n");
        let p = b.place("p", 1);
        let q = b.place("q", 0);
        let t = b.transition("t");
        let u = b.transition("u");
        b.input(p, t, 1)
            .output(t, q, 2)
            .input(q, u, 2)
            .output(u, p, 1)
            .inhibitor(q, t);
        let net = b.build().expect("valid net");
        assert_eq!(net.pre_of(t.0), &[(p.0, 1)]);
        assert_eq!(net.post_of(t.0), &[(q.0, 2)]);
        assert_eq!(net.at_most_of(q.0).len(), 1);
        assert_eq!(net.conditions, vec![2, 1]);
        assert!(net.is_enabled_at(&[1, 0], t));
        assert!(!net.is_enabled_at(&[1, 2], t));
        assert!(net.is_enabled_at(&[0, 2], u));
        assert_eq!(net.place_named("q"), Some(q));
        assert_eq!(net.transition_named("u"), Some(u));
    }
}
