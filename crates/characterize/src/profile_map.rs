//! [`Characterization::to_profile`]: fill the models' [`KernelProfile`].
//!
//! ptx's instruction classes are folded into the profile's [`ClassMix`]:
//! integer ALU, move, compare and logic go to `int_add`; integer multiply to
//! `int_mul` except div/rem (`int_div`); float classes split fma/mad into the
//! `_fma` fields and IEEE FP32 division into `fp32_div`; IEEE FP32 rcp and
//! sqrt are `sfu_ieee`, apart from `sfu`; register-addressed constant loads
//! are `constant_indexed`; branch, call/ret and exit are `control`; warp
//! collectives, tensor, fences, async copies and `other` are `other`; generic loads and
//! stores are counted as global (the common case in NVRTC output; the
//! emulator resolves the space of each access, and the memory sections of
//! the profile use the resolved space); param and const loads are
//! `constant`; param stores (call sequences) are `local`.

use profile::{
    Atomics, Branches, ClassMix, GlobalMemory, KernelProfile, Launch, LocalMemory, PerThread,
    SharedMemory, Synchronisation, TensorWork, Traffic, Workload,
};
use ptx::analysis::InstClass;

use crate::class_counts::ClassCounts;
use crate::report::Characterization;

/// Fold counts by ptx class into a [`ClassMix`]; `fused` holds the fma/mad
/// part of each float class, `int_div` the div/rem part of `int_mul`,
/// `fp32_div` the IEEE division part of `fp32`, `sfu_ieee` the IEEE rcp and
/// sqrt part of `sfu`, `const_indexed` the register-addressed part of the
/// constant loads.
pub fn class_mix(
    counts: &ClassCounts,
    fused: &ClassCounts,
    int_div: f64,
    fp32_div: f64,
    sfu_ieee: f64,
    const_indexed: f64,
) -> ClassMix {
    let mut m = ClassMix::default();
    for &c in InstClass::ALL {
        let n = counts.get(c);
        if n == 0.0 {
            continue;
        }
        use InstClass::*;
        match c {
            IntAlu | Move | Compare | Logic => m.int_add += n,
            IntMul => {
                let d = int_div.min(n);
                m.int_div += d;
                m.int_mul += n - d;
            }
            Fp32 => {
                let f = fused.get(c).min(n);
                let d = fp32_div.min(n - f);
                m.fp32_fma += f;
                m.fp32_div += d;
                m.fp32 += n - f - d;
            }
            Fp64 => {
                let f = fused.get(c).min(n);
                m.fp64_fma += f;
                m.fp64 += n - f;
            }
            Fp16 => m.fp16 += n,
            Sfu => {
                let d = sfu_ieee.min(n);
                m.sfu_ieee += d;
                m.sfu += n - d;
            }
            Convert => m.convert += n,
            Branch | CallRet | Exit => m.control += n,
            Warp | Tensor | Fence | AsyncCopy | Other => m.other += n,
            LdGlobal | LdGeneric => m.global_load += n,
            StGlobal | StGeneric => m.global_store += n,
            LdShared => m.shared_load += n,
            StShared => m.shared_store += n,
            LdLocal | StLocal | StParam => m.local += n,
            LdParam => m.constant += n,
            LdConst => {
                let d = const_indexed.min(n);
                m.constant_indexed += d;
                m.constant += n - d;
            }
            AtomGlobal | AtomShared | AtomGeneric => m.atomic += n,
            Barrier => m.barrier += n,
        }
    }
    m
}

impl Characterization {
    /// The profile the models consume. Fields the characterization cannot
    /// know (registers, the analyses' stated figures) stay at their defaults.
    pub fn to_profile(&self) -> KernelProfile {
        let mi = &self.model_inputs;
        let traffic = |requests: f64, transactions: f64, bytes: f64| Traffic {
            requests,
            transactions,
            bytes,
        };
        let global = GlobalMemory {
            loads: traffic(
                mi.global_loads,
                mi.global_load_sectors,
                mi.global_load_bytes,
            ),
            stores: traffic(
                mi.global_stores,
                mi.global_store_sectors,
                mi.global_store_bytes,
            ),
            coalesced_instructions: mi.coalesced_requests,
            uncoalesced_instructions: mi.uncoalesced_requests,
            coalesced_transactions: mi.coalesced_sectors,
            uncoalesced_transactions: mi.uncoalesced_sectors,
            dram_bytes: None,
            l2_bytes: None,
            host_mapped_read_bytes: mi.host_mapped_load_bytes,
            host_mapped_written_bytes: mi.host_mapped_store_bytes,
            load_lines: Some(mi.global_load_lines),
            load_wavefronts: Some(mi.global_load_wavefronts),
            read_only_load_requests: Some(mi.read_only_loads),
            read_only_load_lines: Some(mi.read_only_load_lines),
        };
        let shared = SharedMemory {
            loads: traffic(
                mi.shared_loads,
                mi.shared_loads * mi.shared_conflict_ways_mean,
                mi.shared_load_bytes,
            ),
            stores: traffic(
                mi.shared_stores,
                mi.shared_stores * mi.shared_conflict_ways_mean,
                mi.shared_store_bytes,
            ),
            max_conflict_ways: mi.shared_max_conflict_ways,
            merged_accesses: Some(mi.shared_merged_accesses),
        };
        let no_fused = ClassCounts::default();
        KernelProfile {
            kernel: self.kernel.clone(),
            description: format!(
                "emulated by ptxperf ({} reconvergence, {} of {} CTAs)",
                self.reconvergence, self.ctas_emulated, self.ctas_total
            ),
            launch: Launch {
                grid: self.grid,
                block: self.block,
                dynamic_shared: 0,
            },
            warp_instructions: class_mix(
                &self.instruction_mix,
                &mi.fused_warp,
                mi.int_div_warp,
                mi.fp32_div_warp,
                mi.sfu_ieee_warp,
                mi.const_indexed_warp,
            ),
            thread_instructions: class_mix(
                &self.thread_instruction_mix,
                &mi.fused_thread,
                mi.int_div_thread,
                mi.fp32_div_thread,
                mi.sfu_ieee_thread,
                mi.const_indexed_thread,
            ),
            per_thread: PerThread {
                max: class_mix(&mi.per_thread_max, &no_fused, 0.0, 0.0, 0.0, 0.0),
                mean: class_mix(&mi.per_thread_mean, &no_fused, 0.0, 0.0, 0.0, 0.0),
            },
            global,
            shared,
            local: LocalMemory {
                loads: traffic(mi.local_requests, mi.local_requests, mi.local_bytes),
                stores: Traffic::default(),
            },
            sync: Synchronisation {
                barriers_per_thread: mi.barriers_per_thread,
                barrier_instructions: mi.barrier_instructions,
            },
            atomics: Atomics {
                global_instructions: mi.global_atomics,
                shared_instructions: (mi.atomic_requests - mi.global_atomics).max(0.0),
                thread_operations: self
                    .thread_instruction_mix
                    .by_name()
                    .into_iter()
                    .filter(|&(c, _)| {
                        matches!(
                            c,
                            InstClass::AtomGlobal | InstClass::AtomShared | InstClass::AtomGeneric
                        )
                    })
                    .map(|(_, v)| v)
                    .sum(),
                mean_conflict_ways: mi.atomic_conflict_ways_mean,
            },
            branches: Branches {
                branches: mi.conditional_branches,
                divergent: mi.divergent_conditional_branches,
            },
            workload: Workload {
                activity_factor: Some(self.activity_factor),
                divergent_branch_ratio: Some(self.divergent_branch_ratio),
                max_reconvergence_depth: Some(f64::from(self.max_reconvergence_depth)),
                memory_intensity: Some(self.memory_intensity),
                memory_efficiency: Some(self.memory_efficiency),
                memory_efficiency_sectors: Some(self.memory_efficiency_sectors),
                inter_thread_data_flow: Some(self.inter_thread_data_flow),
                mimd_parallelism: Some(self.mimd_parallelism),
                simd_parallelism: Some(self.simd_parallelism),
                shared_conflict_ways_16banks: Some(mi.shared_conflict_ways_mean_16banks),
                footprint_sector_bytes: Some(mi.footprint_sector_bytes),
                footprint_line_bytes: Some(mi.footprint_line_bytes),
                sector_reuse: Some(mi.sector_reuse),
                ctas_emulated: Some(self.ctas_emulated as f64),
                sampling_error: Some(self.sampling_error),
                // Needs the operand types of each `cvt`: filled by the pipeline.
                integer_convert_fraction: None,
                int32_to_f32_convert_fraction: None,
                narrow_uint_to_f32_convert_fraction: None,
                float64_convert_fraction: None,
                fp64_div_sqrt_fraction: None,
                fp64_rcp_fraction: None,
            },
            tensor: {
                use crate::tensor_work::TensorKind as K;
                let macs = |k: K| mi.tensor_macs[k.index()];
                TensorWork {
                    f16: macs(K::F16),
                    f16_f32: macs(K::F16F32),
                    tf32: macs(K::Tf32),
                    int8: macs(K::Int8),
                    fp64: macs(K::Fp64),
                    instructions: mi.tensor_instructions,
                }
            },
            ..KernelProfile::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(InstClass, f64)]) -> ClassCounts {
        let mut m = ClassCounts::default();
        for &(c, v) in pairs {
            m.set(c, v);
        }
        m
    }

    #[test]
    fn folding() {
        let counts = map(&[
            (InstClass::IntAlu, 3.0),
            (InstClass::Move, 2.0),
            (InstClass::Fp32, 10.0),
            (InstClass::IntMul, 4.0),
            (InstClass::LdGlobal, 5.0),
        ]);
        let m = class_mix(&counts, &map(&[(InstClass::Fp32, 6.0)]), 1.0, 3.0, 0.0, 0.0);
        assert_eq!(
            (
                m.int_add,
                m.fp32,
                m.fp32_div,
                m.fp32_fma,
                m.int_mul,
                m.int_div,
                m.global_load
            ),
            (5.0, 1.0, 3.0, 6.0, 3.0, 1.0, 5.0)
        );
        assert_eq!(m.total(), 24.0);
    }
}
