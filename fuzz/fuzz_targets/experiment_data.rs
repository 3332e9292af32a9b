//! An experiment file and a measured-data file, as `ptxperf validate` reads
//! them (crates/validate). The input is split at its first NUL byte:
//! experiment TOML before, data bytes after (without a NUL, the whole input
//! is tried as both). The data bytes go through the three readers (Kernel
//! Tuner cache, Schoonhoven CSV, T4 results), each also behind a gzip
//! header, and the first rows a reader accepts go through the experiment:
//! its restrictions (`admits`) and its launch (grid, block, arguments,
//! defines). Every failure is an error value with its place, never a panic.
#![no_main]

use std::io::Write as _;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use validate::{Dataset, Experiment, parse_kt_cache, parse_schoonhoven_csv, parse_t4};

/// Rows taken through the experiment per dataset: enough for variety,
/// few enough to keep every run short.
const MAX_ROWS: usize = 16;

fuzz_target!(|data: &[u8]| {
    let (exp_bytes, data_bytes) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let text = String::from_utf8_lossy(exp_bytes);
    // A base that holds nothing: the target never reads the fuzzer's disk.
    let experiment = Experiment::parse("fuzz.toml", &text, Path::new("/nonexistent"), "fuzz")
        .map_err(|e| e.to_string())
        .ok();
    let gzipped = gzip(data_bytes);
    for bytes in [data_bytes, gzipped.as_slice()] {
        for dataset in datasets(bytes) {
            if let Some(exp) = &experiment {
                check(exp, &dataset);
            }
        }
    }
});

/// What each reader makes of the bytes; its error only has to render.
fn datasets(bytes: &[u8]) -> Vec<Dataset> {
    [
        parse_kt_cache("fuzz.json", bytes),
        parse_schoonhoven_csv("fuzz.csv", bytes, "GPU", "kernel"),
        parse_t4("fuzz_T4.json", bytes, "GPU"),
    ]
    .into_iter()
    .filter_map(|r| r.map_err(|e| e.to_string()).ok())
    .collect()
}

/// The experiment's restrictions and launch on the dataset's first rows,
/// and the summaries `validate` reads from each row.
fn check(exp: &Experiment, dataset: &Dataset) {
    let _ = dataset.summary();
    for row in dataset.rows.iter().take(MAX_ROWS) {
        let _ = row.measured.mean_ms();
        let named = dataset.named_values(row);
        if let Err(e) = exp.admits(&named) {
            let _ = e.to_string();
        }
        match exp.launch(&named) {
            Ok(launch) => {
                let _ = format!("{launch:?}");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}
