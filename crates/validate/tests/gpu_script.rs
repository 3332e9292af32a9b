//! The GPU-side measuring script (scripts/gpu/measure-kt.py, Python because
//! it runs on a lent GPU machine with CuPy) must build every configuration
//! exactly as this crate does, or the measured data would not be the kernel
//! ptxperf predicts. Its `--print-launch` mode (no GPU needed) is compared
//! here with `Experiment::launch` and `instantiate_source`: grid, block,
//! buffer lengths and the instantiated source text, byte for byte.
//!
//! Needs `python3` (3.11+, for tomllib). Without it the test is skipped with
//! a message, except under CI (env `CI` set), where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use validate::{Experiment, LaunchArg, ParamValue, instantiate_source};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `python3` if it runs and has tomllib; None (after saying so) elsewhere.
fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some("python3");
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set and python3 with tomllib (3.11+) is missing"
    );
    eprintln!("skipped: python3 with tomllib (3.11+) is not available on this machine");
    None
}

/// The script's view of one configuration.
struct ScriptLaunch {
    grid: Vec<u64>,
    block: Vec<u64>,
    lens: Vec<(String, u64)>,
    source: String,
    admitted: bool,
}

fn script_launch(python: &str, experiment: &Path, params: &[(&str, i64)]) -> ScriptLaunch {
    let spec: Vec<String> = params.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let out = Command::new(python)
        .arg(repo().join("scripts/gpu/measure-kt.py"))
        .arg(experiment)
        .arg("--print-launch")
        .arg(spec.join(","))
        .output()
        .unwrap_or_else(|e| panic!("running measure-kt.py: {e}"));
    assert!(
        out.status.success(),
        "measure-kt.py --print-launch failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("measure-kt.py printed no JSON: {e}"));
    let nums = |key: &str| -> Vec<u64> {
        v[key]
            .as_array()
            .unwrap_or_else(|| panic!("no `{key}` in {v}"))
            .iter()
            .map(|x| x.as_u64().unwrap_or_else(|| panic!("`{key}`: {x}")))
            .collect()
    };
    let mut lens: Vec<(String, u64)> = v["lens"]
        .as_object()
        .unwrap_or_else(|| panic!("no `lens` in {v}"))
        .iter()
        .map(|(k, x)| (k.clone(), x.as_u64().unwrap_or(u64::MAX)))
        .collect();
    lens.sort();
    ScriptLaunch {
        grid: nums("grid"),
        block: nums("block"),
        lens,
        source: v["source"].as_str().unwrap_or_default().to_string(),
        admitted: v["admitted"]
            .as_bool()
            .unwrap_or_else(|| panic!("no `admitted` in {v}")),
    }
}

/// The script and the crate agree on one configuration of `experiment`.
#[track_caller]
fn check(python: &str, experiment: &Path, params: &[(&str, i64)]) {
    let exp = Experiment::load(experiment).unwrap_or_else(|e| panic!("{e}"));
    let values: Vec<ParamValue> = params.iter().map(|(_, v)| ParamValue::Int(*v)).collect();
    let named: Vec<(&str, &ParamValue)> =
        params.iter().map(|(n, _)| *n).zip(values.iter()).collect();
    let launch = exp.launch(&named).unwrap_or_else(|e| panic!("{e}"));
    let text = launch.source.read().unwrap_or_else(|e| panic!("{e}"));
    let mut lens: Vec<(String, u64)> = launch
        .args
        .iter()
        .filter_map(|a| match a {
            LaunchArg::Buffer { name, len, .. } => Some((name.clone(), *len)),
            LaunchArg::Scalar { .. } => None,
        })
        .chain(launch.constants.iter().map(|c| (c.name.clone(), c.len)))
        .collect();
    lens.sort();

    let script = script_launch(python, experiment, params);
    let case = format!("{} {params:?}", experiment.display());
    assert_eq!(script.grid, launch.grid.to_vec(), "grid, {case}");
    assert_eq!(script.block, launch.block.to_vec(), "block, {case}");
    assert_eq!(script.lens, lens, "buffer lengths, {case}");
    assert!(
        script.source == instantiate_source(&text, &launch.defines),
        "instantiated source differs, {case}"
    );
    let admits = exp.admits(&named).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(script.admitted, admits, "restrictions, {case}");
}

fn third_party(experiment: &str, source: &str) -> Option<PathBuf> {
    if repo().join(source).exists() {
        return Some(repo().join("experiments").join(experiment));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set and {source} is missing (scripts/fetch-validation-kernels.sh)"
    );
    eprintln!("skipped {experiment}: {source} is missing (scripts/fetch-validation-kernels.sh)");
    None
}

#[test]
fn the_gpu_script_builds_the_convolution_and_vector_add_as_ptxperf_does() {
    let Some(py) = python() else { return };
    if let Some(exp) = third_party(
        "convolution.toml",
        "third_party/kernel_tuner/convolution.cu",
    ) {
        for (bx, by, tx, ty, ro, pad) in [
            (32, 8, 2, 4, 1, 1),
            (48, 4, 3, 8, 0, 0),
            (1, 1, 1, 1, 0, 1),
            (128, 32, 8, 8, 1, 0),
            (96, 2, 5, 7, 0, 1),
        ] {
            let params = [
                ("block_size_x", bx),
                ("block_size_y", by),
                ("filter_height", 15),
                ("filter_width", 15),
                ("read_only", ro),
                ("tile_size_x", tx),
                ("tile_size_y", ty),
                ("use_padding", pad),
            ];
            check(py, &exp, &params);
        }
    }
    if let Some(exp) = third_party("vector-add.toml", "third_party/kernel_tuner/vector_add.cu") {
        for bx in [128, 704, 1024] {
            check(py, &exp, &[("block_size_x", bx)]);
        }
    }
}

/// A made-up experiment exercising what the real ones do not all have: a
/// 3-D problem, a grid division and a length with integer division, and a
/// `loop_unroll_factor` parameter (0 deletes its pragma lines, else a
/// constexpr).
#[test]
fn the_gpu_script_follows_kernel_tuners_rules_on_a_synthetic_experiment() {
    let Some(py) = python() else { return };
    let dir = std::env::temp_dir().join(format!("ptxperf-gpu-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let source = "extern \"C\" __global__ void k(float *a, int n) {\n\
                  #pragma unroll loop_unroll_factor_i\n\
                  for (int i = 0; i < n; i++) a[i] += 1.0f;\n\
                  \t  #pragma   unroll loop_unroll_factor_i\n\
                  for (int i = 0; i < n; i++) a[i] *= 2.0f;\n}\n";
    std::fs::write(dir.join("k.cu"), source).unwrap_or_else(|e| panic!("{e}"));
    let toml = "name = \"synthetic\"\nsource = \"k.cu\"\nkernel = \"k\"\n\
                problem_size = [1000, 77, 5]\n\
                grid_div = [\"block_size_x*tile\", \"block_size_y/2+1\", \"1\"]\n\n\
                [[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = \"1000*77/tile + 7/2\"\ninit = \"zeros\"\n\n\
                [[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = 10\n";
    let exp = dir.join("e.toml");
    std::fs::write(&exp, toml).unwrap_or_else(|e| panic!("{e}"));
    for (bx, by, tile, unroll) in [(32, 4, 3, 0), (64, 7, 1, 4), (1000, 1, 7, 0)] {
        check(
            py,
            &exp,
            &[
                ("block_size_x", bx),
                ("block_size_y", by),
                ("tile", tile),
                ("loop_unroll_factor_i", unroll),
            ],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// GEMM (a source list, a header, `replace` edits, block_size_names,
/// restrictions) and pnpoly (host-mapped buffers), their sources read from
/// the shared data folder.
#[test]
fn the_gpu_script_builds_gemm_and_pnpoly_as_ptxperf_does() {
    let Some(py) = python() else { return };
    if common::shared_groundtruth().is_none() {
        return;
    }
    let keys = [
        "MWG",
        "NWG",
        "KWG",
        "MDIMC",
        "NDIMC",
        "MDIMA",
        "NDIMB",
        "KWI",
        "VWM",
        "VWN",
        "STRM",
        "STRN",
        "SA",
        "SB",
        "PRECISION",
    ];
    let gemm = repo().join("experiments/gemm.toml");
    for v in [
        [64, 128, 32, 16, 32, 16, 16, 2, 4, 4, 0, 0, 1, 0, 32],
        [16, 16, 32, 8, 8, 8, 8, 2, 1, 1, 0, 0, 0, 0, 32],
        // Not admitted: MWG % (MDIMC * VWM) = 16 % 64.
        [16, 32, 32, 8, 16, 8, 8, 2, 8, 2, 0, 0, 1, 1, 32],
    ] {
        let params: Vec<(&str, i64)> = keys.iter().copied().zip(v).collect();
        check(py, &gemm, &params);
    }
    let pnpoly = repo().join("experiments/pnpoly.toml");
    for (m, bx, tile, u) in [(0, 32, 1, 0), (3, 992, 20, 2)] {
        let params = [
            ("between_method", m),
            ("block_size_x", bx),
            ("tile_size", tile),
            ("use_method", u),
        ];
        check(py, &pnpoly, &params);
    }
}

/// scripts/gpu/measure-groundtruth.sh points the GEMM and pnpoly
/// experiments at a copy of the kernels (`KERNELS=`, as on a lent machine,
/// which has no shared data folder): the copy must build every
/// configuration as the committed experiment does, and read the copy.
#[test]
fn the_groundtruth_script_points_the_experiments_at_a_kernel_copy() {
    let Some(py) = python() else { return };
    let Some(groundtruth) = common::shared_groundtruth() else {
        return;
    };
    let shared = groundtruth.join("kernels/benchmark_hub");
    let dir = std::env::temp_dir().join(format!("ptxperf-kernel-copy-{}", std::process::id()));
    let hub = dir.join("k/benchmark_hub");
    for kernel in ["gemm", "gemm_milo", "pnpoly"] {
        std::fs::create_dir_all(hub.join(kernel)).expect("mkdir");
        for f in std::fs::read_dir(shared.join(kernel)).expect("read the shared kernels") {
            let f = f.expect("entry").path();
            std::fs::copy(&f, hub.join(kernel).join(f.file_name().expect("name")))
                .expect("copy a kernel file");
        }
    }
    // The script's `experiment` function alone, run from the repository root.
    let helper = r#"source <(sed -n '/^experiment() {/,/^}/p' scripts/gpu/measure-groundtruth.sh); experiment "$1""#;
    let pnpoly = [
        ("between_method", 2),
        ("block_size_x", 96),
        ("tile_size", 4),
        ("use_method", 1),
    ];
    let gemm = [
        ("MWG", 64),
        ("NWG", 64),
        ("KWG", 32),
        ("MDIMC", 16),
        ("NDIMC", 8),
        ("MDIMA", 16),
        ("NDIMB", 8),
        ("KWI", 2),
        ("VWM", 2),
        ("VWN", 4),
        ("STRM", 0),
        ("STRN", 0),
        ("SA", 1),
        ("SB", 0),
        ("PRECISION", 32),
    ];
    for (name, params) in [("gemm", &gemm[..]), ("pnpoly", &pnpoly[..])] {
        let out = Command::new("bash")
            .args(["-c", helper, "helper", name])
            .env("KERNELS", dir.join("k"))
            .current_dir(repo())
            .output()
            .expect("run bash");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let copy = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let text = std::fs::read_to_string(&copy).expect("the experiment copy");
        assert!(
            !text.contains("../../shared/data/groundtruth/kernels")
                && text.contains(&*dir.join("k/benchmark_hub").to_string_lossy()),
            "{name}: the copy still reads the shared folder:\n{text}"
        );
        check(py, &copy, params);
        let original = script_launch(py, &repo().join(format!("experiments/{name}.toml")), params);
        assert!(
            script_launch(py, &copy, params).source == original.source,
            "{name}: the copy builds another source"
        );
        let _ = std::fs::remove_dir_all(copy.parent().expect("temp folder"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// scripts/gpu/ffma-variants.py (docs/validation/timing-effects.md, "What
/// slows the FFMA-heavy convolutions on the H200") times Kernel Tuner's
/// convolution in variants that each change one thing. Its `sources` mode
/// (no GPU) writes each variant's source and launch spec; each must load
/// here, instantiate, and differ from the kernel as its name says. Its
/// `kt-data` mode must write Kernel Tuner files that `validate --data`
/// reads, one per variant, with the compiler the measurement used.
#[test]
fn the_variant_script_changes_one_thing_per_variant() {
    let Some(py) = python() else { return };
    if third_party(
        "convolution.toml",
        "third_party/kernel_tuner/convolution.cu",
    )
    .is_none()
    {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptxperf-ffma-variants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let results = dir.join("results.json");
    let rows: Vec<String> = ["base", "imm", "split", "imm_split", "rolled", "noload", "nocompute"]
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!(
                r#"{{"config": "2,32,8,1,1,0", "variant": "{v}", "median_ms": {t}, "times_ms": [{t}, {t}]}}"#,
                t = 0.25 + i as f64 / 100.0
            )
        })
        .collect();
    std::fs::write(
        &results,
        format!(
            r#"{{"device": "NVIDIA H200", "command": "test", "versions": {{"nvrtc": "13.0"}}, "results": [{}]}}"#,
            rows.join(",")
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(py)
        .arg(repo().join("scripts/gpu/ffma-variants.py"))
        .arg("kt-data")
        .arg(&results)
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("running ffma-variants.py: {e}"));
    assert!(
        out.status.success(),
        "ffma-variants.py kt-data failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let params = [
        ("block_size_x", 2),
        ("block_size_y", 32),
        ("filter_height", 15),
        ("filter_width", 15),
        ("read_only", 1),
        ("tile_size_x", 8),
        ("tile_size_y", 1),
        ("use_padding", 0),
    ];
    let values: Vec<ParamValue> = params.iter().map(|(_, v)| ParamValue::Int(*v)).collect();
    let named: Vec<(&str, &ParamValue)> =
        params.iter().map(|(n, _)| *n).zip(values.iter()).collect();
    let text_of = |variant: &str| -> String {
        let exp = Experiment::load(&dir.join(format!("convolution-{variant}.toml")))
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        let launch = exp
            .launch(&named)
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        launch
            .source
            .read()
            .unwrap_or_else(|e| panic!("{variant}: {e}"))
    };
    let base = text_of("base");
    let original = std::fs::read_to_string(repo().join("third_party/kernel_tuner/convolution.cu"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(base, original, "base is the kernel as it is");
    // What each variant must hold and must not (a marker of base's code).
    let filter = "* d_filter[i*filter_width+j]";
    let load = "= LDG(input,";
    for (variant, has, lacks) in [
        ("imm", "* FILTER_IMM(i*filter_width+j)", filter),
        ("split", "sum_odd[yi][xi] +=", "= sum[yi][xi];"),
        ("imm_split", "sum_odd[yi][xi] +=", filter),
        (
            "rolled",
            "#pragma unroll 1",
            "//for each filter weight\n    #pragma unroll\n",
        ),
        ("noload", "sh_input[i][j] = (float)(i - j);", load),
        ("nocompute", "if (i == 0 && j == 0)", filter),
    ] {
        let text = text_of(variant);
        assert!(text.contains(has), "{variant} lacks {has:?}");
        assert!(!text.contains(lacks), "{variant} still holds {lacks:?}");
        assert_ne!(text, base, "{variant} is the base kernel");
        let data = validate::import_kt_cache(&dir.join(format!("convolution-{variant}.json")))
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(data.rows.len(), 1, "{variant}");
        assert_eq!(data.compiler.as_deref(), Some("13.0"), "{variant}");
    }
    assert!(base.contains(filter) && base.contains(load));
    assert!(base.contains("//for each filter weight\n    #pragma unroll\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
