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

/// Runs a kernel of buffers a, b, c and d: their values after the launch.
fn run_abcd(ptx: &str, spec: &str) -> [Vec<f32>; 4] {
    let r = run_text(ptx, spec).unwrap_or_else(|e| panic!("{e}"));
    ["a", "b", "c", "d"].map(|name| f32s(buffer(&r, name)))
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

/// The launch spec of a one-warp kernel with random a, b, c of `a`, `b`
/// and `c` floats and d of `c` floats.
fn spec(a: usize, b: usize, c: usize) -> String {
    let arg = |name: &str, len: usize, seed: u32, bound: f32| {
        let init = if seed == 0 {
            String::new()
        } else {
            format!(
                "init = {{ random = {{ seed = {seed}, lo = -{bound:.1}, hi = {bound:.1} }} }}\n"
            )
        };
        format!("[[arg]]\nname = \"{name}\"\ntype = \"f32*\"\nlen = {len}\n{init}")
    };
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n{}{}{}{}",
        arg("a", a, 7, 2.0),
        arg("b", b, 8, 2.0),
        arg("c", c, 9, 1.0),
        arg("d", c, 0, 0.0)
    )
}

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
    let [a, b, c, d] = run_abcd(&kernel(round), &spec(128, 128, 256));
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

/// `mma.sync.aligned.m16n8k{k}.row.col.f32.tf32.tf32.f32`, k 8 or 4, with
/// each lane's fragments loaded by the PTX ISA's table ("Matrix fragments
/// for mma.m16n8k8", .tf32; m16n8k4 is its first half), with g = lane / 4
/// and t = lane % 4: a_i at row g + 8 (i % 2), column t + 4 (i / 2); b_i at
/// row t + 4 i, column g; c_i and d_i at row g + 8 (i / 2), column 2t +
/// i % 2. A is 16 x k, B k x 8 and C, D 16 x 8, all row-major.
fn mma_kernel(k: usize) -> String {
    let (na, nb) = (k / 2, k / 4);
    // a_i: + 8 rows (i % 2 = 1) is 8 k elements of 4 bytes; + 4 columns
    // (i / 2 = 1) 16 bytes. b_i: + 4 rows is 4 x 8 elements of 4 bytes.
    let a_loads: String = (0..na)
        .map(|i| {
            format!(
                "  ld.global.b32 %a{i}, [%rd3+{}];\n",
                (i % 2) * 8 * k * 4 + (i / 2) * 16
            )
        })
        .collect();
    let b_loads: String = (0..nb)
        .map(|i| format!("  ld.global.b32 %b{i}, [%rd6+{}];\n", i * 128))
        .collect();
    let list = |p: &str, n: usize| {
        let v: Vec<String> = (0..n).map(|i| format!("%{p}{i}")).collect();
        v.join(", ")
    };
    format!(
        r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{{
  .reg .b32 %a<{na}>;
  .reg .b32 %b<{nb}>;
  .reg .f32 %c<4>;
  .reg .f32 %d<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  mad.lo.u32 %r4, %r2, {k}, %r3;
  mad.lo.u32 %r5, %r3, 8, %r2;
  shl.b32 %r6, %r3, 1;
  mad.lo.u32 %r7, %r2, 8, %r6;
  ld.param.u64 %rd1, [a];
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
{a_loads}  ld.param.u64 %rd4, [b];
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd4, %rd5;
{b_loads}  ld.param.u64 %rd7, [c];
  mul.wide.u32 %rd8, %r7, 4;
  add.s64 %rd9, %rd7, %rd8;
  ld.global.f32 %c0, [%rd9];
  ld.global.f32 %c1, [%rd9+4];
  ld.global.f32 %c2, [%rd9+256];
  ld.global.f32 %c3, [%rd9+260];
  mma.sync.aligned.m16n8k{k}.row.col.f32.tf32.tf32.f32 {{%d0, %d1, %d2, %d3}}, {{{}}}, {{{}}}, {{%c0, %c1, %c2, %c3}};
  ld.param.u64 %rd10, [d];
  add.s64 %rd11, %rd10, %rd8;
  st.global.f32 [%rd11], %d0;
  st.global.f32 [%rd11+4], %d1;
  st.global.f32 [%rd11+256], %d2;
  st.global.f32 [%rd11+260], %d3;
  ret;
}}
"#,
        list("a", na),
        list("b", nb),
    )
}

/// Runs an m16n8k`k` tf32 `mma` kernel (A 16 x k, B k x 8, C and D 16 x 8,
/// row-major) and checks D against C + A B with the inputs read as tf32.
fn check_mma(ptx: &str, k: usize) {
    let [a, b, c, d] = run_abcd(ptx, &spec(16 * k, 8 * k, 128));
    // The multiplier reads only the tf32 bits of unconverted inputs.
    let tf32 = |x: f32| f32::from_bits(x.to_bits() & !0x1fff);
    for i in 0..16 {
        for j in 0..8 {
            let want = (0..k).fold(c[i * 8 + j], |acc, kk| {
                acc + tf32(a[i * k + kk]) * tf32(b[kk * 8 + j])
            });
            let got = d[i * 8 + j];
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "m16n8k{k}: D[{i}][{j}] = {got}, want {want}"
            );
        }
    }
}

#[test]
fn mma_sync_tf32_follows_the_isa_fragments() {
    check_mma(&mma_kernel(8), 8);
    check_mma(&mma_kernel(4), 4);
}
