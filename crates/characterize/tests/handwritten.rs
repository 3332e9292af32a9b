//! Small hand-written PTX kernels whose metrics are computed by hand:
//! activity factor, divergent-branch ratio and stack depth under both
//! reconvergence policies, and inter-thread data flow.

mod common;

use common::corpus::{PTX_HEADER as HEADER, characterize_inline};
use emu::simt::stack::Policy;

const SPEC_ONE_WARP: &str = r#"
source = "inline.ptx"
kernel = "k"
grid = [1, 1, 1]
block = [32, 1, 1]
[[arg]]
name = "out"
type = "u32*"
len = 128
init = "zeros"
"#;

/// if (tid < 8) x = 1 else x = 2; out[tid] = x.
const IF_ELSE: &str = r#"
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra THEN;
  mov.u32 %r2, 2;
  bra JOIN;
THEN:
  mov.u32 %r2, 1;
JOIN:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
"#;

struct Expected {
    warp: f64,
    thread: f64,
    branches: f64,
    divergent: f64,
    depth: u32,
}

fn check(body: &str, policy: Policy, e: Expected) {
    let c = characterize_inline(&format!("{HEADER}{body}"), SPEC_ONE_WARP, policy);
    assert_eq!(
        (c.warp_instructions, c.thread_instructions),
        (e.warp, e.thread),
        "{policy:?}"
    );
    assert_eq!(
        (c.branches, c.divergent_branches),
        (e.branches, e.divergent),
        "{policy:?}"
    );
    assert_eq!(c.activity_factor, e.thread / (32.0 * e.warp), "{policy:?}");
    assert_eq!(
        c.divergent_branch_ratio,
        e.divergent / e.branches,
        "{policy:?}"
    );
    assert_eq!(c.max_reconvergence_depth, e.depth, "{policy:?}");
    // One CTA: MIMD parallelism 1; SIMD = A_f x 32 threads.
    assert_eq!(c.mimd_parallelism, 1.0);
    assert!((c.simd_parallelism - 32.0 * c.activity_factor).abs() < 1e-12);
}

#[test]
fn if_else_ipdom() {
    // 3 uniform instructions (mov, setp, the branch: all 32 lanes evaluate it),
    // else path 2 instructions x 24 lanes, then path 1 x 8 lanes, then the
    // joined 6 instructions x 32: 12 warp instructions, 96+48+8+192 = 344
    // thread instructions. Branches: the divergent one and the else path's
    // uniform `bra JOIN`. Depth: join entry + two paths.
    check(
        IF_ELSE,
        Policy::Ipdom,
        Expected {
            warp: 12.0,
            thread: 344.0,
            branches: 2.0,
            divergent: 1.0,
            depth: 3,
        },
    );
}

#[test]
fn if_else_barrier() {
    // No join before exit: each path runs the tail on its own:
    // 3 + (2 + 6) x 24 lanes + (1 + 6) x 8 lanes = 18 warp instructions,
    // 96 + 8*24 + 7*8 = 344 thread instructions.
    check(
        IF_ELSE,
        Policy::Barrier,
        Expected {
            warp: 18.0,
            thread: 344.0,
            branches: 2.0,
            divergent: 1.0,
            depth: 2,
        },
    );
}

/// Shared-memory data flow: every thread stores tid to S[tid], then after a
/// barrier loads the words named in `loads` (each an expression of %r1 = tid
/// written as PTX that leaves the word index in %r3).
fn flow_kernel(loads: &[&str]) -> String {
    let mut body = String::from(
        r#"
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 S[128];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r4, S;
  add.u32 %r5, %r4, %r2;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
"#,
    );
    for l in loads {
        body.push_str(l);
        body.push_str(
            "\n  shl.b32 %r3, %r3, 2;\n  add.u32 %r6, %r4, %r3;\n  ld.shared.u32 %r7, [%r6];\n",
        );
    }
    body.push_str("  ret;\n}\n");
    body
}

fn check_flow(loads: &[&str], expected: f64) {
    let c = characterize_inline(
        &format!("{HEADER}{}", flow_kernel(loads)),
        SPEC_ONE_WARP,
        Policy::Ipdom,
    );
    assert_eq!(c.inter_thread_data_flow, expected, "{loads:?}");
}

#[test]
fn inter_thread_flow() {
    let own = "  mov.u32 %r3, %r1;";
    let neighbour = "  add.u32 %r3, %r1, 1;\n  and.b32 %r3, %r3, 31;";
    let pair = "  xor.b32 %r3, %r1, 1;";
    let quad = "  and.b32 %r3, %r1, 28;";
    check_flow(&[neighbour], 1.0);
    check_flow(&[own], 0.0);
    check_flow(&[own, pair], 0.5);
    // quad: lanes 0, 4, ..., 28 read their own word, 24 lanes another's:
    // (32 + 24) / 96 other-thread words.
    check_flow(&[own, pair, quad], 56.0 / 96.0);
}

#[test]
fn exempt_store_from_global_load() {
    // Thread t copies out[t] (a global load in the same block) to S[t];
    // reading a neighbour's word is then not inter-thread.
    let body = r#"
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  .shared .align 4 .b8 S[128];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, S;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  xor.b32 %r6, %r3, 4;
  add.u32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  ret;
}
"#;
    let c = characterize_inline(&format!("{HEADER}{body}"), SPEC_ONE_WARP, Policy::Ipdom);
    assert_eq!(c.shared_requests, 2.0);
    assert_eq!(c.inter_thread_data_flow, 0.0);
}

/// IEEE FP32 division: 8 lanes run `div.rn.f32` under a branch, every lane
/// a `div.approx.f32` (one SFU instruction) and a `mul.f32`, then an IEEE
/// and an approximate square root. Two constant
/// loads: one at an immediate address, one indexed by a register.
const DIVISIONS: &str = r#"
.const .align 4 .f32 table[32];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  ld.const.f32 %f6, [table+4];
  mov.u64 %rd1, table;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.const.f32 %f7, [%rd3];
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 1.0;
  setp.ge.u32 %p1, %r1, 8;
  @%p1 bra SKIP;
  div.rn.f32 %f3, %f1, %f2;
SKIP:
  div.approx.f32 %f4, %f1, %f2;
  mul.f32 %f5, %f4, %f2;
  sqrt.rn.f32 %f4, %f5;
  sqrt.approx.f32 %f4, %f5;
  ret;
}
"#;

#[test]
fn ieee_fp32_division_and_indexed_constant_loads_are_counted_apart() {
    let c = characterize_inline(
        &format!("{HEADER}{DIVISIONS}"),
        SPEC_ONE_WARP,
        Policy::Ipdom,
    );
    let p = c.to_profile();
    let (w, t) = (&p.warp_instructions, &p.thread_instructions);
    // Warp level: one division, and add + mul stay FP32; div.approx is SFU.
    assert_eq!((w.fp32_div, w.fp32, w.sfu), (1.0, 2.0, 2.0));
    // Thread level: the division ran on 8 lanes.
    assert_eq!((t.fp32_div, t.fp32, t.sfu), (8.0, 64.0, 64.0));
    // A division is one flop, as before it had a field of its own.
    assert_eq!(w.flops(), 3.0);
    // sqrt.rn is an IEEE sequence, sqrt.approx one SFU instruction.
    assert_eq!((w.sfu_ieee, t.sfu_ieee), (1.0, 32.0));
    // The register-addressed constant load is apart from the other.
    assert_eq!((w.constant, w.constant_indexed), (1.0, 1.0));
    assert_eq!((t.constant, t.constant_indexed), (32.0, 32.0));
}

/// One warp: a coalesced load (lane i reads word i: one 128-byte line), a
/// load 32 words apart per lane (32 lines), and the same strided load on
/// the read-only path (`ld.global.nc`).
const LINES: &str = r#"
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 128;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r3, [%rd6];
  ld.global.nc.u32 %r4, [%rd6];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  add.u32 %r5, %r2, %r3;
  add.u32 %r5, %r5, %r4;
  st.global.u32 [%rd4], %r5;
  ret;
}
"#;

#[test]
fn load_lines_and_the_read_only_path_are_counted() {
    // The one-warp spec with room for 32 lines of 128 bytes.
    let spec = SPEC_ONE_WARP.replace("len = 128", "len = 1024");
    let c = characterize_inline(&format!("{HEADER}{LINES}"), &spec, Policy::Ipdom);
    let g = c.to_profile().global;
    assert_eq!(g.loads.requests, 3.0);
    // 1 line for the coalesced load, 32 for each strided one.
    assert_eq!(g.load_lines, Some(65.0));
    assert_eq!(g.read_only_load_requests, Some(1.0));
    assert_eq!(g.read_only_load_lines, Some(32.0));
}
