//! [`predict`]: occupancy, every requested model, and how far they agree.

use arch::{Gpu, Occupancy, OccupancyInput};
use models::{Agreement, Prediction};
use profile::{KernelProfile, RegisterSource};

use crate::error::PipelineError;
use crate::run::Profiled;

/// Every model's prediction for one kernel on one GPU.
#[derive(Debug, Clone)]
pub struct Predictions {
    /// The GPU id.
    pub gpu: String,
    /// The profile the models saw (cache figures for this GPU when simulated;
    /// an estimated register count capped at this GPU's maximum).
    pub profile: KernelProfile,
    pub occupancy: Occupancy,
    /// In the order the names were given.
    pub predictions: Vec<Prediction>,
    /// None when there are no predictions.
    pub agreement: Option<Agreement>,
}

/// The models [`predict`] runs when given no names: all but the MWP-CWP rounding variants.
pub fn default_models() -> Vec<String> {
    models::registry::default_names()
}

/// Predict `profiled` on `gpu` with the models named in `models` (empty: the
/// defaults). The cache model is rerun for `gpu` from the recorded trace when
/// the profile's cache figures are for another GPU.
pub fn predict(
    profiled: &Profiled,
    gpu: &Gpu,
    models: &[String],
) -> Result<Predictions, PipelineError> {
    if profiled.profile.cache.gpu == gpu.id || profiled.trace.is_none() {
        return predict_profile(&profiled.profile, gpu, models);
    }
    let mut local = profiled.clone();
    local.simulate_cache(gpu)?;
    predict_profile(&local.profile, gpu, models)
}

/// Predict a ready profile (hand-written or emulated) on `gpu`.
pub fn predict_profile(
    profile: &KernelProfile,
    gpu: &Gpu,
    models: &[String],
) -> Result<Predictions, PipelineError> {
    let names = if models.is_empty() {
        default_models()
    } else {
        models.to_vec()
    };
    models::registry::check_names(&names).map_err(|e| PipelineError::Model(e.to_string()))?;
    let mut profile = profile.clone();
    cap_estimated_registers(&mut profile, gpu);
    let occupancy = occupancy_for(&profile, gpu)?;
    let mut predictions = Vec::with_capacity(names.len());
    for name in &names {
        let p = models::predict(name, &profile, gpu, &occupancy)
            .map_err(|e| PipelineError::Model(e.to_string()))?;
        predictions.push(p);
    }
    let agreement = models::agreement(&predictions);
    Ok(Predictions {
        gpu: gpu.id.clone(),
        profile,
        occupancy,
        predictions,
        agreement,
    })
}

/// An estimated register count is an upper bound from virtual registers: cap
/// it at what the GPU allows a thread (a real compile would spill instead).
fn cap_estimated_registers(profile: &mut KernelProfile, gpu: &Gpu) {
    let r = &mut profile.resources;
    if r.registers_source == RegisterSource::Estimate {
        r.registers_per_thread = r
            .registers_per_thread
            .min(gpu.limits.max_registers_per_thread);
    }
}

/// Occupancy of the profile's launch on `gpu` (registers and static plus dynamic shared memory).
pub fn occupancy_for(profile: &KernelProfile, gpu: &Gpu) -> Result<Occupancy, PipelineError> {
    let threads = profile.launch.threads_per_block();
    let mut registers = profile.resources.registers_per_thread;
    if profile.resources.registers_source == RegisterSource::Estimate {
        registers = registers.min(gpu.limits.max_registers_per_thread);
    }
    let input = OccupancyInput {
        threads_per_block: u32::try_from(threads)
            .map_err(|_| PipelineError::Arch(format!("{threads} threads per block is too many")))?,
        registers_per_thread: registers,
        shared_per_block_bytes: profile
            .resources
            .static_shared_per_block
            .saturating_add(profile.launch.dynamic_shared),
    };
    arch::occupancy(gpu, &input).map_err(|e| PipelineError::Arch(e.to_string()))
}
