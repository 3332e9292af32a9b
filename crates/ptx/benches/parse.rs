//! Parser throughput over the corpus: `cargo bench -p ptx --bench parse`.
//! Prints MB/s for parse and for print, so that a quadratic slip shows up
//! as a drop on the larger files.

use std::time::Instant;

fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "ptx") {
                files.push(f.path());
            }
        }
    }
    files.extend(
        std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .map(std::path::PathBuf::from),
    );
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    if bytes == 0 {
        println!("no PTX files found");
        return;
    }
    let reps = 20;
    let start = Instant::now();
    let mut insts = 0;
    let mut modules = Vec::new();
    for r in 0..reps {
        for t in &texts {
            if let Ok(m) = ptx::parse("bench.ptx", t) {
                insts += m.instruction_count();
                if r == 0 {
                    modules.push(m);
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "parse: {} files, {:.1} MB x {reps} in {secs:.3} s = {:.1} MB/s, {:.2} M instructions/s",
        texts.len(),
        bytes as f64 / 1e6,
        bytes as f64 * reps as f64 / 1e6 / secs,
        insts as f64 / 1e6 / secs
    );
    let start = Instant::now();
    let mut printed = 0;
    for _ in 0..reps {
        for m in &modules {
            printed += m.to_string().len();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("print: {:.1} MB/s", printed as f64 / 1e6 / secs);
    // A file with one error per line: diagnostics and rendering must stay linear too.
    let bad: String = (0..20_000)
        .map(|i| format!("\tfoo{i}.b32 %r{i}, 1;\n"))
        .collect();
    let text = format!(".version 8.8\n.target sm_80\n.entry k()\n{{\n{bad}}}\n");
    let start = Instant::now();
    let n = match ptx::parse("bad.ptx", &text) {
        Ok(_) => 0,
        Err(d) => d.render("bad.ptx", &text).len() + d.len(),
    };
    println!(
        "20000 errors parsed and rendered in {:.3} s ({n} bytes)",
        start.elapsed().as_secs_f64()
    );
}
