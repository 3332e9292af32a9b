//! [`Characterization`]: the metrics of one run, in the JSON shape of
//! DESIGN.md schema 1 (extra fields added after the contract's), built from a
//! [`Collector`] by [`Characterization::from_collector`].
//!
//! Field meanings beyond the paper's equations (see [`crate::metrics`]):
//! `global_transactions` are CC 1.2 transactions (the protocol of
//! `memory_efficiency`), `global_sectors` those of the sector protocol;
//! `shared_bank_conflicts` is the number of extra serialised passes, the sum
//! over shared loads and stores of (ways - 1); `inter_thread_data_flow` is
//! inter-thread words over words loaded from shared memory (0 when nothing is
//! loaded).

use ptx::analysis::InstClass;
use serde::Serialize;

use crate::class_counts::ClassCounts;
use crate::coalesce::SECTOR_BYTES as SECTOR;
use crate::collector::Collector;
use crate::metrics::{self, CtaActivity};
use crate::sampling::Sample;
use crate::static_info::Special;

/// One PTX instruction's row of the per-line attribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineRow {
    /// Function (kernel or device function) name.
    pub function: String,
    /// Instruction index in the function.
    pub pc: u32,
    /// 1-based PTX line.
    pub ptx_line: u32,
    /// CUDA source file and line from `.loc`, if the PTX has line info.
    pub cuda_file: Option<String>,
    pub cuda_line: Option<u32>,
    /// Instruction class (ptx's classification).
    pub class: String,
    /// Warp executions.
    pub executions: f64,
    /// Mean active threads per execution.
    pub mean_active_threads: f64,
    /// Divergent executions (branches).
    pub divergent: f64,
    /// Global transactions: CC 1.2 protocol and sector protocol.
    pub transactions_cc12: f64,
    pub transactions_sectors: f64,
    /// Mean bank-conflict ways over this line's shared requests (0 without any).
    pub conflict_ways: f64,
    /// Shared-memory requests (warp level) and their replays: passes beyond one per request.
    pub shared_requests: f64,
    pub bank_replays: f64,
    /// Global bytes the active lanes requested.
    pub global_bytes: f64,
    /// Shared bytes the active lanes requested (for the cost of wide
    /// accesses; not serialised).
    #[serde(skip)]
    pub shared_bytes: f64,
    /// Integer divisions or remainders (for the issue cost; not serialised).
    #[serde(skip)]
    pub int_div: bool,
    /// IEEE-rounded FP32 divisions, reciprocals or square roots (for the
    /// issue cost; not serialised).
    #[serde(skip)]
    pub fp32_div: bool,
    /// The kind of a `cvt` (which pipe it takes on which GPU; not
    /// serialised).
    #[serde(skip)]
    pub convert: Option<ptx::analysis::ConvertKind>,
    /// The line's cost in GPU cycles under the timing model (see
    /// [`CudaLine`]); 0 until a cost is attached.
    pub cost_cycles: f64,
}

/// One CUDA source line: its PTX instructions' work summed, and its cost
/// under the timing model (filled in by whoever knows the GPU: the cost
/// fields are 0 until then).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CudaLine {
    pub file: String,
    pub line: u32,
    /// The line's source text, when known.
    pub text: Option<String>,
    /// The PTX lines of its executed instructions, ascending.
    pub ptx_lines: Vec<u32>,
    /// Warp instructions executed.
    pub executions: f64,
    /// Mean active lanes per warp instruction.
    pub mean_active_threads: f64,
    /// Divergent branch executions.
    pub divergent: f64,
    /// Shared requests, their bank passes beyond one (replays), and the mean ways.
    pub shared_requests: f64,
    pub bank_replays: f64,
    pub conflict_ways: f64,
    /// Global 32-byte sectors and the bytes requested.
    pub global_sectors: f64,
    pub global_bytes: f64,
    /// Cost terms, GPU cycles over the whole kernel (models::timing::lines).
    pub issue_cycles: f64,
    pub replay_cycles: f64,
    pub shared_cycles: f64,
    pub l1_cycles: f64,
    pub dram_cycles: f64,
    pub divergence_cycles: f64,
    /// The busiest arithmetic pipe's time and its name (0 and None where
    /// the line runs on none).
    pub pipe_cycles: f64,
    pub pipe: Option<String>,
    /// Every pipe's time, in the order of `models::timing::lines::Pipe::ALL`
    /// (for what binds a whole kernel); not serialised.
    #[serde(skip)]
    pub pipe_terms: [f64; 6],
    /// The largest term: the line's cost.
    pub cost_cycles: f64,
    /// Its share of the summed cost of all lines, 0 to 1.
    pub cost_share: f64,
    /// The PTX rows it sums (indices into `lines`); not serialised.
    #[serde(skip)]
    pub rows: Vec<usize>,
}

impl CudaLine {
    /// `file:line` with nothing counted or priced yet.
    pub fn new(file: String, line: u32) -> CudaLine {
        CudaLine {
            file,
            line,
            text: None,
            ptx_lines: Vec::new(),
            executions: 0.0,
            mean_active_threads: 0.0,
            divergent: 0.0,
            shared_requests: 0.0,
            bank_replays: 0.0,
            conflict_ways: 0.0,
            global_sectors: 0.0,
            global_bytes: 0.0,
            issue_cycles: 0.0,
            replay_cycles: 0.0,
            shared_cycles: 0.0,
            l1_cycles: 0.0,
            dram_cycles: 0.0,
            divergence_cycles: 0.0,
            pipe_cycles: 0.0,
            pipe: None,
            pipe_terms: [0.0; 6],
            cost_cycles: 0.0,
            cost_share: 0.0,
            rows: Vec::new(),
        }
    }
}

/// The model inputs of issue 4 item 3 that the schema-1 fields do not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ModelInputs {
    /// Per-thread operations by class: maximum and mean over threads.
    pub per_thread_max: ClassCounts,
    pub per_thread_mean: ClassCounts,
    /// Warp-level global loads, stores and atomics, and their transactions (sector protocol).
    pub global_loads: f64,
    pub global_stores: f64,
    pub global_atomics: f64,
    pub global_load_sectors: f64,
    /// Distinct 128-byte lines of each warp-level global load, summed.
    pub global_load_lines: f64,
    /// L1 data-stage wavefronts of the global loads (bank passes by phase), summed.
    pub global_load_wavefronts: f64,
    /// Shared loads and stores counted as part of a wider access ptxas
    /// issues in their place (neighbouring words of one base), summed.
    pub shared_merged_accesses: f64,
    /// Multiply-adds of the warp-wide matrix multiplies by
    /// [`crate::tensor_work::TensorKind`], and the instructions.
    pub tensor_macs: [f64; crate::tensor_work::TensorKind::COUNT],
    pub tensor_instructions: f64,
    /// The global loads on the read-only path (`ld.global.nc`) and their lines.
    pub read_only_loads: f64,
    pub read_only_load_lines: f64,
    /// Bytes the active threads request: global loads and stores, shared loads and stores.
    pub global_load_bytes: f64,
    pub global_store_bytes: f64,
    pub shared_load_bytes: f64,
    pub shared_store_bytes: f64,
    /// Largest bank-conflict ways of one shared request (32 banks).
    pub shared_max_conflict_ways: f64,
    pub global_store_sectors: f64,
    /// Global requests served by the fewest sectors their bytes allow, and the rest.
    pub coalesced_requests: f64,
    pub uncoalesced_requests: f64,
    pub coalesced_sectors: f64,
    pub uncoalesced_sectors: f64,
    /// Bytes the active threads request per global warp request (mean).
    pub bytes_per_warp_request: f64,
    /// Shared loads and stores (warp level), 16-bank (CC 1.x) mean ways.
    pub shared_loads: f64,
    pub shared_stores: f64,
    pub shared_conflict_ways_mean: f64,
    pub shared_conflict_ways_mean_16banks: f64,
    /// Local loads and stores (warp level) and their bytes.
    pub local_requests: f64,
    pub local_bytes: f64,
    /// Warp-level barrier instructions; barriers of the busiest thread.
    pub barrier_instructions: f64,
    pub barriers_per_thread: f64,
    /// Atomic requests and the mean lanes on one address.
    pub atomic_requests: f64,
    pub atomic_conflict_ways_mean: f64,
    /// Global footprint: distinct bytes of 32-byte sectors and of 128-byte lines touched.
    pub footprint_sector_bytes: f64,
    pub footprint_line_bytes: f64,
    /// Sector accesses per distinct sector (1 = no reuse).
    pub sector_reuse: f64,
    /// Bytes of the distinct 32-byte sectors loaded from, and stored to,
    /// buffers in mapped (zero-copy) host memory, whole kernel (the watched
    /// CTAs' sectors x grid / watched): what crosses PCIe. Absent when the
    /// launch maps no buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_mapped_load_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_mapped_store_bytes: Option<f64>,
    /// Conditional branches and the divergent ones.
    pub conditional_branches: f64,
    pub divergent_conditional_branches: f64,
    /// Float fma/mad (two flops each) by class: warp and thread level.
    pub fused_warp: ClassCounts,
    pub fused_thread: ClassCounts,
    /// Integer div/rem: warp and thread level.
    pub int_div_warp: f64,
    pub int_div_thread: f64,
    /// IEEE-rounded FP32 div: warp and thread level.
    pub fp32_div_warp: f64,
    pub fp32_div_thread: f64,
    /// IEEE-rounded FP32 rcp and sqrt: warp and thread level.
    pub sfu_ieee_warp: f64,
    pub sfu_ieee_thread: f64,
    /// Register-addressed constant loads: warp and thread level.
    pub const_indexed_warp: f64,
    pub const_indexed_thread: f64,
}

/// The metrics of one emulated run (schema 1 of DESIGN.md, then extras).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Characterization {
    pub schema: u32,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub warp_instructions: f64,
    pub thread_instructions: f64,
    pub branches: f64,
    pub divergent_branches: f64,
    pub activity_factor: f64,
    pub max_reconvergence_depth: u32,
    pub memory_intensity: f64,
    pub memory_efficiency: f64,
    pub global_requests: f64,
    pub global_transactions: f64,
    pub shared_requests: f64,
    pub shared_bank_conflicts: f64,
    pub inter_thread_data_flow: f64,
    pub mimd_parallelism: f64,
    pub simd_parallelism: f64,
    /// Warp instructions by class (ptx class names), nonzero classes only.
    pub instruction_mix: ClassCounts,
    pub lines: Vec<LineRow>,
    // Extras.
    /// `ipdom` or `barrier`.
    pub reconvergence: String,
    pub divergent_branch_ratio: f64,
    /// Used bytes over transferred bytes, sector protocol.
    pub memory_efficiency_sectors: f64,
    pub global_sectors: f64,
    /// Thread instructions by class.
    pub thread_instruction_mix: ClassCounts,
    /// Dynamic warp instructions of each emulated CTA: (linear id, count).
    pub cta_instructions: Vec<(u32, u64)>,
    /// CTAs emulated of the grid's total, and the estimated relative error of
    /// the extrapolated instruction counts (0 for a full run).
    pub ctas_emulated: u64,
    pub ctas_total: u64,
    pub sampling_error: f64,
    pub model_inputs: ModelInputs,
    /// The GPU the line costs were computed for (null: none yet; rows are
    /// then ranked by executions).
    pub cost_gpu: Option<String>,
    /// One row per executed CUDA source line (empty without line info), by
    /// file then line.
    pub cuda_lines: Vec<CudaLine>,
}

fn mix(counts: &[u64], scale: f64) -> ClassCounts {
    ClassCounts::from_nonzero(counts, |n| n as f64 * scale)
}

fn mean(sum: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { sum as f64 / n as f64 }
}

impl Characterization {
    /// The `n` PTX lines that cost the most (then: most warp executions,
    /// then PTX order). Without costs, the most executed.
    pub fn hot_lines(&self, n: usize) -> Vec<&LineRow> {
        let mut rows: Vec<&LineRow> = self.lines.iter().collect();
        rows.sort_by(|a, b| {
            b.cost_cycles
                .total_cmp(&a.cost_cycles)
                .then(b.executions.total_cmp(&a.executions))
                .then(a.ptx_line.cmp(&b.ptx_line))
        });
        rows.truncate(n);
        rows
    }

    /// The `n` CUDA lines that cost the most (then: most executions, then
    /// file and line order).
    pub fn hot_cuda_lines(&self, n: usize) -> Vec<&CudaLine> {
        let mut rows: Vec<&CudaLine> = self.cuda_lines.iter().collect();
        rows.sort_by(|a, b| {
            b.cost_cycles
                .total_cmp(&a.cost_cycles)
                .then(b.executions.total_cmp(&a.executions))
                .then(a.file.cmp(&b.file))
                .then(a.line.cmp(&b.line))
        });
        rows.truncate(n);
        rows
    }

    /// Metrics of a finished run. `sample` says which CTAs were watched of how
    /// many; counts are scaled by total / emulated.
    pub fn from_collector(
        c: &Collector<'_>,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        reconvergence: &str,
        sample: &Sample,
    ) -> Characterization {
        let t = &c.totals;
        let k = sample.scale();
        let warp = t.warp_instructions();
        let thread = t.thread_instructions();
        let af = metrics::activity_factor(thread, warp);
        let g = t.global_all();
        // M of equation 2: warp-level global accesses (generic ones resolved to global included).
        let global_mem_insts = g.requests;
        let shared = t.shared_ls();
        let threads_per_cta: u64 = block.iter().map(|&d| u64::from(d)).product();
        let cta_counts: Vec<u64> = c.ctas.iter().map(|(_, x)| x.warp_instructions).collect();
        let activity: Vec<CtaActivity> = c
            .ctas
            .iter()
            .map(|(_, x)| CtaActivity {
                warp_instructions: x.warp_instructions,
                thread_instructions: x.thread_instructions,
                threads: threads_per_cta,
            })
            .collect();
        let max_cta = cta_counts.iter().copied().max().unwrap_or(0);
        let mimd = if max_cta == 0 {
            0.0
        } else {
            warp as f64 * k / max_cta as f64
        };
        Characterization {
            schema: 1,
            kernel: kernel.to_string(),
            grid,
            block,
            warp_instructions: warp as f64 * k,
            thread_instructions: thread as f64 * k,
            branches: t.branches as f64 * k,
            divergent_branches: t.divergent_branches as f64 * k,
            activity_factor: af,
            max_reconvergence_depth: if warp > 0 { c.max_depth.max(1) } else { 0 },
            memory_intensity: metrics::memory_intensity(af, global_mem_insts, warp),
            memory_efficiency: metrics::memory_efficiency(g.requests, g.cc12.transactions),
            global_requests: g.requests as f64 * k,
            global_transactions: g.cc12.transactions as f64 * k,
            shared_requests: shared.requests as f64 * k,
            shared_bank_conflicts: (shared.ways - shared.requests.min(shared.ways)) as f64 * k,
            inter_thread_data_flow: mean(t.inter_thread_words, t.shared_words_loaded),
            mimd_parallelism: mimd,
            simd_parallelism: metrics::simd_parallelism(&activity),
            instruction_mix: mix(&t.warp, k),
            lines: line_rows(c, k),
            reconvergence: reconvergence.to_string(),
            divergent_branch_ratio: metrics::divergent_branch_ratio(
                t.divergent_branches,
                t.branches,
            ),
            memory_efficiency_sectors: g.sectors.byte_efficiency(),
            global_sectors: g.sectors.transactions as f64 * k,
            thread_instruction_mix: mix(&t.thread, k),
            cta_instructions: c
                .ctas
                .iter()
                .map(|&(id, x)| (id, x.warp_instructions))
                .collect(),
            ctas_emulated: c.ctas.len() as u64,
            ctas_total: sample.total,
            sampling_error: sample.relative_error(&cta_counts),
            model_inputs: model_inputs(c, k),
            cost_gpu: None,
            cuda_lines: Vec::new(),
        }
        .with_cuda_lines()
    }

    /// Fill [`Characterization::cuda_lines`] from the PTX rows (counts only).
    fn with_cuda_lines(mut self) -> Self {
        let mut keyed: Vec<((String, u32), usize)> = self
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some(((r.cuda_file.clone()?, r.cuda_line?), i)))
            .collect();
        keyed.sort();
        let mut out: Vec<CudaLine> = Vec::new();
        for ((file, line), i) in keyed {
            let r = &self.lines[i];
            let same = out.last().is_some_and(|c| c.file == file && c.line == line);
            if !same {
                out.push(CudaLine::new(file, line));
            }
            let Some(c) = out.last_mut() else { continue };
            c.ptx_lines.push(r.ptx_line);
            c.rows.push(i);
            // Sums first; the means are divided out below.
            c.mean_active_threads += r.mean_active_threads * r.executions;
            c.executions += r.executions;
            c.divergent += r.divergent;
            c.conflict_ways += r.conflict_ways * r.shared_requests;
            c.shared_requests += r.shared_requests;
            c.bank_replays += r.bank_replays;
            c.global_sectors += r.transactions_sectors;
            c.global_bytes += r.global_bytes;
        }
        for c in &mut out {
            c.ptx_lines.sort_unstable();
            c.ptx_lines.dedup();
            c.mean_active_threads = ratio(c.mean_active_threads, c.executions);
            c.conflict_ways = ratio(c.conflict_ways, c.shared_requests);
        }
        self.cuda_lines = out;
        self
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

fn model_inputs(c: &Collector<'_>, k: f64) -> ModelInputs {
    let t = &c.totals;
    let g = t.global_all();
    let shared = t.shared_ls();
    let local_requests: u64 = t.local.iter().map(|l| l.requests).sum();
    let local_bytes: u64 = t.local.iter().map(|l| l.sectors.bytes_requested).sum();
    let per_thread_mean: Vec<u64> = c.thread_sum.to_vec();
    let (sectors, lines) = c.footprint();
    let mapped = c.host_mapped_sectors();
    let special = |s: Special| {
        let i = s as usize;
        (t.special.0[i] as f64 * k, t.special.1[i] as f64 * k)
    };
    ModelInputs {
        per_thread_max: mix(&c.thread_max, 1.0),
        per_thread_mean: ClassCounts::from_nonzero(&per_thread_mean, |n| mean(n, c.threads_seen)),
        global_loads: t.global[0].requests as f64 * k,
        global_stores: t.global[1].requests as f64 * k,
        global_atomics: t.global[2].requests as f64 * k,
        global_load_sectors: t.global[0].sectors.transactions as f64 * k,
        global_load_lines: t.global[0].sectors.lines as f64 * k,
        global_load_wavefronts: t.global_load_wavefronts as f64 * k,
        shared_merged_accesses: t.shared_merged as f64 * k,
        tensor_macs: t.tensor_macs.map(|n| n as f64 * k),
        tensor_instructions: t.tensor_instructions as f64 * k,
        read_only_loads: t.read_only_loads.requests as f64 * k,
        read_only_load_lines: t.read_only_loads.sectors.lines as f64 * k,
        global_load_bytes: t.global[0].sectors.bytes_requested as f64 * k,
        global_store_bytes: t.global[1].sectors.bytes_requested as f64 * k,
        shared_load_bytes: t.shared[0].bytes as f64 * k,
        shared_store_bytes: t.shared[1].bytes as f64 * k,
        shared_max_conflict_ways: shared.max_ways as f64,
        global_store_sectors: t.global[1].sectors.transactions as f64 * k,
        coalesced_requests: g.coalesced_requests as f64 * k,
        uncoalesced_requests: (g.requests - g.coalesced_requests) as f64 * k,
        coalesced_sectors: g.coalesced_sectors as f64 * k,
        uncoalesced_sectors: (g.sectors.transactions - g.coalesced_sectors) as f64 * k,
        bytes_per_warp_request: mean(g.sectors.bytes_requested, g.requests),
        shared_loads: t.shared[0].requests as f64 * k,
        shared_stores: t.shared[1].requests as f64 * k,
        shared_conflict_ways_mean: mean(shared.ways, shared.requests),
        shared_conflict_ways_mean_16banks: mean(shared.ways16, shared.requests),
        local_requests: local_requests as f64 * k,
        local_bytes: local_bytes as f64 * k,
        barrier_instructions: t.barriers as f64 * k,
        barriers_per_thread: c.thread_max[InstClass::Barrier.index()] as f64,
        atomic_requests: t.atomic_requests as f64 * k,
        atomic_conflict_ways_mean: mean(t.atomic_conflicts, t.atomic_requests),
        footprint_sector_bytes: (sectors * 32) as f64,
        footprint_line_bytes: (lines * 128) as f64,
        sector_reuse: mean(t.sector_accesses, sectors),
        host_mapped_load_bytes: mapped.map(|(l, _)| (l * SECTOR) as f64 * k),
        host_mapped_store_bytes: mapped.map(|(_, s)| (s * SECTOR) as f64 * k),
        conditional_branches: t.conditional_branches as f64 * k,
        divergent_conditional_branches: t.divergent_conditional as f64 * k,
        fused_warp: mix(&t.fused.0, k),
        fused_thread: mix(&t.fused.1, k),
        int_div_warp: special(Special::IntDiv).0,
        int_div_thread: special(Special::IntDiv).1,
        fp32_div_warp: special(Special::Fp32Div).0,
        fp32_div_thread: special(Special::Fp32Div).1,
        sfu_ieee_warp: special(Special::SfuIeee).0,
        sfu_ieee_thread: special(Special::SfuIeee).1,
        const_indexed_warp: special(Special::ConstIndexed).0,
        const_indexed_thread: special(Special::ConstIndexed).1,
    }
}

fn line_rows(c: &Collector<'_>, k: f64) -> Vec<LineRow> {
    let table = c.table();
    let mut rows = Vec::new();
    for (f, func_lines) in c.lines.iter().enumerate() {
        for (pc, l) in func_lines.iter().enumerate() {
            if l.executions == 0 {
                continue;
            }
            let info = table.get(f as u32, pc as u32);
            rows.push(LineRow {
                function: table.function_name(f as u32).to_string(),
                pc: pc as u32,
                ptx_line: info.map_or(0, |i| i.ptx_line),
                cuda_file: info.and_then(|i| i.source.as_ref().map(|s| s.0.clone())),
                cuda_line: info.and_then(|i| i.source.as_ref().map(|s| s.1)),
                class: info.map_or("other", |i| i.class.name()).to_string(),
                executions: l.executions as f64 * k,
                mean_active_threads: mean(l.threads, l.executions),
                divergent: l.divergent as f64 * k,
                transactions_cc12: l.transactions_cc12 as f64 * k,
                transactions_sectors: l.transactions_sectors as f64 * k,
                conflict_ways: mean(l.conflict_ways, l.shared_requests),
                shared_requests: l.shared_requests as f64 * k,
                bank_replays: l.conflict_ways.saturating_sub(l.shared_requests) as f64 * k,
                global_bytes: l.global_bytes as f64 * k,
                shared_bytes: l.shared_bytes as f64 * k,
                int_div: info.is_some_and(|i| i.specials.has(Special::IntDiv)),
                fp32_div: info.is_some_and(|i| {
                    i.specials.has(Special::Fp32Div) || i.specials.has(Special::SfuIeee)
                }),
                convert: info.and_then(|i| i.convert),
                cost_cycles: 0.0,
            });
        }
    }
    rows
}
