//! `ptxperf cfg K.ptx --kernel NAME [--dot]`: the control-flow graph of a
//! kernel, as a readable listing (blocks, successors, immediate dominators
//! and post-dominators, loop depth, static mix, registers, shared memory) or
//! as a Graphviz DOT graph (one node per basic block, solid CFG edges, dashed
//! immediate-post-dominator edges).

use crate::error::{CliError, read_input};
use ptx::analysis::FunctionFlow;
use ptx::analysis::kernel::{SelectError, select_function as select_function_in};
use ptx::{Function, Handle, Module};
use report::cfg;
use std::path::PathBuf;

/// Show the control-flow graph of a kernel.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  ptxperf cfg kernels/matmul_tiled/sm_80.ptx
  ptxperf cfg kernels/divergence/sm_80.ptx --kernel divergence
  ptxperf cfg kernels/matmul_tiled/sm_80.ptx --dot > cfg.dot && dot -Tsvg cfg.dot -o cfg.svg")]
pub struct Args {
    /// The PTX file.
    pub input: PathBuf,
    /// The kernel (`.entry`); C++ kernels may be named by their plain name.
    /// Optional when the module has exactly one kernel. A `.func` with a
    /// body may be named exactly.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Print a Graphviz DOT graph instead of the listing.
    #[arg(long)]
    pub dot: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = read_input(&args.input)?;
    let file = args.input.display().to_string();
    let module =
        ptx::parse(&file, &text).map_err(|d| CliError::diagnostic(d.render(&file, &text)))?;
    let handle = select_function(&module, args.kernel.as_deref(), &file)?;
    let func = module
        .functions
        .get(handle)
        .ok_or_else(|| CliError::diagnostic(format!("{file}: error: function not found")))?;
    if !func.has_body {
        return Err(CliError::diagnostic(format!(
            "{file}: error: `{}` has no body",
            func.name
        )));
    }
    let flow = FunctionFlow::compute(func)
        .map_err(|e| CliError::diagnostic(format!("{file}: error: in `{}`: {e}", func.name)))?;
    let lines = cfg::instruction_lines(func, &text);
    let out = if args.dot {
        cfg::dot(func, &flow, &lines)
    } else {
        cfg::listing(&module, handle, func, &flow, &lines, crate::table::width())
    };
    print!("{out}");
    Ok(())
}

/// The function to show; several kernels without --kernel is a usage error.
fn select_function(
    module: &Module,
    name: Option<&str>,
    file: &str,
) -> Result<Handle<Function>, CliError> {
    select_function_in(module, name).map_err(|e| match e {
        SelectError::SeveralKernels(names) => CliError::usage_diagnostic(format!(
            "{file}: error: the module has several kernels, choose one with --kernel: {}",
            names.join(", ")
        )),
        e => CliError::diagnostic(format!("{file}: error: {e}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two kernels, so that a kernel must be chosen.
    const PTX: &str = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .visible .entry _Z4testPf()\n{\n\tret;\n}\n\
        .visible .entry other()\n{\n\tret;\n}\n";

    /// Select `kernel` and name it, or the error with its exit status.
    fn check(kernel: Option<&str>, expected: &[&str]) {
        let m = ptx::parse("t.ptx", PTX).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", PTX)));
        let out = match select_function(&m, kernel, "t.ptx") {
            Ok(h) => m.functions.get(h).map_or(String::new(), |f| f.name.clone()),
            Err(e) => format!("exit {}: {e}", e.code()),
        };
        for want in expected {
            assert!(out.contains(want), "missing `{want}` in:\n{out}");
        }
    }

    #[test]
    fn kernel_selection_errors() {
        check(
            Some("nope"),
            &[
                "exit 1",
                "no kernel named `nope`; available kernels: _Z4testPf, other",
            ],
        );
        check(None, &["exit 2", "several kernels", "_Z4testPf, other"]);
        check(Some("other"), &["other"]);
        check(Some("test"), &["_Z4testPf"]);
    }
}
