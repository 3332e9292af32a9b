//! Which configurations a tuning run evaluates: the space's kept
//! configurations, or the configurations measured in ground-truth files
//! (`--measured`), optionally a seeded random sample of them, with each
//! measured file's times lined up with the configurations chosen.

use std::path::PathBuf;

use crate::error::TuneError;
use crate::measured::{MeasuredError, measured_space};
use crate::space::{Config, Space};

/// Per GPU of the run: the measured file and its time per chosen configuration.
pub type MeasuredTimes = Option<(PathBuf, Vec<Option<f64>>)>;

/// The configurations to evaluate, with the space's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Size of the full space (or of the configurations measured in every file).
    pub total: u64,
    /// Per restriction (its text), how many configurations it rejected first.
    pub rejected_by: Vec<(String, u64)>,
    /// How many configurations were kept before sampling.
    pub kept: usize,
    /// The configurations to evaluate, in space order.
    pub configs: Vec<Config>,
    /// Per GPU (aligned with the run's GPUs): the measured times, aligned
    /// with `configs`, for the GPUs given a ground-truth file.
    pub measured: Vec<MeasuredTimes>,
}

/// Why no selection could be made.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error("{0}")]
    Space(#[from] TuneError),
    #[error("{0}")]
    Measured(#[from] MeasuredError),
}

/// Why `--measured` arguments do not name one file per GPU.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasuredArgError {
    #[error("--measured {0}: with several GPUs give GPU_ID=FILE, GPU_ID one of the --gpu ids")]
    Unnamed(String),
    #[error("--measured: two files for GPU {0}")]
    Twice(String),
}

/// `--measured` arguments as (GPU index, file): `FILE` alone with one GPU,
/// else `GPU_ID=FILE` naming one of `gpu_ids`.
pub fn pair_measured(
    args: &[String],
    gpu_ids: &[&str],
) -> Result<Vec<(usize, PathBuf)>, MeasuredArgError> {
    let mut out: Vec<(usize, PathBuf)> = Vec::new();
    for a in args {
        let named = a.split_once('=').and_then(|(id, file)| {
            gpu_ids
                .iter()
                .position(|g| *g == id.trim())
                .map(|i| (i, PathBuf::from(file)))
        });
        let pair = match (named, gpu_ids.len()) {
            (Some(p), _) => p,
            (None, 1) => (0, PathBuf::from(a)),
            (None, _) => return Err(MeasuredArgError::Unnamed(a.clone())),
        };
        if out.iter().any(|(i, _)| *i == pair.0) {
            let id = gpu_ids.get(pair.0).copied().unwrap_or("?");
            return Err(MeasuredArgError::Twice(id.to_string()));
        }
        out.push(pair);
    }
    Ok(out)
}

/// The configurations of `space` (or, with `measured` files, those measured
/// in every file), `sample` = (N, seed) picking N of them at random, for a
/// run on `n_gpus` GPUs.
pub fn select(
    space: &Space,
    measured: &[(usize, PathBuf)],
    n_gpus: usize,
    sample: Option<(usize, u64)>,
) -> Result<Selection, SelectionError> {
    let (total, rejected_by, kept, times) = if measured.is_empty() {
        let ex = space.expand()?;
        (ex.total, ex.rejected_by, ex.kept, Vec::new())
    } else {
        let files: Vec<&std::path::Path> = measured.iter().map(|(_, p)| p.as_path()).collect();
        let m = measured_space(&files, space)?;
        (m.total, m.rejected_by, m.kept, m.times)
    };
    let n_kept = kept.len();
    let indices = match sample {
        Some((n, seed)) => validate::sample::sample_indices(n_kept, n, seed),
        None => (0..n_kept).collect(),
    };
    let configs: Vec<Config> = indices
        .iter()
        .filter_map(|&i| kept.get(i).cloned())
        .collect();
    let mut per_gpu: Vec<MeasuredTimes> = vec![None; n_gpus];
    for ((gi, path), t) in measured.iter().zip(times) {
        let aligned = indices
            .iter()
            .map(|&i| t.get(i).copied().flatten())
            .collect();
        if let Some(slot) = per_gpu.get_mut(*gi) {
            *slot = Some((path.clone(), aligned));
        }
    }
    Ok(Selection {
        total,
        rejected_by,
        kept: n_kept,
        configs,
        measured: per_gpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gpu_takes_a_bare_file_and_several_need_ids() {
        let one = pair_measured(&["a.json".into()], &["x"]);
        assert_eq!(one, Ok(vec![(0, PathBuf::from("a.json"))]));
        let two = pair_measured(&["y=b.json".into(), "x=a.json".into()], &["x", "y"]);
        assert_eq!(
            two,
            Ok(vec![
                (1, PathBuf::from("b.json")),
                (0, PathBuf::from("a.json"))
            ])
        );
        let bare = pair_measured(&["a.json".into()], &["x", "y"]);
        assert_eq!(bare, Err(MeasuredArgError::Unnamed("a.json".into())));
        let twice = pair_measured(&["a.json".into(), "b.json".into()], &["x"]);
        assert_eq!(twice, Err(MeasuredArgError::Twice("x".into())));
    }
}
