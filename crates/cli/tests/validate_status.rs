//! `validate`'s exit status when nothing could be scored: the report is
//! printed (its notes say why), then the run fails, so that a script does not
//! take an empty table for figures. No compiler is needed: the profiles are
//! read from a folder (`--profiles`), empty or the committed H200 ones.

use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const DATA: &str = "data/measured/h200-sxm-141gb/vector_add.json";

/// `validate` of the H200 vector_add with the profiles of `profiles`, on the
/// H200 and on each of `others` (the same data file again): (exit code,
/// stdout, stderr).
fn validate(profiles: &Path, others: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec![
        "validate",
        "experiments/vector-add.toml",
        "--data",
        DATA,
        "--gpu",
        "h200-sxm-141gb",
    ];
    for gpu in others {
        args.extend(["--data", DATA, "--gpu", gpu]);
    }
    args.extend([
        "--profiles",
        profiles.to_str().expect("utf-8 path"),
        "--model",
        "timing",
        "--bootstrap",
        "0",
        "--quiet",
    ]);
    let out = common::ptxperf_in(&root(), &args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_data_file_nothing_of_which_is_scored_exits_1_after_its_report() {
    let empty = std::env::temp_dir().join(format!("ptxperf-nothing-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temp dir");
    let (code, out, err) = validate(&empty, &[]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("no configuration was both measured and predicted"),
        "{out}"
    );
    assert!(out.contains("no saved profile"), "{out}");
    assert!(
        err.contains("no model scored any configuration of")
            && err.contains("vector_add.json on h200-sxm-141gb"),
        "{err}"
    );
    // The same run with the profiles scores all 15 block sizes: exit 0.
    let profiles = common::unpacked_archive("docs/validation/profiles-h200.tar.xz", "status");
    let (code, out, err) = validate(&profiles, &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    // With a second GPU whose profiles were never saved (the archive holds
    // the H200's only), the H200's figures are a result: exit 0, and the
    // H100's table says why it has none.
    let (code, out, err) = validate(&profiles, &["h100-sxm5-80gb"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("no configuration was both measured and predicted"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&profiles);
}
