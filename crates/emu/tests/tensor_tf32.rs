//! TensorFloat-32: `cvt.{rna,rn,rz}.tf32.f32` and `wmma` m16n16k8 with tf32
//! multiplicands (what `nvcuda::wmma` with `precision::tf32` compiles to),
//! against a CPU reference: D = C + A B with A and B read as tf32 (the
//! multiplier ignores the low 13 bits) and the sum taken in f32, k
//! ascending (the emulator's order; see the warp's tensor module).

mod common;

use common::{buffer, run_text};

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// One warp: A (16 x 8, row-major, ld 8) and B (8 x 16, column-major, ld
/// 8) rounded to tf32 with `cvt.{round}.tf32.f32` element by element after
/// the loads, C (16 x 16 f32, row-major) loaded as the accumulator, D stored
/// row-major.
fn kernel(round: &str) -> String {
    let cvt = |frag: &str| {
        (0..4)
            .map(|i| format!("  cvt.{round}.tf32.f32 %{frag}{i}, %{frag}{i};\n"))
            .collect::<String>()
    };
    format!(
        r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{{
  .reg .b32 %a<4>;
  .reg .b32 %b<4>;
  .reg .f32 %c<8>;
  .reg .f32 %d<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u64 %rd4, [d];
  wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {{%a0, %a1, %a2, %a3}}, [%rd1], 8;
  wmma.load.b.sync.aligned.col.m16n16k8.global.tf32 {{%b0, %b1, %b2, %b3}}, [%rd2], 8;
{}{}  wmma.load.c.sync.aligned.row.m16n16k8.global.f32 {{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}}, [%rd3], 16;
  wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}}, {{%a0, %a1, %a2, %a3}}, {{%b0, %b1, %b2, %b3}}, {{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}};
  wmma.store.d.sync.aligned.row.m16n16k8.global.f32 [%rd4], {{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}}, 16;
  ret;
}}
"#,
        cvt("a"),
        cvt("b")
    )
}

const SPEC: &str = r#"source = "k.ptx"
kernel = "k"
grid = [1]
block = [32]
[[arg]]
name = "a"
type = "f32*"
len = 128
init = { random = { seed = 7, lo = -2.0, hi = 2.0 } }
[[arg]]
name = "b"
type = "f32*"
len = 128
init = { random = { seed = 8, lo = -2.0, hi = 2.0 } }
[[arg]]
name = "c"
type = "f32*"
len = 256
init = { random = { seed = 9, lo = -1.0, hi = 1.0 } }
[[arg]]
name = "d"
type = "f32*"
len = 256
"#;

/// An f32 rounded to tf32 by hand: `away` ties away from zero, else to
/// even (finite inputs only).
fn tf32(x: f32, away: bool) -> f32 {
    let bits = x.to_bits();
    let rest = bits & 0x1fff;
    let down = bits & !0x1fff;
    let up = if away {
        rest >= 0x1000
    } else {
        rest > 0x1000 || (rest == 0x1000 && down & 0x2000 != 0)
    };
    f32::from_bits(if up { down + 0x2000 } else { down })
}

fn check(round: &str, convert: fn(f32) -> f32) {
    let r = run_text(&kernel(round), SPEC).unwrap_or_else(|e| panic!("{round}: {e}"));
    let (a, b, c, d) = (
        f32s(buffer(&r, "a")),
        f32s(buffer(&r, "b")),
        f32s(buffer(&r, "c")),
        f32s(buffer(&r, "d")),
    );
    for i in 0..16 {
        for j in 0..16 {
            // B is column-major: element (k, j) at j * 8 + k.
            let want = (0..8).fold(c[i * 16 + j], |acc, k| {
                acc + convert(a[i * 8 + k]) * convert(b[j * 8 + k])
            });
            let got = d[i * 16 + j];
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{round}: D[{i}][{j}] = {got}, want {want}"
            );
        }
    }
}

#[test]
fn wmma_tf32_multiplies_the_rounded_inputs() {
    check("rna", |x| tf32(x, true));
    check("rn", |x| tf32(x, false));
    // Truncation: the multiplier would drop the low bits anyway.
    check("rz", |x| f32::from_bits(x.to_bits() & !0x1fff));
}
