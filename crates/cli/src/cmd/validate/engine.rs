//! The real predictor: a configuration's launch -> the source Kernel Tuner
//! compiled (its define prefix and the loop_unroll_factor rule) -> PTX
//! (NVRTC, cached on disk) -> emulation of a few CTAs -> every model.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arch::Gpu;
use nvrtc::{CompileOptions, Compiler, SearchContext};
use validate::{Launch, instantiate_source};

use super::launch_spec::spec_of_launch;
use super::ptx_cache::PtxCache;
use super::runner::{ModelTimes, Predictor};

/// CTAs emulated per configuration unless `--sample-ctas` says otherwise:
/// few enough that 500 convolution configurations fit the 15-minute budget
/// on two cores, evenly spread over the grid (first and last included).
pub const DEFAULT_SAMPLE_CTAS: u64 = 4;

/// NVRTC 12 compiles for sm_50 and newer only; older GPUs (the K20m is
/// sm_35) get sm_50 PTX, the closest it can make.
const OLDEST_ARCH: (u32, u32) = (5, 0);

pub struct Engine {
    gpu: Gpu,
    arch: String,
    sample_ctas: u64,
    models: Vec<String>,
    cache: PtxCache,
    /// Where each configuration's profile and PTX are saved (`--save-profiles`).
    save_profiles: Option<PathBuf>,
    /// Opened on first use, so a run whose configurations are all cached
    /// (or all measured as failed) needs no NVRTC.
    compiler: Mutex<Option<std::sync::Arc<Compiler>>>,
    /// The compiler that built the measured kernels, where the data say
    /// (`measured_by.nvrtc`): the profiles' `resources.compiler` is set to
    /// it, so the models assume that compiler's SASS lowering.
    measured_compiler: Option<profile::CompilerVersion>,
}

impl Engine {
    pub fn new(
        gpu: &Gpu,
        sample_ctas: u64,
        models: Vec<String>,
        cache: PtxCache,
        save_profiles: Option<PathBuf>,
    ) -> Engine {
        let cc = gpu.compute_capability;
        let (major, minor) = if (cc.major, cc.minor) < OLDEST_ARCH {
            OLDEST_ARCH
        } else {
            (cc.major, cc.minor)
        };
        Engine {
            gpu: gpu.clone(),
            arch: format!("sm_{major}{minor}"),
            sample_ctas,
            models,
            cache,
            save_profiles,
            compiler: Mutex::new(None),
            measured_compiler: None,
        }
    }

    /// Assume `compiler`'s lowering in every profile (see `measured_compiler`).
    pub fn with_measured_compiler(mut self, compiler: Option<profile::CompilerVersion>) -> Engine {
        self.measured_compiler = compiler;
        self
    }

    /// (PTX served from the cache, PTX compiled).
    pub fn cache_counts(&self) -> (usize, usize) {
        self.cache.counts()
    }

    /// The (major, minor) version of the NVRTC that compiles the
    /// configurations; `None` when NVRTC cannot be loaded.
    pub fn nvrtc_version(&self) -> Option<(i32, i32)> {
        self.compiler().ok()?.nvrtc().version().ok()
    }

    fn compiler(&self) -> Result<std::sync::Arc<Compiler>, String> {
        let mut slot = self
            .compiler
            .lock()
            .map_err(|_| "the NVRTC handle is poisoned".to_string())?;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let c = std::sync::Arc::new(
            Compiler::open(&SearchContext::from_process(None)).map_err(|e| e.to_string())?,
        );
        *slot = Some(c.clone());
        Ok(c)
    }

    /// The PTX of one configuration and the name to give its file.
    fn ptx(&self, launch: &Launch) -> Result<(String, String), String> {
        let file = launch.source.display().to_string();
        let text = std::fs::read_to_string(&launch.source)
            .map_err(|e| format!("{file}: cannot read the kernel source: {e}"))?;
        let instantiated = instantiate_source(&text, &launch.defines);
        let options = CompileOptions {
            arch: Some(self.arch.clone()),
            include_dirs: launch.include_dirs.clone(),
            ..CompileOptions::default()
        };
        let dirs: Vec<String> = launch
            .include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        // Everything the PTX depends on, but the headers' contents.
        let key = format!(
            "nvrtc-12\narch {}\nlineinfo {}\ninclude {}\nfile {file}\n{instantiated}",
            self.arch,
            options.lineinfo,
            dirs.join(":")
        );
        let ptx = self.cache.get_or_compile(&key, || {
            let compiler = self.compiler()?;
            compiler
                .compile(&instantiated, &file, &options)
                .map(|c| c.ptx)
                .map_err(|e| format!("NVRTC: {}", first_line(&e.to_string())))
        })?;
        let ptx_name = launch.source.with_extension("ptx").display().to_string();
        Ok((ptx, ptx_name))
    }
}

/// For model work (`--save-profiles DIR`, or `PTXPERF_VALIDATE_DUMP=DIR`):
/// each configuration's profile is written to `DIR/<gpu>/<defines>.toml`, so
/// that `validate --profiles DIR` (or `predict --profile`) can rescore the
/// models without re-emulating, and its PTX beside it (`<defines>.ptx`), for
/// looking at what ptxas makes of it. Best effort: a write that fails is
/// skipped (it never changes the figures).
fn save_profile(
    dir: &Path,
    gpu: &str,
    launch: &Launch,
    ptx: &str,
    profile: &profile::KernelProfile,
) {
    let name = profile_file_stem(launch);
    let dir = dir.join(gpu);
    if let Ok(text) = toml::to_string(profile)
        && std::fs::create_dir_all(&dir).is_ok()
    {
        let _ = std::fs::write(dir.join(format!("{name}.toml")), text);
        let _ = std::fs::write(dir.join(format!("{name}.ptx")), ptx);
    }
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

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

impl Predictor for Engine {
    fn predict(&self, launch: &Launch) -> Result<ModelTimes, String> {
        let (ptx, ptx_file) = self.ptx(launch)?;
        let spec = spec_of_launch(launch, Path::new(&ptx_file), &self.cache.values_dir())?;
        let loaded = pipeline::load_source(spec, &ptx, &pipeline::LoadOptions::default())
            .map_err(|e| format!("load: {}", first_line(&e.to_string())))?;
        let opts = pipeline::Options {
            sample_ctas: Some(self.sample_ctas),
            gpu: Some(self.gpu.clone()),
            ..pipeline::Options::default()
        };
        let mut profiled = pipeline::profile(&loaded, &opts)
            .map_err(|e| format!("emulation: {}", first_line(&e.to_string())))?;
        if let Some(c) = self.measured_compiler {
            profiled.profile.resources.compiler = Some(c);
        }
        if let Some(dir) = &self.save_profiles {
            save_profile(dir, &self.gpu.id, launch, &ptx, &profiled.profile);
        }
        Ok(model_times(&self.models, |one| {
            pipeline::predict(&profiled, &self.gpu, one)
        }))
    }
}

/// Each model's time in milliseconds from `predict` (a prediction of the
/// models named), one model at a time, so one model's refusal does not hide
/// the others.
pub fn model_times(
    models: &[String],
    predict: impl Fn(&[String]) -> Result<pipeline::Predictions, pipeline::PipelineError>,
) -> ModelTimes {
    models
        .iter()
        .map(|name| {
            let time = predict(std::slice::from_ref(name))
                .map_err(|e| first_line(&e.to_string()))
                .and_then(|p| {
                    p.predictions
                        .first()
                        .map(|pr| pr.seconds * 1e3)
                        .ok_or_else(|| "no prediction".to_string())
                });
            (name.clone(), time)
        })
        .collect()
}
