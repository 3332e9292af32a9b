//! Golden tests of rendered diagnostics: each `diagnostics/<name>.ptx` is a
//! malformed module; its rendered diagnostics must equal `<name>.stderr`
//! exactly. `PTXPERF_BLESS=1 cargo test -p ptx --test golden_diagnostics`
//! rewrites the `.stderr` files.

use std::path::PathBuf;

#[test]
fn rendered_diagnostics_match_golden_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let bless = std::env::var_os("PTXPERF_BLESS").is_some_and(|v| v == "1");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/diagnostics exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 30,
        "expected at least 30 golden cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for path in &cases {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 file name")
            .to_string();
        let text = std::fs::read_to_string(path).expect("readable case");
        let rendered = match ptx::parse(&name, &text) {
            Ok(_) => {
                failures.push(format!("{name}: parsed without error"));
                continue;
            }
            Err(d) => d.render(&name, &text),
        };
        let first = rendered.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("{name}:")) && first.contains(": error: "),
            "{name}: bad first line {first:?}"
        );
        let golden = path.with_extension("stderr");
        if bless {
            std::fs::write(&golden, &rendered).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == rendered => {}
            Ok(want) => failures.push(format!(
                "{name}: rendered diagnostics differ\n--- expected\n{want}--- got\n{rendered}"
            )),
            Err(_) => failures.push(format!("{name}: missing {}", golden.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
