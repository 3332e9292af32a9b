//! [`profile`]: emulate a loaded kernel once with the characterize collector
//! (and the cache trace recorder), and build the models' [`KernelProfile`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use arch::Gpu;
use cachesim::{CacheReport, Trace};
use characterize::{Characterization, Sample};
use emu::simt::stack::Policy;
use profile::{
    CompilerVersion, KernelProfile, ParallelismInputs, RegisterSource, Resources, SpillInputs,
};
use ptx::analysis::registers::estimate_registers;

use crate::cache;
use crate::error::PipelineError;
use crate::load::LoadedSpec;
use crate::predict::occupancy_for;
use crate::registers::{self, ptxas_kernel};
use crate::sampling;
use crate::timings::{Stage, StageTimes};
use crate::trace::TraceRecorder;
use crate::warmup::{self, Warmup};

/// How to profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Reconvergence policy of the emulator.
    pub policy: Policy,
    /// Emulate and count only this many CTAs, spread over the grid, and
    /// extrapolate (None: all). When the sampled CTAs disagree so much that
    /// the extrapolated total is uncertain by more than [`SAMPLING_TARGET`],
    /// the sample grows or is stratified ([`crate::sampling`]), to at most
    /// [`SAMPLING_GROWTH`] times this many CTAs that do work.
    pub sample_ctas: Option<u64>,
    /// Bound the warp instructions that the working CTAs of a grown or
    /// stratified sample may cost ([`crate::sampling`], "Work budget");
    /// `None`: no bound (the default: the sample the error target asks for).
    pub work_budget: Option<u64>,
    /// Run the cache model for this GPU now (it can also be run later, per GPU,
    /// by [`crate::predict`], from the recorded trace).
    pub gpu: Option<Gpu>,
    /// Record the memory trace for the cache model (default true).
    pub cache: bool,
    /// Ask ptxas for the register count (default true); false always estimates.
    pub ptxas: bool,
    /// A sampled run also emulates the CTAs that neighbour each sampled
    /// CTA and precede it, and the cache model replays them into L2 first,
    /// so that the sample keeps the L2 reuse between neighbours (a
    /// stencil's halo, a GEMM's panels; [`crate::warmup`]). Default false
    /// (`tune` and `validate` set it).
    pub neighbour_warmup: bool,
    /// The largest L2 the profile's cache model will run for (bytes): with
    /// [`Options::neighbour_warmup`], a neighbour that would not be replayed
    /// even there ([`crate::warmup::Warmup::keeps`]) is not emulated. `None`:
    /// every earlier neighbour is.
    pub warmup_l2_bytes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            policy: Policy::Ipdom,
            sample_ctas: None,
            work_budget: None,
            gpu: None,
            cache: true,
            ptxas: true,
            neighbour_warmup: false,
            warmup_l2_bytes: None,
        }
    }
}

/// The result of one emulation.
#[derive(Debug, Clone)]
pub struct Profiled {
    /// Kerr et al.'s metrics and the per-line rows.
    pub characterization: Characterization,
    /// What the models read. When `cache` is present its figures are in
    /// `profile.cache` and `profile.global.dram_bytes`/`l2_bytes`.
    pub profile: KernelProfile,
    /// The cache model's report for `profile.cache.gpu`, if it was run.
    pub cache: Option<CacheReport>,
    /// The global/local/constant address stream of the watched CTAs, kept so
    /// the cache model can be rerun for another GPU without re-emulating.
    pub trace: Option<Arc<Trace>>,
    /// Why there is no trace (too many requests, or not asked for).
    pub trace_note: Option<String>,
    /// Memory requests each traced request stands for among the emulated
    /// CTAs: 1, or more when the trace stopped at its cap (see
    /// [`crate::trace`]).
    pub trace_weight: f64,
    /// The sample's earlier neighbours, replayed into L2 by the cache model
    /// (with [`Options::neighbour_warmup`] on a sampled run).
    pub warmup: Option<Arc<Warmup>>,
}

/// The relative standard error of a sampled run's extrapolated instruction
/// count above which the sample grows (see [`Options::sample_ctas`]).
pub const SAMPLING_TARGET: f64 = 0.03;

/// How much a CTA sample may grow, in all, while its estimate is uncertain.
pub const SAMPLING_GROWTH: u64 = 16;

/// Emulate `loaded` and profile it (see [`Options`]).
///
/// A sampled run whose CTAs differ a lot is run again on a larger or a
/// stratified sample ([`crate::sampling`]): until the estimate's relative
/// standard error is at most [`SAMPLING_TARGET`], within a budget of
/// [`SAMPLING_GROWTH`] times the CTAs asked for.
pub fn profile(loaded: &LoadedSpec, opts: &Options) -> Result<Profiled, PipelineError> {
    profile_timed(loaded, opts, &mut StageTimes::default())
}

/// [`profile`], adding the wall time of its stages to `times`: emulation
/// (sampling probes and reruns included), characterization, ptxas, and the
/// cache model when `opts.gpu` is set.
pub fn profile_timed(
    loaded: &LoadedSpec,
    opts: &Options,
    times: &mut StageTimes,
) -> Result<Profiled, PipelineError> {
    let mut run = match opts.sample_ctas {
        None => emulate(loaded, opts, &Plan::Full, times)?,
        Some(k0) => sampling::sampled_run(loaded, opts, k0, times)?,
    };
    crate::lines::fill_text(&mut run.characterization, loaded);
    // What does not depend on the sample (ptxas, the static analyses, the
    // cache model) is done once, on the final run.
    let spec = &loaded.spec;
    let counted = Instant::now();
    let mut profile = run.characterization.to_profile();
    profile.kernel = loaded.kernel_name.clone();
    profile.launch.dynamic_shared = u64::from(spec.dynamic_shared);
    times.add(Stage::Characterization, counted.elapsed());
    emu::progress::stage("registers and static analyses");
    (profile.resources, profile.analysis.spills) = resources(loaded, opts.ptxas, times);
    let analysed = Instant::now();
    profile.analysis.parallelism = parallelism(loaded, &run.characterization);
    // The entry's executed instructions split by how SASS runs them (one
    // table of executions per pc serves both splits).
    let (split, sequences) = match loaded.entry() {
        Some(entry) => {
            let executions = entry_executions(entry, &run.characterization);
            let of = |pc: u32| executions.get(&pc).copied().unwrap_or(0.0);
            (
                registers::convert_split(entry, of),
                registers::fp64_sequences(entry, of),
            )
        }
        None => (None, None),
    };
    profile.workload.integer_convert_fraction = split.map(|s| s.integer);
    profile.workload.int32_to_f32_convert_fraction = split.map(|s| s.int32_to_f32);
    profile.workload.narrow_uint_to_f32_convert_fraction = split.map(|s| s.narrow_uint_to_f32);
    profile.workload.float64_convert_fraction = split.map(|s| s.float64);
    profile.workload.fp64_div_sqrt_fraction = sequences.map(|s| s.div_sqrt);
    profile.workload.fp64_rcp_fraction = sequences.map(|s| s.rcp);
    times.add(Stage::Characterization, analysed.elapsed());
    let warmup = match (&run.trace, opts.neighbour_warmup) {
        (Some(trace), true) if run.characterization.ctas_emulated < spec.ctas() => {
            let sampled: Vec<u32> = run
                .characterization
                .cta_instructions
                .iter()
                .map(|&(id, _)| id)
                .collect();
            let start = Instant::now();
            emu::progress::emulation_stage("emulating the sample's neighbours");
            let w = warmup::record(
                loaded,
                opts.policy,
                &sampled,
                trace,
                opts.warmup_l2_bytes,
                neighbour_cap(&run.characterization.cta_instructions, opts.work_budget),
            )?;
            times.add(Stage::Emulation, start.elapsed());
            w.map(Arc::new)
        }
        _ => None,
    };
    let mut profiled = Profiled {
        warmup,
        characterization: run.characterization,
        profile,
        cache: None,
        trace: run.trace,
        trace_note: run.trace_note,
        trace_weight: run.trace_weight,
    };
    if let Some(gpu) = &opts.gpu {
        times.time(Stage::CacheModel, || profiled.simulate_cache(gpu))?;
    }
    Ok(profiled)
}

/// How many neighbours a sample's warm-up may emulate under a work budget:
/// what is left of the budget after the sample, in CTAs at the costliest
/// sampled CTA's price ([`sampling::budgeted_ctas`]), so that a budgeted
/// run costs no more with the warm-up (a sample grown to its budget gets
/// none); `None` (no budget): every neighbour.
fn neighbour_cap(cta_instructions: &[(u32, u64)], budget: Option<u64>) -> Option<usize> {
    budget?;
    let costliest = cta_instructions.iter().map(|&(_, n)| n).max().unwrap_or(0);
    let working = cta_instructions.iter().filter(|&&(_, n)| n > 0).count() as u64;
    let n = sampling::budgeted_ctas(costliest, budget).saturating_sub(working);
    Some(usize::try_from(n).unwrap_or(usize::MAX))
}

/// Whether two PTX texts are the same program for the emulator: equal
/// line for line apart from the `.target` directive (NVRTC writes the same
/// PTX for sm_75 and sm_86 of most kernels, and the emulator does not read
/// the target). Emulating one serves both ([`Profiled::retarget`]).
pub fn same_program(a: &str, b: &str) -> bool {
    fn body(t: &str) -> impl Iterator<Item = &str> {
        t.lines()
            .filter(|l| !l.trim_start().starts_with(".target"))
            .map(str::trim_end)
    }
    // Texts whose lengths differ by more than a `.target` line can differ
    // by are not compared line by line.
    a.len().abs_diff(b.len()) <= 16 && body(a).eq(body(b))
}

/// Which CTAs one emulation runs.
pub(crate) enum Plan {
    /// Every CTA.
    Full,
    /// This many, spread over the grid ([`Sample::spread`]).
    Spread(u64),
    /// Exactly these (linear ids), extrapolated as a sample.
    Ctas(Vec<u32>),
}

/// One emulation: the characterization and the memory trace.
pub(crate) struct Emulated {
    pub(crate) characterization: Characterization,
    trace: Option<Arc<cachesim::Trace>>,
    trace_note: Option<String>,
    trace_weight: f64,
}

/// Emulate the CTAs of `plan` (`opts.sample_ctas` is not read), adding the
/// emulation, the characterization and the trace's finishing to `times`.
pub(crate) fn emulate(
    loaded: &LoadedSpec,
    opts: &Options,
    plan: &Plan,
    times: &mut StageTimes,
) -> Result<Emulated, PipelineError> {
    let spec = &loaded.spec;
    let mut copts = characterize::Options {
        policy: opts.policy,
        ..Default::default()
    };
    let sample = match plan {
        Plan::Full => Sample::full(spec.ctas()),
        Plan::Spread(k) => {
            copts.sample_ctas = Some(*k);
            Sample::spread(spec.grid, *k)
        }
        Plan::Ctas(ids) => {
            copts.run_ctas = Some(ids.clone());
            Sample::explicit(spec.ctas(), ids)
        }
    };
    let watch = (!sample.is_full()).then_some(sample.ctas.as_slice());
    emu::progress::emulation_stage(if sample.is_full() {
        "emulating every CTA"
    } else {
        "emulating a sample of CTAs"
    });
    let mut recorder = TraceRecorder::new(watch).with_read_only_loads(&loaded.module);
    let mut phases = characterize::Phases::default();
    let (m, text, file) = (&loaded.module, &loaded.ptx, &loaded.ptx_file);
    let characterization = if opts.cache {
        let watched = characterize::characterize_timed(
            m,
            text,
            file,
            spec,
            copts.clone(),
            &mut recorder,
            &mut phases,
        );
        match watched {
            // The run for addresses read what it had not computed: the whole
            // launch again, every value computed, to a recorder that has not
            // seen the first run (`characterize::Options::every_value`).
            Err(e) if e.is_stale_read() => {
                recorder = TraceRecorder::new(watch).with_read_only_loads(&loaded.module);
                let copts = characterize::Options {
                    every_value: true,
                    ..copts
                };
                characterize::characterize_timed(
                    m,
                    text,
                    file,
                    spec,
                    copts,
                    &mut recorder,
                    &mut phases,
                )
            }
            c => c,
        }
    } else {
        let mut none = emu::observer::NoObserver;
        characterize::characterize_timed(m, text, file, spec, copts, &mut none, &mut phases)
    };
    times.add(Stage::Emulation, phases.emulation);
    times.add(Stage::Characterization, phases.counting);
    let characterization = characterization.map_err(|e| loaded.emulation_error(e))?;
    let (trace, trace_note, trace_weight) = if opts.cache {
        match times.time(Stage::CacheModel, || recorder.finish()) {
            Ok(t) => (Some(Arc::new(t.trace)), None, t.weight),
            Err(why) => (None, Some(why.to_string()), 1.0),
        }
    } else {
        (None, Some("cache model not requested".to_string()), 1.0)
    };
    Ok(Emulated {
        characterization,
        trace,
        trace_note,
        trace_weight,
    })
}

/// Static ILP/MLP of the entry ([`ptx::analysis::ilp`]), each block weighted
/// by its warp executions in this run (the per-line rows of its first
/// instruction); by loop depth when no block of the entry was counted.
fn parallelism(loaded: &LoadedSpec, ch: &Characterization) -> ParallelismInputs {
    let Some(entry) = loaded.entry() else {
        return ParallelismInputs::default();
    };
    let Ok(par) = ptx::analysis::ilp::Parallelism::of_function(entry) else {
        return ParallelismInputs::default();
    };
    let executions: HashMap<u32, f64> = ch
        .lines
        .iter()
        .filter(|row| row.function == entry.name)
        .map(|row| (row.pc, row.executions))
        .collect();
    let weights: Vec<f64> = par
        .starts
        .iter()
        .map(|pc| executions.get(pc).copied().unwrap_or(0.0))
        .collect();
    let est = if weights.iter().any(|w| *w > 0.0) {
        par.weighted(&weights)
    } else {
        par.by_loop_depth()
    };
    ParallelismInputs {
        ilp: est.ilp,
        mlp_global: est.mlp_global,
        mlp_shared: est.mlp_shared,
    }
}

/// Registers (ptxas, else the estimate) and static shared memory of the
/// entry, and its register spills (ptxas only; none without it), with
/// ptxas building the PTX for `loaded`'s architecture.
fn resources(
    loaded: &LoadedSpec,
    use_ptxas: bool,
    times: &mut StageTimes,
) -> (Resources, SpillInputs) {
    resources_for_arch(loaded, &loaded.arch, use_ptxas, times)
}

/// What ptxas reports for `loaded`'s entry built for `arch` (its registers,
/// static shared memory, spills and code size), or the estimate where
/// ptxas is not used or fails. `arch` may be newer than the PTX's target:
/// the driver builds a binary that ships PTX for the GPU it runs on, and
/// ptxas does the same here.
pub fn resources_for_arch(
    loaded: &LoadedSpec,
    arch: &str,
    use_ptxas: bool,
    times: &mut StageTimes,
) -> (Resources, SpillInputs) {
    let from_ptxas = if use_ptxas {
        times.time(Stage::Ptxas, || {
            ptxas_kernel(&loaded.ptx, arch, &loaded.spec.kernel)
        })
    } else {
        None
    };
    let start = Instant::now();
    let resources = resources_from(loaded, arch, from_ptxas);
    times.add(Stage::Characterization, start.elapsed());
    resources
}

/// [`resources_for_arch`] from ptxas's report of the entry, if any.
fn resources_from(
    loaded: &LoadedSpec,
    arch: &str,
    from_ptxas: Option<arch::ptxas::KernelResources>,
) -> (Resources, SpillInputs) {
    let static_instructions = loaded.entry().map_or(0, |f| f.instructions.len() as u64);
    match from_ptxas {
        Some(k) => (
            Resources {
                registers_per_thread: k.registers,
                registers_source: RegisterSource::Ptxas,
                static_shared_per_block: k.shared_bytes.max(loaded.static_shared_bytes),
                compiler: arch::ptxas::found_ptxas_release()
                    .map(|(major, minor)| CompilerVersion::new(major, minor)),
                ptxas_arch: profile::SmArch::parse(arch),
            },
            SpillInputs {
                store_bytes: k.spill_store_bytes,
                load_bytes: k.spill_load_bytes,
                static_instructions,
                sass_bytes: k.code_bytes.unwrap_or(0),
                stack_frame_bytes: k.stack_frame_bytes,
            },
        ),
        None => (
            Resources {
                registers_per_thread: loaded.entry().map_or(0, estimate_registers),
                registers_source: RegisterSource::Estimate,
                static_shared_per_block: loaded.static_shared_bytes,
                compiler: None,
                ptxas_arch: None,
            },
            SpillInputs::default(),
        ),
    }
}

/// This run's warp executions of each instruction of `entry`, by pc.
fn entry_executions(entry: &ptx::ir::Function, ch: &Characterization) -> HashMap<u32, f64> {
    ch.lines
        .iter()
        .filter(|row| row.function == entry.name)
        .map(|row| (row.pc, row.executions))
        .collect()
}

impl Profiled {
    /// This emulation for another architecture's PTX of the same program
    /// (`loaded`; see [`same_program`]): the registers, static shared memory
    /// and spills become ptxas's for `loaded`'s architecture (with
    /// `use_ptxas`, else the estimate), as [`profile_timed`] would set them;
    /// what was emulated does not depend on the `.target` and stays. The
    /// cache model is left to [`Profiled::simulate_cache`].
    pub fn retarget(&mut self, loaded: &LoadedSpec, use_ptxas: bool, times: &mut StageTimes) {
        (self.profile.resources, self.profile.analysis.spills) =
            resources(loaded, use_ptxas, times);
    }

    /// This emulation with ptxas's figures for `loaded`'s PTX built for
    /// `arch` ([`resources_for_arch`]), where ptxas builds it; unchanged
    /// (false) where it cannot, so a failed build never replaces ptxas's
    /// figures by the estimate.
    pub fn retarget_arch(
        &mut self,
        loaded: &LoadedSpec,
        arch: &str,
        times: &mut StageTimes,
    ) -> bool {
        let (resources, spills) = resources_for_arch(loaded, arch, true, times);
        if resources.registers_source != RegisterSource::Ptxas {
            return false;
        }
        // A compiler the caller set (`predict --compiler`) stays.
        let compiler = self.profile.resources.compiler.or(resources.compiler);
        self.profile.resources = Resources {
            compiler,
            ..resources
        };
        self.profile.analysis.spills = spills;
        true
    }

    /// Run the cache model for `gpu` on the recorded trace and write its
    /// figures into the profile (replacing those of another GPU). Without a
    /// trace, or on a GPU without an L2 for global data, the figures are cleared.
    pub fn simulate_cache(&mut self, gpu: &Gpu) -> Result<(), PipelineError> {
        emu::progress::stage(&format!("cache model ({})", gpu.id));
        let report = match &self.trace {
            Some(trace) => {
                let occ = occupancy_for(&self.profile, gpu)?;
                let weight = self.profile.launch.blocks() as f64
                    / self.characterization.ctas_emulated.max(1) as f64
                    * self.trace_weight;
                let warmup = self.warmup.as_deref();
                cache::simulate_on(
                    gpu,
                    &occ,
                    trace,
                    warmup,
                    self.profile.launch.blocks(),
                    weight,
                )?
            }
            None => None,
        };
        cache::apply(&mut self.profile, &gpu.id, report.as_ref());
        self.cache = report;
        Ok(())
    }
}
