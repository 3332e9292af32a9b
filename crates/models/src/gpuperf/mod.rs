//! GPUPerf (Sim, Dasgupta, Kim and Vuduc, PPoPP 2012), equations (1)-(17) and
//! (A.1)-(A.7) as models.md 2.3 gives them, with the potential-benefit
//! what-ifs of models.md 2.4 (each a re-evaluation with one input changed).
//!
//! All quantities are cycles of one SM unless named otherwise; counts are per
//! warp. The synchronisation term (7)-(8) is unverified (models.md 2.3): Γ and
//! whether `#sync_insts` counts per warp or per block are parameters.

pub mod adapter;

use crate::prediction::{ModelError, non_negative, positive};

const MODEL: &str = "gpuperf";

/// Machine and kernel inputs (models.md 2.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPerfParams {
    /// `freq`, GHz.
    pub freq_ghz: f64,
    /// `mem_peak_bandwidth`, GB/s.
    pub mem_peak_bandwidth_gbs: f64,
    /// `SIMD_width`: lanes issuing one warp instruction.
    pub simd_width: f64,
    /// `warp_size`.
    pub warp_size: f64,
    /// `SFU_width`: SFUs per SM.
    pub sfu_width: f64,
    /// `transaction_size`, bytes.
    pub transaction_size: f64,
    /// `DRAM_lat`, cycles.
    pub dram_lat: f64,
    /// Δ: departure delay between transactions, cycles.
    pub delta: f64,
    /// `avg_inst_lat` ("FP_lat"), cycles.
    pub avg_inst_lat: f64,
    /// Γ, the synchronisation constant (unverified; 64 in the reference implementation).
    pub gamma: f64,
    /// `#insts` per warp.
    pub insts: f64,
    /// `#mem_insts` per warp (global accesses).
    pub mem_insts: f64,
    /// `#SFU_insts` per warp.
    pub sfu_insts: f64,
    /// `#sync_insts` per warp (or per block, see `sync_per_block`).
    pub sync_insts: f64,
    /// Floating-point instructions per warp (for the B_fp what-if; = `insts` for no benefit).
    pub fp_insts: f64,
    /// `#total_warps` of the grid.
    pub total_warps: f64,
    /// Blocks of the grid (used when `sync_per_block`).
    pub total_blocks: f64,
    /// Count synchronisations per block rather than per warp in (7).
    pub sync_per_block: bool,
    /// `#active_SMs`.
    pub active_sms: f64,
    /// `N`: active warps per SM.
    pub n: f64,
    /// `ILP`.
    pub ilp: f64,
    /// `MLP`.
    pub mlp: f64,
    /// `avg_trans_warp`: DRAM transactions per memory instruction per warp.
    pub avg_trans_warp: f64,
    /// `miss_ratio`.
    pub miss_ratio: f64,
    /// `hit_lat`, cycles.
    pub hit_lat: f64,
    /// `O_CFdiv`, cycles.
    pub o_cfdiv: f64,
    /// `O_bank`, cycles.
    pub o_bank: f64,
}

/// Every term of the evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPerfResult {
    pub avg_dram_lat: f64,
    pub amat: f64,
    pub itilp_max: f64,
    pub itilp: f64,
    pub comp_cycles: f64,
    pub mem_cycles: f64,
    pub cwp: f64,
    pub bw_per_warp: f64,
    pub mwp_peak_bw: f64,
    pub mwp: f64,
    pub mwp_cp: f64,
    pub itmlp: f64,
    pub w_parallel: f64,
    pub f_sync: f64,
    pub o_sync: f64,
    pub f_sfu: f64,
    pub o_sfu: f64,
    pub w_serial: f64,
    pub t_comp: f64,
    pub t_mem: f64,
    pub zeta: f64,
    pub f_overlap: f64,
    pub t_overlap: f64,
    /// (1), cycles.
    pub t_exec: f64,
}

fn check_params(p: &GpuPerfParams) -> Result<(), ModelError> {
    for (name, v) in [
        ("freq", p.freq_ghz),
        ("mem_peak_bandwidth", p.mem_peak_bandwidth_gbs),
        ("SIMD_width", p.simd_width),
        ("warp_size", p.warp_size),
        ("SFU_width", p.sfu_width),
        ("transaction_size", p.transaction_size),
        ("avg_inst_lat", p.avg_inst_lat),
        ("#insts", p.insts),
        ("#total_warps", p.total_warps),
        ("#active_SMs", p.active_sms),
        ("N", p.n),
        ("ILP", p.ilp),
        ("MLP", p.mlp),
    ] {
        positive(MODEL, name, v)?;
    }
    for (name, v) in [
        ("DRAM_lat", p.dram_lat),
        ("delta", p.delta),
        ("gamma", p.gamma),
        ("#mem_insts", p.mem_insts),
        ("#SFU_insts", p.sfu_insts),
        ("#sync_insts", p.sync_insts),
        ("fp_insts", p.fp_insts),
        ("#blocks", p.total_blocks),
        ("avg_trans_warp", p.avg_trans_warp),
        ("miss_ratio", p.miss_ratio),
        ("hit_lat", p.hit_lat),
        ("O_CFdiv", p.o_cfdiv),
        ("O_bank", p.o_bank),
    ] {
        non_negative(MODEL, name, v)?;
    }
    Ok(())
}

/// Evaluate (1)-(17) with (A.1)-(A.7).
pub fn evaluate(p: &GpuPerfParams) -> Result<GpuPerfResult, ModelError> {
    check_params(p)?;
    let per_sm = p.total_warps / p.active_sms;
    // (13), (12).
    let avg_dram_lat = p.dram_lat + (p.avg_trans_warp - 1.0).max(0.0) * p.delta;
    let amat = avg_dram_lat * p.miss_ratio + p.hit_lat;
    // (5), (4).
    let itilp_max = p.avg_inst_lat / (p.warp_size / p.simd_width);
    let itilp = (p.ilp * p.n).min(itilp_max);
    // (A.3), (A.4), (A.2), (A.1).
    let comp_cycles = p.insts * p.avg_inst_lat / itilp;
    let mem_cycles = p.mem_insts * amat / p.mlp;
    let cwp = ((mem_cycles + comp_cycles) / comp_cycles).min(p.n);
    // (A.7), (A.6), (A.5): without memory traffic nothing limits MWP but N.
    let bw_per_warp = if avg_dram_lat > 0.0 {
        p.freq_ghz * p.transaction_size / avg_dram_lat
    } else {
        0.0
    };
    let mwp_peak_bw = if bw_per_warp > 0.0 {
        p.mem_peak_bandwidth_gbs / (bw_per_warp * p.active_sms)
    } else {
        f64::INFINITY
    };
    let mwp_lat = if p.delta > 0.0 {
        avg_dram_lat / p.delta
    } else {
        f64::INFINITY
    };
    let mwp = mwp_lat.min(mwp_peak_bw).min(p.n);
    // (15), (14).
    let mwp_cp = (cwp - 1.0).max(1.0).min(mwp);
    let itmlp = (p.mlp * mwp_cp).min(mwp_peak_bw);
    // (3).
    let w_parallel = p.insts * per_sm * (p.avg_inst_lat / itilp);
    // (8), (7).
    let f_sync = p.gamma * avg_dram_lat * (p.mem_insts / p.insts);
    let sync_units = if p.sync_per_block {
        p.total_blocks
    } else {
        p.total_warps
    };
    let o_sync = p.sync_insts * sync_units / p.active_sms * f_sync;
    // (10), (9).
    let f_sfu = (p.sfu_insts / p.insts - p.sfu_width / p.simd_width).clamp(0.0, 1.0);
    let o_sfu = p.sfu_insts * per_sm * (p.warp_size / p.sfu_width) * f_sfu;
    // (6), (2).
    let w_serial = o_sync + o_sfu + p.o_cfdiv + p.o_bank;
    let t_comp = w_parallel + w_serial;
    // (11).
    let t_mem = if p.mem_insts > 0.0 {
        p.mem_insts * p.total_warps / (p.active_sms * itmlp) * amat
    } else {
        0.0
    };
    // (17), (16), (1).
    let zeta = if cwp <= mwp { 1.0 } else { 0.0 };
    let f_overlap = (p.n - zeta) / p.n;
    let t_overlap = (t_comp * f_overlap).min(t_mem);
    let t_exec = t_comp + t_mem - t_overlap;
    Ok(GpuPerfResult {
        avg_dram_lat,
        amat,
        itilp_max,
        itilp,
        comp_cycles,
        mem_cycles,
        cwp,
        bw_per_warp,
        mwp_peak_bw,
        mwp,
        mwp_cp,
        itmlp,
        w_parallel,
        f_sync,
        o_sync,
        f_sfu,
        o_sfu,
        w_serial,
        t_comp,
        t_mem,
        zeta,
        f_overlap,
        t_overlap,
        t_exec,
    })
}

/// The potential-benefit metrics (models.md 2.4), cycles saved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Benefits {
    /// B_ITILP: W_parallel minus W_parallel with ITILP = ITILP_max.
    pub itilp: f64,
    /// B_serial: W_serial (the sum of the four overheads).
    pub serial: f64,
    /// B_memory: (T_mem - T_overlap) minus its value with ITMLP at its maximum (MWP_peak_bw).
    pub memory: f64,
    /// B_fp: T_exec minus T_exec with only the floating-point instructions left.
    pub fp: f64,
}

/// Re-evaluate the model with one input changed per metric.
pub fn benefits(p: &GpuPerfParams, r: &GpuPerfResult) -> Result<Benefits, ModelError> {
    // ITILP = ITILP_max: enough ILP that (4)'s minimum is its cap.
    let ilp_max = GpuPerfParams {
        ilp: (r.itilp_max / p.n).max(p.ilp),
        ..*p
    };
    let itilp = r.w_parallel - evaluate(&ilp_max)?.w_parallel;
    // ITMLP = MWP_peak_bw: enough MLP that (14)'s minimum is its cap.
    let exposed = r.t_mem - r.t_overlap;
    let memory = if r.mwp_peak_bw.is_finite() {
        let mlp_max = GpuPerfParams {
            mlp: (r.mwp_peak_bw / r.mwp_cp).max(p.mlp),
            ..*p
        };
        let m = evaluate(&mlp_max)?;
        exposed - (m.t_mem - m.t_overlap)
    } else {
        0.0
    };
    let fp = if p.fp_insts > 0.0 && p.fp_insts < p.insts {
        r.t_exec
            - evaluate(&GpuPerfParams {
                insts: p.fp_insts,
                ..*p
            })?
            .t_exec
    } else {
        0.0
    };
    Ok(Benefits {
        itilp,
        serial: r.w_serial,
        memory,
        fp,
    })
}

#[cfg(test)]
mod tests;
