//! `ptxperf combinators`: emulate the corpus's map, fold and scan kernels at
//! several sizes, check their outputs against CPU references, and predict
//! their cost on a GPU from fitted models (`fit::combinators`).

use crate::error::{CliError, read_input};
use crate::output::{emit, json_text};
use arch::Catalog;
use report::combinators;

use fit::combinators::calibrated::parse_calibrated;
use fit::combinators::{Combinator, CorpusOptions, OpLatencies, SweepRow, gpu_params, sweep};
use std::path::{Path, PathBuf};

/// Predict the cost of the combinators map, fold and scan (seed 004) from fitted models.
///
/// Examples:
///   ptxperf combinators --gpu h100-pcie-80gb
///   ptxperf combinators --gpu a100-sxm4-80gb --n 65536 --n 1048576 --pipeline map,fold --json
///   ptxperf combinators --gpu h100-pcie-80gb --measurements m.csv --svg cost.svg
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// GPU id from the catalog; its gpus/calibrated/<id>.toml must exist.
    #[arg(long)]
    gpu: String,
    /// Problem sizes (elements; multiples of 256). Default 4096, 16384, 65536, 262144, 1048576.
    #[arg(long = "n")]
    sizes: Vec<u64>,
    /// A pipeline of combinators to compose, e.g. `map,fold` or `scan,map`.
    #[arg(long)]
    pipeline: Option<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Write an SVG of predicted cost against N.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// The kernel corpus folder.
    #[arg(long, default_value = "kernels")]
    kernels: PathBuf,
    /// Folder of calibration files.
    #[arg(long, default_value = "gpus/calibrated")]
    calibrated: PathBuf,
    /// A measurement CSV (gpurun's format) whose op benchmarks price compute.
    #[arg(long)]
    measurements: Option<PathBuf>,
    /// Emulate this many CTAs for the counts (spread over the grid; more, stratified by a probe of the grid, while they disagree; extrapolated); 0: all.
    #[arg(long, default_value_t = 64)]
    sample_ctas: u64,
}

const DEFAULT_SIZES: [u64; 5] = [4096, 16384, 65536, 262144, 1048576];

pub fn run(args: Args) -> Result<(), CliError> {
    let sizes: Vec<u64> = if args.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        args.sizes.clone()
    };
    if let Some(bad) = sizes
        .iter()
        .find(|&&n| n == 0 || n % 256 != 0 || n > 1 << 28)
    {
        return Err(CliError::usage(format!(
            "--n {bad}: sizes must be positive multiples of 256, at most 2^28"
        )));
    }
    let pipeline: Vec<Combinator> = match &args.pipeline {
        None => Vec::new(),
        Some(p) => p
            .split(',')
            .map(|s| {
                Combinator::from_name(s).ok_or_else(|| {
                    CliError::usage(format!(
                        "--pipeline: unknown combinator `{s}` (map, fold, scan)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let catalog = Catalog::bundled().map_err(|e| CliError::of(&e))?;
    let gpu = catalog
        .get(&args.gpu)
        .map_err(|e| CliError::of(&e))?
        .clone();
    let cal_path = args.calibrated.join(format!("{}.toml", gpu.id));
    let cal = parse_calibrated(&cal_path.display().to_string(), &read_input(&cal_path)?)
        .map_err(|e| CliError::of(&e))?;
    let params = gpu_params(&gpu, &cal, &cal_path)?;
    let lat = match &args.measurements {
        Some(p) => {
            let sets = fit::measurements::parse_csv(&p.display().to_string(), &read_input(p)?)
                .map_err(|e| CliError::of(&e))?;
            OpLatencies::from_datasets(&sets, &gpu.id)
        }
        None => OpLatencies::default(),
    };
    let corpus = CorpusOptions {
        kernels: args.kernels.clone(),
        sample_ctas: args.sample_ctas,
    };
    let rows = sweep(&corpus, &gpu, &params, &lat, &sizes, &pipeline)?;
    if let Some(path) = &args.svg {
        write_svg(path, &gpu.id, &rows)?;
    }
    emit(&if args.json {
        json_text(&combinators::json(&gpu.id, &params, &lat, &rows))?
    } else {
        combinators::text(&params, &lat, &rows, crate::table::width())
    })
}

/// Predicted cost against N as an SVG file.
fn write_svg(path: &Path, gpu: &str, rows: &[SweepRow]) -> Result<(), CliError> {
    let svg = fit::combinators::plot::cost_svg(gpu, rows).map_err(|e| CliError::of(&e))?;
    crate::output::write_file(path, svg)
}
