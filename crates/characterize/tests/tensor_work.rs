//! The profile's tensor work: each warp-wide matrix multiply counts its
//! m x n x k multiply-adds under the kind its multiplicand and accumulator
//! types decide, and one instruction; matrix loads, stores and `ldmatrix`
//! count none. One warp runs a body `reps` times (a loop), so the counts
//! are dynamic, not static.

mod common;

use common::corpus::{PTX_HEADER as HEADER, characterize_inline, one_warp_spec};
use emu::simt::stack::Policy;

/// A kernel that runs `body` `reps` times in a loop, the fragment registers
/// declared and zeroed (`%a` .b32, `%f` .f32, `%d` .f64).
fn kernel(body: &str, reps: u32) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %a<16>;
  .reg .f32 %f<8>;
  .reg .f64 %d<4>;
  .reg .b32 %i<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %a0, 0; mov.b32 %a1, 0; mov.b32 %a2, 0; mov.b32 %a3, 0;
  mov.b32 %a4, 0; mov.b32 %a5, 0; mov.b32 %a6, 0; mov.b32 %a7, 0;
  mov.f32 %f0, 0f00000000; mov.f32 %f1, 0f00000000; mov.f32 %f2, 0f00000000; mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000; mov.f32 %f5, 0f00000000; mov.f32 %f6, 0f00000000; mov.f32 %f7, 0f00000000;
  mov.f64 %d0, 0d0000000000000000; mov.f64 %d1, 0d0000000000000000;
  mov.f64 %d2, 0d0000000000000000; mov.f64 %d3, 0d0000000000000000;
  mov.u32 %i0, 0;
LOOP:
{body}
  add.u32 %i0, %i0, 1;
  setp.lt.u32 %p1, %i0, {reps};
  @%p1 bra LOOP;
  ret;
}}
"#
    )
}

/// (f16, f16_f32, tf32, int8, fp64, instructions) of a kernel's profile.
fn tensor(body: &str, reps: u32) -> [f64; 6] {
    let c = characterize_inline(
        &format!("{HEADER}{}", kernel(body, reps)),
        &one_warp_spec("out", "f32*", 256),
        Policy::Ipdom,
    );
    let t = c.to_profile().tensor;
    [t.f16, t.f16_f32, t.tf32, t.int8, t.fp64, t.instructions]
}

fn check(body: &str, reps: u32, expect: [f64; 6]) {
    assert_eq!(tensor(body, reps), expect, "{body}");
}

const MMA_BF16: &str = "  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, {%a0, %a1, %a2, %a3}, {%a4, %a5}, {%f0, %f1, %f2, %f3};";
const MMA_F16_F16: &str =
    "  mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%a6, %a7}, {%a0, %a1}, {%a4}, {%a6, %a7};";
const MMA_S8: &str = "  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%a8, %a9, %a10, %a11}, {%a0, %a1, %a2, %a3}, {%a4, %a5}, {%a8, %a9, %a10, %a11};";
const MMA_TF32: &str = "  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%a0, %a1, %a2, %a3}, {%a4, %a5}, {%f0, %f1, %f2, %f3};";
const WMMA_F16_F32: &str = "  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};";
const WMMA_F64: &str = "  wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn {%d0, %d1}, {%d2}, {%d3}, {%d0, %d1};";

#[test]
fn each_kind_counts_its_multiply_adds() {
    // m16n8k16 = 2,048; m16n8k8 = 1,024; m16n8k32 = 4,096; m16n16k16 = 4,096;
    // m8n8k4 = 256: times the loop's 3 trips.
    check(MMA_BF16, 3, [0.0, 6144.0, 0.0, 0.0, 0.0, 3.0]);
    check(MMA_F16_F16, 3, [3072.0, 0.0, 0.0, 0.0, 0.0, 3.0]);
    check(MMA_S8, 3, [0.0, 0.0, 0.0, 12288.0, 0.0, 3.0]);
    check(MMA_TF32, 3, [0.0, 0.0, 3072.0, 0.0, 0.0, 3.0]);
    check(WMMA_F16_F32, 3, [0.0, 12288.0, 0.0, 0.0, 0.0, 3.0]);
    check(WMMA_F64, 3, [0.0, 0.0, 0.0, 0.0, 768.0, 3.0]);
}

#[test]
fn kinds_add_up_and_memory_instructions_count_none() {
    let body = format!(
        "{MMA_BF16}\n{WMMA_F64}\n  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}}, [%rd1], 16;"
    );
    check(&body, 2, [0.0, 4096.0, 0.0, 0.0, 512.0, 4.0]);
    // No matrix multiply: the section is empty.
    let none = tensor("  add.u32 %a0, %a0, 1;", 2);
    assert_eq!(none, [0.0; 6]);
}
