//! `ptxperf tune --objective` and a space file's `[objective]`, and `tune
//! --kt-cache`, end to end on a PTX kernel (no NVRTC needed): the ranking
//! follows the objective, not the time; the JSON, the text and the CSV show
//! its value; picks against measured times are scored by it; a bad
//! objective is refused before anything runs; and the Kernel Tuner cache
//! file holds every configuration as Kernel Tuner 1.5's reader wants it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// y[i] = 2 x[i] for the thread's index i.
const DOUBLE_PTX: &str = r#".version 7.0
.target sm_50
.address_size 64

.visible .entry double_it(.param .u64 x, .param .u64 y)
{
    .reg .b32 %r<5>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.s32 %rd5, %r4, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.f32 %f1, [%rd6];
    add.f32 %f2, %f1, %f1;
    add.s64 %rd6, %rd4, %rd5;
    st.global.f32 [%rd6], %f2;
    ret;
}
"#;

const SPEC: &str = r#"source = "double.ptx"
kernel = "double_it"
defines = { N = 4096, BX = 128 }
grid = ["N/BX", 1, 1]
block = ["BX", 1, 1]

[[arg]]
name = "x"
type = "f32*"
len = "N"
init = "zeros"

[[arg]]
name = "y"
type = "f32*"
len = "N"
init = "zeros"
"#;

fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-objective-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("double.ptx"), DOUBLE_PTX).expect("write ptx");
    std::fs::write(dir.join("spec.toml"), SPEC).expect("write spec");
    dir
}

fn tune(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .arg("tune")
        .arg(dir.join("spec.toml"))
        .args([
            "--gpu",
            "a100-pcie-40gb",
            "--model",
            "timing",
            "--quiet",
            "--no-cache",
        ])
        .args(args)
        .output()
        .expect("run ptxperf")
}

/// `tune ARGS`, which must succeed; its stdout.
fn tune_ok(dir: &Path, args: &[&str]) -> String {
    let out = tune(dir, args);
    assert!(
        out.status.success(),
        "ptxperf tune failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tune_json(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&tune_ok(dir, &[args, &["--json"]].concat())).expect("tune prints JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The top list of the only model: (label, ms, objective).
fn top(v: &Value) -> Vec<(String, f64, Option<f64>)> {
    v["rankings"][0]["top"]
        .as_array()
        .expect("top")
        .iter()
        .map(|t| {
            (
                t["label"].as_str().expect("label").to_string(),
                number(&t["ranked_ms"]),
                t["objective"].as_f64(),
            )
        })
        .collect()
}

fn n_of(label: &str) -> f64 {
    label
        .split(',')
        .find_map(|p| p.strip_prefix("N="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no N in {label}"))
}

#[test]
fn the_ranking_follows_the_objective_not_the_time() {
    let dir = workdir("rank");
    let space = ["--param", "N=4096,1048576,16777216", "--param", "BX=128"];
    // By time: the smallest problem is the fastest.
    let by_time = top(&tune_json(&dir, &space));
    assert!(by_time.iter().all(|(_, _, o)| o.is_none()), "{by_time:?}");
    assert_eq!(n_of(&by_time[0].0), 4096.0, "{by_time:?}");
    // By elements per microsecond: a large problem amortises the launch.
    let v = tune_json(
        &dir,
        &[
            &space[..],
            &["--objective", "N / (time * 1e3)", "--higher-is-better"],
        ]
        .concat(),
    );
    assert_eq!(v["objective"]["name"], "N / (time * 1e3)");
    assert_eq!(v["objective"]["higher_is_better"], true);
    let by_work = top(&v);
    assert_eq!(by_work.len(), 3);
    for (label, ms, objective) in &by_work {
        let expect = n_of(label) / (ms * 1e3);
        let got = objective.expect("an objective per configuration");
        assert!(
            (got - expect).abs() <= 1e-9 * expect,
            "{label}: {got} != {expect}"
        );
    }
    let values: Vec<f64> = by_work.iter().map(|t| t.2.unwrap_or(0.0)).collect();
    assert!(
        values.windows(2).all(|w| w[0] >= w[1]),
        "best first: {values:?}"
    );
    assert_ne!(n_of(&by_work[0].0), 4096.0, "{by_work:?}");
    // The same objective, lower is better (its cost), ranks the other way.
    let v = tune_json(
        &dir,
        &[&space[..], &["--objective", "N / (time * 1e3)"]].concat(),
    );
    let reversed: Vec<String> = top(&v).into_iter().map(|t| t.0).collect();
    let forward: Vec<String> = by_work.into_iter().rev().map(|t| t.0).collect();
    assert_eq!(reversed, forward);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_space_files_objective_shows_in_the_text_and_the_csv() {
    let dir = workdir("space");
    std::fs::write(
        dir.join("space.toml"),
        "[params]\nN = [4096, 1048576]\nBX = [64, 256]\n\n[objective]\nname = \"elements/us\"\n\
         expression = \"N / (time * 1e3)\"\nhigher_is_better = true\n",
    )
    .expect("write space");
    let csv = dir.join("out.csv");
    let space = dir.join("space.toml");
    let text = tune_ok(
        &dir,
        &[
            "--space",
            space.to_str().expect("path"),
            "--csv",
            csv.to_str().expect("path"),
        ],
    );
    assert!(
        text.contains(
            "objective: elements/us = N / (time * 1e3) (higher is better); each model ranks by it"
        ),
        "{text}"
    );
    assert!(text.contains("elements/us"), "a column: {text}");
    let csv = std::fs::read_to_string(&csv).expect("csv written");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name} in {header:?}"))
    };
    let (n, ms, objective) = (col("N"), col("timing_ms"), col("timing_objective"));
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let parse = |i: usize| f[i].parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
        let expect = parse(n) / (parse(ms) * 1e3);
        assert!((parse(objective) - expect).abs() <= 1e-6 * expect, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 4);
    // The plot shows the objective.
    let svg = dir.join("plot.svg");
    tune_ok(
        &dir,
        &[
            "--space",
            space.to_str().expect("path"),
            "--svg",
            svg.to_str().expect("path"),
            "--plot-x",
            "BX",
        ],
    );
    let svg = std::fs::read_to_string(&svg).expect("svg written");
    assert!(
        svg.contains("predicted elements/us (higher is better)"),
        "no y label"
    );
    // --objective replaces the file's.
    let text = tune_ok(
        &dir,
        &[
            "--space",
            space.to_str().expect("path"),
            "--objective",
            "time * BX",
        ],
    );
    assert!(
        text.contains("objective: time * BX (lower is better)"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn picks_against_measured_times_are_scored_by_the_objective() {
    let dir = workdir("measured");
    // Measured: BX=32 runs fastest, BX=64 is best per thread of a block.
    let csv = dir.join("measured.csv");
    std::fs::write(
        &csv,
        "BX,mean_ms,median_ms,min_ms,std_ms,n\n32,0.5,0.5,0.5,0,32\n64,0.6,0.6,0.6,0,32\n\
         128,1.6,1.6,1.6,0,32\n",
    )
    .expect("write csv");
    let measured = ["--measured", csv.to_str().expect("path")];
    let best_label = |v: &Value| {
        let m = &v["measured"]["metrics"][0];
        let best = m["measured_best"].as_u64().expect("index") as usize;
        v["configurations"][best]["label"]
            .as_str()
            .expect("label")
            .to_string()
    };
    assert_eq!(best_label(&tune_json(&dir, &measured)), "BX=32");
    let v = tune_json(
        &dir,
        &[&measured[..], &["--objective", "time / BX"]].concat(),
    );
    assert_eq!(best_label(&v), "BX=64");
    // The pick's ratio is its objective over the best's (lower is better).
    let m = &v["measured"]["metrics"][0];
    let pick = m["pick"].as_u64().expect("index") as usize;
    let label = v["configurations"][pick]["label"].as_str().expect("label");
    let cost = |label: &str| match label {
        "BX=32" => 0.5 / 32.0,
        "BX=64" => 0.6 / 64.0,
        "BX=128" => 1.6 / 128.0,
        other => panic!("{other}"),
    };
    assert_eq!(m["tied"].as_u64(), Some(1), "{m}");
    assert_ne!(label, "BX=64", "the model's pick is another: {m}");
    let expect = cost(label) / cost("BX=64");
    let got = number(&m["pick_ratio"]);
    assert!((got - expect).abs() < 1e-9, "{label}: {got} != {expect}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A configuration whose objective is 0 or less at its predicted time
/// cannot be ranked: the text says how many each model lost.
#[test]
fn configurations_without_a_positive_objective_are_counted() {
    let dir = workdir("lost");
    // Below 10 us for the small problem, above for the large one.
    let text = tune_ok(
        &dir,
        &[
            "--param",
            "N=4096,16777216",
            "--objective",
            "time * 1e3 - 10",
        ],
    );
    assert!(
        text.contains(
            "  timing: 1 predicted configurations have no positive objective at their predicted \
             time and are not ranked\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("winner: every model picks N=16777216\n"),
        "{text}"
    );
    // None left: the run says why it ranked nothing, and exits 1.
    let out = tune(
        &dir,
        &["--param", "N=4096,8192", "--objective", "time * 1e3 - 999"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("has no positive objective at its predicted time"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tune ARGS` exits with `code` and says `expect` on stderr.
fn check_refused(args: &[&str], code: i32, expect: &str) {
    let dir = workdir("refused");
    let out = tune(
        &dir,
        &[&["--param", "N=4096,8192", "--param", "BX=0,128"][..], args].concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: `{err}` lacks `{expect}`");
    assert!(
        out.stdout.is_empty(),
        "nothing ranked: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_objective_is_refused_before_anything_runs() {
    check_refused(
        &["--objective", "N * 2"],
        2,
        "objective `N * 2`: it does not read `time`",
    );
    check_refused(&["--objective", "time +"], 2, "objective `time +`");
    check_refused(&["--higher-is-better"], 2, "--objective");
    check_refused(
        &["--objective", "M / time", "--constraint", "BX > 0"],
        1,
        "unknown name `M`: it reads `time` (ms) and the parameters (N, BX)",
    );
    // BX = 0 is kept by no constraint: its objective divides by zero.
    check_refused(
        &["--objective", "time / BX"],
        1,
        "on N=4096,BX=0: column 6: division by zero",
    );
}

/// The configurations' predicted times by label, from `tune --json`.
fn predicted_by_label(v: &Value) -> Vec<(String, Option<f64>)> {
    v["configurations"]
        .as_array()
        .expect("configurations")
        .iter()
        .map(|c| {
            let ms = c["result"]["models"][0]["ms"].as_f64();
            (c["label"].as_str().expect("label").to_string(), ms)
        })
        .collect()
}

#[test]
fn a_kernel_tuner_cache_holds_every_configuration() {
    let dir = workdir("kt-cache");
    let file = dir.join("kt.json");
    std::fs::write(
        dir.join("space.toml"),
        "[params]\nN = [4096, 65536]\nBX = [64, 2048, 128]\n\n[objective]\nname = \"elements/us\"\n\
         expression = \"N / (time * 1e3)\"\nhigher_is_better = true\n",
    )
    .expect("write space");
    let space = dir.join("space.toml");
    let args = [
        "--space",
        space.to_str().expect("path"),
        "--kt-cache",
        file.to_str().expect("path"),
    ];
    let v = tune_json(&dir, &args);
    let text = std::fs::read_to_string(&file).expect("cache written");
    // Kernel Tuner takes a file that does not end so for one left open.
    assert!(
        text.trim_end().ends_with("}\n}"),
        "{}",
        &text[text.len() - 40..]
    );
    let cache: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(cache["device_name"], "NVIDIA A100 PCIe 40 GB");
    assert_eq!(cache["kernel_name"], "double_it");
    assert!(cache.get("problem_size").is_none(), "a spec has none");
    assert_eq!(cache["tune_params_keys"], serde_json::json!(["N", "BX"]));
    assert_eq!(cache["objective"], "elements/us");
    // The file's order, not JSON's by name: Kernel Tuner compares the keys'
    // order with the tune_params it is given.
    let params_at = text
        .find("\"tune_params\": {\"N\"")
        .expect("tune_params in key order");
    assert!(params_at < text.find("\"cache\"").expect("cache"));
    assert_eq!(
        cache["tune_params"]["BX"],
        serde_json::json!([64, 2048, 128])
    );
    let entries = cache["cache"].as_object().expect("cache");
    let predicted = predicted_by_label(&v);
    assert_eq!(entries.len(), predicted.len());
    assert_eq!(entries.len(), 6);
    for (label, ms) in predicted {
        let (n, bx) = {
            let mut it = label
                .split(',')
                .map(|p| p.split('=').nth(1).expect("value"));
            (it.next().expect("N"), it.next().expect("BX"))
        };
        let e = &entries[&format!("{n},{bx}")];
        assert_eq!(e["N"].as_i64().map(|x| x.to_string()).as_deref(), Some(n));
        assert_eq!(e["BX"].as_i64().map(|x| x.to_string()).as_deref(), Some(bx));
        match ms {
            Some(ms) => {
                assert_eq!(number(&e["time"]), ms, "{label}");
                assert_eq!(e["times"], serde_json::json!([ms]));
                let expect = n.parse::<f64>().expect("N") / (ms * 1e3);
                assert!((number(&e["elements/us"]) - expect).abs() <= 1e-9 * expect);
            }
            None => {
                // 2,048 threads a block: more than any GPU launches.
                assert_eq!(bx, "2048", "{label}");
                assert_eq!(e["time"], "InvalidConfig");
                assert_eq!(e["elements/us"], "InvalidConfig");
            }
        }
        assert_eq!(number(&e["compile_time"]), 0.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kernel_tuner_cache_is_one_model_on_one_gpu_over_the_whole_space() {
    let dir = workdir("kt-usage");
    let file = dir.join("kt.json");
    let file = file.to_str().expect("path");
    for (extra, expect) in [
        (
            &["--model", "roofline"][..],
            "give one --gpu and one --model",
        ),
        (
            &["--gpu", "rtx-a4000"][..],
            "give one --gpu and one --model",
        ),
        (&["--sample", "1"][..], "drop --sample"),
    ] {
        let out = tune(
            &dir,
            &[
                &[
                    "--param",
                    "N=4096",
                    "--param",
                    "BX=64,128",
                    "--kt-cache",
                    file,
                ][..],
                extra,
            ]
            .concat(),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expect), "{extra:?}: {err}");
        assert!(!Path::new(file).exists(), "nothing written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
