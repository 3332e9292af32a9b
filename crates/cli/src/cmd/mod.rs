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
pub mod objective;
pub mod petri;
pub mod predict;
pub mod report;
pub mod run;
pub mod timings;
pub mod tune;
pub mod validate;

use crate::error::CliError;

/// The GPU a `--gpu` names, held at `clock_mhz` when one is given
/// (`--clock-mhz`): a catalog id, or a GPU file of one's own (`PATH.toml`,
/// the catalog's format; [`gpu_file`]).
pub(crate) fn named_gpu(id: &str, clock_mhz: Option<f64>) -> Result<arch::Gpu, CliError> {
    let gpu = match gpu_file(id) {
        Some(path) => read_gpu_file(path)?,
        None => {
            let catalog = arch::Catalog::bundled().map_err(|e| CliError::of(&e))?;
            catalog.get(id).map_err(|e| CliError::of(&e))?.clone()
        }
    };
    match clock_mhz {
        None => Ok(gpu),
        Some(mhz) => gpu
            .with_sustained_clock(mhz)
            .map_err(|e| CliError::usage(format!("--clock-mhz: {e}"))),
    }
}

/// `Some(path)` when a `--gpu` value names a file rather than a catalog id:
/// it ends in `.toml` (ids never do).
pub(crate) fn gpu_file(arg: &str) -> Option<&std::path::Path> {
    arg.ends_with(".toml").then(|| std::path::Path::new(arg))
}

/// One GPU file, checked as the catalog's are (every number sourced, the id
/// equal to the file's stem, a compute capability the bundled table knows);
/// errors name the file, line and column.
pub(crate) fn read_gpu_file(path: &std::path::Path) -> Result<arch::Gpu, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::user(format!("{}: cannot read the GPU file: {e}", path.display()))
    })?;
    arch::parse_gpu(&path.display().to_string(), &text).map_err(|e| CliError::of(&e))
}
