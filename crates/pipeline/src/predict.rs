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
    /// Default models that could not handle this profile, with the reason,
    /// in display order. Always empty when models were named: a model the
    /// user asked for that fails is an error.
    pub failed: Vec<ModelFailure>,
    /// None when there are no predictions.
    pub agreement: Option<Agreement>,
    /// The CUDA lines priced on this GPU (with its cache hit rates), most
    /// costly first; empty for a profile without an emulation or line info.
    pub hot_lines: Vec<characterize::CudaLine>,
    /// What bounds the timing model's prediction and the lines that cause
    /// it (None without the timing model or line info).
    pub explanation: Option<crate::lines::Explanation>,
}

/// How many priced CUDA lines [`predict`] keeps.
pub const HOT_LINES: usize = 10;

/// A model of the default set that could not predict this profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFailure {
    pub model: String,
    /// The model's error, without the model's name.
    pub reason: String,
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
    let mut p = if profiled.profile.cache.gpu == gpu.id || profiled.trace.is_none() {
        predict_profile(&profiled.profile, gpu, models)?
    } else {
        let mut local = profiled.clone();
        local.simulate_cache(gpu)?;
        predict_profile(&local.profile, gpu, models)?
    };
    let mut ch = profiled.characterization.clone();
    let cache = &p.profile.cache;
    crate::lines::attach_costs(&mut ch, gpu, cache.l1_hit_rate, cache.l2_hit_rate);
    p.explanation = p
        .predictions
        .iter()
        .find(|x| x.model == models::timing::NAME)
        .and_then(|t| crate::lines::explain(&ch, t))
        .filter(|_| !ch.cuda_lines.is_empty());
    p.hot_lines = ch.hot_cuda_lines(HOT_LINES).into_iter().cloned().collect();
    Ok(p)
}

/// Predict a ready profile (hand-written or emulated) on `gpu`.
///
/// With no names, every default model runs and one that cannot handle the
/// profile (a seed model's formula that needs work it does not have, say)
/// is listed in [`Predictions::failed`] while the others are kept; only if
/// none succeeds is it an error. A named model that fails is an error.
pub fn predict_profile(
    profile: &KernelProfile,
    gpu: &Gpu,
    models: &[String],
) -> Result<Predictions, PipelineError> {
    let defaults = models.is_empty();
    let names = if defaults {
        default_models()
    } else {
        models.to_vec()
    };
    models::registry::check_names(&names).map_err(|e| PipelineError::Model(e.to_string()))?;
    emu::progress::stage(&format!("models ({})", gpu.id));
    let mut profile = profile.clone();
    cap_estimated_registers(&mut profile, gpu);
    let occupancy = occupancy_for(&profile, gpu)?;
    let mut predictions = Vec::with_capacity(names.len());
    let mut failed = Vec::new();
    let mut first_error = None;
    for name in &names {
        match models::predict(name, &profile, gpu, &occupancy) {
            Ok(p) => predictions.push(p),
            Err(e) if defaults => {
                let reason = match &e {
                    models::ModelError::InvalidInput { message, .. } => message.clone(),
                    other => other.to_string(),
                };
                first_error.get_or_insert_with(|| e.to_string());
                failed.push(ModelFailure {
                    model: name.clone(),
                    reason,
                });
            }
            Err(e) => return Err(PipelineError::Model(e.to_string())),
        }
    }
    if predictions.is_empty() {
        let why = first_error.unwrap_or_else(|| "no model to run".to_string());
        return Err(PipelineError::Model(format!(
            "no model could predict this profile; {why}"
        )));
    }
    let agreement = models::agreement(&predictions);
    Ok(Predictions {
        gpu: gpu.id.clone(),
        profile,
        occupancy,
        predictions,
        failed,
        agreement,
        hot_lines: Vec::new(),
        explanation: None,
    })
}

/// An estimated register count may exceed what the GPU allows a thread: cap
/// it there (a real compile would spill instead).
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

/// Why a register count estimated from the PTX cannot be trusted on `gpu`:
/// the occupancy it gives is not the one at both ends of the estimate's
/// error band (`estimate` x (1 -/+ [`ERROR_BAND_PERCENT`] %)), so the
/// blocks per SM, and every model's time with them, hang on the error.
/// `None` when the count came from ptxas or was given, or when the band
/// leaves the occupancy as it is (the registers do not limit it).
///
/// [`ERROR_BAND_PERCENT`]: ptx::analysis::registers::ERROR_BAND_PERCENT
pub fn register_estimate_doubt(
    profile: &KernelProfile,
    gpu: &Gpu,
) -> Result<Option<String>, PipelineError> {
    let r = &profile.resources;
    if r.registers_source != RegisterSource::Estimate || r.registers_per_thread == 0 {
        return Ok(None);
    }
    let band = f64::from(ptx::analysis::registers::ERROR_BAND_PERCENT) / 100.0;
    let estimate = r
        .registers_per_thread
        .min(gpu.limits.max_registers_per_thread);
    let at = |registers: f64| -> Result<u32, PipelineError> {
        let mut p = profile.clone();
        p.resources.registers_per_thread =
            (registers.round() as u32).clamp(1, gpu.limits.max_registers_per_thread);
        Ok(occupancy_for(&p, gpu)?.active_blocks_per_sm)
    };
    let low = at(f64::from(estimate) * (1.0 - band))?;
    let mid = at(f64::from(estimate))?;
    let high = at(f64::from(estimate) * (1.0 + band))?;
    if low == mid && mid == high {
        return Ok(None);
    }
    Ok(Some(format!(
        "the occupancy on {} depends on registers per thread that ptxas did not count: \
         the estimate from the PTX is {estimate} (±{} %), which gives {high} to {low} blocks per SM \
         ({mid} at the estimate)",
        gpu.id,
        ptx::analysis::registers::ERROR_BAND_PERCENT
    )))
}
