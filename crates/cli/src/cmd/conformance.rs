//! `ptxperf conformance`: the differential conformance kit (crate
//! `conformance`, docs/conformance.md). `gen` writes one random-operand
//! kernel per instruction form for a GPU to run (scripts/gpu/conformance.py);
//! `compare` replays a recorded directory on the emulator; `check` compares
//! the emulator with the kit's own references, no GPU needed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use conformance::catalogue;
use conformance::compare::failures;
use conformance::recorded::{compare_dir, write_kit};

use crate::error::CliError;

const EXAMPLES: &str = "\
Examples:
  ptxperf conformance check
  ptxperf conformance check --forms cvt.rn --seed 7
  ptxperf conformance gen --out /tmp/kit --forms shfl
  ptxperf conformance compare data/conformance/h100-sxm5-80gb

On a GPU machine, scripts/gpu/conformance.py DIR runs a kit written by `gen` \
and records the outputs for `compare` (docs/conformance.md).";

/// The kit's default seed (the issue number).
const SEED: u64 = 28;

/// Differential conformance kit: instruction forms, GPU recordings, emulator comparison.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand)]
pub enum Sub {
    /// Write DIR/<form>.ptx, DIR/<form>.in.bin and DIR/manifest.json (every
    /// form, the known divergences and unsupported forms included).
    Gen {
        #[arg(long)]
        out: PathBuf,
        /// Only forms whose name contains this.
        #[arg(long, default_value = "")]
        forms: String,
        #[arg(long, default_value_t = SEED)]
        seed: u64,
    },
    /// Compare the emulator with the outputs a GPU recorded in DIR.
    Compare { dir: PathBuf },
    /// Compare the emulator with the kit's reference evaluators (no GPU; the
    /// forms expected to pass).
    Check {
        #[arg(long, default_value = "")]
        forms: String,
        #[arg(long, default_value_t = SEED)]
        seed: u64,
    },
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.command {
        Sub::Gen { out, forms, seed } => {
            let forms = nonempty(&forms, catalogue::kit_forms(&forms))?;
            let m = write_kit(&out, &forms, seed).map_err(|e| CliError::of(&e))?;
            println!(
                "wrote {} forms to {} (seed {seed})",
                m.forms.len(),
                out.display()
            );
            Ok(())
        }
        Sub::Compare { dir } => {
            let r = compare_dir(&dir).map_err(|e| CliError::of(&e))?;
            println!("{}: {}", dir.display(), r.summary());
            for (f, e) in &r.known {
                println!("known: {f}: {e}");
            }
            if r.ok() {
                return Ok(());
            }
            let lines: Vec<String> = r
                .failures
                .iter()
                .map(|(f, e)| format!("{f}: {e}"))
                .collect();
            Err(CliError::diagnostic(format!(
                "error: the emulator differs from the GPU:\n{}",
                lines.join("\n")
            )))
        }
        Sub::Check { forms, seed } => {
            let forms = nonempty(&forms, catalogue::filtered(&forms))?;
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for f in &forms {
                *counts.entry(f.family.name()).or_default() += 1;
            }
            let failures = failures(&forms, seed);
            let by_family: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
            println!("{} forms ({})", forms.len(), by_family.join(", "));
            if failures.is_empty() {
                println!("all match their references");
                return Ok(());
            }
            Err(CliError::diagnostic(format!(
                "error: {} forms differ:\n{}",
                failures.len(),
                failures.join("\n")
            )))
        }
    }
}

fn nonempty(
    filter: &str,
    forms: Vec<conformance::form::Form>,
) -> Result<Vec<conformance::form::Form>, CliError> {
    if forms.is_empty() {
        return Err(CliError::usage(format!(
            "--forms {filter:?}: no form's name contains it"
        )));
    }
    Ok(forms)
}
