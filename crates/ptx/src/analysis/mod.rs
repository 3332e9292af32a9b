//! Analyses over the IR, kept as side tables: the IR is never mutated.
//!
//! - [`cfg`]: basic blocks and the block graph of a function ([`Cfg`]).
//! - [`flow`]: dominators, immediate post-dominators with a virtual exit,
//!   loop nesting, and the reconvergence point of each branch
//!   ([`FunctionFlow`]), on top of the `flowgraph` crate.
//! - [`idle`]: which instructions write only registers that no address,
//!   branch or other effect reads ([`unneeded_results`], [`idle_results`]
//!   for a launch that says where its pointers point), what a run for
//!   addresses alone may skip.
//! - [`mix`]: [`InstClass`], [`class_of`] and the static [`InstMix`]; the
//!   dynamic profiler classifies executed instructions with the same function.
//! - [`registers`]: registers per thread estimated from the PTX (register
//!   pressure from liveness), the occupancy input when ptxas is absent.
//! - [`resources`]: declared registers by type (for display, not occupancy)
//!   and static shared memory.
//! - [`kernel`]: finding a kernel by name, C++ mangled names included.
pub mod cfg;
pub mod flow;
pub mod idle;
pub mod ilp;
pub mod kernel;
pub mod mix;
pub mod registers;
pub mod resources;
pub mod source;

pub use cfg::{BasicBlock, BlockId, Cfg, CfgError};
pub use flow::{FunctionFlow, Reconvergence};
pub use flowgraph::PostDom;
pub use idle::{Bindings, Idleness, Places, idle_results, unneeded_results};
pub use kernel::{KernelLookup, SelectError, find_kernel, select_function};
pub use mix::{ConvertKind, InstClass, InstMix, class_of, convert_kind};
pub use resources::{RegisterUsage, SharedUsage, declared_registers, shared_memory};
pub use source::{SourceLine, SourceLines, source_line, user_position};

#[cfg(test)]
mod tests;
