//! docs/json.md against the binary: for every table of the doc marked
//! `<!-- keys: NAME -->`, the keys it lists are exactly the keys of the JSON
//! object NAME that `characterize`, `predict`, `tune` and `validate` print.
//! The kernel is PTX, so only `validate` (which compiles CUDA) needs NVRTC;
//! without it that part is skipped with a message, except on CI.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use serde_json::Value;

use common::nvrtc_available;

/// out[i] = in[i] * 2 for i < n, with a shared-memory round trip so the
/// shared-memory fields are exercised.
const PTX: &str = r#".version 7.0
.target sm_50
.address_size 64
.file 1 "twice.cu"

.visible .entry twice(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .shared .align 4 .b8 buf[4096];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    .loc 1 3 5
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd3, %rd4;
    .loc 1 4 5
    ld.global.f32 %f1, [%rd5];
    mul.wide.u32 %rd6, %r4, 4;
    mov.u64 %rd7, buf;
    add.s64 %rd7, %rd7, %rd6;
    st.shared.f32 [%rd7], %f1;
    ld.shared.f32 %f2, [%rd7];
    add.f32 %f2, %f2, %f2;
    cvta.to.global.u64 %rd3, %rd2;
    add.s64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
"#;

const DOC: &str = "docs/json.md";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-json-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    std::fs::write(dir.join("twice.ptx"), PTX).expect("write ptx");
    let spec = common::MapSpec {
        source: "twice.ptx",
        kernel: "twice",
        defines: "N = 8192, BX = 128",
        grid: "(N + BX - 1) / BX",
        block: "BX",
        input: "in",
        n_type: "u32",
    };
    std::fs::write(dir.join("spec.toml"), spec.text()).expect("write spec");
    dir
}

/// Run ptxperf in `dir`; require success and JSON on stdout.
fn json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxperf: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ptxperf {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn doc() -> String {
    let path = root().join(DOC);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The keys of the table after `<!-- keys: NAME -->`: every backticked word
/// of each row's first cell.
fn doc_keys(doc: &str, name: &str) -> BTreeSet<String> {
    let marker = format!("<!-- keys: {name} -->");
    let Some(at) = doc.find(&marker) else {
        panic!("{DOC} has no table marked {marker}");
    };
    let rows = doc[at + marker.len()..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2); // header and separator
    let mut keys = BTreeSet::new();
    for row in rows {
        let cell = row.trim_start_matches('|').split('|').next().unwrap_or("");
        keys.extend(cell.split('`').skip(1).step_by(2).map(str::to_string));
    }
    assert!(!keys.is_empty(), "{DOC}: the table {name} lists no key");
    keys
}

fn keys(v: &Value, what: &str) -> BTreeSet<String> {
    match v.as_object() {
        Some(m) => m.keys().cloned().collect(),
        None => panic!("{what} is not an object: {v}"),
    }
}

fn first<'a>(v: &'a Value, what: &str) -> &'a Value {
    v.as_array()
        .and_then(|a| a.first())
        .unwrap_or_else(|| panic!("{what} is not a non-empty array: {v}"))
}

/// The doc's table `name` lists exactly the keys of `v`.
fn same(doc: &str, name: &str, v: &Value) {
    let documented = doc_keys(doc, name);
    let emitted = keys(v, name);
    let missing: Vec<_> = emitted.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&emitted).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "{DOC}, table {name}: undocumented keys {missing:?}, documented keys the binary does not print {stale:?}"
    );
}

#[test]
fn characterize_and_predict_json_are_what_the_doc_says() {
    let doc = doc();
    let dir = workdir("cp");
    let c = json(&dir, &["characterize", "spec.toml", "--json"]);
    same(&doc, "characterize", &c);
    same(&doc, "characterize.lines", first(&c["lines"], "lines"));
    same(
        &doc,
        "characterize.cuda_lines",
        first(&c["cuda_lines"], "cuda_lines"),
    );
    same(&doc, "characterize.model_inputs", &c["model_inputs"]);
    let both = json(
        &dir,
        &[
            "characterize",
            "spec.toml",
            "--json",
            "--reconvergence",
            "both",
        ],
    );
    assert_eq!(both.as_array().map(Vec::len), Some(2), "both: two objects");

    let p = json(
        &dir,
        &["predict", "spec.toml", "--gpu", "rtx-a4000", "--json"],
    );
    same(&doc, "predict", &p);
    same(&doc, "predict.models", first(&p["models"], "models"));
    same(&doc, "predict.occupancy", &p["occupancy"]);
    same(&doc, "predict.agreement", &p["agreement"]);
    same(&doc, "predict.cache", &p["cache"]);
    same(&doc, "predict.sampling", &p["sampling"]);
    same(&doc, "predict.explanation", &p["explanation"]);
    same(
        &doc,
        "predict.explanation.lines",
        first(&p["explanation"]["lines"], "explanation lines"),
    );
    same(
        &doc,
        "characterize.cuda_lines",
        first(&p["hot_lines"], "hot_lines"),
    );
    let several = json(
        &dir,
        &[
            "predict",
            "spec.toml",
            "--gpu",
            "rtx-a4000,h100-sxm5-80gb",
            "--json",
        ],
    );
    same(&doc, "predict.gpus", &several);
    same(&doc, "predict", first(&several["gpus"], "gpus"));
    same(
        &doc,
        "predict.comparison",
        first(&several["comparison"], "comparison"),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tune_json_is_what_the_doc_says() {
    let doc = doc();
    let dir = workdir("tune");
    let t = json(
        &dir,
        &[
            "tune",
            "spec.toml",
            "--gpu",
            "rtx-a4000",
            "--param",
            "BX=64,128",
            "--json",
            "--no-cache",
            "--quiet",
        ],
    );
    same(&doc, "tune", &t);
    same(&doc, "tune.counts", &t["counts"]);
    let config = first(&t["configurations"], "configurations");
    same(&doc, "tune.configurations", config);
    assert_eq!(config["result"]["status"], "predicted");
    same(&doc, "tune.result", &config["result"]);
    same(
        &doc,
        "tune.result.model",
        first(&config["result"]["models"], "models"),
    );
    let ranking = first(&t["rankings"], "rankings");
    same(&doc, "tune.ranking", ranking);
    same(&doc, "tune.ranking.top", first(&ranking["top"], "top"));
    same(&doc, "timings", &config["timings"]);
    same(&doc, "timings.totals", &t["timings"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same kernel in CUDA, as Kernel Tuner builds it (block_size_x
/// defined), and its experiment file (shared with the study's tests).
const CUDA: &str = include_str!("../../study/src/validation/testdata/twice.cu");
const EXPERIMENT: &str = include_str!("../../study/src/validation/testdata/twice.exp.toml");

/// Measured times of the CUDA kernel (Schoonhoven layout: parameters, then
/// the five measurement columns), one configuration measured as failed.
const TIMES: &str = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
                     64,0.010,0.010,0.009,0.0001,32\n\
                     128,0.008,0.008,0.008,0.0001,32\n\
                     256,nan,nan,nan,nan,0\n";

/// Another GPU's, where 64 was the fastest: it runs 0.010 ms in [`TIMES`],
/// over the best 0.008.
const OTHER_TIMES: &str = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
                           64,0.005,0.005,0.005,0.0001,32\n\
                           128,0.006,0.006,0.006,0.0001,32\n";

/// A work folder with the CUDA kernel, its experiment file and its times
/// (`times.csv`: [`TIMES`], `other.csv`: [`OTHER_TIMES`]).
fn validate_workdir(name: &str) -> PathBuf {
    let dir = workdir(name);
    std::fs::write(dir.join("twice.cu"), CUDA).expect("write cu");
    std::fs::write(dir.join("twice.exp.toml"), EXPERIMENT).expect("write experiment");
    std::fs::write(dir.join("times.csv"), TIMES).expect("write csv");
    std::fs::write(dir.join("other.csv"), OTHER_TIMES).expect("write csv");
    dir
}

#[test]
fn validate_json_is_what_the_doc_says() {
    if !nvrtc_available() {
        return;
    }
    let doc = doc();
    let dir = validate_workdir("validate");
    let v = json(
        &dir,
        &[
            "validate",
            "twice.exp.toml",
            "--data",
            "times.csv",
            "--gpu",
            "rtx-a4000",
            "--json",
            "--no-cache",
            "--quiet",
            "--transfer-from",
            "other.csv",
        ],
    );
    same(&doc, "validate", &v);
    same(&doc, "validate.models", first(&v["models"], "models"));
    same(&doc, "validate.bootstrap", &v["bootstrap"]);
    same(&doc, "validate.transfer", &v["transfer"]);
    same(
        &doc,
        "validate.transfer.passed_over",
        &v["transfer"]["passed_over"],
    );
    let ratio = v["transfer"]["ratio"].as_f64().unwrap_or(f64::NAN);
    assert!((ratio - 1.25).abs() < 1e-12, "{}", v["transfer"]);
    assert_eq!(v["transfer"]["configuration"], "block_size_x=64");
    // Two configurations predicted, with block_size_x 64 and 128: one
    // parameter with two values per model.
    let by_param = first(&v["by_parameter"], "by_parameter");
    same(&doc, "validate.by_parameter", by_param);
    let param = first(&by_param["parameters"], "by_parameter.parameters");
    same(&doc, "validate.by_parameter.parameters", param);
    assert_eq!(param["name"], "block_size_x");
    same(
        &doc,
        "validate.by_parameter.parameters.values",
        first(&param["values"], "by_parameter.parameters.values"),
    );
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    for r in results {
        same(&doc, "validate.results", r);
    }
    assert!(
        results[0]["parameters"]["block_size_x"].is_number(),
        "{}",
        results[0]
    );
    assert_eq!(results[2]["status"], "measured_failed");
    same(&doc, "timings", &results[0]["timings"]);
    same(&doc, "timings.totals", &v["timings"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--part`: the split file decides which configurations are drawn from,
/// the JSON says which part of which file, and an empty part is an error.
#[test]
fn validate_scores_one_part_of_the_split() {
    if !nvrtc_available() {
        return;
    }
    let dir = validate_workdir("validate-part");
    let csv = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n\
               64,0.010,0.010,0.009,0.0001,32\n\
               128,0.008,0.008,0.008,0.0001,32\n";
    std::fs::write(dir.join("times.csv"), csv).expect("write csv");
    let split =
        "salt = \"t\"\ncheck_percent = 30\n[[dataset]]\npath = \"times.csv\"\nrole = \"check\"\n";
    std::fs::write(dir.join("split.toml"), split).expect("write split");
    let args = |part: &'static str| {
        vec![
            "validate",
            "twice.exp.toml",
            "--data",
            "times.csv",
            "--gpu",
            "rtx-a4000",
            "--json",
            "--no-cache",
            "--quiet",
            "--model",
            "timing",
            "--part",
            part,
            "--split",
            "split.toml",
        ]
    };
    let v = json(&dir, &args("check"));
    assert_eq!(v["part"]["part"], "check");
    assert_eq!(v["part"]["role"], "check");
    assert_eq!(v["part"]["split"], "split.toml");
    assert_eq!(v["part"]["configurations"], 2);
    assert_eq!(v["sampled"], 2);
    // Each result says its part: the file's role makes both check.
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(r["part"], "check", "{r}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args("development"))
        .current_dir(&dir)
        .output()
        .expect("run ptxperf");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("times.csv: no configuration is in the development part of split.toml"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the scored configurations hold both parts of the split, the
/// errors by parameter are over the development part only.
#[test]
fn validate_errors_by_parameter_leave_the_check_part_out() {
    if !nvrtc_available() {
        return;
    }
    let dir = validate_workdir("validate-by-param-part");
    let mut csv = String::from("block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n");
    for b in [32, 64, 96, 128, 160, 192, 224, 256] {
        csv.push_str(&format!("{b},0.010,0.010,0.009,0.0001,32\n"));
    }
    std::fs::write(dir.join("times.csv"), csv).expect("write csv");
    // No [[dataset]] names the file: it is split by configuration.
    std::fs::write(dir.join("split.toml"), "salt = \"t\"\ncheck_percent = 50\n")
        .expect("write split");
    let v = json(
        &dir,
        &[
            "validate",
            "twice.exp.toml",
            "--data",
            "times.csv",
            "--gpu",
            "rtx-a4000",
            "--json",
            "--no-cache",
            "--quiet",
            "--model",
            "timing",
            "--split",
            "split.toml",
        ],
    );
    let results = v["results"].as_array().expect("results");
    let in_part = |p: &str| results.iter().filter(|r| r["part"] == p).count();
    let development = in_part("development");
    assert!(
        development >= 2 && in_part("check") >= 1,
        "this salt must put configurations in both parts: {results:?}"
    );
    let timing = first(&v["by_parameter"], "by_parameter");
    assert_eq!(timing["part"], "development");
    let values = timing["parameters"][0]["values"]
        .as_array()
        .expect("values");
    let scored: u64 = values.iter().filter_map(|x| x["scored"].as_u64()).sum();
    assert_eq!(scored as usize, development);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--transfer-from` another kernel's or another space's data is an error,
/// before anything is run.
#[test]
fn validate_refuses_to_transfer_from_another_space() {
    let dir = validate_workdir("validate-transfer");
    let csv = "block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n64,0.010,0.010,0.009,0.0001,32\n";
    std::fs::write(dir.join("times.csv"), csv).expect("write csv");
    let other = "block_size_y,mean_ms,median_ms,min_ms,std_ms,n\n64,0.010,0.010,0.009,0.0001,32\n";
    std::fs::write(dir.join("other.csv"), other).expect("write csv");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args([
            "validate",
            "twice.exp.toml",
            "--data",
            "times.csv",
            "--gpu",
            "rtx-a4000",
            "--quiet",
            "--no-cache",
            "--transfer-from",
            "other.csv",
        ])
        .current_dir(&dir)
        .output()
        .expect("run ptxperf");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "--transfer-from other.csv: the tunable parameters differ: [block_size_x] here, [block_size_y] in the other GPU's data"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--by-param` prints each model's errors by parameter value after the
/// scores: the headline names the parameter, the table its values.
#[test]
fn validate_by_param_prints_errors_by_parameter_value() {
    if !nvrtc_available() {
        return;
    }
    let dir = validate_workdir("validate-by-param");
    let run = |extra: &[&str]| {
        let (out, err, code) = validate_roofline(&dir, extra);
        assert_eq!(code, Some(0), "{err}");
        out
    };
    let out = run(&["--by-param", "--svg", "plots"]);
    // With --svg: the scatter, and the bars of the parameter.
    let mut written: Vec<String> = std::fs::read_dir(dir.join("plots"))
        .expect("plots folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    written.sort();
    assert_eq!(written.len(), 2, "{written:?}");
    assert!(
        written[0].ends_with("-roofline-by-block_size_x.svg"),
        "{written:?}"
    );
    assert!(written[1].ends_with("-roofline.svg"), "{written:?}");
    // One configuration per value: listed, but too few to compare.
    assert!(
        out.contains("errors by parameter, roofline: no parameter has two values with enough configurations to compare:"),
        "{out}"
    );
    assert!(out.contains("block_size_x"), "{out}");
    assert!(out.contains("64: ") && out.contains("128: "), "{out}");
    // Without the flag, no such table.
    let plain = run(&[]);
    assert!(!plain.contains("errors by parameter"), "{plain}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--by EXPR` groups the errors by the value of an expression of the
/// parameters, printed with the parameters' (it implies `--by-param`) and
/// written into the JSON under its text.
#[test]
fn validate_by_groups_errors_by_an_expression_of_the_parameters() {
    if !nvrtc_available() {
        return;
    }
    let dir = validate_workdir("validate-by-expression");
    let (out, err, code) = validate_roofline(&dir, &["--by", "block_size_x/64"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("errors by parameter"), "{out}");
    // 64 / 64 and 128 / 64: the groups 1 and 2.
    assert!(out.contains("block_size_x/64"), "{out}");
    assert!(out.contains("1: ") && out.contains("2: "), "{out}");
    let (out, err, code) = validate_roofline(&dir, &["--by", "block_size_x/64", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let params = first(&v["by_parameter"], "by_parameter")["parameters"]
        .as_array()
        .expect("parameters")
        .clone();
    let names: Vec<&str> = params.iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"block_size_x"), "{names:?}");
    assert!(names.contains(&"block_size_x/64"), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `validate` of the work folder's kernel and times on the RTX A4000 with
/// the roofline model, no cache, quiet, and `extra`: stdout, stderr, code.
fn validate_roofline(dir: &Path, extra: &[&str]) -> (String, String, Option<i32>) {
    let mut args = vec![
        "validate",
        "twice.exp.toml",
        "--data",
        "times.csv",
        "--gpu",
        "rtx-a4000",
        "--model",
        "roofline",
        "--no-cache",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

/// A `--by` expression that names no parameter of the data, or does not
/// parse, is refused before anything is compiled or run.
#[test]
fn validate_by_refuses_names_that_are_not_parameters() {
    let dir = validate_workdir("validate-by-unknown");
    let run = |expr: &str| validate_roofline(&dir, &["--by", expr]);
    let (_, err, code) = run("tile_size_x*block_size_x");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("times.csv: --by 'tile_size_x*block_size_x': `tile_size_x` is not a tunable parameter of this data (its parameters: block_size_x)"),
        "{err}"
    );
    let (_, err, code) = run("block_size_x*");
    assert_ne!(code, Some(0), "{err}");
    assert!(err.contains("--by 'block_size_x*': column 14:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The stdout, stderr and exit code of ptxperf in `dir`, told where this
/// process found NVRTC (the binary looks beside itself and the current
/// folder, and a target folder outside the repository has no `.venv` above).
fn run_in(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let out = common::ptxperf_in(dir, args);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// `--data` and `--gpu` pair up in order: unequal counts are an error
/// (exit 1) naming both counts, before anything is read or run.
#[test]
fn validate_pairs_each_data_file_with_one_gpu() {
    let dir = validate_workdir("validate-pairing");
    let cases = [
        (
            "--data a.csv --data b.csv --gpu rtx-a4000",
            "2 --data and 1 --gpu: give one --gpu per --data",
        ),
        (
            "--data a.csv --gpu rtx-a4000 --gpu geforce-rtx-3090",
            "1 --data and 2 --gpu: give one --gpu per --data",
        ),
        (
            "--data a.csv --gpu rtx-a4000 --data b.csv --gpu geforce-rtx-3090 --data c.csv",
            "3 --data and 2 --gpu",
        ),
        (
            "--data a.csv --gpu rtx-a4000 --data b.csv --gpu geforce-rtx-3090 --clock-mhz 1000",
            "--clock-mhz holds one GPU's clock",
        ),
    ];
    for (pairs, want) in cases {
        let mut args = vec!["validate", "twice.exp.toml", "--quiet", "--no-cache"];
        args.extend(pairs.split_whitespace());
        let (_, err, code) = run_in(&dir, &args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two data files on two GPUs: the JSON is what the doc says, each GPU's
/// object is the one that GPU alone prints (but for the command and the
/// wall times), the text ends with the shared-work line, and --jobs 1 and 3
/// print the same.
#[test]
fn validate_on_several_gpus_is_each_gpu_alone() {
    if !nvrtc_available() {
        return;
    }
    let doc = doc();
    let dir = validate_workdir("validate-multi");
    let base = [
        "validate",
        "twice.exp.toml",
        "--no-cache",
        "--quiet",
        "--model",
        "timing",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let pairs = [
        "--data",
        "times.csv",
        "--gpu",
        "rtx-a4000",
        "--data",
        "other.csv",
        "--gpu",
        "geforce-rtx-3090",
    ];
    fn as_str(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let json = |args: &[&str]| -> Value {
        let (out, err, code) = run_in(&dir, args);
        assert_eq!(code, Some(0), "ptxperf {args:?} failed:\n{err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
    };
    let multi = json(&as_str(&with(&[&pairs[..], &["--json"]].concat())));
    same(&doc, "validate.multi", &multi);
    same(&doc, "validate.multi.shared", &multi["shared"]);
    same(&doc, "timings.totals", &multi["timings"]);
    // Same arch: one compile and one emulation per measured configuration
    // (64, 128; 256 failed in a, absent from b), four predictions.
    let shared = &multi["shared"];
    assert_eq!(shared["configurations"], 3, "{shared}");
    assert_eq!(shared["ptx_compiled"], 2, "{shared}");
    assert_eq!(shared["emulations"], 2, "{shared}");
    assert_eq!(shared["predictions"], 4, "{shared}");
    let gpus = multi["gpus"].as_array().expect("gpus");
    assert_eq!(gpus.len(), 2);
    // Wall times and the command line differ from a run alone; the rest not.
    let strip = |v: &Value| -> Value {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            for k in ["command", "elapsed_seconds", "timings"] {
                m.remove(k);
            }
        }
        if let Some(results) = v["results"].as_array_mut() {
            for r in results {
                if let Some(m) = r.as_object_mut() {
                    m.remove("timings");
                }
            }
        }
        v
    };
    for (k, (data, gpu)) in [
        ("times.csv", "rtx-a4000"),
        ("other.csv", "geforce-rtx-3090"),
    ]
    .into_iter()
    .enumerate()
    {
        same(&doc, "validate", &gpus[k]);
        let alone = json(&as_str(&with(&["--data", data, "--gpu", gpu, "--json"])));
        assert_eq!(strip(&gpus[k]), strip(&alone), "{gpu}");
    }
    // The text: one table per GPU, then the shared work; the same on 1 and
    // 3 threads but for the wall time and the job count.
    let text = |jobs: &str| -> String {
        let args = with(&[&pairs[..], &["--jobs", jobs]].concat());
        let (out, err, code) = run_in(&dir, &as_str(&args));
        assert_eq!(code, Some(0), "{err}");
        out.lines()
            .filter(|l| !l.starts_with("wall time:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let one = text("1");
    assert_eq!(one, text("3"));
    assert_eq!(one.matches("GPU model: ").count(), 2, "{one}");
    assert!(
        one.contains(
            "shared work: 3 configurations on 2 GPUs: 2 PTX compiled and 0 from the cache (one per configuration and architecture), 2 emulations (one per distinct PTX; PTX that differs only in its .target is emulated once), served 4 GPU predictions"
        ),
        "{one}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
