//! Running the sampled configurations through a predictor, in parallel, with
//! an output that does not depend on the thread count: every configuration
//! is computed on its own, the results are collected and sorted by index.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use arch::Gpu;
use validate::score::{Attempt, Outcome};
use validate::{Dataset, Experiment, Launch};

use super::engine::{Engine, PtxFrom};
use crate::error::{PredictError, StudyError};
use crate::target::arch_for;
use crate::timings::Timings;

/// Each model's predicted kernel time in milliseconds, or why it refused
/// (one line: recorded in the report as it is).
pub type ModelTimes = Vec<(
    String,
    Result<validate::score::Predicted, validate::score::NoTime>,
)>;

/// Turns the launch of one configuration into per-model predicted times.
/// `Err` means the configuration never reached the models.
pub trait Predictor: Sync {
    /// The models' times for `launch`, adding the wall time of each stage
    /// (and any cache hit) to `timings` (whose total the runner sets).
    fn predict(&self, launch: &Launch, timings: &mut Timings) -> Result<ModelTimes, PredictError>;
}

/// The outcomes, sorted by configuration index, and the wall time spent.
pub struct Run {
    pub outcomes: Vec<Outcome>,
    /// One per outcome, in the same order: where its time went; `None` for
    /// a configuration measured as failed (not run).
    pub timings: Vec<Option<Timings>>,
    pub elapsed: Duration,
}

/// Runs every configuration of `indices` (rows of `dataset`) that was
/// measured; those measured as failed are counted, not run. `tick` is called
/// once per configuration done (from any thread).
pub fn run_configurations(
    dataset: &Dataset,
    experiment: &Experiment,
    indices: &[usize],
    predictor: &dyn Predictor,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Run, StudyError> {
    let start = Instant::now();
    let pool = crate::workers::pool(jobs)?;
    let ran: Vec<Option<(Outcome, Option<Timings>)>> =
        crate::workers::map_each(pool, indices, |&index| {
            let row = dataset.rows.get(index)?;
            let measured_ms = row.measured.mean_ms();
            let (attempt, timings) = match measured_ms {
                None => (Attempt::NotRun, None),
                Some(_) => {
                    let started = Instant::now();
                    let mut timings = Timings::one();
                    let attempt = attempt(dataset, experiment, index, predictor, &mut timings);
                    timings.total = started.elapsed();
                    (attempt, Some(timings))
                }
            };
            tick();
            let outcome = Outcome {
                index,
                measured_ms,
                attempt,
            };
            Some((outcome, timings))
        });
    let mut timed: Vec<(Outcome, Option<Timings>)> = ran.into_iter().flatten().collect();
    timed.sort_by_key(|(o, _)| o.index);
    let (mut outcomes, timings): (Vec<Outcome>, _) = timed.into_iter().unzip();
    // Scored together, so one familiarity for the learned model's
    // correction (validate::blend).
    validate::score::share_familiarity(&mut outcomes);
    Ok(Run {
        outcomes,
        timings,
        elapsed: start.elapsed(),
    })
}

fn attempt(
    dataset: &Dataset,
    experiment: &Experiment,
    index: usize,
    predictor: &dyn Predictor,
    timings: &mut Timings,
) -> Attempt {
    let Some(row) = dataset.rows.get(index) else {
        return Attempt::Failed(format!("no row {index}"));
    };
    let launch = match experiment.launch(&dataset.named_values(row)) {
        Ok(l) => l,
        Err(e) => return Attempt::Failed(format!("launch: {e}")),
    };
    match predictor.predict(&launch, timings) {
        Ok(times) => Attempt::Predicted(times),
        Err(e) => Attempt::Failed(e.to_string()),
    }
}

/// One measured data file of a shared run and the GPU its configurations
/// are predicted on ([`run_shared`]).
pub struct Member<'a> {
    pub dataset: &'a Dataset,
    pub gpu: &'a Gpu,
    /// The rows of `dataset` to run (sampled alone, as a one-GPU run would).
    pub indices: &'a [usize],
    /// As [`Engine::on_gpu`]'s `measured_compiler`.
    pub measured_compiler: Option<profile::CompilerVersion>,
}

/// What a shared run computed: one [`Run`] per member, in their order, and
/// how much work served them.
pub struct SharedRun {
    pub runs: Vec<MemberRun>,
    /// Configurations compiled for an architecture: PTX compiled by NVRTC,
    /// and served from the PTX cache.
    pub ptx_compiled: usize,
    pub ptx_cache_hits: usize,
    /// Configurations rescored from the profiles of an interrupted run
    /// (`--resume`): neither compiled nor emulated.
    pub resumed: usize,
    /// Configurations predicted on a GPU (one per member that reached the models).
    pub predictions: usize,
    /// Distinct configurations run (rows of several members matched by
    /// their parameter values count once).
    pub configurations: usize,
    /// The sum of the distinct configurations' breakdowns (each counted once).
    pub timings: Timings,
}

/// One member's part of a [`SharedRun`]: as a one-GPU run gives it.
pub struct MemberRun {
    pub run: Run,
    /// PTX of this member's configurations served from the PTX cache, and
    /// compiled (each configuration counted for this member, however many
    /// members its PTX served).
    pub ptx_cache_hits: usize,
    pub ptx_compiled: usize,
    /// This member's configurations rescored from saved profiles (`--resume`).
    pub resumed: usize,
}

/// A configuration of a shared run: the rows of every member that carry the
/// same parameter values (names and values in the data file's order, and
/// the k-th repeat of them in one file with the k-th of another).
struct Shared {
    /// (member, row index), in member order.
    rows: Vec<(usize, usize)>,
}

/// Runs the configurations of every member with one compile per distinct
/// architecture and one emulation per distinct program: rows of different
/// members with the same parameter values are one configuration, compiled
/// for each architecture among their GPUs (`target::arch_for`), emulated once
/// per architecture whose PTX differs from the others' in more than its
/// `.target` (`pipeline::same_program`), then cache-modelled and predicted
/// per member.
///
/// Each member's outcomes are those a one-GPU run of it gives, sorted by
/// row index, whatever the thread count. Each configuration's breakdown is
/// that of all the work it took (the same in every member that ran it, as
/// `tune` reports one compile and emulation serving several GPUs). `tick`
/// is called once per distinct configuration done (from any thread).
pub fn run_shared(
    experiment: &Experiment,
    members: &[Member<'_>],
    engine: &Engine,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<SharedRun, StudyError> {
    let start = Instant::now();
    let configurations = group(members);
    let pool = crate::workers::pool(jobs)?;
    let done: Vec<Done> = crate::workers::map_each(pool, &configurations, |shared| {
        let d = run_one(experiment, members, engine, shared);
        tick();
        d
    });
    let elapsed = start.elapsed();
    let mut per_member: Vec<Vec<RowDone>> = members.iter().map(|_| Vec::new()).collect();
    let mut out = SharedRun {
        runs: Vec::with_capacity(members.len()),
        ptx_compiled: 0,
        ptx_cache_hits: 0,
        resumed: 0,
        predictions: 0,
        configurations: configurations.len(),
        timings: Timings::default(),
    };
    for d in done {
        if let Some(t) = d.timings {
            out.timings.add(&t);
        }
        out.ptx_compiled += d.compiled;
        out.ptx_cache_hits += d.cache_hits;
        out.resumed += d.resumed;
        for (member, (outcome, timings, from)) in d.rows {
            if matches!(outcome.attempt, Attempt::Predicted(_)) {
                out.predictions += 1;
            }
            if let Some(rows) = per_member.get_mut(member) {
                rows.push((outcome, timings, from));
            }
        }
    }
    for mut rows in per_member {
        rows.sort_by_key(|(o, _, _)| o.index);
        let count = |want: PtxFrom| rows.iter().filter(|(_, _, f)| *f == Some(want)).count();
        let (ptx_cache_hits, ptx_compiled) = (count(PtxFrom::Cache), count(PtxFrom::Compiled));
        let resumed = count(PtxFrom::Resumed);
        let (mut outcomes, timings): (Vec<Outcome>, _) =
            rows.into_iter().map(|(o, t, _)| (o, t)).unzip();
        validate::score::share_familiarity(&mut outcomes);
        out.runs.push(MemberRun {
            run: Run {
                outcomes,
                timings,
                elapsed,
            },
            ptx_cache_hits,
            ptx_compiled,
            resumed,
        });
    }
    Ok(out)
}

/// How many distinct configurations [`run_shared`] runs for `members`.
pub fn distinct_configurations(members: &[Member<'_>]) -> usize {
    group(members).len()
}

/// The distinct configurations of `members`, in the order their first row
/// appears (member by member, in each member's sample order).
fn group(members: &[Member<'_>]) -> Vec<Shared> {
    let mut index: HashMap<(Vec<(String, String)>, usize), usize> = HashMap::new();
    let mut seen: HashMap<(usize, Vec<(String, String)>), usize> = HashMap::new();
    let mut out: Vec<Shared> = Vec::new();
    for (m, member) in members.iter().enumerate() {
        for &row_index in member.indices {
            let Some(row) = member.dataset.rows.get(row_index) else {
                continue;
            };
            let values: Vec<(String, String)> = member
                .dataset
                .named_values(row)
                .into_iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            let repeat = seen.entry((m, values.clone())).or_insert(0);
            let key = (values, *repeat);
            *repeat += 1;
            let at = *index.entry(key).or_insert_with(|| {
                out.push(Shared { rows: Vec::new() });
                out.len() - 1
            });
            if let Some(shared) = out.get_mut(at) {
                shared.rows.push((m, row_index));
            }
        }
    }
    out
}

/// One row done: its outcome, its breakdown (if it ran) and where its PTX
/// came from (if it got PTX).
type RowDone = (Outcome, Option<Timings>, Option<PtxFrom>);

/// One configuration done: per row its member and what it came to, and the
/// work it took.
struct Done {
    rows: Vec<(usize, RowDone)>,
    /// The configuration's breakdown, if any of its rows ran.
    timings: Option<Timings>,
    compiled: usize,
    cache_hits: usize,
    /// 1 when the configuration was rescored from the profiles an
    /// interrupted run saved (`--resume`).
    resumed: usize,
}

fn run_one(
    experiment: &Experiment,
    members: &[Member<'_>],
    engine: &Engine,
    shared: &Shared,
) -> Done {
    let started = Instant::now();
    let mut timings = Timings::one();
    let mut done = Done {
        rows: Vec::with_capacity(shared.rows.len()),
        timings: None,
        compiled: 0,
        cache_hits: 0,
        resumed: 0,
    };
    // (member, row, attempt, where its PTX came from) of the rows measured
    // as run.
    let mut attempts: Vec<(usize, usize, Attempt, Option<PtxFrom>)> = Vec::new();
    let running: Vec<(usize, usize)> = shared
        .rows
        .iter()
        .copied()
        .filter(|&(m, i)| {
            members
                .get(m)
                .and_then(|mm| mm.dataset.rows.get(i))
                .is_some_and(|r| r.measured.mean_ms().is_some())
        })
        .collect();
    if let Some(&(m0, i0)) = running.first() {
        let launch = members
            .get(m0)
            .and_then(|m| Some((m, m.dataset.rows.get(i0)?)))
            .map(|(m, row)| experiment.launch(&m.dataset.named_values(row)));
        match launch {
            None => {}
            Some(Err(e)) => {
                for &(m, i) in &running {
                    attempts.push((m, i, Attempt::Failed(format!("launch: {e}")), None));
                }
            }
            Some(Ok(launch)) => {
                let gpus: Vec<(&Gpu, Option<profile::CompilerVersion>)> = running
                    .iter()
                    .filter_map(|&(m, _)| members.get(m))
                    .map(|member| (member.gpu, member.measured_compiler))
                    .collect();
                match engine.resumed(&launch, &gpus, &mut timings) {
                    Some(resumed) => {
                        done.resumed = 1;
                        for (&(m, i), times) in running.iter().zip(resumed) {
                            let attempt = match times {
                                Ok(times) => Attempt::Predicted(times),
                                Err(why) => Attempt::Failed(why),
                            };
                            attempts.push((m, i, attempt, Some(PtxFrom::Resumed)));
                        }
                    }
                    None => compile_and_emulate(
                        members,
                        engine,
                        &running,
                        &launch,
                        &mut timings,
                        &mut done,
                        &mut attempts,
                    ),
                }
            }
        }
    }
    timings.total = started.elapsed();
    if !running.is_empty() {
        done.timings = Some(timings);
    }
    for &(m, i) in &shared.rows {
        let measured_ms = members
            .get(m)
            .and_then(|mm| mm.dataset.rows.get(i))
            .and_then(|r| r.measured.mean_ms());
        let found = attempts
            .iter()
            .position(|(am, ai, _, _)| (*am, *ai) == (m, i));
        let (attempt, t, from) = match (measured_ms, found) {
            (None, _) => (Attempt::NotRun, None, None),
            (Some(_), Some(at)) => {
                let (_, _, attempt, from) = attempts.swap_remove(at);
                (attempt, Some(timings), from)
            }
            (Some(_), None) => (Attempt::Failed(format!("no row {i}")), Some(timings), None),
        };
        let outcome = Outcome {
            index: i,
            measured_ms,
            attempt,
        };
        done.rows.push((m, (outcome, t, from)));
    }
    done
}

/// One compile and one emulation per architecture of the GPUs of `running`,
/// then the cache model and the models per GPU: `attempts` gets one entry
/// per row of `running`.
fn compile_and_emulate(
    members: &[Member<'_>],
    engine: &Engine,
    running: &[(usize, usize)],
    launch: &Launch,
    timings: &mut Timings,
    done: &mut Done,
    attempts: &mut Vec<(usize, usize, Attempt, Option<PtxFrom>)>,
) {
    // One compile and one emulation per architecture, in the
    // order the members name them.
    let mut archs: Vec<String> = Vec::new();
    for &(m, _) in running {
        if let Some(member) = members.get(m) {
            let a = arch_for(member.gpu);
            if !archs.contains(&a) {
                archs.push(a);
            }
        }
    }
    // Emulations of this configuration so far: another
    // architecture's PTX of the same program reuses one.
    let mut earlier = Vec::new();
    for arch in &archs {
        let mut from = None;
        let emulated = engine.emulate(launch, arch, timings, &mut from, &earlier);
        match from {
            Some(PtxFrom::Compiled) => done.compiled += 1,
            Some(PtxFrom::Cache) => done.cache_hits += 1,
            Some(PtxFrom::Resumed | PtxFrom::Shared) | None => {}
        }
        for &(m, i) in running {
            let Some(member) = members.get(m) else {
                continue;
            };
            if arch_for(member.gpu) != *arch {
                continue;
            }
            let failed = |why: String| {
                engine.note_failure(&member.gpu.id, launch, &why);
                Attempt::Failed(why)
            };
            let attempt = match &emulated {
                Err(e) => failed(e.to_string()),
                Ok(em) => {
                    match engine.on_gpu(em, launch, member.gpu, member.measured_compiler, timings) {
                        Ok(times) => Attempt::Predicted(times),
                        Err(e) => failed(e.to_string()),
                    }
                }
            };
            attempts.push((m, i, attempt, from));
        }
        if let Ok(e) = emulated {
            earlier.push(e);
        }
    }
}
