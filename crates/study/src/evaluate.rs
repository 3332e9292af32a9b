//! One configuration, start to finish: its launch, a launchability check on
//! the launch alone (before compiling anything), the result cache, then
//! compile, registers (ptxas, else the estimate), the full launchability
//! check, one emulation with CTA sampling, and every model.
//!
//! What reaches the compiler is cached ([`Outcome`], keyed by source,
//! defines, grid, block, GPU and the model set); a launch rejected on its
//! shape alone costs nothing and is not cached; failures are not cached
//! (they may come from the environment, e.g. NVRTC missing).

use arch::Gpu;
use profile::{RegisterSource, Resources as ProfileResources, SpillInputs};
use serde::{Deserialize, Serialize};
use tune::{CacheKey, Config, LaunchDims, ResultCache, check_launch};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use pipeline::Stage;

use crate::error::PtxCacheError;
use crate::error::StudyError;
use crate::message::error_line;
use crate::ptx_cache::PtxCache;
use crate::target::{Prepared, Target, arch_for};
use crate::timings::Timings;

/// One model's answer for one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelResult {
    pub model: String,
    /// Predicted time, milliseconds; None when the model refused.
    pub ms: Option<f64>,
    pub bottleneck: Option<String>,
    pub error: Option<String>,
    /// The model's interval `[low, high]`, milliseconds, for a model that
    /// gives one (`learned`: its ensemble's smallest and largest member);
    /// see [`interval_ms`].
    #[serde(default)]
    pub interval_ms: Option<[f64; 2]>,
    /// The prediction at both ends of familiarity (`learned`), so that the
    /// configurations ranked together share one ([`share_familiarity`]).
    #[serde(default)]
    pub blend: Option<validate::blend::Blend>,
}

/// What a configuration that reached the compiler came to (the cached value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    Predicted {
        registers: u32,
        /// "ptxas" or "estimate".
        register_source: String,
        static_shared_bytes: u64,
        occupancy: f64,
        limiter: String,
        models: Vec<ModelResult>,
        /// CTAs the counts stand on: the sample, as it grew, or every CTA.
        #[serde(default)]
        ctas_emulated: Option<u64>,
        /// Estimated relative standard error of the counts extrapolated
        /// from those CTAs (0 when every CTA ran).
        #[serde(default)]
        sampling_error: Option<f64>,
    },
    /// Not launchable once its registers and shared memory are known.
    Rejected {
        kind: String,
        reason: String,
        registers: u32,
        register_source: String,
    },
}

/// Where a configuration ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Done {
        outcome: Outcome,
        cached: bool,
    },
    /// Not launchable on its launch shape alone (block, grid, dynamic shared memory).
    RejectedEarly {
        kind: String,
        reason: String,
    },
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub config: Config,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub status: Status,
    /// Where the configuration's time went, over every GPU of the run (the
    /// same in each GPU's evaluation: one compile and one emulation serve
    /// them all). Reported only: no ranking reads it.
    pub timings: Timings,
}

impl Evaluation {
    /// The model's predicted time, when the configuration was predicted.
    pub fn ms(&self, model_index: usize) -> Option<f64> {
        match &self.status {
            Status::Done {
                outcome: Outcome::Predicted { models, .. },
                ..
            } => models.get(model_index).and_then(|m| m.ms),
            _ => None,
        }
    }

    /// The model's interval `[low, high]` (ms), when the configuration was
    /// predicted and the model gives one.
    pub fn interval(&self, model_index: usize) -> Option<[f64; 2]> {
        match &self.status {
            Status::Done {
                outcome: Outcome::Predicted { models, .. },
                ..
            } => models.get(model_index).and_then(|m| m.interval_ms),
            _ => None,
        }
    }
}

pub struct Evaluator<'a> {
    pub target: &'a Target,
    /// Every GPU of the run: a configuration is compiled and emulated once,
    /// then launch-checked, cache-modelled and predicted per GPU.
    pub gpus: &'a [Gpu],
    pub models: &'a [String],
    pub sample_ctas: Option<u64>,
    pub cache: Option<&'a ResultCache>,
    /// PTX shared with `ptxperf validate` (experiment targets).
    pub ptx_cache: &'a PtxCache,
    /// Emulations run (at most one per configuration, whatever the GPU count).
    pub emulations: AtomicUsize,
}

/// Bumped whenever what is cached changes shape.
const RESULT_VERSION: &str = "tune-result-5";

/// The running binary's identity: its version and a hash of its executable.
/// Part of every cache key, so results cached by another build (a changed
/// model, emulator or cache model) are never served: the models change
/// between releases of the same version number. Without a readable
/// executable, the version alone.
fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let version = env!("CARGO_PKG_VERSION");
        match std::env::current_exe().and_then(std::fs::read) {
            Ok(bytes) => format!("{version}+{:016x}", tune::fnv1a64(&bytes)),
            Err(_) => version.to_string(),
        }
    })
}

/// The learned model's part of the cache key: a hash of the model file it
/// reads now (`models::learned::model_path`). The file is read at run time,
/// not built in, so a retrained or swapped model must not be served the
/// predictions of the one before (it was, until this key: `tune` printed
/// the old model's times after a retraining). An unreadable file keys as
/// such; the model then reports why it has no prediction.
/// Read once per process, as the model itself is.
fn learned_model_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| match std::fs::read(models::learned::model_path()) {
        Ok(bytes) => format!(";learned={:016x}", tune::fnv1a64(&bytes)),
        Err(_) => ";learned=unreadable".to_string(),
    })
}

/// The GPU part of the cache key: its id, and the clock where it is held at
/// one (`--clock-mhz`), so results at another clock are not served.
/// The GPU in a result's cache key: its id, the clock it is held at, and a
/// hash of all its figures, so that a GPU file of one's own (`--gpu
/// PATH.toml`) edited under the same id is not served the old results.
fn gpu_key(gpu: &arch::Gpu) -> String {
    // Serialising plain numbers and strings cannot fail.
    let figures = serde_json::to_string(gpu).unwrap_or_default();
    let hash = tune::cache::fnv1a64(figures.as_bytes());
    match gpu.clocks.sustained_mhz {
        Some(mhz) => format!("{}@{mhz}MHz#{hash:016x}", gpu.id),
        None => format!("{}#{hash:016x}", gpu.id),
    }
}

/// Why a configuration that reached the compiler could not be predicted;
/// recorded as [`Status::Failed`] with the line that names the error.
#[derive(Debug, thiserror::Error)]
pub enum EvaluateError {
    #[error("load: {}", error_line(&.0.to_string()))]
    Load(pipeline::PipelineError),
    /// NVRTC refused the source.
    #[error("load: NVRTC: {}", error_line(&.0.to_string()))]
    Compile(nvrtc::NvrtcError),
    /// NVRTC could not be loaded or asked for its version.
    #[error("load: {}", error_line(&.0.to_string()))]
    Cache(PtxCacheError),
    #[error("emulation: {}", error_line(&.0.to_string()))]
    Emulation(pipeline::PipelineError),
    #[error("cache model: {}", error_line(&.0.to_string()))]
    CacheModel(pipeline::PipelineError),
}

impl From<PtxCacheError> for EvaluateError {
    fn from(e: PtxCacheError) -> Self {
        match e {
            PtxCacheError::Compile(e) => EvaluateError::Compile(e),
            other => EvaluateError::Cache(other),
        }
    }
}

impl Evaluator<'_> {
    /// The model-set part of the cache key: the models, the sampling, the
    /// result version and the build.
    fn models_key(&self) -> String {
        let sample = self
            .sample_ctas
            .map_or_else(|| "all".to_string(), |k| k.to_string());
        // Keys are only looked up with a cache: without one, the
        // executable is not read.
        let build = if self.cache.is_some() { build_id() } else { "" };
        let learned = if self.cache.is_some() && self.models.iter().any(|m| m == "learned") {
            learned_model_id()
        } else {
            ""
        };
        format!(
            "{RESULT_VERSION};build={build};models={};sample_ctas={sample}{learned}",
            self.models.join(",")
        )
    }

    /// Every configuration on a pool of `jobs` threads; results in input
    /// order, one [`Evaluation`] per GPU each. `tick` is called once per
    /// configuration done (from any thread).
    pub fn evaluate_all(
        &self,
        configs: &[Config],
        jobs: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Vec<Evaluation>>, StudyError> {
        let pool = crate::workers::pool(jobs)?;
        Ok(crate::workers::map_each(pool, configs, |c| {
            let e = self.evaluate(c);
            tick();
            e
        }))
    }

    /// One configuration on every GPU, in the order of `self.gpus`.
    pub fn evaluate(&self, config: &Config) -> Vec<Evaluation> {
        let started = Instant::now();
        let mut timings = Timings::one();
        let prepared = match self.target.prepare(config) {
            Ok(p) => p,
            Err(e) => {
                let status = Status::Failed(error_line(&e.to_string()));
                timings.total = started.elapsed();
                return self
                    .gpus
                    .iter()
                    .map(|_| Evaluation {
                        config: config.clone(),
                        grid: [0; 3],
                        block: [0; 3],
                        status: status.clone(),
                        timings,
                    })
                    .collect();
            }
        };
        let grid = prepared.spec.grid.map(u64::from);
        let block = prepared.spec.block.map(u64::from);
        let dims = LaunchDims {
            grid: Some(grid),
            block,
            dynamic_shared_bytes: u64::from(prepared.spec.dynamic_shared),
        };
        let statuses = self.statuses(prepared, &dims, &mut timings);
        timings.total = started.elapsed();
        statuses
            .into_iter()
            .map(|status| Evaluation {
                config: config.clone(),
                grid,
                block,
                status,
                timings,
            })
            .collect()
    }

    /// Per GPU: rejected on the launch shape, served from the result cache,
    /// or computed (one shared compile and emulation for all that need it).
    fn statuses(
        &self,
        prepared: Prepared,
        dims: &LaunchDims,
        timings: &mut Timings,
    ) -> Vec<Status> {
        let shape_only = tune::Resources {
            registers_per_thread: 0,
            static_shared_bytes: 0,
            dynamic_shared_bytes: dims.dynamic_shared_bytes,
        };
        let Some(grid) = dims.grid else {
            return self
                .gpus
                .iter()
                .map(|_| Status::Failed("no grid".to_string()))
                .collect();
        };
        let mut out: Vec<Option<Status>> = vec![None; self.gpus.len()];
        let mut pending: Vec<(usize, CacheKey)> = Vec::new();
        for (i, gpu) in self.gpus.iter().enumerate() {
            if let Err(r) = check_launch(gpu, dims, &shape_only) {
                out[i] = Some(Status::RejectedEarly {
                    kind: r.kind().to_string(),
                    reason: r.to_string(),
                });
                continue;
            }
            let key = CacheKey::new(
                &format!("{}\n{}", prepared.source, prepared.context),
                prepared.defines.clone(),
                grid,
                dims.block,
                &gpu_key(gpu),
                &self.models_key(),
            );
            match self.cache.map(|c| c.get::<Outcome>(&key)) {
                Some(Ok(Some(outcome))) => {
                    timings.result_cache_hits += 1;
                    out[i] = Some(Status::Done {
                        outcome,
                        cached: true,
                    });
                }
                Some(Err(e)) => out[i] = Some(Status::Failed(error_line(&e.to_string()))),
                _ => pending.push((i, key)),
            }
        }
        if !pending.is_empty() {
            let gpus: Vec<&Gpu> = pending
                .iter()
                .filter_map(|(i, _)| self.gpus.get(*i))
                .collect();
            match self.compute(prepared, dims, &gpus, timings) {
                Ok(outcomes) => {
                    for ((i, key), outcome) in pending.iter().zip(outcomes) {
                        let status = match self.cache.map(|c| c.put(key, &outcome)) {
                            Some(Err(e)) => Status::Failed(error_line(&e.to_string())),
                            _ => Status::Done {
                                outcome,
                                cached: false,
                            },
                        };
                        out[*i] = Some(status);
                    }
                }
                Err(e) => {
                    let reason = e.to_string();
                    for (i, _) in &pending {
                        out[*i] = Some(Status::Failed(reason.clone()));
                    }
                }
            }
        }
        out.into_iter()
            .map(|s| s.unwrap_or_else(|| Status::Failed("not evaluated".to_string())))
            .collect()
    }

    /// The PTX-level load of the configuration: experiments go through the
    /// PTX cache shared with `ptxperf validate`; specs through the pipeline.
    fn load(
        &self,
        prepared: Prepared,
        timings: &mut Timings,
    ) -> Result<pipeline::LoadedSpec, EvaluateError> {
        let Some(job) = prepared.nvrtc else {
            // A launch spec's CUDA source is compiled by the pipeline, not
            // through the PTX cache; it still counts as compiled.
            let compiles = prepared.spec.source_kind == emu::spec::SourceKind::Cuda;
            let loaded = pipeline::load_source_timed(
                prepared.spec,
                &prepared.source,
                &Default::default(),
                &mut timings.stages,
            )
            .map_err(EvaluateError::Load)?;
            if compiles {
                self.ptx_cache.count_compiled();
            }
            if loaded.origin == (pipeline::PtxOrigin::Compiled { cached: true }) {
                timings.ptx_cache_hits += 1;
            }
            return Ok(loaded);
        };
        let arch = prepared.spec.arch.clone().unwrap_or_default();
        // As `ptxperf validate` compiles it (`Engine::ptx`), so either
        // command's PTX serves the other.
        let ptx = self.ptx_cache.compile_configuration(
            &job.instantiated,
            &job.file,
            &arch,
            &job.include_dirs,
            timings,
        )?;
        let mut spec = prepared.spec;
        spec.source = std::path::Path::new(&job.file).with_extension("ptx");
        spec.source_kind = emu::spec::SourceKind::Ptx;
        pipeline::load_source_timed(spec, &ptx, &Default::default(), &mut timings.stages)
            .map_err(EvaluateError::Load)
    }

    /// Compile and emulate once; then per GPU registers, launchability,
    /// the cache model and every model.
    fn compute(
        &self,
        prepared: Prepared,
        dims: &LaunchDims,
        gpus: &[&Gpu],
        timings: &mut Timings,
    ) -> Result<Vec<Outcome>, EvaluateError> {
        let loaded = self.load(prepared, timings)?;
        let mut profiled: Option<pipeline::Profiled> = None;
        let mut outcomes = Vec::with_capacity(gpus.len());
        // ptxas once per architecture (several GPUs of a run often share
        // one): registers, shared memory, spills and code size, as
        // `validate` gives the timing model.
        let mut by_arch: Vec<(String, (ProfileResources, SpillInputs))> = Vec::new();
        for gpu in gpus {
            let arch = arch_for(gpu);
            let (resources, spills) = match by_arch.iter().find(|(a, _)| *a == arch) {
                Some((_, r)) => *r,
                None => {
                    let r = pipeline::resources_for_arch(&loaded, &arch, true, &mut timings.stages);
                    by_arch.push((arch, r));
                    r
                }
            };
            let resources = capped(resources, gpu);
            let register_source = match resources.registers_source {
                RegisterSource::Ptxas => "ptxas",
                _ => "estimate",
            }
            .to_string();
            let full = tune::Resources {
                registers_per_thread: resources.registers_per_thread,
                static_shared_bytes: resources.static_shared_per_block,
                dynamic_shared_bytes: dims.dynamic_shared_bytes,
            };
            let occupancy = match check_launch(gpu, dims, &full) {
                Ok(o) => o,
                Err(r) => {
                    outcomes.push(Outcome::Rejected {
                        kind: r.kind().to_string(),
                        reason: r.to_string(),
                        registers: resources.registers_per_thread,
                        register_source,
                    });
                    continue;
                }
            };
            let base = match &profiled {
                Some(p) => p,
                None => {
                    let opts = pipeline::Options {
                        sample_ctas: self.sample_ctas,
                        gpu: None,
                        ptxas: false,
                        // A sample keeps its neighbours' L2 reuse, so the
                        // ranking matches a full run's on stencils.
                        neighbour_warmup: true,
                        warmup_l2_bytes: gpus.iter().map(|g| g.caches.l2_bytes).max(),
                        ..pipeline::Options::default()
                    };
                    self.emulations.fetch_add(1, Ordering::Relaxed);
                    let p = pipeline::profile_timed(&loaded, &opts, &mut timings.stages)
                        .map_err(EvaluateError::Emulation)?;
                    profiled.insert(p)
                }
            };
            // The emulated profile does not depend on the GPU; the resources,
            // the cache model and the predictions do.
            let mut on_gpu = base.clone();
            on_gpu.profile.resources = resources;
            on_gpu.profile.analysis.spills = spills;
            timings
                .stages
                .time(Stage::CacheModel, || on_gpu.simulate_cache(gpu))
                .map_err(EvaluateError::CacheModel)?;
            let models = timings
                .stages
                .time(Stage::Models, || self.predict(&on_gpu.profile, gpu));
            outcomes.push(Outcome::Predicted {
                registers: resources.registers_per_thread,
                register_source,
                static_shared_bytes: resources.static_shared_per_block,
                occupancy: occupancy.occupancy,
                limiter: occupancy.limiter.to_string(),
                models,
                ctas_emulated: on_gpu.profile.workload.ctas_emulated_count(),
                sampling_error: on_gpu.profile.workload.sampling_error,
            });
        }
        Ok(outcomes)
    }

    /// One model at a time, so one model's refusal does not hide the others.
    fn predict(&self, profile: &profile::KernelProfile, gpu: &Gpu) -> Vec<ModelResult> {
        self.models
            .iter()
            .map(
                |name| match pipeline::predict_profile(profile, gpu, std::slice::from_ref(name)) {
                    Ok(p) => match p.predictions.first() {
                        Some(pr) if pr.seconds.is_finite() && pr.seconds > 0.0 => ModelResult {
                            model: name.clone(),
                            ms: Some(pr.seconds * 1e3),
                            bottleneck: Some(pr.bottleneck.clone()),
                            error: None,
                            interval_ms: interval_ms(pr),
                            blend: blend(pr),
                        },
                        _ => refused(name, "no finite prediction".to_string()),
                    },
                    Err(e) => refused(name, error_line(&e.to_string())),
                },
            )
            .collect()
    }
}

/// The sum of the configurations' breakdowns of a run that gave
/// `per_config` (one [`Evaluation`] per GPU each, all with the
/// configuration's breakdown: it is counted once).
pub fn total_timings(per_config: &[Vec<Evaluation>]) -> Timings {
    Timings::sum(
        per_config
            .iter()
            .filter_map(|per_gpu| per_gpu.first())
            .map(|e| &e.timings),
    )
}

/// An estimated register count capped at what `gpu` allows a thread, as a
/// real compile would spill; ptxas's count as it is.
fn capped(mut resources: ProfileResources, gpu: &Gpu) -> ProfileResources {
    if resources.registers_source == RegisterSource::Estimate {
        resources.registers_per_thread = resources
            .registers_per_thread
            .min(gpu.limits.max_registers_per_thread);
    }
    resources
}

fn refused(model: &str, error: String) -> ModelResult {
    ModelResult {
        model: model.to_string(),
        ms: None,
        bottleneck: None,
        error: Some(error),
        interval_ms: None,
        blend: None,
    }
}

/// A prediction at both ends of familiarity, from its breakdown's
/// `familiarity`, `near_seconds`, `near_low_seconds`, `near_high_seconds`
/// and the `far_` ones (the `learned` model's); `None` for a model without
/// them or with an end that is not a positive finite time.
pub fn blend(p: &models::Prediction) -> Option<validate::blend::Blend> {
    let get = |key: &str| p.breakdown.get(key).copied();
    let ends = |end: &str| -> Option<[f64; 3]> {
        Some([
            get(&format!("{end}_seconds"))? * 1e3,
            get(&format!("{end}_low_seconds"))? * 1e3,
            get(&format!("{end}_high_seconds"))? * 1e3,
        ])
    };
    let b = validate::blend::Blend {
        familiarity: get("familiarity")?,
        near_ms: ends("near")?,
        far_ms: ends("far")?,
    };
    b.is_valid().then_some(b)
}

/// Give the configurations of one run that each model predicted with a
/// blend that model's mean familiarity over them, per GPU (validate::blend
/// says why): times, intervals and the model's sentence follow. `per_config`
/// holds one [`Evaluation`] per GPU for each configuration.
pub fn share_familiarity(per_config: &mut [Vec<Evaluation>]) {
    let gpus = per_config.iter().map(Vec::len).max().unwrap_or(0);
    for g in 0..gpus {
        let mut results: Vec<&mut ModelResult> = per_config
            .iter_mut()
            .filter_map(|evs| evs.get_mut(g))
            .filter_map(|e| match &mut e.status {
                Status::Done {
                    outcome: Outcome::Predicted { models, .. },
                    ..
                } => Some(models),
                _ => None,
            })
            .flat_map(|models| models.iter_mut())
            .filter(|m| m.blend.is_some() && m.ms.is_some())
            .collect();
        let mut names: Vec<String> = results.iter().map(|m| m.model.clone()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let blends: Vec<validate::blend::Blend> = results
                .iter()
                .filter(|m| m.model == name)
                .filter_map(|m| m.blend)
                .collect();
            let Some(w) = validate::blend::shared_familiarity(&blends) else {
                continue;
            };
            let why = format!("the mean of the {} ranked", blends.len());
            for m in results.iter_mut().filter(|m| m.model == name) {
                let Some(b) = m.blend.filter(validate::blend::Blend::is_valid) else {
                    continue;
                };
                let [ms, low, high] = b.at(w);
                let far = b.far_ms[0];
                m.ms = Some(ms);
                m.interval_ms = m.interval_ms.map(|_| [low, high]);
                if let Some(text) = m.bottleneck.as_deref().and_then(|t| {
                    models::learned::restate(t, [ms / far, low / far, high / far], w, &why)
                }) {
                    m.bottleneck = Some(text);
                }
            }
        }
    }
}

/// A prediction's interval in milliseconds: its breakdown's `low_seconds`
/// and `high_seconds` (the `learned` model's: its ensemble's range widened
/// by the calibrated margin of its model file, around the predicted time); `None`
/// for a model without them, or with a bound that is not a positive
/// finite time.
pub fn interval_ms(p: &models::Prediction) -> Option<[f64; 2]> {
    let bound = |key: &str| {
        p.breakdown
            .get(key)
            .copied()
            .filter(|s| s.is_finite() && *s > 0.0)
    };
    let (low, high) = (bound("low_seconds")?, bound("high_seconds")?);
    Some([low * 1e3, high * 1e3])
}

#[cfg(test)]
mod tests {
    use super::{
        Evaluation, ModelResult, Outcome, Status, Timings, build_id, gpu_key, share_familiarity,
    };
    use validate::blend::Blend;

    /// A configuration on two GPUs, the learned model at `familiarity` on
    /// both with its far end at `far` ms and its near end 4x that.
    fn evaluated(index: u64, familiarity: f64, far: f64) -> Vec<Evaluation> {
        let near = 4.0 * far;
        let ms = far * 4f64.powf(familiarity);
        let sentence = models::learned::sentence(
            [ms / far, ms / far / 2.0, ms / far * 2.0],
            true,
            &["x (+1.39)".to_string()],
            familiarity,
            "nearest trained kernel k",
        );
        let learned = ModelResult {
            model: "learned".to_string(),
            ms: Some(ms),
            bottleneck: Some(sentence),
            error: None,
            interval_ms: Some([ms / 2.0, ms * 2.0]),
            blend: Some(Blend {
                familiarity,
                near_ms: [near, near / 2.0, near * 2.0],
                far_ms: [far, far / 2.0, far * 2.0],
            }),
        };
        let timing = ModelResult {
            model: "timing".to_string(),
            ms: Some(far),
            bottleneck: Some("DRAM bandwidth".to_string()),
            error: None,
            interval_ms: None,
            blend: None,
        };
        (0..2)
            .map(|_| Evaluation {
                config: tune::Config {
                    index,
                    values: Vec::new(),
                },
                grid: [1; 3],
                block: [32, 1, 1],
                status: Status::Done {
                    outcome: Outcome::Predicted {
                        registers: 32,
                        register_source: "ptxas".to_string(),
                        static_shared_bytes: 0,
                        occupancy: 1.0,
                        limiter: "warps".to_string(),
                        models: vec![timing.clone(), learned.clone()],
                        ctas_emulated: Some(1),
                        sampling_error: Some(0.0),
                    },
                    cached: false,
                },
                timings: Timings::one(),
            })
            .collect()
    }

    fn models(e: &Evaluation) -> &[ModelResult] {
        match &e.status {
            Status::Done {
                outcome: Outcome::Predicted { models, .. },
                ..
            } => models,
            _ => &[],
        }
    }

    #[test]
    fn configurations_ranked_together_share_the_mean_familiarity() {
        // Familiarity 0 and 1: both ranked at 0.5, on each GPU; a failed
        // configuration and the timing model are left as they were.
        let mut per_config = vec![evaluated(0, 0.0, 1.0), evaluated(1, 1.0, 3.0)];
        let mut failed = evaluated(2, 1.0, 5.0);
        for e in &mut failed {
            e.status = Status::Failed("nvrtc".to_string());
        }
        per_config.push(failed.clone());
        share_familiarity(&mut per_config);
        for (evs, far) in per_config.iter().zip([1.0, 3.0]) {
            for e in evs {
                let [timing, learned] = models(e) else {
                    panic!("{e:?}")
                };
                assert_eq!((timing.ms, timing.blend), (Some(far), None));
                let ms = learned.ms.expect("time");
                assert!((ms - 2.0 * far).abs() < 1e-12, "{learned:?}");
                let [low, high] = learned.interval_ms.expect("interval");
                assert!((low - far).abs() < 1e-12 && (high - 4.0 * far).abs() < 1e-12);
                assert_eq!(
                    learned.bottleneck.as_deref(),
                    Some(
                        "timing x 2.00 (interval 1.00 to 4.00); the trees moved it most by \
                         x (+1.39); 50 % of the correction kept (the mean of the 2 ranked)"
                    )
                );
            }
        }
        assert_eq!(per_config[2], failed);
    }

    #[test]
    fn cached_results_are_keyed_by_the_clock_and_the_figures_of_a_gpu() {
        let catalog = arch::Catalog::bundled().unwrap_or_else(|e| panic!("{e}"));
        let a100 = catalog
            .get("a100-pcie-40gb")
            .unwrap_or_else(|e| panic!("{e}"));
        let key = gpu_key(a100);
        assert!(key.starts_with("a100-pcie-40gb#"), "{key}");
        assert_eq!(gpu_key(a100), key, "the same GPU, the same key");
        let held = a100
            .with_sustained_clock(1200.0)
            .unwrap_or_else(|e| panic!("{e}"));
        let held_key = gpu_key(&held);
        assert!(
            held_key.starts_with("a100-pcie-40gb@1200MHz#"),
            "{held_key}"
        );
        // One number changed under the same id: another key.
        let mut edited = a100.clone();
        edited.memory.bandwidth_gbs += 1.0;
        assert_ne!(gpu_key(&edited), key);
    }

    #[test]
    fn cached_results_are_keyed_by_the_build() {
        // The version, then a hash of this executable: a rebuilt binary
        // (another model) gets other keys, the same binary the same key.
        let id = build_id();
        let Some((version, hash)) = id.split_once('+') else {
            panic!("no executable hash in {id:?}")
        };
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        assert_eq!(hash.len(), 16, "{id}");
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        assert_eq!(build_id(), id);
    }
}
