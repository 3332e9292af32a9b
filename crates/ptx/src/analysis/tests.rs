//! File-driven tests of the analyses (cranelift filetest style).
//!
//! Each `testdata/*.ptx` file is a PTX module whose leading comments state the
//! expectations, `// check: KEY = VALUE`, next to the input. The function under
//! test is the one named by `// function: NAME`, else the first one with a
//! body. Blocks are written `bbN` (index in [`Cfg::blocks`]). Keys:
//!
//! - `blocks`, `insts`: counts; `range(bbN) = a..b`; `block(I) = bbN`;
//!   `label(bbN) = name|none`
//! - `succ(bbN) = bbA, bbB` (ordered, may be empty); `exits(bbN) = bool`;
//!   `aborts(bbN) = bool`
//! - `idom(bbN) = bbM|none`; `ipdom(bbN) = bbM|exit|none`
//! - `reaches_exit(bbN) = bool`; `depth(bbN) = K`; `reducible = bool`
//! - `branches = I:J, I:exit` (every branch instruction and its
//!   reconvergence instruction, from [`FunctionFlow::branch_reconvergence`])
//! - `mix(class) = N` (zero when absent)
//! - `regs = N`, `reg_bytes = N`, `regs(type) = N` (declared)
//! - `live(I) = N`: 32-bit slots live at instruction I (after it, plus its
//!   unread results); `max_live = N at I`; `estimate = N` registers
//!   ([`registers`])
//! - `shared = N`, `dynamic_shared = bool`, `shared_vars = a, b`
//! - `kernel(name) = found NAME | notfound | ambiguous`

use super::*;
use crate::ir::{Function, Handle, Module, Type};

fn block_name(b: BlockId) -> String {
    format!("bb{b}")
}

fn parse_block(s: &str) -> Option<BlockId> {
    s.strip_prefix("bb")?.parse().ok()
}

fn arg(key: &str) -> Option<&str> {
    key.split_once('(')?.1.strip_suffix(')')
}

fn join(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(", ")
}

/// The answer the analyses give for one `check` key.
fn answer(module: &Module, fh: Handle<Function>, key: &str) -> Result<String, String> {
    let func = module.functions.get(fh).ok_or("no function")?;
    let ff = FunctionFlow::compute(func).map_err(|e| e.to_string())?;
    let block = || {
        arg(key)
            .and_then(parse_block)
            .ok_or(format!("bad block in `{key}`"))
    };
    let pd = |p: Option<PostDom>| match p {
        Some(PostDom::Node(b)) => block_name(b),
        Some(PostDom::VirtualExit) => "exit".to_string(),
        None => "none".to_string(),
    };
    let name = key.split('(').next().unwrap_or(key);
    Ok(match name {
        "blocks" => ff.cfg.blocks.len().to_string(),
        "insts" => func.instructions.len().to_string(),
        "range" => {
            let b = ff.cfg.blocks.get(block()?).ok_or("no such block")?;
            format!("{}..{}", b.start, b.end)
        }
        "block" => {
            let i: u32 = arg(key)
                .and_then(|a| a.parse().ok())
                .ok_or("bad instruction index")?;
            ff.block_of(i).map_or("none".into(), block_name)
        }
        "label" => {
            let b = ff.cfg.blocks.get(block()?).ok_or("no such block")?;
            b.label
                .and_then(|l| func.labels.get(l))
                .map_or("none".into(), |l| l.name.clone())
        }
        "succ" => join(
            ff.cfg
                .blocks
                .get(block()?)
                .ok_or("no such block")?
                .successors
                .iter()
                .map(|&b| block_name(b)),
        ),
        "exits" => ff
            .cfg
            .blocks
            .get(block()?)
            .ok_or("no such block")?
            .exits
            .to_string(),
        "aborts" => ff
            .cfg
            .blocks
            .get(block()?)
            .ok_or("no such block")?
            .aborts
            .to_string(),
        "idom" => ff.idom(block()?).map_or("none".into(), block_name),
        "ipdom" => pd(ff.ipdom(block()?)),
        "reaches_exit" => ff.flow.post_dominators.reaches_exit(block()?).to_string(),
        "depth" => ff.loop_depth(block()?).to_string(),
        "reducible" => ff.flow.loops.is_reducible().to_string(),
        "branches" => join(
            ff.branch_reconvergence(func)
                .into_iter()
                .map(|(i, r)| match r {
                    Reconvergence::Inst(j) => format!("{i}:{j}"),
                    Reconvergence::FunctionExit => format!("{i}:exit"),
                }),
        ),
        "mix" => {
            let class = arg(key)
                .and_then(InstClass::from_name)
                .ok_or(format!("unknown class in `{key}`"))?;
            InstMix::of_function(func).get(class).to_string()
        }
        "regs" => {
            let usage = declared_registers(func);
            match arg(key) {
                None => usage.count.to_string(),
                Some(t) => {
                    let ty = Type::from_name(t).ok_or(format!("unknown type {t}"))?;
                    usage
                        .by_type
                        .iter()
                        .find(|c| c.ty == ty)
                        .map_or(0, |c| c.count)
                        .to_string()
                }
            }
        }
        "live" => {
            let i: usize = arg(key).and_then(|a| a.parse().ok()).ok_or("live(I)")?;
            let p = registers::pressure(func).map_err(|e| e.to_string())?;
            p.per_instruction
                .get(i)
                .ok_or("no such instruction")?
                .to_string()
        }
        "max_live" => {
            let p = registers::pressure(func).map_err(|e| e.to_string())?;
            format!(
                "{} at {}",
                p.max_live_slots,
                p.at.map_or("none".into(), |i| i.to_string())
            )
        }
        "estimate" => registers::estimate_registers(func).to_string(),
        "reg_bytes" => declared_registers(func).bytes.to_string(),
        "shared" => shared_memory(module, fh).static_bytes.to_string(),
        "dynamic_shared" => shared_memory(module, fh).uses_dynamic.to_string(),
        "shared_vars" => join(
            shared_memory(module, fh)
                .variables
                .into_iter()
                .map(|v| v.name),
        ),
        "kernel" => match find_kernel(module, arg(key).ok_or("kernel(name)")?) {
            KernelLookup::Found(h) => {
                format!("found {}", module.functions.get(h).map_or("?", |f| &f.name))
            }
            KernelLookup::NotFound { .. } => "notfound".into(),
            KernelLookup::Ambiguous { .. } => "ambiguous".into(),
        },
        _ => return Err(format!("unknown check key `{key}`")),
    })
}

/// Run every `check` of one test file; returns the failures as
/// `file:line: message` strings.
fn check(file: &str, text: &str) -> Vec<String> {
    let module = match crate::parse(file, text) {
        Ok(m) => m,
        Err(d) => return vec![format!("{file}: does not parse:\n{}", d.render(file, text))],
    };
    let wanted = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("// function:"))
        .map(str::trim);
    let fh = match wanted {
        Some(name) => module.function_by_name(name),
        None => module
            .functions
            .iter()
            .find(|(_, f)| f.has_body)
            .map(|(h, _)| h),
    };
    let Some(fh) = fh else {
        return vec![format!("{file}: no function to test")];
    };
    let mut failures = Vec::new();
    let mut checks = 0;
    for (n, line) in text.lines().enumerate() {
        let Some(spec) = line.trim().strip_prefix("// check:") else {
            continue;
        };
        checks += 1;
        let Some((key, want)) = spec.split_once('=') else {
            failures.push(format!("{file}:{}: malformed check", n + 1));
            continue;
        };
        let (key, want) = (key.trim(), want.trim());
        match answer(&module, fh, key) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!(
                "{file}:{}: {key}: expected `{want}`, got `{got}`",
                n + 1
            )),
            Err(e) => failures.push(format!("{file}:{}: {key}: {e}", n + 1)),
        }
    }
    if checks == 0 {
        failures.push(format!("{file}: no checks"));
    }
    failures
}

#[test]
fn testdata_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis/testdata");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the test files in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match std::fs::read_to_string(path) {
            Ok(text) => failures.extend(check(&name, &text)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_wrong_expectation_is_reported() {
    let text = "// check: blocks = 7\n.version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    let failures = check("wrong.ptx", text);
    assert_eq!(
        failures,
        vec!["wrong.ptx:1: blocks: expected `7`, got `1`".to_string()]
    );
}
