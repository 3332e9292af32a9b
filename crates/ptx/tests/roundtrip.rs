//! Every PTX file of the corpus (`kernels/*/*.ptx`) parses with zero
//! diagnostics, and printing the IR and reparsing it gives the same IR.

use std::path::PathBuf;

fn corpus() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "ptx") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn corpus_parses_and_round_trips() {
    let files = corpus();
    assert!(!files.is_empty(), "no PTX files found under kernels/*/");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("corpus file is readable");
        let module = match ptx::parse(&name, &text) {
            Ok(m) => m,
            Err(d) => {
                failures.push(d.render(&name, &text));
                continue;
            }
        };
        assert!(module.entries().count() > 0, "{name}: no kernel");
        let printed = module.to_string();
        match ptx::parse("printed.ptx", &printed) {
            Ok(again) => {
                if again != module {
                    failures.push(format!("{name}: reparsed IR differs from the original"));
                }
                assert_eq!(
                    again.to_string(),
                    printed,
                    "{name}: printing is not a fixed point"
                );
            }
            Err(d) => failures.push(format!(
                "{name}: printed text does not parse:\n{}",
                d.render("printed.ptx", &printed)
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
