//! The figures of docs/validation/README.md, section "The dedispersion's
//! rank is held down by the work budget's sampling noise", against their
//! committed inputs: the 120 development configurations emulated without
//! the work budget (`docs/validation/profiles-dedispersion-unbudgeted.tar.xz`)
//! must give the table's MAPE and Spearman, to the digits printed, on both
//! GPUs, and settle their samples within the 3 % target. A model change not
//! carried into the page fails here.

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
        assert_eq!(scored, 120, "{gpu}");
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
