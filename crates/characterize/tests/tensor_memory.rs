//! The memory requests of `wmma.load` and `wmma.store`: at m16n16k16,
//! m32n8k16 and m8n32k16 with 16-bit tiles or 32-bit accumulators and a
//! `.target` of sm_75 or later, the requests ptxas's SASS makes (read with
//! nvdisasm for sm_75, sm_80 and sm_90: one 32-bit load a lane per 8 x 8
//! block of a 16-bit tile; one 64-bit one per block of a 32-bit accumulator
//! stored along the native problem's rows, two 32-bit ones across them;
//! m8n32k16 runs as the transposed m32n8k16), not one per fragment
//! register; Volta targets and other types keep one request per register.
//! One warp runs one instruction on a zeroed buffer at a 256-byte aligned
//! address, the tile packed (leading dimension: its storage row).

mod common;

use common::corpus::{characterize_inline, one_warp_spec};
use emu::simt::stack::Policy;

/// (requests, sectors, bytes) of the global loads or stores of a one-warp
/// kernel that runs `inst` (`%rd1` the buffer, `%a` .b32 and `%f` .f32
/// fragment registers) on `.target target`.
fn traffic(target: &str, inst: &str, stores: bool) -> [f64; 3] {
    let ptx = format!(
        r#".version 7.8
.target {target}
.address_size 64
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %a<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  {inst}
  ret;
}}
"#
    );
    let c = characterize_inline(&ptx, &one_warp_spec("out", "f32*", 4096), Policy::Ipdom);
    let p = c.to_profile();
    let t = if stores {
        p.global.stores
    } else {
        p.global.loads
    };
    [t.requests, t.transactions, t.bytes]
}

fn check(target: &str, inst: &str, stores: bool, expect: [f64; 3]) {
    assert_eq!(traffic(target, inst, stores), expect, "{target}: {inst}");
}

const A_ROW_F16: &str = "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%rd1], 16;";
const B_COL_BF16: &str =
    "wmma.load.b.sync.aligned.col.m16n16k16.global.bf16 {%a0, %a1, %a2, %a3}, [%rd1], 16;";
const C_ROW_F32: &str = "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1], 16;";
const C_COL_F32: &str = "wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1], 16;";
const D_COL_F16: &str =
    "wmma.store.d.sync.aligned.col.m16n16k16.global.f16 [%rd1], {%a0, %a1, %a2, %a3}, 16;";
const D_ROW_S32: &str = "wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd1], {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, 16;";

#[test]
fn sixteen_bit_tiles_take_four_requests_of_eight_rows() {
    // 16 rows of 32 bytes; a request covers 8 of them, 16 bytes (one sector)
    // each: 4 x 8 sectors, the tile's 512 bytes once.
    for target in ["sm_75", "sm_80", "sm_90"] {
        check(target, A_ROW_F16, false, [4.0, 32.0, 512.0]);
        check(target, B_COL_BF16, false, [4.0, 32.0, 512.0]);
        check(target, D_COL_F16, true, [4.0, 32.0, 512.0]);
    }
}

#[test]
fn thirty_two_bit_accumulators_follow_their_layout() {
    // Rows of 64 bytes. Row-major: 8 rows x 32 bytes (4 lanes x 8) a
    // request; column-major: 4 storage rows x 32 bytes (8 lanes x 4) a
    // request, twice as many requests. 32 sectors, 1 KB, either way.
    check("sm_80", C_ROW_F32, false, [4.0, 32.0, 1024.0]);
    check("sm_80", C_COL_F32, false, [8.0, 32.0, 1024.0]);
    check("sm_90", D_ROW_S32, true, [4.0, 32.0, 1024.0]);
}

#[test]
fn the_tall_and_wide_shapes_follow_the_native_problem() {
    // m32n8k16's A: 32 rows of 32 bytes, 4 x 2 blocks of 8 x 8.
    check(
        "sm_80",
        "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%rd1], 16;",
        false,
        [8.0, 64.0, 1024.0],
    );
    // m8n32k16 is run as the transposed m32n8k16: its row-major f32
    // accumulator (8 rows of 128 bytes) goes across the native rows, 8
    // requests of 4 rows x 32 bytes; a column-major one (32 storage rows of
    // 32 bytes) along them, 4 requests of 8 rows.
    check(
        "sm_80",
        "wmma.load.c.sync.aligned.row.m8n32k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1], 32;",
        false,
        [8.0, 32.0, 1024.0],
    );
    check(
        "sm_80",
        "wmma.store.d.sync.aligned.col.m8n32k16.global.f32 [%rd1], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 8;",
        true,
        [4.0, 32.0, 1024.0],
    );
}

#[test]
fn volta_and_unread_types_keep_a_request_per_register() {
    // sm_70: 8 registers, lane l holding row l % 16 (the fragment
    // replicated in lanes 16 to 31): each request touches 16 rows, 8 x 16
    // sectors, and reads the 512-byte tile twice over.
    check("sm_70", A_ROW_F16, false, [8.0, 128.0, 1024.0]);
    // tf32 at m16n16k8 (its SASS was not read): lane l holds half a row of
    // A, 16 rows a request.
    check(
        "sm_80",
        "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%a0, %a1, %a2, %a3}, [%rd1], 8;",
        false,
        [4.0, 64.0, 512.0],
    );
}
