//! Counts and time range of every ground-truth dataset this crate imports.
//!
//! `cargo run -p validate --example groundtruth_summary [DIR]`
//! (DIR defaults to ../shared/data/groundtruth relative to the workspace).
//! Examples may print; the library does not.

use std::path::{Path, PathBuf};

/// The dataset folders of the ground truth this crate reads (gpu-benches and
/// kt-vector-add have their own readers elsewhere).
const FOLDERS: [&str; 3] = ["kt-convolution", "schoonhoven-convolution", "dedispersion"];

fn main() {
    let root = std::env::args().nth(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/groundtruth"),
        PathBuf::from,
    );
    println!(
        "| dataset | file | GPU | configurations | valid | failed | min ms | median ms | max ms |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    let mut failures = 0;
    for folder in FOLDERS {
        let dir = root.join(folder);
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                eprintln!("{}: error: {e}", dir.display());
                failures += 1;
                continue;
            }
        };
        files.sort();
        for file in files {
            let name = file
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
            match validate::import_dataset(&file) {
                Ok(d) => {
                    let s = d.summary();
                    let ms =
                        |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"));
                    println!(
                        "| {folder} | {name} | {} | {} | {} | {} | {} | {} | {} |",
                        d.gpu,
                        s.configurations,
                        s.valid,
                        s.failed,
                        ms(s.min_ms),
                        ms(s.median_ms),
                        ms(s.max_ms)
                    );
                }
                Err(e) => {
                    eprintln!("{e}");
                    failures += 1;
                }
            }
        }
    }
    if failures > 0 {
        std::process::exit(1);
    }
}
