//! `ptxperf check K.ptx`: parse and validate a PTX module. Prints a one-line
//! summary and exits 0 when the module is valid; otherwise prints every
//! diagnostic (`file:line:col: error: message` plus a source snippet) to
//! stderr and exits 1.

use crate::error::{CliError, read_input};
use std::path::PathBuf;

/// Parse and validate a PTX file.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf check kernels/matmul_tiled/sm_80.ptx
  ptxperf compile examples/saxpy.cu -o saxpy.ptx && ptxperf check saxpy.ptx")]
pub struct Args {
    /// The PTX file.
    pub input: PathBuf,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = read_input(&args.input)?;
    let name = args.input.display().to_string();
    let module =
        ptx::parse(&name, &text).map_err(|d| CliError::diagnostic(d.render(&name, &text)))?;
    let kernels = module.entries().count();
    let functions = module
        .functions
        .iter()
        .filter(|(_, f)| !f.is_entry() && f.has_body)
        .count();
    println!(
        "{name}: ok: {kernels} kernel{}, {functions} function{}, {} instructions (PTX {}.{}, {})",
        if kernels == 1 { "" } else { "s" },
        if functions == 1 { "" } else { "s" },
        module.instruction_count(),
        module.version.major,
        module.version.minor,
        module.target.join(", "),
    );
    Ok(())
}
