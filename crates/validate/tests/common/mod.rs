//! Helpers shared by the tests that run the repository's Python scripts or
//! read the shared ground-truth folder.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `python3` runs here. Without it a script test is skipped with a
/// message, except under CI (env `CI` set), where that is a failure.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn python_runs() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set and python3 is missing"
        );
        eprintln!("skipped: python3 is not available on this machine");
    }
    ok
}

/// The shared ground-truth folder beside the repository, with the
/// benchmark_hub kernel sources in it, or `None` (after saying why) on a
/// user's machine without it; under CI its absence is a failure.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn shared_groundtruth() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/groundtruth");
    if dir.join("kernels/benchmark_hub").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set and {} is missing",
        dir.display()
    );
    eprintln!("skipped: {} is missing", dir.display());
    None
}
