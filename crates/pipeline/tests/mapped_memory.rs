//! Mapped (zero-copy) host memory end to end: pnpoly, whose points and
//! bitmap live in mapped host memory in the kt-pnpoly ground truth, on a
//! small problem. The profile counts the bytes that cross PCIe, and the
//! `timing` model's prediction grows by the PCIe time the model's equation
//! gives (docs/timing-model.md, "Mapped host memory").
//!
//! The kernel source lives in the shared data folder
//! (../shared/data/groundtruth, never committed) and needs NVRTC: without
//! either the test says so and passes, except under CI (env `CI` set).

use std::path::{Path, PathBuf};

use arch::Catalog;
use pipeline::{Options, load_spec, predict, profile};

const POINTS: u64 = 4096;
const BLOCK: u64 = 128;
const TILE: u64 = 2;

fn pnpoly_source() -> Option<PathBuf> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/groundtruth/kernels/benchmark_hub/pnpoly/pnpoly.cu");
    let nvrtc = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)).is_ok();
    if file.is_file() && nvrtc {
        return Some(file);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set and {} or NVRTC is missing",
        file.display()
    );
    eprintln!(
        "skipped: {} or NVRTC is missing (scripts/setup.sh)",
        file.display()
    );
    None
}

/// A pnpoly launch of `POINTS` points, its two buffers mapped or not.
fn spec(source: &Path, mapped: bool) -> PathBuf {
    let text = format!(
        "source = \"{source}\"\nkernel = \"cn_pnpoly\"\n\
         defines = {{ block_size_x = {BLOCK}, tile_size = {TILE}, between_method = 0, use_method = 0 }}\n\
         grid = [{grid}, 1, 1]\nblock = [{BLOCK}, 1, 1]\n\n\
         [[arg]]\nname = \"bitmap\"\ntype = \"i32*\"\nlen = {POINTS}\ninit = \"zeros\"\nhost_mapped = {mapped}\n\n\
         [[arg]]\nname = \"points\"\ntype = \"f32*\"\nlen = {two}\n\
         init = {{ random = {{ seed = 1, lo = -1.5, hi = 1.5 }} }}\nhost_mapped = {mapped}\n\n\
         [[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = {POINTS}\n\n\
         [[constant]]\nname = \"d_vertices\"\ntype = \"f32\"\nlen = 1200\n\
         init = {{ random = {{ seed = 2, lo = -1.0, hi = 1.0 }} }}\n",
        source = source.display(),
        grid = POINTS.div_ceil(BLOCK * TILE),
        two = 2 * POINTS,
    );
    let dir = std::env::temp_dir().join(format!("pipeline-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(format!("pnpoly-mapped-{mapped}.toml"));
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// The `timing` prediction (seconds and breakdown) of the spec, and its
/// profile's mapped bytes (read, written).
fn timing(
    path: &Path,
    gpu: &arch::Gpu,
) -> (
    f64,
    std::collections::BTreeMap<String, f64>,
    [Option<f64>; 2],
) {
    let loaded = load_spec(path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let profiled = profile(&loaded, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let g = &profiled.profile.global;
    let bytes = [g.host_mapped_read_bytes, g.host_mapped_written_bytes];
    let p = predict(&profiled, gpu, &["timing".to_string()]).unwrap_or_else(|e| panic!("{e}"));
    let [t] = &p.predictions[..] else {
        panic!("one prediction")
    };
    (t.seconds, t.breakdown.clone(), bytes)
}

#[test]
fn pnpoly_pays_for_its_mapped_host_memory() {
    let Some(source) = pnpoly_source() else {
        return;
    };
    let gpu = Catalog::bundled()
        .and_then(|c| c.get("geforce-rtx-3090").cloned())
        .unwrap_or_else(|e| panic!("{e}"));
    let (plain, plain_bd, plain_bytes) = timing(&spec(&source, false), &gpu);
    let (mapped, bd, bytes) = timing(&spec(&source, true), &gpu);
    assert_eq!(plain_bytes, [None, None]);
    assert!(!plain_bd.contains_key("pcie_seconds"));
    // Every point (8 B) read once, every result (4 B) written once: whole
    // 32-byte sectors, since 4096 points fill them.
    assert_eq!(
        bytes,
        [Some(8.0 * POINTS as f64), Some(4.0 * POINTS as f64)]
    );
    // 16 blocks on 82 SMs: one wave, nothing overlaps, so the prediction
    // grows by the whole PCIe time: the reads, 32 KiB at 24.6 GB/s.
    let pcie = 8.0 * POINTS as f64 / 24.6e9;
    assert_eq!(bd.get("pcie_seconds"), Some(&pcie));
    let device = plain - plain_bd["launch_seconds"];
    assert!((bd["device_seconds"] - device).abs() <= 1e-12 * device);
    let grown = mapped - plain;
    assert!(
        (grown - pcie).abs() <= 1e-9 * pcie,
        "grew by {grown} s, expected {pcie} s"
    );
}
