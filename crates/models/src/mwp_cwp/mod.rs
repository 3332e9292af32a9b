//! Hong & Kim (ISCA 2009), the MWP-CWP model, exactly as models.md 1.3 states
//! it (equations HK-1 to HK-24; the numbering is models.md's own).
//!
//! [`evaluate`] works on an explicit [`MwpCwpParams`] (the paper's symbols) and
//! returns every intermediate value in [`MwpCwpResult`]; [`adapter`] fills the
//! parameters from a profile, a GPU and an occupancy.
//!
//! Three modes (models.md 8, item 1):
//! - [`Mode::Exact`]: the equations in `f64`, no rounding.
//! - [`Mode::PaperExample`]: the rounding the slides' worked example uses
//!   (models.md 1.8): MWP_Without_BW_full and CWP_full to 2 decimals,
//!   BW_per_warp to 3 decimals and MWP_peak_BW from the rounded BW_per_warp,
//!   Exec_cycles_app rounded up to a whole cycle, Synch_cost to the nearest
//!   whole cycle.
//! - [`Mode::Klaraptor`]: the KLARAPTOR variant (models.md 1.5): ceilings on
//!   MWP_Without_BW_full, CWP_full and #Rep, `min(MWP, warps per block)` in
//!   the synchronisation cost, `#Uncoal_per_mw = 0` read as 1 after Mem_L_Uncoal.
//!
//! Guards (models.md 1.4, the choice there is the document's, not the paper's):
//! with no memory instruction the weights, Mem_L and Departure_delay are 0,
//! MWP = N, and the kernel is taken as Case 3 (pure computation), because
//! HK-16 and Case 2 would divide by zero. A kernel without any instruction is
//! an error. Equality tests (Case 1) use a relative tolerance of 1e-9.

pub mod adapter;

use crate::prediction::{ModelError, invalid, non_negative, positive};

const MODEL: &str = "mwp-cwp";

/// Rounding mode of the evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The equations as written, in `f64`.
    Exact,
    /// The rounding of the slides' worked example (models.md 1.8).
    PaperExample,
    /// The KLARAPTOR variant (models.md 1.5).
    Klaraptor,
}

/// The model's inputs, named as in the paper (models.md 1.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MwpCwpParams {
    /// `#Threads_per_warp`, threads.
    pub threads_per_warp: f64,
    /// `#Issue_cycles`: cycles to issue one warp instruction.
    pub issue_cycles: f64,
    /// `Freq`: SM clock, GHz.
    pub freq_ghz: f64,
    /// `Mem_Bandwidth`: DRAM bandwidth, GB/s.
    pub mem_bandwidth_gbs: f64,
    /// `Mem_LD`: base DRAM latency, cycles.
    pub mem_ld: f64,
    /// `Departure_del_uncoal`: spacing of two uncoalesced transactions, cycles.
    pub departure_del_uncoal: f64,
    /// `Departure_del_coal`: spacing of two coalesced memory warps, cycles.
    pub departure_del_coal: f64,
    /// `#Threads_per_block`.
    pub threads_per_block: f64,
    /// `#Blocks`.
    pub blocks: f64,
    /// `#Active_blocks_per_SM`.
    pub active_blocks_per_sm: f64,
    /// `#Active_SMs`.
    pub active_sms: f64,
    /// `#Comp_insts`: computation instructions per thread (= per warp).
    pub comp_insts: f64,
    /// `#Uncoal_Mem_insts`: uncoalesced global memory instructions per thread.
    pub uncoal_mem_insts: f64,
    /// `#Coal_Mem_insts`: coalesced global memory instructions per thread.
    pub coal_mem_insts: f64,
    /// `#Synch_insts`: barriers per thread.
    pub synch_insts: f64,
    /// `#Coal_per_mw`: transactions per coalesced memory warp.
    pub coal_per_mw: f64,
    /// `#Uncoal_per_mw`: transactions per uncoalesced memory warp.
    pub uncoal_per_mw: f64,
    /// `Load_bytes_per_warp`: bytes per warp per memory instruction.
    pub load_bytes_per_warp: f64,
    /// Use the general HK-4 (`Mem_LD + (#Coal_per_mw - 1) * Departure_del_coal`)
    /// instead of `Mem_L_Coal = Mem_LD` (models.md 1.3: off by default).
    pub general_coal_latency: bool,
}

/// Which of the three execution-time cases applied (HK-18 to HK-20).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// Not enough warps: MWP == N and CWP == N.
    NotEnoughWarps,
    /// Memory bound: CWP >= MWP, or Comp_cycles > Mem_cycles.
    MemoryBound,
    /// Computation bound: MWP > CWP.
    ComputeBound,
}

impl Case {
    /// 1, 2 or 3, as the paper numbers them.
    pub fn number(self) -> u8 {
        match self {
            Case::NotEnoughWarps => 1,
            Case::MemoryBound => 2,
            Case::ComputeBound => 3,
        }
    }
}

/// Every intermediate value of the evaluation, named after the paper's symbols.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MwpCwpResult {
    pub n: f64,
    pub weight_uncoal: f64,
    pub weight_coal: f64,
    pub mem_l_uncoal: f64,
    pub mem_l_coal: f64,
    pub mem_l: f64,
    pub departure_delay: f64,
    pub mwp_without_bw_full: f64,
    pub mwp_without_bw: f64,
    pub bw_per_warp: f64,
    pub mwp_peak_bw: f64,
    pub mwp: f64,
    pub comp_cycles: f64,
    pub mem_cycles: f64,
    pub cwp_full: f64,
    pub cwp: f64,
    pub comp_p: f64,
    pub rep: f64,
    pub case: Case,
    pub exec_cycles_app: f64,
    pub synch_cost: f64,
    /// `Exec_cycles_with_synch` (HK-22), cycles.
    pub exec_cycles: f64,
    /// HK-23, seconds.
    pub seconds: f64,
    /// HK-24, cycles per instruction.
    pub cpi: f64,
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn check_params(p: &MwpCwpParams) -> Result<(), ModelError> {
    for (name, v) in [
        ("#Threads_per_warp", p.threads_per_warp),
        ("#Issue_cycles", p.issue_cycles),
        ("Freq", p.freq_ghz),
        ("Mem_Bandwidth", p.mem_bandwidth_gbs),
        ("#Threads_per_block", p.threads_per_block),
        ("#Blocks", p.blocks),
        ("#Active_blocks_per_SM", p.active_blocks_per_sm),
        ("#Active_SMs", p.active_sms),
    ] {
        positive(MODEL, name, v)?;
    }
    for (name, v) in [
        ("Mem_LD", p.mem_ld),
        ("Departure_del_uncoal", p.departure_del_uncoal),
        ("Departure_del_coal", p.departure_del_coal),
        ("#Comp_insts", p.comp_insts),
        ("#Uncoal_Mem_insts", p.uncoal_mem_insts),
        ("#Coal_Mem_insts", p.coal_mem_insts),
        ("#Synch_insts", p.synch_insts),
        ("#Coal_per_mw", p.coal_per_mw),
        ("#Uncoal_per_mw", p.uncoal_per_mw),
        ("Load_bytes_per_warp", p.load_bytes_per_warp),
    ] {
        non_negative(MODEL, name, v)?;
    }
    if p.comp_insts + p.uncoal_mem_insts + p.coal_mem_insts <= 0.0 {
        return Err(invalid(
            MODEL,
            "the kernel executes no instruction (#Total_insts = 0)",
        ));
    }
    Ok(())
}

/// Evaluate HK-1 to HK-24 in `mode`.
pub fn evaluate(p: &MwpCwpParams, mode: Mode) -> Result<MwpCwpResult, ModelError> {
    check_params(p)?;
    let paper = mode == Mode::PaperExample;
    let klaraptor = mode == Mode::Klaraptor;

    // HK-25/26: active warps per SM.
    let warps_per_block = (p.threads_per_block / p.threads_per_warp).ceil();
    let n = p.active_blocks_per_sm * warps_per_block;
    let mem_insts = p.uncoal_mem_insts + p.coal_mem_insts;
    let total_insts = p.comp_insts + mem_insts;
    let has_memory = mem_insts > 0.0;

    // HK-1..HK-6.
    let (weight_uncoal, weight_coal) = if has_memory {
        (p.uncoal_mem_insts / mem_insts, p.coal_mem_insts / mem_insts)
    } else {
        (0.0, 0.0)
    };
    let mem_l_uncoal = p.mem_ld + (p.uncoal_per_mw - 1.0) * p.departure_del_uncoal;
    // KLARAPTOR reads a profiled #Uncoal_per_mw of 0 as 1 once Mem_L_Uncoal is known.
    let uncoal_per_mw = if klaraptor && p.uncoal_per_mw == 0.0 {
        1.0
    } else {
        p.uncoal_per_mw
    };
    let mem_l_coal = if p.general_coal_latency {
        p.mem_ld + (p.coal_per_mw - 1.0) * p.departure_del_coal
    } else {
        p.mem_ld
    };
    let mem_l = if has_memory {
        mem_l_uncoal * weight_uncoal + mem_l_coal * weight_coal
    } else {
        0.0
    };
    let departure_delay = if has_memory {
        p.departure_del_uncoal * uncoal_per_mw * weight_uncoal + p.departure_del_coal * weight_coal
    } else {
        0.0
    };

    // HK-7..HK-11.
    let mut mwp_without_bw_full = if has_memory && departure_delay > 0.0 {
        mem_l / departure_delay
    } else {
        n
    };
    if paper {
        mwp_without_bw_full = round_to(mwp_without_bw_full, 2);
    } else if klaraptor {
        mwp_without_bw_full = mwp_without_bw_full.ceil();
    }
    let mwp_without_bw = mwp_without_bw_full.min(n);
    let mut bw_per_warp = if mem_l > 0.0 {
        p.freq_ghz * p.load_bytes_per_warp / mem_l
    } else {
        0.0
    };
    if paper {
        bw_per_warp = round_to(bw_per_warp, 3);
    }
    let mut mwp_peak_bw = if bw_per_warp > 0.0 {
        p.mem_bandwidth_gbs / (bw_per_warp * p.active_sms)
    } else {
        f64::INFINITY
    };
    if paper && mwp_peak_bw.is_finite() {
        mwp_peak_bw = round_to(mwp_peak_bw, 2);
    }
    let mwp = mwp_without_bw.min(mwp_peak_bw).min(n);

    // HK-12..HK-17.
    let comp_cycles = p.issue_cycles * total_insts;
    let mem_cycles = mem_l_uncoal * p.uncoal_mem_insts + mem_l_coal * p.coal_mem_insts;
    let mut cwp_full = (mem_cycles + comp_cycles) / comp_cycles;
    if paper {
        cwp_full = round_to(cwp_full, 2);
    } else if klaraptor {
        cwp_full = cwp_full.ceil();
    }
    let cwp = cwp_full.min(n);
    let comp_p = if has_memory {
        comp_cycles / mem_insts
    } else {
        0.0
    };
    let mut rep = p.blocks / (p.active_blocks_per_sm * p.active_sms);
    if klaraptor {
        rep = rep.ceil();
    }

    // HK-18..HK-20, tested in the paper's order.
    let case = if !has_memory {
        Case::ComputeBound
    } else if same(mwp, n) && same(cwp, n) {
        Case::NotEnoughWarps
    } else if cwp >= mwp || comp_cycles > mem_cycles {
        Case::MemoryBound
    } else {
        Case::ComputeBound
    };
    let mut exec_cycles_app = match case {
        Case::NotEnoughWarps => (mem_cycles + comp_cycles + comp_p * (mwp - 1.0)) * rep,
        Case::MemoryBound => (mem_cycles * n / mwp + comp_p * (mwp - 1.0)) * rep,
        Case::ComputeBound => (mem_l + comp_cycles * n) * rep,
    };

    // HK-21, HK-22.
    let sync_mwp = if klaraptor {
        mwp.min(warps_per_block)
    } else {
        mwp
    };
    let mut synch_cost =
        departure_delay * (sync_mwp - 1.0) * p.synch_insts * p.active_blocks_per_sm * rep;
    if paper {
        exec_cycles_app = exec_cycles_app.ceil();
        synch_cost = synch_cost.round();
    }
    let exec_cycles = exec_cycles_app + synch_cost;

    // HK-23, HK-24.
    let seconds = exec_cycles / (p.freq_ghz * 1e9);
    let cpi = exec_cycles_app
        / (total_insts * (p.threads_per_block / p.threads_per_warp) * (p.blocks / p.active_sms));

    Ok(MwpCwpResult {
        n,
        weight_uncoal,
        weight_coal,
        mem_l_uncoal,
        mem_l_coal,
        mem_l,
        departure_delay,
        mwp_without_bw_full,
        mwp_without_bw,
        bw_per_warp,
        mwp_peak_bw,
        mwp,
        comp_cycles,
        mem_cycles,
        cwp_full,
        cwp,
        comp_p,
        rep,
        case,
        exec_cycles_app,
        synch_cost,
        exec_cycles,
        seconds,
        cpi,
    })
}

#[cfg(test)]
mod tests;
