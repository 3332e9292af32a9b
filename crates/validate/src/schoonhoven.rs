//! Importer for the Schoonhoven convolution CSVs (`*.csv`, `*.csv.gz`).
//!
//! Columns: filter_width, filter_height, block_size_x, block_size_y,
//! tile_size_x, tile_size_y, use_padding, read_only, mean_ms, median_ms,
//! min_ms, std_ms, n. Every column that is not one of the five measurement
//! columns is a tunable parameter, in header order. Plain comma-separated
//! values without quoting; CRLF line ends accepted. A row whose mean is not a
//! finite number (or whose `n` is 0) is kept as a failed configuration.

use std::path::Path;

use crate::dataset::{Dataset, FailReason, Measured, ParamValue, Row, Timing};
use crate::error::{FileError, Location};
use crate::read::{decode_text, read_text};

/// The kernel every Schoonhoven file measures (Kernel Tuner's convolution).
pub const SCHOONHOVEN_KERNEL: &str = "convolution_kernel";

const MEASUREMENT_COLUMNS: [&str; 5] = ["mean_ms", "median_ms", "min_ms", "std_ms", "n"];

/// Reads a Schoonhoven CSV; the GPU name comes from the file name
/// (`convolution_GTX_1080Ti.csv.gz` -> `GTX 1080Ti`).
pub fn import_schoonhoven_csv(path: &Path) -> Result<Dataset, FileError> {
    let name = path.display().to_string();
    let text = read_text(path)?;
    parse_schoonhoven_text(&name, &text, &gpu_from_file_name(path), SCHOONHOVEN_KERNEL)
}

/// Parses CSV bytes (gzipped or not); `name` labels errors.
pub fn parse_schoonhoven_csv(
    name: &str,
    bytes: &[u8],
    gpu: &str,
    kernel: &str,
) -> Result<Dataset, FileError> {
    let text = decode_text(name, bytes)?;
    parse_schoonhoven_text(name, &text, gpu, kernel)
}

/// `dir/convolution_RTX_2070_SUPER.csv.gz` -> `RTX 2070 SUPER`.
pub fn gpu_from_file_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = file.strip_suffix(".gz").unwrap_or(&file);
    let stem = stem.strip_suffix(".csv").unwrap_or(stem);
    let stem = stem.strip_prefix("convolution_").unwrap_or(stem);
    stem.replace('_', " ")
}

fn parse_schoonhoven_text(
    name: &str,
    text: &str,
    gpu: &str,
    kernel: &str,
) -> Result<Dataset, FileError> {
    let err = |line: usize, msg: String| FileError::new(name, Location::Line(line), msg);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (header_line, header) = lines
        .by_ref()
        .find(|(_, l)| !l.trim().is_empty())
        .ok_or_else(|| FileError::new(name, Location::File, "empty file: no header"))?;
    let columns = split_fields(header);
    if columns.iter().any(|c| c.contains('"')) {
        return Err(err(header_line, "quoted fields are not supported".into()));
    }
    let index_of = |col: &str| columns.iter().position(|c| *c == col);
    let mut measure = [0usize; 5];
    for (slot, col) in measure.iter_mut().zip(MEASUREMENT_COLUMNS) {
        *slot = index_of(col)
            .ok_or_else(|| err(header_line, format!("header lacks the column `{col}`")))?;
    }
    let param_columns: Vec<usize> = (0..columns.len())
        .filter(|i| !measure.contains(i))
        .collect();
    if param_columns.is_empty() {
        return Err(err(header_line, "header has no parameter columns".into()));
    }
    let [mean_i, median_i, min_i, std_i, n_i] = measure;

    let mut rows = Vec::new();
    for (line_no, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields = split_fields(line);
        if fields.len() != columns.len() {
            return Err(err(
                line_no,
                format!("expected {} fields, found {}", columns.len(), fields.len()),
            ));
        }
        let values = param_columns
            .iter()
            .map(|&i| param_value(fields[i]))
            .collect();
        let number = |i: usize| -> Result<f64, FileError> {
            fields[i].parse::<f64>().map_err(|_| {
                err(
                    line_no,
                    format!("column `{}`: `{}` is not a number", columns[i], fields[i]),
                )
            })
        };
        let mean_ms = number(mean_i)?;
        let n = fields[n_i].parse::<u32>().map_err(|_| {
            err(
                line_no,
                format!("column `n`: `{}` is not a repetition count", fields[n_i]),
            )
        })?;
        let measured = if !mean_ms.is_finite() || mean_ms <= 0.0 || n == 0 {
            Measured::Failed(FailReason::Other(format!(
                "not measured (mean_ms = {}, n = {n})",
                fields[mean_i]
            )))
        } else {
            Measured::Time(Timing {
                mean_ms,
                median_ms: Some(number(median_i)?),
                min_ms: Some(number(min_i)?),
                std_ms: Some(number(std_i)?),
                n: Some(n),
                // The CSV keeps summaries, not the launches in order.
                drift: None,
            })
        };
        rows.push(Row { values, measured });
    }

    Ok(Dataset {
        gpu: gpu.to_string(),
        kernel: kernel.to_string(),
        problem_size: None,
        params: param_columns
            .iter()
            .map(|&i| columns[i].to_string())
            .collect(),
        rows,
        compiler: None,
    })
}

fn split_fields(line: &str) -> Vec<&str> {
    line.split(',').map(str::trim).collect()
}

fn param_value(field: &str) -> ParamValue {
    match field.parse::<i64>() {
        Ok(v) => ParamValue::Int(v),
        Err(_) => ParamValue::Str(field.to_string()),
    }
}
