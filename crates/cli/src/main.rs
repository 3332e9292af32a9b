//! The `ptxperf` binary: the only crate of the workspace that prints.
//!
//! Each subcommand lives in its own module under `cmd/`, exposes an `Args`
//! struct (clap) and a `run(args) -> Result<(), CliError>` function. Exit
//! status: 0 on success, 1 for a user error (bad input, kernel fault), 2 for
//! bad usage (clap's own errors).

mod args;
mod cmd;
mod error;
mod output;
mod table;

use clap::{Parser, Subcommand};

/// Predict and explain how fast a CUDA kernel runs on an NVIDIA GPU, without the GPU.
///
/// The data path: CUDA C++ is compiled to PTX with NVRTC (`compile`), the PTX is
/// parsed and checked (`check`, `cfg`), and the analytical models of the
/// literature predict its time on a GPU of the catalog (`gpus`).
#[derive(Parser)]
#[command(name = "ptxperf", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Compile(cmd::compile::Args),
    Check(cmd::check::Args),
    Cfg(cmd::cfg::Args),
    Run(cmd::run::Args),
    Measure(cmd::measure::Args),
    Characterize(cmd::characterize::Args),
    Gpus(cmd::gpus::Args),
    Predict(cmd::predict::Args),
    Petri(cmd::petri::Args),
    Fit(cmd::fit::Args),
    Validate(cmd::validate::Args),
    Tune(cmd::tune::Args),
    Learn(cmd::learn::Args),
    Combinators(cmd::combinators::Args),
    Conformance(cmd::conformance::Args),
}

/// Rust ignores SIGPIPE, so `ptxperf ... | head` would panic on the closed
/// pipe; restore the default action (terminate quietly) as command-line tools do.
#[cfg(unix)]
fn restore_sigpipe() {
    unsafe extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: setting a signal's disposition to its default is async-signal
    // safe and happens before any other thread exists.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}

fn main() {
    restore_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compile(a) => cmd::compile::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Cfg(a) => cmd::cfg::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Measure(a) => cmd::measure::run(a),
        Command::Characterize(a) => cmd::characterize::run(a),
        Command::Gpus(a) => cmd::gpus::run(a),
        Command::Predict(a) => cmd::predict::run(a),
        Command::Petri(a) => cmd::petri::run(a),
        Command::Fit(a) => cmd::fit::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Tune(a) => cmd::tune::run(a),
        Command::Learn(a) => cmd::learn::run(a),
        Command::Combinators(a) => cmd::combinators::run(a),
        Command::Conformance(a) => cmd::conformance::run(a),
    };
    if let Err(e) = result {
        e.report();
        std::process::exit(e.code());
    }
}
