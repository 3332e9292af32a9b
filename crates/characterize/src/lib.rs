//! characterize: turns the emulator's events into the workload metrics of
//! Kerr, Diamos and Yalamanchili (seed 001) and into a [`profile::KernelProfile`].
//!
//! Tour:
//! - [`coalesce`]: transactions of a warp-wide global access under the
//!   compute-capability 1.2 half-warp protocol and the modern sector protocol.
//! - [`bank_memo`]: the last cost of each instruction's access, reused when
//!   the next has the same shape moved by whole rows of banks.
//! - [`banks`]: shared-memory bank-conflict ways (32 banks per warp, or 16
//!   per half-warp), with the broadcast rule; wide accesses by phase.
//! - [`wide_shared`]: which neighbouring shared accesses ptxas issues as one
//!   `LDS.64`/`LDS.128` (static windows, checked for alignment at run time).
//! - [`metrics`]: activity factor, memory intensity and efficiency, MIMD and
//!   SIMD parallelism (equations 1-7) as pure functions of counts.
//! - [`static_info`]: per-instruction facts from the IR (class, source line,
//!   the data-flow exemption of shared stores fed by global loads).
//! - [`collector`]: the [`emu::observer::Observer`] that counts a run;
//!   [`counters`] holds its plain counters, [`sector_set`] the global
//!   footprint; `live_cta` the running CTA's state, `merge` the merging of
//!   the collectors of CTA ranges run on several host threads.
//! - [`sampling`]: which CTAs `--sample-ctas K` watches, and the error estimate.
//! - [`report`]: [`Characterization`], the metrics in DESIGN.md's JSON schema 1.
//! - [`profile_map`]: [`Characterization::to_profile`], the models' [`profile::KernelProfile`].
//! - [`run`]: [`characterize`], emulator plus collector for one policy.

pub mod bank_memo;
pub mod banks;
pub mod class_counts;
pub mod coalesce;
pub mod collector;
pub mod counters;
mod live_cta;
mod merge;
pub mod metrics;
pub mod profile_map;
pub mod report;
pub mod run;
pub mod sampling;
pub mod sector_set;
pub mod static_info;
pub mod tensor_work;
pub mod wide_shared;

pub use banks::{BankConflicts, BankLayout, bank_conflicts};
pub use class_counts::ClassCounts;
// Consumers of the typed mixes name the classes without depending on ptx.
pub use coalesce::{Coalescing, Protocol, coalesce};
pub use collector::Collector;
pub use ptx::analysis::InstClass;
pub use report::{Characterization, CudaLine, LineRow, ModelInputs};
pub use run::{
    CharacterizeError, Options, Phases, characterize, characterize_ptx, characterize_timed,
    characterize_with, policy_name,
};
pub use sampling::Sample;
pub use static_info::InstTable;
