//! The figures of docs/validation/README.md, section "The dedispersion's
//! rank is held down by the work budget's sampling noise", against their
//! committed inputs: the configurations of the report's sample emulated
//! without the work budget so far
//! (`docs/validation/profiles-dedispersion-unbudgeted.tar.xz`, grown by
//! `scripts/dedisp-unbudgeted.py`) must all be scored, be as many as the
//! page says, give the table's MAPE and Spearman, to the digits printed, on
//! both GPUs, and settle their samples within the 3 % target. A model
//! change, or an archive grown without its page, fails here.

use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The timing model's figures on one GPU's data from the unpacked profiles:
/// (scored, "MAPE [", "Spearman [") as the page prints them.
fn rescore(groundtruth: &Path, profiles: &Path, data: &str, gpu: &str) -> (u64, String, String) {
    let data = groundtruth.join("dedispersion").join(data);
    let (data, profiles) = (
        data.to_str().expect("utf-8 path"),
        profiles.to_str().expect("utf-8 path"),
    );
    let mut args = common::rescore_args("experiments/dedispersion.toml", data, gpu, profiles);
    args.extend([
        "--sample",
        "2000",
        "--seed",
        "1",
        "--sample-ctas",
        "4",
        "--model",
        "timing",
        "--json",
    ]);
    let out = common::ptxperf_in(&root(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let m = &json["models"][0];
    assert_eq!(m["name"], "timing", "{json}");
    (
        m["scored"].as_u64().unwrap_or(0),
        format!("{:.2} [", m["mape_percent"].as_f64().expect("mape")),
        format!("{:.3} [", m["spearman"].as_f64().expect("spearman")),
    )
}

/// `n` as the pages write counts: 1,020.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_unbudgeted_dedispersion_figures_are_what_their_profiles_give() {
    let Some(groundtruth) = common::shared_groundtruth() else {
        return;
    };
    let page = std::fs::read_to_string(root().join("docs/validation/README.md"))
        .expect("read docs/validation/README.md");
    let profiles = common::unpacked_archive(
        "docs/validation/profiles-dedispersion-unbudgeted.tar.xz",
        "dedispersion-unbudgeted",
    );
    for (data, gpu, name) in [
        ("dedispersion_milo_A4000.json.gz", "rtx-a4000", "RTX A4000"),
        ("dedispersion_milo_A6000.json.gz", "rtx-a6000", "RTX A6000"),
    ] {
        let (scored, mape, spearman) = rescore(&groundtruth, &profiles, data, gpu);
        let archived = std::fs::read_dir(profiles.join(gpu))
            .expect("profiles folder")
            .filter(|e| {
                let path = e.as_ref().expect("entry").path();
                path.extension().is_some_and(|x| x == "toml")
            })
            .count() as u64;
        assert_eq!(scored, archived, "{gpu}: every archived profile is scored");
        let count = format!(
            "{} configurations of the report's sample",
            thousands(archived)
        );
        assert!(
            page.contains(&count),
            "docs/validation/README.md does not say \"{count}\""
        );
        let row = format!("| {name} | without the budget | {mape}");
        let line = page
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("docs/validation/README.md has no row starting\n{row}"));
        assert!(
            line.contains(&format!("| {spearman}")),
            "{line}\nSpearman {spearman}"
        );
        // Every sample settled: the point of emulating without the budget.
        for entry in std::fs::read_dir(profiles.join(gpu)).expect("profiles folder") {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("profile");
            let error: f64 = text
                .lines()
                .find_map(|l| l.strip_prefix("sampling_error = "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("{}: no sampling_error", path.display()));
            assert!(error <= 0.03, "{}: {error}", path.display());
        }
    }
    let _ = std::fs::remove_dir_all(&profiles);
}

/// `scripts/dedisp-unbudgeted.py` with `args` and `env`: (exit status,
/// stdout, stderr).
fn grow_script(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(root().join("scripts/dedisp-unbudgeted.py"))
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("python3 runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_unbudgeted_archive_is_a_uniform_subset_in_the_scripts_order() {
    // Beyond the first 120 (two random draws), the archive must hold the
    // order's first configurations with none skipped: a batch lost or
    // emulated out of turn would make it a biased subset.
    let (code, out, err) = grow_script(&["--check"], &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("configurations: the order's first"), "{out}");
}

/// The script, run with `args` and `env`, exits 1 with `want` in its
/// message, before anything is built.
fn refuses(args: &[&str], env: &[(&str, &str)], want: &str) {
    let (code, out, err) = grow_script(args, env);
    assert_eq!(code, Some(1), "{args:?} {env:?}: {out}{err}");
    assert!(
        err.contains(want),
        "{args:?} {env:?}: want {want:?} in {err}"
    );
    assert!(!err.contains("Traceback"), "{args:?}: {err}");
    assert!(!err.contains("Compiling"), "{args:?}: it built: {err}");
}

#[test]
fn the_growing_script_refuses_bad_arguments_before_it_builds() {
    refuses(&[], &[], "usage: scripts/dedisp-unbudgeted.py DIR [COUNT]");
    refuses(&["--chek"], &[], "usage:");
    refuses(&["d", "0"], &[], "COUNT must be a positive number, not '0'");
    refuses(&["d", "x"], &[], "COUNT must be a positive number, not 'x'");
    refuses(
        &["d"],
        &[("JOBS", "0")],
        "JOBS must be a positive number, not '0'",
    );
    refuses(
        &["d", "5"],
        &[("GROUNDTRUTH", "/no/such/folder")],
        "no /no/such/folder/dedispersion/dedispersion_milo_A4000.json.gz",
    );
}
