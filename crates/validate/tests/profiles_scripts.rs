//! The scripts that emulate the report's profile archives check their
//! settings before they build or emulate anything; a bad setting stops them
//! with exit status 1 and a message naming it. A whole run needs NVRTC and
//! minutes to hours, so only these paths are tested, each with a
//! [`FailingCargo`] first on PATH so that a setting that slipped through
//! stops at the build. The checks are shared (`scripts/lib/settings.sh`),
//! and a setting is read as `${NAME-default}`: only an unset one takes its
//! default, an empty one (`CTAS=`) is refused like any other bad value.
//!
//! - `scripts/schoonhoven-profiles.sh`: SCHOON_SAMPLE is a positive number
//!   or `all` (every configuration of the files, counted from the GTX 1080
//!   Ti's file), SCHOON_STEP a positive number, SEED a number, CTAS and JOBS
//!   positive numbers; `all` without the data files is refused too.
//! - `scripts/h100-profiles.sh`: H100_SAMPLE is `all` or a positive number,
//!   SEED a number, CTAS and JOBS positive numbers.
//! - `scripts/dedisp-profiles.sh`: the same for DEDISP_SAMPLE, SEED, CTAS
//!   and JOBS; BUDGET is `none` or a positive number; a DIR to go on from
//!   must hold profiles of the same settings (two emulations in one archive
//!   are refused), and one that does goes on to the build.
//! - `scripts/gemm-profiles.sh`: GEMM_SAMPLE and GEMM_LAPTOP_SAMPLE are
//!   positive numbers (validate's --sample has no `all`), SEED a number,
//!   CTAS and JOBS positive numbers.
//! - `scripts/pnpoly-profiles.sh`: PNPOLY_SAMPLE is `all` or a positive
//!   number, SEED a number, CTAS and JOBS positive numbers.
//! - `scripts/kt-convolution-profiles.sh`: KTCONV_GPUS is not empty or
//!   blank, each of its runs names a GPU and each GPU has a convolution data
//!   file; KTCONV_PTX_ARCH is empty or an architecture (`sm_75`); CTAS and
//!   JOBS are positive numbers.
//! - Every one of those six goes on to the build with good settings, its
//!   defaults among them.
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
    assert_refused(script, env, &run(script, env), want);
}

/// What [`check_script`] expects of a finished run `out`.
fn assert_refused(script: &str, env: &[(&str, &str)], out: &Output, want: &str) {
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

/// [`check_script`] with a [`FailingCargo`] first on PATH: a setting that
/// slipped through would stop at the build instead of emulating.
fn check_stubbed(script: &str, env: &[(&str, &str)], want: &str) {
    assert_refused(script, env, &run_stubbed(script, env), want);
}

/// Runs `script` with `env` and a [`FailingCargo`] first on PATH.
fn run_stubbed(script: &str, env: &[(&str, &str)]) -> Output {
    let cargo = FailingCargo::new(script.trim_end_matches(".sh"));
    let mut env = env.to_vec();
    env.push(("PATH", &cargo.path));
    run(script, &env)
}

fn check(env: &[(&str, &str)], want: &str) {
    check_stubbed("schoonhoven-profiles.sh", env, want);
}

fn check_h100(env: &[(&str, &str)], want: &str) {
    check_stubbed("h100-profiles.sh", env, want);
}

fn check_dedisp(env: &[(&str, &str)], want: &str) {
    check_stubbed("dedisp-profiles.sh", env, want);
}

/// Runs `script` with `env` and a [`FailingCargo`] first on PATH and
/// expects it to pass its checks: it stops at the build with the stub's
/// status 3.
fn goes_on_to_the_build(script: &str, env: &[(&str, &str)]) {
    let out = run_stubbed(script, env);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{script} {env:?}: stderr {err}");
    assert!(
        err.contains("went on to build"),
        "{script} {env:?}: stderr {err}"
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

const POSITIVE: &str = "be a positive number";
const NUMBER: &str = "be a number";
const ALL_OR_POSITIVE: &str = "be `all` or a positive number of configurations";

/// Every setting of each script and what its message says it must be.
const SETTINGS: &[(&str, &[(&str, &str)])] = &[
    (
        "schoonhoven-profiles",
        &[
            ("SCHOON_SAMPLE", ALL_OR_POSITIVE),
            ("SCHOON_STEP", POSITIVE),
            ("SEED", NUMBER),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
        ],
    ),
    (
        "h100-profiles",
        &[
            ("H100_SAMPLE", ALL_OR_POSITIVE),
            ("SEED", NUMBER),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
        ],
    ),
    (
        "dedisp-profiles",
        &[
            ("DEDISP_SAMPLE", ALL_OR_POSITIVE),
            ("SEED", NUMBER),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
            (
                "BUDGET",
                "be `none` or a positive number of warp instructions",
            ),
        ],
    ),
    (
        "gemm-profiles",
        &[
            ("GEMM_SAMPLE", POSITIVE),
            ("GEMM_LAPTOP_SAMPLE", POSITIVE),
            ("SEED", NUMBER),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
        ],
    ),
    (
        "pnpoly-profiles",
        &[
            ("PNPOLY_SAMPLE", ALL_OR_POSITIVE),
            ("SEED", NUMBER),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
        ],
    ),
    (
        "kt-convolution-profiles",
        &[
            ("KTCONV_GPUS", "not be empty or blank"),
            ("CTAS", POSITIVE),
            ("JOBS", POSITIVE),
        ],
    ),
];

#[test]
fn an_empty_setting_is_refused_not_taken_for_its_default() {
    for (script, settings) in SETTINGS {
        for (name, what) in *settings {
            check_stubbed(
                &format!("{script}.sh"),
                &[(name, "")],
                &format!("{script}: {name} must {what}, not ''"),
            );
        }
    }
}

#[test]
fn gemm_samples_must_be_positive_numbers() {
    // validate's --sample takes a number only: no `all` here.
    for bad in ["all", "0", "-3", "2k", "010", " 5"] {
        check_stubbed(
            "gemm-profiles.sh",
            &[("GEMM_SAMPLE", bad)],
            &format!("gemm-profiles: GEMM_SAMPLE must be a positive number, not '{bad}'"),
        );
    }
    for bad in ["all", "0", "1e3"] {
        check_stubbed(
            "gemm-profiles.sh",
            &[("GEMM_LAPTOP_SAMPLE", bad)],
            &format!("gemm-profiles: GEMM_LAPTOP_SAMPLE must be a positive number, not '{bad}'"),
        );
    }
}

#[test]
fn gemm_the_laptop_sample_takes_the_sample_only_when_unset() {
    // GEMM_LAPTOP_SAMPLE takes GEMM_SAMPLE's value when unset: the message
    // names the setting that was given.
    check_stubbed(
        "gemm-profiles.sh",
        &[("GEMM_SAMPLE", "x")],
        "gemm-profiles: GEMM_SAMPLE must be a positive number, not 'x'",
    );
    check_stubbed(
        "gemm-profiles.sh",
        &[("GEMM_SAMPLE", "500"), ("GEMM_LAPTOP_SAMPLE", "")],
        "gemm-profiles: GEMM_LAPTOP_SAMPLE must be a positive number, not ''",
    );
}

#[test]
fn pnpoly_sample_must_be_all_or_a_positive_number() {
    for bad in ["ALL", "0", "-5", "12x", "010"] {
        check_stubbed(
            "pnpoly-profiles.sh",
            &[("PNPOLY_SAMPLE", bad)],
            &format!(
                "pnpoly-profiles: PNPOLY_SAMPLE must be `all` or a positive number of configurations, not '{bad}'"
            ),
        );
    }
}

/// The scripts that gained their checks with scripts/lib/settings.sh, and
/// their message's prefix.
const CHECKED_LATER: [(&str, &str); 3] = [
    ("gemm-profiles.sh", "gemm-profiles"),
    ("pnpoly-profiles.sh", "pnpoly-profiles"),
    ("kt-convolution-profiles.sh", "kt-convolution-profiles"),
];

#[test]
fn seeds_must_be_numbers() {
    // kt-convolution-profiles.sh draws no sample, so it has no seed.
    for (script, prefix) in &CHECKED_LATER[..2] {
        for bad in ["one", "-1", "1.5"] {
            check_stubbed(
                script,
                &[("SEED", bad)],
                &format!("{prefix}: SEED must be a number, not '{bad}'"),
            );
        }
    }
}

#[test]
fn ctas_and_jobs_must_be_positive_numbers() {
    for (script, prefix) in CHECKED_LATER {
        for name in ["CTAS", "JOBS"] {
            for bad in ["0", "-2", "four", "04"] {
                check_stubbed(
                    script,
                    &[(name, bad)],
                    &format!("{prefix}: {name} must be a positive number, not '{bad}'"),
                );
            }
        }
    }
}

#[test]
fn kt_convolution_gpus_must_not_be_blank() {
    for bad in ["", " ", "\t \n"] {
        check_stubbed(
            "kt-convolution-profiles.sh",
            &[("KTCONV_GPUS", bad)],
            &format!(
                "kt-convolution-profiles: KTCONV_GPUS must not be empty or blank, not '{bad}'"
            ),
        );
    }
}

#[test]
fn kt_convolution_every_run_must_name_gpus_with_data_files() {
    check_stubbed(
        "kt-convolution-profiles.sh",
        &[("KTCONV_GPUS", "titan-rtx ,")],
        "kt-convolution-profiles: a run of KTCONV_GPUS names no GPU: ','",
    );
    // Checked before the build, not when the run comes.
    for bad in ["geforce-gtx-1080-ti", "titan-rtx,rtx-a4000"] {
        check_stubbed(
            "kt-convolution-profiles.sh",
            &[("KTCONV_GPUS", bad)],
            "kt-convolution-profiles: no convolution data file for GPU '",
        );
    }
}

#[test]
fn kt_convolution_ptx_arch_must_be_an_architecture_or_empty() {
    for bad in ["75", "sm_", "compute_75", "sm_7", "sm_75 ", "sm_075"] {
        check_stubbed(
            "kt-convolution-profiles.sh",
            &[("KTCONV_PTX_ARCH", bad)],
            &format!(
                "kt-convolution-profiles: KTCONV_PTX_ARCH must be an architecture such as sm_75, or empty to compile for each GPU's own, not '{bad}'"
            ),
        );
    }
}

#[test]
fn every_script_with_good_settings_goes_on_to_the_build() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("schoonhoven-profiles.sh", &[]),
        (
            "schoonhoven-profiles.sh",
            &[("SCHOON_SAMPLE", "10"), ("SCHOON_STEP", "3"), ("SEED", "0")],
        ),
        ("h100-profiles.sh", &[]),
        ("h100-profiles.sh", &[("H100_SAMPLE", "5"), ("CTAS", "1")]),
        ("dedisp-profiles.sh", &[]),
        (
            "dedisp-profiles.sh",
            &[("DEDISP_SAMPLE", "all"), ("BUDGET", "2000000")],
        ),
        ("gemm-profiles.sh", &[]),
        (
            "gemm-profiles.sh",
            &[
                ("GEMM_SAMPLE", "1"),
                ("GEMM_LAPTOP_SAMPLE", "30"),
                ("SEED", "0"),
                ("CTAS", "12"),
                ("JOBS", "1"),
            ],
        ),
        // A path left empty still takes its default: only settings are
        // checked.
        ("gemm-profiles.sh", &[("GROUNDTRUTH", "")]),
        ("pnpoly-profiles.sh", &[]),
        (
            "pnpoly-profiles.sh",
            &[("PNPOLY_SAMPLE", "100"), ("SEED", "7"), ("JOBS", "3")],
        ),
        ("kt-convolution-profiles.sh", &[]),
        (
            "kt-convolution-profiles.sh",
            &[("KTCONV_GPUS", "titan-rtx"), ("CTAS", "2")],
        ),
        // Empty: compile for each GPU's own architecture.
        ("kt-convolution-profiles.sh", &[("KTCONV_PTX_ARCH", "")]),
        (
            "kt-convolution-profiles.sh",
            &[
                ("KTCONV_GPUS", "geforce-rtx-3090 titan-rtx"),
                ("KTCONV_PTX_ARCH", "sm_86"),
            ],
        ),
    ];
    for (script, env) in cases {
        goes_on_to_the_build(script, env);
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
