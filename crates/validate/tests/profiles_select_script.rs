//! `scripts/profiles-archive.py select`, which cuts a resumed run's profile
//! folder down to the configurations a `validate --json` run scored before
//! it is archived (scripts/schoonhoven-profiles.sh): the scored ones are
//! linked, profiles and `.failed` files alike, matched on every parameter;
//! the others stay out; bad input stops it with exit status 1. And its
//! `pack` / `unpack`: a round trip gives the files back, and `unpack` takes
//! only one whole xz stream with nothing after it (what `xz -t` and
//! `tar xJf` accept), which every committed archive must be.
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

/// A fresh folder per test (the tests run in parallel).
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-profiles-{tag}-{}", std::process::id()));
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
    let dir = temp_dir("select");
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

fn read(path: &Path) -> Vec<u8> {
    match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

#[test]
fn an_archive_unpacks_only_as_one_whole_xz_stream() {
    if !common::python_runs() {
        return;
    }
    let dir = temp_dir("pack");
    let src = dir.join("src");
    write(
        &src.join("settings.txt"),
        "settings: SAMPLE=2 SEED=1 CTAS=4\n",
    );
    write(&src.join("gpu-a").join(name(32, 1, "toml")), "profile a");
    write(&src.join("gpu-a").join(name(64, 1, "failed")), "why");
    let archive = dir.join("a.tar.xz");
    let archive_s = archive.to_string_lossy().to_string();
    let out = run(&["pack", &src.to_string_lossy(), &archive_s]);
    assert!(out.status.success(), "{out:?}");
    let unpacked = dir.join("out");
    let out = run(&["unpack", &archive_s, &unpacked.to_string_lossy()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        read(&unpacked.join("gpu-a").join(name(32, 1, "toml"))),
        b"profile a"
    );
    assert_eq!(listed(&unpacked.join("gpu-a")).len(), 2);

    // A shorter stream written over a longer one leaves its tail: refused,
    // as a stream cut short is.
    let whole = read(&archive);
    let torn = dir.join("torn.tar.xz");
    let mut bytes = whole.clone();
    bytes.extend_from_slice(&whole[whole.len() - 40..]);
    std::fs::write(&torn, &bytes).expect("write torn archive");
    let short = dir.join("short.tar.xz");
    std::fs::write(&short, &whole[..whole.len() - 12]).expect("write short archive");
    for (bad, message) in [
        (&torn, "40 bytes after the xz stream"),
        (&short, "not a profiles archive"),
    ] {
        let out = run(&[
            "unpack",
            &bad.to_string_lossy(),
            &dir.join("bad").to_string_lossy(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{message}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }

    // Every archive the repository commits passes the same check.
    let validation = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/validation");
    let mut archives: Vec<PathBuf> = match std::fs::read_dir(&validation) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".tar.xz"))
            .collect(),
        Err(e) => panic!("{}: {e}", validation.display()),
    };
    archives.sort();
    assert!(archives.len() >= 9, "{archives:?}");
    for committed in archives {
        let into = dir.join("committed");
        let out = run(&[
            "unpack",
            &committed.to_string_lossy(),
            &into.to_string_lossy(),
        ]);
        assert!(out.status.success(), "{}: {out:?}", committed.display());
        let _ = std::fs::remove_dir_all(&into);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
