//! arch: the GPU catalog and the occupancy calculator.
//!
//! A tour:
//! - [`gpu`]: the [`Gpu`] description, one `gpus/<id>.toml` file each, with a
//!   `[sources]` table that says where every number comes from and how far it
//!   has been checked ([`SourceStatus`]).
//! - [`cc`]: figures per compute capability (`gpus/compute-capabilities.toml`),
//!   sourced like the GPU files and attached to each GPU as it loads.
//! - [`catalog`]: loading a directory of GPU files or the bundled catalog
//!   ([`Catalog::bundled`]), lookup by id with "did you mean" suggestions.
//! - [`validate`]: consistency checks on a loaded GPU (positive numbers,
//!   limits that agree with each other, a source for every number).
//! - [`occupancy`]: active blocks, warps and the limiting resource for a
//!   launch, following the rules of NVIDIA's CUDA Occupancy Calculator.
//! - [`ptxas`]: register and shared-memory counts from `ptxas -v`.
//!
//! Pure data and pure functions: nothing here prints.

pub mod calibration;
pub mod catalog;
pub mod cc;
pub mod cubin;
pub mod error;
pub mod gpu;
pub mod occupancy;
pub mod ptxas;
pub mod validate;

pub use catalog::{Catalog, parse_gpu};
pub use cc::{CcFigures, CcTable, FetchCurve, FetchPoint};
pub use error::{ArchError, BadComputeCapability, ClockOutOfRange};
pub use gpu::{
    Caches, ClockChoice, Clocks, ComputeCapability, Gpu, Latencies, Limits, Memory, ModelParams,
    Pcie, RegisterGranularity, SmUnits, Source, SourceStatus, Throughput,
};
pub use occupancy::{Limiter, Occupancy, OccupancyInput, occupancy};
pub use ptxas::{KernelResources, RegisterSource};
