//! `ptxperf run`: placeholder until its issue lands.

use crate::error::CliError;

/// Not built yet.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<(), CliError> {
    Err(CliError::user("`ptxperf run` is not built yet"))
}
