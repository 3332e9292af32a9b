//! The examples of docs/experiments.md through the real readers: the
//! experiment file (`<!-- check: experiment -->`) gives Kernel Tuner's
//! launch, the cache file (`kernel-tuner`), the T4 results file (`t4`) and
//! the CSV (`schoonhoven`) give the measured and failed configurations the
//! doc describes.

use std::path::Path;

use validate::{Experiment, Measured, ParamValue, parse_kt_cache, parse_schoonhoven_csv, parse_t4};

const DOC: &str = "docs/experiments.md";

/// The body of the fenced block that follows `<!-- check: NAME -->`.
fn block(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DOC);
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let marker = format!("<!-- check: {name} -->");
    let Some(at) = doc.find(&marker) else {
        panic!("{DOC} has no {marker}");
    };
    let mut lines = doc[at + marker.len()..]
        .lines()
        .skip_while(|l| l.trim().is_empty());
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "{DOC}: {marker} is not followed by a code block"
    );
    lines
        .take_while(|l| l.trim() != "```")
        .map(|l| format!("{l}\n"))
        .collect()
}

fn failed(m: &Measured) -> bool {
    matches!(m, Measured::Failed(_))
}

#[test]
fn the_experiment_example_gives_kernel_tuners_launch() {
    let text = block("experiment");
    let e = Experiment::parse("rowsum.exp.toml", &text, Path::new("/data"), "rowsum.exp")
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(e.kernel, "rowsum");
    assert_eq!(e.source.main, Path::new("/data/rowsum_kt.cu"));
    let bx = ParamValue::Int(128);
    let launch = e
        .launch(&[("block_size_x", &bx)])
        .unwrap_or_else(|err| panic!("{err}"));
    // One block per row: grid_div = [1] keeps the grid at the 512 rows.
    assert_eq!(launch.grid, [512, 1, 1]);
    assert_eq!(launch.block, [128, 1, 1]);
    assert_eq!(launch.args.len(), 3);
    let names: Vec<&str> = launch.defines.iter().map(|d| d.name()).collect();
    assert_eq!(
        names,
        [
            "grid_size_x",
            "grid_size_y",
            "grid_size_z",
            "block_size_x",
            "block_size_y",
            "block_size_z",
            "kernel_tuner"
        ]
    );
}

#[test]
fn the_cache_file_example_has_three_times_and_one_failure() {
    let d = parse_kt_cache("rowsum-cache.json", block("kernel-tuner").as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.gpu, "NVIDIA RTX A4000");
    assert_eq!(d.params, ["block_size_x"]);
    let failed: Vec<bool> = d.rows.iter().map(|r| failed(&r.measured)).collect();
    assert_eq!(failed, [false, false, false, true]);
}

#[test]
fn the_csv_example_has_two_times_and_one_failure() {
    let d = parse_schoonhoven_csv("times.csv", block("schoonhoven").as_bytes(), "GPU", "k")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.params, ["block_size_x"]);
    let failed: Vec<bool> = d.rows.iter().map(|r| failed(&r.measured)).collect();
    assert_eq!(failed, [false, false, true]);
}

#[test]
fn the_t4_example_has_two_times_and_one_failure() {
    let d =
        parse_t4("times_T4.json", block("t4").as_bytes(), "GPU").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.params, ["block_size_x"]);
    let failed: Vec<bool> = d.rows.iter().map(|r| failed(&r.measured)).collect();
    assert_eq!(failed, [false, false, true]);
    assert_eq!(d.rows[1].measured.mean_ms(), Some(0.008));
}

#[test]
fn the_kernel_tuner_keys_example_gives_the_launch_it_describes() {
    let text = block("experiment-kt-keys");
    let e = Experiment::parse("gemm.exp.toml", &text, Path::new("/data"), "gemm.exp")
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(e.source.more, [Path::new("/data/kernel.cl")]);
    assert_eq!(
        e.source.header.as_deref(),
        Some(Path::new("/data/cl_to_cuda.h"))
    );
    let names = ["MWG", "NWG", "KWG", "MDIMC", "NDIMC", "MDIMA", "VWM"];
    let values = [64, 128, 32, 16, 8, 16, 2].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = names.iter().copied().zip(values.iter()).collect();
    assert_eq!(e.admits(&params), Ok(true));
    let launch = e.launch(&params).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(launch.block, [16, 8, 1]);
    assert_eq!(launch.grid, [64, 32, 1]);
    let first: Vec<&str> = launch.defines.iter().take(6).map(|d| d.name()).collect();
    assert_eq!(
        first,
        [
            "grid_size_x",
            "grid_size_y",
            "grid_size_z",
            "MDIMC",
            "NDIMC",
            "block_size_z"
        ]
    );
    assert_eq!(launch.args[0].host_mapped_bytes(), 4096);
    // MWG % (MDIMC * VWM): 64 % 64 holds, 64 % (16*8) does not.
    let vwm = ParamValue::Int(8);
    let mut bad = params.clone();
    bad[6] = ("VWM", &vwm);
    assert_eq!(e.admits(&bad), Ok(false));
}
