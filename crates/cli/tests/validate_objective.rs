//! `validate` with an objective (`--objective`, or the experiment's
//! `[objective]`): the rank figures and the transfer compare the
//! objective's values, the errors stay those of the times.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use serde_json::Value;

use common::nvrtc_available;

const CUDA: &str = include_str!("../../study/src/validation/testdata/twice.cu");
const EXPERIMENT: &str = include_str!("../../study/src/validation/testdata/twice.exp.toml");

/// Measured here: 128 the fastest (0.008 ms), 64 at 0.010.
const TIMES: &str = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
                     64,0.010,0.010,0.009,0.0001,32\n\
                     128,0.008,0.008,0.008,0.0001,32\n";

/// Measured on another GPU: 64 the fastest. By `time * block_size_x`, 64
/// is the best on both GPUs (here 0.64 against 1.024).
const OTHER_TIMES: &str = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
                           64,0.005,0.005,0.005,0.0001,32\n\
                           128,0.006,0.006,0.006,0.0001,32\n";

fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-vobj-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    std::fs::write(dir.join("twice.cu"), CUDA).expect("write cu");
    std::fs::write(dir.join("twice.exp.toml"), EXPERIMENT).expect("write experiment");
    let with_objective = format!(
        "{EXPERIMENT}\n[objective]\nname = \"cost\"\nexpression = \"time * block_size_x\"\n"
    );
    std::fs::write(dir.join("costed.exp.toml"), with_objective).expect("write experiment");
    std::fs::write(dir.join("times.csv"), TIMES).expect("write csv");
    std::fs::write(dir.join("other.csv"), OTHER_TIMES).expect("write csv");
    dir
}

fn ptxperf(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxperf: {e}"))
}

/// `validate EXPERIMENT` on the times, on the RTX A4000, then `extra`.
fn validate<'a>(experiment: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "validate",
        experiment,
        "--data",
        "times.csv",
        "--gpu",
        "rtx-a4000",
        "--no-cache",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    args
}

/// [`validate`] of the timing model with the transfer from the other GPU,
/// then `extra`: its JSON.
fn validate_json(dir: &Path, experiment: &str, extra: &[&str]) -> Value {
    let mut args = validate(
        experiment,
        &[
            "--model",
            "timing",
            "--json",
            "--transfer-from",
            "other.csv",
        ],
    );
    args.extend_from_slice(extra);
    let out = ptxperf(dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ptxperf {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn timing(v: &Value) -> &Value {
    v["models"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == "timing"))
        .unwrap_or_else(|| panic!("no timing model: {v}"))
}

/// (block_size_x, predicted ms, measured ms) of each scored configuration.
fn scored(v: &Value) -> Vec<(f64, f64, f64)> {
    let results = v["results"].as_array().expect("results");
    results
        .iter()
        .filter_map(|r| {
            let bx = r["parameters"]["block_size_x"].as_f64()?;
            let measured = r["measured_ms"].as_f64()?;
            let predicted = r["predicted_ms"]["timing"].as_f64()?;
            Some((bx, predicted, measured))
        })
        .collect()
}

#[track_caller]
fn close(a: Option<f64>, b: f64) {
    let a = a.unwrap_or(f64::NAN);
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

#[test]
fn the_rank_figures_and_the_transfer_follow_the_objective() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("ranks");
    let plain = validate_json(&dir, "twice.exp.toml", &[]);
    assert!(plain["objective"].is_null(), "{}", plain["objective"]);
    // By time, the other GPU's fastest (64) runs 1.25x the best here.
    close(plain["transfer"]["ratio"].as_f64(), 1.25);

    // The objective `time` ranks as the time does: the same figures.
    let by_time = validate_json(&dir, "twice.exp.toml", &["--objective", "time"]);
    assert_eq!(timing(&plain), timing(&by_time));
    assert_eq!(plain["transfer"], by_time["transfer"]);

    // A throughput of the parameter: the best ratio is the best measured
    // objective over the measured objective of the configuration whose
    // predicted objective is the highest (no tie: distinct block sizes).
    let by_rate = validate_json(
        &dir,
        "twice.exp.toml",
        &["--objective", "block_size_x / time", "--higher-is-better"],
    );
    assert_eq!(by_rate["objective"]["expression"], "block_size_x / time");
    assert_eq!(by_rate["objective"]["higher_is_better"], true);
    let points = scored(&by_rate);
    assert_eq!(points.len(), 2, "{}", by_rate["results"]);
    let pick = points
        .iter()
        .max_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)))
        .expect("a pick");
    let best = points.iter().map(|p| p.0 / p.2).fold(0.0, f64::max);
    close(
        timing(&by_rate)["best_config_ratio"].as_f64(),
        best / (pick.0 / pick.2),
    );
    // MAPE is of the times, whatever the objective.
    assert_eq!(
        timing(&plain)["mape_percent"],
        timing(&by_rate)["mape_percent"]
    );
    assert!(
        timing(&plain)["mape_percent"].is_number(),
        "{}",
        timing(&plain)
    );

    // By `time * block_size_x`, 64 is the best on both GPUs: the
    // transfer reaches the optimum. The experiment's `[objective]` gives
    // the same as the flag, and the flag replaces it.
    let costed = validate_json(&dir, "costed.exp.toml", &[]);
    assert_eq!(costed["objective"]["name"], "cost");
    close(costed["transfer"]["ratio"].as_f64(), 1.0);
    assert_eq!(costed["transfer"]["configuration"], "block_size_x=64");
    let flagged = validate_json(
        &dir,
        "twice.exp.toml",
        &["--objective", "time * block_size_x"],
    );
    assert_eq!(timing(&costed), timing(&flagged));
    let replaced = validate_json(&dir, "costed.exp.toml", &["--objective", "time"]);
    assert_eq!(timing(&replaced), timing(&plain));
    close(replaced["transfer"]["ratio"].as_f64(), 1.25);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each configuration carries the objective's value at its measured and
/// predicted times, in the JSON's `results[].objective` and the CSV's
/// `measured_objective` and `MODEL_objective`; without an objective,
/// neither.
#[test]
fn each_configuration_carries_the_objective() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("values");
    let rate = ["--objective", "block_size_x / time", "--higher-is-better"];
    let mut extra = rate.to_vec();
    extra.extend(["--csv", "rate.csv"]);
    let v = validate_json(&dir, "twice.exp.toml", &extra);
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{}", v["results"]);
    for r in results {
        let bx = r["parameters"]["block_size_x"]
            .as_f64()
            .expect("block_size_x");
        let measured = r["measured_ms"].as_f64().expect("measured");
        let predicted = r["predicted_ms"]["timing"].as_f64().expect("predicted");
        close(r["objective"]["measured"].as_f64(), bx / measured);
        close(
            r["objective"]["predicted"]["timing"].as_f64(),
            bx / predicted,
        );
    }
    let csv = std::fs::read_to_string(dir.join("rate.csv")).expect("rate.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}: {header:?}"))
    };
    let [bx, measured, measured_obj, predicted, predicted_obj] = [
        "block_size_x",
        "measured_ms",
        "measured_objective",
        "timing_ms",
        "timing_objective",
    ]
    .map(column);
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for row in rows {
        close(Some(row[measured_obj]), row[bx] / row[measured]);
        close(Some(row[predicted_obj]), row[bx] / row[predicted]);
    }

    let plain = validate_json(&dir, "twice.exp.toml", &["--csv", "plain.csv"]);
    let results = plain["results"].as_array().expect("results");
    assert!(
        results.iter().all(|r| r["objective"].is_null()),
        "{results:?}"
    );
    let csv = std::fs::read_to_string(dir.join("plain.csv")).expect("plain.csv");
    assert!(!csv.contains("objective"), "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_text_says_what_ranks() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("text");
    let out = ptxperf(
        &dir,
        &validate(
            "costed.exp.toml",
            &["--model", "timing", "--transfer-from", "other.csv"],
        ),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("objective: cost = time * block_size_x (lower is better); Spearman"),
        "{text}"
    );
    assert!(
        text.contains("the configuration measured best there, block_size_x=64, by cost, is 1.000x"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bad objective is refused before anything compiles, saying what is
/// wrong: exit status 1 where the data's configurations refuse it (an
/// unknown name, a value that is not positive) or the experiment's table
/// does not parse, 2 (usage) where the flag's expression alone is wrong
/// and for --higher-is-better without --objective.
#[test]
fn bad_objectives_are_refused() {
    let dir = workdir("bad");
    let run = |extra: &[&str]| {
        let out = ptxperf(&dir, &validate("twice.exp.toml", extra));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run(&["--objective", "warps / time"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("unknown name `warps`"), "{err}");
    // What the expression alone refuses is a usage error, as in `tune`.
    let (code, err) = run(&["--objective", "2 * block_size_x"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("does not read `time`"), "{err}");
    let (code, err) = run(&["--objective", "time - 1"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("must be positive"), "{err}");
    let (code, err) = run(&["--higher-is-better"]);
    assert_eq!(code, Some(2), "{err}");
    std::fs::write(
        dir.join("broken.exp.toml"),
        format!("{EXPERIMENT}\n[objective]\nexpression = \"time *\"\n"),
    )
    .expect("write experiment");
    let out = ptxperf(&dir, &validate("broken.exp.toml", &[]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("broken.exp.toml: objective:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tune` on an experiment ranks by the experiment's `[objective]` unless
/// the space file's or `--objective` replaces it.
#[test]
fn tune_takes_the_experiments_objective() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("tune");
    std::fs::write(
        dir.join("space.toml"),
        "experiment = \"costed.exp.toml\"\n[params]\nblock_size_x = [64, 128]\n\
         [objective]\nname = \"t\"\nexpression = \"time\"\n",
    )
    .expect("write space");
    let tune_json = |args: &[&str]| -> Value {
        let mut all = vec![
            "tune",
            "--gpu",
            "rtx-a4000",
            "--model",
            "timing",
            "--json",
            "--no-cache",
            "--quiet",
        ];
        all.extend_from_slice(args);
        let out = ptxperf(&dir, &all);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "ptxperf {all:?} failed ({}):\n{}\n{stdout}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
    };
    let params = ["--param", "block_size_x=64,128"];
    let from_experiment = tune_json(&[&["--experiment", "costed.exp.toml"][..], &params].concat());
    assert_eq!(from_experiment["objective"]["name"], "cost");
    assert_eq!(
        from_experiment["objective"]["expression"],
        "time * block_size_x"
    );
    let flagged = tune_json(
        &[
            &["--experiment", "costed.exp.toml", "--objective", "time"][..],
            &params,
        ]
        .concat(),
    );
    assert_eq!(flagged["objective"]["expression"], "time");
    let from_space = tune_json(&["--space", "space.toml"]);
    assert_eq!(from_space["objective"]["name"], "t");
    let plain = tune_json(&[&["--experiment", "twice.exp.toml"][..], &params].concat());
    assert!(plain["objective"].is_null(), "{}", plain["objective"]);
    let _ = std::fs::remove_dir_all(&dir);
}
