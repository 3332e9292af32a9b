//! docs/quickstart.md is what a new user follows with nothing else at hand
//! (issue 27: a spec for one's own kernel written from the docs alone). This
//! test follows it the same way: it writes the kernel and the launch spec
//! exactly as the page shows them into an empty folder, runs every
//! `ptxperf` command block of the page there, and checks that each output
//! line the page shows after a command is printed by it. A change to the
//! spec format, a command's options or its output that the page does not
//! follow fails here, naming the line of the page.

use std::path::{Path, PathBuf};

mod common;

/// A fenced block of the page: its info string, its text, and the page
/// line of its first text line.
struct Block {
    lang: String,
    text: String,
    line: usize,
}

fn blocks(page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in page.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    text: String::new(),
                    line: i + 2,
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(b), None) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// A block of `ptxperf` command lines only.
fn is_command_block(b: &Block) -> bool {
    b.lang.is_empty()
        && b.text.lines().any(|l| !l.trim().is_empty())
        && b.text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(|l| l.starts_with("ptxperf "))
}

/// Output lines the page shows that the run cannot reproduce: an elision,
/// and `run`'s wall time.
fn reproducible(line: &str) -> bool {
    let line = line.trim_end();
    !line.is_empty() && line != "..." && !line.starts_with("time ")
}

/// The file the page tells the reader to save `b` as: for the kernel, the
/// name its first comment gives (`// rowsum.cu: ...`); for the spec, the
/// name in "Save it as `NAME`" before it.
fn file_name(page: &str, b: &Block) -> String {
    if b.lang == "cuda" {
        let first = b.text.lines().next().unwrap_or_default();
        let name = first
            .strip_prefix("// ")
            .and_then(|r| r.split(':').next())
            .unwrap_or_default();
        assert!(
            name.ends_with(".cu"),
            "docs/quickstart.md:{}: the kernel's first line should name its file",
            b.line
        );
        return name.to_string();
    }
    let before: String = page.lines().take(b.line).collect::<Vec<_>>().join("\n");
    let at = before
        .rfind("Save it as `")
        .unwrap_or_else(|| panic!("docs/quickstart.md:{}: no \"Save it as\"", b.line));
    let rest = &before[at + "Save it as `".len()..];
    rest[..rest.find('`').expect("closing backtick")].to_string()
}

fn page_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/quickstart.md")
}

#[test]
fn the_quickstart_runs_as_written() {
    // The page shows registers "from ptxas", so it needs ptxas too.
    if !common::nvrtc_available() || !common::ptxas_available() {
        return;
    }
    let page = std::fs::read_to_string(page_path()).expect("docs/quickstart.md");
    let blocks = blocks(&page);
    let dir = std::env::temp_dir().join(format!("ptxperf-quickstart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");

    let mut written = Vec::new();
    for b in blocks
        .iter()
        .filter(|b| b.lang == "cuda" || b.lang == "toml")
    {
        let name = file_name(&page, b);
        std::fs::write(dir.join(&name), &b.text).expect("file written");
        written.push(name);
    }
    assert_eq!(written, ["rowsum.cu", "rowsum.toml"], "the page's files");

    let mut commands = 0;
    let mut checked_lines = 0;
    for (i, b) in blocks.iter().enumerate() {
        if !is_command_block(b) {
            continue;
        }
        let expected = blocks
            .get(i + 1)
            .filter(|next| next.lang.is_empty() && !is_command_block(next))
            .filter(|next| !next.text.starts_with("python3") && !next.text.starts_with("bash"));
        let mut stdout = String::new();
        for (k, command) in b.text.lines().enumerate() {
            if command.trim().is_empty() {
                continue;
            }
            assert!(
                !command.contains(['\'', '"', '|', '>']),
                "docs/quickstart.md:{}: keep command blocks free of shell syntax",
                b.line + k
            );
            let args: Vec<&str> = command.split_whitespace().skip(1).collect();
            let out = common::ptxperf_in(&dir, &args);
            assert!(
                out.status.success(),
                "docs/quickstart.md:{}: `{command}` failed:\n{}",
                b.line + k,
                String::from_utf8_lossy(&out.stderr)
            );
            stdout.push_str(&String::from_utf8_lossy(&out.stdout));
            commands += 1;
        }
        let Some(expected) = expected else { continue };
        let printed: Vec<&str> = stdout.lines().map(str::trim_end).collect();
        for (k, line) in expected.text.lines().enumerate() {
            if !reproducible(line) {
                continue;
            }
            assert!(
                printed.contains(&line.trim_end()),
                "docs/quickstart.md:{}: the page shows\n{line}\nbut `{}` printed:\n{stdout}",
                expected.line + k,
                b.text.trim()
            );
            checked_lines += 1;
        }
    }
    // run, characterize, predict, tune; their outputs as the page shows them.
    assert!(commands >= 4, "only {commands} commands on the page");
    assert!(
        checked_lines >= 30,
        "only {checked_lines} output lines checked"
    );
    assert!(
        dir.join("out/out.bin").is_file(),
        "`run --dump out` wrote no out/out.bin"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
