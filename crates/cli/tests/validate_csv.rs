//! `validate --csv FILE`: a row per sampled configuration and data file,
//! with what the JSON says of it. No compiler is needed: the H200's
//! profiles are read from the committed archive.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_csv_holds_every_sampled_configuration_as_the_json_does() {
    let profiles = common::unpacked_archive("docs/validation/profiles-h200.tar.xz", "csv");
    let csv_path = profiles.join("out.csv");
    let data = "data/measured/h200-sxm-141gb/vector_add.json";
    let csv_arg = csv_path.to_str().expect("utf-8 path");
    let mut args = common::rescore_args(
        "experiments/vector-add.toml",
        data,
        "h200-sxm-141gb",
        profiles.to_str().expect("utf-8 path"),
    );
    args.extend([
        "--model", "timing", "--model", "learned", "--json", "--csv", csv_arg,
    ]);
    let out = common::ptxperf_in(&root(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = std::fs::read_to_string(&csv_path).expect("the CSV was written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            "data,gpu,index,block_size_x,part,measured_ms,status,error,timing_ms,learned_ms,\
             learned_low_ms,learned_high_ms"
        )
    );
    let results = v["results"].as_array().expect("results");
    assert_eq!(lines.len(), 1 + results.len(), "{text}");
    assert_eq!(results.len(), 15, "the 15 block sizes");
    for (line, r) in lines[1..].iter().zip(results) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], data);
        assert_eq!(cells[1], "h200-sxm-141gb");
        assert_eq!(cells[2], r["index"].to_string());
        assert_eq!(cells[3], r["parameters"]["block_size_x"].to_string());
        assert_eq!(Some(cells[4]), r["part"].as_str());
        // The same number: serde_json reads its own digits back to within
        // an ulp or so (no `float_roundtrip`), so compare to 1e-12.
        let same = |cell: &str, json: &Value| {
            let (Ok(a), Some(b)) = (cell.parse::<f64>(), json.as_f64()) else {
                panic!("{cell:?} against {json} in {line}");
            };
            assert!(
                (a - b).abs() <= 1e-12 * b.abs(),
                "{a} against {b} in {line}"
            );
        };
        same(cells[5], &r["measured_ms"]);
        assert_eq!(cells[6], "predicted");
        same(cells[8], &r["predicted_ms"]["timing"]);
        same(cells[9], &r["predicted_ms"]["learned"]);
        same(cells[10], &r["interval_ms"]["learned"][0]);
        same(cells[11], &r["interval_ms"]["learned"][1]);
    }
    let _ = std::fs::remove_dir_all(&profiles);
}
