//! The GEMM and pnpoly experiments (experiments/gemm.toml, gemm-milo.toml,
//! pnpoly.toml) through the validation runner: their sources from the shared data folder
//! (CLBlast's OpenCL Xgemm through cl_to_cuda.h, pnpoly's CUDA), NVRTC, the
//! emulator and the timing model, on a handful of configurations each. The
//! problems are shrunk (GEMM 256x256x256, pnpoly 4096 points) by editing the
//! experiment text, so that the test runs in seconds; the configurations and
//! everything else are the real files'.
//!
//! Without the shared folder or NVRTC the test says so and passes, except
//! under CI (env `CI` set), where both must be present.

use std::path::{Path, PathBuf};

use study::validation::{Options, run};
use validate::score::Attempt;
use validate::{Experiment, ParamValue};

/// gemm.py's parameters, in its `tune_params` order.
const GEMM_KEYS: [&str; 15] = [
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

/// gemm_milo.py's parameters (search space 2): GEMMK first, KREG before
/// PRECISION, the rest as gemm.py's.
fn gemm_milo_keys() -> Vec<&'static str> {
    let mut keys = vec!["GEMMK"];
    keys.extend_from_slice(&GEMM_KEYS[..14]);
    keys.extend(["KREG", "PRECISION"]);
    keys
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ready() -> bool {
    let ci = std::env::var_os("CI").is_some();
    let shared = repo().join("../shared/data/groundtruth/kernels/benchmark_hub");
    if !shared.is_dir() {
        assert!(!ci, "CI is set and {} is missing", shared.display());
        eprintln!("skipped: {} is missing", shared.display());
        return false;
    }
    if let Err(e) = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)) {
        assert!(!ci, "NVRTC is required under CI: {e}");
        eprintln!("skipped: NVRTC is not available ({e})");
        return false;
    }
    true
}

/// The experiment `name` with every `from` replaced by `to` in its text
/// (each must occur), parsed as if it sat in experiments/.
fn shrunk(name: &str, edits: &[(&str, &str)]) -> Experiment {
    let dir = repo().join("experiments");
    let mut text = std::fs::read_to_string(dir.join(name)).expect("read the experiment");
    for (from, to) in edits {
        assert!(text.contains(from), "{name} no longer holds `{from}`");
        text = text.replace(from, to);
    }
    Experiment::parse(name, &text, &dir, name).unwrap_or_else(|e| panic!("{e}"))
}

/// A Kernel Tuner cache of `configs` (each measured at 1 ms).
fn cache(kernel: &str, keys: &[&str], configs: &[Vec<i64>]) -> String {
    let entries: Vec<String> = configs
        .iter()
        .map(|v| {
            let key: Vec<String> = v.iter().map(i64::to_string).collect();
            let fields: Vec<String> = keys
                .iter()
                .zip(v)
                .map(|(k, x)| format!("\"{k}\": {x}"))
                .collect();
            format!(
                "\"{}\": {{{}, \"time\": 1.0}}",
                key.join(","),
                fields.join(", ")
            )
        })
        .collect();
    let quoted: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    format!(
        "{{\"device_name\": \"NVIDIA GeForce RTX 3090\", \"kernel_name\": \"{kernel}\", \
         \"tune_params_keys\": [{}], \"cache\": {{{}}}}}",
        quoted.join(", "),
        entries.join(", ")
    )
}

/// Every configuration is admitted by the restrictions, compiles, emulates
/// and gets a positive time from the timing model.
fn check(exp: &Experiment, kernel: &str, keys: &[&str], configs: &[Vec<i64>]) {
    for v in configs {
        let values: Vec<ParamValue> = v.iter().map(|x| ParamValue::Int(*x)).collect();
        let named: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(values.iter()).collect();
        assert!(
            exp.admits(&named).unwrap_or_else(|e| panic!("{e}")),
            "{v:?} is not in the space"
        );
    }
    let dir = std::env::temp_dir().join(format!(
        "ptxperf-shared-{}-{}",
        exp.name,
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data = dir.join("cache.json");
    std::fs::write(&data, cache(kernel, keys, configs)).expect("write data");
    let dataset = validate::import_dataset(&data).unwrap_or_else(|e| panic!("{e}"));
    let catalog = arch::Catalog::bundled().expect("the bundled catalog loads");
    let gpu = catalog
        .get("geforce-rtx-3090")
        .expect("an RTX 3090")
        .clone();
    let opts = Options {
        models: vec!["timing".to_string()],
        sample: None,
        rows: None,
        seed: 1,
        sample_ctas: 2,
        work_budget: None,
        jobs: 2,
        cache_dir: None,
        save_profiles: None,
        profiles: None,
        resume: false,
        ptx_arch: None,
        terms: Vec::new(),
        objective: None,
    };
    let study = run(exp, &dataset, &gpu, &opts, &|_| ()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(study.outcomes.len(), configs.len());
    for o in &study.outcomes {
        match &o.attempt {
            Attempt::Predicted(times) => match times.as_slice() {
                [(model, Ok(t))] if model == "timing" && t.ms > 0.0 => {}
                other => panic!("{kernel} configuration {}: {other:?}", o.index),
            },
            other => panic!("{kernel} configuration {}: {other:?}", o.index),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gemm_configurations_compile_as_cuda_and_emulate() {
    if !ready() {
        return;
    }
    let exp = shrunk(
        "gemm.toml",
        &[
            ("problem_size = [4096, 4096]", "problem_size = [256, 256]"),
            ("value = 4096", "value = 256"),
            ("len = \"4096*4096\"", "len = \"256*256\""),
        ],
    );
    let keys = GEMM_KEYS;
    // Plain; local A only (the `__local realM*` parameters); both local with
    // 8-wide vectors (real8, the experiment's 32-byte aligned struct in
    // place of the header's float8); local B only.
    let configs = [
        vec![16, 16, 32, 8, 8, 8, 8, 2, 1, 1, 0, 0, 0, 0, 32],
        vec![64, 128, 32, 16, 32, 16, 16, 2, 4, 4, 0, 0, 1, 0, 32],
        vec![128, 128, 32, 16, 16, 16, 16, 2, 8, 8, 0, 0, 1, 1, 32],
        vec![32, 64, 32, 32, 8, 32, 8, 2, 1, 2, 0, 0, 0, 1, 32],
    ];
    check(&exp, "Xgemm", &keys, &configs);
}

#[test]
fn gemm_milo_configurations_compile_as_cuda_and_emulate() {
    if !ready() {
        return;
    }
    let exp = shrunk(
        "gemm-milo.toml",
        &[
            ("problem_size = [4096, 4096]", "problem_size = [256, 256]"),
            ("value = 4096", "value = 256"),
            ("len = \"4096*4096\"", "len = \"256*256\""),
        ],
    );
    let keys = gemm_milo_keys();
    // Plain; both tiles in local memory with 8-wide vectors; strided
    // accesses with local A only; KWG 16 with local B only.
    let configs = [
        vec![0, 16, 16, 32, 8, 8, 8, 8, 2, 1, 1, 0, 0, 0, 0, 1, 32],
        vec![0, 128, 128, 32, 16, 16, 16, 16, 2, 8, 8, 0, 0, 1, 1, 1, 32],
        vec![0, 64, 128, 32, 16, 32, 16, 16, 2, 4, 4, 1, 1, 1, 0, 1, 32],
        vec![0, 32, 64, 16, 8, 16, 8, 16, 2, 2, 2, 0, 0, 0, 1, 1, 32],
    ];
    check(&exp, "Xgemm", &keys, &configs);
}

#[test]
fn pnpoly_configurations_compile_and_emulate() {
    if !ready() {
        return;
    }
    let exp = shrunk(
        "pnpoly.toml",
        &[
            ("problem_size = [20000000]", "problem_size = [4096]"),
            ("len = 20000000", "len = 4096"),
            ("len = \"2*20000000\"", "len = \"2*4096\""),
            ("value = 20000000", "value = 4096"),
        ],
    );
    let keys = ["between_method", "block_size_x", "tile_size", "use_method"];
    let configs = [
        vec![0, 32, 1, 0],
        vec![1, 96, 6, 2],
        vec![3, 256, 20, 1],
        vec![2, 992, 1, 1],
    ];
    check(&exp, "cn_pnpoly", &keys, &configs);
}
