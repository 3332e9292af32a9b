//! Neighbouring shared accesses that ptxas issues as one wider access count
//! as that access (`characterize::wide_shared`): one request, the passes of
//! the wide access. One warp reads (or writes) shared memory at
//! `tid * stride + shift` plus each listed offset, and the profile's shared
//! requests and passes are checked.
//!
//! The rule was checked on an H200 with Nsight Compute
//! (data/measured/h200-sxm-141gb/README.md, "Fourth loan"): with it the
//! emulator's shared load requests equal the counters' in all 24 CLBlast
//! Xgemm builds measured, where the PTX's 32-bit loads were 2 to 4 times as
//! many in 9 of them.

mod common;

use common::corpus::{PTX_HEADER as HEADER, characterize_inline, one_warp_spec};
use emu::simt::stack::Policy;

/// A kernel whose shared accesses are `body`, with `%rd3` the lane's
/// address (`tid * stride + shift` into a 16-byte aligned array) and the
/// loaded values summed into `%r9`, which is stored to global memory.
fn kernel(stride: u32, shift: u32, body: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 out)
{{
  .shared .align 16 .b8 sm[4096];
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd5, %rd1;
  mov.u32 %r1, %tid.x;
  mad.lo.u32 %r2, %r1, {stride}, {shift};
  cvt.u64.u32 %rd2, %r2;
  mov.u64 %rd4, sm;
  add.s64 %rd3, %rd4, %rd2;
  mov.u32 %r9, 0;
  setp.lt.u32 %p1, %r1, 16;
{body}
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd5, %rd6;
  st.global.u32 [%rd7], %r9;
  ret;
}}
"#
    )
}

/// Loads of the 32-bit words at `offsets` from `%rd3`, in that order.
fn loads(offsets: &[i32]) -> String {
    offsets
        .iter()
        .enumerate()
        .map(|(i, o)| {
            format!(
                "  ld.shared.u32 %r{r}, [%rd3+{o}];\n  add.u32 %r9, %r9, %r{r};\n",
                r = 10 + i
            )
        })
        .collect()
}

/// The shared (loads, stores) requests and passes of `body`.
fn counts(stride: u32, shift: u32, body: &str) -> [f64; 4] {
    let c = characterize_inline(
        &format!("{HEADER}{}", kernel(stride, shift, body)),
        &one_warp_spec("out", "u32*", 32),
        Policy::Ipdom,
    );
    let s = c.to_profile().shared;
    [
        s.loads.requests,
        s.loads.transactions,
        s.stores.requests,
        s.stores.transactions,
    ]
}

/// Checks the load requests and passes of `body`.
fn check(stride: u32, shift: u32, body: &str, requests: f64, passes: f64) {
    let [r, p, ..] = counts(stride, shift, body);
    assert_eq!(
        (r, p),
        (requests, passes),
        "stride {stride}, shift {shift}:\n{body}"
    );
}

#[test]
fn four_aligned_words_are_one_128_bit_load() {
    // Lane t reads its own float4 at 16 t: one request, one pass a
    // quarter-warp.
    check(16, 0, &loads(&[0, 4, 8, 12]), 1.0, 4.0);
    // Any order in the block, and a negative start (CLBlast's [%rd51+-16]).
    check(16, 16, &loads(&[-4, -16, -8, -12]), 1.0, 4.0);
    // Eight words: two float4s, lanes 32 B apart (2 ways a phase).
    check(32, 0, &loads(&[0, 4, 8, 12, 16, 20, 24, 28]), 2.0, 16.0);
    // Every lane the same float4: a half-warp's two phases share a pass.
    check(0, 0, &loads(&[0, 4, 8, 12]), 1.0, 2.0);
}

#[test]
fn a_window_merges_only_as_far_as_it_is_aligned() {
    // 8-byte aligned only: two 64-bit loads, lanes 16 B apart (2 ways a
    // half-warp, 4 passes each).
    check(16, 8, &loads(&[0, 4, 8, 12]), 2.0, 8.0);
    // 4-byte aligned: four 32-bit loads, lanes 16 B apart (4 ways each);
    // the middle two words are 8-byte aligned, but not at a multiple of 8
    // from the base, where ptxas would need to know the base's alignment.
    check(16, 4, &loads(&[0, 4, 8, 12]), 4.0, 16.0);
    // Base 8 past a multiple of 16, words -8 to 4: two 64-bit loads (ptxas
    // makes one 128-bit load where it knows the base that way).
    check(16, 8, &loads(&[-8, -4, 0, 4]), 2.0, 8.0);
    // Two words of a window: a 64-bit load; three: 64-bit plus 32-bit.
    check(8, 0, &loads(&[0, 4]), 1.0, 2.0);
    check(16, 0, &loads(&[0, 4, 8]), 2.0, 8.0);
    // Words that do not start a window at a multiple of its width.
    check(16, 0, &loads(&[4, 8]), 2.0, 8.0);
    // A word read twice is one access of the group and one of its own.
    check(16, 0, &loads(&[0, 4, 8, 12, 0]), 2.0, 8.0);
}

#[test]
fn nothing_merges_across_what_orders_memory() {
    let split = |between: &str| format!("{}{between}\n{}", loads(&[0, 4]), loads(&[8, 12]));
    // A barrier or fence: two 64-bit loads, not one 128-bit.
    check(16, 0, &split("  bar.sync 0;"), 2.0, 8.0);
    check(16, 0, &split("  membar.cta;"), 2.0, 8.0);
    // A store to shared memory between them (requests only: the profile
    // splits the passes of a kernel that loads and stores by requests).
    let [r, ..] = counts(16, 0, &split("  st.shared.u32 [sm+2048], %r9;"));
    assert_eq!(r, 2.0);
    // The base register written between them.
    check(16, 0, &split("  add.s64 %rd3, %rd3, 0;"), 2.0, 8.0);
    // Another base's loads do not stop the run.
    check(
        16,
        0,
        &split("  ld.shared.u32 %r19, [%rd4+1024];"),
        2.0,
        5.0,
    );
}

#[test]
fn guarded_and_volatile_loads_stay_alone() {
    let guarded = loads(&[0, 4, 8, 12]).replace("  ld.shared", "  @%p1 ld.shared");
    // Half the lanes, one 32-bit load each: 16 lanes 16 B apart, 2 ways.
    check(16, 0, &guarded, 4.0, 8.0);
    let volatile = loads(&[0, 4, 8, 12]).replace("ld.shared", "ld.volatile.shared");
    check(16, 0, &volatile, 4.0, 16.0);
}

#[test]
fn neighbouring_stores_merge_as_loads_do() {
    let stores: String = [0, 4, 8, 12]
        .iter()
        .map(|o| format!("  st.shared.u32 [%rd3+{o}], %r1;\n"))
        .collect();
    let [.., r, p] = counts(16, 0, &stores);
    assert_eq!((r, p), (1.0, 4.0));
    // A load between them ends the run.
    let split = stores.replacen(
        "  st.shared.u32 [%rd3+8]",
        "  ld.shared.u32 %r10, [%rd3+1024];\n  st.shared.u32 [%rd3+8]",
        1,
    );
    let [.., r, _] = counts(16, 0, &split);
    assert_eq!(r, 2.0);
}
