//! Calibrating every GPU of a gpu-benches folder at once.
//!
//! Files are named `gpu-<benchmark>_<gpu>.txt` (as in the shared ground-truth
//! folder); the `<gpu>` part is mapped to the project's catalog id.

use crate::FitError;
use crate::calibrate::{fit_cache_bandwidth, fit_latency, fit_launch, fit_stream};
pub use crate::calibration::Calibration;
use crate::gpubench;
use std::collections::BTreeMap;
use std::path::Path;

/// The catalog id of a gpu-benches file suffix. Unknown suffixes are kept as
/// they are, with `_` turned into `-`.
pub fn catalog_id(suffix: &str) -> String {
    match suffix {
        "h100_pcie" => "h100-pcie-80gb".into(),
        "h200" => "h200-sxm-141gb".into(),
        "a100_80" => "a100-sxm4-80gb".into(),
        // gpu-benches does not say which V100 board; the SXM2 part is the
        // common one in the clusters it was run on (assumption).
        "v100" => "tesla-v100-sxm2-16gb".into(),
        other => other.replace('_', "-"),
    }
}

/// An I/O or parse error while calibrating a folder.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("{path}: error: cannot read: {message}")]
    Io { path: String, message: String },
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// Read and calibrate every `gpu-*_*.txt` file in `dir`, grouped by GPU,
/// in a deterministic (sorted) order.
pub fn calibrate_dir(dir: &Path, provenance: &str) -> Result<Vec<Calibration>, DirError> {
    let io = |p: &Path, e: std::io::Error| DirError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    // An entry that cannot be read is an error: skipping it would drop a
    // GPU's measurements from the calibration without a word.
    let mut names: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        if let Ok(n) = entry.file_name().into_string()
            && n.starts_with("gpu-")
            && n.ends_with(".txt")
        {
            names.push(n);
        }
    }
    names.sort();
    let mut by_gpu: BTreeMap<String, Calibration> = BTreeMap::new();
    for name in names {
        let stem = &name[4..name.len() - 4];
        let Some((bench, gpu)) = stem.split_once('_') else {
            continue;
        };
        let id = catalog_id(gpu);
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
        let file = path.display().to_string();
        let cal = by_gpu.entry(id.clone()).or_insert_with(|| Calibration {
            gpu: id.clone(),
            ..Default::default()
        });
        cal.source
            .insert(bench.to_string(), format!("{provenance}, file {name}"));
        match bench {
            "stream" => {
                let fits = fit_stream(&gpubench::parse_stream(&file, &text)?)?;
                cal.stream_peak_gbps = fits.iter().map(|f| f.peak_gbps).reduce(f64::max);
                cal.stream = fits;
            }
            "latency" => cal.latency = Some(fit_latency(&gpubench::parse_latency(&file, &text)?)?),
            "cache" => {
                cal.l1_bandwidth = Some(fit_cache_bandwidth(&gpubench::parse_cache(&file, &text)?)?)
            }
            "l2-cache" => {
                cal.l2_bandwidth = Some(fit_cache_bandwidth(&gpubench::parse_l2_cache(
                    &file, &text,
                )?)?)
            }
            "small-kernels" => {
                cal.launch = Some(fit_launch(&gpubench::parse_small_kernels(&file, &text)?)?)
            }
            _ => {
                cal.source.remove(bench);
            }
        }
    }
    Ok(by_gpu.into_values().collect())
}
