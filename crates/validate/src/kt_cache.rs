//! Importer for Kernel Tuner cache files (`*.json`, `*.json.gz`).
//!
//! Layout (see `../shared/data/groundtruth/README.md`): top-level
//! `device_name`, `kernel_name`, `problem_size`, `tune_params_keys`,
//! `tune_params`, `objective`, `cache`. `cache` maps "v1,v2,..." to an entry
//! holding every parameter by name, `time` (mean ms) and usually `times`.
//! `time` may be a marker string for a failed configuration.
//!
//! Syntax and shape errors carry serde_json's line and column; errors in the
//! values of a well-formed document carry their JSON path.

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;

use crate::dataset::{Dataset, FailReason, Measured, ParamValue, Row, Timing};
use crate::error::{FileError, Location};
use crate::read::{decode_text, read_text};

/// Reads a Kernel Tuner cache file, gzipped or not.
pub fn import_kt_cache(path: &Path) -> Result<Dataset, FileError> {
    let name = path.display().to_string();
    let text = read_text(path)?;
    parse_kt_cache_text(&name, &text)
}

/// Parses the bytes of a cache file (gzipped or not); `name` labels errors.
pub fn parse_kt_cache(name: &str, bytes: &[u8]) -> Result<Dataset, FileError> {
    let text = decode_text(name, bytes)?;
    parse_kt_cache_text(name, &text)
}

/// The top level, typed only as far as serde can check it with positions.
#[derive(Deserialize)]
struct RawCache {
    device_name: String,
    kernel_name: String,
    #[serde(default)]
    problem_size: Option<Value>,
    tune_params_keys: Vec<String>,
    cache: OrderedEntries,
    /// This project's measurements (scripts/gpu/measure-kt.py) say how.
    #[serde(default)]
    measured_by: Option<MeasuredBy>,
}

#[derive(Deserialize)]
struct MeasuredBy {
    #[serde(default)]
    nvrtc: Option<Value>,
}

/// A JSON object kept in file order (serde_json's `Map` sorts its keys
/// unless a feature this workspace does not enable is on).
pub(crate) struct OrderedEntries(pub(crate) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedEntries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = OrderedEntries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping configuration keys to entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedEntries, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(OrderedEntries(out))
            }
        }
        d.deserialize_map(EntriesVisitor)
    }
}

pub(crate) fn parse_kt_cache_text(name: &str, text: &str) -> Result<Dataset, FileError> {
    let raw: RawCache = serde_json::from_str(text)
        .map_err(|e| json_error(name, &e, "not a Kernel Tuner cache file"))?;
    let err = |path: String, msg: String| FileError::new(name, Location::JsonPath(path), msg);

    let problem_size = match &raw.problem_size {
        None | Some(Value::Null) => None,
        Some(v) => Some(problem_size(v).ok_or_else(|| {
            err(
                "$.problem_size".into(),
                "expected an integer or an array of integers".into(),
            )
        })?),
    };

    let mut rows = Vec::with_capacity(raw.cache.0.len());
    for (key, entry) in &raw.cache.0 {
        let entry_path = format!("$.cache[{}]", quote(key));
        let Value::Object(fields) = entry else {
            return Err(err(entry_path, "expected an object".into()));
        };
        let mut values = Vec::with_capacity(raw.tune_params_keys.len());
        for p in &raw.tune_params_keys {
            let path = format!("{entry_path}.{p}");
            let v = fields
                .get(p)
                .ok_or_else(|| err(path.clone(), "parameter missing".into()))?;
            values.push(
                param_value(v).ok_or_else(|| {
                    err(path, format!("expected a number or a string, found {v}"))
                })?,
            );
        }
        let time_path = format!("{entry_path}.time");
        let measured = match fields.get("time") {
            None => return Err(err(time_path, "missing".into())),
            Some(Value::String(marker)) => Measured::Failed(FailReason::from_marker(marker)),
            Some(Value::Number(n)) => {
                let mean_ms = n
                    .as_f64()
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .ok_or_else(|| {
                        err(time_path, format!("expected a positive time, found {n}"))
                    })?;
                let times = match fields.get("times") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(repetitions(v, &format!("{entry_path}.times"), &err)?),
                };
                Measured::Time(timing(mean_ms, times))
            }
            Some(other) => {
                return Err(err(
                    time_path,
                    format!("expected a number or a failure marker, found {other}"),
                ));
            }
        };
        rows.push(Row { values, measured });
    }

    Ok(Dataset {
        gpu: raw.device_name,
        kernel: raw.kernel_name,
        problem_size,
        params: raw.tune_params_keys,
        rows,
        compiler: raw
            .measured_by
            .and_then(|m| m.nvrtc)
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
    })
}

/// A JSON syntax or shape error at serde_json's line and column (the whole
/// file when it has none), after `what`.
pub(crate) fn json_error(name: &str, e: &serde_json::Error, what: &str) -> FileError {
    let at = if e.line() == 0 {
        Location::File
    } else {
        Location::LineCol(e.line(), e.column())
    };
    FileError::new(name, at, format!("{what}: {e}"))
}

/// `problem_size` is an integer or an array of integers.
fn problem_size(v: &Value) -> Option<Vec<i64>> {
    match v {
        Value::Number(n) => Some(vec![n.as_i64()?]),
        Value::Array(items) => items.iter().map(Value::as_i64).collect(),
        _ => None,
    }
}

/// A parameter value: an integer, a string, or a non-integral number kept
/// as its JSON text (which is what Python's `str()` prints for it too).
pub(crate) fn param_value(v: &Value) -> Option<ParamValue> {
    match v {
        Value::Number(n) => Some(match n.as_i64() {
            Some(i) => ParamValue::Int(i),
            None => ParamValue::Str(n.to_string()),
        }),
        Value::String(s) => Some(ParamValue::Str(s.clone())),
        Value::Bool(b) => Some(ParamValue::Str(if *b { "True" } else { "False" }.into())),
        _ => None,
    }
}

pub(crate) fn repetitions(
    v: &Value,
    path: &str,
    err: &dyn Fn(String, String) -> FileError,
) -> Result<Vec<f64>, FileError> {
    let Value::Array(items) = v else {
        return Err(err(path.to_string(), "expected an array of times".into()));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.as_f64().filter(|t| t.is_finite()).ok_or_else(|| {
                err(
                    format!("{path}[{i}]"),
                    format!("expected a time, found {t}"),
                )
            })
        })
        .collect()
}

/// Fills median, min, population std and the drift through the run from
/// the repetitions (in launch order) when present.
pub(crate) fn timing(mean_ms: f64, times: Option<Vec<f64>>) -> Timing {
    match times {
        Some(mut t) if !t.is_empty() => {
            let drift = drift(&t);
            t.sort_by(f64::total_cmp);
            let n = t.len() as f64;
            let avg = t.iter().sum::<f64>() / n;
            let var = t.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n;
            Timing {
                mean_ms,
                median_ms: crate::stats::median_of_sorted(&t),
                min_ms: t.first().copied(),
                std_ms: Some(var.sqrt()),
                n: u32::try_from(t.len()).ok(),
                drift,
            }
        }
        _ => Timing {
            mean_ms,
            median_ms: None,
            min_ms: None,
            std_ms: None,
            n: None,
            drift: None,
        },
    }
}

/// The mean of the last quarter of `times` (launch order) over the mean of
/// the first ([`Timing::drift`]); None for fewer than
/// [`crate::dataset::DRIFT_MIN_LAUNCHES`] launches or a first quarter that
/// took no time.
pub(crate) fn drift(times: &[f64]) -> Option<f64> {
    if times.len() < crate::dataset::DRIFT_MIN_LAUNCHES {
        return None;
    }
    let k = times.len() / 4;
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let first = mean(&times[..k]);
    let last = mean(&times[times.len() - k..]);
    (first > 0.0)
        .then(|| last / first)
        .filter(|d| d.is_finite())
}

fn quote(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"))
}

#[cfg(test)]
mod drift_tests {
    use super::drift;

    #[track_caller]
    fn check(times: &[f64], expect: Option<f64>) {
        assert_eq!(drift(times), expect);
    }

    #[test]
    fn drift_is_the_last_quarter_over_the_first() {
        // Too few launches for two in each quarter.
        check(&[1.0; 7], None);
        check(&[1.0; 8], Some(1.0));
        // Launch order matters: the last two over the first two.
        check(&[1.0, 1.0, 5.0, 5.0, 5.0, 5.0, 2.0, 2.0], Some(2.0));
        check(&[2.0, 2.0, 5.0, 5.0, 5.0, 5.0, 1.0, 1.0], Some(0.5));
        // Nine launches: quarters of two, the middle five left out.
        check(&[1.0, 3.0, 9.0, 9.0, 9.0, 9.0, 9.0, 4.0, 4.0], Some(2.0));
        // A first quarter that took no time gives none.
        check(&[0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], None);
    }
}
