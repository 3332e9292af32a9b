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

#[cfg(test)]
mod tests {
    use super::*;

    /// A Kernel Tuner cache of (x, y) configurations, its columns in `keys` order.
    fn kt_cache(keys: [&str; 2], rows: &[([i64; 2], &str)]) -> String {
        let entries: Vec<String> = rows
            .iter()
            .map(|(v, time)| {
                format!(
                    "\"{},{}\": {{\"{}\": {}, \"{}\": {}, \"time\": {time}}}",
                    v[0], v[1], keys[0], v[0], keys[1], v[1]
                )
            })
            .collect();
        format!(
            "{{\"device_name\": \"GPU\", \"kernel_name\": \"k\", \"problem_size\": [1], \
             \"tune_params_keys\": [\"{}\", \"{}\"], \"cache\": {{{}}}}}",
            keys[0],
            keys[1],
            entries.join(", ")
        )
    }

    #[test]
    fn configurations_timed_in_every_file_are_kept_and_restricted() {
        let dir = std::env::temp_dir().join(format!("ptxperf-measured-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let a = dir.join("a.json");
        let b = dir.join("b.json");
        let rows_a = [
            ([1, 1], "1.0"),
            ([1, 2], "2.0"),
            ([2, 2], "3.0"),
            ([3, 3], "4.0"),
        ];
        // The second file lists y first, misses (3, 3) and failed (1, 2).
        let rows_b = [
            ([1, 1], "10.0"),
            ([2, 1], "\"RuntimeFailedConfig\""),
            ([2, 2], "30.0"),
        ];
        let write = |p: &Path, t: String| std::fs::write(p, t).unwrap_or_else(|e| panic!("{e}"));
        write(&a, kt_cache(["x", "y"], &rows_a));
        write(&b, kt_cache(["y", "x"], &rows_b));
        let mut space = Space::default();
        space
            .add_restriction("x < 2")
            .unwrap_or_else(|e| panic!("{e}"));
        let m =
            measured_space(&[a.as_path(), b.as_path()], &space).unwrap_or_else(|e| panic!("{e}"));
        // (1, 1) and (2, 2) are timed in both; the restriction drops (2, 2).
        assert_eq!(m.total, 2);
        assert_eq!(m.rejected_by, vec![("x < 2".to_string(), 1)]);
        assert_eq!(m.kept.len(), 1);
        assert_eq!(m.times, vec![vec![Some(1.0)], vec![Some(10.0)]]);
        assert_eq!(measured_space(&[], &space), Err(MeasuredError::NoFile));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
