//! Execution: decode the IR once ([`decode`]), lay out memory ([`layout`]),
//! then run CTAs warp by warp ([`warp`], [`cta`]) for a launch ([`launch()`]).
//! A run for its events alone (`LaunchOptions::addresses_only`) leaves out
//! the work whose results no address or branch reads ([`idle`]).

pub(crate) mod alu;
pub mod bind;
pub mod cta;
pub mod decode;
pub mod idle;
pub mod launch;
pub mod layout;
pub mod layout_error;
pub mod ops;
pub mod printf;
pub mod subset;
pub mod warp;

pub use bind::{HostArg, HostConstant, HostLaunch, StructPointer, host_launch};
pub use launch::{
    Buffer, CtaSelection, DEVICE_HEAP_BYTES, LaunchOptions, LaunchResult, LaunchStats,
    evenly_spaced, launch, launch_boxed, spread_ctas,
};
pub use subset::{launch_ctas, probe_ctas};

use crate::fault::Fault;
use crate::observer::Observer;
use crate::spec::LaunchSpec;

/// Why a run did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The PTX text does not parse; the rendered diagnostics.
    #[error("{0}")]
    Parse(String),
    /// The launch was invalid or a thread faulted.
    #[error("{0}")]
    Fault(Box<Fault>),
}

/// Parse `text` (the PTX file `file`) and run the spec's kernel on it.
pub fn run_ptx<O: Observer>(
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    obs: &mut O,
) -> Result<LaunchResult, RunError> {
    let module = ptx::parse(file, text).map_err(|d| RunError::Parse(d.render(file, text)))?;
    launch_boxed(&module, text, file, spec, opts, obs).map_err(RunError::Fault)
}
