//! Prints, for each data file given, its role in data/split.toml and how
//! many of its configurations (and of its valid ones) fall in each part:
//! the table of docs/validation/split.md.
//!
//! cargo run -p validate --example split_counts -- data/split.toml FILE...

use std::path::Path;

use validate::import_dataset;
use validate::split::{Part, Split};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((split_path, files)) = args.split_first() else {
        eprintln!("usage: split_counts SPLIT.toml DATA...");
        std::process::exit(2);
    };
    let split = match Split::load(Path::new(split_path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!("| data | role | configurations | development (valid) | check (valid) |");
    println!("|---|---|---|---|---|");
    for f in files {
        let path = Path::new(f);
        let d = match import_dataset(path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let count = |part: Part| {
            let rows = split.rows_in(path, &d, part);
            let valid = rows
                .iter()
                .filter(|&&i| d.rows[i].measured.mean_ms().is_some())
                .count();
            format!("{} ({valid})", rows.len())
        };
        let name = path
            .file_name()
            .map_or(f.clone(), |n| n.to_string_lossy().into_owned());
        println!(
            "| {name} ({}) | {} | {} | {} | {} |",
            d.gpu,
            split.role_of(path).name(),
            d.rows.len(),
            count(Part::Development),
            count(Part::Check)
        );
    }
}
