//! `ptxperf learn` on the committed profiles (the validation report's
//! archives: docs/validation/profiles-kt-convolution.tar.xz,
//! profiles-dedispersion-unbudgeted.tar.xz, profiles.tar.xz, profiles-gemm.tar.xz and
//! profiles-pnpoly.tar.xz):
//! training twice on a small fixture (the H100 data of data/measured, in the
//! repository) writes the same bytes, the committed model file is what
//! training gives today (with the shared ground truth beside the
//! repository; on CI its absence fails), `--model learned` predicts with it,
//! and a missing model file falls back to the timing model with a message.
//!
//! Needs python3 to unpack the archive, as the report script does.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptxperf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("ptxperf runs")
}

/// The archive unpacked into a fresh folder named after `tag`.
fn profiles(tag: &str) -> PathBuf {
    common::unpacked_profiles(&format!("learn-{tag}"))
}

/// The report's archives of the whole-space convolution, GEMM and pnpoly
/// rows and the dedispersion's 2,000 configurations, which train the
/// committed model beside `profiles.tar.xz` (docs/validation/learned.md).
/// The whole-space convolution and the dedispersion come first: a
/// configuration's profile is read from the first folder that has it, and
/// each of the two archives was emulated alike throughout (the neighbour
/// warm-up; no work budget).
const KTCONV_ARCHIVE: &str = "docs/validation/profiles-kt-convolution.tar.xz";
const DEDISP_ARCHIVE: &str = "docs/validation/profiles-dedispersion-unbudgeted.tar.xz";
const GEMM_ARCHIVE: &str = "docs/validation/profiles-gemm.tar.xz";
const PNPOLY_ARCHIVE: &str = "docs/validation/profiles-pnpoly.tar.xz";

const H100_SOURCES: &str = r#"
[[source]]
gpu = "h100-sxm5-80gb"
experiment = "experiments/convolution.toml"
data = "data/measured/h100-sxm5-80gb/convolution.json.gz"

[[source]]
gpu = "h100-sxm5-80gb"
experiment = "experiments/dedispersion.toml"
data = "data/measured/h100-sxm5-80gb/dedispersion.json.gz"
"#;

/// `ptxperf learn` on the H100 fixture (`sources` lists [`H100_SOURCES`],
/// `dir` holds the profiles), small: 30 trees, 3 members; then `more`.
fn learn_fixture(sources: &Path, dir: &Path, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "learn",
        sources.to_str().expect("utf-8"),
        "--profiles",
        dir.to_str().expect("utf-8"),
        "--trees",
        "30",
        "--members",
        "3",
    ];
    args.extend_from_slice(more);
    ptxperf(&args)
}

#[test]
fn retraining_a_fixture_writes_the_same_bytes_and_predicts_with_it() {
    let dir = profiles("fixture");
    let sources = dir.join("sources.toml");
    std::fs::write(&sources, H100_SOURCES).expect("write sources");
    let mut files = Vec::new();
    for n in ["a", "b"] {
        let out = dir.join(format!("model-{n}.json"));
        let o = learn_fixture(&sources, &dir, &["--out", out.to_str().expect("utf-8")]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(
            text.contains("trained on") && text.contains("h100-sxm5-80gb"),
            "{text}"
        );
        files.push(std::fs::read(&out).expect("model file"));
    }
    assert_eq!(files[0], files[1], "two trainings wrote different bytes");

    // Predict with the fixture's model on one of its profiles.
    let gpu_dir = dir.join("h100-sxm5-80gb");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&gpu_dir)
        .expect("profiles")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().contains("filter_width"))
        .collect();
    names.sort();
    let profile = names.first().expect("a convolution profile").clone();
    let o = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .current_dir(root())
        .env("PTXPERF_LEARNED_MODEL", dir.join("model-a.json"))
        .args(["predict", "--profile"])
        .arg(&profile)
        .args(["--gpu", "h100-sxm5-80gb", "--model", "learned", "--json"])
        .output()
        .expect("ptxperf runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for key in [
        "low_seconds",
        "high_seconds",
        "timing_seconds",
        "contribution:",
        "familiarity",
        "near_seconds",
        "far_high_seconds",
    ] {
        assert!(text.contains(key), "no {key} in {text}");
    }
    // The two ends of familiarity blend back into the prediction at its own
    // (what `tune` and `validate` share over a space: validate::blend).
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let b = learned_breakdown(&json).expect("the learned model's breakdown");
    let get = |k: &str| b.get(k).and_then(serde_json::Value::as_f64).expect(k);
    let w = get("familiarity");
    for (own, near, far) in [
        ("timing_seconds", "near_seconds", "far_seconds"),
        ("low_seconds", "near_low_seconds", "far_low_seconds"),
        ("high_seconds", "near_high_seconds", "far_high_seconds"),
    ] {
        let own = if own == "timing_seconds" {
            get(own) * get("factor_on_timing")
        } else {
            get(own)
        };
        let blended = (get(far).ln() * (1.0 - w) + get(near).ln() * w).exp();
        assert!(
            (blended - own).abs() <= 1e-9 * own,
            "{own} {blended} at {w}"
        );
    }

    // No model file: the timing model's time, said so.
    let o = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .current_dir(root())
        .env("PTXPERF_LEARNED_MODEL", dir.join("missing.json"))
        .args(["predict", "--profile"])
        .arg(&profile)
        .args(["--gpu", "h100-sxm5-80gb", "--model", "learned"])
        .output()
        .expect("ptxperf runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("no learned model") && text.contains("missing.json"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exported_samples_are_the_fixtures_rows_with_every_feature() {
    let dir = profiles("export");
    let sources = dir.join("sources.toml");
    std::fs::write(&sources, H100_SOURCES).expect("write sources");
    let csv = dir.join("dev.csv");
    let o = learn_fixture(
        &sources,
        &dir,
        &["--export-samples", csv.to_str().expect("utf-8")],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout).to_string();
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    // The leading columns, as `learn --help` describes them.
    assert_eq!(
        header[..8].join(","),
        "gpu,kernel,data,row,config,weight,measured_s,timing_s"
    );
    let features = header.len() - 8;
    assert!(features > 40, "{features} features");
    let rows: Vec<&str> = lines.collect();
    assert!(
        said.starts_with(&format!(
            "wrote {} development samples ({features} features",
            rows.len()
        )),
        "{said}"
    );
    // Both H100 files (development by role), each weighing the same in total.
    let mut per_file: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    for r in &rows {
        // The configuration is quoted (it holds commas); the weight follows it.
        let (head, tail) = r.rsplit_once('"').expect("a quoted configuration");
        let data = head.split(',').nth(2).expect("data").to_string();
        let weight: f64 = tail[1..]
            .split(',')
            .next()
            .expect("weight")
            .parse()
            .expect("a number");
        let e = per_file.entry(data).or_default();
        e.0 += 1;
        e.1 += weight;
    }
    assert_eq!(per_file.len(), 2, "{per_file:?}");
    let totals: Vec<f64> = per_file.values().map(|v| v.1).collect();
    assert!((totals[0] - totals[1]).abs() < 1e-9, "{per_file:?}");
    // --export-samples writes the samples instead of a model or tables.
    assert!(!said.contains("trained on"), "{said}");
    let both = learn_fixture(
        &sources,
        &dir,
        &["--export-samples", "x.csv", "--cross-validate"],
    );
    assert!(!both.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cross_validation_by_kernel_prints_the_same_tables_twice() {
    // The H100 fixture: one GPU (no GPU can be held out with another left
    // to train on) and two kernels, development by role.
    let dir = profiles("cv");
    let sources = dir.join("sources.toml");
    std::fs::write(&sources, H100_SOURCES).expect("write sources");
    let run = || {
        learn_fixture(
            &sources,
            &dir,
            &["--cross-validate", "--part", "development"],
        )
    };
    let (a, b) = (run(), run());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout, "two cross-validations differ");
    let text = String::from_utf8_lossy(&a.stdout).to_string();
    assert!(text.contains("scored: the development part"), "{text}");
    assert!(text.contains("### Held out by kernel"), "{text}");
    for kernel in ["convolution_kernel", "dedispersion_kernel"] {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {kernel} | h100-sxm5-80gb | {kernel} |")))
            .unwrap_or_else(|| panic!("no row holding out {kernel}:\n{text}"));
        // 18 cells; no other GPU ran the kernel, so no transferred best;
        // trained on one kernel, there is no distance between kernels to
        // shrink the correction by, so every row keeps all of it.
        assert_eq!(row.matches('|').count(), 19, "{row}");
        assert!(row.ends_with("| - | 1.00 |"), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_committed_model_is_what_training_gives() {
    if common::shared_groundtruth().is_none() {
        return;
    }
    let dir = profiles("committed");
    let ktconv = common::unpacked_archive(KTCONV_ARCHIVE, "learn-committed-kt-convolution");
    let dedisp = common::unpacked_archive(DEDISP_ARCHIVE, "learn-committed-dedispersion");
    let gemm = common::unpacked_archive(GEMM_ARCHIVE, "learn-committed-gemm");
    let pnpoly = common::unpacked_archive(PNPOLY_ARCHIVE, "learn-committed-pnpoly");
    let out = dir.join("model.json");
    let o = ptxperf(&[
        "learn",
        "data/learned/sources.toml",
        "--profiles",
        ktconv.to_str().expect("utf-8"),
        "--profiles",
        dedisp.to_str().expect("utf-8"),
        "--profiles",
        dir.to_str().expect("utf-8"),
        "--profiles",
        gemm.to_str().expect("utf-8"),
        "--profiles",
        pnpoly.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trained = std::fs::read(&out).expect("model file");
    let committed = std::fs::read(root().join("data/learned/model.json")).expect("committed model");
    assert!(
        trained == committed,
        "data/learned/model.json is not what `ptxperf learn data/learned/sources.toml --profiles <{KTCONV_ARCHIVE} unpacked> --profiles <{DEDISP_ARCHIVE} unpacked> --profiles <docs/validation/profiles.tar.xz unpacked> --profiles <{GEMM_ARCHIVE} unpacked> --profiles <{PNPOLY_ARCHIVE} unpacked>` gives: retrain and commit it"
    );
    // Every archive was read: the model's samples name every kernel, and
    // each data file weighs the same.
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    for kernel in [
        "convolution_kernel",
        "dedispersion_kernel",
        "Xgemm",
        "cn_pnpoly",
    ] {
        assert!(
            text.contains(kernel),
            "no {kernel} among the training samples: {text}"
        );
    }
    assert!(text.contains("weighted per data file"), "{text}");
    // The correction's domain covers the five kernels, and an unknown
    // kernel's interval was sized on kernels held out.
    assert!(text.contains("points of 5 kernels"), "{text}");
    assert!(
        text.contains("for a kernel unlike every trained one"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&gemm);
    let _ = std::fs::remove_dir_all(&pnpoly);
    let _ = std::fs::remove_dir_all(&ktconv);
    let _ = std::fs::remove_dir_all(&dedisp);
}

/// The `breakdown` of the `learned` model's prediction anywhere in `json`.
fn learned_breakdown(json: &serde_json::Value) -> Option<&serde_json::Value> {
    match json {
        serde_json::Value::Object(m) => {
            if m.get("name").and_then(serde_json::Value::as_str) == Some("learned")
                && let Some(b) = m.get("breakdown")
            {
                return Some(b);
            }
            m.values().find_map(learned_breakdown)
        }
        serde_json::Value::Array(a) => a.iter().find_map(learned_breakdown),
        _ => None,
    }
}
