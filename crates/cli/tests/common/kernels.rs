//! Kernels of a test's own, run on the emulator: a folder with the source
//! and a launch spec, `ptxperf run --dump`, and the buffers it wrote.
#![allow(dead_code)] // each test binary compiles this module; not all use it

use std::path::{Path, PathBuf};

use super::ptxperf_in;

/// A fresh folder holding `files` (name, text).
pub fn folder(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-kernel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    dir
}

/// The f32 (or i32, as `read` says) values of a buffer `run --dump` wrote.
pub fn dumped<T>(dir: &Path, name: &str, read: fn([u8; 4]) -> T) -> Vec<T> {
    let path = dir.join("out").join(format!("{name}.bin"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(4)
        .map(|c| read([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `ptxperf run spec.toml --dump out` in `dir`; its combined output, after
/// checking the exit status is 0.
pub fn run_ok(dir: &Path) -> String {
    let out = ptxperf_in(dir, &["run", "spec.toml", "--dump", "out"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "run failed:\n{text}");
    text
}

/// `source` as k.cu and `spec` as spec.toml in a fresh folder named after
/// `tag`, run there ([`run_ok`]): the folder and the run's output.
pub fn run_kernel(tag: &str, source: &str, spec: &str) -> (PathBuf, String) {
    let dir = folder(tag, &[("k.cu", source), ("spec.toml", spec)]);
    let text = run_ok(&dir);
    (dir, text)
}

/// A launch spec of `k.cu`: the `head` keys (kernel, arch, defines, grid,
/// block) and one `[[arg]]` per `(name, type, keys)`, where `keys` are its
/// other keys (`len = 64; init = "iota"`, `value = 3`); `; ` separates keys.
pub fn spec(head: &str, args: &[(&str, &str, &str)]) -> String {
    let mut text = format!("source = \"k.cu\"\n{}\n", head.replace("; ", "\n"));
    for (name, ty, keys) in args {
        text.push_str(&format!(
            "\n[[arg]]\nname = \"{name}\"\ntype = \"{ty}\"\n{}\n",
            keys.replace("; ", "\n")
        ));
    }
    text
}

/// `source` as k.cu and `spec` as spec.toml in a fresh folder named after
/// `tag`, where `ptxperf run spec.toml` must fail with exit status 1: its
/// standard error.
pub fn run_refused(tag: &str, source: &str, spec: &str) -> String {
    let dir = folder(tag, &[("k.cu", source), ("spec.toml", spec)]);
    let out = ptxperf_in(&dir, &["run", "spec.toml"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    err
}
