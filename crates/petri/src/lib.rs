//! petri: bounded place/transition nets with inhibitor arcs, and the warp model
//! of Gogolinska, Mikulski and Piątkowski (seed 003) built on them.
//!
//! A short tour:
//! - [`net`]: the structure (places, transitions, weighted and inhibitor arcs,
//!   capacities), built with [`NetBuilder`] into a frozen [`Net`] with
//!   precomputed arc lists.
//! - [`sim`]: the [`Simulator`]: single firings and maximal concurrent steps
//!   with conflicts resolved by a seeded random permutation, dead-marking
//!   detection, step and firing counters, a step budget.
//! - [`rng`]: the deterministic PRNG (xoshiro256** seeded by splitmix64) and
//!   the counter-based step keys that order each maximal step.
//! - [`warp`]: the warp sub-net of the paper's Table 1 and Figure 2, generated
//!   for N warps with per-warp instruction counts, simulated over several seeds.
//! - [`fast`]: a specialised executor for the warp net, step for step identical
//!   to the general simulator (same keys, same firings), with latency counting
//!   advanced in bulk and quiet steps skipped.
//! - [`sweep`]: a total amount of work split over thread counts, and the SVG
//!   plot of steps against threads.
//! - [`counts`]: an emulated run's instruction classes mapped to x_a, x_s, x_g
//!   per warp.
//! - [`emulated`]: launch specs run in the emulator, their counts given to
//!   the model, per thread count.
//! - [`pnml`] and [`dot`]: export of any net to PNML (ISO/IEC 15909-2) and DOT.
//!
//! Everything but [`emulated`] (which runs the emulator) is a pure function of
//! its inputs and seed; nothing prints.

pub mod counts;
pub mod dot;
pub mod emulated;
#[cfg(test)]
mod emulated_tests;
pub mod fast;
pub mod net;
pub mod pnml;
pub mod rng;
pub mod sim;
pub mod sweep;
pub mod warp;

pub use dot::to_dot;
pub use net::{Arc, ArcKind, Net, NetBuilder, NetError, Place, PlaceId, Transition, TransitionId};
pub use pnml::{InhibitorStyle, to_pnml};
pub use rng::{Rng, StepKeys, StepSalt, TransitionCode};
pub use sim::{SimError, Simulator, StopReason};
pub use sweep::{SweepConfig, SweepError, SweepRow};
pub use warp::{
    LatencyCounting, ModelReport, RunReport, WarpCounts, WarpError, WarpModelConfig, WarpNet,
};
