//! `scripts/schoonhoven-profiles.sh` checks its settings before it builds or
//! emulates anything: SCHOON_SAMPLE is a positive number or `all` (every
//! configuration of the files, counted from the GTX 1080 Ti's file), and
//! SCHOON_STEP a positive number; anything else, or `all` without the data
//! files, stops it with exit status 1 and a message naming the setting.
//! A whole run needs NVRTC and hours, so only these paths are tested.

use std::path::Path;
use std::process::{Command, Output};

fn run(env: &[(&str, &str)]) -> Output {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/schoonhoven-profiles.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(script);
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run bash: {e}"),
    }
}

/// Runs the script with `env`, expects exit status 1, nothing on stdout and
/// `want` in the message.
fn check(env: &[(&str, &str)], want: &str) {
    let out = run(env);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{env:?}: stderr {err}");
    assert!(out.stdout.is_empty(), "{env:?}: stdout {:?}", out.stdout);
    assert!(err.contains(want), "{env:?}: want {want:?} in {err}");
    assert!(
        !err.contains("Traceback"),
        "{env:?}: a Python traceback: {err}"
    );
}

#[test]
fn a_sample_that_is_not_a_number_or_all_is_refused() {
    check(&[("SCHOON_SAMPLE", "abc")], "not 'abc'");
    check(&[("SCHOON_SAMPLE", "-5")], "not '-5'");
    check(&[("SCHOON_SAMPLE", "0")], "not '0'");
}

#[test]
fn a_step_that_is_not_a_positive_number_is_refused() {
    check(
        &[("SCHOON_SAMPLE", "1000"), ("SCHOON_STEP", "0")],
        "SCHOON_STEP",
    );
    check(
        &[("SCHOON_SAMPLE", "1000"), ("SCHOON_STEP", "x")],
        "not 'x'",
    );
}

#[test]
fn all_without_the_data_files_is_refused() {
    let empty = std::env::temp_dir().join(format!("ptxperf-schoon-script-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&empty) {
        panic!("{}: {e}", empty.display());
    }
    let gt = empty.to_string_lossy().into_owned();
    check(
        &[("SCHOON_SAMPLE", "all"), ("GROUNDTRUTH", &gt)],
        "cannot read",
    );
    let _ = std::fs::remove_dir_all(&empty);
}
