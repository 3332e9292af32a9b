//! One module per subcommand; each is owned by the issue that builds it.

pub mod cfg;
pub mod characterize;
pub mod check;
pub mod combinators;
pub mod compile;
pub mod conformance;
pub mod fit;
pub mod gpus;
pub mod learn;
pub mod measure;
pub mod petri;
pub mod predict;
pub mod report;
pub mod run;
pub mod timings;
pub mod tune;
pub mod validate;

use crate::error::CliError;

/// The catalog GPU `id`, held at `clock_mhz` when one is given (`--clock-mhz`).
pub(crate) fn catalog_gpu(id: &str, clock_mhz: Option<f64>) -> Result<arch::Gpu, CliError> {
    let catalog = arch::Catalog::bundled().map_err(|e| CliError::of(&e))?;
    let gpu = catalog.get(id).map_err(|e| CliError::of(&e))?;
    match clock_mhz {
        None => Ok(gpu.clone()),
        Some(mhz) => gpu
            .with_sustained_clock(mhz)
            .map_err(|e| CliError::usage(format!("--clock-mhz: {e}"))),
    }
}
