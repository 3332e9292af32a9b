//! `scripts/profiles-archive.py select`, which cuts a resumed run's profile
//! folder down to the configurations a `validate --json` run scored before
//! it is archived (scripts/schoonhoven-profiles.sh): the scored ones are
//! linked, profiles and `.failed` files alike, matched on every parameter;
//! the others stay out; bad input stops it with exit status 1.
//!
//! Needs `python3`. Without it the test is skipped with a message, except
//! under CI (env `CI` set), where that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/profiles-archive.py");
    match Command::new("python3").arg(script).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run python3: {e}"),
    }
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        panic!("{}: {e}", dir.display());
    }
    if let Err(e) = std::fs::write(path, text) {
        panic!("{}: {e}", path.display());
    }
}

/// A profile's file name as `validate --save-profiles` writes it: derived
/// grid sizes first, then the tunable parameters.
fn name(bx: u32, tx: u32, ext: &str) -> String {
    format!(
        "grid_size_x={},block_size_x={bx},tile_size_x={tx},kernel_tuner=1.{ext}",
        4096 / bx
    )
}

/// `validate --json` of two GPUs reduced to what the script reads.
fn validate_json(configs: &[(u32, u32)]) -> String {
    let results: Vec<String> = configs
        .iter()
        .map(|(bx, tx)| {
            format!(r#"{{"status": "predicted", "parameters": {{"block_size_x": {bx}, "tile_size_x": {tx}}}}}"#)
        })
        .collect();
    let results = results.join(", ");
    format!(
        r#"{{"schema": 1, "gpus": [{{"gpu": "gpu-a", "results": [{results}]}}, {{"gpu": "gpu-b", "results": [{results}]}}]}}"#
    )
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-profiles-select-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

fn listed(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect(),
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    names.sort();
    names
}

#[test]
fn the_scored_configurations_are_linked_and_the_rest_left_out() {
    if !common::python_runs() {
        return;
    }
    let dir = temp_dir();
    let src = dir.join("src");
    for gpu in ["gpu-a", "gpu-b"] {
        // Scored: (32, 1) with a profile, (64, 2) failed on gpu-b only.
        // Not scored: (32, 2), and (64, 1), whose values are the scored
        // ones' crossed; a PTX file is never archived.
        write(&src.join(gpu).join(name(32, 1, "toml")), "p");
        write(&src.join(gpu).join(name(32, 1, "ptx")), "ptx");
        write(&src.join(gpu).join(name(32, 2, "toml")), "p");
        write(&src.join(gpu).join(name(64, 1, "toml")), "p");
        let ext = if gpu == "gpu-b" { "failed" } else { "toml" };
        write(&src.join(gpu).join(name(64, 2, ext)), "p");
    }
    let json = dir.join("v.json");
    write(&json, &validate_json(&[(32, 1), (64, 2)]));
    let dest = dir.join("dest");
    let (json_s, src_s, dest_s) = (
        json.to_string_lossy().to_string(),
        src.to_string_lossy().to_string(),
        dest.to_string_lossy().to_string(),
    );
    let out = run(&["select", &json_s, &src_s, &dest_s]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        listed(&dest.join("gpu-a")),
        [name(32, 1, "toml"), name(64, 2, "toml")]
    );
    assert_eq!(
        listed(&dest.join("gpu-b")),
        [name(32, 1, "toml"), name(64, 2, "failed")]
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gpu-b: 2 files of 2 scored configurations"),
        "{err}"
    );

    // Bad input: not validate's JSON, a GPU without a folder, no match.
    let not_json = dir.join("not.json");
    write(&not_json, "{\"schema\": 1}");
    let other = dir.join("other.json");
    write(&other, &validate_json(&[(128, 8)]));
    let cases = [
        (
            not_json.clone(),
            src.clone(),
            "not the JSON of `ptxperf validate --json`",
        ),
        (json.clone(), dir.join("nowhere"), "no profiles of gpu-a"),
        (
            other,
            src.clone(),
            "none of the 1 scored configurations has a profile",
        ),
    ];
    for (json, src, message) in cases {
        let out = run(&[
            "select",
            &json.to_string_lossy(),
            &src.to_string_lossy(),
            &dir.join("dest2").to_string_lossy(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{message}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
