//! One kernel on several GPUs: the emulation runs once ([`crate::profile`]),
//! then only what depends on the GPU repeats per GPU (the cache model on
//! the recorded trace, occupancy, every model: [`crate::predict()`]), and
//! [`compare`] lines the GPUs up by the recommended model's time.

use arch::Gpu;
use profile::{KernelProfile, RegisterSource, SmArch};

use crate::error::PipelineError;
use crate::load::LoadedSpec;
use crate::predict::{Predictions, predict, predict_profile};
use crate::run::Profiled;
use crate::timings::StageTimes;

/// The model a comparison ranks GPUs by: the one validated against
/// measured times (docs/models.md). Where it did not run (`--model`
/// named others), a comparison row uses the first model that predicted.
pub const RECOMMENDED_MODEL: &str = "timing";

/// One GPU's outcome of [`predict_on_gpus`].
#[derive(Debug)]
pub struct GpuPredictions {
    /// The catalog id.
    pub gpu: String,
    /// The predictions, or why this GPU could not be predicted (the launch
    /// does not fit it, say); the other GPUs are predicted anyway.
    pub result: Result<Predictions, PipelineError>,
}

/// Predict one emulated kernel on every GPU of `gpus`, in that order: the
/// cache model is rerun per GPU from the recorded trace, the emulation is
/// not repeated.
pub fn predict_on_gpus(
    profiled: &Profiled,
    gpus: &[Gpu],
    models: &[String],
) -> Vec<GpuPredictions> {
    on_gpus(gpus, |gpu| predict(profiled, gpu, models))
}

/// [`predict_on_gpus`] for an emulated launch spec, with ptxas's figures
/// (registers, static shared memory, spills, code size) for each GPU's own
/// architecture where it can run the PTX ([`own_arch`]): the build the
/// driver would make of PTX for an older target. Where the GPU is older
/// than the PTX's target, or ptxas cannot build for it, the profile keeps
/// the figures for the PTX's target (the report says so). ptxas runs once
/// per architecture among the GPUs.
pub fn predict_spec_on_gpus(
    loaded: &LoadedSpec,
    profiled: &Profiled,
    gpus: &[Gpu],
    models: &[String],
) -> Vec<GpuPredictions> {
    let from_ptxas = profiled.profile.resources.registers_source == RegisterSource::Ptxas;
    let mut retargeted: Vec<(String, Option<Profiled>)> = Vec::new();
    for gpu in gpus {
        let Some(arch) = own_arch(gpu, &loaded.arch) else {
            continue;
        };
        if !from_ptxas || arch == loaded.arch || retargeted.iter().any(|(a, _)| *a == arch) {
            continue;
        }
        let mut local = profiled.clone();
        let built = local.retarget_arch(loaded, &arch, &mut StageTimes::default());
        retargeted.push((arch, built.then_some(local)));
    }
    on_gpus(gpus, |gpu| {
        let own = own_arch(gpu, &loaded.arch);
        let local = retargeted
            .iter()
            .find(|(a, _)| Some(a) == own.as_ref())
            .and_then(|(_, p)| p.as_ref());
        predict(local.unwrap_or(profiled), gpu, models)
    })
}

/// The architecture code is built for on `gpu`: its compute capability, or
/// [`OLDEST_ARCH`] where that is older (the K20m's sm_35 gets sm_50).
pub fn gpu_arch(gpu: &Gpu) -> SmArch {
    let cc = gpu.compute_capability;
    SmArch::new(cc.major, cc.minor).max(OLDEST_ARCH)
}

/// The architecture ptxas builds `ptx_arch`'s PTX for on `gpu`
/// ([`gpu_arch`]), or None where the GPU is older than the PTX's target
/// and cannot run it.
pub fn own_arch(gpu: &Gpu, ptx_arch: &str) -> Option<String> {
    let own = gpu_arch(gpu);
    match SmArch::parse(ptx_arch) {
        Some(target) if target > own => None,
        _ => Some(own.to_string()),
    }
}

/// NVRTC 12 and ptxas 12 build for sm_50 and newer only.
pub const OLDEST_ARCH: SmArch = SmArch::new(5, 0);

/// [`predict_on_gpus`] for a ready (hand-written) profile.
pub fn predict_profile_on_gpus(
    profile: &KernelProfile,
    gpus: &[Gpu],
    models: &[String],
) -> Vec<GpuPredictions> {
    on_gpus(gpus, |gpu| predict_profile(profile, gpu, models))
}

fn on_gpus(
    gpus: &[Gpu],
    one: impl Fn(&Gpu) -> Result<Predictions, PipelineError>,
) -> Vec<GpuPredictions> {
    gpus.iter()
        .map(|gpu| GpuPredictions {
            gpu: gpu.id.clone(),
            result: one(gpu),
        })
        .collect()
}

/// One GPU's line of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonRow {
    pub gpu: String,
    /// The model whose time this is: [`RECOMMENDED_MODEL`] when it ran.
    pub model: String,
    pub seconds: f64,
    pub bottleneck: String,
    /// This GPU's time over the fastest GPU's (1 for the fastest).
    pub relative: f64,
}

/// The GPUs that were predicted, fastest first by the recommended model
/// (equal times keep the order given); GPUs that failed are left out.
pub fn compare(per_gpu: &[GpuPredictions]) -> Vec<ComparisonRow> {
    let mut rows: Vec<ComparisonRow> = per_gpu
        .iter()
        .filter_map(|g| {
            let p = g.result.as_ref().ok()?;
            let pick = p
                .predictions
                .iter()
                .find(|x| x.model == RECOMMENDED_MODEL)
                .or_else(|| p.predictions.first())?;
            Some(ComparisonRow {
                gpu: g.gpu.clone(),
                model: pick.model.clone(),
                seconds: pick.seconds,
                bottleneck: pick.bottleneck.clone(),
                relative: 1.0,
            })
        })
        .collect();
    rows.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let fastest = rows
        .first()
        .map(|r| r.seconds)
        .filter(|s| s.is_finite() && *s > 0.0);
    if let Some(fastest) = fastest {
        for r in &mut rows {
            r.relative = r.seconds / fastest;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use arch::Catalog;
    use models::Prediction;

    use super::{GpuPredictions, compare, predict_profile_on_gpus};
    use crate::error::PipelineError;
    use crate::predict::Predictions;

    fn prediction(model: &str, seconds: f64) -> Prediction {
        Prediction {
            model: model.to_string(),
            seconds,
            cycles: seconds * 1e9,
            bottleneck: format!("{model} bound"),
            breakdown: BTreeMap::new(),
        }
    }

    /// A GPU whose models predicted `(model, seconds)`, or that failed.
    fn gpu(id: &str, times: Option<&[(&str, f64)]>) -> GpuPredictions {
        let profile = profile::KernelProfile::default();
        let result = match times {
            None => Err(PipelineError::Arch("does not fit".to_string())),
            Some(t) => {
                let catalog = Catalog::bundled().unwrap_or_else(|e| panic!("{e}"));
                let g = catalog.get("rtx-a4000").unwrap_or_else(|e| panic!("{e}"));
                let occupancy = arch::occupancy(
                    g,
                    &arch::OccupancyInput {
                        threads_per_block: 128,
                        registers_per_thread: 32,
                        shared_per_block_bytes: 0,
                    },
                )
                .unwrap_or_else(|e| panic!("{e}"));
                Ok(Predictions {
                    gpu: id.to_string(),
                    profile,
                    occupancy,
                    predictions: t.iter().map(|(m, s)| prediction(m, *s)).collect(),
                    failed: Vec::new(),
                    agreement: None,
                    hot_lines: Vec::new(),
                    explanation: None,
                })
            }
        };
        GpuPredictions {
            gpu: id.to_string(),
            result,
        }
    }

    /// `(gpu, model, relative)` rows, fastest first.
    fn check(per_gpu: &[GpuPredictions], expect: &[(&str, &str, f64)]) {
        let rows = compare(per_gpu);
        let got: Vec<(&str, &str, f64)> = rows
            .iter()
            .map(|r| (r.gpu.as_str(), r.model.as_str(), r.relative))
            .collect();
        assert_eq!(got.len(), expect.len(), "{got:?}");
        for (g, e) in got.iter().zip(expect) {
            assert_eq!((g.0, g.1), (e.0, e.1), "{got:?}");
            assert!((g.2 - e.2).abs() < 1e-12, "{got:?} against {expect:?}");
        }
    }

    #[test]
    fn gpus_are_compared_by_the_timing_model_fastest_first() {
        // The timing model decides, whatever another model says.
        check(
            &[
                gpu("a", Some(&[("roofline", 1.0), ("timing", 4.0)])),
                gpu("b", Some(&[("roofline", 9.0), ("timing", 2.0)])),
            ],
            &[("b", "timing", 1.0), ("a", "timing", 2.0)],
        );
        // Without the timing model: the first model that predicted.
        check(
            &[
                gpu("a", Some(&[("mwp-cwp", 3.0)])),
                gpu("b", Some(&[("mwp-cwp", 6.0)])),
            ],
            &[("a", "mwp-cwp", 1.0), ("b", "mwp-cwp", 2.0)],
        );
        // Equal times keep the order given; a failed GPU is left out.
        check(
            &[
                gpu("a", Some(&[("timing", 5.0)])),
                gpu("x", None),
                gpu("b", Some(&[("timing", 5.0)])),
            ],
            &[("a", "timing", 1.0), ("b", "timing", 1.0)],
        );
        check(&[gpu("x", None)], &[]);
    }

    #[test]
    fn a_profile_is_predicted_on_each_gpu_in_turn() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/profiles/kothapalli-list-ranking.toml"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let profile = profile::KernelProfile::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        let catalog = arch::Catalog::bundled().unwrap_or_else(|e| panic!("{e}"));
        let gpus: Vec<arch::Gpu> = ["rtx-a4000", "h100-sxm5-80gb"]
            .iter()
            .map(|id| catalog.get(id).cloned().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let per_gpu = predict_profile_on_gpus(&profile, &gpus, &[]);
        let ids: Vec<&str> = per_gpu.iter().map(|g| g.gpu.as_str()).collect();
        assert_eq!(ids, ["rtx-a4000", "h100-sxm5-80gb"]);
        for g in &per_gpu {
            let p = g
                .result
                .as_ref()
                .unwrap_or_else(|e| panic!("{}: {e}", g.gpu));
            assert_eq!(p.gpu, g.gpu);
        }
        let rows = compare(&per_gpu);
        assert_eq!(rows.len(), 2);
        assert!((rows[0].relative - 1.0).abs() < 1e-12);
        assert!(rows[1].relative >= 1.0, "{rows:?}");
    }
}
