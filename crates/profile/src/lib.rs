//! profile: the [`KernelProfile`], every fact about one kernel launch that the
//! analytical models use.
//!
//! Tour:
//! - [`kernel_profile`]: the plain data struct and its sections (launch,
//!   instruction mixes, memory traffic, barriers, atomics, branches,
//!   resources, and optional figures that a paper's analysis states directly).
//!   Every field's doc gives its unit.
//! - [`KernelProfile::from_toml`]: read a hand-written profile, with errors
//!   located at `line:col`; [`KernelProfile::validate`] rejects numbers the
//!   models cannot use (negative, NaN, infinite, empty launch).
//!
//! The emulator's collector (a later issue) fills the same struct.

pub mod kernel_profile;
mod parse;

pub use kernel_profile::{
    AnalysisInputs, Atomics, Branches, ClassMix, GlobalMemory, GpuPerfInputs, KernelProfile,
    KothapalliInputs, Launch, LocalMemory, MwpCwpInputs, PerThread, RegisterSource, Resources,
    RooflineInputs, SharedMemory, Synchronisation, Traffic,
};
pub use parse::ProfileError;
