//! Loading a kernel: launch spec -> PTX text -> parsed module -> resolved entry.
//!
//! `.ptx` sources are read; `.cu` sources are compiled with NVRTC using the
//! spec's `defines` and `arch` (default `sm_80`). Compilations are cached in
//! memory for the life of the process, keyed by (source text, defines, arch),
//! so a sweep that loads the same source many times compiles it once.
//! A C++ kernel name given unmangled (`matmul`, `ns::kernel`) is resolved to
//! the module's mangled entry with [`nvrtc::resolve_kernel`], and the spec's
//! `kernel` is replaced by that entry so every later step sees one name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use emu::spec::{LaunchSpec, SourceKind};

use crate::error::PipelineError;
use crate::timings::{Stage, StageTimes};

/// The architecture a `.cu` source is compiled for when the spec names none.
pub const DEFAULT_ARCH: &str = "sm_80";

/// How to load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Path to `libnvrtc.so.12` (None: the usual search, see the nvrtc crate).
    pub nvrtc: Option<PathBuf>,
    /// Use this PTX file instead of compiling the spec's `.cu` source (e.g. the
    /// corpus's checked-in `sm_80.ptx`, which NVRTC made with the spec's defines).
    pub ptx: Option<PathBuf>,
}

/// Where the PTX came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PtxOrigin {
    /// Read from a `.ptx` file (the spec's source, or [`LoadOptions::ptx`]).
    File(PathBuf),
    /// Compiled from CUDA C++ by NVRTC; `cached` when this process had compiled it before.
    Compiled { cached: bool },
}

/// A launch spec with its PTX parsed and its entry resolved: the input of [`crate::profile`].
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// The spec; `spec.kernel` is the resolved (mangled) entry name.
    pub spec: LaunchSpec,
    /// The kernel name as the spec wrote it (for display).
    pub kernel_name: String,
    /// The PTX text.
    pub ptx: String,
    /// The name diagnostics and faults cite for the PTX (`K.ptx` for a compiled `K.cu`).
    pub ptx_file: String,
    /// The parsed module.
    pub module: ptx::Module,
    /// The architecture of the PTX (`sm_80`), from its `.target`.
    pub arch: String,
    /// Static shared memory the entry declares (and its callees), bytes.
    pub static_shared_bytes: u64,
    pub origin: PtxOrigin,
    /// The CUDA source compiled (its name as NVRTC and the PTX's `.file`
    /// name it, and its text); None for a `.ptx` source.
    pub cuda_source: Option<(String, Arc<String>)>,
}

/// Parse the launch spec at `path`, applying `--set NAME=VALUE` `overrides`,
/// and load its kernel (compiling a `.cu` source with NVRTC).
pub fn load_spec(path: &Path, overrides: &[(String, String)]) -> Result<LoadedSpec, PipelineError> {
    load_spec_with(path, overrides, &LoadOptions::default())
}

/// [`load_spec`] with options (an NVRTC path, or a PTX file to use instead of compiling).
pub fn load_spec_with(
    path: &Path,
    overrides: &[(String, String)],
    opts: &LoadOptions,
) -> Result<LoadedSpec, PipelineError> {
    let text = read(path)?;
    let spec = emu::spec::parse(&text, path, overrides)?;
    if let Some(ptx_path) = &opts.ptx {
        let ptx = read(ptx_path)?;
        let file = ptx_path.display().to_string();
        return finish(spec, ptx, file, PtxOrigin::File(ptx_path.clone()));
    }
    let source = read(&spec.source)?;
    load_source(spec, &source, opts)
}

/// Load a kernel from source text held in memory: `spec` says what to launch
/// (its `source` path is only the name cited in diagnostics, and decides by
/// its extension whether `source_text` is CUDA C++ or PTX); a CUDA source is
/// compiled with `spec.defines` and `spec.arch`. For Kernel Tuner style
/// sweeps, build the `LaunchSpec` directly and change `defines` per point.
pub fn load_source(
    spec: LaunchSpec,
    source_text: &str,
    opts: &LoadOptions,
) -> Result<LoadedSpec, PipelineError> {
    load_source_timed(spec, source_text, opts, &mut StageTimes::default())
}

/// [`load_source`], adding the wall time of NVRTC (0 when this process had
/// compiled the same source before: see [`LoadedSpec::origin`]) and of the
/// PTX's parsing to `times`.
pub fn load_source_timed(
    spec: LaunchSpec,
    source_text: &str,
    opts: &LoadOptions,
    times: &mut StageTimes,
) -> Result<LoadedSpec, PipelineError> {
    let name = spec.source.display().to_string();
    match spec.source_kind {
        SourceKind::Ptx => times.time(Stage::PtxParse, || {
            finish(
                spec.clone(),
                source_text.to_string(),
                name,
                PtxOrigin::File(spec.source.clone()),
            )
        }),
        SourceKind::Cuda => {
            let arch = spec
                .arch
                .clone()
                .unwrap_or_else(|| DEFAULT_ARCH.to_string());
            let defines: Vec<(String, String)> = spec
                .defines
                .iter()
                .map(|(n, v)| (n.clone(), v.to_string()))
                .collect();
            let start = Instant::now();
            let instantiate = template_id(&spec.kernel);
            let (compiled, cached) =
                compile_cached(source_text, &name, &defines, &arch, instantiate, opts)?;
            if !cached {
                times.add(Stage::Nvrtc, start.elapsed());
            }
            // Faults cite lines of the generated PTX, which `ptxperf compile --spec` reproduces.
            let ptx_file = Path::new(&name).with_extension("ptx").display().to_string();
            let mut loaded = times.time(Stage::PtxParse, || {
                finish_as(
                    spec,
                    compiled.ptx.clone(),
                    ptx_file,
                    PtxOrigin::Compiled { cached },
                    compiled.lowered.as_deref(),
                )
            })?;
            loaded.cuda_source = Some((name, Arc::new(source_text.to_string())));
            Ok(loaded)
        }
    }
}

/// A kernel name that is a C++ template-id (`scale<float, 4>`): NVRTC is
/// asked to instantiate it (a name expression), so a templated kernel needs
/// no explicit instantiation in its source, and the entry is the mangled
/// name NVRTC lowers it to. Any other name is looked up in the PTX as given.
pub fn template_id(kernel: &str) -> Option<&str> {
    let k = kernel.trim();
    (k.contains('<') && k.ends_with('>')).then_some(k)
}

/// The PTX of one compilation, and the mangled entry of the template-id it
/// was asked to instantiate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledPtx {
    pub ptx: String,
    /// NVRTC's lowered name of the instantiated template-id, if one was given.
    pub lowered: Option<String>,
}

type CacheKey = (String, Vec<(String, String)>, String, Option<String>);

fn compile_cache() -> &'static Mutex<HashMap<CacheKey, Arc<CompiledPtx>>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Arc<CompiledPtx>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Compile CUDA `source` (named `name` in diagnostics) with `defines` for
/// `arch`, instantiating the template-id `instantiate` if given ([`template_id`]),
/// or return the PTX of an earlier identical compilation. The bool says
/// whether it came from the cache.
pub fn compile_cached(
    source: &str,
    name: &str,
    defines: &[(String, String)],
    arch: &str,
    instantiate: Option<&str>,
    opts: &LoadOptions,
) -> Result<(Arc<CompiledPtx>, bool), PipelineError> {
    let key: CacheKey = (
        source.to_string(),
        defines.to_vec(),
        arch.to_string(),
        instantiate.map(str::to_string),
    );
    // A poisoned lock only means another thread panicked mid-insert; the map is still usable.
    if let Some(hit) = compile_cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
    {
        return Ok((Arc::clone(hit), true));
    }
    let fail = |message: String| PipelineError::Compile {
        file: name.to_string(),
        message,
    };
    let mut options = nvrtc::CompileOptions {
        arch: Some(arch.to_string()),
        ..nvrtc::CompileOptions::default()
    };
    for (n, v) in defines {
        options.defines.push((n.clone(), Some(v.clone())));
    }
    options
        .name_expressions
        .extend(instantiate.map(str::to_string));
    emu::progress::stage("compiling with NVRTC");
    let compiler = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(opts.nvrtc.clone()))
        .map_err(|e| fail(format!("a .cu source needs NVRTC: {e}")))?;
    let compiled = compiler
        .compile(source, name, &options)
        .map_err(|e| match e {
            nvrtc::NvrtcError::Compile {
                log, diagnostics, ..
            } => {
                let mut message = nvrtc::render_log(&log);
                if let Some(note) = nvrtc::define_note(&diagnostics, name, &options) {
                    message.push('\n');
                    message.push_str(&note);
                }
                fail(message)
            }
            other => fail(other.to_string()),
        })?;
    let lowered = match instantiate {
        None => None,
        Some(expr) => Some(
            compiled
                .lowered_names
                .iter()
                .find(|(e, _)| e == expr)
                .map(|(_, mangled)| mangled.clone())
                .ok_or_else(|| {
                    fail(format!(
                        "NVRTC compiled the source but gave no entry for the kernel `{expr}` (its nvrtcGetLoweredName is missing or failed)"
                    ))
                })?,
        ),
    };
    let ptx = Arc::new(CompiledPtx {
        ptx: compiled.ptx,
        lowered,
    });
    compile_cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, Arc::clone(&ptx));
    Ok((ptx, false))
}

fn read(path: &Path) -> Result<String, PipelineError> {
    std::fs::read_to_string(path).map_err(|e| PipelineError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Parse the PTX, resolve the entry, measure static shared memory.
fn finish(
    spec: LaunchSpec,
    ptx: String,
    ptx_file: String,
    origin: PtxOrigin,
) -> Result<LoadedSpec, PipelineError> {
    finish_as(spec, ptx, ptx_file, origin, None)
}

/// [`finish`], the entry looked up as `entry_name` (a template-id's lowered
/// name) where one is given, else as the spec's `kernel`.
fn finish_as(
    mut spec: LaunchSpec,
    ptx: String,
    ptx_file: String,
    origin: PtxOrigin,
    entry_name: Option<&str>,
) -> Result<LoadedSpec, PipelineError> {
    let module =
        ptx::parse(&ptx_file, &ptx).map_err(|d| PipelineError::Ptx(d.render(&ptx_file, &ptx)))?;
    let entries: Vec<String> = module.entries().map(|(_, f)| f.name.clone()).collect();
    let entry = nvrtc::resolve_kernel(&entries, entry_name.unwrap_or(&spec.kernel))
        .map(str::to_string)
        .map_err(|e| PipelineError::Kernel {
            file: spec.path.display().to_string(),
            message: e.to_string(),
        })?;
    let handle = match ptx::analysis::find_kernel(&module, &entry) {
        ptx::analysis::KernelLookup::Found(h) => h,
        _ => {
            return Err(PipelineError::Kernel {
                file: spec.path.display().to_string(),
                message: format!("entry `{entry}` is not in {ptx_file}"),
            });
        }
    };
    let static_shared_bytes = ptx::analysis::shared_memory(&module, handle).static_bytes;
    let arch = module
        .target
        .iter()
        .find(|t| t.starts_with("sm_"))
        .cloned()
        .unwrap_or_else(|| DEFAULT_ARCH.to_string());
    let kernel_name = std::mem::replace(&mut spec.kernel, entry);
    Ok(LoadedSpec {
        spec,
        kernel_name,
        ptx,
        ptx_file,
        module,
        arch,
        static_shared_bytes,
        origin,
        cuda_source: None,
    })
}

impl LoadedSpec {
    /// The text of line `line` (1-based) of the CUDA file `file`, when it is
    /// the source this spec compiled (trailing blanks trimmed).
    pub fn source_line_text(&self, file: &str, line: u32) -> Option<String> {
        let (name, text) = self.cuda_source.as_ref()?;
        if name != file || line == 0 {
            return None;
        }
        text.lines()
            .nth(line as usize - 1)
            .map(|l| l.trim_end().to_string())
    }

    /// An emulator fault with the text of its CUDA line filled in.
    pub fn annotate_fault(&self, fault: emu::fault::Fault) -> emu::fault::Fault {
        fault.with_source_text(|file, line| self.source_line_text(file, line))
    }

    /// A characterization error as a pipeline error, a fault with its CUDA line's text.
    pub fn emulation_error(&self, e: characterize::CharacterizeError) -> PipelineError {
        match e {
            characterize::CharacterizeError::Fault(f) => {
                PipelineError::Emulation(self.annotate_fault(*f).to_string())
            }
            other => PipelineError::Emulation(other.to_string()),
        }
    }

    /// The entry function of the module.
    pub fn entry(&self) -> Option<&ptx::Function> {
        self.module
            .entries()
            .find(|(_, f)| f.name == self.spec.kernel)
            .map(|(_, f)| f)
    }
}
