//! `cp.async.bulk`: contiguous bulk copies (sm_90) and the transaction count
//! of the mbarrier they complete. One CTA of 64 threads; thread 0 expects
//! `EXPECT` bytes on a barrier of 64 arrivals and issues bulk copies of
//! `COPIES` (bytes each) from `in` into shared memory, every thread arrives,
//! and once all have (`bar.sync`) thread 0 records whether the phase
//! completed (`test_wait`); every thread then waits for it (where it can
//! complete), reads its word of the tile back and writes it to `out`;
//! thread 0 finally copies the first 256 bytes of the tile to `back` with a
//! `bulk_group` copy.

mod common;

use common::{buffer, run_text, u32s};

/// The kernel, with `copies` the bulk copies of thread 0 (bytes each, from
/// offset 0 on) and `expect` the bytes it expects; `wait` false leaves out
/// the wait (for a phase that cannot complete).
fn kernel(expect: u32, copies: &[u32], wait: bool) -> String {
    let mut issue = String::new();
    let mut off = 0;
    for &bytes in copies {
        issue.push_str(&format!(
            "  add.u32 %r20, %r10, {off};\n  add.s64 %rd20, %rd2, {off};\n  \
             cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r20], [%rd20], {bytes}, [%r11];\n"
        ));
        off += bytes;
    }
    let wait = if wait {
        "WAIT:\n  mbarrier.try_wait.shared::cta.b64 %p3, [%r11], %rd5;\n  @!%p3 bra WAIT;\n"
    } else {
        ""
    };
    format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 back, .param .u64 flag)
{{
  .shared .align 16 .b8 tile[512];
  .shared .align 8 .b64 bar;
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r10, tile;
  mov.u32 %r11, bar;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra INIT_DONE;
  mbarrier.init.shared::cta.b64 [%r11], 64;
INIT_DONE:
  bar.sync 0;
  @!%p1 bra ISSUED;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r11], {expect};
{issue}ISSUED:
  mbarrier.arrive.shared::cta.b64 %rd5, [%r11];
  bar.sync 0;
  mbarrier.test_wait.shared::cta.b64 %p2, [%r11], %rd5;
  selp.u32 %r12, 1, 0, %p2;
  ld.param.u64 %rd6, [flag];
  cvta.to.global.u64 %rd7, %rd6;
  @%p1 st.global.u32 [%rd7], %r12;
{wait}  shl.b32 %r13, %r1, 2;
  add.u32 %r14, %r10, %r13;
  ld.shared.u32 %r15, [%r14];
  ld.param.u64 %rd8, [out];
  cvta.to.global.u64 %rd9, %rd8;
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd11, %rd9, %rd10;
  st.global.u32 [%rd11], %r15;
  @!%p1 bra END;
  ld.param.u64 %rd12, [back];
  cvta.to.global.u64 %rd13, %rd12;
  cp.async.bulk.global.shared::cta.bulk_group [%rd13], [%r10], 256;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
END:
  ret;
}}
"#
    )
}

const SPEC: &str = r#"source = "k.ptx"
kernel = "k"
grid = [1]
block = [64]
[[arg]]
name = "in"
type = "u32*"
len = 128
init = "iota"
[[arg]]
name = "out"
type = "u32*"
len = 64
[[arg]]
name = "back"
type = "u32*"
len = 64
[[arg]]
name = "flag"
type = "u32*"
len = 1
"#;

/// (out, back, flag) of a run, or the fault's message.
fn run(expect: u32, copies: &[u32], wait: bool) -> Result<(Vec<u32>, Vec<u32>, u32), String> {
    let r = run_text(&kernel(expect, copies, wait), SPEC)?;
    Ok((
        u32s(buffer(&r, "out")),
        u32s(buffer(&r, "back")),
        u32s(buffer(&r, "flag"))[0],
    ))
}

#[test]
fn a_bulk_copy_completes_the_bytes_its_barrier_expects() {
    // 256 bytes expected and copied: the phase completes with the last
    // arrival; every thread reads in[tid] from the tile.
    let (out, back, flag) = run(256, &[256], true).unwrap_or_else(|e| panic!("{e}"));
    let iota: Vec<u32> = (0..64).collect();
    assert_eq!(out, iota);
    assert_eq!(back, iota, "the bulk_group copy back to global memory");
    assert_eq!(flag, 1, "every thread arrived and every byte came");
    // Two copies of 128 bytes complete the same 256.
    let (out, _, flag) = run(256, &[128, 128], true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((out, flag), (iota, 1));
}

#[test]
fn a_phase_waits_for_bytes_not_yet_copied() {
    // 512 bytes expected, 256 copied: every thread arrived and the phase
    // still has not completed (no wait: it never would); the 256 copied
    // bytes are there.
    let (out, _, flag) = run(512, &[256], false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(flag, 0);
    assert_eq!(out, (0..64).collect::<Vec<u32>>());
}

#[test]
fn a_bulk_copy_of_a_size_not_a_multiple_of_16_is_a_fault() {
    let err = run(24, &[24], true).expect_err("24 bytes");
    assert!(
        err.contains("cp.async.bulk of 24 bytes: the size must be a multiple of 16"),
        "{err}"
    );
}
