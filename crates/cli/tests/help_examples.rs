//! Every subcommand's `--help` ends with real examples: an "Examples:"
//! section whose commands name the subcommand and use only options that its
//! help lists. The subcommands are read from `ptxperf --help`, so a new one
//! without examples fails here.

use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxperf: {e}"));
    assert!(out.status.success(), "ptxperf {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands listed under "Commands:" of the top-level help.
fn subcommands() -> Vec<String> {
    let top = help(&["--help"]);
    let Some(start) = top.find("Commands:") else {
        panic!("`ptxperf --help` has no Commands section:\n{top}");
    };
    top[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The example commands of a help text: lines of the "Examples" section
/// that start with `ptxperf`, with their `\` continuation lines joined.
fn examples(text: &str) -> Vec<String> {
    let Some(start) = text.find("Examples") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut continued = false;
    for line in text[start..].lines().skip(1) {
        let t = line.trim();
        if continued {
            if let Some(last) = out.last_mut() {
                last.push(' ');
                last.push_str(t.trim_end_matches('\\'));
            }
        } else if t.starts_with("ptxperf ") {
            out.push(t.trim_end_matches('\\').to_string());
        } else if !t.is_empty() && !line.starts_with(' ') {
            break; // the next section
        }
        continued = t.ends_with('\\');
    }
    out
}

/// The `--options` one `ptxperf CMD ...` command uses, up to a shell
/// operator that starts another command.
fn options_used(example: &str) -> Vec<String> {
    example
        .split_whitespace()
        .take_while(|w| !["&&", "|", ">", ";"].contains(w))
        .filter(|w| w.starts_with("--"))
        .map(|w| w.split('=').next().unwrap_or(w).to_string())
        .collect()
}

/// Whether the "Options:" section of a help lists `opt` (`  -q, --quiet`,
/// `      --gpu <ID>`).
fn lists_option(help: &str, opt: &str) -> bool {
    help.lines()
        .skip_while(|l| !l.starts_with("Options:"))
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| l.trim_start().starts_with('-'))
        .any(|l| {
            l.split(|c: char| c.is_whitespace() || c == ',')
                .any(|t| t == opt)
        })
}

#[test]
fn every_subcommand_help_has_examples_that_use_its_own_options() {
    let commands = subcommands();
    assert!(
        commands.len() >= 13,
        "too few subcommands found: {commands:?}"
    );
    for cmd in &commands {
        let text = help(&[cmd, "--help"]);
        assert!(
            text.lines().any(|l| l.starts_with("Examples")),
            "`ptxperf {cmd} --help` has no Examples section"
        );
        let own: Vec<String> = examples(&text)
            .into_iter()
            .filter(|e| e.starts_with(&format!("ptxperf {cmd} ")))
            .collect();
        assert!(
            !own.is_empty(),
            "`ptxperf {cmd} --help`: no example runs `ptxperf {cmd}`"
        );
        // `fit` and `conformance` list their options per sub-subcommand; the
        // others in one help.
        if cmd == "fit" || cmd == "conformance" {
            continue;
        }
        for e in &own {
            for opt in options_used(e) {
                assert!(
                    lists_option(&text, &opt),
                    "`ptxperf {cmd} --help`: the example `{e}` uses {opt}, which the help does not list"
                );
            }
        }
    }
}

#[test]
fn examples_are_read_with_their_continuation_lines() {
    let text = "Examples:\n  ptxperf tune a.toml \\\n      --gpu x --top 3\n  ptxperf check k.ptx && ptxperf cfg k.ptx --dot\n\nOptions:\n  --gpu\n";
    let got = examples(text);
    assert_eq!(
        got,
        vec![
            "ptxperf tune a.toml  --gpu x --top 3".to_string(),
            "ptxperf check k.ptx && ptxperf cfg k.ptx --dot".to_string(),
        ]
    );
    assert_eq!(options_used(&got[0]), vec!["--gpu", "--top"]);
    assert!(lists_option(text, "--gpu"));
    assert!(!lists_option(text, "--top"));
    assert!(options_used(&got[1]).is_empty());
}
