//! Finding `libnvrtc.so.12` and the CUDA headers without a CUDA toolkit.
//!
//! The search order (each step is recorded, so a failure can say exactly what
//! was tried):
//! 1. an explicit path (the CLI's `--nvrtc PATH`), a file or a directory; when
//!    given, it is the only candidate;
//! 2. the environment variable `PTXPERF_NVRTC` (file or directory);
//! 3. `$CUDA_HOME/lib64/libnvrtc.so.12`, then `$CUDA_HOME/lib/libnvrtc.so.12`;
//! 4. the project's virtual environment
//!    `.venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`,
//!    looked up from the current directory upwards, then from the running
//!    executable's directory upwards (so `target/release/ptxperf` finds the
//!    repository's `.venv` from anywhere);
//! 5. Python's own site-packages, as `python3` reports them.
//!
//! The headers (`cuda_fp16.h` ...) are searched the same way: `PTXPERF_CUDA_INCLUDE`,
//! `$CUDA_HOME/include`, the `nvidia/cuda_runtime/include` directory next to the
//! NVRTC wheel that was found, the virtual environment, then site-packages.
//!
//! Everything the search reads from the process (environment, directories, the
//! Python command) is held in a [`SearchContext`], so tests can build fake trees.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::NvrtcError;

/// The library file name NVRTC 12.x installs under (the soname).
pub const LIBRARY_FILE: &str = "libnvrtc.so.12";
/// A header whose presence marks a usable CUDA include directory.
const HEADER_MARKER: &str = "cuda_fp16.h";
/// Path of the NVRTC library inside a site-packages directory (PyPI wheel layout).
const WHEEL_LIBRARY: &str = "nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
/// Path of the CUDA headers inside a site-packages directory (runtime wheel).
const WHEEL_INCLUDE: &str = "nvidia/cuda_runtime/include";

/// Everything the search looks at, captured once so it can be faked in tests.
#[derive(Debug, Clone, Default)]
pub struct SearchContext {
    /// The `--nvrtc PATH` flag.
    pub explicit: Option<PathBuf>,
    /// `PTXPERF_NVRTC`.
    pub env_nvrtc: Option<OsString>,
    /// `PTXPERF_CUDA_INCLUDE`.
    pub env_include: Option<OsString>,
    /// `CUDA_HOME`.
    pub cuda_home: Option<OsString>,
    /// The current directory.
    pub cwd: Option<PathBuf>,
    /// The directory holding the running executable.
    pub exe_dir: Option<PathBuf>,
    /// The Python interpreter to ask for site-packages; `None` skips that step.
    pub python: Option<OsString>,
}

impl SearchContext {
    /// The context of this process: its environment, current directory, executable and `python3`.
    pub fn from_process(explicit: Option<PathBuf>) -> Self {
        SearchContext {
            explicit,
            env_nvrtc: non_empty(std::env::var_os("PTXPERF_NVRTC")),
            env_include: non_empty(std::env::var_os("PTXPERF_CUDA_INCLUDE")),
            cuda_home: non_empty(std::env::var_os("CUDA_HOME")),
            cwd: std::env::current_dir().ok(),
            exe_dir: std::env::current_exe()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf)),
            python: Some(OsString::from("python3")),
        }
    }
}

fn non_empty(v: Option<OsString>) -> Option<OsString> {
    v.filter(|s| !s.is_empty())
}

/// One place the search looked at, and whether the file was there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchStep {
    /// Which rule produced this candidate ("--nvrtc", "PTXPERF_NVRTC", "CUDA_HOME", ...).
    pub rule: String,
    /// The candidate path, or `None` when the rule did not apply (variable unset ...).
    pub path: Option<PathBuf>,
    pub found: bool,
    /// Why the rule had no candidate ("not set", "could not run python3").
    pub note: &'static str,
}

impl fmt::Display for SearchStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) if self.found => write!(f, "{}: {} (found)", self.rule, p.display()),
            Some(p) => write!(f, "{}: {} (not found)", self.rule, p.display()),
            None => write!(f, "{}: {}", self.rule, self.note),
        }
    }
}

/// The outcome of a successful search: the path, and the steps taken to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    pub searched: Vec<SearchStep>,
}

/// Records the steps and stops at the first hit.
struct Search {
    steps: Vec<SearchStep>,
}

impl Search {
    fn unset(&mut self, rule: &str) {
        self.steps.push(SearchStep {
            rule: rule.to_string(),
            path: None,
            found: false,
            note: "not set",
        });
    }

    /// The virtual environments above `start`, recording when there is none.
    fn venv_sites(&mut self, rule: &str, start: &Path) -> Vec<PathBuf> {
        let sites = venv_site_packages(start);
        if sites.is_empty() {
            self.steps.push(SearchStep {
                rule: format!("{rule} {}", start.display()),
                path: None,
                found: false,
                note: "no .venv/lib/python3*/site-packages in it or above it",
            });
        }
        sites
    }

    /// Try one candidate file; `Some(path)` when it exists.
    fn try_file(&mut self, rule: &str, path: PathBuf) -> Option<PathBuf> {
        let found = path.is_file();
        self.steps.push(SearchStep {
            rule: rule.to_string(),
            path: Some(path.clone()),
            found,
            note: "",
        });
        found.then_some(path)
    }

    /// Try a directory that must hold `marker`; `Some(dir)` when it does.
    fn try_dir(&mut self, rule: &str, dir: PathBuf, marker: &str) -> Option<PathBuf> {
        let found = dir.join(marker).is_file();
        self.steps.push(SearchStep {
            rule: rule.to_string(),
            path: Some(dir.clone()),
            found,
            note: "",
        });
        found.then_some(dir)
    }

    /// A user-given path: the file itself, or the library inside a directory.
    fn try_user_path(&mut self, rule: &str, path: &Path) -> Option<PathBuf> {
        if path.is_dir() {
            let candidates = [
                path.join(LIBRARY_FILE),
                path.join("lib64").join(LIBRARY_FILE),
                path.join("lib").join(LIBRARY_FILE),
            ];
            candidates.into_iter().find_map(|c| self.try_file(rule, c))
        } else {
            self.try_file(rule, path.to_path_buf())
        }
    }
}

/// Find `libnvrtc.so.12`. When `ctx.explicit` is set it is the only candidate.
pub fn locate_library(ctx: &SearchContext) -> Result<Located, NvrtcError> {
    let mut s = Search { steps: Vec::new() };
    let hit = find_library(ctx, &mut s);
    match hit {
        Some(path) => Ok(Located {
            path,
            searched: s.steps,
        }),
        None => Err(NvrtcError::NotFound {
            what: "NVRTC (libnvrtc.so.12)",
            searched: s.steps,
        }),
    }
}

fn find_library(ctx: &SearchContext, s: &mut Search) -> Option<PathBuf> {
    if let Some(p) = &ctx.explicit {
        return s.try_user_path("--nvrtc", p);
    }
    match &ctx.env_nvrtc {
        Some(v) => {
            if let Some(hit) = s.try_user_path("PTXPERF_NVRTC", Path::new(v)) {
                return Some(hit);
            }
        }
        None => s.unset("PTXPERF_NVRTC"),
    }
    match &ctx.cuda_home {
        Some(home) => {
            let home = Path::new(home);
            for sub in ["lib64", "lib"] {
                if let Some(hit) = s.try_file("CUDA_HOME", home.join(sub).join(LIBRARY_FILE)) {
                    return Some(hit);
                }
            }
        }
        None => s.unset("CUDA_HOME"),
    }
    for (rule, start) in venv_starts(ctx) {
        for site in s.venv_sites(rule, &start) {
            if let Some(hit) = s.try_file(rule, site.join(WHEEL_LIBRARY)) {
                return Some(hit);
            }
        }
    }
    for site in python_site_packages(ctx, s) {
        if let Some(hit) = s.try_file("python3 site-packages", site.join(WHEEL_LIBRARY)) {
            return Some(hit);
        }
    }
    None
}

/// Find the CUDA include directory (the one holding `cuda_fp16.h`).
/// `library` is the NVRTC library found before, if any: the headers of the
/// runtime wheel usually sit next to it in the same site-packages.
pub fn locate_headers(ctx: &SearchContext, library: Option<&Path>) -> Result<Located, NvrtcError> {
    let mut s = Search { steps: Vec::new() };
    let hit = find_headers(ctx, library, &mut s);
    match hit {
        Some(path) => Ok(Located {
            path,
            searched: s.steps,
        }),
        None => Err(NvrtcError::NotFound {
            what: "the CUDA headers (cuda_fp16.h)",
            searched: s.steps,
        }),
    }
}

fn find_headers(ctx: &SearchContext, library: Option<&Path>, s: &mut Search) -> Option<PathBuf> {
    match &ctx.env_include {
        Some(v) => {
            if let Some(hit) = s.try_dir("PTXPERF_CUDA_INCLUDE", PathBuf::from(v), HEADER_MARKER) {
                return Some(hit);
            }
        }
        None => s.unset("PTXPERF_CUDA_INCLUDE"),
    }
    match &ctx.cuda_home {
        Some(home) => {
            if let Some(hit) =
                s.try_dir("CUDA_HOME", Path::new(home).join("include"), HEADER_MARKER)
            {
                return Some(hit);
            }
        }
        None => s.unset("CUDA_HOME"),
    }
    // .../site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 -> .../site-packages
    if let Some(site) = library.and_then(|l| l.ancestors().nth(4))
        && let Some(hit) = s.try_dir("next to NVRTC", site.join(WHEEL_INCLUDE), HEADER_MARKER)
    {
        return Some(hit);
    }
    for (rule, start) in venv_starts(ctx) {
        for site in s.venv_sites(rule, &start) {
            if let Some(hit) = s.try_dir(rule, site.join(WHEEL_INCLUDE), HEADER_MARKER) {
                return Some(hit);
            }
        }
    }
    for site in python_site_packages(ctx, s) {
        if let Some(hit) = s.try_dir(
            "python3 site-packages",
            site.join(WHEEL_INCLUDE),
            HEADER_MARKER,
        ) {
            return Some(hit);
        }
    }
    None
}

/// The directories whose ancestors may hold the project's `.venv`.
fn venv_starts(ctx: &SearchContext) -> Vec<(&'static str, PathBuf)> {
    let mut starts = Vec::new();
    if let Some(cwd) = &ctx.cwd {
        starts.push((".venv above the current directory", cwd.clone()));
    }
    if let Some(exe) = &ctx.exe_dir {
        starts.push((".venv above the executable", exe.clone()));
    }
    starts
}

/// Every `A/.venv/lib/python3*/site-packages` for the ancestors `A` of `start`,
/// nearest first; Python versions in name order, so the result is deterministic.
fn venv_site_packages(start: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in start.ancestors() {
        let lib = dir.join(".venv").join("lib");
        let Ok(entries) = std::fs::read_dir(&lib) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path().join("site-packages"))
            .collect();
        pythons.sort();
        out.extend(pythons);
    }
    out
}

/// Ask Python for its site-packages directories (system and user). A missing
/// interpreter or a failing script yields no directory, and is recorded.
fn python_site_packages(ctx: &SearchContext, s: &mut Search) -> Vec<PathBuf> {
    let Some(python) = &ctx.python else {
        s.unset("python3 site-packages");
        return Vec::new();
    };
    let script =
        "import site\nfor d in site.getsitepackages() + [site.getusersitepackages()]: print(d)";
    let output = Command::new(python).arg("-c").arg(script).output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| PathBuf::from(l.trim()))
            .collect(),
        _ => {
            s.steps.push(SearchStep {
                rule: format!("site-packages of {}", Path::new(python).display()),
                path: None,
                found: false,
                note: "the interpreter could not be run",
            });
            Vec::new()
        }
    }
}
