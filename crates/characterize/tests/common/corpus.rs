//! Loading corpus kernels for the tests: the spec with `--set` overrides, and
//! the PTX: the checked-in sm_80.ptx when no define changes, else compiled by
//! NVRTC with the spec's defines.

use std::path::{Path, PathBuf};

use characterize::{Characterization, Options, characterize_ptx};
use emu::simt::stack::Policy;
use emu::spec::{LaunchSpec, SourceKind, parse};

pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

pub fn spec(name: &str, sets: &[(&str, String)]) -> LaunchSpec {
    let path = kernels_dir().join(name).join("spec.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(a, b)| (a.to_string(), b.clone()))
        .collect();
    parse(&text, &path, &sets).unwrap_or_else(|e| panic!("{e}"))
}

pub fn ptx_text(name: &str, spec: &LaunchSpec, changed_defines: bool) -> String {
    if !changed_defines || spec.source_kind == SourceKind::Ptx {
        let path = kernels_dir().join(name).join("sm_80.ptx");
        return std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let source = std::fs::read_to_string(&spec.source)
        .unwrap_or_else(|e| panic!("{}: {e}", spec.source.display()));
    let compiler = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut opts = nvrtc::CompileOptions {
        arch: Some("sm_80".to_string()),
        ..Default::default()
    };
    for (n, v) in &spec.defines {
        opts.defines.push((n.clone(), Some(v.to_string())));
    }
    compiler
        .compile(&source, &format!("{name}.cu"), &opts)
        .unwrap_or_else(|e| panic!("{e}"))
        .ptx
}

/// Characterize corpus kernel `name` with define overrides.
pub fn characterize(
    name: &str,
    sets: &[(&str, String)],
    policy: Policy,
    sample: Option<u64>,
) -> Characterization {
    characterize_with(
        name,
        sets,
        Options {
            policy,
            sample_ctas: sample,
            watch_ctas: None,
            run_ctas: None,
            threads: None,
            every_value: false,
        },
    )
}

pub fn characterize_with(name: &str, sets: &[(&str, String)], opts: Options) -> Characterization {
    let s = spec(name, sets);
    let text = ptx_text(name, &s, !sets.is_empty());
    characterize_ptx(&text, &format!("{name}.ptx"), &s, opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The PTX header of the hand-written kernels the tests characterize inline.
pub const PTX_HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// The launch spec of an inline kernel `k` run by one warp (one CTA of 32
/// threads) with one pointer argument `name` of `len` elements of `ty`,
/// zeroed.
pub fn one_warp_spec(name: &str, ty: &str, len: u32) -> String {
    format!(
        "source = \"inline.ptx\"\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
         [[arg]]\nname = \"{name}\"\ntype = \"{ty}\"\nlen = {len}\ninit = \"zeros\"\n"
    )
}

/// Characterize hand-written PTX with a spec given as TOML text.
pub fn characterize_inline(ptx: &str, spec_toml: &str, policy: Policy) -> Characterization {
    let s = parse(spec_toml, Path::new("inline.toml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    characterize_ptx(
        ptx,
        "inline.ptx",
        &s,
        Options {
            policy,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}
