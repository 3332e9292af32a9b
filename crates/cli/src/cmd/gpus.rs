//! `ptxperf gpus`: the GPU catalog, one GPU in full with the source of every
//! number, and the occupancy of a launch on a GPU.

use std::fmt::Write as _;
use std::path::PathBuf;

use arch::ptxas::EntryError;
use arch::{Catalog, Gpu, KernelResources, OccupancyInput, RegisterGranularity, RegisterSource};
use comfy_table::Table;

use crate::error::{CliError, read_input};
use crate::output::emit;

/// List the GPU catalog, show one GPU with the source of every number, or
/// compute the occupancy of a launch.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf gpus                          the catalog as a table
  ptxperf gpus a100-pcie-40gb           one GPU in full, with the source of every number
  ptxperf gpus a100-pcie-40gb --occupancy --threads 256 --regs 32 --smem 4096
                                        active blocks and warps per SM, and the limiter
  ptxperf gpus h100-sxm5-80gb --occupancy --threads 256 --ptx K.ptx --kernel k
                                        registers and static shared memory from ptxas")]
pub struct Args {
    /// GPU id (e.g. `a100-pcie-40gb`); case, spaces and underscores are forgiven.
    pub id: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read the catalog from this directory of `*.toml` files instead of the bundled one.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
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
    let Some(id) = &args.id else {
        return emit(&render_list(&catalog, args.json)?);
    };
    let gpu = catalog.get(id).map_err(|e| CliError::of(&e))?;
    if args.occupancy {
        let threads = args
            .threads
            .ok_or_else(|| CliError::usage("--occupancy needs --threads N"))?;
        let mut input = OccupancyInput {
            threads_per_block: threads,
            registers_per_thread: args.regs,
            shared_per_block_bytes: args.smem,
        };
        if let Some(path) = &args.ptx {
            let k = ptxas_kernel(gpu, path, args.kernel.as_deref())?;
            input.registers_per_thread = k.registers;
            input.shared_per_block_bytes += k.shared_bytes;
            let mut text = render_occupancy(gpu, &input, args.json)?;
            if !args.json {
                text.push_str(&format!(
                    "registers and static shared memory of `{}`: {} ({} registers, {} B static shared, {} B stack)\n",
                    k.name,
                    RegisterSource::Ptxas,
                    k.registers,
                    k.shared_bytes,
                    k.stack_frame_bytes
                ));
            }
            return emit(&text);
        }
        return emit(&render_occupancy(gpu, &input, args.json)?);
    }
    emit(&render_gpu(gpu, args.json)?)
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

fn table(header: Vec<&str>) -> Table {
    let mut t = crate::table::new();
    t.set_header(header);
    crate::table::wrap_last_column_only(&mut t);
    t
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map_err(|e| CliError::diagnostic(format!("error: JSON: {e}")))
}

fn bytes(b: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if b == 0 {
        "-".to_string()
    } else if b.is_multiple_of(MIB) {
        format!("{} MB", b / MIB)
    } else if b >= MIB {
        format!("{:.2} MB", b as f64 / MIB as f64)
    } else {
        format!("{} KB", b / 1024)
    }
}

/// The catalog as a table (or JSON `{"schema":1,"gpus":[...]}`).
fn render_list(catalog: &Catalog, json: bool) -> Result<String, CliError> {
    if json {
        let v = serde_json::json!({ "schema": 1, "gpus": catalog.gpus() });
        return Ok(format!("{}\n", to_json(&v)?));
    }
    let mut table = table(vec![
        "id",
        "name",
        "CC",
        "SMs",
        "lanes/SM",
        "clock MHz",
        "DRAM GB/s",
        "L2",
        "max warps/SM",
    ]);
    for g in catalog.gpus() {
        table.add_row(vec![
            g.id.clone(),
            g.name.clone(),
            g.compute_capability.to_string(),
            g.sm_count.to_string(),
            g.sm.fp32_lanes.to_string(),
            format!("{}", g.clock_mhz()),
            format!("{}", g.memory.bandwidth_gbs),
            bytes(g.caches.l2_bytes),
            g.limits.max_warps_per_sm.to_string(),
        ]);
    }
    Ok(format!(
        "{table}\n{} GPUs. `ptxperf gpus ID` shows one in full with the source of every number.\n",
        catalog.len()
    ))
}

/// One GPU in full: every number with its status and source.
fn render_gpu(gpu: &Gpu, json: bool) -> Result<String, CliError> {
    if json {
        return Ok(format!("{}\n", to_json(gpu)?));
    }
    let mut out = String::new();
    let clock = match gpu.clocks.sustained_mhz {
        Some(_) => "sustained".to_string(),
        None => gpu.clocks.model_clock.to_string(),
    };
    let _ = writeln!(out, "{} ({})", gpu.name, gpu.id);
    let _ = writeln!(
        out,
        "{} {}, compute capability {} ({}); models use the {} clock, {} MHz",
        gpu.architecture,
        gpu.chip,
        gpu.compute_capability,
        gpu.compute_capability.sm_name(),
        clock,
        gpu.clock_mhz()
    );
    let _ = writeln!(
        out,
        "peak FP32 {:.1} GFLOP/s, FP64 {:.1} GFLOP/s, DRAM {} GB/s ({:.1} B/cycle), issue {} cycles/warp instruction",
        gpu.peak_fp32_flops() / 1e9,
        gpu.peak_fp64_flops() / 1e9,
        gpu.memory.bandwidth_gbs,
        gpu.dram_bytes_per_cycle(),
        gpu.issue_cycles()
    );
    let mut table = table(vec!["field", "value", "status", "source"]);
    for (path, value) in gpu.numeric_fields() {
        let (status, source) = gpu
            .source_of(&path)
            .map_or(("?".to_string(), String::new()), |s| {
                (s.status.to_string(), s.source.clone())
            });
        let shown = if path == "limits.shared_carveouts_kib" {
            format!("{:?}", gpu.limits.shared_carveouts_kib)
        } else {
            format!("{value}")
        };
        table.add_row(vec![path, shown, status, source]);
    }
    let _ = writeln!(out, "{table}");
    Ok(out)
}

/// The occupancy of a launch, each limit with its arithmetic.
fn render_occupancy(gpu: &Gpu, input: &OccupancyInput, json: bool) -> Result<String, CliError> {
    let o = arch::occupancy(gpu, input).map_err(|e| CliError::of(&e))?;
    if json {
        let v = serde_json::json!({ "schema": 1, "gpu": gpu.id, "input": input, "occupancy": o });
        return Ok(format!("{}\n", to_json(&v)?));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (CC {}): {} threads/block, {} registers/thread, {} B shared/block",
        gpu.id,
        gpu.compute_capability,
        input.threads_per_block,
        input.registers_per_thread,
        input.shared_per_block_bytes
    );
    let mut table = table(vec!["limit", "blocks/SM", "detail"]);
    let l = &gpu.limits;
    table.add_row(vec![
        "warps".to_string(),
        o.blocks_by_warps.to_string(),
        format!(
            "{} warps/SM / {} warps/block",
            l.max_warps_per_sm, o.warps_per_block
        ),
    ]);
    table.add_row(vec![
        "blocks".to_string(),
        o.blocks_by_blocks.to_string(),
        format!("{} blocks/SM", l.max_blocks_per_sm),
    ]);
    table.add_row(vec![
        "registers".to_string(),
        o.blocks_by_registers.to_string(),
        format!(
            "{} registers/block allocated of {}/SM (unit {} per {})",
            o.registers_per_block,
            l.registers_per_sm,
            l.register_allocation_unit,
            match l.register_allocation_granularity {
                RegisterGranularity::Warp => "warp",
                RegisterGranularity::Block => "block",
            }
        ),
    ]);
    table.add_row(vec![
        "shared memory".to_string(),
        o.blocks_by_shared.to_string(),
        format!(
            "{} B/block allocated ({} B reserved, unit {}) of {} B/SM",
            o.shared_per_block_bytes,
            l.reserved_shared_per_block_bytes,
            l.shared_allocation_unit,
            l.shared_per_sm_bytes
        ),
    ]);
    let _ = writeln!(out, "{table}");
    let limiters: Vec<&str> = o.limiters.iter().map(|l| l.name()).collect();
    let _ = writeln!(
        out,
        "active: {} blocks, {} warps, {} threads per SM; occupancy {:.1} %; limited by {}",
        o.active_blocks_per_sm,
        o.active_warps_per_sm,
        o.active_threads_per_sm,
        o.occupancy * 100.0,
        limiters.join(" and ")
    );
    if let Some(c) = o.carveout_bytes {
        let _ = writeln!(
            out,
            "shared-memory carve-out the driver would choose: {} KB",
            c / 1024
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::bundled().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn bytes_cases() {
        let check = |b, want: &str| assert_eq!(bytes(b), want);
        check(0, "-");
        check(768 * 1024, "768 KB");
        check(40 * 1024 * 1024, "40 MB");
        check(2816 * 1024, "2.75 MB");
    }

    #[test]
    fn list_has_one_row_per_gpu() {
        let c = catalog();
        let text = render_list(&c, false).unwrap_or_default();
        for g in c.gpus() {
            assert!(text.contains(&format!("│ {} ", g.id)), "{}", g.id);
        }
        let json = render_list(&c, true).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(v["schema"], 1);
        assert_eq!(v["gpus"].as_array().map(Vec::len), Some(c.len()));
    }

    #[test]
    fn one_gpu_shows_every_number_with_its_source() {
        let c = catalog();
        for g in c.gpus() {
            let text = render_gpu(g, false).unwrap_or_default();
            for (path, _) in g.numeric_fields() {
                assert!(text.contains(&path), "{}: {path}", g.id);
            }
            assert!(!text.contains("┆ ?"), "{}: a number without a source", g.id);
        }
    }

    #[test]
    fn occupancy_names_the_limiter() {
        let c = catalog();
        let check = |id: &str, threads, regs, smem, want: &str| {
            let g = c.get(id).unwrap_or_else(|e| panic!("{e}"));
            let input = OccupancyInput {
                threads_per_block: threads,
                registers_per_thread: regs,
                shared_per_block_bytes: smem,
            };
            let text = render_occupancy(g, &input, false).unwrap_or_default();
            assert!(text.contains(want), "{text}");
        };
        check(
            "tesla-t4",
            256,
            32,
            0,
            "4 blocks, 32 warps, 1024 threads per SM; occupancy 100.0 %; limited by warps",
        );
        check("a100-pcie-40gb", 128, 24, 40000, "limited by shared memory");
        check(
            "a100-pcie-40gb",
            128,
            24,
            40000,
            "carve-out the driver would choose: 164 KB",
        );
        let g = c.get("tesla-t4").unwrap_or_else(|e| panic!("{e}"));
        let bad = OccupancyInput {
            threads_per_block: 2048,
            registers_per_thread: 0,
            shared_per_block_bytes: 0,
        };
        assert!(render_occupancy(g, &bad, false).is_err());
    }
}
