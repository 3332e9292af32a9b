//! Recorded GPU outputs: the emulator against every `data/conformance/*/`
//! the repository holds (none yet: the test says so and passes), and the
//! loader and comparison on a synthetic recorded set in a temporary
//! directory: outputs equal to the references pass, a flipped byte fails
//! naming the form, a missing output is listed as skipped.

use std::path::{Path, PathBuf};

use conformance::catalogue;
use conformance::compare::expected;
use conformance::kernel;
use conformance::recorded::{compare_dir, read_manifest, recorded_dirs, write_kit};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxperf-conformance-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn emulator_matches_recorded_gpu_data() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/conformance");
    let dirs = recorded_dirs(&root);
    if dirs.is_empty() {
        println!(
            "no recorded GPU data under data/conformance: nothing to compare (scripts/gpu/conformance.py records it)"
        );
        return;
    }
    for dir in dirs {
        let r = compare_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: {}", dir.display(), r.summary());
        let lines: Vec<String> = r
            .failures
            .iter()
            .map(|(f, e)| format!("{f}: {e}"))
            .collect();
        assert!(
            r.ok(),
            "{}: the emulator differs from the GPU:\n{}",
            dir.display(),
            lines.join("\n")
        );
    }
}

/// Write a kit of `filter`'s forms and, as a GPU would, their expected outputs.
fn synthetic(name: &str, filter: &str) -> PathBuf {
    let dir = temp(name);
    let forms = catalogue::filtered(filter);
    assert!(!forms.is_empty());
    write_kit(&dir, &forms, 7).unwrap_or_else(|e| panic!("{e}"));
    for f in &forms {
        let k = kernel::generate(f, 7);
        let want = expected(f, &k.inputs);
        let slots = f.outputs.len().max(1);
        let mut bytes = vec![0u8; kernel::Kernel::out_bytes(f.outputs.len())];
        for (t, w) in want.iter().enumerate() {
            for (j, v) in w.iter().enumerate() {
                let at = (t * slots + j) * 8;
                let width = (f.outputs[j].ty.bits() as usize).div_ceil(8);
                bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
            }
        }
        std::fs::write(dir.join(format!("{}.out.bin", f.stem())), bytes)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(dir.join("gpu.json"), r#"{"name": "Synthetic GPU"}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    dir
}

#[test]
fn synthetic_recording_passes_then_fails_when_corrupted() {
    let dir = synthetic("corrupt", ".s64");
    let m = read_manifest(&dir).unwrap_or_else(|e| panic!("{e}"));
    let r = compare_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.ok(), "{:?}", r.failures);
    assert_eq!(r.passed.len(), m.forms.len());
    assert_eq!(r.gpu.as_deref(), Some("Synthetic GPU"));

    // One flipped bit in thread 3's result of one form; another form not recorded.
    let victim = &m.forms[0];
    let out = dir.join(format!("{}.out.bin", victim.stem));
    let mut bytes = std::fs::read(&out).unwrap_or_else(|e| panic!("{e}"));
    bytes[3 * 8 * victim.outputs.len()] ^= 1;
    std::fs::write(&out, bytes).unwrap_or_else(|e| panic!("{e}"));
    let absent = &m.forms[1];
    std::fs::remove_file(dir.join(format!("{}.out.bin", absent.stem)))
        .unwrap_or_else(|e| panic!("{e}"));

    let r = compare_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.failures.len(), 1, "{:?}", r.failures);
    assert_eq!(r.failures[0].0, victim.name);
    assert!(r.failures[0].1.contains("thread 3"), "{}", r.failures[0].1);
    assert_eq!(r.missing, vec![absent.name.clone()]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_kit_is_an_error_not_a_panic() {
    let dir = temp("bad");
    assert!(compare_dir(&dir).is_err(), "no manifest");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("manifest.json"), "{ not json").unwrap_or_else(|e| panic!("{e}"));
    let e = compare_dir(&dir)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("manifest.json"), "{e}");
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"kit": 9, "seed": 0, "threads": 128, "entry": "conf", "forms": []}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let e = compare_dir(&dir)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("kit 9"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
