//! Helpers shared by the kernel tests: load a corpus kernel (its spec and
//! checked-in sm_80 PTX), run it, read buffers back.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use emu::exec::{LaunchOptions, LaunchResult, RunError, run_ptx};
use emu::observer::NoObserver;
use emu::simt::stack::Policy;
use emu::spec::{LaunchSpec, parse};

pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

/// The corpus kernel's spec, with `--set` style overrides.
pub fn spec(name: &str, sets: &[(&str, &str)]) -> LaunchSpec {
    let path = kernels_dir().join(name).join("spec.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    parse(&text, &path, &sets).unwrap_or_else(|e| panic!("{e}"))
}

pub fn ptx(name: &str) -> (String, String) {
    let path = kernels_dir().join(name).join("sm_80.ptx");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text, format!("kernels/{name}/sm_80.ptx"))
}

pub fn run_with(
    name: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
) -> Result<LaunchResult, RunError> {
    let (text, file) = ptx(name);
    run_ptx(&text, &file, spec, opts, &mut NoObserver)
}

/// Run PTX text (named `k.ptx`) with the launch spec `spec_text` (named
/// `/k.toml`); a bad spec or a fault comes back as its message.
pub fn run_text(ptx: &str, spec_text: &str) -> Result<LaunchResult, String> {
    let spec = parse(spec_text, Path::new("/k.toml"), &[]).map_err(|e| e.to_string())?;
    run_ptx(
        ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .map_err(|e| e.to_string())
}

pub fn run(name: &str, sets: &[(&str, &str)]) -> LaunchResult {
    let s = spec(name, sets);
    run_with(name, &s, LaunchOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn run_policy(name: &str, sets: &[(&str, &str)], policy: Policy) -> LaunchResult {
    let s = spec(name, sets);
    run_with(
        name,
        &s,
        LaunchOptions {
            policy,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn i32s(bytes: &[u8]) -> Vec<i32> {
    u32s(bytes).into_iter().map(|v| v as i32).collect()
}

pub fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

pub fn buffer<'a>(r: &'a LaunchResult, name: &str) -> &'a [u8] {
    &r.buffers
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no buffer {name}"))
        .bytes
}

/// Relative-or-absolute float closeness.
pub fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}
