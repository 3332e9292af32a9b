//! Quantities several adapters derive the same way from a profile, a GPU and
//! an occupancy, so that the models agree on what "per warp" or "active SMs" means.

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use crate::prediction::{ModelError, invalid};

/// Launch-level figures, all as `f64` for the equations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchFigures {
    /// Blocks in the grid.
    pub blocks: f64,
    /// Threads per block.
    pub threads_per_block: f64,
    /// Warps per block (rounded up).
    pub warps_per_block: f64,
    /// Warps in the grid.
    pub total_warps: f64,
    /// Threads in the grid.
    pub threads: f64,
    /// SMs that receive at least one block: `min(#SMs, #Blocks)` (HK-27).
    pub active_sms: f64,
    /// Resident blocks per SM from the occupancy calculation (at least 1).
    pub active_blocks_per_sm: f64,
    /// Resident warps per SM: blocks per SM x warps per block (HK-26), not more
    /// than the warps the grid has per active SM.
    pub active_warps_per_sm: f64,
}

/// Derive the launch figures; errors when the occupancy says no block fits.
pub fn launch_figures(
    model: &'static str,
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<LaunchFigures, ModelError> {
    if occ.active_blocks_per_sm == 0 {
        return Err(invalid(
            model,
            format!("no block of this launch fits on an SM ({})", occ.limiter),
        ));
    }
    let warp = gpu.sm.warp_size.max(1);
    let blocks = profile.launch.blocks() as f64;
    let threads_per_block = profile.launch.threads_per_block() as f64;
    let warps_per_block = profile.launch.warps_per_block(warp) as f64;
    let active_sms = blocks.min(f64::from(gpu.sm_count));
    if active_sms <= 0.0 {
        return Err(invalid(model, "the GPU has no SM"));
    }
    // A grid smaller than one full wave does not fill the resident slots.
    let active_blocks_per_sm = f64::from(occ.active_blocks_per_sm)
        .min((blocks / active_sms).ceil())
        .max(1.0);
    Ok(LaunchFigures {
        blocks,
        threads_per_block,
        warps_per_block,
        total_warps: blocks * warps_per_block,
        threads: blocks * threads_per_block,
        active_sms,
        active_blocks_per_sm,
        active_warps_per_sm: active_blocks_per_sm * warps_per_block,
    })
}

/// Per-warp global memory instruction counts split by coalescing:
/// `(coalesced, uncoalesced)` warp instructions per warp.
///
/// When the profile gives no split but has global requests, every request is
/// taken as coalesced if it needed no more transactions than a fully
/// coalesced request of its size would, else as uncoalesced (documented choice).
pub fn global_split_per_warp(profile: &KernelProfile, total_warps: f64) -> (f64, f64) {
    let g = &profile.global;
    let (coal, uncoal) = if g.coalesced_instructions + g.uncoalesced_instructions > 0.0 {
        (g.coalesced_instructions, g.uncoalesced_instructions)
    } else {
        let requests = g.requests().max(profile.warp_instructions.global());
        let transactions = g.transactions();
        let ideal = (g.bytes() / 128.0).ceil().max(requests);
        if transactions > ideal {
            (0.0, requests)
        } else {
            (requests, 0.0)
        }
    };
    if total_warps > 0.0 {
        (coal / total_warps, uncoal / total_warps)
    } else {
        (0.0, 0.0)
    }
}

/// Transactions per warp instruction for coalesced and uncoalesced requests
/// (`#Coal_per_mw`, `#Uncoal_per_mw`), when the profile gives them.
pub fn transactions_per_request(profile: &KernelProfile) -> (Option<f64>, Option<f64>) {
    let g = &profile.global;
    let ratio = |t: f64, r: f64| {
        if r > 0.0 && t > 0.0 {
            Some(t / r)
        } else {
            None
        }
    };
    (
        ratio(g.coalesced_transactions, g.coalesced_instructions),
        ratio(g.uncoalesced_transactions, g.uncoalesced_instructions),
    )
}

/// Bytes moved at DRAM: the profile's figure, else transactions x segment size
/// (`transaction_bytes`), else the bytes requested.
pub fn dram_bytes(profile: &KernelProfile, transaction_bytes: f64) -> f64 {
    let g = &profile.global;
    if let Some(b) = g.dram_bytes {
        return b;
    }
    let by_transactions = g.transactions() * transaction_bytes;
    if by_transactions > 0.0 {
        by_transactions
    } else {
        g.bytes()
    }
}

/// Size of one DRAM transaction the profile's transaction counts refer to:
/// the catalog's `transaction_bytes` of the GPU's compute capability
/// (32 bytes from 3.0 on: sectors from 7.0, L2-only global loads on Kepler
/// to Pascal; 128-byte segments on CC 1.x and 2.0).
pub fn transaction_bytes(gpu: &Gpu) -> f64 {
    gpu.cc_figures.transaction_bytes
}

/// The clock that turns the models' cycles into seconds, MHz: a sustained
/// clock where one is given (`clocks.sustained_mhz`, `--clock-mhz`), else the
/// clock the seeds' papers used for this GPU where the GPU file records one
/// (`model_params.paper_clock_mhz`, e.g. 1300 for the GTX 280), else the
/// GPU's model clock.
pub fn clock_mhz(gpu: &Gpu) -> f64 {
    gpu.clocks
        .sustained_mhz
        .or(gpu.model_params.paper_clock_mhz)
        .unwrap_or_else(|| gpu.clock_mhz())
}

/// [`clock_mhz`] in Hz.
pub fn clock_hz(gpu: &Gpu) -> f64 {
    clock_mhz(gpu) * 1e6
}
