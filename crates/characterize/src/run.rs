//! Characterize a launch: run the emulator with a [`Collector`] and turn the
//! counts into a [`Characterization`], for one reconvergence policy or both.

use std::time::{Duration, Instant};

use emu::exec::launch::{ForkPlan, launch_forked};
use emu::exec::{Buffer, CtaSelection, LaunchOptions, launch, launch_ctas};
use emu::observer::{BarrierEvent, BranchEvent, MemEvent, NoObserver, Observer, Site};
use emu::simt::Mask;
use emu::simt::stack::Policy;
use emu::spec::{ArgSpec, LaunchSpec};
use ptx::Module;

use crate::collector::Collector;
use crate::merge::ranges_conflict;
use crate::report::Characterization;
use crate::sampling::Sample;
use crate::static_info::InstTable;

/// Why a characterization failed.
#[derive(Debug, thiserror::Error)]
pub enum CharacterizeError {
    /// The PTX text does not parse: the rendered diagnostics.
    #[error("{0}")]
    Parse(String),
    /// The kernel faulted or the launch could not be prepared.
    #[error("{0}")]
    Fault(Box<emu::fault::Fault>),
    /// A launch too large to account for.
    #[error("{0}")]
    Launch(String),
}

/// How to characterize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub policy: Policy,
    /// Watch only this many CTAs, spread over the grid (None: all).
    pub sample_ctas: Option<u64>,
    /// Watch exactly these CTAs (linear ids); overrides `sample_ctas`.
    pub watch_ctas: Option<Vec<u32>>,
    /// Run and watch only these CTAs (linear ids) and extrapolate from them
    /// as from `sample_ctas` (a sample the caller chose, e.g. stratified into
    /// idle and busy CTAs); overrides `sample_ctas` and `watch_ctas`.
    pub run_ctas: Option<Vec<u32>>,
    /// Host threads that emulate and collect, each a contiguous range of
    /// CTAs (None: rayon's pool, `RAYON_NUM_THREADS` or one per core; 1:
    /// sequentially). The numbers do not depend on it.
    pub threads: Option<usize>,
    /// Compute every value, not only what addresses and branches need
    /// (`emu::exec::LaunchOptions::addresses_only` off): what a run for
    /// addresses falls back to where its analysis was wrong
    /// ([`CharacterizeError::is_stale_read`]). The numbers are the same.
    pub every_value: bool,
}

impl CharacterizeError {
    /// The run for addresses alone read a value it had not computed (its
    /// analysis of which values are needed was wrong for this launch): run
    /// again with [`Options::every_value`].
    pub fn is_stale_read(&self) -> bool {
        matches!(self, CharacterizeError::Fault(f) if emu::exec::idle::is_stale_read(f))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            policy: Policy::Ipdom,
            sample_ctas: None,
            watch_ctas: None,
            run_ctas: None,
            threads: None,
            every_value: false,
        }
    }
}

/// Name of a reconvergence policy as the CLI spells it.
pub fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Ipdom => "ipdom",
        Policy::Barrier => "barrier",
    }
}

/// Run `spec` on the parsed `module` (whose text is `text`, from `file`) and characterize it.
pub fn characterize(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: Options,
) -> Result<Characterization, CharacterizeError> {
    characterize_with(module, text, file, spec, opts, &mut NoObserver)
}

/// Forwards every event to the collector, then to a second observer.
struct Tee<'a, A, B> {
    first: &'a mut A,
    second: &'a mut B,
}

impl<A: Observer, B: Observer> Observer for Tee<'_, A, B> {
    fn instruction(&mut self, site: Site, active: Mask) {
        self.first.instruction(site, active);
        self.second.instruction(site, active);
    }
    fn memory(&mut self, event: &MemEvent<'_>) {
        self.first.memory(event);
        self.second.memory(event);
    }
    fn branch(&mut self, event: &BranchEvent) {
        self.first.branch(event);
        self.second.branch(event);
    }
    fn barrier(&mut self, event: &BarrierEvent) {
        self.first.barrier(event);
        self.second.barrier(event);
    }
    fn stack_depth(&mut self, cta: u32, warp: u32, depth: u32) {
        self.first.stack_depth(cta, warp, depth);
        self.second.stack_depth(cta, warp, depth);
    }
    fn cta_begin(&mut self, cta: u32) {
        self.first.cta_begin(cta);
        self.second.cta_begin(cta);
    }
    fn cta_end(&mut self, cta: u32) {
        self.first.cta_end(cta);
        self.second.cta_end(cta);
    }
}

/// [`characterize`], with `extra` also watching the same run (the pipeline
/// records the memory address stream for the cache model this way, so the
/// kernel is emulated once). `extra` sees every CTA, sampled or not.
pub fn characterize_with<O: Observer>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: Options,
    extra: &mut O,
) -> Result<Characterization, CharacterizeError> {
    characterize_timed(
        module,
        text,
        file,
        spec,
        opts,
        extra,
        &mut Phases::default(),
    )
}

/// Wall time of a characterization's two phases, added to by
/// [`characterize_timed`]: one clock read around each phase, none per event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phases {
    /// The launch: the emulator with the collector (and any other
    /// observer) watching; their per-event work is part of it.
    pub emulation: Duration,
    /// Before and after it: the instruction table, the collector's totals
    /// and the [`Characterization`] built from them.
    pub counting: Duration,
}

/// [`characterize_with`], adding the wall time of its phases to `phases`.
pub fn characterize_timed<O: Observer>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: Options,
    extra: &mut O,
    phases: &mut Phases,
) -> Result<Characterization, CharacterizeError> {
    let start = Instant::now();
    let table = InstTable::new(module, text);
    let threads = spec.threads_per_cta();
    let threads = u32::try_from(threads)
        .map_err(|_| CharacterizeError::Launch(format!("{threads} threads per CTA")))?;
    let sample = match (&opts.run_ctas, &opts.watch_ctas, opts.sample_ctas) {
        (Some(ctas), _, _) | (None, Some(ctas), _) => Sample::explicit(spec.ctas(), ctas),
        (None, None, Some(k)) => Sample::spread(spec.grid, k),
        (None, None, None) => Sample::full(spec.ctas()),
    };
    let watch = (!sample.is_full()).then_some(sample.ctas.as_slice());
    // A sample runs only its CTAs (the emulator picks them by the same rule
    // as `Sample::spread`); an explicit watch list still runs
    // the whole grid, since its CTAs may depend on the others.
    let ctas = match (&opts.watch_ctas, opts.sample_ctas) {
        (None, Some(k)) => CtaSelection::Spread(k),
        _ => CtaSelection::All,
    };
    let launch_opts = LaunchOptions {
        policy: opts.policy,
        parallel: false,
        fuel: None,
        ctas,
        // The collector and the trace read events, never values: what only
        // makes stored values is skipped (`emu::exec::idle`), and the
        // buffers are read for their places alone (`host_mapped_ranges`).
        addresses_only: !opts.every_value,
    };
    let run = Run {
        module,
        text,
        file,
        spec,
        opts: launch_opts,
        list: opts.run_ctas.as_ref().map(|_| sample.ctas.as_slice()),
    };
    let launched = Instant::now();
    phases.counting += launched.duration_since(start);
    let collector = if O::WATCHES {
        // `extra` wants every event in launch order: one sequential run.
        let mut collector = Collector::new(&table, threads, watch);
        run.sequential(&mut collector, extra)
            .map(|buffers| (collector, buffers))
    } else {
        let make = || Collector::tracking(&table, threads, watch);
        run.forked(make, opts.threads)
    };
    let counting = Instant::now();
    phases.emulation += counting.duration_since(launched);
    let collector = match collector {
        // Where the run for addresses read what it had not computed, it runs
        // again whole; an `extra` that watched it has seen the events of
        // the first run, so its caller does that.
        Err(e) if e.is_stale_read() && !O::WATCHES && !opts.every_value => {
            let opts = Options {
                every_value: true,
                ..opts
            };
            return characterize_timed(module, text, file, spec, opts, extra, phases);
        }
        c => c,
    };
    let (mut collector, buffers) = collector?;
    collector.finish();
    collector.host_mapped = host_mapped_ranges(spec, &buffers);
    let kernel = match ptx::analysis::find_kernel(module, &spec.kernel) {
        ptx::analysis::KernelLookup::Found(h) => module
            .functions
            .get(h)
            .map_or(spec.kernel.clone(), |f| f.name.clone()),
        _ => spec.kernel.clone(),
    };
    let characterization = Characterization::from_collector(
        &collector,
        &kernel,
        spec.grid,
        spec.block,
        policy_name(opts.policy),
        &sample,
    );
    phases.counting += counting.elapsed();
    Ok(characterization)
}

/// The byte ranges of `spec`'s buffers in mapped host memory, from where
/// the launch placed them (None: the spec maps none).
fn host_mapped_ranges(spec: &LaunchSpec, buffers: &[Buffer]) -> Option<Vec<(u64, u64)>> {
    let mapped: Vec<&str> = spec
        .args
        .iter()
        .filter_map(|a| match a {
            ArgSpec::Buffer(b) if b.host_mapped => Some(b.name.as_str()),
            _ => None,
        })
        .collect();
    if mapped.is_empty() {
        return None;
    }
    Some(
        buffers
            .iter()
            .filter(|b| mapped.contains(&b.name.as_str()))
            .map(|b| (b.base, b.base.saturating_add(b.bytes.len() as u64)))
            .collect(),
    )
}

/// One launch to characterize.
struct Run<'a> {
    module: &'a Module,
    text: &'a str,
    file: &'a str,
    spec: &'a LaunchSpec,
    opts: LaunchOptions,
    /// Exactly these CTAs, in this order (`Options::run_ctas`).
    list: Option<&'a [u32]>,
}

impl Run<'_> {
    /// CTAs in launch order, the collector then `extra` seeing each event.
    fn sequential<O: Observer>(
        &self,
        collector: &mut Collector<'_>,
        extra: &mut O,
    ) -> Result<Vec<Buffer>, CharacterizeError> {
        let mut tee = Tee {
            first: collector,
            second: extra,
        };
        let (m, t, f, s, o) = (self.module, self.text, self.file, self.spec, self.opts);
        match self.list {
            Some(ids) => launch_ctas(m, t, f, s, o, ids, &mut tee),
            None => launch(m, t, f, s, o, &mut tee),
        }
        .map(|r| r.buffers)
        .map_err(|f| CharacterizeError::Fault(f.into()))
    }

    /// Ranges of CTAs on `threads` host threads, one collector each, merged
    /// in launch order. When a range read what an earlier one wrote (CTAs
    /// that communicate through global memory), or a range faulted (the
    /// fault a sequential run meets may be another), the launch runs again
    /// as one range: the numbers are always those of a sequential run.
    fn forked<'t, F>(
        &self,
        make: F,
        threads: Option<usize>,
    ) -> Result<(Collector<'t>, Vec<Buffer>), CharacterizeError>
    where
        F: Fn() -> Collector<'t> + Sync,
    {
        let ranges = threads.unwrap_or(0);
        let forked = match threads.filter(|&n| n > 1) {
            Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
                Ok(pool) => pool.install(|| self.launch(&make, ranges)),
                Err(_) => self.launch(&make, ranges),
            },
            None => self.launch(&make, ranges),
        };
        let (observers, buffers) = match forked {
            Ok(o) if !ranges_conflict(&o.0) => o,
            _ => self.launch(&make, 1)?,
        };
        let mut it = observers.into_iter();
        let mut merged = it.next().unwrap_or_else(&make);
        it.for_each(|c| merged.absorb(c));
        Ok((merged, buffers))
    }

    fn launch<'t, F>(
        &self,
        make: &F,
        ranges: usize,
    ) -> Result<(Vec<Collector<'t>>, Vec<Buffer>), CharacterizeError>
    where
        F: Fn() -> Collector<'t> + Sync,
    {
        let plan = ForkPlan {
            ctas: self.list,
            ranges,
        };
        launch_forked(
            self.module,
            self.text,
            self.file,
            self.spec,
            self.opts,
            plan,
            make,
        )
        .map(|f| (f.observers, f.result.buffers))
        .map_err(CharacterizeError::Fault)
    }
}

/// Parse the PTX `text` (the file `file`) and characterize `spec` on it.
pub fn characterize_ptx(
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: Options,
) -> Result<Characterization, CharacterizeError> {
    let module =
        ptx::parse(file, text).map_err(|d| CharacterizeError::Parse(d.render(file, text)))?;
    characterize(&module, text, file, spec, opts)
}
