//! The measurement CSV format.
//!
//! One header line, then one row per measured point:
//!
//! ```text
//! gpu,benchmark,x,time,unit,repetition
//! h100-pcie-80gb,int_add,64,290,cycles,0
//! ```
//!
//! - `gpu`: a catalog id (free text is accepted; it only groups rows);
//! - `benchmark`: the microbenchmark's name (`int_add`, `dbl_mul`,
//!   `global_to_shared`, `h2d_copy`, ...);
//! - `x`: the independent variable (operation count, bytes, ...), a number;
//! - `time`: the measured value, a number;
//! - `unit`: `cycles`, `ns`, `us`, `ms` or `s`; rows of one data set share a unit;
//! - `repetition`: an integer; each repetition of a benchmark is one data set,
//!   as seed 004 fits one model per data set before finalising.
//!
//! Blank lines and lines starting with `#` are skipped. Fields hold no commas
//! or quotes.

use crate::FitError;
use std::collections::BTreeMap;

/// The unit of a measured value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Cycles,
    Ns,
    Us,
    Ms,
    S,
}

impl Unit {
    pub fn parse(s: &str) -> Option<Unit> {
        Some(match s {
            "cycles" => Unit::Cycles,
            "ns" => Unit::Ns,
            "us" => Unit::Us,
            "ms" => Unit::Ms,
            "s" => Unit::S,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Cycles => "cycles",
            Unit::Ns => "ns",
            Unit::Us => "us",
            Unit::Ms => "ms",
            Unit::S => "s",
        }
    }
}

/// The key of one data set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SetKey {
    pub gpu: String,
    pub benchmark: String,
    pub repetition: u32,
}

/// The points of one data set, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSet {
    pub key: SetKey,
    pub unit: Unit,
    pub xs: Vec<f64>,
    pub times: Vec<f64>,
}

const HEADER: [&str; 6] = ["gpu", "benchmark", "x", "time", "unit", "repetition"];

/// Parse a measurement CSV. `file` names the input in error messages.
pub fn parse_csv(file: &str, text: &str) -> Result<Vec<DataSet>, FitError> {
    let err = |line: usize, message: String| FitError::Parse {
        file: file.to_string(),
        line,
        message,
    };
    let mut sets: BTreeMap<SetKey, DataSet> = BTreeMap::new();
    let mut saw_header = false;
    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if !saw_header {
            if fields != HEADER {
                return Err(err(
                    line_no,
                    format!("expected the header `{}`", HEADER.join(",")),
                ));
            }
            saw_header = true;
            continue;
        }
        if fields.len() != HEADER.len() {
            return Err(err(
                line_no,
                format!("expected {} fields, found {}", HEADER.len(), fields.len()),
            ));
        }
        let number = |i: usize| -> Result<f64, FitError> {
            fields[i]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    err(
                        line_no,
                        format!("`{}` is not a finite number ({})", fields[i], HEADER[i]),
                    )
                })
        };
        let x = number(2)?;
        let time = number(3)?;
        let unit = Unit::parse(fields[4]).ok_or_else(|| {
            err(
                line_no,
                format!("unknown unit `{}` (cycles, ns, us, ms, s)", fields[4]),
            )
        })?;
        let repetition = fields[5].parse::<u32>().map_err(|_| {
            err(
                line_no,
                format!("repetition `{}` is not a non-negative integer", fields[5]),
            )
        })?;
        let key = SetKey {
            gpu: fields[0].to_string(),
            benchmark: fields[1].to_string(),
            repetition,
        };
        let set = sets.entry(key.clone()).or_insert_with(|| DataSet {
            key,
            unit,
            xs: Vec::new(),
            times: Vec::new(),
        });
        if set.unit != unit {
            return Err(err(
                line_no,
                format!(
                    "unit `{}` differs from `{}` used earlier in this data set",
                    unit.name(),
                    set.unit.name()
                ),
            ));
        }
        set.xs.push(x);
        set.times.push(time);
    }
    if !saw_header {
        return Err(err(1, "empty file: expected a header and rows".into()));
    }
    Ok(sets.into_values().collect())
}
