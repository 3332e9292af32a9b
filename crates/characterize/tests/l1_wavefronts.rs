//! The L1 data-stage wavefronts of global loads: one warp loads once, lane
//! `l` at byte `(l % distinct) * stride` with `width` bytes per lane, and the
//! profile's `global.load_wavefronts` is the bank passes of that load by
//! phase (half-warps for 8-byte lanes, quarter-warps for 16-byte ones), as a
//! shared load of the same addresses would take.
//!
//! The rule was checked on an H200 with Nsight Compute
//! (data/measured/h200-sxm-141gb/README.md, "Fourth loan"): CLBlast's Xgemm
//! builds whose loads follow the first two cases below took 11.02 and 7.23
//! data-stage wavefronts per global load request, where this count gives
//! 11.00 and 7.22 (the mix of those builds' loads).

mod common;

use common::corpus::{PTX_HEADER as HEADER, characterize_inline, one_warp_spec};
use emu::simt::stack::Policy;

/// A kernel whose one global load has `width` bytes per lane (4, 8 or 16)
/// at byte `(tid % distinct) * stride`; the value is stored back to the
/// lane's own word so that the load is live.
fn kernel(width: u32, distinct: u32, stride: u32) -> String {
    let (ty, dst, sum) = match width {
        4 => (".u32", "%r4", "mov.u32 %r8, %r4;"),
        8 => (".v2.u32", "{%r4, %r5}", "add.u32 %r8, %r4, %r5;"),
        _ => (
            ".v4.u32",
            "{%r4, %r5, %r6, %r7}",
            "add.u32 %r8, %r4, %r5;\n  add.u32 %r8, %r8, %r6;\n  add.u32 %r8, %r8, %r7;",
        ),
    };
    format!(
        r#"
.visible .entry k(.param .u64 buf)
{{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, {distinct};
  mul.wide.u32 %rd3, %r2, {stride};
  add.s64 %rd4, %rd2, %rd3;
  ld.global{ty} {dst}, [%rd4];
  {sum}
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r8;
  ret;
}}
"#
    )
}

fn check(width: u32, distinct: u32, stride: u32, wavefronts: f64) {
    let c = characterize_inline(
        &format!("{HEADER}{}", kernel(width, distinct, stride)),
        &one_warp_spec("buf", "u32*", 4096),
        Policy::Ipdom,
    );
    let g = c.to_profile().global;
    assert_eq!(g.loads.requests, 1.0, "one load");
    assert_eq!(
        g.load_wavefronts,
        Some(wavefronts),
        "{width}-byte lanes, {distinct} addresses {stride} B apart"
    );
}

#[test]
fn wide_loads_pass_the_banks_by_phase() {
    // CLBlast's A operand with 8 threads along M, 16 floats each, read as
    // float4: 8 addresses 64 B apart in every quarter-warp, four on the same
    // four banks: 4 passes a phase, 4 phases.
    check(16, 8, 64, 16.0);
    // The same as float2: 4 passes a half-warp, 2 half-warps.
    check(8, 8, 64, 8.0);
    // Contiguous float4 and float2: one pass a phase.
    check(16, 32, 16, 4.0);
    check(8, 32, 8, 2.0);
    // Every lane the same float4 or float2: still one pass a phase (a
    // shared load's phases would share passes; Nsight Compute shows a
    // global load's do not).
    check(16, 1, 0, 4.0);
    check(8, 1, 0, 2.0);
}

#[test]
fn word_loads_pass_once_unless_lanes_share_a_bank() {
    // Coalesced, and every lane on one word (broadcast): one pass.
    check(4, 32, 4, 1.0);
    check(4, 1, 4, 1.0);
    // 128 B apart: every lane on bank 0, 32 passes.
    check(4, 32, 128, 32.0);
    // 8 B apart: two lanes a bank, 2 passes.
    check(4, 32, 8, 2.0);
}
