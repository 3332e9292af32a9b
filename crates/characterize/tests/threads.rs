//! Characterization gives the same numbers on any number of host threads:
//! every field of the result, on every corpus kernel, full and sampled, and
//! on a kernel whose CTAs read what earlier CTAs wrote (where ranges run on
//! copies of memory would see other values, so the run must fall back to
//! one range).

mod common;

use characterize::{Characterization, Options, characterize_ptx, characterize_with};
use common::corpus::{kernels_dir, ptx_text, spec};
use emu::observer::Observer;
use emu::spec::parse;
use std::path::Path;

const THREADS: [usize; 4] = [1, 2, 3, 8];

/// Every field, compared through the JSON the CLI prints (exact for floats).
fn fields(c: &Characterization) -> String {
    serde_json::to_string_pretty(c).unwrap_or_else(|e| panic!("{e}"))
}

fn with_threads(opts: &Options, threads: usize) -> Options {
    Options {
        threads: Some(threads),
        ..opts.clone()
    }
}

/// The corpus kernel `name` under `opts` on every thread count: all equal.
fn check_corpus(name: &str, opts: &Options) {
    let s = spec(name, &[]);
    let text = ptx_text(name, &s, false);
    let file = format!("{name}.ptx");
    let run = |threads| {
        characterize_ptx(&text, &file, &s, with_threads(opts, threads))
            .map(|c| fields(&c))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let one = run(1);
    for n in THREADS {
        assert!(run(n) == one, "{name} {opts:?}: {n} threads differ from 1");
    }
}

#[test]
fn corpus_numbers_do_not_depend_on_threads() {
    let mut names: Vec<String> = std::fs::read_dir(kernels_dir())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|d| d.ok())
        .filter(|d| d.path().join("spec.toml").is_file())
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() > 20, "corpus not found: {names:?}");
    for name in &names {
        check_corpus(name, &Options::default());
    }
}

#[test]
fn sampled_numbers_do_not_depend_on_threads() {
    let samples = [
        Options {
            sample_ctas: Some(5),
            ..Options::default()
        },
        Options {
            watch_ctas: Some(vec![1, 6, 11, 14]),
            ..Options::default()
        },
        Options {
            run_ctas: Some(vec![9, 2, 15, 3, 2, 7]),
            ..Options::default()
        },
    ];
    for name in ["conv2d", "matmul_tiled", "transpose_tiled"] {
        for opts in &samples {
            check_corpus(name, opts);
        }
    }
}

/// Thread 0's CTA `b` loads `buf[b - 1]` (what CTA `b - 1` stored), loops
/// that many times and stores one more to `buf[b]`: a chain through global
/// memory from CTA to CTA.
const CHAIN: &str = r#".version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra START;
  sub.u32 %r3, %r1, 1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
START:
  mov.u32 %r4, 0;
LOOP:
  setp.ge.u32 %p2, %r4, %r2;
  @%p2 bra DONE;
  add.u32 %r4, %r4, 1;
  bra LOOP;
DONE:
  add.u32 %r5, %r2, 1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r5;
  ret;
}
"#;

const CHAIN_SPEC: &str = r#"
source = "chain.ptx"
kernel = "k"
grid = [8, 1, 1]
block = [32, 1, 1]
[[arg]]
name = "buf"
type = "u32*"
len = 8
init = "zeros"
"#;

/// Watches every event, so the launch is one sequential run.
struct Sequential;
impl Observer for Sequential {}

#[test]
fn ctas_that_communicate_give_the_sequential_numbers() {
    let s = parse(CHAIN_SPEC, Path::new("chain.toml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    let module = ptx::parse("chain.ptx", CHAIN).unwrap_or_else(|_| panic!("chain.ptx parses"));
    let sequential = characterize_with(
        &module,
        CHAIN,
        "chain.ptx",
        &s,
        Options::default(),
        &mut Sequential,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // CTA b loads b and loops b times (4 instructions an iteration).
    let loops: f64 = (0..8).map(|b| 4.0 * b as f64).sum();
    assert!(
        sequential.warp_instructions > loops,
        "{}",
        sequential.warp_instructions
    );
    for n in THREADS {
        let c = characterize_ptx(CHAIN, "chain.ptx", &s, with_threads(&Options::default(), n))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            fields(&c) == fields(&sequential),
            "{n} threads: {} warp instructions, sequentially {}",
            c.warp_instructions,
            sequential.warp_instructions
        );
    }
}
