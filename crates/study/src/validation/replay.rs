//! Rescoring saved profiles (`--profiles DIR`): the predictor reads the
//! profile `PTXPERF_VALIDATE_DUMP=DIR` saved for each configuration
//! (`DIR/<gpu>/<defines>.toml`) and runs the models on it, with no NVRTC and
//! no emulation. A model change can so be scored on the same profiles in
//! seconds; the profiles must have been saved for the same GPU (the cache
//! model's figures and the ptxas registers are the GPU's).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use arch::Gpu;
use pipeline::Stage;
use profile::KernelProfile;
use validate::Launch;

use super::engine::{FAILED_EXTENSION, model_times, profile_file_stem};
use super::runner::{ModelTimes, Predictor};
use crate::error::PredictError;
use crate::timings::Timings;

pub struct Replay {
    dir: PathBuf,
    gpu: Gpu,
    models: Vec<String>,
    /// As [`super::engine::Engine::with_terms`].
    terms: Vec<String>,
    /// As [`super::engine::Engine::with_measured_compiler`].
    measured_compiler: Option<profile::CompilerVersion>,
    /// How many profiles were read under each profile rules (`None`:
    /// saved before profiles named theirs): [`Replay::rules_read`].
    rules_read: Mutex<BTreeMap<Option<String>, usize>>,
}

impl Replay {
    /// Profiles of `gpu` under `dir/<gpu id>/`.
    pub fn new(dir: PathBuf, gpu: &Gpu, models: Vec<String>) -> Replay {
        Replay {
            dir: dir.join(&gpu.id),
            gpu: gpu.clone(),
            models,
            terms: Vec::new(),
            measured_compiler: None,
            rules_read: Mutex::new(BTreeMap::new()),
        }
    }

    /// As [`super::engine::Engine::with_terms`].
    pub fn with_terms(mut self, terms: Vec<String>) -> Replay {
        self.terms = terms;
        self
    }

    /// As [`super::engine::Engine::with_measured_compiler`].
    pub fn with_measured_compiler(mut self, compiler: Option<profile::CompilerVersion>) -> Replay {
        self.measured_compiler = compiler;
        self
    }

    /// The saved profile of `launch` on this GPU; a configuration the saving
    /// run failed on is [`PredictError::FailedWhenSaved`].
    pub(super) fn profile(&self, launch: &Launch) -> Result<KernelProfile, PredictError> {
        let (path, text) = self.saved_text(launch)?;
        let rules = super::saved::rules_of(&text).map(str::to_string);
        // A poisoned lock still holds the counts.
        *self
            .rules_read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(rules)
            .or_default() += 1;
        KernelProfile::from_toml(&text).map_err(|source| PredictError::BadProfile { path, source })
    }

    /// [`Replay::profile`] for `--resume`: only a profile saved whole under
    /// this build's profile rules ([`super::saved::resumable`]); any other
    /// is [`PredictError::NotResumable`].
    pub(super) fn resumable_profile(&self, launch: &Launch) -> Result<KernelProfile, PredictError> {
        let (path, text) = self.saved_text(launch)?;
        if let Err(why) = super::saved::resumable(&text) {
            return Err(PredictError::NotResumable { path, why });
        }
        KernelProfile::from_toml(&text).map_err(|source| PredictError::BadProfile { path, source })
    }

    /// The profile rules of the profiles read so far ([`Replay::profile`]),
    /// each with how many were read (`None`: saved before profiles named
    /// their rules), in the order of the rules' names.
    pub fn rules_read(&self) -> Vec<(Option<String>, usize)> {
        self.rules_read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(r, n)| (r.clone(), *n))
            .collect()
    }

    /// The path and text of the saved profile of `launch`.
    fn saved_text(&self, launch: &Launch) -> Result<(PathBuf, String), PredictError> {
        let stem = profile_file_stem(launch);
        let path = self.dir.join(format!("{stem}.toml"));
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok((path, text)),
            Err(source) => {
                // The saving run failed on this configuration: say why.
                let failed = self.dir.join(format!("{stem}.{FAILED_EXTENSION}"));
                if let Ok(reason) = std::fs::read_to_string(&failed) {
                    return Err(PredictError::FailedWhenSaved {
                        path: failed,
                        reason: reason.trim().to_string(),
                    });
                }
                Err(PredictError::NoProfile { path, source })
            }
        }
    }

    /// Every model's time on `profile` (one [`Replay::profile`] read).
    pub(super) fn predict_profile(
        &self,
        mut profile: KernelProfile,
        timings: &mut Timings,
    ) -> ModelTimes {
        if let Some(c) = self.measured_compiler {
            profile.resources.compiler = Some(c);
        }
        timings.stages.time(Stage::Models, || {
            model_times(&self.models, &self.terms, |one| {
                pipeline::predict_profile(&profile, &self.gpu, one)
            })
        })
    }
}

impl Predictor for Replay {
    /// As [`super::engine::Engine`] predicts once it has the profile.
    /// Only the models are timed (the rest, reading the profile, is `other`).
    fn predict(&self, launch: &Launch, timings: &mut Timings) -> Result<ModelTimes, PredictError> {
        let profile = self.profile(launch)?;
        Ok(self.predict_profile(profile, timings))
    }
}
