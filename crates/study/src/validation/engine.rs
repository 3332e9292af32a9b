//! The real predictor: a configuration's launch -> the source Kernel Tuner
//! compiled (its define prefix and the loop_unroll_factor rule) -> PTX
//! (NVRTC, cached on disk; once per architecture) -> emulation of a few CTAs
//! (once per PTX) -> per GPU the cache model and every model.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use arch::Gpu;
use pipeline::Stage;
use validate::{Launch, defines_read_by, instantiate_source};

use super::replay::Replay;
use super::runner::ModelTimes;
use crate::error::{PredictError, SaveProfileError};
use crate::launch_spec::spec_of_launch;
use crate::message::first_nonblank_line;
use crate::ptx_cache::PtxCache;
use crate::timings::Timings;
use validate::score::{NoTime, Predicted};

/// CTAs emulated per configuration unless `--sample-ctas` says otherwise:
/// few enough that 500 convolution configurations fit the 15-minute budget
/// on two cores, evenly spread over the grid (first and last included).
pub const DEFAULT_SAMPLE_CTAS: u64 = 4;

/// Compiles and emulates configurations once per architecture
/// ([`Engine::emulate`]), then runs the cache model and every model per GPU
/// ([`Engine::on_gpu`]): nothing here depends on one GPU, so one engine
/// serves every GPU of a run (`validation::run_many`).
pub struct Engine {
    sample_ctas: u64,
    models: Vec<String>,
    /// Breakdown keys each prediction keeps ([`Engine::with_terms`]).
    terms: Vec<String>,
    cache: PtxCache,
    /// Where each configuration's profile and PTX are saved (`--save-profiles`).
    save_profiles: Option<PathBuf>,
    /// The first profile that could not be saved: the run goes on (the
    /// figures do not depend on it) and `validate` then fails with it.
    save_error: Mutex<Option<SaveProfileError>>,
    /// Bound on the emulated work of a grown sample (`pipeline::Options::work_budget`).
    work_budget: Option<u64>,
    /// Emulations started ([`Engine::emulations`]).
    emulations: AtomicUsize,
    /// The largest L2 of the run's GPUs, bytes: the sample's neighbours
    /// that no GPU of the run would keep in L2 are not emulated
    /// (`pipeline::Options::warmup_l2_bytes`).
    warmup_l2_bytes: Option<u64>,
    /// `--resume`: a configuration whose profiles are already saved under
    /// `save_profiles` for every GPU that needs it is rescored from them
    /// ([`Engine::resumed`]).
    resume: bool,
    /// `--ptx-arch`: compile every configuration once, for this
    /// architecture, and give that PTX to every GPU (ptxas then builds it
    /// for each GPU's own architecture, as the driver does with a binary
    /// that ships PTX only); `None`: compile per architecture.
    ptx_arch: Option<String>,
}

/// Where a configuration's PTX came from ([`Engine::emulate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtxFrom {
    /// Compiled by NVRTC.
    Compiled,
    /// Served from the PTX cache.
    Cache,
    /// Not needed: the profiles an interrupted run saved were rescored
    /// (`--resume`).
    Resumed,
    /// The PTX this configuration was compiled to for another architecture
    /// of the run (`--ptx-arch`: one compile for every GPU); neither
    /// compiled nor served from the cache.
    Shared,
}

/// One configuration compiled for one architecture and emulated: what every
/// GPU of that architecture is predicted from.
pub struct Emulated {
    profiled: pipeline::Profiled,
    ptx: String,
}

impl Engine {
    pub fn new(
        sample_ctas: u64,
        models: Vec<String>,
        cache: PtxCache,
        save_profiles: Option<PathBuf>,
    ) -> Engine {
        Engine {
            sample_ctas,
            models,
            terms: Vec::new(),
            cache,
            save_profiles,
            save_error: Mutex::new(None),
            work_budget: None,
            emulations: AtomicUsize::new(0),
            warmup_l2_bytes: None,
            resume: false,
            ptx_arch: None,
        }
    }

    /// Keep these keys of each model's breakdown with its time
    /// (`validate --by-term`); none by default, a breakdown per
    /// configuration and model being the size of a profile.
    pub fn with_terms(mut self, terms: Vec<String>) -> Engine {
        self.terms = terms;
        self
    }

    /// Compile every configuration for `arch` only (`--ptx-arch`; see
    /// [`Engine::emulate`]); `None`: for each GPU's architecture.
    pub fn with_ptx_arch(mut self, arch: Option<String>) -> Engine {
        self.ptx_arch = arch;
        self
    }

    /// Resume an interrupted run that saved its profiles: see [`Engine::resumed`].
    pub fn with_resume(mut self, resume: bool) -> Engine {
        self.resume = resume;
        self
    }

    /// With `--resume` and `--save-profiles DIR`: when `DIR/<gpu>/` holds
    /// the profile of `launch` (or the reason it failed) for each of `gpus`
    /// (a GPU with the measured compiler of its data), every model's time
    /// on each from those profiles, in the order of `gpus`, with nothing
    /// compiled or emulated; where the saving run failed, the reason it
    /// recorded, so that the outcome is the one it had. `None` when one is
    /// missing or unreadable, not saved whole (cut short by a copy) or saved
    /// under other profile rules than this build's
    /// ([`super::saved::resumable`]), and the configuration is run afresh.
    pub fn resumed(
        &self,
        launch: &Launch,
        gpus: &[(&Gpu, Option<profile::CompilerVersion>)],
        timings: &mut Timings,
    ) -> Option<Vec<Result<ModelTimes, String>>> {
        let dir = self.save_profiles.as_ref().filter(|_| self.resume)?;
        let mut loaded = Vec::with_capacity(gpus.len());
        for &(gpu, compiler) in gpus {
            let replay = Replay::new(dir.clone(), gpu, self.models.clone())
                .with_terms(self.terms.clone())
                .with_measured_compiler(compiler);
            match replay.resumable_profile(launch) {
                Ok(profile) => loaded.push((replay, Ok(profile))),
                Err(PredictError::FailedWhenSaved { reason, .. }) => {
                    loaded.push((replay, Err(reason)));
                }
                Err(_) => return None,
            }
        }
        Some(
            loaded
                .into_iter()
                .map(|(replay, profile)| Ok(replay.predict_profile(profile?, timings)))
                .collect(),
        )
    }

    /// The GPUs the profiles will be predicted on: the neighbour warm-up
    /// emulates only the neighbours the largest of their L2s can keep.
    pub fn for_gpus(mut self, gpus: &[&Gpu]) -> Engine {
        self.warmup_l2_bytes = gpus.iter().map(|g| g.caches.l2_bytes).max();
        self
    }

    /// Emulations started so far (one per configuration and architecture
    /// that got as far as the emulator).
    pub fn emulations(&self) -> usize {
        self.emulations.load(Ordering::Relaxed)
    }

    /// Bound the warp instructions of a grown or stratified CTA sample
    /// (`None`: the sample the error target asks for).
    pub fn with_work_budget(mut self, budget: Option<u64>) -> Engine {
        self.work_budget = budget;
        self
    }

    /// The first failure to save a profile (`--save-profiles`), if any,
    /// taken (a second call says `None`).
    pub fn take_save_error(&self) -> Option<SaveProfileError> {
        // A poisoned lock still holds the error (poisoning is no reason to lose it).
        self.save_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// (PTX served from the cache, PTX compiled).
    pub fn cache_counts(&self) -> (usize, usize) {
        self.cache.counts()
    }

    /// The (major, minor) version of the NVRTC that compiles the
    /// configurations; `None` when NVRTC cannot be loaded.
    pub fn nvrtc_version(&self) -> Option<(i32, i32)> {
        self.cache.compiler().ok()?.nvrtc().version().ok()
    }

    /// The PTX of one configuration for `arch` and the name to give its file.
    fn ptx(
        &self,
        launch: &Launch,
        arch: &str,
        timings: &mut Timings,
    ) -> Result<(String, String), PredictError> {
        let file = launch.source.main.display().to_string();
        let text = launch.source.read()?;
        // Parameters the source never reads leave the text NVRTC compiles
        // (`validate::defines_read_by`): their configurations share a PTX.
        let instantiated = instantiate_source(&text, &defines_read_by(&text, &launch.defines));
        let ptx = self.cache.compile_configuration(
            &instantiated,
            &file,
            arch,
            &launch.include_dirs,
            timings,
        )?;
        Ok((ptx, ptx_name(launch)))
    }

    /// Compile `launch` for `arch` (`target::arch_for` of the GPUs it
    /// serves) and emulate it, with no GPU: the registers are ptxas's for
    /// `arch`, the cache model is left to [`Engine::on_gpu`]. `from` says
    /// where the PTX came from once there is PTX (also when the emulation
    /// then fails). When one of `earlier` (this configuration for other
    /// architectures) has the same program ([`pipeline::same_program`]: PTX
    /// equal apart from `.target`), its emulation serves with this
    /// architecture's ptxas figures ([`pipeline::Profiled::retarget`]) and
    /// nothing is emulated: what it gives is what emulating would give.
    ///
    /// With a PTX architecture ([`Engine::with_ptx_arch`]) the PTX is
    /// compiled once, for it, whatever `arch` is (the first emulation's PTX
    /// serves the others without NVRTC); ptxas still builds it for `arch`,
    /// and the profile is `arch`'s (its `.target` stays the PTX
    /// architecture's: ptxas takes PTX of an older target).
    pub fn emulate(
        &self,
        launch: &Launch,
        arch: &str,
        timings: &mut Timings,
        from: &mut Option<PtxFrom>,
        earlier: &[Emulated],
    ) -> Result<Emulated, PredictError> {
        let (ptx, ptx_file) = match (&self.ptx_arch, earlier.first()) {
            (Some(_), Some(first)) => {
                *from = Some(PtxFrom::Shared);
                (first.ptx.clone(), ptx_name(launch))
            }
            (ptx_arch, _) => {
                let hits = timings.ptx_cache_hits;
                let compiled = self.ptx(launch, ptx_arch.as_deref().unwrap_or(arch), timings)?;
                *from = Some(if timings.ptx_cache_hits > hits {
                    PtxFrom::Cache
                } else {
                    PtxFrom::Compiled
                });
                compiled
            }
        };
        let spec = spec_of_launch(launch, Path::new(&ptx_file), &self.cache.values_dir())?;
        let mut loaded = pipeline::load_source_timed(
            spec,
            &ptx,
            &pipeline::LoadOptions::default(),
            &mut timings.stages,
        )
        .map_err(PredictError::Load)?;
        // ptxas builds the PTX for the GPU's architecture, whatever its
        // `.target` (the same unless a PTX architecture was given).
        loaded.arch = arch.to_string();
        // Another architecture's PTX of the same program was emulated:
        // only ptxas runs again, for this architecture.
        if let Some(e) = earlier
            .iter()
            .find(|e| pipeline::same_program(&e.ptx, &ptx))
        {
            let mut profiled = e.profiled.clone();
            profiled.retarget(
                &loaded,
                pipeline::Options::default().ptxas,
                &mut timings.stages,
            );
            return Ok(Emulated { profiled, ptx });
        }
        let opts = pipeline::Options {
            sample_ctas: Some(self.sample_ctas),
            work_budget: self.work_budget,
            gpu: None,
            // The neighbours that precede each sampled CTA are replayed into
            // L2 before and alongside it (pipeline::warmup), as in `tune`: a
            // spread sample of 4 CTAs shares no data, where in the launch
            // every CTA of a GEMM's grid row reads the panel its neighbour
            // has just read (the RTX 3090 GEMM's DRAM bytes were twice what
            // that reuse leaves).
            neighbour_warmup: true,
            warmup_l2_bytes: self.warmup_l2_bytes,
            ..pipeline::Options::default()
        };
        self.emulations.fetch_add(1, Ordering::Relaxed);
        let profiled = pipeline::profile_timed(&loaded, &opts, &mut timings.stages)
            .map_err(PredictError::Emulation)?;
        Ok(Emulated { profiled, ptx })
    }

    /// Every model's time for `emulated` on `gpu`: the cache model for the
    /// GPU on the recorded trace, the profile's compiler set to
    /// `measured_compiler` where the data name it (the models then assume
    /// that compiler's SASS lowering), the profile saved under
    /// `DIR/<gpu>/` with `--save-profiles`, then the models.
    pub fn on_gpu(
        &self,
        emulated: &Emulated,
        launch: &Launch,
        gpu: &Gpu,
        measured_compiler: Option<profile::CompilerVersion>,
        timings: &mut Timings,
    ) -> Result<ModelTimes, PredictError> {
        let mut profiled = emulated.profiled.clone();
        timings
            .stages
            .time(Stage::CacheModel, || profiled.simulate_cache(gpu))
            .map_err(PredictError::Emulation)?;
        if let Some(c) = measured_compiler {
            profiled.profile.resources.compiler = Some(c);
        }
        if let Some(dir) = &self.save_profiles
            && let Err(e) = save_profile(dir, &gpu.id, launch, &emulated.ptx, &profiled.profile)
        {
            self.save_error
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get_or_insert(e);
        }
        Ok(timings.stages.time(Stage::Models, || {
            model_times(&self.models, &self.terms, |one| {
                pipeline::predict(&profiled, gpu, one)
            })
        }))
    }

    /// With `--save-profiles DIR`: record that `launch` failed on `gpu`
    /// before it had a profile ([`save_failure`]), so that rescoring says
    /// why instead of "no saved profile".
    pub fn note_failure(&self, gpu: &str, launch: &Launch, reason: &str) {
        if let Some(dir) = &self.save_profiles
            && let Err(e) = save_failure(dir, gpu, launch, reason)
        {
            self.save_error
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get_or_insert(e);
        }
    }
}

/// The name a configuration's PTX file gets (the source's, `.ptx`).
fn ptx_name(launch: &Launch) -> String {
    launch
        .source
        .main
        .with_extension("ptx")
        .display()
        .to_string()
}

/// Extension of the file that stands for a configuration's profile when it
/// failed before it had one: `DIR/<gpu>/<defines>.failed` holds the reason.
pub const FAILED_EXTENSION: &str = "failed";

/// Write why `launch` has no profile on `gpu` (compile, emulation or cache
/// model failure) as `DIR/<gpu>/<defines>.failed`; rescoring reports it.
pub fn save_failure(
    dir: &Path,
    gpu: &str,
    launch: &Launch,
    reason: &str,
) -> Result<(), SaveProfileError> {
    let dir = dir.join(gpu);
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(SaveProfileError::CreateDir { path: dir, source });
    }
    let path = dir.join(format!("{}.{FAILED_EXTENSION}", profile_file_stem(launch)));
    write_whole(&path, &format!("{reason}\n"))
}

/// Write `text` to `path` whole or not at all (a temporary file beside it,
/// renamed): a run killed while saving leaves no half profile for
/// `--resume` or `--profiles` to read.
fn write_whole(path: &Path, text: &str) -> Result<(), SaveProfileError> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|source| SaveProfileError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// For model work (`--save-profiles DIR`, or `PTXPERF_VALIDATE_DUMP=DIR`):
/// each configuration's profile is written to `DIR/<gpu>/<defines>.toml`, so
/// that `validate --profiles DIR` (or `predict --profile`) can rescore the
/// models without re-emulating, and its PTX beside it (`<defines>.ptx`), for
/// looking at what ptxas makes of it. A file that cannot be written is an
/// error naming it (a rescoring run would miss the profile).
fn save_profile(
    dir: &Path,
    gpu: &str,
    launch: &Launch,
    ptx: &str,
    profile: &profile::KernelProfile,
) -> Result<(), SaveProfileError> {
    let name = profile_file_stem(launch);
    let dir = dir.join(gpu);
    let toml_path = dir.join(format!("{name}.toml"));
    let text = match toml::to_string(profile) {
        Ok(t) => super::saved::wrap(&t),
        Err(source) => {
            return Err(SaveProfileError::Serialise {
                path: toml_path,
                source,
            });
        }
    };
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(SaveProfileError::CreateDir { path: dir, source });
    }
    let ptx_path = dir.join(format!("{name}.ptx"));
    // The PTX first: a profile on disk means its run got that far.
    write_whole(&ptx_path, ptx)?;
    write_whole(&toml_path, &text)
}

/// The file name (without extension) of a configuration's saved profile:
/// its defines as `name=value`, comma-separated, other characters as `_`.
pub fn profile_file_stem(launch: &Launch) -> String {
    let name: Vec<String> = launch
        .defines
        .iter()
        .map(|d| match d {
            validate::Define::Macro { name, value }
            | validate::Define::Constexpr { name, value } => {
                format!("{name}={value}")
            }
            validate::Define::DropUnrollPragma { name } => format!("{name}=0"),
        })
        .collect();
    name.join(",")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "=,._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Each model's time in milliseconds from `predict` (a prediction of the
/// models named), one model at a time, so one model's refusal does not hide
/// the others; each keeps the `terms` of its breakdown that it computed.
pub fn model_times(
    models: &[String],
    terms: &[String],
    predict: impl Fn(&[String]) -> Result<pipeline::Predictions, pipeline::PipelineError>,
) -> ModelTimes {
    models
        .iter()
        .map(|name| {
            let time = predict(std::slice::from_ref(name))
                .map_err(|e| NoTime::Refused(first_nonblank_line(&e.to_string())))
                .and_then(|p| {
                    p.predictions
                        .first()
                        .map(|pr| Predicted {
                            ms: pr.seconds * 1e3,
                            interval_ms: crate::evaluate::interval_ms(pr),
                            blend: crate::evaluate::blend(pr),
                            bottleneck: Some(pr.bottleneck.clone()),
                            terms: terms
                                .iter()
                                .filter_map(|k| Some((k.clone(), *pr.breakdown.get(k)?)))
                                .collect(),
                        })
                        .ok_or(NoTime::NoPrediction)
                });
            (name.clone(), time)
        })
        .collect()
}
