//! The timing model from a profile, a GPU and an occupancy.
//!
//! | input | source |
//! |---|---|
//! | blocks, warps per block | the profile's launch |
//! | resident blocks per SM | the occupancy calculator (`occ.active_blocks_per_sm`) |
//! | per-warp mix | `warp_instructions` / warps; FP16 on the FP32 pipe; control and other on the integer pipe; local with global (both go through L1); constant and parameter loads with an immediate address are not issued (ptxas folds them into `c[bank][offset]` operands), register-addressed constant loads are (`LDC`, `const_loads`); IEEE FP32 div, rcp and sqrt are `fp32_div` (a sequence each) |
//! | shared passes | `shared.transactions()` (bank-serialised passes), else one per request |
//! | shared passes for the width | per direction, the larger of requests and bytes / 128 ([`wide_passes`]), at most the passes counted; else one per request |
//! | shared accesses issued | the shared loads and stores of `warp_instructions` less `shared.merged_accesses` (ptxas's wider accesses, [`issued_shared`]) |
//! | sectors | (global + local transactions) x transaction size / 32 B, else bytes / 32 B |
//! | lane bytes | global and local `bytes` (each active lane's access size), plus the spill accesses' 4 B a lane |
//! | DRAM bytes | `global.dram_bytes` (cache model), else transactions x transaction size (`derive::dram_bytes`) |
//! | L2 bytes | `global.l2_bytes`, else sectors x 32 B (every access misses L1) |
//! | L1 hit rate | `cache.l1_hit_rate` (cache model, same GPU), else 1 - L2 bytes / L1 bytes when the profile gives L2 bytes, else 0 |
//! | L1 hits on misses in flight | `cache.l1_hit_ages` younger than the global MLP ([`pending_hit_share`]), at most the L1 hit rate; else 0 |
//! | L2 hit rate | `cache.l2_hit_rate`, else 1 - DRAM bytes / L2 bytes, clamped to [0, 1] |
//! | ILP | `analysis.parallelism.ilp` (static dependence graph, `ptx::analysis::ilp`), else `analysis.gpuperf.ilp`, else 1 |
//! | MLP (global, shared) | `analysis.parallelism.mlp_global` / `mlp_shared`, else (global) `analysis.gpuperf.mlp`, else loads per warp / (barriers per warp + 1): the loads of one barrier interval are taken as independent (tiled codes load a tile, then sync) |
//! | integer conversions | `workload.integer_convert_fraction` of `convert` moved to the integer pipe, plus `workload.int32_to_f32_convert_fraction` from CC 8.6 on ([`runs_i2fp`]), plus `workload.narrow_uint_to_f32_convert_fraction` from CC 8.6 on when `resources.compiler` is 13.0 or later ([`runs_narrow_i2fp`]) |
//! | conversions from and to 64-bit types | `workload.float64_convert_fraction` of `convert` moved to the FP64 pipe where the GPU's FP64 rate is below its conversion rate ([`float64_converts_on_fp64`]) |
//! | FP64 sequences | `workload.fp64_div_sqrt_fraction` of the FP64 instructions x [`FP64_DIV_SQRT_EXTRA`] and `workload.fp64_rcp_fraction` x [`FP64_RCP_EXTRA`] added to the FP64 pipe (ptxas's fast paths) |
//! | register spills | `analysis.spills` (ptxas's spill bytes) spread over the executed code ([`spill_instructions_per_warp`]): added to the LSU instructions, the L1 sectors and (misses) the L2 bytes |
//! | GPU figures | [`super::params::arch_params`] with the bundled calibration of `gpu.id`, if any |

use arch::{Gpu, Occupancy};
use profile::KernelProfile;

use super::calibration::{self, Calibration};
use super::params::arch_params;
use super::{NAME, TimingInputs, WarpMix, prediction};
use crate::derive::{dram_bytes, launch_figures, transaction_bytes};
use crate::prediction::{ModelError, Prediction};

/// The share of L1 lookups that hit a sector whose miss is still in flight
/// (docs: "Hits on misses in flight"): the cache model's L1 hits by age in
/// rounds (`cache.l1_hit_ages`, buckets of [`profile::L1_HIT_AGE_BUCKETS`],
/// the last taken as 16 to 31), counted where younger than `mlp` rounds (a
/// warp issues about `mlp` loads before it waits for the first), a bucket
/// in part where `mlp` falls inside it.
pub fn pending_hit_share(ages: &[f64], mlp: f64) -> f64 {
    let lows = profile::L1_HIT_AGE_BUCKETS;
    let last = lows[lows.len() - 1];
    let highs = lows.iter().skip(1).copied().chain([2 * last]);
    ages.iter()
        .zip(lows.iter().zip(highs))
        .map(|(&share, (&lo, hi))| {
            let (lo, hi) = (f64::from(lo), f64::from(hi));
            share.max(0.0) * ((mlp - lo) / (hi - lo)).clamp(0.0, 1.0)
        })
        .sum()
}

/// Whether ptxas emits `cvt.{rn,rz}.f32.{s32,u32}` as `I2FP` (integer ALU)
/// rather than the conversion unit's `I2F` for `gpu`: from CC 8.6 on (the
/// SASS of ptxas 12.9 and 13.0 for sm_86, sm_89 and sm_90; sm_75 and sm_80
/// keep `I2F`).
pub fn runs_i2fp(gpu: &Gpu) -> bool {
    gpu.compute_capability >= arch::ComputeCapability::new(8, 6)
}

/// Whether a conversion from or to a 64-bit type (`cvt.f64.f32`,
/// `cvt.rn.f32.f64`, ...) runs on `gpu`'s FP64 unit: where the FP64 rate per
/// clock per SM is below the conversion unit's. In every column of the CUDA
/// C++ Programming Guide's throughput table that was read (CC 2.x to 8.6),
/// "type conversions from and to 64-bit types" run at the lower of the two
/// rates: 2 per clock on 8.6 (FP64 2, other conversions 16), 4 on 5.x and
/// 6.1, 8 on 3.0, 16 on 6.0, 7.0 and 8.0 (FP64 32), 32 on 3.5 (FP64 64,
/// other conversions 32). So on a GPU of few FP64 units they share the FP64
/// pipe with `add.f64`, `fma.rn.f64` (docs: "Conversions from and to 64-bit
/// types").
pub fn float64_converts_on_fp64(gpu: &Gpu) -> bool {
    let fp64 = gpu.throughput.fp64.unwrap_or(f64::from(gpu.sm.fp64_lanes));
    let convert = gpu
        .cc_figures
        .convert_per_clock
        .min(f64::from(gpu.sm.fp32_lanes).max(1.0));
    fp64 < convert
}

/// FP64 operations a `div.rn.f64` or `sqrt.rn.f64` adds to the one it is
/// counted as: ptxas 12.9 builds both as 8 on their fast path for sm_86
/// (a division 7 `DFMA` and a `DMUL`, a square root 5 `DFMA` and 3 `DMUL`;
/// nvdisasm 13), the slow path called aside (docs: "FP64 division, square
/// root and reciprocal").
pub const FP64_DIV_SQRT_EXTRA: f64 = 7.0;

/// FP64 operations a `rcp.rn.f64` adds: 5 `DFMA` on its fast path.
pub const FP64_RCP_EXTRA: f64 = 4.0;

/// Whether ptxas also emits `cvt.{rn,rz}.f32.{u8,u16}` as `I2FP.F32.U32`
/// (integer ALU) for `gpu` when `compiler` built the code: from CC 8.6 on
/// with ptxas 13 (the SASS of ptxas 13.0 for sm_86 and sm_90; ptxas 12.9
/// keeps `I2F.U8`/`I2F.U16` there, and both keep `I2F` on sm_80). An
/// unknown compiler is taken as ptxas 12.x, the one `scripts/setup.sh`
/// installs.
pub fn runs_narrow_i2fp(gpu: &Gpu, compiler: Option<profile::CompilerVersion>) -> bool {
    runs_i2fp(gpu) && compiler.is_some_and(|c| c >= profile::CompilerVersion::new(13, 0))
}

/// The FP64 operations ptxas's sequences for IEEE division, square root and
/// reciprocal add beyond the one instruction each is counted as.
fn fp64_sequence_ops(w: &profile::ClassMix, wl: &profile::Workload) -> f64 {
    let fraction = |f: Option<f64>| f.filter(|f| f.is_finite()).unwrap_or(0.0).clamp(0.0, 1.0);
    (w.fp64 + w.fp64_fma)
        * (fraction(wl.fp64_div_sqrt_fraction) * FP64_DIV_SQRT_EXTRA
            + fraction(wl.fp64_rcp_fraction) * FP64_RCP_EXTRA)
}

/// Fill [`TimingInputs`] from the profile and the occupancy.
pub fn inputs(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<TimingInputs, ModelError> {
    let lf = launch_figures(NAME, profile, gpu, occ)?;
    let warps = lf.total_warps.max(1.0);
    let w = &profile.warp_instructions;
    let per = |x: f64| x / warps;
    // Integer-to-integer `cvt` (widenings) run on the integer ALU, and so do
    // 32-bit integer to FP32 conversions from CC 8.6 on (I2FP; docs:
    // "Integer conversions").
    let fraction = |f: Option<f64>| f.filter(|f| f.is_finite()).unwrap_or(0.0).clamp(0.0, 1.0);
    let wl = &profile.workload;
    let mut i2fp = if runs_i2fp(gpu) {
        fraction(wl.int32_to_f32_convert_fraction)
    } else {
        0.0
    };
    if runs_narrow_i2fp(gpu, profile.resources.compiler) {
        i2fp += fraction(wl.narrow_uint_to_f32_convert_fraction);
    }
    let int_cvt = w.convert * (fraction(wl.integer_convert_fraction) + i2fp).min(1.0);
    // Conversions from and to 64-bit types take the FP64 unit on GPUs of few
    // of them (docs: "Conversions from and to 64-bit types").
    let fp64_cvt = if float64_converts_on_fp64(gpu) {
        (w.convert - int_cvt).min(w.convert * fraction(wl.float64_convert_fraction))
    } else {
        0.0
    };
    let spill = spill_instructions_per_warp(profile, warps);
    let mut mix = WarpMix {
        fp32: per(w.fp32 + w.fp32_fma + w.fp16),
        fp32_div: per(w.fp32_div + w.sfu_ieee),
        fp64: per(w.fp64 + w.fp64_fma + fp64_cvt + fp64_sequence_ops(w, wl)),
        sfu: per(w.sfu),
        int_add: per(w.int_add + w.control + w.other + int_cvt),
        int_mul: per(w.int_mul),
        int_div: per(w.int_div),
        convert: per(w.convert - int_cvt - fp64_cvt),
        const_loads: per(w.constant_indexed),
        global: per(w.global() + w.local),
        global_stores: per(w.global_store + profile.local.stores.requests.min(w.local)),
        spill_loads: 0.0,
        shared: per(issued_shared(profile)),
        atomic: per(w.atomic),
        barrier: per(w.barrier),
        load_replays: 0.0,
        tensor_cycles: 0.0,
    };
    let (tensor_cycles, tensor_unrated_macs) = tensor_cycles(&profile.tensor, gpu);
    mix.tensor_cycles = per(tensor_cycles);
    let shared_transactions = profile.shared.transactions();
    let shared_passes = if shared_transactions > 0.0 {
        per(shared_transactions)
    } else {
        mix.shared
    };
    // The width's passes are at most the passes counted: lanes that read
    // the same wide word share passes (`characterize::banks`), which bytes
    // / 128 does not see.
    let shared_wide_passes = if shared_transactions > 0.0 {
        per(
            (wide_passes(&profile.shared.loads) + wide_passes(&profile.shared.stores))
                .min(shared_transactions),
        )
    } else {
        mix.shared
    };
    let seg = transaction_bytes(gpu);
    let g = &profile.global;
    let loc = &profile.local;
    let transactions = g.transactions() + loc.loads.transactions + loc.stores.transactions;
    let sector_bytes = if transactions > 0.0 {
        transactions * seg
    } else {
        g.bytes() + loc.loads.bytes + loc.stores.bytes
    };
    let mut sectors = per(sector_bytes / 32.0);
    // Mapped host memory crosses PCIe, not the device's DRAM (docs:
    // "Mapped host memory"): a cache model that traced those buffers counted
    // their sectors as DRAM traffic.
    let pcie_read = g.host_mapped_read_bytes.unwrap_or(0.0).max(0.0);
    let pcie_write = g.host_mapped_written_bytes.unwrap_or(0.0).max(0.0);
    let dram = (dram_bytes(profile, seg) - pcie_read - pcie_write).max(0.0);
    let (mut l2, derived_l1_hit) = match g.l2_bytes {
        Some(b) if sector_bytes > 0.0 => (b, (1.0 - b / sector_bytes).clamp(0.0, 1.0)),
        Some(b) => (b, 0.0),
        None => (sector_bytes, 0.0),
    };
    let derived_l2_hit = if l2 > 0.0 {
        (1.0 - dram / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // The cache model's hit rates, when it simulated this GPU (or did not say which).
    let c = &profile.cache;
    let same_gpu = c.gpu.is_empty() || c.gpu == gpu.id;
    let rate = |r: Option<f64>| r.filter(|v| same_gpu && v.is_finite() && (0.0..=1.0).contains(v));
    let l1_hit = rate(c.l1_hit_rate).unwrap_or(derived_l1_hit);
    let l1_hit_ages = c.l1_hit_ages.as_deref().filter(|_| same_gpu);
    let l2_hit = rate(c.l2_hit_rate).unwrap_or(derived_l2_hit);
    // Register spills (docs: "Register spills"): LSU instructions of one warp,
    // SPILL_BYTES_PER_ACCESS per thread, so 32 x 4 B = 4 sectors each (local
    // memory is interleaved per thread: a warp's spill access is coalesced);
    // the L1 misses go to L2 (no DRAM bytes: a spilled value is reloaded
    // soon after it is stored).
    let spill_l1_hit = spill_l1_hit_rate(profile, gpu, occ, lf.warps_per_block);
    let spill_sectors = spill * 32.0 * SPILL_BYTES_PER_ACCESS / 32.0;
    mix.global += spill;
    let r = &profile.analysis.spills;
    let spill_bytes = (r.load_bytes + r.store_bytes) as f64;
    if spill_bytes > 0.0 {
        mix.spill_loads = spill * r.load_bytes as f64 / spill_bytes;
        mix.global_stores += spill - mix.spill_loads;
    }
    sectors += spill_sectors;
    // Fermi and Kepler issue a global load again for each further 128-byte
    // line its lanes touch (docs: "Replays of divergent loads").
    mix.load_replays = per(load_replays(profile, gpu));
    // Each lane's own bytes, broadcasts counted per lane; a spill access
    // moves SPILL_BYTES_PER_ACCESS per lane, as many bytes as its sectors.
    let lane_bytes = per(g.bytes() + loc.loads.bytes + loc.stores.bytes) + spill_sectors * 32.0;
    l2 += spill_sectors * 32.0 * warps * (1.0 - spill_l1_hit);
    let barriers = mix.barrier.max(profile.sync.barriers_per_thread);
    let a = &profile.analysis.gpuperf;
    let par = &profile.analysis.parallelism;
    let interval = |loads: f64| (loads / (barriers + 1.0)).max(1.0);
    let mlp_global = par
        .mlp_global
        .or(a.mlp)
        .unwrap_or_else(|| interval(per(w.global_load + w.local)))
        .max(1.0);
    let l1_pending = l1_hit_ages.map_or(0.0, |ages| pending_hit_share(ages, mlp_global));
    Ok(TimingInputs {
        blocks: lf.blocks,
        warps_per_block: lf.warps_per_block,
        resident_blocks_per_sm: f64::from(occ.active_blocks_per_sm).max(1.0),
        mix,
        shared_passes,
        shared_wide_passes,
        global_load_wavefronts: global_load_wavefronts(profile, gpu, warps),
        sectors,
        lane_bytes,
        l1_hit_rate: l1_hit,
        l1_pending_hit_rate: l1_pending.min(l1_hit),
        l2_hit_rate: l2_hit,
        spill_l1_hit_rate: spill_l1_hit,
        l2_bytes: l2,
        dram_bytes: dram,
        pcie_read_bytes: pcie_read,
        pcie_write_bytes: pcie_write,
        ilp: par.ilp.or(a.ilp).unwrap_or(1.0).max(1.0),
        mlp_global,
        mlp_shared: par
            .mlp_shared
            .unwrap_or_else(|| interval(per(w.shared_load)))
            .max(1.0),
        code_bytes: code_bytes(&profile.analysis.spills, gpu),
        tensor_unrated_macs,
    })
}

/// Replays of the kernel's global loads, kernel total: on Fermi and Kepler
/// (CC 2.x and 3.x) a warp's load is issued again for each 128-byte line
/// its lanes touch beyond the first (NVIDIA Nsight Visual Studio Edition
/// documentation, "Memory Statistics - Caches": loads from sparse locations
/// "cause the load instruction to reissue 32 times more than if the values
/// would be adjacent"; NVIDIA developer forum, "What is the benefit from LDG
/// or LDG128": on Kepler "on a load accessing divergent addresses (different
/// cache lines) the SM warp scheduler has to replay the instruction ... In
/// contrast address divergence is handled in the texture cache"), so the
/// read-only loads (`ld.global.nc`) are not replayed. Maxwell and later
/// serve a request's lines in the L1/texture pipeline without reissuing it.
/// 0 for other parts and for profiles without line counts (written before
/// 2026-12-04).
pub fn load_replays(profile: &KernelProfile, gpu: &Gpu) -> f64 {
    if !matches!(gpu.compute_capability.major, 2 | 3) {
        return 0.0;
    }
    let g = &profile.global;
    let Some(lines) = g.load_lines.filter(|v| v.is_finite()) else {
        return 0.0;
    };
    let ro = |v: Option<f64>| v.filter(|v| v.is_finite()).unwrap_or(0.0).max(0.0);
    let plain_lines = lines - ro(g.read_only_load_lines);
    let plain_requests = g.loads.requests - ro(g.read_only_load_requests);
    (plain_lines - plain_requests).max(0.0)
}

/// The L1 data-stage wavefronts of one warp's global loads (docs: "The L1
/// data stage"): the profile's count per warp from Volta on, where L1 and
/// shared memory are one banked array; 0 before, and for profiles without
/// the count.
pub fn global_load_wavefronts(profile: &KernelProfile, gpu: &Gpu, warps: f64) -> f64 {
    if gpu.compute_capability.major < 7 || warps <= 0.0 {
        return 0.0;
    }
    let count = profile.global.load_wavefronts.filter(|v| v.is_finite());
    count.map_or(0.0, |v| v.max(0.0) / warps)
}

/// Warp-level shared loads and stores issued: the PTX's, less those ptxas
/// issues as part of a wider access (`shared.merged_accesses`; absent in
/// older profiles, which count every PTX access).
pub fn issued_shared(profile: &KernelProfile) -> f64 {
    let merged = profile
        .shared
        .merged_accesses
        .filter(|v| v.is_finite())
        .unwrap_or(0.0);
    (profile.warp_instructions.shared() - merged).max(0.0)
}

/// Bytes one shared-memory pass returns: one 32-bit register to each of
/// 32 lanes (32 banks x 4 B).
pub const SHARED_PASS_BYTES: f64 = 128.0;

/// The passes `t`'s shared accesses take for their width alone
/// ([`wide_passes_of`]).
pub fn wide_passes(t: &profile::Traffic) -> f64 {
    wide_passes_of(t.requests, t.bytes)
}

/// The passes `requests` shared accesses moving `bytes` take for their
/// width alone: one per request, or their bytes over [`SHARED_PASS_BYTES`]
/// where that is more (a warp's 64-bit access returns 2 registers per
/// lane, 2 passes). The wave and the per-line costs both count by it.
pub fn wide_passes_of(requests: f64, bytes: f64) -> f64 {
    requests.max(bytes / SHARED_PASS_BYTES).max(0.0)
}

/// Bytes one thread moves per spill instruction: ptxas spills 32-bit
/// registers (`STL`/`LDL` of 4 B; wider spills make fewer instructions, so
/// this is an upper bound on the count).
pub const SPILL_BYTES_PER_ACCESS: f64 = 4.0;

/// Executed spill loads and stores per warp: the static spill instructions
/// (ptxas's spill bytes / [`SPILL_BYTES_PER_ACCESS`]) times the mean
/// executions of a static instruction (executed warp instructions per warp
/// over the entry's static PTX instructions): the spill code is taken to run
/// as often as the code around it. 0 without spills or a static count.
pub fn spill_instructions_per_warp(profile: &KernelProfile, warps: f64) -> f64 {
    let r = &profile.analysis.spills;
    let bytes = (r.load_bytes + r.store_bytes) as f64;
    if bytes <= 0.0 || r.static_instructions == 0 || warps <= 0.0 {
        return 0.0;
    }
    let executions_per_static =
        profile.warp_instructions.total() / warps / r.static_instructions as f64;
    bytes / SPILL_BYTES_PER_ACCESS * executions_per_static.max(0.0)
}

/// Share of the register-spill accesses that hit in L1: the L1 data bytes
/// an SM has beside its shared memory ([`arch::Gpu::l1_data_bytes`]) over
/// the local memory its resident threads spill to (threads x ptxas's stack
/// frame, else its spill-store bytes), at most 1. 0 where L1 does not cache
/// local memory (the catalog's `l1_caches_local_memory` of the compute
/// capability: Maxwell and Pascal cache local loads in L2 only, CC 1.x has
/// no L1). 1 without spills.
pub fn spill_l1_hit_rate(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
    warps_per_block: f64,
) -> f64 {
    let r = &profile.analysis.spills;
    let frame = if r.stack_frame_bytes > 0 {
        r.stack_frame_bytes
    } else {
        r.store_bytes
    } as f64;
    if frame <= 0.0 {
        return 1.0;
    }
    if !gpu.cc_figures.l1_caches_local_memory {
        return 0.0;
    }
    let threads = f64::from(occ.active_blocks_per_sm).max(1.0)
        * warps_per_block.max(1.0)
        * f64::from(gpu.sm.warp_size.max(1));
    let l1 = gpu.l1_data_bytes(occ.carveout_bytes) as f64;
    (l1 / (threads * frame)).clamp(0.0, 1.0)
}

/// Predict with the bundled calibration of `gpu.id`, if there is one.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    let cal = calibration::bundled(&gpu.id);
    predict_with(profile, gpu, occ, cal.as_ref())
}

/// Predict with the calibration the caller gives (`None`: datasheet figures).
pub fn predict_with(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
    cal: Option<&Calibration>,
) -> Result<Prediction, ModelError> {
    let inp = inputs(profile, gpu, occ)?;
    prediction(&inp, &arch_params(gpu, cal))
}

/// SM cycles the kernel's matrix multiplies hold the tensor cores, summed
/// over the SMs, and the multiply-adds of kinds without a rate in the
/// catalog (docs: "Tensor cores").
pub fn tensor_cycles(t: &profile::TensorWork, gpu: &Gpu) -> (f64, f64) {
    let r = &gpu.throughput;
    let mut cycles = 0.0;
    let mut unrated = 0.0;
    for (macs, rate) in [
        (t.f16, r.tensor_f16),
        (t.f16_f32, r.tensor_f16_f32),
        (t.tf32, r.tensor_tf32),
        (t.int8, r.tensor_int8),
        (t.fp64, r.tensor_fp64),
    ] {
        match rate.filter(|r| r.is_finite() && *r > 0.0) {
            Some(rate) => cycles += macs / rate,
            None => unrated += macs,
        }
    }
    (cycles, unrated)
}

/// The entry's machine code, bytes: what ptxas built where the profile
/// has it, else the PTX instruction count times the architecture's bytes
/// per SASS instruction (docs/timing-model.md, "Instruction fetch"). 0 when
/// neither is known (fetch then slows nothing).
fn code_bytes(spills: &profile::SpillInputs, gpu: &Gpu) -> f64 {
    if spills.sass_bytes > 0 {
        spills.sass_bytes as f64
    } else {
        spills.static_instructions as f64 * gpu.cc_figures.sass_bytes_per_instruction
    }
}
