//! Launchability: whether a configuration can launch on a GPU at all, and if
//! not, why. The occupancy rules are `arch::occupancy`'s; this module adds the
//! per-dimension block and grid limits and the static shared-memory limit,
//! and turns each failure into a [`Rejection`] a report can count.
//!
//! Limits by compute capability, from the CUDA C++ Programming Guide
//! ("Features and Technical Specifications", technical specifications per
//! compute capability):
//! - block x and y: 512 on CC 1.x, 1024 from CC 2.0; block z: 64;
//! - grid x: 65535 before CC 3.0, 2^31 - 1 from CC 3.0; grid y: 65535;
//!   grid z: 1 on CC 1.x, 65535 from CC 2.0;
//! - static shared memory per block is limited to the non-opt-in size (48 KB
//!   from CC 2.0); only dynamic shared memory may use the opt-in maximum.

use std::fmt;

use arch::{ComputeCapability, Gpu, Occupancy, OccupancyInput, occupancy};
use serde::Serialize;

use crate::launch::LaunchDims;
use crate::space::Config;

/// Per-thread and per-block resources of a compiled configuration (from
/// `ptxas -v`, or an estimate when it is not available).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Resources {
    /// Registers per thread; 0 when unknown (no register limit applied).
    pub registers_per_thread: u32,
    /// `__shared__` arrays of the kernel, bytes.
    pub static_shared_bytes: u64,
    /// Shared memory given at launch, bytes.
    pub dynamic_shared_bytes: u64,
}

/// Why a configuration cannot launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Rejection {
    /// A block dimension (0 = x) above the GPU's limit, or zero.
    BlockDimension {
        dim: usize,
        size: u64,
        max: u64,
    },
    /// A grid dimension (0 = x) above the GPU's limit, or zero.
    GridDimension {
        dim: usize,
        size: u64,
        max: u64,
    },
    ThreadsPerBlock {
        threads: u64,
        max: u32,
    },
    RegistersPerThread {
        registers: u32,
        max: u32,
    },
    /// Static `__shared__` above the non-opt-in limit.
    StaticSharedMemory {
        bytes: u64,
        max: u64,
    },
    /// Static plus dynamic shared memory above the (opt-in) limit.
    SharedMemory {
        bytes: u64,
        max: u64,
    },
    /// The occupancy calculator found no block fits on an SM (registers per
    /// block after rounding, for instance); its explanation.
    NoActiveBlock {
        detail: String,
    },
}

impl Rejection {
    /// A short stable name, for counting rejections by kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::BlockDimension { .. } => "block_dimension",
            Rejection::GridDimension { .. } => "grid_dimension",
            Rejection::ThreadsPerBlock { .. } => "threads_per_block",
            Rejection::RegistersPerThread { .. } => "registers_per_thread",
            Rejection::StaticSharedMemory { .. } => "static_shared_memory",
            Rejection::SharedMemory { .. } => "shared_memory",
            Rejection::NoActiveBlock { .. } => "no_active_block",
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const AXES: [&str; 3] = ["x", "y", "z"];
        let axis = |d: &usize| AXES.get(*d).copied().unwrap_or("?");
        match self {
            Rejection::BlockDimension { dim, size, max } => {
                write!(f, "block {} = {size} (1 to {max} allowed)", axis(dim))
            }
            Rejection::GridDimension { dim, size, max } => {
                write!(f, "grid {} = {size} (1 to {max} allowed)", axis(dim))
            }
            Rejection::ThreadsPerBlock { threads, max } => {
                write!(f, "{threads} threads per block (at most {max})")
            }
            Rejection::RegistersPerThread { registers, max } => {
                write!(f, "{registers} registers per thread (at most {max})")
            }
            Rejection::StaticSharedMemory { bytes, max } => write!(
                f,
                "{bytes} bytes of static shared memory per block (at most {max})"
            ),
            Rejection::SharedMemory { bytes, max } => {
                write!(
                    f,
                    "{bytes} bytes of shared memory per block (at most {max})"
                )
            }
            Rejection::NoActiveBlock { detail } => f.write_str(detail),
        }
    }
}

/// Largest block dimensions of a compute capability.
pub fn max_block_dims(cc: ComputeCapability) -> [u64; 3] {
    if cc.major < 2 {
        [512, 512, 64]
    } else {
        [1024, 1024, 64]
    }
}

/// Largest grid dimensions of a compute capability.
pub fn max_grid_dims(cc: ComputeCapability) -> [u64; 3] {
    match cc.major {
        0 | 1 => [65535, 65535, 1],
        2 => [65535, 65535, 65535],
        _ => [(1 << 31) - 1, 65535, 65535],
    }
}

/// Checks one launch; on success returns its occupancy.
pub fn check_launch(gpu: &Gpu, dims: &LaunchDims, res: &Resources) -> Result<Occupancy, Rejection> {
    let l = &gpu.limits;
    let cc = gpu.compute_capability;
    for (dim, (size, max)) in dims.block.iter().zip(max_block_dims(cc)).enumerate() {
        if *size == 0 || *size > max {
            return Err(Rejection::BlockDimension {
                dim,
                size: *size,
                max,
            });
        }
    }
    // Each dimension is at most 1024 here, so the product fits.
    let threads = dims.threads_per_block();
    if threads > u64::from(l.max_threads_per_block) {
        return Err(Rejection::ThreadsPerBlock {
            threads,
            max: l.max_threads_per_block,
        });
    }
    if let Some(grid) = dims.grid {
        for (dim, (size, max)) in grid.iter().zip(max_grid_dims(cc)).enumerate() {
            if *size == 0 || *size > max {
                return Err(Rejection::GridDimension {
                    dim,
                    size: *size,
                    max,
                });
            }
        }
    }
    if res.registers_per_thread > l.max_registers_per_thread {
        return Err(Rejection::RegistersPerThread {
            registers: res.registers_per_thread,
            max: l.max_registers_per_thread,
        });
    }
    if res.static_shared_bytes > l.shared_per_block_bytes {
        return Err(Rejection::StaticSharedMemory {
            bytes: res.static_shared_bytes,
            max: l.shared_per_block_bytes,
        });
    }
    let shared = res
        .static_shared_bytes
        .saturating_add(res.dynamic_shared_bytes);
    let shared_max = l
        .shared_per_block_optin_bytes
        .unwrap_or(l.shared_per_block_bytes);
    if shared > shared_max {
        return Err(Rejection::SharedMemory {
            bytes: shared,
            max: shared_max,
        });
    }
    let input = OccupancyInput {
        threads_per_block: u32::try_from(threads).unwrap_or(u32::MAX),
        registers_per_thread: res.registers_per_thread,
        shared_per_block_bytes: shared,
    };
    occupancy(gpu, &input).map_err(|e| Rejection::NoActiveBlock {
        detail: match e {
            arch::ArchError::Unlaunchable { reason, .. } => reason,
            other => other.to_string(),
        },
    })
}

/// One configuration ready to check.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub config: Config,
    pub dims: LaunchDims,
    pub resources: Resources,
}

/// A configuration that can launch, with its occupancy.
#[derive(Debug, Clone, PartialEq)]
pub struct Launchable {
    pub candidate: Candidate,
    pub occupancy: Occupancy,
}

/// The result of [`filter_launchable`], both lists in input order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaunchFilter {
    pub launchable: Vec<Launchable>,
    pub rejected: Vec<(Candidate, Rejection)>,
}

impl LaunchFilter {
    /// Rejections counted by [`Rejection::kind`], sorted by kind.
    pub fn rejected_by_kind(&self) -> Vec<(&'static str, usize)> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for (_, r) in &self.rejected {
            match counts.iter_mut().find(|(k, _)| *k == r.kind()) {
                Some((_, n)) => *n += 1,
                None => counts.push((r.kind(), 1)),
            }
        }
        counts.sort();
        counts
    }
}

/// Splits candidates into launchable and rejected on `gpu`.
pub fn filter_launchable(gpu: &Gpu, candidates: Vec<Candidate>) -> LaunchFilter {
    let mut out = LaunchFilter::default();
    for c in candidates {
        match check_launch(gpu, &c.dims, &c.resources) {
            Ok(occupancy) => out.launchable.push(Launchable {
                candidate: c,
                occupancy,
            }),
            Err(r) => out.rejected.push((c, r)),
        }
    }
    out
}
