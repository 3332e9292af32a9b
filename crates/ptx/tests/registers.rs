//! The PTX-only register estimate (`ptx::analysis::registers`) against the
//! registers ptxas allocates for every entry of the corpus, committed in
//! `tests/data/ptxas-registers.tsv` (regenerate with
//! `scripts/ptxas-registers.sh`). Run with `--nocapture` for the table.

use std::path::{Path, PathBuf};

use ptx::analysis::registers::{ERROR_BAND_PERCENT, estimate_registers};

/// One row of the committed ptxas figures.
struct Row {
    kernel: String,
    entry: String,
    ptxas: u32,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rows() -> Vec<Row> {
    let path = root().join("crates/ptx/tests/data/ptxas-registers.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("kernel\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "malformed row {l:?}");
            Row {
                kernel: f[0].to_string(),
                entry: f[1].to_string(),
                ptxas: f[2].parse().unwrap_or_else(|e| panic!("{l:?}: {e}")),
            }
        })
        .collect()
}

/// The estimate for `row`, from `kernels/<kernel>/sm_80.ptx`.
fn estimate(row: &Row) -> u32 {
    let path = root().join("kernels").join(&row.kernel).join("sm_80.ptx");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let module = ptx::parse(&path.display().to_string(), &text)
        .unwrap_or_else(|d| panic!("{}", d.render("sm_80.ptx", &text)));
    let Some((_, func)) = module.entries().find(|(_, f)| f.name == row.entry) else {
        panic!("{}: no entry {}", path.display(), row.entry)
    };
    estimate_registers(func)
}

/// The corpus kernels whose estimate is more than 25 % off ptxas's count
/// (the sign: `-` ptxas allocates more). Every other kernel must be within
/// 25 %; these within [`ERROR_BAND_PERCENT`], and each must still be
/// outside 25 % (a kernel that comes back in band is taken off the list).
/// The causes are not established kernel by kernel (no SASS is read here);
/// the module doc of `ptx::analysis::registers` lists what the rule cannot
/// see.
const OUTSIDE_25: &[(&str, char)] = &[
    ("atomics_global", '-'),
    ("bank_conflicts", '-'),
    ("bit_tricks", '-'),
    ("coalescing", '-'),
    ("conv2d", '-'),
    ("device_calls", '-'),
    ("fold_reduce", '+'),
    ("fp64", '-'),
    ("matmul_tiled", '-'),
    ("printf_kernel", '-'),
    ("radix_global", '-'),
    ("radix_shared", '+'),
    ("warp_match_redux", '-'),
];

#[test]
fn corpus_estimates_against_ptxas() {
    let rows = rows();
    assert!(rows.len() >= 30, "only {} rows", rows.len());
    let mut failures = Vec::new();
    let mut errors = Vec::new();
    for row in &rows {
        let est = estimate(row);
        let err = (f64::from(est) - f64::from(row.ptxas)) / f64::from(row.ptxas) * 100.0;
        println!(
            "{}\t{}\t{est}\t{}\t{err:+.0}%",
            row.kernel, row.entry, row.ptxas
        );
        errors.push(err.abs());
        let known = OUTSIDE_25.iter().find(|(k, _)| *k == row.kernel);
        let what = format!(
            "{}: estimate {est}, ptxas {} ({err:+.0} %)",
            row.kernel, row.ptxas
        );
        match known {
            None if err.abs() > 25.0 => failures.push(format!("{what}: more than 25 % off")),
            Some(_) if err.abs() <= 25.0 => {
                failures.push(format!("{what}: within 25 %, take it off OUTSIDE_25"))
            }
            Some((_, sign)) if (*sign == '-') != (err < 0.0) => {
                failures.push(format!("{what}: not of sign {sign}"))
            }
            _ => {}
        }
        if err.abs() > f64::from(ERROR_BAND_PERCENT) {
            failures.push(format!("{what}: outside the ±{ERROR_BAND_PERCENT} % band"));
        }
    }
    for (k, _) in OUTSIDE_25 {
        if !rows.iter().any(|r| r.kernel == *k) {
            failures.push(format!("{k}: in OUTSIDE_25 but not in the ptxas figures"));
        }
    }
    errors.sort_by(f64::total_cmp);
    println!(
        "median |error| {:.1} %, max {:.1} %, within 25 %: {} of {}",
        errors[errors.len() / 2],
        errors[errors.len() - 1],
        errors.iter().filter(|&&e| e <= 25.0).count(),
        errors.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every corpus kernel has its ptxas figure, so a kernel added to
/// `kernels/` without rerunning `scripts/ptxas-registers.sh` is caught.
#[test]
fn every_corpus_kernel_has_a_ptxas_figure() {
    let rows = rows();
    let dir = root().join("kernels");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut missing = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().join("sm_80.ptx").is_file() && !rows.iter().any(|r| r.kernel == name) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "no ptxas figure for {missing:?}: run scripts/ptxas-registers.sh"
    );
}

/// The estimate of every function (device functions too) of every corpus
/// PTX file, for each architecture, is a count a thread may have.
#[test]
fn every_corpus_function_gets_an_estimate_in_range() {
    let dir = root().join("kernels");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut functions = 0;
    for entry in entries.flatten() {
        for sm in ["sm_70", "sm_80", "sm_90"] {
            let path = entry.path().join(format!("{sm}.ptx"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let module = ptx::parse(&path.display().to_string(), &text)
                .unwrap_or_else(|d| panic!("{}", d.render("corpus.ptx", &text)));
            for (_, func) in module.functions.iter().filter(|(_, f)| f.has_body) {
                let n = estimate_registers(func);
                assert!(
                    (1..=255).contains(&n),
                    "{}: {}: {n}",
                    path.display(),
                    func.name
                );
                functions += 1;
            }
        }
    }
    assert!(functions >= 90, "only {functions} functions");
}
