//! Registers per thread, the occupancy's main input (issue 27, point 8):
//! ptxas is found beside the NVRTC that `PTXPERF_NVRTC` names, and without
//! ptxas `predict` refuses where the PTX estimate's error would change the
//! occupancy, and says so, unless `--register-estimate` accepts it.
//!
//! The binary is copied into a fresh folder and run with a bare environment,
//! so it cannot find the repository's `.venv` (searched above the current
//! folder and above the executable): only what each test puts there counts.

#![cfg(target_os = "linux")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh folder holding a copy of the binary in `bin/`.
fn sandbox(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-registers-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).expect("sandbox");
    std::fs::copy(env!("CARGO_BIN_EXE_ptxperf"), dir.join("bin/ptxperf")).expect("binary copied");
    dir
}

/// A launch spec of corpus kernel `kernel` that reads its checked-in
/// sm_80 PTX, so no NVRTC is needed.
fn ptx_spec(dir: &Path, kernel: &str) -> PathBuf {
    let folder = repo().join("kernels").join(kernel);
    let text = std::fs::read_to_string(folder.join("spec.toml")).expect("corpus spec");
    let source = format!("source = \"{}\"", folder.join("sm_80.ptx").display());
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("source = ") {
                source.as_str()
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = dir.join(format!("{kernel}.toml"));
    std::fs::write(&path, text).expect("spec written");
    path
}

/// `bin/ptxperf ARGS` in `dir` with only PATH=/usr/bin:/bin, HOME=`dir` and
/// `env`: (exit code, stdout, stderr).
fn run(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(dir.join("bin/ptxperf"));
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // A binary copied a moment ago can be "busy" (ETXTBSY) while a child
    // forked by another test thread still holds the copy's descriptor
    // between its fork and exec: try again shortly.
    let mut tries = 0;
    let out = loop {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.expect("ptxperf runs"),
        }
    };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn ptxas_is_found_beside_the_nvrtc_that_ptxperf_nvrtc_names() {
    if !common::ptxas_available() {
        return;
    }
    let real = arch::ptxas::find_ptxas(None).expect("ptxas");
    let dir = sandbox("beside");
    // The PyPI wheels' layout: nvidia/cuda_nvrtc/lib/ beside nvidia/cuda_nvcc/bin/.
    let lib = dir.join("nvidia/cuda_nvrtc/lib");
    let bin = dir.join("nvidia/cuda_nvcc/bin");
    std::fs::create_dir_all(&lib).expect("lib folder");
    std::fs::create_dir_all(&bin).expect("bin folder");
    let nvrtc = lib.join("libnvrtc.so.12");
    std::fs::write(&nvrtc, b"").expect("library placeholder");
    // A ptxas that leaves a mark, then runs the real one.
    let mark = dir.join("ptxas-ran");
    let wrapper = bin.join("ptxas");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n",
            mark.display(),
            real.display()
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let spec = ptx_spec(&dir, "matmul_tiled");
    let spec = spec.to_str().expect("utf-8");
    let (code, out, err) = run(
        &dir,
        &[("PTXPERF_NVRTC", &nvrtc)],
        &[
            "predict",
            spec,
            "--gpu",
            "a100-sxm4-80gb",
            "--model",
            "timing",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("registers/thread (from ptxas, sm_"), "{out}");
    assert!(mark.is_file(), "the ptxas beside PTXPERF_NVRTC did not run");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_ptxas_predict_refuses_an_estimate_that_decides_the_occupancy() {
    let dir = sandbox("none");
    let gpu = ["--gpu", "a100-sxm4-80gb", "--model", "timing"];

    // matmul_tiled: 256 threads a block; the estimate (23) +-90 % spans
    // 5 to 8 blocks per SM on the A100, so the count cannot be guessed.
    let tiled = ptx_spec(&dir, "matmul_tiled");
    let tiled = tiled.to_str().expect("utf-8");
    let (code, out, err) = run(&dir, &[], &[&["predict", tiled][..], &gpu].concat());
    assert_eq!(
        code, 1,
        "refused with status 1; stdout:\n{out}\nstderr:\n{err}"
    );
    for needle in [
        "error: the occupancy on a100-sxm4-80gb depends on registers per thread",
        "blocks per SM",
        "bash scripts/setup.sh",
        "PTXPERF_PTXAS",
        "--register-estimate",
    ] {
        assert!(err.contains(needle), "lacks {needle:?}:\n{err}");
    }
    let (code, out, err) = run(
        &dir,
        &[],
        &[&["predict", tiled, "--register-estimate"][..], &gpu].concat(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("registers/thread (estimated from the PTX, ±90 %"),
        "{out}"
    );

    // map: the warps limit its occupancy at any count in the band, so the
    // estimate is used and labelled as such.
    let map = ptx_spec(&dir, "map");
    let map = map.to_str().expect("utf-8");
    let (code, out, err) = run(&dir, &[], &[&["predict", map][..], &gpu].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("limited by warps"), "{out}");
    assert!(
        out.contains("registers/thread (estimated from the PTX, ±90 %"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
