//! The time breakdown of `tune` and `validate`: in their JSON per
//! configuration and in total (every stage non-negative, the stages within
//! the total, `other` the rest, cache hits counted), and the `--timings`
//! table. `tune` runs a PTX kernel (no NVRTC); `validate` compiles CUDA, so
//! without NVRTC that part is skipped with a message, except on CI.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

const STAGES: [&str; 7] = [
    "nvrtc",
    "ptx_parse",
    "ptxas",
    "emulation",
    "characterization",
    "cache_model",
    "models",
];

/// out[i] = i for every thread.
const FILL_PTX: &str = r#".version 7.0
.target sm_50
.address_size 64

.visible .entry fill(.param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.s32 %rd3, %r4, 4;
    add.s64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r4;
    ret;
}
"#;

const SPEC: &str = r#"source = "fill.ptx"
kernel = "fill"
defines = { N = 4096, BX = 32 }
grid = ["N/BX"]
block = ["BX"]

[[arg]]
name = "out"
type = "u32*"
len = "N"
init = "zeros"
"#;

/// The same in CUDA, as Kernel Tuner builds it (block_size_x defined).
const CUDA: &str = r#"extern "C" __global__ void fill(unsigned *out, unsigned n)
{
    unsigned i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = i;
}
"#;

const EXPERIMENT: &str = r#"source = "fill.cu"
kernel = "fill"
problem_size = [4096]

[[arg]]
name = "out"
type = "u32*"
len = 4096

[[arg]]
name = "n"
type = "u32"
value = 4096
"#;

/// Schoonhoven layout: parameters, then the five measurement columns; the
/// last configuration measured as failed.
const TIMES: &str = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
                     64,0.010,0.010,0.009,0.0001,32\n\
                     128,0.008,0.008,0.008,0.0001,32\n\
                     256,nan,nan,nan,nan,0\n";

fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-timings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for (file, text) in [
        ("fill.ptx", FILL_PTX),
        ("spec.toml", SPEC),
        ("fill.cu", CUDA),
        ("fill.exp.toml", EXPERIMENT),
        ("times.csv", TIMES),
    ] {
        std::fs::write(dir.join(file), text).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    dir
}

/// Runs ptxperf in `dir`, which must succeed; (stdout, stderr).
fn ptxperf(dir: &Path, args: &[&str]) -> (String, String) {
    let out = common::ptxperf_in(dir, args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "ptxperf {args:?} failed:\n{stderr}");
    (stdout, stderr)
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

fn seconds(t: &Value, key: &str) -> f64 {
    t[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {t}"))
}

fn count(t: &Value, key: &str) -> u64 {
    t[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not a count in {t}"))
}

/// A breakdown: every stage and `other` non-negative, the stages within the
/// total, and `other` what they leave of it. Returns the stages' sum.
fn check_breakdown(t: &Value) -> f64 {
    let total = seconds(t, "total_s");
    let mut sum = 0.0;
    for stage in STAGES {
        let s = seconds(t, &format!("{stage}_s"));
        assert!(s >= 0.0, "{stage}: {t}");
        sum += s;
    }
    let other = seconds(t, "other_s");
    assert!(other >= 0.0, "{t}");
    assert!(
        sum <= total + 1e-9,
        "stages {sum} s over the total {total} s: {t}"
    );
    assert!((sum + other - total).abs() < 1e-6, "{t}");
    sum
}

/// The totals are the configurations' breakdowns added up (`results` or
/// `configurations` entries, those that carry one).
fn check_totals(totals: &Value, per_config: &[&Value]) {
    assert_eq!(totals["clock"], "wall", "{totals}");
    assert_eq!(count(totals, "configurations"), per_config.len() as u64);
    check_breakdown(totals);
    for key in ["total_s", "nvrtc_s", "emulation_s", "models_s", "other_s"] {
        let sum: f64 = per_config.iter().map(|t| seconds(t, key)).sum();
        assert!((sum - seconds(totals, key)).abs() < 1e-6, "{key}: {totals}");
    }
    for key in ["ptx_cache_hits", "result_cache_hits"] {
        let sum: u64 = per_config.iter().map(|t| count(t, key)).sum();
        assert_eq!(sum, count(totals, key), "{key}: {totals}");
    }
}

/// The cells of a table row (comfy-table's UTF-8 borders).
fn cells(line: &str) -> Vec<&str> {
    line.split(['│', '┆']).map(str::trim).collect()
}

/// The row of the `--timings` table named `name`, by cell.
fn row<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    text.lines().map(cells).find(|c| c.get(1) == Some(&name))
}

/// The `--timings` table: a row per stage, `other` and `total`.
fn check_table(text: &str, configurations: usize) {
    assert!(
        text.contains(&format!(
            "time breakdown: {configurations} configurations, wall seconds"
        )),
        "{text}"
    );
    assert!(text.contains("per configuration (s)"), "{text}");
    for name in STAGES.iter().chain(&["other", "total"]) {
        assert!(row(text, name).is_some(), "no row {name} in\n{text}");
    }
    assert!(text.contains("cache hits: PTX"), "{text}");
}

fn configurations_timings(v: &Value) -> Vec<&Value> {
    v["configurations"]
        .as_array()
        .map(|a| a.iter().map(|c| &c["timings"]).collect())
        .unwrap_or_default()
}

#[test]
fn tune_reports_where_the_time_went() {
    let dir = workdir("tune");
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap_or_default();
    let args = [
        "tune",
        "spec.toml",
        "--gpu",
        "a100-pcie-40gb",
        "--param",
        "BX=32,64,128",
        "--model",
        "roofline",
        "--quiet",
        "--cache",
        cache,
    ];
    let json_args = [&args[..], &["--json", "--timings"]].concat();
    let (stdout, stderr) = ptxperf(&dir, &json_args);
    let v = parse(&stdout);
    let per = configurations_timings(&v);
    assert_eq!(per.len(), 3);
    for t in &per {
        let stages = check_breakdown(t);
        assert!(stages > 0.0, "{t}");
        assert!(seconds(t, "emulation_s") > 0.0, "{t}");
        assert_eq!(count(t, "result_cache_hits"), 0, "{t}");
        // PTX source: nothing to compile.
        assert_eq!(seconds(t, "nvrtc_s"), 0.0, "{t}");
    }
    check_totals(&v["timings"], &per);
    // With --json the table goes to stderr, and stdout stays JSON.
    check_table(&stderr, 3);

    // A second run is served from the result cache: every stage 0 s, one hit each.
    let (stdout, _) = ptxperf(&dir, &json_args);
    let v = parse(&stdout);
    let per = configurations_timings(&v);
    for t in &per {
        assert_eq!(check_breakdown(t), 0.0, "{t}");
        assert_eq!(count(t, "result_cache_hits"), 1, "{t}");
    }
    assert_eq!(count(&v["timings"], "result_cache_hits"), 3);

    // The text form: the ranking, then the table.
    let (text, _) = ptxperf(&dir, &[&args[..], &["--timings"]].concat());
    check_table(&text, 3);
    assert!(text.contains("cache hits: PTX 0, results 3"), "{text}");
    let (plain, _) = ptxperf(&dir, &args);
    assert!(!plain.contains("time breakdown"), "{plain}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_reports_where_the_time_went() {
    if !common::nvrtc_available() {
        return;
    }
    let dir = workdir("validate");
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap_or_default();
    let args = [
        "validate",
        "fill.exp.toml",
        "--data",
        "times.csv",
        "--gpu",
        "rtx-a4000",
        "--quiet",
        "--jobs",
        "1",
        "--cache",
        cache,
    ];
    let (stdout, stderr) = ptxperf(&dir, &[&args[..], &["--json", "--timings"]].concat());
    let v = parse(&stdout);
    let results = v["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3);
    let mut per = Vec::new();
    for r in &results {
        if r["status"] == "measured_failed" {
            assert_eq!(r["timings"], Value::Null, "not run: no breakdown");
            continue;
        }
        let t = &r["timings"];
        check_breakdown(t);
        // A cold cache: NVRTC compiled it.
        assert!(seconds(t, "nvrtc_s") > 0.0, "{t}");
        assert!(seconds(t, "emulation_s") > 0.0, "{t}");
        assert!(seconds(t, "models_s") > 0.0, "{t}");
        assert_eq!(count(t, "ptx_cache_hits"), 0, "{t}");
        per.push(t);
    }
    assert_eq!(per.len(), 2);
    check_totals(&v["timings"], &per);
    check_table(&stderr, 2);

    // Warm: the PTX comes from the cache, NVRTC counts 0 s and a hit.
    let (text, _) = ptxperf(&dir, &[&args[..], &["--timings"]].concat());
    check_table(&text, 2);
    assert!(text.contains("cache hits: PTX 2, results 0"), "{text}");
    let nvrtc = row(&text, "nvrtc").unwrap_or_default();
    assert_eq!(nvrtc.get(2), Some(&"0.000"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
