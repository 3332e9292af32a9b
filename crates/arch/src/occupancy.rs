//! Occupancy: how many blocks of a launch are resident on one SM, and which
//! resource stops there being more.
//!
//! The rules are those of NVIDIA's CUDA Occupancy Calculator (the spreadsheet,
//! and the runtime's `cudaOccupancyMaxActiveBlocksPerMultiprocessor`), with
//! the per-CC constants taken from the GPU file:
//! - warps: `floor(max_warps_per_sm / ceil(threads / warp_size))`;
//! - blocks: `max_blocks_per_sm`;
//! - registers, per block (CC 1.x): a block takes
//!   `ceil(ceil(warps, warp_gran) * warp_size * regs, unit)` registers;
//!   per warp (CC 2.0+): a warp takes `ceil(regs * warp_size, unit)`, warps are
//!   placed in `warp_gran` register sub-partitions, so the SM holds
//!   `floor(floor(regs_per_sm / regs_per_warp) / warp_gran) * warp_gran` warps;
//! - shared memory: a block takes `ceil(smem + reserved, unit)` bytes
//!   (1 KB reserved per block from CC 8.0) out of the largest carve-out
//!   (the calculator's default preference). The driver then picks the smallest
//!   carve-out that keeps that many blocks; it is reported as `carveout_bytes`.

use serde::Serialize;

use crate::error::ArchError;
use crate::gpu::{Gpu, RegisterGranularity};

/// A launch's per-block resource use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OccupancyInput {
    pub threads_per_block: u32,
    /// Registers per thread, as ptxas reports them (0: unknown, no limit).
    pub registers_per_thread: u32,
    /// Static plus dynamic shared memory per block, bytes.
    pub shared_per_block_bytes: u64,
}

/// The resource that bounds the number of resident blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Threads / warps per SM.
    Warps,
    /// Resident blocks per SM.
    Blocks,
    Registers,
    SharedMemory,
}

impl Limiter {
    pub fn name(&self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::Blocks => "blocks",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
        }
    }
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The result, with every intermediate so it can be explained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Occupancy {
    pub active_blocks_per_sm: u32,
    pub active_warps_per_sm: u32,
    pub active_threads_per_sm: u32,
    /// Active warps / max warps per SM, in [0, 1].
    pub occupancy: f64,
    /// The first limiter reaching the minimum, in the order warps, blocks,
    /// registers, shared memory.
    pub limiter: Limiter,
    /// Every limiter reaching the minimum (ties).
    pub limiters: Vec<Limiter>,
    pub warps_per_block: u32,
    pub blocks_by_warps: u32,
    pub blocks_by_blocks: u32,
    pub blocks_by_registers: u32,
    pub blocks_by_shared: u32,
    /// Registers allocated to one block after rounding.
    pub registers_per_block: u32,
    /// Shared memory allocated to one block after rounding, reserved bytes included.
    pub shared_per_block_bytes: u64,
    /// Shared memory carve-out the driver would choose (None: fixed size).
    pub carveout_bytes: Option<u64>,
}

fn ceil_to(x: u64, unit: u64) -> u64 {
    if unit == 0 {
        x
    } else {
        x.div_ceil(unit) * unit
    }
}

fn clamp_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// Occupancy of a launch on `gpu`. Errors when the launch cannot run at all
/// (block too large, too many registers or too much shared memory).
pub fn occupancy(gpu: &Gpu, input: &OccupancyInput) -> Result<Occupancy, ArchError> {
    let l = &gpu.limits;
    let unlaunchable = |reason: String| ArchError::Unlaunchable {
        gpu: gpu.id.clone(),
        reason,
    };
    let threads = input.threads_per_block;
    if threads == 0 || threads > l.max_threads_per_block {
        return Err(unlaunchable(format!(
            "{threads} threads per block (1 to {} allowed)",
            l.max_threads_per_block
        )));
    }
    let regs = input.registers_per_thread;
    if regs > l.max_registers_per_thread {
        return Err(unlaunchable(format!(
            "{regs} registers per thread (at most {})",
            l.max_registers_per_thread
        )));
    }
    let smem_limit = l
        .shared_per_block_optin_bytes
        .unwrap_or(l.shared_per_block_bytes);
    if input.shared_per_block_bytes > smem_limit {
        return Err(unlaunchable(format!(
            "{} bytes of shared memory per block (at most {smem_limit})",
            input.shared_per_block_bytes
        )));
    }

    let warp_size = u64::from(gpu.sm.warp_size.max(1));
    let warps = u64::from(threads).div_ceil(warp_size);
    let max_blocks = u64::from(l.max_blocks_per_sm);
    let blocks_by_warps = u64::from(l.max_warps_per_sm) / warps;

    // Registers.
    let unit = u64::from(l.register_allocation_unit);
    let gran = u64::from(l.warp_allocation_granularity.max(1));
    let regs_per_sm = u64::from(l.registers_per_sm);
    let (registers_per_block, blocks_by_registers) = if regs == 0 {
        (0, max_blocks)
    } else {
        match l.register_allocation_granularity {
            RegisterGranularity::Block => {
                let per_block = ceil_to(ceil_to(warps, gran) * warp_size * u64::from(regs), unit);
                (per_block, regs_per_sm / per_block)
            }
            RegisterGranularity::Warp => {
                let per_warp = ceil_to(u64::from(regs) * warp_size, unit);
                let warps_fit = (regs_per_sm / per_warp) / gran * gran;
                (per_warp * warps, warps_fit / warps)
            }
        }
    };
    if registers_per_block > u64::from(l.max_registers_per_block) {
        return Err(unlaunchable(format!(
            "{registers_per_block} registers per block after allocation rounding (at most {})",
            l.max_registers_per_block
        )));
    }

    // Shared memory, out of the largest carve-out.
    let smem_block = ceil_to(
        input.shared_per_block_bytes + l.reserved_shared_per_block_bytes,
        l.shared_allocation_unit,
    );
    let blocks_by_shared = l
        .shared_per_sm_bytes
        .checked_div(smem_block)
        .unwrap_or(max_blocks);

    let limits = [
        (Limiter::Warps, blocks_by_warps),
        (Limiter::Blocks, max_blocks),
        (Limiter::Registers, blocks_by_registers),
        (Limiter::SharedMemory, blocks_by_shared),
    ];
    let blocks = limits.iter().map(|(_, b)| *b).min().unwrap_or(0);
    let limiters: Vec<Limiter> = limits
        .iter()
        .filter(|(_, b)| *b == blocks)
        .map(|(lim, _)| *lim)
        .collect();
    let limiter = limiters.first().copied().unwrap_or(Limiter::Warps);
    if blocks == 0 {
        return Err(unlaunchable(format!(
            "not even one block fits on an SM ({limiter} exhausted)"
        )));
    }
    let carveout_bytes = if l.shared_carveouts_kib.is_empty() {
        None
    } else {
        let need = blocks * smem_block;
        l.shared_carveouts_kib
            .iter()
            .map(|kib| u64::from(*kib) * 1024)
            .find(|c| *c >= need)
    };
    let active_warps = blocks * warps;
    Ok(Occupancy {
        active_blocks_per_sm: clamp_u32(blocks),
        active_warps_per_sm: clamp_u32(active_warps),
        active_threads_per_sm: clamp_u32(blocks * u64::from(threads)),
        occupancy: active_warps as f64 / f64::from(l.max_warps_per_sm.max(1)),
        limiter,
        limiters,
        warps_per_block: clamp_u32(warps),
        blocks_by_warps: clamp_u32(blocks_by_warps),
        blocks_by_blocks: clamp_u32(max_blocks),
        blocks_by_registers: clamp_u32(blocks_by_registers),
        blocks_by_shared: clamp_u32(blocks_by_shared),
        registers_per_block: clamp_u32(registers_per_block),
        shared_per_block_bytes: smem_block,
        carveout_bytes,
    })
}
