//! `wmma` beyond f16 m16n16k16: bf16, u8 / s8 (with and without
//! `.satfinite`), f64 m8n8k4 (`.rn`) and the m32n8k16 / m8n32k16 shapes,
//! what `nvcuda::wmma` fragments of `__nv_bfloat16`, `signed char`,
//! `unsigned char` and `double` compile to. Each case loads A, B and C
//! from memory, multiplies, stores D, and is checked against a CPU
//! reference: D = C + A B, k ascending, in f32 for bf16 and f16 (products
//! are exact there), in exact integers for 8-bit inputs (then clamped or
//! wrapped to s32), with a fused multiply-add per step for f64. The
//! fragments' layout is the emulator's own (the ISA leaves it opaque), so
//! only what a program can observe through load, mma and store is checked;
//! A row- or column-major and B the other way exercise both address orders.

mod common;

use common::{buffer, run_text};

/// One wmma form: shape, PTX types of the multiplicands and accumulators,
/// and the launch spec's element types.
struct Form {
    m: usize,
    n: usize,
    k: usize,
    /// PTX type of A and B (`f16`, `bf16`, `s8`, `u8`, `f64`).
    ab: &'static str,
    /// PTX type of C and D (`f32`, `f16`, `s32`, `f64`).
    acc: &'static str,
}

impl Form {
    fn shape(&self) -> String {
        format!("m{}n{}k{}", self.m, self.n, self.k)
    }

    /// Registers per fragment (ISA "Matrix fragments for WMMA").
    fn regs(&self, rows: usize, cols: usize, ty: &str, multiplicand: bool) -> usize {
        let bits = match ty {
            "s8" | "u8" => 8,
            "f16" | "bf16" => 16,
            _ => 32,
        };
        let per_lane = if multiplicand && ty == "f16" {
            16
        } else {
            rows * cols / 32
        };
        per_lane / (32 / bits).max(1)
    }

    fn reg_class(ty: &str) -> &'static str {
        match ty {
            "f64" => ".f64",
            "f32" => ".f32",
            _ => ".b32",
        }
    }

    fn kernel(&self, a_row: bool, b_row: bool, satfinite: bool) -> String {
        let (m, n, k) = (self.m, self.n, self.k);
        let na = self.regs(m, k, self.ab, true);
        let nb = self.regs(k, n, self.ab, true);
        let nc = self.regs(m, n, self.acc, false);
        let list = |p: &str, n: usize| {
            let v: Vec<String> = (0..n).map(|i| format!("%{p}{i}")).collect();
            format!("{{{}}}", v.join(", "))
        };
        let layout = |row: bool| if row { "row" } else { "col" };
        // Leading dimensions: the packed ones, given explicitly.
        let lda = if a_row { k } else { m };
        let ldb = if b_row { n } else { k };
        let types = if self.ab == "f16" {
            format!("{}.{}", self.acc, self.acc)
        } else {
            format!("{}.{}.{}.{}", self.acc, self.ab, self.ab, self.acc)
        };
        let rn = if self.ab == "f64" { ".rn" } else { "" };
        let sat = if satfinite { ".satfinite" } else { "" };
        let (shape, ab, acc) = (self.shape(), self.ab, self.acc);
        format!(
            r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{{
  .reg {ra} %a<{na}>;
  .reg {ra} %b<{nb}>;
  .reg {rc} %c<{nc}>;
  .reg {rc} %d<{nc}>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u64 %rd4, [d];
  wmma.load.a.sync.aligned.{la}.{shape}.global.{ab} {fa}, [%rd1], {lda};
  wmma.load.b.sync.aligned.{lb}.{shape}.global.{ab} {fb}, [%rd2], {ldb};
  wmma.load.c.sync.aligned.row.{shape}.global.{acc} {fc}, [%rd3], {n};
  wmma.mma.sync.aligned.{la}.{lb}.{shape}.{types}{rn}{sat} {fd}, {fa}, {fb}, {fc};
  wmma.store.d.sync.aligned.row.{shape}.global.{acc} [%rd4], {fd}, {n};
  ret;
}}
"#,
            ra = Self::reg_class(ab),
            rc = Self::reg_class(acc),
            la = layout(a_row),
            lb = layout(b_row),
            fa = list("a", na),
            fb = list("b", nb),
            fc = list("c", nc),
            fd = list("d", nc),
        )
    }

    /// Spec element type and random range of a PTX type.
    fn spec_type(ty: &str) -> (&'static str, &'static str) {
        match ty {
            "f16" => ("f16", "lo = -2.0, hi = 2.0"),
            "bf16" => ("bf16", "lo = -2.0, hi = 2.0"),
            "s8" => ("i8", "lo = -128, hi = 128"),
            "u8" => ("u8", "lo = 0, hi = 256"),
            "s32" => ("i32", "lo = -1000, hi = 1000"),
            "f64" => ("f64", "lo = -1.0, hi = 1.0"),
            _ => ("f32", "lo = -1.0, hi = 1.0"),
        }
    }

    fn spec(&self, c_range: Option<&str>) -> String {
        let arg = |name: &str, ty: &str, len: usize, seed: u32, range: Option<&str>| {
            let (t, r) = Self::spec_type(ty);
            let range = range.unwrap_or(r);
            let init = if seed == 0 {
                String::new()
            } else {
                format!("init = {{ random = {{ seed = {seed}, {range} }} }}\n")
            };
            format!("[[arg]]\nname = \"{name}\"\ntype = \"{t}*\"\nlen = {len}\n{init}")
        };
        let (m, n, k) = (self.m, self.n, self.k);
        format!(
            "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n{}{}{}{}",
            arg("a", self.ab, m * k, 11, None),
            arg("b", self.ab, k * n, 12, None),
            arg("c", self.acc, m * n, 13, c_range),
            arg("d", self.acc, m * n, 0, None),
        )
    }
}

/// Elements of a buffer as f64 (exact for every element type here) and as
/// their raw little-endian integers.
fn values(bytes: &[u8], ty: &str) -> Vec<f64> {
    match ty {
        "f16" => bytes
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        "bf16" => bytes
            .chunks_exact(2)
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        "s8" => bytes.iter().map(|&b| b as i8 as f64).collect(),
        "u8" => bytes.iter().map(|&b| b as f64).collect(),
        "s32" => bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        "f64" => bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        _ => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
    }
}

/// Runs `form` with A and B in the given layouts and checks every element
/// of D against the reference.
fn check(form: &Form, a_row: bool, b_row: bool, satfinite: bool, c_range: Option<&str>) {
    let what = format!(
        "{} {}.{} a {} b {}{}",
        form.shape(),
        form.ab,
        form.acc,
        if a_row { "row" } else { "col" },
        if b_row { "row" } else { "col" },
        if satfinite { " satfinite" } else { "" }
    );
    let r = run_text(&form.kernel(a_row, b_row, satfinite), &form.spec(c_range))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let a = values(buffer(&r, "a"), form.ab);
    let b = values(buffer(&r, "b"), form.ab);
    let c = values(buffer(&r, "c"), form.acc);
    let d = values(buffer(&r, "d"), form.acc);
    let (m, n, k) = (form.m, form.n, form.k);
    let a_at = |i: usize, kk: usize| if a_row { a[i * k + kk] } else { a[kk * m + i] };
    let b_at = |kk: usize, j: usize| if b_row { b[kk * n + j] } else { b[j * k + kk] };
    for i in 0..m {
        for j in 0..n {
            let c0 = c[i * n + j];
            let want = match form.acc {
                "s32" => {
                    let sum = (0..k).fold(c0 as i64, |s, kk| {
                        s + a_at(i, kk) as i64 * b_at(kk, j) as i64
                    });
                    if satfinite {
                        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as f64
                    } else {
                        sum as i32 as f64
                    }
                }
                "f64" => (0..k).fold(c0, |s, kk| a_at(i, kk).mul_add(b_at(kk, j), s)),
                acc => {
                    let v = (0..k).fold(c0 as f32, |s, kk| {
                        s + a_at(i, kk) as f32 * b_at(kk, j) as f32
                    });
                    if acc == "f16" {
                        half::f16::from_f32(v).to_f64()
                    } else {
                        v as f64
                    }
                }
            };
            let got = d[i * n + j];
            assert!(
                got.to_bits() == want.to_bits(),
                "{what}: D[{i}][{j}] = {got}, want {want}"
            );
        }
    }
}

const SHAPES: [(usize, usize, usize); 3] = [(16, 16, 16), (32, 8, 16), (8, 32, 16)];

#[test]
fn bf16_and_f16_at_every_k16_shape() {
    for (m, n, k) in SHAPES {
        for (ab, acc) in [("bf16", "f32"), ("f16", "f32"), ("f16", "f16")] {
            let form = Form { m, n, k, ab, acc };
            check(&form, true, false, false, None);
            check(&form, false, true, false, None);
        }
    }
}

#[test]
fn eight_bit_integers_at_every_k16_shape() {
    for (m, n, k) in SHAPES {
        for ab in ["s8", "u8"] {
            let form = Form {
                m,
                n,
                k,
                ab,
                acc: "s32",
            };
            check(&form, true, false, false, None);
            check(&form, false, true, true, None);
        }
    }
}

#[test]
fn satfinite_clamps_where_the_sum_leaves_s32() {
    // C near the top of the s32 range: u8 products (up to 65,025 each, 16
    // per element) push many sums past it; wrapped without .satfinite.
    let form = Form {
        m: 16,
        n: 16,
        k: 16,
        ab: "u8",
        acc: "s32",
    };
    let near_top = Some("lo = 2147000000, hi = 2147483647");
    check(&form, true, false, true, near_top);
    check(&form, true, false, false, near_top);
}

#[test]
fn f64_m8n8k4_with_round_to_nearest() {
    let form = Form {
        m: 8,
        n: 8,
        k: 4,
        ab: "f64",
        acc: "f64",
    };
    check(&form, true, false, false, None);
    check(&form, false, true, false, None);
}

/// The fault message of a one-instruction kernel body.
fn refusal(body: &str) -> String {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a)\n{{\n  .reg .b32 %r<9>;\n  .reg .f64 %fd<4>;\n  \
         .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [a];\n  {body}\n  ret;\n}}\n"
    );
    let spec = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
                [[arg]]\nname = \"a\"\ntype = \"u32*\"\nlen = 1024\n";
    match run_text(&ptx, spec) {
        Ok(_) => panic!("`{body}` ran"),
        Err(e) => e,
    }
}

#[test]
fn forms_that_do_not_run_say_why() {
    let cases = [
        (
            "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r0}, [%rd1], 32;",
            "wmma runs",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rz {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd0, %fd1};",
            "rounding .rz is not emulated",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.rn {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};",
            "on a form other than f64",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32.satfinite {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};",
            "integer forms only",
        ),
        (
            "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], 16;",
            "8 registers where 4 are expected",
        ),
        (
            "wmma.load.c.sync.aligned.row.m16n16k16.global.f64 {%fd0, %fd1}, [%rd1], 16;",
            "wmma.load.c of F64 at m16n16k16",
        ),
    ];
    for (body, want) in cases {
        let e = refusal(body);
        assert!(e.contains(want), "`{body}`: {e}");
    }
}

/// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64` with each lane's
/// fragments loaded by the layout of the ISA's "Matrix fragments for
/// mma.m8n8k4 with .f64" (g = lane / 4, t = lane % 4): a0 at row g, column
/// t of A (8 x 4); b0 at row t, column g of B (4 x 8); c_i and d_i at row
/// g, column 2t + i of C and D (8 x 8). All row-major.
const MMA_F64: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{
  .reg .f64 %fa, %fb, %c<2>, %e<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  mad.lo.u32 %r4, %r2, 4, %r3;
  mad.lo.u32 %r5, %r3, 8, %r2;
  shl.b32 %r6, %r3, 1;
  mad.lo.u32 %r7, %r2, 8, %r6;
  ld.param.u64 %rd1, [a];
  mul.wide.u32 %rd2, %r4, 8;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f64 %fa, [%rd3];
  ld.param.u64 %rd4, [b];
  mul.wide.u32 %rd5, %r5, 8;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.f64 %fb, [%rd6];
  ld.param.u64 %rd7, [c];
  mul.wide.u32 %rd8, %r7, 8;
  add.s64 %rd9, %rd7, %rd8;
  ld.global.f64 %c0, [%rd9];
  ld.global.f64 %c1, [%rd9+8];
  mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%e0, %e1}, {%fa}, {%fb}, {%c0, %c1};
  ld.param.u64 %rd10, [d];
  add.s64 %rd11, %rd10, %rd8;
  st.global.f64 [%rd11], %e0;
  st.global.f64 [%rd11+8], %e1;
  ret;
}
"#;

#[test]
fn mma_sync_f64_m8n8k4_follows_the_isa_fragments() {
    let form = Form {
        m: 8,
        n: 8,
        k: 4,
        ab: "f64",
        acc: "f64",
    };
    let r = run_text(MMA_F64, &form.spec(None)).unwrap_or_else(|e| panic!("{e}"));
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| values(buffer(&r, n), "f64"));
    for i in 0..8 {
        for j in 0..8 {
            let want = (0..4).fold(c[i * 8 + j], |s, k| a[i * 4 + k].mul_add(b[k * 8 + j], s));
            let got = d[i * 8 + j];
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "D[{i}][{j}] = {got}, want {want}"
            );
        }
    }
    // The wider f64 shapes of sm_90 say so.
    let e = refusal(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%fd0, %fd1, %fd2, %fd3}, {%fd0, %fd1}, {%fd2}, {%fd0, %fd1, %fd2, %fd3};",
    );
    assert!(e.contains("mma.m16n8k4.f64.f64 is not emulated"), "{e}");
}
