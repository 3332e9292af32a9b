//! Importer for T4 results files, the Open Autotuning Results format that
//! Kernel Tuner writes with `store_output_file` and that the autotuning
//! community's benchmark collections share (`*_T4.json`, gzipped or not).
//!
//! Layout (odgaard/TuningSchema, `results-schema.json`, schema 1.0.0):
//! top-level `schema_version` and `results`, an array with one entry per
//! configuration holding `configuration` (parameter name to value),
//! `times` (`runtimes`: the repetitions, ms), `invalidity` (`"correct"` for
//! a configuration that ran, else `compile`, `runtime`, `constraints`,
//! `timeout` or `correctness`) and `measurements` (`name`, `value`, `unit`;
//! the time is the one named `time`).
//!
//! A T4 file names neither the kernel nor the GPU (a separate metadata file
//! may hold the machine). The kernel is left empty for the caller to fill
//! from the experiment (`Dataset::kernel`); the GPU is taken from the file
//! name (`A100_T4.json.gz` -> `A100`).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::dataset::{Dataset, FailReason, Measured, ParamValue, Row, Timing};
use crate::error::{FileError, Location};
use crate::kt_cache::{OrderedEntries, json_error, param_value, repetitions, timing};
use crate::read::{decode_text, read_text};

/// Reads a T4 results file, gzipped or not.
pub fn import_t4(path: &Path) -> Result<Dataset, FileError> {
    let name = path.display().to_string();
    let text = read_text(path)?;
    parse_t4_text(&name, &text, &gpu_from_t4_file_name(path))
}

/// Parses the bytes of a T4 results file (gzipped or not); `name` labels
/// errors, `gpu` names the GPU.
pub fn parse_t4(name: &str, bytes: &[u8], gpu: &str) -> Result<Dataset, FileError> {
    let text = decode_text(name, bytes)?;
    parse_t4_text(name, &text, gpu)
}

/// Whether `text` looks like a T4 results file rather than a Kernel Tuner
/// cache: a top-level `"results"` key before any `"cache"` key. Cheap (no
/// parse); the importer that follows reports what is wrong with the file.
pub fn looks_like_t4(text: &str) -> bool {
    match (text.find("\"results\""), text.find("\"cache\"")) {
        (Some(r), Some(c)) => r < c,
        (Some(_), None) => true,
        _ => false,
    }
}

/// `dir/A100_T4.json.gz` -> `A100`; Kernel Tuner's `A6000-results.json`
/// (beside `A6000-metadata.json`) -> `A6000`; `out.json` -> `out`.
pub fn gpu_from_t4_file_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = file.strip_suffix(".gz").unwrap_or(&file);
    let stem = stem.strip_suffix(".json").unwrap_or(stem);
    let stem = stem.strip_suffix("_T4").unwrap_or(stem);
    let stem = stem.strip_suffix("-results").unwrap_or(stem);
    stem.replace('_', " ")
}

#[derive(Deserialize)]
struct RawT4 {
    #[serde(default)]
    schema_version: Option<String>,
    results: Vec<RawResult>,
}

#[derive(Deserialize)]
struct RawResult {
    configuration: OrderedEntries,
    #[serde(default)]
    times: Option<Value>,
    #[serde(default)]
    invalidity: Option<String>,
    #[serde(default)]
    measurements: Vec<RawMeasurement>,
}

#[derive(Deserialize)]
struct RawMeasurement {
    name: String,
    value: Value,
    #[serde(default)]
    unit: Option<String>,
}

/// Milliseconds per unit of a time measurement; Kernel Tuner writes `ms`.
fn ms_per(unit: Option<&str>) -> Option<f64> {
    match unit.unwrap_or("ms") {
        "ms" | "" => Some(1.0),
        "s" => Some(1e3),
        "us" | "µs" => Some(1e-3),
        "ns" => Some(1e-6),
        _ => None,
    }
}

pub(crate) fn parse_t4_text(name: &str, text: &str, gpu: &str) -> Result<Dataset, FileError> {
    let raw: RawT4 =
        serde_json::from_str(text).map_err(|e| json_error(name, &e, "not a T4 results file"))?;
    let err = |path: String, msg: String| FileError::new(name, Location::JsonPath(path), msg);
    if let Some(v) = &raw.schema_version
        && !v.starts_with("1.")
    {
        return Err(err(
            "$.schema_version".into(),
            format!("T4 schema {v}: only version 1.x is known"),
        ));
    }
    let Some(first) = raw.results.first() else {
        return Err(err("$.results".into(), "no results".into()));
    };
    let params: Vec<String> = first
        .configuration
        .0
        .iter()
        .map(|(k, _)| k.clone())
        .collect();

    let mut rows = Vec::with_capacity(raw.results.len());
    for (i, result) in raw.results.iter().enumerate() {
        let at = format!("$.results[{i}]");
        let config = &result.configuration.0;
        if config.len() != params.len() {
            return Err(err(
                format!("{at}.configuration"),
                format!(
                    "{} parameters where the first result has {} ({})",
                    config.len(),
                    params.len(),
                    params.join(", ")
                ),
            ));
        }
        let mut values = Vec::with_capacity(params.len());
        for p in &params {
            let path = format!("{at}.configuration.{p}");
            let v = config
                .iter()
                .find(|(k, _)| k == p)
                .map(|(_, v)| v)
                .ok_or_else(|| err(path.clone(), "parameter missing".into()))?;
            let value: ParamValue = param_value(v)
                .ok_or_else(|| err(path, format!("expected a number or a string, found {v}")))?;
            values.push(value);
        }
        let measured = match result.invalidity.as_deref() {
            Some("correct") | None => Measured::Time(time_of(result, &at, &err)?),
            Some("compile") => Measured::Failed(FailReason::Compilation),
            Some("runtime") => Measured::Failed(FailReason::Runtime),
            Some("constraints") => Measured::Failed(FailReason::Invalid),
            Some(other) => Measured::Failed(FailReason::Other(other.to_string())),
        };
        rows.push(Row { values, measured });
    }

    Ok(Dataset {
        gpu: gpu.to_string(),
        kernel: String::new(),
        problem_size: None,
        params,
        rows,
        compiler: None,
    })
}

/// The time of a configuration that ran: its measurement named `time`, in
/// ms, with the repetitions of `times.runtimes` when present.
fn time_of(
    result: &RawResult,
    at: &str,
    err: &dyn Fn(String, String) -> FileError,
) -> Result<Timing, FileError> {
    let Some((i, m)) = result
        .measurements
        .iter()
        .enumerate()
        .find(|(_, m)| m.name == "time")
    else {
        return Err(err(
            format!("{at}.measurements"),
            "no measurement named \"time\" for a configuration marked correct".into(),
        ));
    };
    let path = format!("{at}.measurements[{i}]");
    let scale = ms_per(m.unit.as_deref()).ok_or_else(|| {
        err(
            format!("{path}.unit"),
            format!(
                "unknown time unit {:?} (ms, s, us or ns)",
                m.unit.as_deref().unwrap_or_default()
            ),
        )
    })?;
    let mean_ms = m
        .value
        .as_f64()
        .map(|t| t * scale)
        .filter(|t| t.is_finite() && *t > 0.0)
        .ok_or_else(|| {
            err(
                format!("{path}.value"),
                format!("expected a positive time, found {}", m.value),
            )
        })?;
    let runtimes = match result.times.as_ref().and_then(|t| t.get("runtimes")) {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.is_empty() => None,
        Some(v) => Some(
            repetitions(v, &format!("{at}.times.runtimes"), err)?
                .into_iter()
                .map(|t| t * scale)
                .collect(),
        ),
    };
    Ok(timing(mean_ms, runtimes))
}
