//! `validate --data` on a T4 results file (the Open Autotuning Results
//! format, Kernel Tuner's `store_output_file`) scores exactly what the same
//! measurements give as a Kernel Tuner cache. The T4 file is written here
//! from the H200 vector_add cache, and both are rescored from the committed
//! H200 profiles, so no compiler is needed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cache's configurations as T4 results, in the cache's order.
fn t4_of(cache: &Value) -> Value {
    let keys: Vec<&str> = cache["tune_params_keys"]
        .as_array()
        .expect("tune_params_keys")
        .iter()
        .map(|k| k.as_str().expect("key"))
        .collect();
    let entries = cache["cache"].as_object().expect("cache");
    let results: Vec<Value> = entries
        .values()
        .map(|e| {
            let configuration: serde_json::Map<String, Value> = keys
                .iter()
                .map(|k| (k.to_string(), e[*k].clone()))
                .collect();
            json!({
                "configuration": configuration,
                "times": {"runtimes": e["times"].clone()},
                "invalidity": if e["time"].is_number() { "correct" } else { "runtime" },
                "correctness": 1,
                "measurements": [{"name": "time", "value": e["time"].clone(), "unit": "ms"}],
                "objectives": ["time"]
            })
        })
        .collect();
    json!({"schema_version": "1.0.0", "results": results})
}

fn scores(data: &str, profiles: &Path) -> Value {
    let out = common::ptxperf_in(
        &root(),
        &[
            "validate",
            "experiments/vector-add.toml",
            "--data",
            data,
            "--gpu",
            "h200-sxm-141gb",
            "--profiles",
            profiles.to_str().expect("utf-8 path"),
            "--model",
            "timing",
            "--bootstrap",
            "0",
            "--json",
            "--quiet",
        ],
    );
    assert!(
        out.status.success(),
        "{data}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Measured and predicted time of every scored row (sorted: the test's
/// JSON map writes the configurations in another order than the cache),
/// and the model's MAPE and Spearman.
fn figures(v: &Value) -> (Vec<(String, String)>, String) {
    let mut rows: Vec<(String, String)> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["measured_ms"].to_string(), r["predicted_ms"].to_string()))
        .collect();
    rows.sort();
    let m = &v["models"][0];
    (rows, format!("{} {}", m["mape_percent"], m["spearman"]))
}

#[test]
fn a_t4_file_scores_what_the_same_cache_scores() {
    let cache_path = "data/measured/h200-sxm-141gb/vector_add.json";
    let cache: Value =
        serde_json::from_slice(&std::fs::read(root().join(cache_path)).expect("read the cache"))
            .expect("cache JSON");
    let dir = std::env::temp_dir().join(format!("ptxperf-t4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let t4_path = dir.join("H200_T4.json");
    std::fs::write(&t4_path, t4_of(&cache).to_string()).expect("write T4");
    let profiles = common::unpacked_archive("docs/validation/profiles-h200.tar.xz", "t4-data");
    let from_cache = figures(&scores(cache_path, &profiles));
    let from_t4 = figures(&scores(t4_path.to_str().expect("utf-8"), &profiles));
    assert_eq!(from_cache.0.len(), 15, "the 15 block sizes");
    assert_eq!(from_t4, from_cache);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&profiles);
}
