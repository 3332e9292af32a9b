//! The checked-in PTX of the corpus (kernels/*/sm_XX.ptx) must be exactly what
//! NVRTC makes of the sources today, as `bash scripts/regen-corpus.sh` would:
//! same program name (the path from the repository root), the spec's defines,
//! -lineinfo, and `.file` paths relative to the repository root.

mod common;

use std::path::{Path, PathBuf};

use common::{compiler_or_skip, repo_root};
use nvrtc::{CompileOptions, Compiler};

const ARCHS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];

/// `source` and `defines` of a launch spec. The corpus writes `defines` as a
/// one-line inline table of integers (checked by `spec_fields_are_simple`), so
/// a line-based reader suffices here without a TOML dependency.
fn spec_fields(spec: &str) -> Option<(String, Vec<(String, String)>)> {
    let mut source = None;
    let mut defines = Vec::new();
    for line in spec.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key.trim() {
            "source" => source = Some(value.trim().trim_matches('"').to_string()),
            "defines" => {
                let inner = value.trim().strip_prefix('{')?.strip_suffix('}')?;
                for item in inner.split(',').filter(|s| !s.trim().is_empty()) {
                    let (n, v) = item.split_once('=')?;
                    defines.push((n.trim().to_string(), v.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    Some((source?, defines))
}

fn corpus_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("kernels"))
        .expect("kernels/ exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("spec.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Recompile one kernel for one arch; `Err` describes the mismatch.
fn recompile(c: &Compiler, root: &Path, dir: &Path, arch: &str) -> Result<(), String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("bad dir name")?;
    let spec = std::fs::read_to_string(dir.join("spec.toml")).map_err(|e| e.to_string())?;
    let (source, defines) =
        spec_fields(&spec).ok_or(format!("{name}: spec.toml not understood"))?;
    let text = std::fs::read_to_string(dir.join(&source)).map_err(|e| e.to_string())?;
    let program = format!("kernels/{name}/{source}");
    let opts = CompileOptions {
        arch: Some(arch.to_string()),
        defines: defines.into_iter().map(|(n, v)| (n, Some(v))).collect(),
        path_base: Some(root.to_path_buf()),
        ..CompileOptions::default()
    };
    let out = c
        .compile(&text, &program, &opts)
        .map_err(|e| format!("{program} ({arch}): {e}"))?;
    let checked_in = std::fs::read_to_string(dir.join(format!("{arch}.ptx")))
        .map_err(|e| format!("{name}/{arch}.ptx: {e}"))?;
    if out.ptx != checked_in {
        let line = out
            .ptx
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b)
            .map_or(0, |i| i + 1);
        return Err(format!(
            "kernels/{name}/{arch}.ptx differs from NVRTC's output (first at line {line}); run bash scripts/regen-corpus.sh"
        ));
    }
    Ok(())
}

#[test]
fn spec_fields_are_simple() {
    let root = repo_root();
    for dir in corpus_dirs(&root) {
        let spec = std::fs::read_to_string(dir.join("spec.toml")).expect("spec");
        let (source, defines) =
            spec_fields(&spec).unwrap_or_else(|| panic!("{}: spec not understood", dir.display()));
        assert!(
            dir.join(&source).is_file(),
            "{}: source {source} missing",
            dir.display()
        );
        for (n, v) in defines {
            assert!(
                v.parse::<i64>().is_ok(),
                "{}: define {n} = {v} is not an integer",
                dir.display()
            );
        }
    }
}

#[test]
fn corpus_has_at_least_28_kernels_with_ptx_for_three_archs() {
    let root = repo_root();
    let dirs = corpus_dirs(&root);
    assert!(dirs.len() >= 28, "only {} kernels", dirs.len());
    for dir in &dirs {
        for arch in ARCHS {
            assert!(
                dir.join(format!("{arch}.ptx")).is_file(),
                "{}: {arch}.ptx missing",
                dir.display()
            );
        }
    }
}

#[test]
fn checked_in_ptx_matches_nvrtc() {
    let Some(c) = compiler_or_skip() else { return };
    let root = repo_root();
    let dirs = corpus_dirs(&root);
    let jobs: Vec<(&PathBuf, &str)> = dirs
        .iter()
        .flat_map(|d| ARCHS.iter().map(move |a| (d, *a)))
        .collect();
    // Two workers: NVRTC is thread safe for separate programs.
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(jobs.len().div_ceil(2).max(1))
            .map(|chunk| {
                s.spawn(|| {
                    chunk
                        .iter()
                        .filter_map(|(d, a)| recompile(&c, &root, d, a).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|_| vec!["worker panicked".into()]))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} PTX files drifted:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}
