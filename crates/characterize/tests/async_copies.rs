//! `cp.async` is memory traffic: a global read of its copy size per lane
//! and a shared write, counted as the `ld.global` and `st.shared` that copy
//! the same bytes (before 2026-12-05 the profile counted neither, so a
//! kernel staging its tiles with cp.async looked like one that reads no
//! global memory). A lane whose source size is 0 only zero-fills its bytes
//! and reads nothing. One warp copies 16 bytes per lane from `in + tid * 16`
//! into shared memory; the lanes of `tid >= ZERO_FROM` copy with source size
//! 0.

mod common;

use common::corpus::{PTX_HEADER as HEADER, characterize_inline, one_warp_spec};
use emu::simt::stack::Policy;

/// `copy` moves the lane's 16 bytes from `[%rd3]` (global) to `[%r4]`
/// (shared), with `%r5` the lane's source size (16, or 0 from `zero_from`).
fn kernel(zero_from: u32, copy: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 in)
{{
  .shared .align 16 .b8 sm[512];
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd3, %rd2, %rd4;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  setp.lt.u32 %p1, %r1, {zero_from};
  selp.u32 %r5, 16, 0, %p1;
{copy}
  ret;
}}
"#
    )
}

const CP_ASYNC: &str = "  cp.async.cg.shared.global [%r4], [%rd3], 16, %r5;\n  cp.async.wait_all;";
/// The same bytes moved by a load and a store (the zero-filled lanes load
/// nothing: the load is guarded).
const LD_ST: &str = "  mov.u32 %r6, 0;\n  mov.u32 %r7, 0;\n  mov.u32 %r8, 0;\n  mov.u32 %r9, 0;\n  @%p1 ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd3];\n  st.shared.v4.u32 [%r4], {%r6, %r7, %r8, %r9};";

/// (global load requests, global load sectors, global load bytes, shared
/// store requests, shared store bytes) of a profile.
fn traffic_of(c: &characterize::Characterization) -> [f64; 5] {
    let m = &c.model_inputs;
    [
        m.global_loads,
        m.global_load_sectors,
        m.global_load_bytes,
        m.shared_stores,
        m.shared_store_bytes,
    ]
}

/// The traffic of one warp's copy.
fn traffic(zero_from: u32, copy: &str) -> [f64; 5] {
    let c = characterize_inline(
        &format!("{HEADER}{}", kernel(zero_from, copy)),
        &one_warp_spec("in", "u32*", 128),
        Policy::Ipdom,
    );
    traffic_of(&c)
}

fn check(zero_from: u32, expect: [f64; 5]) {
    assert_eq!(
        traffic(zero_from, CP_ASYNC),
        expect,
        "cp.async, zero from lane {zero_from}"
    );
    assert_eq!(
        traffic(zero_from, LD_ST),
        expect,
        "ld + st, zero from lane {zero_from}"
    );
}

#[test]
fn every_lane_copies() {
    // 32 x 16 B = 512 B: one request, 16 sectors; one shared store of 512 B.
    check(32, [1.0, 16.0, 512.0, 1.0, 512.0]);
}

#[test]
fn zero_filled_lanes_read_nothing() {
    // Half the lanes read: 256 B in 8 sectors; every lane writes.
    check(16, [1.0, 8.0, 256.0, 1.0, 512.0]);
    // No lane reads: no global request at all.
    check(0, [0.0, 0.0, 0.0, 1.0, 512.0]);
}

/// A bulk copy (`cp.async.bulk`, sm_90) of `bytes` by lane 0 from `in` into
/// shared memory: the copy engine's 16-byte pieces, 32 to a request.
fn bulk_traffic(bytes: u32) -> [f64; 5] {
    let ptx = format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in)
{{
  .shared .align 16 .b8 sm[2048];
  .shared .align 8 .b64 bar;
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  mov.u32 %r3, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd2], {bytes}, [%r3];
  ret;
}}
"#
    );
    let c = characterize_inline(&ptx, &one_warp_spec("in", "u32*", 512), Policy::Ipdom);
    traffic_of(&c)
}

#[test]
fn a_bulk_copy_moves_its_bytes_in_requests_of_512() {
    assert_eq!(bulk_traffic(256), [1.0, 8.0, 256.0, 1.0, 256.0]);
    assert_eq!(bulk_traffic(1024), [2.0, 32.0, 1024.0, 2.0, 1024.0]);
    assert_eq!(bulk_traffic(1040), [3.0, 33.0, 1040.0, 3.0, 1040.0]);
}
