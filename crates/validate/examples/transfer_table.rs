//! The transferred-best baseline between every pair of data files of one
//! kernel (docs/validation/transfer.md): for each GPU (a row) and each other
//! GPU (a column), the measured time here of the configuration measured
//! fastest there, over the best measured here; on all configurations and on
//! the check part of the split. Measured data only: nothing is emulated.
//!
//! cargo run -p validate --example transfer_table -- data/split.toml FILE...

use std::path::{Path, PathBuf};

use validate::split::{Part, Split};
use validate::transfer::{Transfer, transferred_best};
use validate::{Dataset, import_dataset};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((split_path, files)) = args.split_first() else {
        eprintln!("usage: transfer_table SPLIT.toml DATA...");
        std::process::exit(2);
    };
    if let Err(e) = run(Path::new(split_path), files) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn run(split_path: &Path, files: &[String]) -> Result<(), String> {
    let split = Split::load(split_path).map_err(|e| e.to_string())?;
    let mut data: Vec<(PathBuf, Dataset)> = Vec::new();
    let mut excluded = Vec::new();
    for f in files {
        let path = PathBuf::from(f);
        if split.exclusion(&path).is_some() {
            // Its times are not what it says was measured (data/split.toml).
            excluded.push(f.clone());
            continue;
        }
        let d = import_dataset(&path).map_err(|e| e.to_string())?;
        data.push((path, d));
    }
    let kernel = data.first().map_or("", |(_, d)| d.kernel.as_str());
    println!(
        "Kernel `{kernel}`: the configuration measured fastest on the GPU of the column, run on"
    );
    println!("the GPU of the row: its time measured on the row's GPU over the best measured on it");
    println!(
        "(1.000: the column's optimum is the row's), and the share of the optimum it reaches."
    );
    for f in &excluded {
        println!("Left out, excluded by the split: {f}.");
    }
    println!();
    for (title, part) in [
        ("All configurations", None),
        ("The check part of the split", Some(Part::Check)),
    ] {
        println!("{title}:");
        println!();
        let names: Vec<String> = data.iter().map(|(_, d)| short(&d.gpu)).collect();
        println!("| on \\ from | {} |", names.join(" | "));
        println!("|---|{}", "---|".repeat(names.len()));
        let mut notes = Vec::new();
        for (path, here) in &data {
            let set: Vec<usize> = match part {
                None => (0..here.rows.len()).collect(),
                Some(p) => split.rows_in(path, here, p),
            };
            let mut cells = Vec::new();
            for (other_path, other) in &data {
                if other_path == path {
                    cells.push("-".to_string());
                    continue;
                }
                let t = transferred_best(here, &set, other).map_err(|e| {
                    format!("{} from {}: {e}", path.display(), other_path.display())
                })?;
                cells.push(cell(&t));
                if t.rank_there > 1 {
                    notes.push(format!(
                        "{} from {}: the {} fastest there (passed over: {} missing here, {} failed here, {} outside the set)",
                        short(&here.gpu),
                        short(&other.gpu),
                        validate::transfer::ordinal(t.rank_there),
                        t.passed_over.missing_here,
                        t.passed_over.failed_here,
                        t.passed_over.outside_set
                    ));
                }
            }
            let measured = set
                .iter()
                .filter(|&&r| {
                    here.rows
                        .get(r)
                        .is_some_and(|r| r.measured.mean_ms().is_some())
                })
                .count();
            println!(
                "| {} ({measured} measured) | {} |",
                short(&here.gpu),
                cells.join(" | ")
            );
        }
        println!();
        for n in notes {
            println!("- {n}");
        }
        println!();
    }
    Ok(())
}

fn cell(t: &Transfer) -> String {
    let mark = if t.rank_there > 1 { "*" } else { "" };
    format!("{:.3} ({:.1} %){mark}", t.ratio, t.percent_of_optimum())
}

/// The GPU's name without the vendor's prefixes.
fn short(gpu: &str) -> String {
    gpu.trim_start_matches("NVIDIA ")
        .trim_start_matches("GeForce ")
        .to_string()
}
