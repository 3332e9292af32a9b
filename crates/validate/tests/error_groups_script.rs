//! scripts/convolution-error-groups.py (the large-tile and by-part tables of
//! docs/validation/schoonhoven.md) on hand-made `validate --json` results:
//! the figures of the configurations below a tile product of 24 leave the
//! larger tiles out, the best ratio and the transferred-best baseline come
//! from the right configurations, a part is scored on its own, and a file
//! that is not `validate`'s JSON stops it with exit status 1.
//!
//! Needs `python3`. Without it the test is skipped with a message, except
//! under CI (env `CI` set), where that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/convolution-error-groups.py");
    match Command::new("python3").arg(script).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run python3: {e}"),
    }
}

/// One scored configuration: (block_size_x, tile_size_x, tile_size_y, part,
/// measured ms, predicted ms).
type Config = (u32, u32, u32, &'static str, f64, f64);

/// `validate --json` reduced to what the script reads.
fn validate_json(gpu: &str, configs: &[Config]) -> String {
    let results: Vec<String> = configs
        .iter()
        .map(|&(bx, tx, ty, part, measured, predicted)| {
            format!(
                r#"{{"status": "predicted", "part": "{part}", "measured_ms": {measured}, "predicted_ms": {{"timing": {predicted}}},
  "parameters": {{"block_size_x": {bx}, "block_size_y": 4, "tile_size_x": {tx}, "tile_size_y": {ty}, "use_padding": 0, "read_only": 0}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"schema": 1, "gpu": "{gpu}", "results": [{}]}}"#,
        results.join(",\n")
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Err(e) = std::fs::write(&path, text) {
        panic!("{}: {e}", path.display());
    }
    path
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-error-groups-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

fn stdout_of(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Five configurations of gpu-a: three small tiles predicted within 10 %
/// and two tiles of 24 and 28 outputs predicted 4x too fast.
const GPU_A: [Config; 5] = [
    (32, 1, 1, "development", 10.0, 11.0),
    (32, 2, 2, "development", 20.0, 18.0),
    (64, 4, 4, "check", 30.0, 33.0),
    (32, 6, 4, "development", 40.0, 10.0),
    (64, 7, 4, "check", 80.0, 20.0),
];

/// The same configurations on gpu-b, where the 4 x 4 tile is fastest.
const GPU_B: [Config; 5] = [
    (32, 1, 1, "development", 10.0, 10.0),
    (32, 2, 2, "development", 12.0, 12.0),
    (64, 4, 4, "check", 5.0, 5.0),
    (32, 6, 4, "development", 20.0, 20.0),
    (64, 7, 4, "check", 40.0, 40.0),
];

#[test]
fn the_large_tiles_are_split_off_and_the_parts_scored_apart() {
    if !common::python_runs() {
        return;
    }
    let dir = temp_dir();
    let a = write(&dir, "a.json", &validate_json("gpu-a", &GPU_A));
    let b = write(&dir, "b.json", &validate_json("gpu-b", &GPU_B));
    let (a, b) = (a.to_string_lossy(), b.to_string_lossy());

    let tiles = stdout_of(&run(&["tiles", &a]));
    // All five: APE 10, 10, 10, 75, 75 -> MAPE 36.0; the two big tiles are
    // predicted fastest, so the pick (10 ms predicted, 40 ms measured) is 4x
    // the best; Spearman 1 - 6 x 16 / 120 = 0.2. Below 24: APE 10 each, ranks
    // agree (Spearman 1), median 1.1, the pick is the 1 x 1 tile, the best.
    // The big tiles: median 0.25.
    assert!(
        tiles.contains(
            "| gpu-a | both | 5 | 36.0 | 0.200 | 0.900 | 4.000 | 3 | 10.0 | 1.000 | 1.100 | 1.000 | 2 | 0.250 |"
        ),
        "{tiles}"
    );
    // Development only: (10, 11), (20, 18), (40, 10).
    assert!(
        tiles.contains(
            "| gpu-a | development | 3 | 31.7 | -0.500 | 0.900 | 4.000 | 2 | 10.0 | 1.000 | 1.000 | 1.000 | 1 | 0.250 |"
        ),
        "{tiles}"
    );

    let parts = stdout_of(&run(&["parts", &a, &b]));
    // gpu-b's fastest (the 4 x 4 tile, 5 ms there) runs 30 ms on gpu-a,
    // 3x gpu-a's best of 10 ms; gpu-a's fastest (1 x 1) runs 10 ms on
    // gpu-b, 2x its best of 5 ms.
    assert!(parts.contains("| gpu-a | both | 5 | 36.0 ["), "{parts}");
    assert!(
        parts.contains("| 0.900 | 4.000 | 3.00 to 3.00 |"),
        "{parts}"
    );
    assert!(
        parts.contains("| gpu-b | both | 5 | 0.0 [0.0, 0.0] | 1.000 [1.000, 1.000] | 1.000 | 1.000 | 2.00 to 2.00 |"),
        "{parts}"
    );
    // The check part alone: gpu-b's fastest there is again the 4 x 4 tile.
    assert!(
        parts.contains("| gpu-b | check | 2 | 0.0 [0.0, 0.0] |"),
        "{parts}"
    );

    let bad = write(&dir, "bad.json", "{\"schema\": 1}");
    let out = run(&["tiles", &a, &bad.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json: not the JSON of `ptxperf validate --json`"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing printed before the error");
    let _ = std::fs::remove_dir_all(&dir);
}
