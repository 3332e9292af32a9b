//! Every corpus kernel's profile under the current profile rules
//! ([`pipeline::PROFILE_RULES`]), checked in as
//! `tests/profile-rules/<kernel>.toml`: a change that alters any figure a
//! profile holds (what the collector counts, the cache model's figures)
//! fails here, so that it also bumps `PROFILE_RULES`, and `validate
//! --resume` then emulates again the profiles older builds saved instead of
//! mixing two emulators' counts in one run.
//!
//! The profiles are made as `validate` makes the ones it saves: 4 CTAs
//! sampled with the neighbour warm-up, the cache model of the RTX 3090. The
//! registers are estimated (no ptxas) and the PTX is the checked-in
//! `sm_80.ptx`, so nothing depends on the NVRTC or ptxas installed. Numbers
//! are written with 10 significant digits, so that a last-bit difference in
//! a platform's maths library does not count as a change of rules.
//!
//! After a deliberate change: bump `PROFILE_RULES`, then rewrite the files
//! with `PTXPERF_BLESS=1 cargo test -p pipeline --test profile_rules`, and
//! read their diff. Rewriting refuses while `PROFILE_RULES` is the one the
//! files were written under and a profile differs.

use std::path::{Path, PathBuf};

use arch::Catalog;
use pipeline::{LoadOptions, Options, PROFILE_RULES, Policy, load_spec_with, profile};

const GPU: &str = "geforce-rtx-3090";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile-rules")
}

fn corpus() -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(repo().join("kernels"))
        .expect("kernels/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("spec.toml").is_file())
        .map(|p| {
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, p)
        })
        .collect();
    dirs.sort();
    dirs
}

/// `value` with every float written with 10 significant digits.
fn rounded(value: toml::Value) -> toml::Value {
    match value {
        toml::Value::Float(f) => {
            toml::Value::Float(format!("{f:.9e}").parse().expect("a float we wrote"))
        }
        toml::Value::Array(a) => toml::Value::Array(a.into_iter().map(rounded).collect()),
        toml::Value::Table(t) => {
            toml::Value::Table(t.into_iter().map(|(k, v)| (k, rounded(v))).collect())
        }
        other => other,
    }
}

/// The first line of a golden file.
fn header() -> String {
    format!("# profile rules {PROFILE_RULES}\n")
}

/// The golden text of the corpus kernel in `dir`.
fn golden_text(dir: &Path, gpu: &arch::Gpu) -> String {
    let opts = LoadOptions {
        ptx: Some(dir.join("sm_80.ptx")),
        ..LoadOptions::default()
    };
    let loaded = load_spec_with(&dir.join("spec.toml"), &[], &opts)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let profiled = profile(
        &loaded,
        &Options {
            policy: Policy::Ipdom,
            sample_ctas: Some(4),
            gpu: Some(gpu.clone()),
            ptxas: false,
            neighbour_warmup: true,
            warmup_l2_bytes: Some(gpu.caches.l2_bytes),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let value = toml::Value::try_from(&profiled.profile).expect("a profile is TOML");
    let body = toml::to_string(&rounded(value)).expect("serialise");
    format!("{}{body}", header())
}

/// The first line where `a` and `b` differ (1-based), with both lines.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => break,
            (x, y) => {
                return format!(
                    "line {n}: checked in {:?}, now {:?}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                );
            }
        }
    }
    "no difference".to_string()
}

#[test]
fn corpus_profiles_match_the_profile_rules() {
    let catalog = Catalog::bundled().expect("catalog");
    let gpu = catalog.get(GPU).expect("the RTX 3090");
    let kernels = corpus();
    assert!(
        kernels.len() >= 25,
        "corpus not found: {} kernels",
        kernels.len()
    );
    let bless = std::env::var_os("PTXPERF_BLESS").is_some();
    let dir = golden_dir();
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    for (name, kernel_dir) in &kernels {
        let now = golden_text(kernel_dir, gpu);
        let path = dir.join(format!("{name}.toml"));
        let checked_in = std::fs::read_to_string(&path).ok();
        if checked_in.as_deref() == Some(now.as_str()) {
            continue;
        }
        let same_rules = checked_in
            .as_deref()
            .is_some_and(|t| t.lines().next() == Some(header().trim_end()));
        let what = match &checked_in {
            None => format!("{name}: no file {}", path.display()),
            Some(old) => format!("{name}: {}", first_difference(old, &now)),
        };
        if bless && !(same_rules && checked_in.is_some()) {
            std::fs::create_dir_all(&dir).expect("create the golden folder");
            std::fs::write(&path, &now).expect("write a golden profile");
        } else if bless {
            refused.push(what);
        } else {
            failures.push(what);
        }
    }
    // A file for a kernel the corpus no longer has.
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let stem = file.strip_suffix(".toml").unwrap_or(&file);
        if !kernels.iter().any(|(n, _)| n == stem) {
            failures.push(format!("{file}: no corpus kernel {stem}"));
        }
    }
    assert!(
        refused.is_empty(),
        "not rewritten: these profiles changed under the same PROFILE_RULES \
         ({PROFILE_RULES}); bump pipeline::PROFILE_RULES first:\n{}",
        refused.join("\n")
    );
    assert!(
        failures.is_empty(),
        "profiles differ from tests/profile-rules/ (PROFILE_RULES {PROFILE_RULES}). If the \
         change is meant, bump pipeline::PROFILE_RULES, then rewrite them with \
         `PTXPERF_BLESS=1 cargo test -p pipeline --test profile_rules`:\n{}",
        failures.join("\n")
    );
}
