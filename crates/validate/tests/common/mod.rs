//! Helpers shared by the tests that run the repository's Python scripts.

use std::process::Command;

/// Whether `python3` runs here. Without it a script test is skipped with a
/// message, except under CI (env `CI` set), where that is a failure.
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
