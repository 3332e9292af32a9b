//! The warp model of seed 003 (Gogolinska, Mikulski, Piątkowski), §4, Table 1
//! and Figure 2: one streaming multiprocessor with `K` warp schedulers (place
//! p0, "SM"), a `waiting` transition t0 that counts idle steps, and for every
//! warp a warp part (WPNM) of 18 places and 17 transitions that selects the
//! next instruction at random among arithmetic (x_a), shared-memory (x_s) and
//! global-memory (x_g) instructions and executes it, with the global latency
//! l1 and the shared latency l2.
//!
//! # Reconstruction of Figure 2
//! The figure itself is not in the text we have; the arcs below follow every
//! sentence of §4 and Table 1, and fill the gaps as documented here (the
//! `warp_part_arcs` test pins them down):
//! - t1 "The warp is executed on SM": takes p0 (SM), p2 (ready), p4 (next
//!   instruction ready), reads p1 (active warp) and marks p11 (our name: "warp
//!   issued"), the place that t5/t6/t7 need with the instruction type.
//! - t2/t3/t4 take p3 and one token of p5/p7/p9 and mark p4 and p6/p8/p10
//!   ("If the place p3 is marked and at least one of the places p5, p7, p9 is
//!   not empty, the next instruction can be selected. The selection is
//!   random": the three transitions conflict on p3 and the step's permutation
//!   picks one).
//! - Frame II, arithmetic, "one place and two transitions": t7 takes p11 and
//!   p6 and marks p12; t15 "Calculation is finished" returns p0, p2, p3.
//! - Frame III, shared memory (places p13 waiting, p14 latency counter, p15
//!   access done): t6 takes p11 and p8 and marks p13; t17 "Waiting for the
//!   shared memory access" counts; t12 "Access to the shared memory" fires
//!   after l2 executions of t17; t14 returns p0, p2, p3 ("Note that the
//!   control is returned by t5 not t11 in the case of [...] global memory").
//! - Frame IV, global memory (p16 waiting, p17 counter, p18 access done): t5
//!   takes p11 and p10, marks p16 and returns p0 at once ("Thanks to that, SM
//!   can process the next ready warp while the current one is waiting"); t8
//!   counts; t9 fires after l1 executions of t8; t11 returns p2, p3.
//! - t10 and t13 are not described by Table 1. We make them the drains of the
//!   latency counters (see [`LatencyCounting::CountUp`]).
//! - t16 "Termination of the warp": takes p1 and p2, with inhibitor arcs from
//!   p5, p7, p9 (§4), and also takes p3. Without p3, t16 could win the
//!   conflict on p2 against t1 right after the last instruction was selected
//!   and end the warp with that instruction unexecuted.
//! - t0 "Waiting": a loop with p0 and inhibitor arcs from every warp's p2.
//!
//! # End of a run
//! §4 says the run goes "until reaching the dead marking. The latter is
//! obtained only when all places corresponding to p1 [...] become empty". But
//! once every warp has terminated every p2 is empty, so t0 (a loop on p0) stays
//! enabled for ever. We therefore stop the run at the step in which the last
//! warp terminates (all p1 empty), which is what the paper counts.

use crate::net::{Net, NetBuilder, NetError, PlaceId, TransitionId};
use crate::rng::splitmix64;
use crate::sim::{SimError, Simulator};
use serde::Serialize;

/// l1 = 20 steps, the paper's default for the global memory (§4).
pub const DEFAULT_GLOBAL_LATENCY: u32 = 20;
/// l2 = 2 steps, the paper's default for the shared memory (§4).
pub const DEFAULT_SHARED_LATENCY: u32 = 2;
/// Warp schedulers per SM: §4 says "2 or 4"; the paper's GTX 960M (Maxwell)
/// has 4 per SM, so 4 is the default.
pub const DEFAULT_SCHEDULERS: u32 = 4;
/// Places per warp part (Table 1 / §4: "18 places and 17 transitions for every warp").
pub const PLACES_PER_WARP: usize = 18;
/// Transitions per warp part.
pub const TRANSITIONS_PER_WARP: usize = 17;

/// What each place and transition stands for: Table 1, and our names for the
/// places and transitions it leaves out (marked "ours").
pub const PLACE_ROLES: [&str; 19] = [
    "Streaming Multiprocessor (SM)",
    "Active warp",
    "The previous instruction is finished and the warp is ready for the next one",
    "Check the next instruction",
    "Next instruction is ready",
    "Arithmetic operations",
    "Instruction - arithmetic calculation",
    "Access to the shared memory",
    "Instruction - shared memory access",
    "Access to the global memory",
    "Instruction - global memory access",
    "Warp issued on the SM (ours)",
    "Arithmetic calculation in progress (ours)",
    "Waiting for the shared memory (ours)",
    "Shared memory latency counter (ours)",
    "Shared memory access done (ours)",
    "Waiting for the global memory (ours)",
    "Global memory latency counter (ours)",
    "Global memory access done (ours)",
];

/// Table 1's transitions t0..t17, with our names for t10 and t13.
pub const TRANSITION_ROLES: [&str; 18] = [
    "Waiting",
    "The warp is executed on SM",
    "Selection of a calculation for the next instruction",
    "Selection of an access to the shared memory for the next instruction",
    "Selection of an access to the global memory for the next instruction",
    "Execution of the access to the global memory",
    "Execution of the access to the shared memory",
    "Execution of arithmetic operation",
    "Waiting for the global memory access",
    "Access to the global memory",
    "Global latency counter drain (ours)",
    "Access to the global memory is finished",
    "Access to the shared memory",
    "Shared latency counter drain (ours)",
    "Access to the shared memory is finished",
    "Calculation is finished",
    "Termination of the warp",
    "Waiting for the shared memory access",
];

/// How "t9 (t12) may be executed only after l1 (l2) executions of t8 (t17)" (§4) is wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyCounting {
    /// The reading closest to the text, where every transition of Table 1 has
    /// a role: t8 is a loop on the waiting place that adds a token to the
    /// counter; t9 takes the waiting token and l1 counter tokens. Once the
    /// counter reaches l1, t8 and t9 conflict on the waiting place and the
    /// step's permutation decides, so the latency is l1 plus a geometric
    /// number of steps (one on average); t10 drains the counter tokens left
    /// over (inhibited while a request waits).
    #[default]
    CountUp,
    /// An exact latency: t5 puts l1 tokens in the counter, t8 removes one per
    /// step while the request waits, t9 fires once the counter is empty
    /// (inhibitor arc). t10 keeps its arcs but never fires.
    Countdown,
}

/// The instruction counts of one warp (initial markings of p5, p7, p9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct WarpCounts {
    /// x_a: arithmetic instructions.
    pub arithmetic: u32,
    /// x_s: shared-memory accesses.
    pub shared: u32,
    /// x_g: global-memory accesses.
    pub global: u32,
}

impl WarpCounts {
    pub fn new(arithmetic: u32, shared: u32, global: u32) -> Self {
        Self {
            arithmetic,
            shared,
            global,
        }
    }

    pub fn total(&self) -> u64 {
        u64::from(self.arithmetic) + u64::from(self.shared) + u64::from(self.global)
    }
}

/// Everything the generated net depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WarpModelConfig {
    /// One entry per warp (a WPNM is generated for each).
    pub warps: Vec<WarpCounts>,
    /// K: tokens of p0.
    pub schedulers: u32,
    /// l1, in steps.
    pub global_latency: u32,
    /// l2, in steps.
    pub shared_latency: u32,
    pub latency_counting: LatencyCounting,
}

impl WarpModelConfig {
    /// `n` warps with the same counts and the paper's defaults.
    pub fn uniform(n: usize, counts: WarpCounts) -> Self {
        Self {
            warps: vec![counts; n],
            schedulers: DEFAULT_SCHEDULERS,
            global_latency: DEFAULT_GLOBAL_LATENCY,
            shared_latency: DEFAULT_SHARED_LATENCY,
            latency_counting: LatencyCounting::default(),
        }
    }
}

/// Why the model could not be built or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WarpError {
    #[error("the model needs at least one warp")]
    NoWarps,
    #[error("the SM place needs at least one warp scheduler token")]
    NoSchedulers,
    #[error("at least one run is needed")]
    NoRuns,
    #[error("{0}")]
    Net(#[from] NetError),
    #[error("{0}")]
    Sim(#[from] SimError),
    #[error("the net reached a dead marking at step {step} with {active} warp(s) still active")]
    Deadlock { step: u64, active: usize },
    #[error("the run did not finish within the budget of {budget} steps")]
    Budget { budget: u64 },
}

/// The nodes of one warp part: `places[k - 1]` is p_k, `transitions[k - 1]` is t_k.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpNodes {
    pub places: [PlaceId; PLACES_PER_WARP],
    pub transitions: [TransitionId; TRANSITIONS_PER_WARP],
}

impl WarpNodes {
    /// p_k for k in 1..=18.
    pub fn p(&self, k: usize) -> PlaceId {
        self.places[k - 1]
    }

    /// t_k for k in 1..=17.
    pub fn t(&self, k: usize) -> TransitionId {
        self.transitions[k - 1]
    }
}

/// The generated net and where its parts are.
#[derive(Debug, Clone)]
pub struct WarpNet {
    pub net: Net,
    pub config: WarpModelConfig,
    /// p0.
    pub sm: PlaceId,
    /// t0.
    pub waiting: TransitionId,
    pub warps: Vec<WarpNodes>,
}

/// Build the net of §4 for the configured warps. Places are named `p<k>.w<i>`
/// and transitions `t<k>.w<i>` (the paper's two-part labels), plus `p0` and `t0`.
pub fn build(config: &WarpModelConfig) -> Result<WarpNet, WarpError> {
    if config.warps.is_empty() {
        return Err(WarpError::NoWarps);
    }
    if config.schedulers == 0 {
        return Err(WarpError::NoSchedulers);
    }
    let mut b = NetBuilder::new(format!("gpu-warps-{}", config.warps.len()));
    let sm = b.place("p0", config.schedulers);
    let waiting = b.transition("t0");
    b.read(sm, waiting, 1);
    let mut warps = Vec::with_capacity(config.warps.len());
    for (i, counts) in config.warps.iter().enumerate() {
        let initial = |k: usize| match k {
            1..=3 => 1,
            5 => counts.arithmetic,
            7 => counts.shared,
            9 => counts.global,
            _ => 0,
        };
        let places: [PlaceId; PLACES_PER_WARP] =
            std::array::from_fn(|k| b.place(format!("p{}.w{i}", k + 1), initial(k + 1)));
        let transitions: [TransitionId; TRANSITIONS_PER_WARP] =
            std::array::from_fn(|k| b.transition(format!("t{}.w{i}", k + 1)));
        let nodes = WarpNodes {
            places,
            transitions,
        };
        wire_warp(&mut b, &nodes, sm, config);
        b.inhibitor(nodes.p(2), waiting);
        warps.push(nodes);
    }
    Ok(WarpNet {
        net: b.build()?,
        config: config.clone(),
        sm,
        waiting,
        warps,
    })
}

/// The arcs of one warp part (see the module documentation).
fn wire_warp(b: &mut NetBuilder, w: &WarpNodes, sm: PlaceId, config: &WarpModelConfig) {
    let (p, t) = (|k| w.p(k), |k| w.t(k));
    // t1: the warp is issued on a free scheduler.
    b.input(sm, t(1), 1)
        .input(p(2), t(1), 1)
        .input(p(4), t(1), 1)
        .read(p(1), t(1), 1)
        .output(t(1), p(11), 1);
    // Frame I: selection of the next instruction.
    for (sel, count, kind) in [(2, 5, 6), (3, 7, 8), (4, 9, 10)] {
        b.input(p(3), t(sel), 1)
            .input(p(count), t(sel), 1)
            .output(t(sel), p(4), 1)
            .output(t(sel), p(kind), 1);
    }
    // Frame II: arithmetic.
    b.input(p(11), t(7), 1)
        .input(p(6), t(7), 1)
        .output(t(7), p(12), 1);
    b.input(p(12), t(15), 1)
        .output(t(15), sm, 1)
        .output(t(15), p(2), 1)
        .output(t(15), p(3), 1);
    // Frame III: shared memory, latency l2 (start t6, tick t17, access t12, drain t13, finish t14).
    b.input(p(11), t(6), 1)
        .input(p(8), t(6), 1)
        .output(t(6), p(13), 1);
    latency_arcs(
        b,
        config.latency_counting,
        config.shared_latency,
        [t(6), t(17), t(12), t(13)],
        [p(13), p(14), p(15)],
    );
    b.input(p(15), t(14), 1)
        .output(t(14), sm, 1)
        .output(t(14), p(2), 1)
        .output(t(14), p(3), 1);
    // Frame IV: global memory, latency l1 (start t5 returns the SM, tick t8,
    // access t9, drain t10, finish t11).
    b.input(p(11), t(5), 1)
        .input(p(10), t(5), 1)
        .output(t(5), sm, 1)
        .output(t(5), p(16), 1);
    latency_arcs(
        b,
        config.latency_counting,
        config.global_latency,
        [t(5), t(8), t(9), t(10)],
        [p(16), p(17), p(18)],
    );
    b.input(p(18), t(11), 1)
        .output(t(11), p(2), 1)
        .output(t(11), p(3), 1);
    // t16: termination once no instruction is left and the last one finished.
    b.input(p(1), t(16), 1)
        .input(p(2), t(16), 1)
        .input(p(3), t(16), 1);
    b.inhibitor(p(5), t(16))
        .inhibitor(p(7), t(16))
        .inhibitor(p(9), t(16));
}

/// The latency counter of a memory frame: `[start, tick, access, drain]` and
/// `[waiting, counter, done]`.
fn latency_arcs(
    b: &mut NetBuilder,
    counting: LatencyCounting,
    latency: u32,
    [start, tick, access, drain]: [TransitionId; 4],
    [waiting, counter, done]: [PlaceId; 3],
) {
    match counting {
        LatencyCounting::CountUp => {
            b.read(waiting, tick, 1).output(tick, counter, 1);
            b.input(waiting, access, 1).output(access, done, 1);
            if latency > 0 {
                b.input(counter, access, latency);
            }
        }
        LatencyCounting::Countdown => {
            if latency > 0 {
                b.output(start, counter, latency);
            }
            b.input(counter, tick, 1).read(waiting, tick, 1);
            b.input(waiting, access, 1)
                .output(access, done, 1)
                .inhibitor(counter, access);
        }
    }
    b.input(counter, drain, 1).inhibitor(waiting, drain);
}

/// One simulation of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunReport {
    pub seed: u64,
    /// Steps until the last warp terminated.
    pub steps: u64,
    /// Steps in which t0 (waiting) fired: the SM had a free scheduler and no warp was ready.
    pub idle_steps: u64,
    /// The step in which each warp's t16 fired.
    pub warp_finish: Vec<u64>,
    /// How many times each transition fired, indexed by transition (not
    /// serialised: 17 numbers per warp).
    #[serde(skip)]
    pub firings: Vec<u64>,
}

/// The runs over several seeds and their means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReport {
    pub config: WarpModelConfig,
    pub places: usize,
    pub transitions: usize,
    pub mean_steps: f64,
    pub min_steps: u64,
    pub max_steps: u64,
    pub mean_idle_steps: f64,
    pub mean_warp_finish: Vec<f64>,
    pub runs: Vec<RunReport>,
}

/// A generous step budget: 4 times the steps of running every instruction of
/// every warp one after the other, plus a margin.
pub fn default_budget(config: &WarpModelConfig) -> u64 {
    let serial: u64 = config
        .warps
        .iter()
        .map(|w| {
            4 * u64::from(w.arithmetic)
                + (u64::from(config.shared_latency) + 8) * u64::from(w.shared)
                + (u64::from(config.global_latency) + 8) * u64::from(w.global)
                + 2
        })
        .sum();
    serial.saturating_mul(4).saturating_add(10_000)
}

/// Run the model once, until every warp has terminated, with the specialised
/// executor ([`crate::fast`]): identical to [`simulate_once_reference`].
pub fn simulate_once(wnet: &WarpNet, seed: u64, budget: u64) -> Result<RunReport, WarpError> {
    crate::fast::simulate_once(wnet, seed, budget)
}

/// Run the model once with the general [`Simulator`] (the reference the
/// specialised executor is tested against).
pub fn simulate_once_reference(
    wnet: &WarpNet,
    seed: u64,
    budget: u64,
) -> Result<RunReport, WarpError> {
    let mut owner = vec![u32::MAX; wnet.net.transitions().len()];
    for (i, w) in wnet.warps.iter().enumerate() {
        owner[w.t(16).index()] = i as u32;
    }
    let mut sim = Simulator::new(&wnet.net, seed);
    let mut finish = vec![0u64; wnet.warps.len()];
    let mut active = wnet.warps.len();
    while active > 0 {
        if sim.steps() >= budget {
            return Err(WarpError::Budget { budget });
        }
        if !sim.step()? {
            return Err(WarpError::Deadlock {
                step: sim.steps(),
                active,
            });
        }
        for t in sim.last_fired() {
            let w = owner[t.index()];
            if w != u32::MAX {
                finish[w as usize] = sim.steps();
                active -= 1;
            }
        }
    }
    Ok(RunReport {
        seed,
        steps: sim.steps(),
        idle_steps: sim.firings()[wnet.waiting.index()],
        warp_finish: finish,
        firings: sim.firings().to_vec(),
    })
}

/// The seed of run `r` of a series started from `seed` (splitmix64 stream).
pub fn run_seeds(seed: u64, runs: usize) -> Vec<u64> {
    let mut s = seed;
    (0..runs).map(|_| splitmix64(&mut s)).collect()
}

/// Build the model and run it `runs` times with seeds derived from `seed`;
/// `budget` defaults to [`default_budget`].
pub fn simulate(
    config: &WarpModelConfig,
    runs: usize,
    seed: u64,
    budget: Option<u64>,
) -> Result<ModelReport, WarpError> {
    if runs == 0 {
        return Err(WarpError::NoRuns);
    }
    let wnet = build(config)?;
    let budget = budget.unwrap_or_else(|| default_budget(config));
    let reports = run_seeds(seed, runs)
        .into_iter()
        .map(|s| simulate_once(&wnet, s, budget))
        .collect::<Result<Vec<_>, _>>()?;
    let n = reports.len() as f64;
    let mean = |f: &dyn Fn(&RunReport) -> u64| reports.iter().map(|r| f(r) as f64).sum::<f64>() / n;
    let mean_warp_finish = (0..config.warps.len())
        .map(|i| mean(&|r| r.warp_finish[i]))
        .collect();
    Ok(ModelReport {
        config: config.clone(),
        places: wnet.net.places().len(),
        transitions: wnet.net.transitions().len(),
        mean_steps: mean(&|r| r.steps),
        min_steps: reports.iter().map(|r| r.steps).min().unwrap_or(0),
        max_steps: reports.iter().map(|r| r.steps).max().unwrap_or(0),
        mean_idle_steps: mean(&|r| r.idle_steps),
        mean_warp_finish,
        runs: reports,
    })
}
