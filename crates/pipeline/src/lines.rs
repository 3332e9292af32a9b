//! Per-line costs and the bottleneck in one sentence.
//!
//! [`attach_costs`] prices every PTX row and every CUDA line of a
//! [`Characterization`] with the timing model's terms
//! ([`models::timing::lines`]) on one GPU, and fills in the CUDA lines'
//! text from the compiled source. [`explain`] names what bounds a timing
//! prediction and the CUDA lines that use most of it, with what to change.

use arch::Gpu;
use characterize::{Characterization, CudaLine, LineRow};
use models::Prediction;
use models::timing::adapter::{float64_converts_on_fp64, runs_i2fp, wide_passes_of};
use models::timing::lines::{LineCost, LineLoad, Pipe, limit_of, line_cost};
use models::timing::{Limit, calibration, params::arch_params};
use ptx::analysis::{ConvertKind, InstClass};

use crate::load::LoadedSpec;

/// The catalog GPU a kernel's lines are priced on when none is named: the
/// datacenter GPU of the PTX's architecture (`sm_80` -> A100), else the
/// catalog's GPU of that compute capability (`sm_120` -> RTX 5090); the
/// H100 for a datacenter Blackwell, which the catalog does not hold.
pub fn default_gpu_for(ptx_arch: &str) -> &'static str {
    match ptx_arch
        .trim_start_matches("sm_")
        .trim_end_matches(['a', 'f'])
    {
        "70" | "72" => "tesla-v100-sxm2-16gb",
        "75" => "tesla-t4",
        "86" | "87" => "geforce-rtx-3090",
        "89" => "geforce-rtx-4090",
        "90" | "100" | "101" | "103" => "h100-sxm5-80gb",
        "120" | "121" => "geforce-rtx-5090",
        _ => "a100-sxm4-80gb",
    }
}

/// Where a GPU runs the conversions whose unit depends on it
/// (models::timing::adapter: `runs_i2fp`, `float64_converts_on_fp64`).
#[derive(Clone, Copy)]
struct ConvertPipes {
    int32_to_f32: Pipe,
    float64: Pipe,
}

impl ConvertPipes {
    fn of(gpu: &Gpu) -> ConvertPipes {
        ConvertPipes {
            int32_to_f32: if runs_i2fp(gpu) {
                Pipe::Int
            } else {
                Pipe::Convert
            },
            float64: if float64_converts_on_fp64(gpu) {
                Pipe::Fp64
            } else {
                Pipe::Convert
            },
        }
    }

    /// The pipe of a `cvt` of `kind` (8/16-bit sources as ptxas 12.x, the
    /// one the set-up installs, builds them: the conversion unit).
    fn pipe(self, kind: Option<ConvertKind>) -> Pipe {
        match kind {
            Some(ConvertKind::Integer) => Pipe::Int,
            Some(ConvertKind::Int32ToF32) => self.int32_to_f32,
            Some(ConvertKind::Float64) => self.float64,
            Some(ConvertKind::NarrowUintToF32 | ConvertKind::Other) | None => Pipe::Convert,
        }
    }
}

fn load_of(r: &LineRow, converts: ConvertPipes) -> LineLoad {
    LineLoad {
        warp_instructions: r.executions,
        int_div: if r.int_div { r.executions } else { 0.0 },
        fp32_div: if r.fp32_div { r.executions } else { 0.0 },
        mean_active_threads: r.mean_active_threads,
        shared_requests: r.shared_requests,
        shared_passes: r.shared_requests + r.bank_replays,
        shared_wide_passes: wide_passes_of(r.shared_requests, r.shared_bytes),
        sectors: r.transactions_sectors,
        lane_bytes: r.global_bytes,
        pipe: match InstClass::from_name(&r.class) {
            Some(InstClass::Convert) => Some(converts.pipe(r.convert)),
            Some(class) => pipe_of(class),
            None => None,
        },
    }
}

/// The arithmetic pipe an instruction class runs on, as the timing model's
/// mix folds the classes (`characterize::profile_map`: integer ALU, moves,
/// compares, logic, control and the rest issue as integer work).
fn pipe_of(class: InstClass) -> Option<Pipe> {
    use InstClass::*;
    match class {
        Fp32 | Fp16 => Some(Pipe::Fp32),
        Fp64 => Some(Pipe::Fp64),
        Sfu => Some(Pipe::Sfu),
        IntMul => Some(Pipe::IntMul),
        Convert => Some(Pipe::Convert),
        IntAlu | Move | Compare | Logic | Branch | CallRet | Exit | Warp | Tensor | Fence
        | AsyncCopy | Other => Some(Pipe::Int),
        LdGlobal | LdShared | LdLocal | LdParam | LdConst | LdGeneric | StGlobal | StShared
        | StLocal | StParam | StGeneric | AtomGlobal | AtomShared | AtomGeneric | Barrier => None,
    }
}

/// Fill each CUDA line's text from `loaded`'s source, when it compiled one.
pub fn fill_text(ch: &mut Characterization, loaded: &LoadedSpec) {
    for l in &mut ch.cuda_lines {
        l.text = loaded.source_line_text(&l.file, l.line);
    }
}

/// Price `ch`'s lines on `gpu` with the kernel's L1 and L2 sector hit
/// rates (None: unknown, every sector from DRAM, an upper bound).
pub fn attach_costs(
    ch: &mut Characterization,
    gpu: &Gpu,
    l1_hit_rate: Option<f64>,
    l2_hit_rate: Option<f64>,
) {
    let arch = arch_params(gpu, calibration::bundled(&gpu.id).as_ref());
    let (h1, h2) = (l1_hit_rate.unwrap_or(0.0), l2_hit_rate.unwrap_or(0.0));
    let converts = ConvertPipes::of(gpu);
    let costs: Vec<LineCost> = ch
        .lines
        .iter()
        .map(|r| line_cost(&load_of(r, converts), &arch, h1, h2))
        .collect();
    for (r, c) in ch.lines.iter_mut().zip(&costs) {
        r.cost_cycles = c.cycles();
    }
    for l in &mut ch.cuda_lines {
        let mut sum = LineCost::default();
        for &i in &l.rows {
            if let Some(c) = costs.get(i) {
                sum.add(c);
            }
        }
        set_cost(l, &sum);
    }
    let total: f64 = ch.cuda_lines.iter().map(|l| l.cost_cycles).sum();
    for l in &mut ch.cuda_lines {
        l.cost_share = if total > 0.0 {
            l.cost_cycles / total
        } else {
            0.0
        };
    }
    ch.cost_gpu = Some(gpu.id.clone());
}

fn set_cost(l: &mut CudaLine, c: &LineCost) {
    l.issue_cycles = c.issue_cycles;
    l.replay_cycles = c.replay_cycles;
    l.shared_cycles = c.shared_cycles;
    l.l1_cycles = c.l1_cycles;
    l.dram_cycles = c.dram_cycles;
    l.divergence_cycles = c.divergence_cycles;
    l.pipe_terms = c.pipe_cycles;
    let busiest = c.busiest_pipe();
    l.pipe_cycles = busiest.map_or(0.0, |(_, t)| t);
    l.pipe = busiest.map(|(p, _)| p.name().to_string());
    l.cost_cycles = c.cycles();
}

fn cost_of(l: &CudaLine) -> LineCost {
    LineCost {
        issue_cycles: l.issue_cycles,
        replay_cycles: l.replay_cycles,
        shared_cycles: l.shared_cycles,
        l1_cycles: l.l1_cycles,
        dram_cycles: l.dram_cycles,
        divergence_cycles: l.divergence_cycles,
        pipe_cycles: l.pipe_terms,
    }
}

/// What bounds a kernel and the CUDA lines that cause it.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The timing model's binding limit, as it names it.
    pub limit: String,
    /// The lines, most costly first: (file, line).
    pub lines: Vec<(String, u32)>,
    /// One sentence a CUDA developer can act on.
    pub sentence: String,
}

/// The share of the binding term a line must hold to be named with the first.
const NAMED_SHARE: f64 = 0.25;
/// At most this many lines are named.
const NAMED_LINES: usize = 4;

/// Explain the timing model's prediction `timing` with `ch`'s priced CUDA
/// lines ([`attach_costs`]): the limit that binds, the lines that use most
/// of it, and what to change. None when `timing` is not the timing model's.
pub fn explain(ch: &Characterization, timing: &Prediction) -> Option<Explanation> {
    if timing.model != models::timing::NAME {
        return None;
    }
    let limit = limit_of(&timing.bottleneck)?;
    let pipe = binding_pipe(limit, ch, timing);
    let mut lines: Vec<(&CudaLine, f64)> = ch
        .cuda_lines
        .iter()
        .map(|l| {
            let c = cost_of(l);
            (
                l,
                pipe.map_or_else(|| c.term(relevant(limit, ch)), |p| c.pipe(p)),
            )
        })
        .filter(|(_, t)| *t > 0.0)
        .collect();
    lines.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(a.0.file.cmp(&b.0.file))
            .then(a.0.line.cmp(&b.0.line))
    });
    let top = lines.first().map_or(0.0, |l| l.1);
    let named: Vec<&CudaLine> = lines
        .iter()
        .take_while(|(_, t)| *t >= NAMED_SHARE * top)
        .take(NAMED_LINES)
        .map(|(l, _)| *l)
        .collect();
    let place = places(&named);
    let sentence = match pipe {
        Some(p) => pipe_sentence(p, &place),
        None => sentence(limit, &named, &place, ch),
    };
    Some(Explanation {
        limit: limit.name().to_string(),
        lines: named.iter().map(|l| (l.file.clone(), l.line)).collect(),
        sentence,
    })
}

/// The arithmetic pipe that holds a "compute issue" kernel back, where one
/// does: the timing model's busiest pipe outlasts its dispatch
/// (`wave_alu_cycles` over `wave_issue_cycles`), and the lines' summed
/// times say which pipe that is.
fn binding_pipe(limit: Limit, ch: &Characterization, timing: &Prediction) -> Option<Pipe> {
    let term = |k: &str| timing.breakdown.get(k).copied().unwrap_or(0.0);
    if limit != Limit::ComputeIssue || term("wave_alu_cycles") <= term("wave_issue_cycles") {
        return None;
    }
    let total = |p: Pipe| -> f64 { ch.cuda_lines.iter().map(|l| l.pipe_terms[p.index()]).sum() };
    Pipe::ALL
        .into_iter()
        .map(|p| (p, total(p)))
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p)
}

/// What to change where the arithmetic pipe `p` binds.
fn pipe_sentence(p: Pipe, place: &str) -> String {
    let (work, keeps, advice) = match p {
        Pipe::Fp64 => (
            "FP64 arithmetic",
            "keeps",
            "(this GPU runs FP64 at a fraction of its FP32 rate); use float where the precision allows, or a GPU with more FP64 units",
        ),
        Pipe::Sfu => (
            "special functions",
            "keep",
            "(transcendentals, reciprocals, square roots; an SM has a quarter of its FP32 lanes or fewer there); call fewer: hoist them out of loops, reuse results, use algebra",
        ),
        Pipe::Fp32 => (
            "FP32 arithmetic",
            "keeps",
            ", near the GPU's FP32 peak; what is left is fewer operations per element (algebra, reuse) or tensor cores",
        ),
        Pipe::Int => (
            "integer, logic and compare instructions",
            "keep",
            "(index arithmetic, loop control); hoist index computations out of loops, unroll, or index with fewer operations",
        ),
        Pipe::IntMul => (
            "integer multiplies",
            "keep",
            "; replace them with shifts or increments (strength reduction), or hoist the products out of loops",
        ),
        Pipe::Convert => (
            "type conversions",
            "keep",
            "; convert once, outside loops, or keep the data in the type it is computed in",
        ),
    };
    let sep = if advice.starts_with([';', ',']) {
        ""
    } else {
        " "
    };
    format!(
        "compute issue: the {} binds: {work}{} {keeps} it busiest{sep}{advice}",
        p.name(),
        at(place)
    )
}

/// ` at PLACE`, or nothing where no line is named.
fn at(place: &str) -> String {
    if place.is_empty() {
        String::new()
    } else {
        format!(" at {place}")
    }
}

/// The term lines are ranked by: the limit's own, except for latency,
/// where a kernel waits on its memory accesses (global, else shared).
fn relevant(limit: Limit, ch: &Characterization) -> Limit {
    match limit {
        Limit::Latency if ch.global_requests > 0.0 => Limit::L1Bandwidth,
        Limit::Latency if ch.shared_requests > 0.0 => Limit::SharedMemory,
        other => other,
    }
}

/// `k.cu:26-28` (consecutive lines of one file merged), or `k.cu:12, k.cu:40`.
fn places(lines: &[&CudaLine]) -> String {
    let mut sorted: Vec<(&str, u32)> = lines.iter().map(|l| (short(&l.file), l.line)).collect();
    sorted.sort();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let (file, first) = sorted[i];
        let mut last = first;
        while i + 1 < sorted.len() && sorted[i + 1].0 == file && sorted[i + 1].1 <= last + 2 {
            i += 1;
            last = sorted[i].1;
        }
        parts.push(if last == first {
            format!("{file}:{first}")
        } else {
            format!("{file}:{first}-{last}")
        });
        i += 1;
    }
    parts.join(", ")
}

/// The file name without its directories.
fn short(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

fn sum(lines: &[&CudaLine], f: impl Fn(&CudaLine) -> f64) -> f64 {
    lines.iter().map(|l| f(l)).sum()
}

fn sentence(limit: Limit, lines: &[&CudaLine], place: &str, ch: &Characterization) -> String {
    let at = at(place);
    match limit {
        Limit::SharedMemory | Limit::ComputeIssue
            if sum(lines, |l| l.bank_replays) > 0.0 && sum(lines, |l| l.shared_requests) > 0.0 =>
        {
            let requests = sum(lines, |l| l.shared_requests);
            let ways = (requests + sum(lines, |l| l.bank_replays)) / requests;
            format!(
                "{}: shared accesses{at} replay {ways:.1}x: bank conflicts; pad the tile (e.g. [N][N+1]) or change the index so a warp's lanes hit different banks",
                limit.name()
            )
        }
        Limit::SharedMemory => format!(
            "{}: shared accesses{at} take the most bank passes (no conflicts); keep reused values in registers or load wider (float2/float4) to make fewer requests",
            limit.name()
        ),
        Limit::DramBandwidth | Limit::L2Bandwidth | Limit::L1Bandwidth => {
            let bytes = sum(lines, |l| l.global_bytes);
            let moved = sum(lines, |l| l.global_sectors) * 32.0;
            if moved > 0.0 && bytes / moved < 0.6 {
                format!(
                    "{}: global accesses{at} use {:.0}% of the bytes they move: uncoalesced; make consecutive threads access consecutive addresses (or stage through shared memory)",
                    limit.name(),
                    100.0 * bytes / moved
                )
            } else {
                format!(
                    "{}: global accesses{at} move the most bytes, coalesced; reuse data on chip (shared memory tiles, registers) or move fewer or narrower values",
                    limit.name()
                )
            }
        }
        Limit::ComputeIssue => {
            let issue = sum(lines, |l| l.issue_cycles);
            let lost = sum(lines, |l| l.divergence_cycles);
            if issue > 0.0 && lost / issue > 0.25 {
                format!(
                    "compute issue: instructions{at} issue the most and {:.0}% of their lanes are idle: divergence; make a warp's threads take the same path",
                    100.0 * lost / issue
                )
            } else {
                format!(
                    "compute issue: instructions{at} issue the most; do less work per element there (hoist invariant work out of loops, cheaper arithmetic, fewer index computations)"
                )
            }
        }
        Limit::Latency => format!(
            "latency: too few warps hide the wait on the memory accesses{at}; raise occupancy (fewer registers or shared bytes per block, more blocks) or give each thread independent loads"
        ),
        Limit::PcieBandwidth => format!(
            "{}: reads and writes of mapped host memory{at} cross PCIe; copy the data to device memory first (cudaMemcpy) if it is read more than once, or overlap the transfer with other work",
            limit.name()
        ),
        Limit::LaunchTail => format!(
            "launch/tail: the grid ({} block{}) is too small or ends in a thin last wave; give each launch more work or more blocks",
            ch.ctas_total,
            if ch.ctas_total == 1 { "" } else { "s" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(file: &str, n: u32) -> CudaLine {
        CudaLine::new(file.to_string(), n)
    }

    /// `places` of the given (file, line)s.
    fn check(lines: &[(&str, u32)], expect: &str) {
        let owned: Vec<CudaLine> = lines.iter().map(|&(f, n)| line(f, n)).collect();
        let refs: Vec<&CudaLine> = owned.iter().collect();
        assert_eq!(places(&refs), expect, "{lines:?}");
    }

    #[test]
    fn places_merge_nearby_lines_of_one_file() {
        check(&[], "");
        check(&[("a/stencil.cu", 26)], "stencil.cu:26");
        check(
            &[("stencil.cu", 28), ("stencil.cu", 26), ("stencil.cu", 27)],
            "stencil.cu:26-28",
        );
        check(&[("k.cu", 12), ("k.cu", 40)], "k.cu:12, k.cu:40");
        check(&[("k.cu", 3), ("k.h", 4)], "k.cu:3, k.h:4");
    }

    #[test]
    fn default_gpus_by_architecture() {
        for (arch, gpu) in [
            ("sm_80", "a100-sxm4-80gb"),
            ("sm_90a", "h100-sxm5-80gb"),
            ("sm_70", "tesla-v100-sxm2-16gb"),
            ("sm_89", "geforce-rtx-4090"),
            ("sm_120a", "geforce-rtx-5090"),
            ("sm_100", "h100-sxm5-80gb"),
            ("sm_52", "a100-sxm4-80gb"),
        ] {
            assert_eq!(default_gpu_for(arch), gpu, "{arch}");
        }
        let catalog = arch::Catalog::bundled().unwrap_or_else(|e| panic!("{e}"));
        for arch in [
            "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
        ] {
            assert!(catalog.get(default_gpu_for(arch)).is_ok(), "{arch}");
        }
    }
}
