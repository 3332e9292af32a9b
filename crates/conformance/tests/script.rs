//! scripts/gpu/conformance.py, which records a GPU's outputs, checked
//! without a GPU through its --dry-run: it reads the kit this crate writes
//! and plans every form; a broken kit is an error.
//!
//! Needs `python3`. Without it the test is skipped with a message, except
//! under CI (env `CI` set), where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use conformance::catalogue;
use conformance::recorded::write_kit;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gpu/conformance.py")
}

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

#[test]
fn dry_run_plans_every_form_of_the_kit() {
    if !python() {
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("ptxperf-conformance-script-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let forms = catalogue::filtered("shfl.sync");
    write_kit(&dir, &forms, 1).unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new("python3")
        .arg(script())
        .arg(&dir)
        .arg("--dry-run")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in &forms {
        assert!(
            stdout.contains(&format!("would run {} (sm_{}", f.name, f.sm)),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!(
            "dry run: {} forms of {}",
            forms.len(),
            forms.len()
        )),
        "{stdout}"
    );

    // A kit with a kernel missing is refused.
    std::fs::remove_file(dir.join(format!("{}.ptx", forms[0].stem())))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new("python3")
        .arg(script())
        .arg(&dir)
        .arg("--dry-run")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
    let _ = std::fs::remove_dir_all(&dir);
}
