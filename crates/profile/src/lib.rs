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
//! - [`workload`]: measured-only sections ([`Workload`]: Kerr et al.'s
//!   metrics and the footprint; [`CacheFigures`]: a cache model's hit rates
//!   and DRAM bytes), all optional so hand-written profiles need not state them.
//!
//! The `characterize` crate's collector and the `pipeline` crate fill the same struct.

pub mod kernel_profile;
mod parse;
pub mod sm_arch;
pub mod workload;

pub use kernel_profile::{
    AnalysisInputs, Atomics, Branches, ClassMix, CompilerVersion, GlobalMemory, GpuPerfInputs,
    KernelProfile, KothapalliInputs, Launch, LocalMemory, MwpCwpInputs, ParallelismInputs,
    PerThread, RegisterSource, Resources, RooflineInputs, SharedMemory, SpillInputs,
    Synchronisation, TensorWork, Traffic,
};
pub use parse::ProfileError;
pub use sm_arch::SmArch;
pub use workload::{CacheFigures, L1_HIT_AGE_BUCKETS, Workload};
