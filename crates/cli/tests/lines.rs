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

/// One corpus case: the spec, `--set`s, the CUDA line that must cost the
/// most, and a string its row of the text table must hold.
fn check_top_line(spec: &str, sets: &[&str], top: &str) {
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
