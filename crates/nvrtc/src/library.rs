//! The loaded NVRTC library: a thin, safe wrapper over the handful of C symbols
//! ptxperf needs, resolved once with `libloading`.
//!
//! C API (nvrtc.h, CUDA 12): every call returns an `nvrtcResult` (0 = success);
//! a program is an opaque pointer created by `nvrtcCreateProgram` and freed by
//! `nvrtcDestroyProgram`.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

use libloading::Library;

use crate::error::NvrtcError;
use crate::locate::{SearchContext, locate_library};

type Program = *mut c_void;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
type CreateFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type CopyFn = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;
type AddNameFn = unsafe extern "C" fn(Program, *const c_char) -> c_int;
type LoweredNameFn = unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> c_int;

/// The NVRTC entry points, copied out of the library. They stay valid as long
/// as `_lib` is alive, which is as long as this struct.
pub struct Nvrtc {
    path: PathBuf,
    version: VersionFn,
    create: CreateFn,
    compile: CompileFn,
    ptx_size: SizeFn,
    ptx: CopyFn,
    log_size: SizeFn,
    log: CopyFn,
    destroy: DestroyFn,
    error_string: Option<ErrorStringFn>,
    add_name: Option<AddNameFn>,
    lowered_name: Option<LoweredNameFn>,
    /// Never closed (`ManuallyDrop`): unloading NVRTC from a process whose
    /// threads have run it is not something NVIDIA documents as safe (a
    /// thread's exit may run destructors NVRTC registered), and a process
    /// that opened it once will open it again. The loader keeps one copy
    /// however often it is opened.
    _lib: ManuallyDrop<Library>,
    /// The builtins library beside `path`, loaded first (see
    /// [`builtins_beside`]); never closed either.
    _builtins: Option<ManuallyDrop<Library>>,
}

impl std::fmt::Debug for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvrtc")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Resolve one required symbol.
fn symbol<T: Copy>(lib: &Library, path: &Path, name: &'static str) -> Result<T, NvrtcError> {
    let c_name = format!("{name}\0");
    // SAFETY: the caller names the C prototype of `name` as `T` (see the type
    // aliases above, taken from nvrtc.h); the pointer is used only while `lib` lives.
    let sym = unsafe { lib.get::<T>(c_name.as_bytes()) };
    match sym {
        Ok(s) => Ok(*s),
        Err(_) => Err(NvrtcError::MissingSymbol {
            path: path.to_path_buf(),
            symbol: name,
        }),
    }
}

/// The `libnvrtc-builtins.so.*` in the folder of `libnvrtc` (not the
/// `.alt` variant), if there is exactly one.
pub fn builtins_beside(libnvrtc: &Path) -> Option<PathBuf> {
    let dir = libnvrtc.parent()?;
    let mut found = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so") && !n.contains(".alt"))
        });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

impl Nvrtc {
    /// Find NVRTC (see [`crate::locate`]) and load it.
    pub fn open(ctx: &SearchContext) -> Result<Nvrtc, NvrtcError> {
        let found = locate_library(ctx)?;
        Nvrtc::load(&found.path)
    }

    /// Load NVRTC from this exact file.
    pub fn load(path: &Path) -> Result<Nvrtc, NvrtcError> {
        // NVRTC opens libnvrtc-builtins.so.MAJOR.MINOR by name when it
        // compiles, which finds a copy beside libnvrtc only if the loader's
        // search path holds that folder (a CUDA 13 wheel's does not). Once
        // loaded from beside it, the lookup by name finds the loaded copy.
        // SAFETY: as below; the builtins library has no initialisers of note.
        let builtins = builtins_beside(path).and_then(|b| unsafe { Library::new(b) }.ok());
        // SAFETY: loading runs the library's initialisers; libnvrtc's are benign.
        let lib = unsafe { Library::new(path) }.map_err(|e| NvrtcError::Load {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(Nvrtc {
            path: path.to_path_buf(),
            version: symbol(&lib, path, "nvrtcVersion")?,
            create: symbol(&lib, path, "nvrtcCreateProgram")?,
            compile: symbol(&lib, path, "nvrtcCompileProgram")?,
            ptx_size: symbol(&lib, path, "nvrtcGetPTXSize")?,
            ptx: symbol(&lib, path, "nvrtcGetPTX")?,
            log_size: symbol(&lib, path, "nvrtcGetProgramLogSize")?,
            log: symbol(&lib, path, "nvrtcGetProgramLog")?,
            destroy: symbol(&lib, path, "nvrtcDestroyProgram")?,
            error_string: symbol(&lib, path, "nvrtcGetErrorString").ok(),
            add_name: symbol(&lib, path, "nvrtcAddNameExpression").ok(),
            lowered_name: symbol(&lib, path, "nvrtcGetLoweredName").ok(),
            _lib: ManuallyDrop::new(lib),
            _builtins: builtins.map(ManuallyDrop::new),
        })
    }

    /// The file this NVRTC was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// NVRTC's (major, minor) version, e.g. (12, 9).
    pub fn version(&self) -> Result<(i32, i32), NvrtcError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers, per nvrtcVersion's prototype.
        let rc = unsafe { (self.version)(&mut major, &mut minor) };
        self.check("nvrtcVersion", rc)?;
        Ok((major, minor))
    }

    fn check(&self, call: &'static str, rc: c_int) -> Result<(), NvrtcError> {
        if rc == 0 {
            return Ok(());
        }
        Err(NvrtcError::Api {
            call,
            code: rc,
            message: self.error_text(rc),
        })
    }

    /// NVRTC's own text for a result code.
    pub(crate) fn error_text(&self, rc: c_int) -> String {
        let Some(f) = self.error_string else {
            return format!("NVRTC error {rc}");
        };
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string (or null).
        let p = unsafe { f(rc) };
        if p.is_null() {
            return format!("NVRTC error {rc}");
        }
        // SAFETY: non-null, static and NUL-terminated, per nvrtc.h.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// Create a program, compile it with `options`, and collect its log, its PTX
    /// (on success) and the lowered names of `name_expressions`. The program is
    /// destroyed on every path.
    pub(crate) fn run_program(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        name_expressions: &[String],
        headers: &[(String, String)],
    ) -> Result<RawOutcome, NvrtcError> {
        let c_source = CString::new(source).map_err(|_| NvrtcError::InvalidText("source"))?;
        let c_headers = headers
            .iter()
            .map(|(n, t)| {
                Ok((
                    CString::new(n.as_str()).map_err(|_| NvrtcError::InvalidText("header name"))?,
                    CString::new(t.as_str()).map_err(|_| NvrtcError::InvalidText("header"))?,
                ))
            })
            .collect::<Result<Vec<_>, NvrtcError>>()?;
        let header_texts: Vec<*const c_char> = c_headers.iter().map(|(_, t)| t.as_ptr()).collect();
        let header_names: Vec<*const c_char> = c_headers.iter().map(|(n, _)| n.as_ptr()).collect();
        let n_headers = c_int::try_from(c_headers.len())
            .map_err(|_| NvrtcError::InvalidOption("too many headers".into()))?;
        let c_name = CString::new(name).map_err(|_| NvrtcError::InvalidText("program name"))?;
        let c_options = options
            .iter()
            .map(|o| {
                CString::new(o.as_str())
                    .map_err(|_| NvrtcError::InvalidOption(format!("{o:?} contains a NUL byte")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let c_exprs = name_expressions
            .iter()
            .map(|e| {
                CString::new(e.as_str()).map_err(|_| NvrtcError::InvalidText("name expression"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let option_ptrs: Vec<*const c_char> = c_options.iter().map(|c| c.as_ptr()).collect();
        let n_options = c_int::try_from(option_ptrs.len())
            .map_err(|_| NvrtcError::InvalidOption("too many options".into()))?;

        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: valid out-pointer and NUL-terminated strings; the header
        // arrays hold `n_headers` valid C strings each (or are null with a
        // count of 0, as nvrtc.h allows), and outlive the call (NVRTC copies them).
        let (texts, names) = if c_headers.is_empty() {
            (std::ptr::null(), std::ptr::null())
        } else {
            (header_texts.as_ptr(), header_names.as_ptr())
        };
        let rc = unsafe {
            (self.create)(
                &mut prog,
                c_source.as_ptr(),
                c_name.as_ptr(),
                n_headers,
                texts,
                names,
            )
        };
        self.check("nvrtcCreateProgram", rc)?;
        let guard = ProgramGuard { nvrtc: self, prog };

        if !c_exprs.is_empty() {
            let add = self.add_name.ok_or(NvrtcError::MissingSymbol {
                path: self.path.clone(),
                symbol: "nvrtcAddNameExpression",
            })?;
            for e in &c_exprs {
                // SAFETY: live program, NUL-terminated expression.
                let rc = unsafe { add(guard.prog, e.as_ptr()) };
                self.check("nvrtcAddNameExpression", rc)?;
            }
        }

        // SAFETY: live program; `option_ptrs` holds `n_options` valid C strings
        // that outlive the call.
        let compile_rc = unsafe { (self.compile)(guard.prog, n_options, option_ptrs.as_ptr()) };
        let log = self.read_text(guard.prog, "nvrtcGetProgramLog", self.log_size, self.log)?;
        if compile_rc != 0 {
            return Ok(RawOutcome {
                ptx: None,
                log,
                lowered: Vec::new(),
                code: compile_rc,
            });
        }
        let ptx = self.read_text(guard.prog, "nvrtcGetPTX", self.ptx_size, self.ptx)?;
        let mut lowered = Vec::new();
        if let Some(get) = self.lowered_name {
            for (expr, c_expr) in name_expressions.iter().zip(&c_exprs) {
                let mut out: *const c_char = std::ptr::null();
                // SAFETY: live, compiled program; the returned string is owned by
                // the program and copied before the program is destroyed.
                let rc = unsafe { get(guard.prog, c_expr.as_ptr(), &mut out) };
                self.check("nvrtcGetLoweredName", rc)?;
                if !out.is_null() {
                    // SAFETY: non-null NUL-terminated string owned by the live program.
                    let text = unsafe { CStr::from_ptr(out) }
                        .to_string_lossy()
                        .into_owned();
                    lowered.push((expr.clone(), text));
                }
            }
        }
        Ok(RawOutcome {
            ptx: Some(ptx),
            log,
            lowered,
            code: 0,
        })
    }

    /// Read a size-then-copy string (the log or the PTX) out of a program.
    fn read_text(
        &self,
        prog: Program,
        call: &'static str,
        size: SizeFn,
        copy: CopyFn,
    ) -> Result<String, NvrtcError> {
        let mut n: usize = 0;
        // SAFETY: live program, valid out-pointer.
        let rc = unsafe { size(prog, &mut n) };
        self.check(call, rc)?;
        let mut buf = vec![0u8; n.max(1)];
        // SAFETY: `buf` holds at least the `n` bytes (NUL included) NVRTC said it writes.
        let rc = unsafe { copy(prog, buf.as_mut_ptr().cast::<c_char>()) };
        self.check(call, rc)?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        buf.truncate(end);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

/// What one NVRTC run produced, before interpretation.
pub(crate) struct RawOutcome {
    pub ptx: Option<String>,
    pub log: String,
    pub lowered: Vec<(String, String)>,
    /// The result code of nvrtcCompileProgram (6 = compilation error).
    pub code: c_int,
}

/// Destroys the program when dropped, whatever path the caller takes.
struct ProgramGuard<'a> {
    nvrtc: &'a Nvrtc,
    prog: Program,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: `prog` was created by nvrtcCreateProgram and is destroyed once.
        unsafe { (self.nvrtc.destroy)(&mut self.prog) };
    }
}
