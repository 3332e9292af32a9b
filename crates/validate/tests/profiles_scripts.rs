//! The scripts that emulate the report's profile archives check their
//! settings before they build or emulate anything; a bad setting stops them
//! with exit status 1 and a message naming it. A whole run needs NVRTC and
//! minutes to hours, so only these paths are tested.
//!
//! - `scripts/schoonhoven-profiles.sh`: SCHOON_SAMPLE is a positive number
//!   or `all` (every configuration of the files, counted from the GTX 1080
//!   Ti's file), SCHOON_STEP a positive number; `all` without the data files
//!   is refused too.
//! - `scripts/h100-profiles.sh`: H100_SAMPLE is `all` or a positive number,
//!   SEED a number, CTAS and JOBS positive numbers.
//! - `scripts/dedisp-profiles.sh`: the same for DEDISP_SAMPLE, SEED, CTAS
//!   and JOBS; BUDGET is `none` or a positive number; a DIR to go on from
//!   must hold profiles of the same settings (two emulations in one archive
//!   are refused), and one that does goes on to the build.
//! - `scripts/validation-report.sh` with SAVE_PROFILES (it packs
//!   `profiles.tar.xz`, the learned model's samples): every archive whose
//!   sampled rows it would rescore instead of emulating must be `none`.

use std::path::Path;
use std::process::{Command, Output};

fn run(script: &str, env: &[(&str, &str)]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(script);
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

/// Runs `script` with `env`, expects exit status 1, nothing on stdout,
/// `want` in the message, no Python traceback and no build (cargo would
/// have printed "Compiling").
fn check_script(script: &str, env: &[(&str, &str)], want: &str) {
    let out = run(script, env);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{script} {env:?}: stderr {err}");
    assert!(
        out.stdout.is_empty(),
        "{script} {env:?}: stdout {:?}",
        out.stdout
    );
    assert!(
        err.contains(want),
        "{script} {env:?}: want {want:?} in {err}"
    );
    assert!(
        !err.contains("Traceback"),
        "{script} {env:?}: a Python traceback: {err}"
    );
    assert!(
        !err.contains("Compiling"),
        "{script} {env:?}: it built: {err}"
    );
}

fn check(env: &[(&str, &str)], want: &str) {
    check_script("schoonhoven-profiles.sh", env, want);
}

fn check_h100(env: &[(&str, &str)], want: &str) {
    check_script("h100-profiles.sh", env, want);
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

#[test]
fn h100_a_sample_that_is_not_all_or_a_positive_number_is_refused() {
    for bad in ["abc", "-5", "0", "12x", "010"] {
        check_h100(
            &[("H100_SAMPLE", bad)],
            &format!(
                "H100_SAMPLE must be `all` or a positive number of configurations, not '{bad}'"
            ),
        );
    }
}

#[test]
fn h100_seed_ctas_and_jobs_must_be_numbers() {
    check_h100(&[("SEED", "one")], "SEED must be a number, not 'one'");
    check_h100(&[("CTAS", "0")], "CTAS must be a positive number, not '0'");
    check_h100(
        &[("JOBS", "-2")],
        "JOBS must be a positive number, not '-2'",
    );
}

/// With a [`FailingCargo`] first on PATH: a setting that slipped through
/// would stop at the build instead of emulating.
fn check_dedisp(env: &[(&str, &str)], want: &str) {
    let cargo = FailingCargo::new("dedisp");
    let mut env = env.to_vec();
    env.push(("PATH", &cargo.path));
    check_script("dedisp-profiles.sh", &env, want);
}

#[test]
fn dedisp_settings_must_be_all_none_or_positive_numbers() {
    for bad in ["abc", "0", "-1", "07"] {
        check_dedisp(
            &[("DEDISP_SAMPLE", bad)],
            &format!(
                "DEDISP_SAMPLE must be `all` or a positive number of configurations, not '{bad}'"
            ),
        );
    }
    check_dedisp(&[("SEED", "x1")], "SEED must be a number, not 'x1'");
    check_dedisp(&[("CTAS", "0")], "CTAS must be a positive number, not '0'");
    check_dedisp(
        &[("JOBS", "two")],
        "JOBS must be a positive number, not 'two'",
    );
    for bad in ["0", "2e6", "off"] {
        check_dedisp(
            &[("BUDGET", bad)],
            &format!(
                "BUDGET must be `none` or a positive number of warp instructions, not '{bad}'"
            ),
        );
    }
}

/// A `cargo` first on PATH that fails at once with status 3: a script that
/// went past its checks stops at its build instead of emulating for hours.
/// Each one has its own folder (tests run in parallel, and rewriting a
/// script another test is running fails: "text file busy"), removed on drop.
struct FailingCargo {
    dir: std::path::PathBuf,
    /// The PATH to run the script with.
    path: String,
}

impl FailingCargo {
    fn new(tag: &str) -> FailingCargo {
        static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("ptxperf-{tag}-bin-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let cargo = dir.join("cargo");
        std::fs::write(&cargo, "#!/bin/sh\necho 'went on to build' >&2\nexit 3\n")
            .expect("fake cargo");
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        let path = format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        FailingCargo { dir, path }
    }
}

impl Drop for FailingCargo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn dedisp_goes_on_only_from_a_folder_of_the_same_settings() {
    let dir = std::env::temp_dir().join("ptxperf-dedisp-resume");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let budgeted = "settings: DEDISP_SAMPLE=2000 SEED=1 CTAS=4 BUDGET=2000000\n";
    std::fs::write(dir.join("settings.txt"), budgeted).expect("settings");
    let folder = dir.to_string_lossy().into_owned();
    let cargo = FailingCargo::new("dedisp-resume");
    check_dedisp(
        &[("DIR", &folder)],
        "holds profiles of \"settings: DEDISP_SAMPLE=2000 SEED=1 CTAS=4 BUDGET=2000000\", \
         not \"settings: DEDISP_SAMPLE=2000 SEED=1 CTAS=4 BUDGET=none\"",
    );
    // The same settings pass the check and reach the build.
    let out = run(
        "dedisp-profiles.sh",
        &[
            ("DIR", &folder),
            ("PATH", &cargo.path),
            ("BUDGET", "2000000"),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("went on to build"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn saving_profiles_refuses_to_leave_archived_rows_out() {
    let dir = std::env::temp_dir().join("ptxperf-save-refused");
    let dir = dir.to_string_lossy().into_owned();
    let cargo = FailingCargo::new("save-refused");
    let path = cargo.path.clone();
    let all = [
        "KTCONV_PROFILES",
        "DEDISP_PROFILES",
        "SCHOON_PROFILES",
        "H100_PROFILES",
    ];
    // Each archive left in use is named; the defaults name all four.
    for kept in all {
        let mut env: Vec<(&str, &str)> = all
            .iter()
            .filter(|s| **s != kept)
            .map(|s| (*s, "none"))
            .collect();
        env.push(("SAVE_PROFILES", &dir));
        env.push(("PATH", &path));
        check_script(
            "validation-report.sh",
            &env,
            &format!("{kept} would be rescored from their archives"),
        );
    }
    check_script(
        "validation-report.sh",
        &[("SAVE_PROFILES", &dir), ("PATH", &path)],
        "KTCONV_PROFILES DEDISP_PROFILES SCHOON_PROFILES H100_PROFILES would be rescored",
    );
    assert!(!Path::new(&dir).exists(), "a refused run created {dir}");
}
