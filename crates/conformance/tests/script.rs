//! The kit's scripts, checked without a GPU: scripts/gpu/conformance.py,
//! which records a GPU's outputs, through its --dry-run (it reads the kit
//! this crate writes and plans every form; a broken kit is an error), and
//! scripts/conformance-ptxas.py, which has real ptxas check the kernels.
//!
//! Needs `python3` (and NVRTC for the second). Without them the tests are
//! skipped with a message, except under CI (env `CI` set), where that is a
//! failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use conformance::catalogue;
use conformance::form::{Family, Form};
use conformance::recorded::write_kit;

fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set and python3 is missing"
        );
        eprintln!("skipped: python3 is not available on this machine");
    }
    ok
}

/// A kit of `forms` in a fresh temporary directory.
fn kit(name: &str, forms: &[Form]) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ptxperf-conformance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_kit(&dir, forms, 1).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Run `scripts/<script> <dir> <args>`.
fn script(script: &str, dir: &Path, args: &[&str]) -> (Output, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(script);
    let out = Command::new("python3")
        .arg(path)
        .arg(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn expect(text: &str, needle: &str) {
    assert!(text.contains(needle), "no {needle:?} in:\n{text}");
}

#[test]
fn dry_run_plans_every_form_of_the_kit() {
    if !python() {
        return;
    }
    let forms = catalogue::filtered("shfl.sync");
    let dir = kit("dry-run", &forms);
    let (out, text) = script("gpu/conformance.py", &dir, &["--dry-run"]);
    assert!(out.status.success(), "{text}");
    for f in &forms {
        expect(&text, &format!("would run {} (sm_{}", f.name, f.sm));
    }
    expect(&text, &format!("dry run: {0} forms of {0}", forms.len()));

    // A kit with a kernel missing is refused.
    std::fs::remove_file(dir.join(format!("{}.ptx", forms[0].stem())))
        .unwrap_or_else(|e| panic!("{e}"));
    let (out, text) = script("gpu/conformance.py", &dir, &["--dry-run"]);
    assert!(!out.status.success());
    assert!(text.contains("missing"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Real ptxas (through NVRTC) accepts the kernels of one form in twenty and
/// of the first form of each family. (The whole catalogue takes about a
/// minute: run the script on `ptxperf conformance gen`'s output after
/// changing the catalogue.)
#[test]
fn ptxas_accepts_a_sample_of_the_kernels() {
    if !python() {
        return;
    }
    let all = catalogue::forms();
    let forms: Vec<Form> = all
        .iter()
        .enumerate()
        .filter(|(i, f)| i % 20 == 0 || *i == 0 || all[i - 1].family != f.family)
        .map(|(_, f)| f.clone())
        .collect();
    let families: std::collections::HashSet<Family> = forms.iter().map(|f| f.family).collect();
    assert_eq!(families.len(), Family::ALL.len());
    let dir = kit("ptxas", &forms);
    let (out, text) = script("conformance-ptxas.py", &dir, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.code() == Some(3) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set and NVRTC is missing"
        );
        eprintln!("skipped: NVRTC is not available on this machine");
        return;
    }
    assert!(out.status.success(), "{text}");
    expect(&text, &format!("{0} of {0} forms accepted", forms.len()));
}
