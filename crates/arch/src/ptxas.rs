//! Register and shared-memory counts from NVIDIA's `ptxas -v`.
//!
//! Occupancy needs the registers per thread the real compiler allocates; PTX
//! only names virtual registers. When ptxas is installed (the
//! `nvidia-cuda-nvcc-cu12` wheel that scripts/setup.sh puts in `.venv`) it is
//! run on the PTX text and its `-v` report is parsed; otherwise the caller
//! estimates from the PTX and says so with [`RegisterSource::Estimated`].
//!
//! Search order for the executable: an explicit path, `$PTXPERF_PTXAS`,
//! beside the NVRTC that `$PTXPERF_NVRTC` names (the `cuda_nvcc` wheel next
//! to the `cuda_nvrtc` one, or `bin/` of a toolkit), `$CUDA_HOME/bin/ptxas`, `.venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas`
//! in the current directory and each parent, then in the executable's
//! directory and each parent, then `$PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use crate::error::ArchError;

/// Where a register count comes from, so output can say how far to trust it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterSource {
    /// Reported by ptxas for the target architecture.
    Ptxas,
    /// Estimated from the PTX (no ptxas available).
    Estimated,
}

impl std::fmt::Display for RegisterSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RegisterSource::Ptxas => "ptxas",
            RegisterSource::Estimated => "estimated from PTX",
        })
    }
}

/// What ptxas reports for one entry function.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelResources {
    /// Entry name as in the PTX (mangled for C++).
    pub name: String,
    pub registers: u32,
    /// Static shared memory, bytes (on CC 1.x the `+N` parameter bytes are included).
    pub shared_bytes: u64,
    /// Per-thread stack frame, bytes.
    pub stack_frame_bytes: u64,
    pub spill_store_bytes: u64,
    pub spill_load_bytes: u64,
    /// Local memory per thread, bytes, where ptxas reports `lmem`.
    pub local_bytes: u64,
    /// Named barriers used, where ptxas reports them.
    pub barriers: u32,
    /// Bytes of SASS of the entry (its `.text` section in the cubin ptxas
    /// wrote, [`crate::cubin`]); `None` where the cubin could not be read.
    /// Functions it calls that ptxas did not inline are not counted.
    pub code_bytes: Option<u64>,
}

/// Everything searched, in order, for diagnostics.
fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let exe = if cfg!(windows) { "ptxas.exe" } else { "ptxas" };
    let mut out = Vec::new();
    if let Some(p) = explicit {
        out.push(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("PTXPERF_PTXAS") {
        out.push(PathBuf::from(p));
    }
    if let Some(nvrtc) = std::env::var_os("PTXPERF_NVRTC") {
        out.extend(beside_nvrtc(Path::new(&nvrtc), exe));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        out.push(PathBuf::from(home).join("bin").join(exe));
    }
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.push(cwd);
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        roots.push(dir);
    }
    for root in roots {
        for dir in root.ancestors() {
            out.extend(venv_ptxas(dir, exe));
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        out.extend(std::env::split_paths(&path).map(|d| d.join(exe)));
    }
    out
}

/// Where ptxas sits relative to an NVRTC library: the PyPI wheels install
/// `nvidia/cuda_nvrtc/lib/libnvrtc.so.12` beside `nvidia/cuda_nvcc/bin/ptxas`,
/// a toolkit `lib64/libnvrtc.so` beside `bin/ptxas`. A user who points
/// `PTXPERF_NVRTC` at either expects the ptxas of the same install.
pub(crate) fn beside_nvrtc(nvrtc: &Path, exe: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // The library's folder, then up to three levels above it: enough for
    // `nvidia/cuda_nvrtc/lib/` and `<toolkit>/targets/x86_64-linux/lib/`.
    for dir in nvrtc.ancestors().skip(1).take(4) {
        out.push(dir.join("cuda_nvcc").join("bin").join(exe));
        out.push(dir.join("bin").join(exe));
    }
    out
}

/// `dir/.venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas`, sorted.
fn venv_ptxas(dir: &Path, exe: &str) -> Vec<PathBuf> {
    let lib = dir.join(".venv").join("lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| {
            e.path()
                .join("site-packages/nvidia/cuda_nvcc/bin")
                .join(exe)
        })
        .collect();
    found.sort();
    found
}

/// The first ptxas found (see the module doc for the order).
pub fn find_ptxas(explicit: Option<&Path>) -> Result<PathBuf, ArchError> {
    let all = candidates(explicit);
    if let Some(p) = all.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let mut searched: Vec<String> = all
        .iter()
        .take(6)
        .map(|p| p.display().to_string())
        .collect();
    if all.len() > 6 {
        searched.push(format!("... {} more", all.len() - 6));
    }
    Err(ArchError::PtxasNotFound {
        searched: if searched.is_empty() {
            "nowhere".to_string()
        } else {
            searched.join(", ")
        },
    })
}

/// The (major, minor) release `ptxas --version` states ("Cuda compilation
/// tools, release 12.9, V12.9.86"); `None` when it cannot be run or says
/// no release.
pub fn ptxas_release(ptxas: &Path) -> Option<(u32, u32)> {
    let out = Command::new(ptxas).arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    parse_release(&String::from_utf8_lossy(&out.stdout))
}

/// [`ptxas_release`] of the ptxas [`find_ptxas`] finds without an explicit
/// path, asked once per process.
pub fn found_ptxas_release() -> Option<(u32, u32)> {
    static RELEASE: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    *RELEASE.get_or_init(|| ptxas_release(&find_ptxas(None).ok()?))
}

/// The "release M.m" of a `--version` text.
pub fn parse_release(text: &str) -> Option<(u32, u32)> {
    let rest = &text[text.find("release ")? + "release ".len()..];
    let version = rest.split([',', ' ', '\n']).next()?;
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Run `ptxas -v --gpu-name <sm> ` on `ptx` (a PTX text) and return the
/// resources of every entry, in the order ptxas reports them.
pub fn run_ptxas(ptxas: &Path, ptx: &str, sm: &str) -> Result<Vec<KernelResources>, ArchError> {
    let stem = format!(
        "ptxperf-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let dir = std::env::temp_dir();
    let input = dir.join(format!("{stem}.ptx"));
    let output = dir.join(format!("{stem}.cubin"));
    let fail = |message: String| ArchError::Ptxas { message };
    std::fs::write(&input, ptx)
        .map_err(|e| fail(format!("cannot write {}: {e}", input.display())))?;
    let result = Command::new(ptxas)
        .arg("-v")
        .arg("--gpu-name")
        .arg(sm)
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output();
    // The cubin holds each entry's SASS: its size is the code the
    // instruction caches hold. Read before the file goes.
    let cubin = std::fs::read(&output).ok();
    // Best effort: a leftover temp file is harmless.
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let out = result.map_err(|e| fail(format!("cannot run {}: {e}", ptxas.display())))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let text = stderr.trim();
        let text = text.replace(&input.display().to_string(), "<ptx>");
        return Err(fail(format!("{} ({})", text, out.status)));
    }
    let mut kernels = parse_verbose(&format!("{stdout}\n{stderr}"))?;
    if let Some(cubin) = cubin {
        for k in &mut kernels {
            k.code_bytes = crate::cubin::code_bytes(&cubin, &k.name);
        }
    }
    Ok(kernels)
}

/// Find ptxas and run it: the convenience most callers want.
pub fn ptxas_resources(
    explicit: Option<&Path>,
    ptx: &str,
    sm: &str,
) -> Result<Vec<KernelResources>, ArchError> {
    let ptxas = find_ptxas(explicit)?;
    run_ptxas(&ptxas, ptx, sm)
}

/// Why [`select_entry`] found no single entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// No name given and ptxas reported several entries (their names).
    #[error("several entries ({})", .0.join(", "))]
    Several(Vec<String>),
    /// No entry of that name (the names ptxas reported).
    #[error("no entry `{name}` (entries: {})", entries.join(", "))]
    Missing { name: String, entries: Vec<String> },
}

/// The entry called `name` among ptxas's report, or the only one when no
/// name is given.
pub fn select_entry<'a>(
    kernels: &'a [KernelResources],
    name: Option<&str>,
) -> Result<&'a KernelResources, EntryError> {
    let names = || kernels.iter().map(|k| k.name.clone()).collect::<Vec<_>>();
    let found = match name {
        Some(name) => kernels.iter().find(|k| k.name == name),
        None if kernels.len() == 1 => kernels.first(),
        None => return Err(EntryError::Several(names())),
    };
    found.ok_or_else(|| EntryError::Missing {
        name: name.unwrap_or("").to_string(),
        entries: names(),
    })
}

/// The first number in `s` followed by `unit` (e.g. `"12 registers"`).
fn number_before(s: &str, unit: &str) -> Option<u64> {
    let idx = s.find(unit)?;
    let head = s[..idx].trim_end();
    let digits: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == '+')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    // `40+16 bytes smem` (CC 1.x): user shared plus parameter bytes.
    digits
        .split('+')
        .map(|d| d.parse::<u64>().ok())
        .sum::<Option<u64>>()
}

/// Parse the `-v` report of ptxas. Lines of interest:
/// `Compiling entry function 'NAME' for 'sm_80'`, `Function properties for NAME`
/// followed by `N bytes stack frame, N bytes spill stores, N bytes spill loads`,
/// and `Used N registers, [used N barriers, ]N bytes smem, ...`.
pub fn parse_verbose(text: &str) -> Result<Vec<KernelResources>, ArchError> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    let mut properties_for: Option<String> = None;
    let quoted = |line: &str| -> Option<String> {
        let start = line.find('\'')? + 1;
        let len = line[start..].find('\'')?;
        Some(line[start..start + len].to_string())
    };
    for line in text.lines() {
        let body = line.trim_start_matches("ptxas info    :").trim();
        if body.starts_with("Compiling entry function") {
            let name = quoted(body).ok_or_else(|| ArchError::Ptxas {
                message: format!("unreadable ptxas line: {line}"),
            })?;
            kernels.push(KernelResources {
                name,
                ..KernelResources::default()
            });
            properties_for = None;
        } else if let Some(name) = body.strip_prefix("Function properties for ") {
            properties_for = Some(name.trim().to_string());
        } else if body.contains("bytes stack frame") {
            let target = properties_for.take();
            if let Some(k) = kernels
                .iter_mut()
                .rev()
                .find(|k| Some(&k.name) == target.as_ref())
            {
                k.stack_frame_bytes = number_before(body, "bytes stack frame").unwrap_or(0);
                k.spill_store_bytes = number_before(body, "bytes spill stores").unwrap_or(0);
                k.spill_load_bytes = number_before(body, "bytes spill loads").unwrap_or(0);
            }
        } else if body.starts_with("Used ") {
            let Some(k) = kernels.last_mut() else {
                continue;
            };
            k.registers = number_before(body, " registers")
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| ArchError::Ptxas {
                    message: format!("no register count in: {line}"),
                })?;
            k.shared_bytes = number_before(body, " bytes smem").unwrap_or(0);
            k.local_bytes = number_before(body, " bytes lmem").unwrap_or(0);
            k.barriers = number_before(body, " barriers")
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0);
        }
    }
    Ok(kernels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[(&str, u32, u64, u64, u32)]) {
        let got = parse_verbose(text).unwrap_or_default();
        let got: Vec<_> = got
            .iter()
            .map(|k| {
                (
                    k.name.as_str(),
                    k.registers,
                    k.shared_bytes,
                    k.stack_frame_bytes,
                    k.barriers,
                )
            })
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn parses_cuda12_report() {
        check(
            "ptxas info    : 0 bytes gmem\n\
             ptxas info    : Compiling entry function '_Z3addPf' for 'sm_80'\n\
             ptxas info    : Function properties for _Z3addPf\n    \
             16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
             ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]\n",
            &[("_Z3addPf", 12, 4096, 16, 1)],
        );
    }

    #[test]
    fn parses_two_kernels_and_cc1_smem() {
        check(
            "ptxas info    : Compiling entry function 'a' for 'sm_13'\n\
             ptxas info    : Used 10 registers, 40+16 bytes smem, 4 bytes cmem[1]\n\
             ptxas info    : Compiling entry function 'b' for 'sm_13'\n\
             ptxas info    : Used 3 registers, 28 bytes smem\n",
            &[("a", 10, 56, 0, 0), ("b", 3, 28, 0, 0)],
        );
    }

    #[test]
    fn release_of_a_version_text() {
        let v129 = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCopyright (c) 2005-2025 NVIDIA Corporation\nBuilt on Wed_Apr__9_19:24:57_PDT_2025\nCuda compilation tools, release 12.9, V12.9.86\nBuild cuda_12.9.r12.9/compiler.36037853_0\n";
        assert_eq!(parse_release(v129), Some((12, 9)));
        assert_eq!(
            parse_release("Cuda compilation tools, release 13.0, V13.0.88"),
            Some((13, 0))
        );
        assert_eq!(parse_release("release 11.8"), Some((11, 8)));
        assert_eq!(parse_release("no version here"), None);
        assert_eq!(parse_release("release twelve, V12"), None);
        assert_eq!(parse_release("release 12"), None);
    }

    /// Lays out `files` (empty) under a fresh temporary folder and returns
    /// the first of `beside_nvrtc(nvrtc)` that exists, relative to it.
    fn found_beside(files: &[&str], nvrtc: &str) -> Option<String> {
        let root = std::env::temp_dir().join(format!(
            "ptxperf-beside-nvrtc-{}-{}",
            std::process::id(),
            files.len() * 100 + nvrtc.len()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for f in files {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap_or(&root))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&path, b"").unwrap_or_else(|e| panic!("{e}"));
        }
        let found = beside_nvrtc(&root.join(nvrtc), "ptxas")
            .into_iter()
            .find(|p| p.is_file())
            .and_then(|p| p.strip_prefix(&root).ok().map(|r| r.display().to_string()));
        let _ = std::fs::remove_dir_all(&root);
        found
    }

    #[test]
    fn ptxas_is_found_beside_the_nvrtc_named() {
        let wheel = "site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
        let wheel_ptxas = "site-packages/nvidia/cuda_nvcc/bin/ptxas";
        assert_eq!(
            found_beside(&[wheel, wheel_ptxas], wheel).as_deref(),
            Some(wheel_ptxas)
        );
        let toolkit = "cuda-12.9/lib64/libnvrtc.so";
        assert_eq!(
            found_beside(&[toolkit, "cuda-12.9/bin/ptxas"], toolkit).as_deref(),
            Some("cuda-12.9/bin/ptxas")
        );
        // An NVRTC wheel installed without the nvcc wheel: nothing beside it.
        assert_eq!(found_beside(&[wheel], wheel), None);
    }

    #[test]
    fn empty_report_has_no_kernels() {
        check("ptxas info    : 0 bytes gmem\n", &[]);
    }

    #[test]
    fn number_before_cases() {
        assert_eq!(number_before("Used 12 registers", " registers"), Some(12));
        assert_eq!(number_before("40+16 bytes smem", " bytes smem"), Some(56));
        assert_eq!(number_before("bytes smem", " bytes smem"), None);
    }

    #[test]
    fn entries_are_selected_by_name_or_uniqueness() {
        let k = |n: &str| KernelResources {
            name: n.into(),
            ..KernelResources::default()
        };
        let one = [k("a")];
        let two = [k("a"), k("b")];
        assert_eq!(select_entry(&one, None).map(|e| e.name.as_str()), Ok("a"));
        assert_eq!(
            select_entry(&two, Some("b")).map(|e| e.name.as_str()),
            Ok("b")
        );
        assert_eq!(
            select_entry(&two, None),
            Err(EntryError::Several(vec!["a".into(), "b".into()]))
        );
        assert_eq!(
            select_entry(&two, Some("c")).map_err(|e| e.to_string()),
            Err("no entry `c` (entries: a, b)".to_string())
        );
    }
}
