//! Embeds the catalog: lists `gpus/*.toml` at the repository root (not its
//! subdirectories, and not `compute-capabilities.toml`, the per-compute-
//! capability table `src/cc.rs` embeds itself) and writes `bundled_gpus.rs`, a slice of
//! `(file name, include_str!(...))` pairs, so the binary works anywhere.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = manifest.join("../../gpus");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
                .filter(|p| {
                    p.file_name()
                        .is_none_or(|n| n != "compute-capabilities.toml")
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("&[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let abs = f.canonicalize().unwrap_or_else(|_| f.clone());
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            abs.display().to_string()
        );
    }
    out.push(']');
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(e) = std::fs::write(out_dir.join("bundled_gpus.rs"), out) {
        println!("cargo:warning=cannot write bundled_gpus.rs: {e}");
    }
}
