//! `createpolicy` makes an opaque cache policy that loads and stores with
//! `.L2::cache_hint` take; hints change no value, so a hinted load reads
//! what a plain one reads, and `.cvt` passes an access property through.

mod common;

use common::{buffer, run_text, u32s};

const SPEC: &str = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
    [[arg]]\nname = \"x\"\ntype = \"u32*\"\nlen = 32\ninit = \"iota\"\n\
    [[arg]]\nname = \"y\"\ntype = \"u32*\"\nlen = 96\n";

/// Each lane loads x[tid] with three policies and stores the sum at y[tid],
/// and the low words of the `.cvt` policy (of 0x1234) and of a fractional
/// one at y[32 + tid] and y[64 + tid].
const KERNEL: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 x, .param .u64 y)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  createpolicy.fractional.L2::evict_last.b64 %rd6, 0f3F800000;
  createpolicy.range.global.L2::evict_first.L2::evict_unchanged.b64 %rd7, [%rd1], 64, 128;
  mov.u64 %rd8, 4660;
  createpolicy.cvt.L2.b64 %rd9, %rd8;
  ld.global.L2::cache_hint.u32 %r2, [%rd4], %rd6;
  ld.global.L2::cache_hint.u32 %r3, [%rd4], %rd7;
  ld.global.nc.L1::no_allocate.L2::256B.u32 %r4, [%rd4];
  add.u32 %r5, %r2, %r3;
  add.u32 %r5, %r5, %r4;
  st.global.L2::cache_hint.u32 [%rd5], %r5, %rd9;
  cvt.u32.u64 %r6, %rd9;
  st.global.u32 [%rd5+128], %r6;
  cvt.u32.u64 %r7, %rd6;
  st.global.u32 [%rd5+256], %r7;
  ret;
}
"#;

#[test]
fn hinted_accesses_read_and_write_what_plain_ones_do() {
    let r = run_text(KERNEL, SPEC).unwrap_or_else(|e| panic!("{e}"));
    let y = u32s(buffer(&r, "y"));
    for t in 0..32u32 {
        assert_eq!(y[t as usize], 3 * t, "lane {t}");
        assert_eq!(
            y[32 + t as usize],
            0x1234,
            "lane {t}: .cvt passes the property"
        );
    }
    // A fractional policy is some deterministic value, the same in every lane.
    assert!(y[64..].iter().all(|v| *v == y[64]));
}
