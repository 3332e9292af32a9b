//! CUDA source lines and costs in the CLI (issue 27 items 2 and 3): faults
//! name the `.cu` line with its text and the PTX line; `characterize` and
//! `predict` rank CUDA lines by the timing model's cost, so a kernel's
//! bank-conflicting line comes first; `predict` says why in one sentence.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::nvrtc_available;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory for one test's files.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-lines-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Run ptxperf in the repository root: (exit code, stdout, stderr).
fn ptxperf(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxperf: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run `args`, require exit code `code`, and require every `expect` string
/// in stdout and stderr together.
fn check(args: &[&str], code: i32, expect: &[&str]) -> String {
    let (c, out, err) = ptxperf(args);
    let all = format!("{out}{err}");
    assert_eq!(c, code, "ptxperf {args:?}:\n{all}");
    for e in expect {
        assert!(all.contains(e), "ptxperf {args:?}: no {e:?} in:\n{all}");
    }
    all
}

const OOB_CU: &str = "extern \"C\" __global__ void oob(const float *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i * 4];
    out[i] = x * 2.0f;
}
";

const OOB_SPEC: &str = r#"source = "oob.cu"
kernel = "oob"
grid = [1, 1, 1]
block = [64, 1, 1]

[[arg]]
name = "a"
type = "f32*"
len = 64
init = "iota"

[[arg]]
name = "out"
type = "f32*"
len = 64
init = "zeros"

[[arg]]
name = "n"
type = "i32"
value = 64
"#;

#[test]
fn a_fault_names_the_cu_line_its_text_and_the_ptx_line() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("fault");
    write(&dir.join("oob.cu"), OOB_CU);
    write(&dir.join("spec.toml"), OOB_SPEC);
    let spec = dir.join("spec.toml").display().to_string();
    // Thread 16 reads a[64], one past the end; line 4 is `float x = a[i * 4];`.
    let cu = format!("{}:4: error: kernel fault", dir.join("oob.cu").display());
    let ptx = format!("({}:", dir.join("oob.ptx").display());
    for cmd in ["run", "characterize", "predict"] {
        let mut args = vec![cmd, spec.as_str()];
        if cmd == "predict" {
            args.extend(["--gpu", "a100-sxm4-80gb"]);
        }
        check(
            &args,
            1,
            &[
                &cu,
                "thread (16,0,0)",
                "ld.global.f32",
                &ptx,
                "     4 |     float x = a[i * 4];",
            ],
        );
    }
}

/// `characterize --csv` rows of the CUDA-line table: (file:line, cost) in rank order.
fn cuda_rows(csv: &str) -> Vec<(String, f64)> {
    let mut rows = Vec::new();
    let mut inside = false;
    for l in csv.lines() {
        if l.starts_with("reconvergence,cuda_file") {
            inside = true;
            continue;
        }
        if inside && !l.is_empty() {
            let f: Vec<&str> = l.split(',').collect();
            let file = f[1].rsplit('/').next().unwrap_or(f[1]);
            rows.push((format!("{file}:{}", f[2]), f[3].parse().unwrap_or(f64::NAN)));
        }
    }
    rows
}

/// The `field` column of the CUDA-line row `at` (`file:line`) of
/// `characterize --csv`.
fn cuda_field(csv: &str, at: &str, field: &str) -> f64 {
    let header: Vec<&str> = csv
        .lines()
        .find(|l| l.starts_with("reconvergence,cuda_file"))
        .unwrap_or_else(|| panic!("no CUDA-line table in:\n{csv}"))
        .split(',')
        .collect();
    let col = header
        .iter()
        .position(|h| *h == field)
        .unwrap_or_else(|| panic!("no column {field} in {header:?}"));
    let row = csv
        .lines()
        .skip_while(|l| !l.starts_with("reconvergence,cuda_file"))
        .skip(1)
        .find(|l| {
            let f: Vec<&str> = l.split(',').collect();
            f.len() > 2 && format!("{}:{}", f[1].rsplit('/').next().unwrap_or(f[1]), f[2]) == at
        })
        .unwrap_or_else(|| panic!("no row {at} in:\n{csv}"));
    row.split(',')
        .nth(col)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Bytes a CUDA line's global accesses use over the bytes their sectors move.
fn sector_efficiency(csv: &str, at: &str) -> f64 {
    cuda_field(csv, at, "global_bytes") / (32.0 * cuda_field(csv, at, "global_sectors"))
}

/// One corpus case: the spec, `--set`s, the CUDA line that must cost the
/// most, and a string its row of the text table must hold. Returns the CSV.
fn check_top_line(spec: &str, sets: &[&str], top: &str) -> String {
    let mut args = vec!["characterize", spec, "--csv", "--reconvergence", "ipdom"];
    for s in sets {
        args.extend(["--set", s]);
    }
    let out = check(&args, 0, &[]);
    let rows = cuda_rows(&out);
    assert!(
        !rows.is_empty(),
        "{spec} {sets:?}: no CUDA lines in:\n{out}"
    );
    assert_eq!(rows[0].0, top, "{spec} {sets:?}: ranking {rows:?}");
    // Ranked by cost, not by executions: descending costs.
    assert!(
        rows.windows(2).all(|w| w[0].1 >= w[1].1),
        "{spec} {sets:?}: not by cost: {rows:?}"
    );
    out
}

#[test]
fn the_bank_conflicting_line_costs_the_most() {
    if !nvrtc_available() {
        return;
    }
    // bank_conflicts.cu:44 is `S[(threadIdx.x * BANK) % 512] = v;`: with
    // BANK = 16, 16-way conflicts; with BANK = 1 still the costliest (the
    // loop's shared stores), while the most executed lines are its loop's.
    for bank in ["BANK=16", "BANK=2", "BANK=1"] {
        check_top_line(
            "kernels/bank_conflicts/spec.toml",
            &[bank],
            "bank_conflicts.cu:44",
        );
    }
    let text = check(
        &[
            "characterize",
            "kernels/bank_conflicts/spec.toml",
            "--set",
            "BANK=16",
            "--reconvergence",
            "ipdom",
            "--lines",
            "3",
        ],
        0,
        &[
            "hot CUDA lines by cost on a100-sxm4-80gb",
            "S[(threadIdx.x * BANK) % 512] = v;",
        ],
    );
    let first_row = text
        .lines()
        .find(|l| l.contains("bank_conflicts.cu:"))
        .unwrap_or_default();
    assert!(
        first_row.contains("bank_conflicts.cu:44") && first_row.contains("16.00"),
        "{text}"
    );
    // The PTX view keeps the PTX lines, each with its CUDA line.
    check(
        &[
            "characterize",
            "kernels/bank_conflicts/spec.toml",
            "--set",
            "BANK=16",
            "--reconvergence",
            "ipdom",
            "--ptx-lines",
            "--lines",
            "1",
        ],
        0,
        &[
            "hot PTX lines by cost",
            "bank_conflicts.cu:44",
            "st_shared",
            "16.00",
        ],
    );
}

#[test]
fn predict_names_the_bank_conflict_and_its_line() {
    if !nvrtc_available() {
        return;
    }
    // A grid that fills an A100 so shared memory, not the launch, binds.
    let dir = workdir("predict");
    let src = root().join("kernels/bank_conflicts/bank_conflicts.cu");
    let cu = std::fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    write(&dir.join("bank_conflicts.cu"), &cu);
    let spec_path = root().join("kernels/bank_conflicts/spec.toml");
    let spec = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()))
        .replace("grid = [4, 1, 1]", "grid = [216, 1, 1]")
        .replace("ELEMS = 4096", "ELEMS = 221184")
        .replace("len = 512", "len = 27648");
    write(&dir.join("spec.toml"), &spec);
    let s = dir.join("spec.toml").display().to_string();
    let cases: [(&str, &[&str]); 2] = [
        (
            "BANK=16",
            &[
                "why (timing model): shared memory: shared accesses at bank_conflicts.cu:44 replay 16.0x: bank conflicts; pad the tile",
            ],
        ),
        (
            "BANK=8",
            &["shared accesses at bank_conflicts.cu:44 replay 8.0x: bank conflicts"],
        ),
    ];
    for (set, expect) in cases {
        let out = check(
            &[
                "predict",
                &s,
                "--gpu",
                "a100-sxm4-80gb",
                "--set",
                set,
                "--model",
                "timing",
            ],
            0,
            expect,
        );
        let first = out
            .lines()
            .skip_while(|l| !l.starts_with("hot CUDA lines"))
            .find(|l| l.contains("bank_conflicts.cu:"))
            .unwrap_or_default();
        assert!(first.contains("bank_conflicts.cu:44"), "{set}: {out}");
    }
    let json = check(
        &[
            "predict",
            &s,
            "--gpu",
            "a100-sxm4-80gb",
            "--set",
            "BANK=16",
            "--json",
        ],
        0,
        &[],
    );
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}):\n{json}"));
    assert_eq!(v["explanation"]["limit"], "shared memory", "{json}");
    assert_eq!(v["explanation"]["lines"][0]["line"], 44, "{json}");
    assert_eq!(v["hot_lines"][0]["line"], 44, "{json}");
    assert!(
        v["hot_lines"][0]["bank_replays"].as_f64().unwrap_or(0.0) > 0.0,
        "{json}"
    );
}

#[test]
fn the_uncoalesced_line_costs_the_most() {
    if !nvrtc_available() {
        return;
    }
    // coalescing.cu:36 is `a[idx] = a[idx] + a[idx];`. STRIDE = 1 gives
    // each thread a contiguous run, so a warp's lanes are a run apart: one
    // sector per lane, 4 of its 32 bytes used. STRIDE = 32 coalesces it.
    let spec = "kernels/coalescing/spec.toml";
    let at = "coalescing.cu:36";
    let bad = check_top_line(spec, &["STRIDE=1"], at);
    let good = check_top_line(spec, &["STRIDE=32"], at);
    let (e_bad, e_good) = (sector_efficiency(&bad, at), sector_efficiency(&good, at));
    assert!(e_bad < 0.25, "STRIDE=1 uses {e_bad} of its sectors:\n{bad}");
    assert!(
        e_good > 0.9,
        "STRIDE=32 uses {e_good} of its sectors:\n{good}"
    );
    let (c_bad, c_good) = (
        cuda_field(&bad, at, "cost_cycles"),
        cuda_field(&good, at, "cost_cycles"),
    );
    assert!(
        c_bad > 4.0 * c_good,
        "uncoalesced {c_bad} cycles, coalesced {c_good}"
    );
    // Coalesced, the loop's line runs more often than the access: the
    // ranking is by cost, not executions.
    assert!(
        cuda_field(&good, "coalescing.cu:35", "executions") > cuda_field(&good, at, "executions"),
        "{good}"
    );
    // transpose_naive.cu:17 reads a row (coalesced) and writes a column
    // (strided by N): the one memory line, and uncoalesced.
    let at = "transpose_naive.cu:17";
    let t = check_top_line("kernels/transpose_naive/spec.toml", &[], at);
    let e = sector_efficiency(&t, at);
    assert!(e < 0.6, "transpose uses {e} of its sectors:\n{t}");
    // The text table: the same line first, with its source.
    let text = check(
        &[
            "characterize",
            spec,
            "--set",
            "STRIDE=1",
            "--reconvergence",
            "ipdom",
            "--lines",
            "3",
        ],
        0,
        &[
            "hot CUDA lines by cost on a100-sxm4-80gb",
            "a[idx] = a[idx] + a[idx];",
        ],
    );
    let first_row = text
        .lines()
        .skip_while(|l| !l.starts_with("hot CUDA lines"))
        .find(|l| l.contains("coalescing.cu:"))
        .unwrap_or_default();
    assert!(first_row.contains("coalescing.cu:36"), "{text}");
}

/// `predict`'s text with its wrapped lines joined (single spaces).
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The memory limits of the timing model.
const MEMORY_LIMITS: [&str; 3] = ["DRAM bandwidth", "L2 bandwidth", "L1 bandwidth"];

#[test]
fn predict_names_the_uncoalesced_access_and_its_line() {
    if !nvrtc_available() {
        return;
    }
    // A grid of 432 blocks and 16 elements per thread: enough work on an
    // A100 that memory, not the launch, binds.
    let dir = workdir("uncoalesced");
    let src = root().join("kernels/coalescing/coalescing.cu");
    let cu = std::fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    write(&dir.join("coalescing.cu"), &cu);
    let spec_path = root().join("kernels/coalescing/spec.toml");
    let original = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()));
    let spec = original
        .replace("grid = [4, 1, 1]", "grid = [432, 1, 1]")
        .replace("ELEMS = 4096", "ELEMS = 884736");
    assert_ne!(spec, original, "the corpus spec changed: {spec}");
    write(&dir.join("spec.toml"), &spec);
    let s = dir.join("spec.toml").display().to_string();
    let predict = |set: &str, json: bool| {
        let mut args = vec!["predict", &s, "--gpu", "a100-sxm4-80gb", "--set", set];
        args.extend(if json {
            ["--json"].as_slice()
        } else {
            ["--model", "timing"].as_slice()
        });
        check(&args, 0, &[])
    };
    let bad = unwrapped(&predict("STRIDE=1", false));
    assert!(
        bad.contains(
            "global accesses at coalescing.cu:36 use 12% of the bytes they move: uncoalesced; make consecutive threads access consecutive addresses"
        ),
        "{bad}"
    );
    let why = bad.split("why (timing model): ").nth(1).unwrap_or_default();
    assert!(
        MEMORY_LIMITS
            .iter()
            .any(|l| why.starts_with(&format!("{l}:"))),
        "{bad}"
    );
    let first = bad
        .split("hot CUDA lines")
        .nth(1)
        .and_then(|t| t.split("coalescing.cu:").nth(1))
        .unwrap_or_default();
    assert!(first.starts_with("36 "), "{bad}");
    // Coalesced, the same line is the hot one, but not called uncoalesced.
    let good = unwrapped(&predict("STRIDE=32", false));
    let why = good
        .split("why (timing model): ")
        .nth(1)
        .unwrap_or_default();
    assert!(why.contains("coalescing.cu:36"), "{good}");
    assert!(
        !why.split(" hot CUDA lines")
            .next()
            .unwrap_or_default()
            .contains("uncoalesced"),
        "{good}"
    );
    let json = predict("STRIDE=1", true);
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}):\n{json}"));
    let limit = v["explanation"]["limit"].as_str().unwrap_or_default();
    assert!(MEMORY_LIMITS.contains(&limit), "{json}");
    assert_eq!(v["explanation"]["lines"][0]["line"], 36, "{json}");
    let sentence = v["explanation"]["sentence"].as_str().unwrap_or_default();
    assert!(
        sentence.contains("coalescing.cu:36") && sentence.contains("uncoalesced"),
        "{json}"
    );
    let hot = &v["hot_lines"][0];
    assert_eq!(hot["line"], 36, "{json}");
    let used = hot["global_bytes"].as_f64().unwrap_or(f64::NAN)
        / (32.0 * hot["global_sectors"].as_f64().unwrap_or(f64::NAN));
    assert!(used < 0.25, "{json}");

    // transpose_naive at N = 512 on an RTX A4000: the strided writes of
    // transpose_naive.cu:17.
    let src = root().join("kernels/transpose_naive/transpose_naive.cu");
    let cu = std::fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    write(&dir.join("transpose_naive.cu"), &cu);
    let spec_path = root().join("kernels/transpose_naive/spec.toml");
    let original = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()));
    let spec = original
        .replace("grid = [4, 4, 1]", "grid = [32, 32, 1]")
        .replace("N = 64", "N = 512");
    assert_ne!(spec, original, "the corpus spec changed: {spec}");
    write(&dir.join("transpose.toml"), &spec);
    let t = dir.join("transpose.toml").display().to_string();
    let json = check(&["predict", &t, "--gpu", "rtx-a4000", "--json"], 0, &[]);
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}):\n{json}"));
    let limit = v["explanation"]["limit"].as_str().unwrap_or_default();
    assert!(MEMORY_LIMITS.contains(&limit), "{json}");
    assert_eq!(v["explanation"]["lines"][0]["line"], 17, "{json}");
    assert!(
        v["explanation"]["sentence"]
            .as_str()
            .unwrap_or_default()
            .contains("transpose_naive.cu:17 use 40% of the bytes they move: uncoalesced"),
        "{json}"
    );
    assert_eq!(v["hot_lines"][0]["line"], 17, "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Four independent multiply-add chains per thread in `REAL`: arithmetic
/// only, on one pipe.
const CHAINS_CU: &str = "extern \"C\" __global__ void chains(const REAL *x, REAL *y, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    REAL a = x[i], b = a + 1, c = a + 2, d = a + 3;
    for (int k = 0; k < iters; ++k) {
        a = a * (REAL)0.999 + (REAL)0.001;
        b = b * (REAL)0.998 + (REAL)0.002;
        c = c * (REAL)0.997 + (REAL)0.003;
        d = d * (REAL)0.996 + (REAL)0.004;
    }
    y[i] = a + b + c + d;
}
";

/// The chains' spec in `real` (`double` or `float`, buffers of `ty`).
fn chains_spec(real: &str, ty: &str) -> String {
    format!(
        r#"source = "chains.cu"
kernel = "chains"
defines = {{ REAL = "{real}", N = 110592, ITERS = 64 }}
grid = ["N/256", 1, 1]
block = [256, 1, 1]

[[arg]]
name = "x"
type = "{ty}*"
len = "N"
init = "iota"

[[arg]]
name = "y"
type = "{ty}*"
len = "N"

[[arg]]
name = "iters"
type = "i32"
value = "ITERS"
"#
    )
}

#[test]
fn predict_names_the_pipe_that_binds_and_its_lines() {
    if !nvrtc_available() {
        return;
    }
    let dir = workdir("pipes");
    write(&dir.join("chains.cu"), CHAINS_CU);
    write(&dir.join("double.toml"), &chains_spec("double", "f64"));
    write(&dir.join("float.toml"), &chains_spec("float", "f32"));
    let spec = |name: &str| dir.join(name).display().to_string();
    // FP64 on a GeForce card (2 FP64 lanes an SM against 128 FP32): the
    // FP64 pipe, at the four chain lines (chains.cu:6-9).
    let double = spec("double.toml");
    let text = unwrapped(&check(
        &[
            "predict",
            &double,
            "--gpu",
            "geforce-rtx-3090",
            "--model",
            "timing",
        ],
        0,
        &[],
    ));
    assert!(
        text.contains(
            "why (timing model): compute issue: the FP64 pipe binds: FP64 arithmetic at chains.cu:6-9 keeps it busiest"
        ),
        "{text}"
    );
    let first = text
        .split("hot CUDA lines")
        .nth(1)
        .and_then(|t| t.split("chains.cu:").nth(1))
        .unwrap_or_default();
    assert!(first.contains("FP64 pipe"), "{text}");
    let json = check(
        &["predict", &double, "--gpu", "geforce-rtx-3090", "--json"],
        0,
        &[],
    );
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}):\n{json}"));
    assert_eq!(v["explanation"]["limit"], "compute issue", "{json}");
    let hot = &v["hot_lines"][0];
    assert_eq!(hot["pipe"], "FP64 pipe", "{json}");
    let (pipe, issue) = (
        hot["pipe_cycles"].as_f64().unwrap_or(0.0),
        hot["issue_cycles"].as_f64().unwrap_or(f64::INFINITY),
    );
    // 2 FP64 warp instructions a clock against 4 issued: at least twice.
    assert!(pipe >= 2.0 * issue, "{json}");
    assert_eq!(hot["cost_cycles"].as_f64(), Some(pipe), "{json}");
    // The same chains in FP32 on an A100 (64 FP32 lanes an SM, 4 issue
    // slots a clock): the FP32 pipe.
    check(
        &[
            "predict",
            &spec("float.toml"),
            "--gpu",
            "a100-sxm4-80gb",
            "--model",
            "timing",
        ],
        0,
        &["compute issue: the FP32 pipe binds: FP32 arithmetic at chains.cu:6-9"],
    );
    // characterize prices the pipe in its CSV.
    let csv = check(
        &[
            "characterize",
            &double,
            "--gpu",
            "geforce-rtx-3090",
            "--csv",
        ],
        0,
        &[],
    );
    assert!(
        cuda_field(&csv, "chains.cu:6", "pipe_cycles") > 0.0,
        "{csv}"
    );
    assert_eq!(
        cuda_field(&csv, "chains.cu:6", "pipe_cycles"),
        cuda_field(&csv, "chains.cu:6", "cost_cycles"),
        "{csv}"
    );
    assert!(csv.contains(",FP64 pipe,"), "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}
