//! A GPU of one's own (gpus/README.md, "A GPU of your own"): a `--gpu` that
//! ends in `.toml` is read as a GPU file, checked as the catalog's files
//! are, wherever a catalog id goes. No compiler is needed: `predict` runs
//! on a hand-written profile and `tune` on a PTX kernel.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh folder holding `<id>.toml`: the A100 PCIe's catalog file with
/// the id `id` and its boost clock at `boost_mhz`.
fn gpu_file(tag: &str, id: &str, boost_mhz: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("ptxperf-gpu-file-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = std::fs::read_to_string(root().join("gpus/a100-pcie-40gb.toml"))
        .expect("the catalog file")
        .replace("id = \"a100-pcie-40gb\"", &format!("id = \"{id}\""))
        .replace("boost_mhz = 1410.0", &format!("boost_mhz = {boost_mhz}"));
    let path = dir.join(format!("{id}.toml"));
    std::fs::write(&path, text).expect("write the GPU file");
    (dir, path)
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::ptxperf_in(&root(), args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The timing model's seconds for the worked matrix-multiplication profile.
fn timing_seconds(gpu: &str) -> f64 {
    let (code, out, err) = run(&[
        "predict",
        "--profile",
        "examples/profiles/kothapalli-matrix-multiplication.toml",
        "--gpu",
        gpu,
        "--model",
        "timing",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    v["models"][0]["seconds"].as_f64().expect("seconds")
}

#[test]
fn a_copy_of_a_catalog_gpu_predicts_as_it_and_its_clock_counts() {
    let (dir, same) = gpu_file("same", "my-a100", "1410.0");
    let same = same.to_str().expect("utf-8 path");
    let catalog = timing_seconds("a100-pcie-40gb");
    assert_eq!(timing_seconds(same), catalog);
    // `gpus FILE` shows it in full, by its own id.
    let (code, out, err) = run(&["gpus", same]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("NVIDIA A100 PCIe 40 GB (my-a100)"), "{out}");
    // A faster clock: a shorter time (this profile is latency-bound, in cycles).
    let (dir2, fast) = gpu_file("fast", "my-fast-a100", "2820.0");
    let fast = timing_seconds(fast.to_str().expect("utf-8 path"));
    assert!(fast < catalog, "{fast} against {catalog}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

/// `gpus ID --toml` prints the bundled file itself: written under a new
/// name with its id changed, it loads as a GPU of one's own.
#[test]
fn a_catalog_file_printed_is_the_start_of_ones_own() {
    let (code, text, err) = run(&["gpus", "geforce-rtx-4090", "--toml"]);
    assert_eq!(code, Some(0), "{err}");
    let on_disk = std::fs::read_to_string(root().join("gpus/geforce-rtx-4090.toml")).expect("read");
    assert_eq!(text, on_disk);
    let dir = std::env::temp_dir().join(format!("ptxperf-gpu-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mine = dir.join("rtx-4080.toml");
    std::fs::write(
        &mine,
        text.replace("id = \"geforce-rtx-4090\"", "id = \"rtx-4080\""),
    )
    .expect("write");
    let (code, out, err) = run(&["gpus", mine.to_str().expect("utf-8 path")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("NVIDIA GeForce RTX 4090 (rtx-4080)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_gpu_file_is_an_error_at_its_line() {
    // The id must be the file's name.
    let (dir, path) = gpu_file("bad-id", "my-a100", "1410.0");
    let renamed = dir.join("other-name.toml");
    std::fs::rename(&path, &renamed).expect("rename");
    let renamed = renamed.to_str().expect("utf-8 path");
    for args in [
        vec!["gpus", renamed],
        vec![
            "predict",
            "--profile",
            "examples/profiles/kothapalli-matrix-multiplication.toml",
            "--gpu",
            renamed,
        ],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("other-name.toml:4:1: error: id: `my-a100` differs from the file name"),
            "{err}"
        );
    }
    // A number without a source.
    let text = std::fs::read_to_string(path.with_file_name("other-name.toml")).expect("read");
    let unsourced = dir.join("unsourced.toml");
    std::fs::write(
        &unsourced,
        text.replace("id = \"my-a100\"", "id = \"unsourced\"")
            .replace("\"clocks\" = {", "\"clocks-x\" = {"),
    )
    .expect("write");
    let (code, _, err) = run(&["gpus", unsourced.to_str().expect("utf-8 path")]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("unsourced.toml:") && err.contains("error: sources.clocks-x: names no field"),
        "{err}"
    );
    // A file that is not there.
    let (code, _, err) = run(&["gpus", "no-such-gpu.toml"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("no-such-gpu.toml: cannot read the GPU file"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
