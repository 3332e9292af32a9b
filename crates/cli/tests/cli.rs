//! End-to-end tests of the `ptxperf` binary: exit status (0 success, 1 user
//! error, 2 usage) and key output of each subcommand. Inputs are the corpus
//! and the examples of the repository; nothing needs a GPU. `compile` needs
//! NVRTC: it is skipped with a message when NVRTC is absent, unless CI is set.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::nvrtc_available;

/// The repository root (the binary runs there, as a user would).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ptxperf(args: &[&str]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args)
        .current_dir(root())
        .output();
    match out {
        Ok(o) => Outcome {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        },
        Err(e) => panic!("cannot run ptxperf: {e}"),
    }
}

/// Run `args`; require exit status `code` and every string of `needles` in
/// stdout (for 0) or stderr (otherwise).
fn check(args: &[&str], code: i32, needles: &[&str]) -> Outcome {
    let o = ptxperf(args);
    assert_eq!(
        o.code, code,
        "ptxperf {args:?}: exit {} (wanted {code})\nstdout:\n{}\nstderr:\n{}",
        o.code, o.stdout, o.stderr
    );
    let haystack = if code == 0 { &o.stdout } else { &o.stderr };
    for n in needles {
        assert!(
            haystack.contains(n),
            "ptxperf {args:?}: output lacks {n:?}:\n{haystack}"
        );
    }
    o
}

fn json(text: &str) -> serde_json::Value {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{text}"),
    }
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-cli-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir.join(name)
}

#[test]
fn usage_errors_exit_2() {
    check(&[], 2, &["Usage"]);
    check(&["no-such-command"], 2, &[]);
    check(
        &["predict", "--gpu", "a100-pcie-40gb"],
        2,
        &["launch spec or --profile"],
    );
    check(
        &[
            "predict",
            "kernels/map/spec.toml",
            "--profile",
            "x.toml",
            "--gpu",
            "a100-pcie-40gb",
        ],
        2,
        &["not both"],
    );
    check(
        &[
            "predict",
            "kernels/map/spec.toml",
            "--gpu",
            "a100-pcie-40gb",
            "--sample-ctas",
            "0",
        ],
        2,
        &["at least 1"],
    );
    check(
        &[
            "validate",
            "experiments/convolution.toml",
            "--data",
            "x.json",
            "--gpu",
            "geforce-rtx-3090",
            "--resume",
        ],
        2,
        &["--resume goes on from the profiles of --save-profiles DIR"],
    );
}

/// `validate --ptx-arch`: an architecture newer than a GPU's, or not an
/// architecture name, is refused (exit 1) before anything is compiled.
#[test]
fn validate_refuses_a_ptx_arch_no_gpu_can_build() {
    let run = |arch: &str, expect: &str| {
        check(
            &[
                "validate",
                "experiments/vector-add.toml",
                "--data",
                "data/measured/h100-sxm5-80gb/vector_add.json",
                "--gpu",
                "h100-sxm5-80gb",
                "--sample",
                "2",
                "--ptx-arch",
                arch,
            ],
            1,
            &[expect],
        )
    };
    run(
        "sm_100",
        "--ptx-arch sm_100: newer than h100-sxm5-80gb (sm_90)",
    );
    run(
        "compute_50",
        "--ptx-arch compute_50: not an architecture name",
    );
    run(
        "sm_30",
        "--ptx-arch sm_30: NVRTC compiles for sm_50 and newer",
    );
}

#[test]
fn check_accepts_corpus_ptx_and_locates_errors() {
    check(&["check", "kernels/map/sm_80.ptx"], 0, &["ok: 1 kernel"]);
    let bad = temp_path("bad.ptx");
    if let Err(e) = std::fs::write(
        &bad,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nnot_an_op.u32 %r1;\nret;\n}\n",
    ) {
        panic!("{e}");
    }
    let path = bad.display().to_string();
    check(&["check", &path], 1, &[&format!("{path}:6:")]);
    check(&["check", "does/not/exist.ptx"], 1, &["cannot read"]);
}

#[test]
fn cfg_prints_dot() {
    check(
        &[
            "cfg",
            "kernels/map/sm_80.ptx",
            "--kernel",
            "map_poly",
            "--dot",
        ],
        0,
        &["digraph", "bb0"],
    );
}

#[test]
fn cfg_says_which_blocks_abort() {
    // The switch of __pipeline_memcpy_async's zero-fill: its default block
    // traps, and the blocks that only jump there abort with it.
    check(
        &[
            "cfg",
            "kernels/async_copy/sm_80.ptx",
            "--kernel",
            "async_copy",
        ],
        0,
        &["(aborts: ends in or runs into a trap)", "ipdom: bb16"],
    );
}

#[test]
fn gpus_lists_the_catalog_and_rejects_unknown_ids() {
    check(
        &["gpus"],
        0,
        &[
            "a100-pcie-40gb",
            "geforce-gtx-280",
            "h100-sxm5-80gb",
            "tesla-v100-sxm2-16gb",
        ],
    );
    check(&["gpus", "no-such-gpu"], 1, &["no-such-gpu"]);
}

#[test]
fn run_executes_a_corpus_kernel_and_dumps_buffers() {
    let dir = temp_path("dump");
    let d = dir.display().to_string();
    check(
        &["run", "kernels/matmul_tiled/spec.toml", "--dump", &d],
        0,
        &["warp instructions"],
    );
    // C is 64 x 64 f32.
    match std::fs::metadata(dir.join("C.bin")) {
        Ok(m) => assert_eq!(m.len(), 64 * 64 * 4),
        Err(e) => panic!("C.bin: {e}"),
    }
    check(
        &["run", "kernels/map/spec.toml", "--set", "oops"],
        2,
        &["NAME=VALUE"],
    );
}

/// An argument whose type does not fit the kernel's parameter is refused
/// before the launch, naming the argument and both types (issue 27, point 7):
/// a float for an `int` parameter once ran and faulted 4.5 GB past a buffer.
#[test]
fn run_refuses_an_argument_of_the_wrong_type() {
    let ptx = root().join("kernels/map/sm_80.ptx");
    let ptx = ptx.display().to_string();
    let spec = |n_type| {
        common::MapSpec {
            source: &ptx,
            kernel: "map_poly",
            defines: "N = 256",
            grid: "N / 128",
            block: "128",
            input: "x",
            n_type,
        }
        .text()
    };
    let wrong = temp_path("wrong_type.toml");
    std::fs::write(&wrong, spec("f32")).expect("spec written");
    let w = wrong.display().to_string();
    check(
        &["run", &w],
        1,
        &["argument `n` is f32", "parameter 2", "integer parameter"],
    );
    let right = temp_path("right_type.toml");
    std::fs::write(&right, spec("i32")).expect("spec written");
    check(
        &["run", &right.display().to_string()],
        0,
        &["warp instructions"],
    );
}

/// `validate` refuses a data file that data/split.toml excludes, with the
/// reason (issue 26: the TITAN RTX pnpoly times are below reading the points).
#[test]
fn validate_refuses_an_excluded_data_file_with_the_reason() {
    let data = "../shared/data/groundtruth/kt-pnpoly/KT_pnpoly_RTX_Titan.json.gz";
    if !root().join(data).is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{data} is part of the ground truth CI has"
        );
        eprintln!("skipping: {data} not here (a user's machine)");
        return;
    }
    let args = [
        "validate",
        "experiments/pnpoly.toml",
        "--data",
        data,
        "--gpu",
        "titan-rtx",
        "--sample",
        "1",
    ];
    check(
        &args,
        1,
        &[
            "KT_pnpoly_RTX_Titan.json.gz: excluded from the ground truth by data/split.toml",
            "2e7 points",
            "--allow-excluded",
        ],
    );
    check(
        &[&args[..], &["--part", "check"]].concat(),
        1,
        &["excluded"],
    );
}

#[test]
fn measure_without_a_gpu_exits_1_with_the_reason() {
    // Without `--features gpu` the command exists and says how to get it;
    // built with it on a machine without a driver, it says so.
    let reason = if cfg!(feature = "gpu") {
        "no CUDA driver found"
    } else {
        "built without `--features gpu`"
    };
    let check_case = |args: &[&str]| check(args, 1, &[reason]);
    check_case(&["measure", "kernels/map/spec.toml"]);
    check_case(&[
        "measure",
        "kernels/map/spec.toml",
        "--ptx",
        "kernels/map/sm_80.ptx",
        "--compare",
        "--json",
    ]);
    check(&["measure", "kernels/map/spec.toml", "--reps", "x"], 2, &[]);
    check(&["measure", "--help"], 0, &["--compare", "Examples:"]);
}

#[test]
fn characterize_json_has_schema_1_keys() {
    let o = check(
        &["characterize", "kernels/fold_reduce/spec.toml", "--json"],
        0,
        &[],
    );
    let v = json(&o.stdout);
    for key in [
        "schema",
        "kernel",
        "grid",
        "block",
        "warp_instructions",
        "thread_instructions",
        "branches",
        "divergent_branches",
        "activity_factor",
        "max_reconvergence_depth",
        "memory_intensity",
        "memory_efficiency",
        "global_requests",
        "global_transactions",
        "shared_requests",
        "shared_bank_conflicts",
        "inter_thread_data_flow",
        "mimd_parallelism",
        "simd_parallelism",
        "instruction_mix",
        "lines",
    ] {
        assert!(v.get(key).is_some(), "characterize --json lacks {key}");
    }
    assert_eq!(v["schema"], 1);
    assert!(v["warp_instructions"].as_f64().is_some_and(|w| w > 0.0));
}

#[test]
fn characterize_reports_a_bad_spec_with_its_location() {
    let spec = temp_path("bad_spec.toml");
    if let Err(e) = std::fs::write(&spec, "source = \"k.ptx\"\nkernel = 3\n") {
        panic!("{e}");
    }
    let path = spec.display().to_string();
    check(&["characterize", &path], 1, &[&format!("{path}:2:")]);
}

#[test]
fn predict_from_a_hand_written_profile() {
    let o = check(
        &[
            "predict",
            "--profile",
            "examples/profiles/kothapalli-list-ranking.toml",
            "--gpu",
            "geforce-gtx-280",
            "--json",
        ],
        0,
        &[],
    );
    let v = json(&o.stdout);
    assert_eq!(v["schema"], 1);
    assert_eq!(v["gpu"], "geforce-gtx-280");
    assert!(v["occupancy"].is_object());
    let models = v["models"].as_array().map_or(0, Vec::len);
    assert!(models >= 8, "{models} models");
    check(
        &[
            "predict",
            "--profile",
            "examples/profiles/kothapalli-list-ranking.toml",
            "--gpu",
            "a100-pcie-40gb",
            "--model",
            "nope",
        ],
        2,
        &["nope"],
    );
}

/// A profile with a launch and nothing else predicts the launch overhead
/// alone, and says so on stderr; a profile with counts does not warn.
#[test]
fn predict_warns_on_a_profile_that_states_no_work() {
    let dir = std::env::temp_dir().join(format!("ptxperf-empty-profile-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let empty = dir.join("launch-only.toml");
    if let Err(e) = std::fs::write(&empty, "[launch]\ngrid = [80]\nblock = [128]\n") {
        panic!("cannot write {}: {e}", empty.display());
    }
    let empty = empty.to_string_lossy().into_owned();
    let args = [
        "predict",
        "--profile",
        &empty,
        "--gpu",
        "rtx-a4000",
        "--model",
        "timing",
    ];
    let o = check(&args, 0, &["launch"]);
    for needle in ["warning:", "launch-only.toml", "states no instructions"] {
        assert!(
            o.stderr.contains(needle),
            "stderr lacks {needle:?}:\n{}",
            o.stderr
        );
    }
    let worked = "examples/profiles/mwp-cwp-worked-example.toml";
    let o = check(
        &["predict", "--profile", worked, "--gpu", "rtx-a4000"],
        0,
        &[],
    );
    assert!(!o.stderr.contains("warning:"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The MWP-CWP worked example of the seed 002 slides, on the machine the
/// slides compute it for (FX 5600 at 1 GHz, 80 GB/s): the paper's rounding
/// gives the slides' 50,738 cycles (38,450 + 12,288) and MWP_peak_BW 28.57,
/// exact arithmetic 50,728.1875 (models.md 1.8).
#[test]
fn predict_reproduces_the_mwp_cwp_worked_example() {
    let args = [
        "predict",
        "--profile",
        "examples/profiles/mwp-cwp-worked-example.toml",
        "--gpu",
        "hong-kim-2009-example",
        "--model",
        "mwp-cwp",
        "--model",
        "mwp-cwp-paper",
    ];
    check(&args, 0, &["50738", "50728", "MWP 2.28 <= CWP 20.00"]);
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&check(&with_json, 0, &[]).stdout);
    let model = |name: &str| {
        v["models"]
            .as_array()
            .and_then(|ms| ms.iter().find(|m| m["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {v}"))
    };
    let (exact, paper) = (model("mwp-cwp"), model("mwp-cwp-paper"));
    assert_eq!(exact["cycles"].as_f64(), Some(50_728.187_5), "{exact}");
    assert_eq!(paper["cycles"].as_f64(), Some(50_738.0), "{paper}");
    assert_eq!(
        paper["breakdown"]["exec_cycles_app"].as_f64(),
        Some(38_450.0)
    );
    assert_eq!(paper["breakdown"]["synch_cost"].as_f64(), Some(12_288.0));
    assert_eq!(paper["breakdown"]["mwp_peak_bw"].as_f64(), Some(28.57));
}

/// A profile with only barriers: the seed models that count arithmetic or
/// memory work have nothing to predict from. By default the others still
/// print and the failures are named; a failing model asked for by name, or
/// a profile no model can predict, exits 1.
#[test]
fn predict_names_default_models_that_cannot_predict() {
    let path = temp_path("barriers.toml");
    let write = |text: &str| {
        if let Err(e) = std::fs::write(&path, text) {
            panic!("{}: {e}", path.display());
        }
    };
    let launch = "kernel = \"k\"\n[launch]\ngrid = [64, 1, 1]\nblock = [256, 1, 1]\n";
    write(&format!(
        "{launch}[per_thread.max]\nbarrier = 100\n[per_thread.mean]\nbarrier = 100\n\
         [thread_instructions]\nbarrier = 1638400\n[warp_instructions]\nbarrier = 51200\n"
    ));
    let file = path.display().to_string();
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "predict",
            "--profile",
            file.as_str(),
            "--gpu",
            "h100-sxm5-80gb",
        ];
        a.extend_from_slice(extra);
        a
    };
    let table = check(
        &args(&[]),
        0,
        &["timing", "kothapalli-max", "not predicted: "],
    );
    let failed_rows = table.stdout.matches("not predicted").count();
    let v = json(&check(&args(&["--json"]), 0, &[]).stdout);
    let failed: Vec<&str> = v["failed"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["name"].as_str()).collect())
        .unwrap_or_default();
    let ran: Vec<&str> = v["models"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(failed.contains(&"kothapalli-max"), "{v}");
    assert!(ran.contains(&"timing") && ran.contains(&"mwp-cwp"), "{v}");
    assert_eq!(failed.len(), failed_rows, "{}", table.stdout);
    assert_eq!(failed.len() + ran.len(), 9, "{v}");
    assert!(
        v["failed"][0]["error"]
            .as_str()
            .is_some_and(|e| !e.is_empty())
    );
    check(
        &args(&["--model", "kothapalli-max"]),
        1,
        &[
            &file,
            "kothapalli-max: predicted cycles must be a positive finite number",
        ],
    );
    // Nothing executed: only the launch-bound timing model predicts, and
    // the spread line, which needs two models, is left out.
    write(&format!("{launch}[warp_instructions]\nint_add = 0\n"));
    let alone = check(&args(&[]), 0, &["timing", "not predicted: "]);
    assert!(!alone.stdout.contains("spread"), "{}", alone.stdout);
    // A launch no GPU can hold: no model runs at all.
    write(
        "kernel = \"k\"\n[launch]\ngrid = [1, 1, 1]\nblock = [4096, 1, 1]\n[warp_instructions]\nint_add = 1\n",
    );
    let o = check(
        &args(&[]),
        1,
        &[&file, ": error: ", "4096 threads per block"],
    );
    assert!(!o.stderr.contains("error: error"), "{}", o.stderr);
}

/// A conversion-bound kernel on the H100 (1,056 blocks of 256 threads),
/// with `workload` appended to its profile; returns the profile's path.
fn convert_profile(name: &str, workload: &str) -> String {
    let path = temp_path(name);
    let text = format!(
        "kernel = \"k\"\n[launch]\ngrid = [1056, 1, 1]\nblock = [256, 1, 1]\n\
         [warp_instructions]\nconvert = 27033600.0\nint_add = 8448.0\n{workload}"
    );
    if let Err(e) = std::fs::write(&path, text) {
        panic!("{}: {e}", path.display());
    }
    path.display().to_string()
}

/// A profile with ptxas's spills gets a line that gives them and says how
/// far the timing model's charge for them goes; one without gets none.
#[test]
fn predict_says_where_spills_may_cost_more() {
    let spills = "[analysis.spills]\nstore_bytes = 640\nload_bytes = 572\n\
                  static_instructions = 2715\nstack_frame_bytes = 240\n";
    let file = convert_profile("spills.toml", spills);
    let o = predict_h100(
        &file,
        &[],
        false,
        0,
        &[
            "register spills (ptxas): 640 B of spill stores and 572 B of spill loads",
            "stack frame 240 B",
            "inside a hot",
        ],
    );
    assert!(!o.stdout.contains("error"), "{}", o.stdout);
    // The JSON holds the same sentence, unwrapped.
    let v = json(&predict_h100(&file, &[], true, 0, &[]).stdout);
    let notes = v["notes"].as_array().cloned().unwrap_or_default();
    let note = notes
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("register spills (ptxas): 640 B"))
        .unwrap_or_else(|| panic!("no spill note in {v}"));
    assert!(
        note.contains("inside a hot loop can cost several times"),
        "{note}"
    );
    let plain = convert_profile("no-spills.toml", "");
    let o = predict_h100(&plain, &[], false, 0, &["timing"]);
    assert!(!o.stdout.contains("register spills"), "{}", o.stdout);
    let v = json(&predict_h100(&plain, &[], true, 0, &[]).stdout);
    assert_eq!(v["notes"], serde_json::json!([]), "{v}");
}

/// Machine code past what issues at full rate gets a line that gives the
/// rate the timing model leaves it and says whether the GPU's fetch was
/// measured; code that fits gets none.
#[test]
fn predict_says_how_far_its_fetch_rate_goes() {
    let big = convert_profile("big-code.toml", "[analysis.spills]\nsass_bytes = 204800\n");
    predict_h100(
        &big,
        &[],
        false,
        0,
        &[
            "machine code: 200.0 KB (ptxas), past the 32 KB that issue at full rate",
            "(measured)",
        ],
    );
    let on = |file: &str, gpu: &str, needles: &[&str]| {
        check(
            &[
                "predict",
                "--profile",
                file,
                "--gpu",
                gpu,
                "--model",
                "timing",
            ],
            0,
            needles,
        )
    };
    on(
        &big,
        "geforce-gtx-1080-ti",
        &[
            "this GPU's instruction fetch was not measured",
            "at 4.00x the size",
            "on Maxwell and Pascal",
        ],
    );
    let ampere = on(&big, "geforce-rtx-3090", &["was not measured", "at 1.00x"]);
    assert!(!ampere.stdout.contains("Maxwell"), "{}", ampere.stdout);
    // Fermi: the catalog gives no instruction-cache size, and says so.
    on(
        &big,
        "tesla-c2075",
        &["at 1.00x the size (this GPU's instruction cache is not in the catalog"],
    );
    let small = convert_profile("small-code.toml", "[analysis.spills]\nsass_bytes = 4096\n");
    let o = on(&small, "geforce-gtx-1080-ti", &["timing"]);
    assert!(!o.stdout.contains("machine code"), "{}", o.stdout);
}

/// Atomics whose lanes meet on one word get a line that says the timing
/// row is a lower bound; atomics on different words get none.
#[test]
fn predict_says_where_contended_atomics_cost_more() {
    let atomics = |ways: f64| {
        format!(
            "[atomics]\nglobal_instructions = 32768\nthread_operations = 1048576\n\
             mean_conflict_ways = {ways}\n"
        )
    };
    let one_word = convert_profile("atomics-one-word.toml", &atomics(32.0));
    let o = predict_h100(&one_word, &[], false, 0, &["atomics on one word"]);
    let text = o.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "atomics on one word: a warp's atomic sends 32.0 of its lanes to the same word",
        "(1048576 thread-level operations)",
        "read its time as a lower bound",
    ] {
        assert!(text.contains(needle), "no {needle:?} in:\n{}", o.stdout);
    }
    assert!(!o.stdout.contains("error"), "{}", o.stdout);
    let v = json(&predict_h100(&one_word, &[], true, 0, &[]).stdout);
    let notes = v["notes"].as_array().cloned().unwrap_or_default();
    assert!(
        notes
            .iter()
            .filter_map(|n| n.as_str())
            .any(|n| n.contains("434.7 us measured on an H100")),
        "{v}"
    );
    let spread = convert_profile("atomics-spread.toml", &atomics(1.2));
    let o = predict_h100(&spread, &[], false, 0, &["timing"]);
    assert!(!o.stdout.contains("atomics on one word"), "{}", o.stdout);
}

/// `predict --profile FILE --gpu h100-sxm5-80gb --model timing` with `extra`
/// flags: the JSON with `json`, else the table (exit status `code`).
fn predict_h100(
    file: &str,
    extra: &[&str],
    json_out: bool,
    code: i32,
    needles: &[&str],
) -> Outcome {
    let mut args = vec![
        "predict",
        "--profile",
        file,
        "--gpu",
        "h100-sxm5-80gb",
        "--model",
        "timing",
    ];
    if json_out {
        args.push("--json");
    }
    args.extend(extra);
    check(&args, code, needles)
}

/// The timing model's figure `key` ("seconds" or a breakdown entry).
fn timing_figure(v: &serde_json::Value, key: &str) -> f64 {
    let model = &v["models"][0];
    let x = match key {
        "seconds" => model["seconds"].as_f64(),
        _ => model["breakdown"][key].as_f64(),
    };
    x.unwrap_or_else(|| panic!("no {key} in {v}"))
}

/// At half the rated clock the timing model's time doubles, all but the
/// launch overhead.
#[test]
fn predict_runs_at_the_clock_given() {
    let file = convert_profile("clock.toml", "");
    let run = |extra: &[&str]| json(&predict_h100(&file, extra, true, 0, &[]).stdout);
    let (rated, held) = (run(&[]), run(&["--clock-mhz", "990"]));
    assert_eq!(rated["clock_mhz"], 1980.0);
    assert_eq!(held["clock_mhz"], 990.0);
    assert_eq!(held["rated_clock_mhz"], 1980.0);
    let sm = timing_figure(&held, "sm_seconds") / timing_figure(&rated, "sm_seconds");
    assert!((sm - 2.0).abs() < 1e-9, "SM time x{sm}");
    // The launch overhead (a few microseconds) does not scale.
    let total = timing_figure(&held, "seconds") / timing_figure(&rated, "seconds");
    assert!(total > 1.95 && total < 2.0, "time x{total}");
    predict_h100(
        &file,
        &["--clock-mhz", "990"],
        false,
        0,
        &["core clock 990 MHz (--clock-mhz; rated boost 1980 MHz)"],
    );
    predict_h100(
        &file,
        &["--clock-mhz", "0"],
        false,
        2,
        &["--clock-mhz: a core clock of 0 MHz is outside 1 to 10000 MHz"],
    );
    predict_h100(&file, &["--clock-mhz", "fast"], false, 2, &["--clock-mhz"]);
}

/// Half the kernel's conversions are 8/16-bit unsigned to FP32: on the H100
/// its timing prediction follows `--compiler`.
#[test]
fn predict_follows_the_compiler_given() {
    let file = convert_profile(
        "narrow-cvt.toml",
        "[workload]\nnarrow_uint_to_f32_convert_fraction = 0.5\n",
    );
    let seconds = |compiler: &str| {
        let extra: &[&str] = if compiler.is_empty() {
            &[]
        } else {
            &["--compiler", compiler]
        };
        timing_figure(
            &json(&predict_h100(&file, extra, true, 0, &[]).stdout),
            "seconds",
        )
    };
    let (unknown, v12, v13) = (seconds(""), seconds("12.9"), seconds("13.0"));
    // Unknown is taken as 12.x; with 13.0 half the conversions leave the
    // conversion pipe, which binds, so the time falls by close to half.
    assert_eq!(unknown, v12);
    assert!(
        v13 < 0.6 * v12 && v13 > 0.4 * v12,
        "13.0: {v13} s, 12.9: {v12} s"
    );
    predict_h100(
        &file,
        &["--compiler", "new"],
        false,
        2,
        &["`new` is not a release like 12.9 or 13.0"],
    );
}

#[test]
fn predict_from_a_launch_spec_gives_every_model() {
    let o = check(
        &[
            "predict",
            "kernels/matmul_tiled/spec.toml",
            "--gpu",
            "a100-pcie-40gb",
            "--json",
        ],
        0,
        &[],
    );
    let v = json(&o.stdout);
    assert_eq!(v["schema"], 1);
    assert_eq!(v["gpu"], "a100-pcie-40gb");
    let models = match v["models"].as_array() {
        Some(m) => m.clone(),
        None => panic!("no models array"),
    };
    assert!(models.len() >= 8);
    for m in &models {
        let s = m["seconds"].as_f64().unwrap_or(f64::NAN);
        assert!(s.is_finite() && s > 0.0, "{m}");
    }
    assert_eq!(v["cache"]["gpu"], "a100-pcie-40gb");
    // The table form names the kernel, the occupancy and the cache model.
    check(
        &[
            "predict",
            "kernels/fold_reduce/spec.toml",
            "--gpu",
            "tesla-v100-sxm2-16gb",
            "--model",
            "roofline",
            "--sample-ctas",
            "2",
        ],
        0,
        &["fold_sum", "occupancy", "cache model", "roofline"],
    );
    check(
        &["predict", "kernels/map/spec.toml", "--gpu", "no-such-gpu"],
        1,
        &["no-such-gpu"],
    );
}

/// `--gpu A --gpu B,C`: one emulation, each GPU's object exactly as a
/// single-GPU run prints it, and the GPUs compared by the timing model.
#[test]
fn predict_on_several_gpus_compares_them() {
    let spec = "kernels/matmul_tiled/spec.toml";
    let ids = ["a100-pcie-40gb", "h100-sxm5-80gb", "rtx-a4000"];
    let o = check(
        &[
            "predict",
            spec,
            "--gpu",
            ids[0],
            "--gpu",
            "h100-sxm5-80gb,rtx-a4000",
            "--json",
        ],
        0,
        &[],
    );
    let v = json(&o.stdout);
    let gpus = v["gpus"].as_array().cloned().unwrap_or_default();
    assert_eq!(gpus.len(), 3, "{v}");
    for (g, id) in gpus.iter().zip(ids) {
        let alone = check(&["predict", spec, "--gpu", id, "--json"], 0, &[]);
        assert_eq!(
            g,
            &json(&alone.stdout),
            "{id}: not what predict --gpu {id} prints"
        );
    }
    assert_eq!(v["failed_gpus"].as_array().map(Vec::len), Some(0), "{v}");
    let rows = v["comparison"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 3, "{v}");
    let mut last = 0.0;
    for r in &rows {
        assert_eq!(r["model"], "timing", "{r}");
        let id = r["gpu"].as_str().unwrap_or_default();
        let timing = gpus
            .iter()
            .find(|g| g["gpu"] == id)
            .and_then(|g| g["models"].as_array())
            .and_then(|m| m.iter().find(|m| m["name"] == "timing"))
            .map(|m| m["seconds"].clone());
        assert_eq!(timing.as_ref(), Some(&r["seconds"]), "{id}");
        let rel = r["relative_to_fastest"].as_f64().unwrap_or(f64::NAN);
        assert!(rel >= 1.0 && rel >= last, "{rows:?}");
        last = rel;
    }
    assert_eq!(rows[0]["relative_to_fastest"].as_f64(), Some(1.0));
    // The table: a table per GPU, then the comparison.
    let t = check(
        &["predict", spec, "--gpu", "rtx-a4000,h100-sxm5-80gb"],
        0,
        &[
            "on NVIDIA RTX A4000",
            "comparison by the timing model (recommended), fastest first",
            "vs fastest",
            "1.00x",
        ],
    );
    assert_eq!(t.stdout.matches("kernel ").count(), 2, "{}", t.stdout);
    // A comma list and repeated flags are the same; a GPU twice, a clock or
    // an SVG for several GPUs are usage errors.
    check(
        &["predict", spec, "--gpu", "rtx-a4000,rtx-a4000"],
        2,
        &["--gpu rtx-a4000 is given twice"],
    );
    check(
        &[
            "predict",
            spec,
            "--gpu",
            "rtx-a4000,h100-sxm5-80gb",
            "--clock-mhz",
            "1500",
        ],
        2,
        &["--clock-mhz is one GPU's clock"],
    );
    check(
        &[
            "predict",
            spec,
            "--gpu",
            "rtx-a4000",
            "--gpu",
            "h100-sxm5-80gb",
            "--svg",
            "x.svg",
        ],
        2,
        &["--svg takes one --gpu"],
    );
    check(
        &["predict", spec, "--gpu", "rtx-a4000,no-such-gpu"],
        1,
        &["no-such-gpu"],
    );
}

#[test]
fn predict_writes_an_svg_roofline() {
    let svg = temp_path("roof.svg");
    let s = svg.display().to_string();
    check(
        &[
            "predict",
            "kernels/map/spec.toml",
            "--gpu",
            "h100-sxm5-80gb",
            "--svg",
            &s,
        ],
        0,
        &["kernel map_poly"],
    );
    match std::fs::read_to_string(&svg) {
        Ok(text) => assert!(text.contains("<svg"), "not an SVG"),
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn petri_runs_one_configuration() {
    check(
        &["petri", "--warps", "4", "--xa", "10", "--xg", "2"],
        0,
        &["Petri-net", "4 warps", "steps"],
    );
    check(&["petri", "--warps", "0"], 2, &["at least 1"]);
}

#[test]
fn fit_csv_recovers_a_line() {
    let csv = temp_path("m.csv");
    let text = "gpu,benchmark,x,time,unit,repetition\nA,b,1,2.0,ms,1\nA,b,2,4.0,ms,1\nA,b,3,6.0,ms,1\nA,b,4,8.0,ms,1\nA,b,5,10.0,ms,1\n";
    if let Err(e) = std::fs::write(&csv, text) {
        panic!("{e}");
    }
    let p = csv.display().to_string();
    check(
        &["fit", "csv", &p, "--form", "linear"],
        0,
        &["linear", "100.0 %"],
    );
    check(&["fit", "csv", "no/such.csv"], 1, &["no/such.csv"]);
}

#[test]
fn compile_makes_ptx_that_check_accepts() {
    if !nvrtc_available() {
        return;
    }
    let out = temp_path("saxpy.ptx");
    let o = out.display().to_string();
    check(
        &["compile", "examples/saxpy.cu", "--arch", "sm_80", "-o", &o],
        0,
        &[],
    );
    check(&["check", &o], 0, &["ok"]);
    let bad = temp_path("bad.cu");
    if let Err(e) = std::fs::write(&bad, "__global__ void k() { undeclared(); }\n") {
        panic!("{e}");
    }
    let b = bad.display().to_string();
    check(&["compile", &b], 1, &["error"]);
}

#[test]
fn conformance_gen_check_and_compare() {
    let dir = temp_path("conformance-kit");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().into_owned();
    check(
        &["conformance", "gen", "--out", &d, "--forms", "mul24."],
        0,
        &["wrote 4 forms"],
    );
    assert!(dir.join("mul24.lo.s32.ptx").is_file() && dir.join("manifest.json").is_file());
    check(
        &["conformance", "check", "--forms", "mul24."],
        0,
        &["4 forms (integer 4)", "all match"],
    );
    // Nothing recorded yet: nothing differs, every form is listed as not recorded.
    check(
        &["conformance", "compare", &d],
        0,
        &["0 forms match", "4 not recorded"],
    );
    check(
        &["conformance", "gen", "--out", &d, "--forms", "no-such-form"],
        2,
        &["no form"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
