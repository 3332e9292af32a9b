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
use profile::{RegisterSource, Resources as ProfileResources};
use serde::{Deserialize, Serialize};
use tune::{CacheKey, Config, LaunchDims, ResultCache, TuneError, check_launch};

use super::target::{Prepared, Target};

/// One model's answer for one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelResult {
    pub model: String,
    /// Predicted time, milliseconds; None when the model refused.
    pub ms: Option<f64>,
    pub bottleneck: Option<String>,
    pub error: Option<String>,
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
}

pub struct Evaluator<'a> {
    pub target: &'a Target,
    pub gpu: &'a Gpu,
    pub models: &'a [String],
    pub sample_ctas: Option<u64>,
    pub cache: Option<&'a ResultCache>,
}

/// Bumped whenever what is cached, or how it is computed, changes.
const RESULT_VERSION: &str = "tune-result-1";

struct EvalError(String);

impl From<TuneError> for EvalError {
    fn from(e: TuneError) -> Self {
        EvalError(e.to_string())
    }
}

impl Evaluator<'_> {
    /// The model-set part of the cache key: the models, the sampling and the result version.
    fn models_key(&self) -> String {
        let sample = self
            .sample_ctas
            .map_or_else(|| "all".to_string(), |k| k.to_string());
        format!(
            "{RESULT_VERSION};models={};sample_ctas={sample}",
            self.models.join(",")
        )
    }

    pub fn evaluate(&self, config: &Config) -> Evaluation {
        let prepared = match self.target.prepare(config) {
            Ok(p) => p,
            Err(e) => {
                return Evaluation {
                    config: config.clone(),
                    grid: [0; 3],
                    block: [0; 3],
                    status: Status::Failed(first_line(&e)),
                };
            }
        };
        let grid = prepared.spec.grid.map(u64::from);
        let block = prepared.spec.block.map(u64::from);
        let dims = LaunchDims {
            grid: Some(grid),
            block,
            dynamic_shared_bytes: u64::from(prepared.spec.dynamic_shared),
        };
        let status = self.status(prepared, &dims);
        Evaluation {
            config: config.clone(),
            grid,
            block,
            status,
        }
    }

    fn status(&self, prepared: Prepared, dims: &LaunchDims) -> Status {
        let shape_only = tune::Resources {
            registers_per_thread: 0,
            static_shared_bytes: 0,
            dynamic_shared_bytes: dims.dynamic_shared_bytes,
        };
        if let Err(r) = check_launch(self.gpu, dims, &shape_only) {
            return Status::RejectedEarly {
                kind: r.kind().to_string(),
                reason: r.to_string(),
            };
        }
        let Some(grid) = dims.grid else {
            return Status::Failed("no grid".to_string());
        };
        let key = CacheKey::new(
            &format!("{}\n{}", prepared.source, prepared.context),
            prepared.defines.clone(),
            grid,
            dims.block,
            &self.gpu.id,
            &self.models_key(),
        );
        let computed = match self.cache {
            Some(cache) => cache.get_or_compute(&key, || self.compute(prepared, dims)),
            None => self.compute(prepared, dims).map(|o| (o, false)),
        };
        match computed {
            Ok((outcome, cached)) => Status::Done { outcome, cached },
            Err(EvalError(e)) => Status::Failed(e),
        }
    }

    fn compute(&self, prepared: Prepared, dims: &LaunchDims) -> Result<Outcome, EvalError> {
        let fail = |what: &str, e: String| EvalError(format!("{what}: {}", first_line(&e)));
        let loaded = pipeline::load_source(prepared.spec, &prepared.source, &Default::default())
            .map_err(|e| fail("load", e.to_string()))?;
        let resources = match pipeline::registers::ptxas_registers(
            &loaded.ptx,
            &loaded.arch,
            &loaded.spec.kernel,
        ) {
            Some((registers, shared)) => ProfileResources {
                registers_per_thread: registers,
                registers_source: RegisterSource::Ptxas,
                static_shared_per_block: shared.max(loaded.static_shared_bytes),
            },
            None => ProfileResources {
                // An upper bound: capped at what the GPU allows, as a real compile would spill.
                registers_per_thread: loaded
                    .entry()
                    .map_or(0, pipeline::registers::estimate_registers)
                    .min(self.gpu.limits.max_registers_per_thread),
                registers_source: RegisterSource::Estimate,
                static_shared_per_block: loaded.static_shared_bytes,
            },
        };
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
        let occupancy = match check_launch(self.gpu, dims, &full) {
            Ok(o) => o,
            Err(r) => {
                return Ok(Outcome::Rejected {
                    kind: r.kind().to_string(),
                    reason: r.to_string(),
                    registers: resources.registers_per_thread,
                    register_source,
                });
            }
        };
        let opts = pipeline::Options {
            sample_ctas: self.sample_ctas,
            gpu: None,
            ptxas: false,
            ..pipeline::Options::default()
        };
        let mut profiled =
            pipeline::profile(&loaded, &opts).map_err(|e| fail("emulation", e.to_string()))?;
        profiled.profile.resources = resources;
        profiled
            .simulate_cache(self.gpu)
            .map_err(|e| fail("cache model", e.to_string()))?;
        // One model at a time, so one model's refusal does not hide the others.
        let models = self
            .models
            .iter()
            .map(|name| {
                match pipeline::predict_profile(
                    &profiled.profile,
                    self.gpu,
                    std::slice::from_ref(name),
                ) {
                    Ok(p) => match p.predictions.first() {
                        Some(pr) if pr.seconds.is_finite() && pr.seconds > 0.0 => ModelResult {
                            model: name.clone(),
                            ms: Some(pr.seconds * 1e3),
                            bottleneck: Some(pr.bottleneck.clone()),
                            error: None,
                        },
                        _ => refused(name, "no finite prediction".to_string()),
                    },
                    Err(e) => refused(name, first_line(&e.to_string())),
                }
            })
            .collect();
        Ok(Outcome::Predicted {
            registers: resources.registers_per_thread,
            register_source,
            static_shared_bytes: resources.static_shared_per_block,
            occupancy: occupancy.occupancy,
            limiter: occupancy.limiter.to_string(),
            models,
        })
    }
}

fn refused(model: &str, error: String) -> ModelResult {
    ModelResult {
        model: model.to_string(),
        ms: None,
        bottleneck: None,
        error: Some(error),
    }
}

/// The line that says what went wrong: the first naming an error, else the first.
pub fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| l.contains("error"))
        .or_else(|| s.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string()
}
