//! A tuning space made of measured configurations (`ptxperf tune
//! --measured`): the configurations of ground-truth files (Kernel Tuner
//! caches, Schoonhoven CSVs) that were timed in every file, restricted by a
//! space's restrictions, with each file's measured times, so that the models'
//! picks can be scored against what the GPUs measured.

use std::path::Path;

use crate::error::TuneError;
use crate::space::{Config, Space};

/// Why a measured space could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasuredError {
    #[error("no ground-truth file")]
    NoFile,
    #[error("{0}")]
    File(#[from] validate::FileError),
    #[error("{0}")]
    Restriction(#[from] TuneError),
}

/// The configurations and their measured times.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredSpace {
    /// Configurations timed in every file.
    pub total: u64,
    /// Per restriction (its text), how many it rejected first.
    pub rejected_by: Vec<(String, u64)>,
    /// The configurations kept, in the first file's order.
    pub kept: Vec<Config>,
    /// Per file (in the order given), the measured mean time in
    /// milliseconds of each kept configuration.
    pub times: Vec<Vec<Option<f64>>>,
}

/// A configuration's identity across files whose columns may be in another
/// order: its sorted `name=value` pairs.
fn identity(params: &[String], values: &[impl ToString]) -> Vec<String> {
    let mut id: Vec<String> = params
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}={}", v.to_string()))
        .collect();
    id.sort();
    id
}

/// The configurations of the first ground-truth file that have a time in
/// every file, restricted by the space's restrictions, with each file's
/// measured mean times (one vector per file, aligned with the configurations).
pub fn measured_space(files: &[&Path], space: &Space) -> Result<MeasuredSpace, MeasuredError> {
    let mut datasets = Vec::with_capacity(files.len());
    for path in files {
        datasets.push(validate::import_dataset(path)?);
    }
    let Some((first, others)) = datasets.split_first() else {
        return Err(MeasuredError::NoFile);
    };
    let lookups: Vec<std::collections::HashMap<Vec<String>, f64>> = others
        .iter()
        .map(|d| {
            d.rows
                .iter()
                .filter_map(|r| Some((identity(&d.params, &r.values), r.measured.mean_ms()?)))
                .collect()
        })
        .collect();
    let mut rejected = vec![0u64; space.restrictions.len()];
    let mut kept = Vec::new();
    let mut times: Vec<Vec<Option<f64>>> = vec![Vec::new(); datasets.len()];
    let mut total = 0u64;
    for (i, row) in first.rows.iter().enumerate() {
        let Some(ms) = row.measured.mean_ms() else {
            continue;
        };
        let id = identity(&first.params, &row.values);
        let Some(other_ms) = lookups
            .iter()
            .map(|l| l.get(&id).copied())
            .collect::<Option<Vec<f64>>>()
        else {
            continue;
        };
        total += 1;
        let config = Config {
            index: i as u64,
            values: first
                .params
                .iter()
                .cloned()
                .zip(row.values.iter().cloned())
                .collect(),
        };
        match space.first_broken(&config)? {
            Some(r) => {
                if let Some(n) = rejected.get_mut(r) {
                    *n += 1;
                }
            }
            None => {
                kept.push(config);
                for (t, m) in times.iter_mut().zip(std::iter::once(ms).chain(other_ms)) {
                    t.push(Some(m));
                }
            }
        }
    }
    let rejected_by = space
        .restrictions
        .iter()
        .map(|r| r.text().to_string())
        .zip(rejected)
        .collect();
    Ok(MeasuredSpace {
        total,
        rejected_by,
        kept,
        times,
    })
}
