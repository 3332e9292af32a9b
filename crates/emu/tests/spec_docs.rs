//! Every `toml` example of docs/launch-spec.md goes through the real spec
//! parser, so the reference cannot drift from the code.
//!
//! A `<!-- check: ... -->` comment on the last non-blank line before a
//! ```` ```toml ```` fence sets how its block is checked; directives are
//! separated by `;`, and `error:` comes last (its text may hold `;`):
//! - `fragment`: the block lacks some of `source`, `kernel`, `grid`,
//!   `block`; those it lacks are prepended (`k.cu`, `k`, `[1]`, `[32]`);
//! - `set NAME=VALUE`: a `--set` override;
//! - `error: TEXT`: parsing, or making the initial bytes of a buffer or
//!   constant, must fail with a message holding TEXT;
//! - `expect K=V ...`: values of the parsed spec: `grid=[x,y,z]`,
//!   `block=[x,y,z]`, `dynamic_shared=N`, `fuel=N`, `len:ARG=N`,
//!   `define:NAME=VALUE`, `struct_bytes:ARG=N` (a struct argument's size).
//!
//! Without `error:` the block must parse, and every buffer and constant
//! whose `init` is not a file must materialise.

use std::path::Path;

use emu::spec::{ArgSpec, Init, LaunchSpec, parse};

const DOC: &str = "docs/launch-spec.md";

fn doc_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DOC);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One example: its first line in the doc, the check directives, the TOML.
struct Example {
    line: usize,
    directives: Vec<String>,
    toml: String,
}

fn examples(doc: &str) -> Vec<Example> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut pending: Option<(usize, Vec<String>)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(body) = line
            .strip_prefix("<!-- check:")
            .and_then(|b| b.strip_suffix("-->"))
        {
            assert!(
                pending.is_none(),
                "{DOC}:{}: a check comment that no ```toml block follows",
                pending.map_or(0, |p| p.0)
            );
            // `error:` takes the rest of the comment, `;` included.
            let (head, error) = match body.find("error:") {
                Some(at) => (&body[..at], Some(body[at..].trim().to_string())),
                None => (body, None),
            };
            let mut directives: Vec<String> = head
                .split(';')
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty())
                .collect();
            directives.extend(error);
            pending = Some((i + 1, directives));
        } else if line == "```toml" {
            let start = i + 1;
            let mut toml = String::new();
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                toml.push_str(lines[i]);
                toml.push('\n');
                i += 1;
            }
            let directives = pending.take().map(|p| p.1).unwrap_or_default();
            out.push(Example {
                line: start,
                directives,
                toml,
            });
        } else if !line.is_empty() {
            assert!(
                pending.is_none(),
                "{DOC}:{}: text between a check comment and its ```toml block",
                i + 1
            );
        }
        i += 1;
    }
    assert!(
        pending.is_none(),
        "{DOC}: a check comment at the end of the file"
    );
    out
}

/// The block with the keys a fragment lacks prepended.
fn completed(toml: &str) -> String {
    let has = |key: &str| {
        toml.lines().any(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
    };
    let mut head = String::new();
    for (key, value) in [
        ("source", "\"k.cu\""),
        ("kernel", "\"k\""),
        ("grid", "[1]"),
        ("block", "[32]"),
    ] {
        if !has(key) {
            head.push_str(&format!("{key} = {value}\n"));
        }
    }
    head + toml
}

/// Parse, then make the initial bytes of every buffer and constant not read from a file.
fn load(text: &str, sets: &[(String, String)]) -> Result<LaunchSpec, String> {
    let spec = parse(text, Path::new("spec.toml"), sets).map_err(|e| e.to_string())?;
    let buffers = spec.args.iter().filter_map(|a| match a {
        ArgSpec::Buffer(b) => Some((b.elem, b.len, &b.init)),
        ArgSpec::Scalar { .. } | ArgSpec::Struct(_) => None,
    });
    let constants = spec.constants.iter().map(|c| (c.elem, c.len, &c.init));
    for (elem, len, init) in buffers.chain(constants) {
        if !matches!(init, Init::File(_)) {
            spec.initial_bytes(elem, len, init)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(spec)
}

fn dims(d: [u32; 3]) -> String {
    format!("[{},{},{}]", d[0], d[1], d[2])
}

/// The value of one `expect` key in a parsed spec.
fn actual(spec: &LaunchSpec, key: &str) -> Option<String> {
    if let Some(name) = key.strip_prefix("len:") {
        return spec.args.iter().find_map(|a| match a {
            ArgSpec::Buffer(b) if b.name == name => Some(b.len.to_string()),
            _ => None,
        });
    }
    if let Some(name) = key.strip_prefix("struct_bytes:") {
        return spec.args.iter().find_map(|a| match a {
            ArgSpec::Struct(st) if st.name == name => {
                st.layout(8).ok().map(|l| l.bytes.len().to_string())
            }
            _ => None,
        });
    }
    if let Some(name) = key.strip_prefix("define:") {
        return spec
            .defines
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_string());
    }
    match key {
        "grid" => Some(dims(spec.grid)),
        "block" => Some(dims(spec.block)),
        "dynamic_shared" => Some(spec.dynamic_shared.to_string()),
        "fuel" => spec.fuel.map(|f| f.to_string()),
        _ => None,
    }
}

fn check(ex: &Example) {
    let at = format!("{DOC}:{}", ex.line);
    let mut text = ex.toml.clone();
    let mut sets = Vec::new();
    let mut error = None;
    let mut expects = Vec::new();
    for d in &ex.directives {
        if d == "fragment" {
            text = completed(&ex.toml);
        } else if let Some(m) = d.strip_prefix("error:") {
            error = Some(m.trim().to_string());
        } else if let Some(s) = d.strip_prefix("set ") {
            let (n, v) = s.split_once('=').unwrap_or_else(|| panic!("{at}: `{d}`"));
            sets.push((n.trim().to_string(), v.trim().to_string()));
        } else if let Some(e) = d.strip_prefix("expect ") {
            expects.extend(e.split_whitespace().map(str::to_string));
        } else {
            panic!("{at}: unknown check directive `{d}`");
        }
    }
    match (load(&text, &sets), error) {
        (Ok(_), Some(want)) => panic!("{at}: parsed, but the doc says it fails with `{want}`"),
        (Err(got), Some(want)) => {
            assert!(got.contains(&want), "{at}: error `{got}` lacks `{want}`")
        }
        (Err(got), None) => panic!("{at}: the example fails: {got}\n{text}"),
        (Ok(spec), None) => {
            for e in &expects {
                let (key, want) = e
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{at}: `{e}` is not KEY=VALUE"));
                assert_eq!(actual(&spec, key).as_deref(), Some(want), "{at}: {key}");
            }
        }
    }
}

#[test]
fn every_example_of_the_launch_spec_reference_is_what_the_parser_does() {
    let doc = doc_text();
    let all = examples(&doc);
    // The reference has about twenty examples; far fewer means the extraction broke.
    assert!(all.len() >= 20, "only {} toml examples found", all.len());
    let failing = all
        .iter()
        .filter(|e| e.directives.iter().any(|d| d.starts_with("error:")))
        .count();
    assert!(failing >= 8, "only {failing} error examples found");
    for ex in &all {
        check(ex);
    }
}

#[test]
fn the_reference_names_every_key_the_parser_accepts() {
    let doc = doc_text();
    // Top level, [[arg]], [[constant]], random init: as parse.rs lists them.
    for key in [
        "source",
        "kernel",
        "defines",
        "arch",
        "grid",
        "block",
        "dynamic_shared",
        "fuel",
        "[[arg]]",
        "[[constant]]",
        "name",
        "type",
        "value",
        "len",
        "init",
        "order_dependent",
        "seed",
        "lo",
        "hi",
        "\"zeros\"",
        "\"iota\"",
        "{ fill",
        "{ random",
        "{ file",
    ] {
        assert!(
            doc.contains(&format!("`{key}")),
            "{DOC} never names `{key}`"
        );
    }
    // Every scalar type, with its size.
    for t in emu::spec::ScalarType::ALL {
        assert!(
            doc.contains(&format!("`{}`", t.name())),
            "{DOC} lacks type {t}"
        );
    }
}

#[test]
fn a_check_comment_without_its_block_is_caught() {
    let doc = "<!-- check: fragment -->\n\nsome text\n\n```toml\nfuel = 1\n```\n";
    let caught = std::panic::catch_unwind(|| examples(doc));
    assert!(caught.is_err());
    let ok = examples("<!-- check: fragment -->\n\n```toml\nfuel = 1\n```\n");
    assert_eq!(ok.len(), 1);
    assert_eq!(ok[0].directives, vec!["fragment".to_string()]);
}
