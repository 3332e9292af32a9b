//! `ptxperf gpus`: the GPU catalog, one GPU in full with the source of every
//! number, and the occupancy of a launch on a GPU.

use std::path::PathBuf;

use arch::ptxas::EntryError;
use arch::{Catalog, Gpu, KernelResources, OccupancyInput};
use report::gpus;

use crate::error::{CliError, read_input};
use crate::output::{emit, json_text};

/// List the GPU catalog, show one GPU with the source of every number, or
/// compute the occupancy of a launch.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf gpus                          the catalog as a table
  ptxperf gpus a100-pcie-40gb           one GPU in full, with the source of every number
  ptxperf gpus geforce-rtx-4090 --toml > my-gpu.toml
                                        its catalog file, to start a GPU file of your own
  ptxperf gpus my-gpu.toml              a GPU file of your own, checked, in full
                                        (then give my-gpu.toml as predict's GPU)
  ptxperf gpus a100-pcie-40gb --occupancy --threads 256 --regs 32 --smem 4096
                                        active blocks and warps per SM, and the limiter
  ptxperf gpus h100-sxm5-80gb --occupancy --threads 256 --ptx K.ptx --kernel k
                                        registers and static shared memory from ptxas")]
pub struct Args {
    /// GPU id (e.g. `a100-pcie-40gb`); case, spaces and underscores are
    /// forgiven. Or a GPU file of your own (`PATH.toml`), checked as the
    /// catalog's are: every number needs a source (gpus/README.md).
    pub id: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read the catalog from this directory of `*.toml` files instead of the bundled one.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print the GPU's catalog file itself (TOML, every number with its
    /// source): the start of a GPU file of your own (gpus/README.md, "A GPU
    /// of your own").
    #[arg(long, requires = "id", conflicts_with_all = ["json", "occupancy"])]
    pub toml: bool,
    /// Compute the occupancy of a launch on the GPU ID (needs --threads).
    #[arg(long, requires_all = ["id", "threads"])]
    pub occupancy: bool,
    /// Threads per block, for --occupancy.
    #[arg(long, value_name = "N", requires = "occupancy")]
    pub threads: Option<u32>,
    /// Registers per thread (as `ptxas -v` reports), for --occupancy; 0 means no register limit.
    #[arg(long, value_name = "R", default_value_t = 0, requires = "occupancy")]
    pub regs: u32,
    /// Static plus dynamic shared memory per block in bytes, for --occupancy
    /// (with --ptx: the dynamic part only; ptxas gives the static part).
    #[arg(long, value_name = "B", default_value_t = 0, requires = "occupancy")]
    pub smem: u64,
    /// Take registers and static shared memory from `ptxas -v` on this PTX file
    /// (ptxas from PTXPERF_PTXAS, beside PTXPERF_NVRTC, CUDA_HOME, the project's .venv or PATH).
    #[arg(
        long,
        value_name = "K.ptx",
        requires = "occupancy",
        conflicts_with = "regs"
    )]
    pub ptx: Option<PathBuf>,
    /// Entry to use from --ptx when the file has several.
    #[arg(long, value_name = "NAME", requires = "ptx")]
    pub kernel: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let catalog = match &args.dir {
        Some(dir) => Catalog::load_dir(dir),
        None => Catalog::bundled(),
    }
    .map_err(|e| CliError::of(&e))?;
    let width = crate::table::width();
    let Some(id) = &args.id else {
        return emit(&if args.json {
            json_text(&gpus::list_json(&catalog))?
        } else {
            gpus::list_text(&catalog, width)
        });
    };
    let owned;
    let gpu = match super::gpu_file(id) {
        Some(path) => {
            owned = super::read_gpu_file(path)?;
            &owned
        }
        None => catalog.get(id).map_err(|e| CliError::of(&e))?,
    };
    if args.toml {
        return emit(&catalog_file_text(args.dir.as_deref(), id, gpu)?);
    }
    if !args.occupancy {
        return emit(&if args.json {
            json_text(gpu)?
        } else {
            gpus::gpu_text(gpu, width)
        });
    }
    let threads = args
        .threads
        .ok_or_else(|| CliError::usage("--occupancy needs --threads N"))?;
    let mut input = OccupancyInput {
        threads_per_block: threads,
        registers_per_thread: args.regs,
        shared_per_block_bytes: args.smem,
    };
    let ptxas = match &args.ptx {
        Some(path) => Some(ptxas_kernel(gpu, path, args.kernel.as_deref())?),
        None => None,
    };
    if let Some(k) = &ptxas {
        input.registers_per_thread = k.registers;
        input.shared_per_block_bytes += k.shared_bytes;
    }
    let o = arch::occupancy(gpu, &input).map_err(|e| CliError::of(&e))?;
    if args.json {
        return emit(&json_text(&gpus::occupancy_json(gpu, &input, &o))?);
    }
    let mut text = gpus::occupancy_text(gpu, &input, &o, width);
    if let Some(k) = &ptxas {
        text.push_str(&gpus::ptxas_note(k));
    }
    emit(&text)
}

/// The text of the file the GPU was read from: the given file, a file of
/// --dir, or the bundled catalog's.
fn catalog_file_text(
    dir: Option<&std::path::Path>,
    arg: &str,
    gpu: &Gpu,
) -> Result<String, CliError> {
    let read = |path: &std::path::Path| {
        std::fs::read_to_string(path)
            .map_err(|e| CliError::user(format!("{}: cannot read: {e}", path.display())))
    };
    if let Some(path) = super::gpu_file(arg) {
        return read(path);
    }
    let name = format!("{}.toml", gpu.id);
    if let Some(dir) = dir {
        return read(&dir.join(&name));
    }
    arch::catalog::BUNDLED_FILES
        .iter()
        .find(|(f, _)| *f == name)
        .map(|(_, text)| (*text).to_string())
        .ok_or_else(|| CliError::user(format!("{name}: not in the bundled catalog")))
}

/// Run ptxas on a PTX file for the GPU's architecture and pick one entry.
fn ptxas_kernel(
    gpu: &Gpu,
    path: &std::path::Path,
    kernel: Option<&str>,
) -> Result<KernelResources, CliError> {
    let ptx = read_input(path)?;
    let sm = gpu.compute_capability.sm_name();
    let kernels = arch::ptxas::ptxas_resources(None, &ptx, &sm)
        .map_err(|e| CliError::diagnostic(format!("{}: {e}", path.display())))?;
    let path = path.display();
    arch::ptxas::select_entry(&kernels, kernel)
        .cloned()
        .map_err(|e| match e {
            EntryError::Several(_) => {
                CliError::usage_diagnostic(format!("{path}: error: {e}; choose one with --kernel"))
            }
            EntryError::Missing { .. } => CliError::diagnostic(format!("{path}: error: {e}")),
        })
}
