//! Tensor-core instructions against CPU references: the corpus wmma GEMM
//! (`kernels/tensor_wmma`), and hand-written `ldmatrix` + `mma.sync`
//! kernels for the m16n8k16 / m16n8k8 shapes with f16 and bf16 inputs.
//!
//! Inputs are f16 (or bf16) values, converted exactly to f32. Two
//! references: the emulator's stated summation order (f32, k ascending,
//! starting from C; see `emu::exec::warp`'s tensor module), checked bit for
//! bit, and an order-free f64 sum, checked within 1e-5 relative error (f32
//! accumulation over K <= 64 products bounded by 1) or, for f16 results,
//! within one f16 rounding (2^-11 relative) per accumulation step.

mod common;

use std::path::Path;

use common::{buffer, f32s, run};
use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;
use half::{bf16, f16};

fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn h(bits: u16) -> f32 {
    f16::from_bits(bits).to_f32()
}

/// |got - want| <= tol * (1 + |want|)
fn near(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * (1.0 + want.abs())
}

#[test]
fn wmma_gemm_f32_and_f16_accumulation() {
    let n = 64;
    let r = run("tensor_wmma", &[]);
    let a = halves(buffer(&r, "a"));
    let b = halves(buffer(&r, "b"));
    let c32 = f32s(buffer(&r, "c32"));
    let c16 = halves(buffer(&r, "c16"));
    for i in 0..n {
        for j in 0..n {
            // c32 = A B, both row-major.
            let mut acc = 0f32;
            let mut exact = 0f64;
            for k in 0..n {
                let p = h(a[i * n + k]) * h(b[k * n + j]);
                acc += p;
                exact += p as f64;
            }
            let got = c32[i * n + j];
            assert_eq!(got.to_bits(), acc.to_bits(), "c32[{i}][{j}] order");
            assert!(
                near(got as f64, exact, 1e-5),
                "c32[{i}][{j}] {got} vs {exact}"
            );
            // c16 = A' B' with A', B' read column-major; f16 accumulator
            // rounded after each 16-deep mma; stored column-major.
            let mut acc16 = f16::ZERO;
            let mut exact = 0f64;
            for k0 in (0..n).step_by(16) {
                let mut s = acc16.to_f32();
                for k in k0..k0 + 16 {
                    let p = h(a[k * n + i]) * h(b[j * n + k]);
                    s += p;
                    exact += p as f64;
                }
                acc16 = f16::from_f32(s);
            }
            let got = c16[j * n + i];
            assert_eq!(got, acc16.to_bits(), "c16[{i}][{j}] order");
            // Four roundings to f16 of partial sums bounded by 64 in magnitude.
            let g = h(got) as f64;
            assert!(
                (g - exact).abs() <= 4.0 * 64.0 * 2f64.powi(-11),
                "c16[{i}][{j}] {g} vs {exact}"
            );
        }
    }
}

/// One `mma.sync` configuration: K (8 or 16), bf16 multiplicands, f32 (or
/// f16) accumulator and result.
#[derive(Clone, Copy, Debug)]
struct Mma {
    k: usize,
    bf16: bool,
    f32_acc: bool,
}

/// A one-warp kernel: A (16 x K, row-major) and B (K x 8, row-major) are
/// copied to shared memory, loaded with `ldmatrix` (A: .x4 or .x2; B:
/// .trans, the pattern of the PTX ISA's fragment figures), multiplied with
/// C = 1.0 everywhere, and D is stored row-major (16 x 8) from the
/// fragment layout of the ISA's C/D figure.
fn mma_ptx(m: Mma) -> String {
    let ab = if m.bf16 { "bf16" } else { "f16" };
    let (a_num, b_num) = if m.k == 16 { (4, 2) } else { (2, 1) };
    let a_regs = (0..a_num)
        .map(|i| format!("%a{i}"))
        .collect::<Vec<_>>()
        .join(",");
    let b_regs = (0..b_num)
        .map(|i| format!("%b{i}"))
        .collect::<Vec<_>>()
        .join(",");
    // A rows are K halves (2K bytes); lane l addresses row l%16, and for
    // K = 16 the second 8-column half for lanes 16-31.
    let a_row_bytes = 2 * m.k;
    let (dc, body_store) = if m.f32_acc {
        (
            "mma.sync.aligned.SHAPE.row.col.f32.AB.AB.f32 {%d0,%d1,%d2,%d3}, {AREGS}, {BREGS}, {%one,%one,%one,%one};",
            "mul.lo.u32 %r20, %r18, 32;\nadd.u32 %r20, %r20, %r21;\ncvt.u64.u32 %x20, %r20;\nadd.s64 %x21, %x3, %x20;\n\
             st.global.v2.f32 [%x21], {%d0,%d1};\nst.global.v2.f32 [%x21+256], {%d2,%d3};",
        )
    } else {
        (
            "mma.sync.aligned.SHAPE.row.col.f16.AB.AB.f16 {%h0,%h1}, {AREGS}, {BREGS}, {%oneh,%oneh};",
            "mul.lo.u32 %r20, %r18, 16;\nshr.u32 %r21, %r21, 1;\nadd.u32 %r20, %r20, %r21;\ncvt.u64.u32 %x20, %r20;\nadd.s64 %x21, %x3, %x20;\n\
             st.global.b32 [%x21], %h0;\nst.global.b32 [%x21+128], %h1;",
        )
    };
    let mma = dc
        .replace("SHAPE", &format!("m16n8k{}", m.k))
        .replace("AB", ab)
        .replace("AREGS", &a_regs)
        .replace("BREGS", &b_regs);
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)\n{{\n\
         .reg .b64 %x<30>;\n.reg .b32 %r<30>;\n.reg .b32 %a<4>;\n.reg .b32 %b<2>;\n.reg .b32 %h<2>;\n.reg .f32 %d<4>;\n.reg .f32 %one;\n.reg .b32 %oneh;\n.reg .pred %p<2>;\n\
         .shared .align 16 .b8 sa[512];\n.shared .align 16 .b8 sb[256];\n\
         ld.param.u64 %x1, [pa];\nld.param.u64 %x2, [pb];\nld.param.u64 %x3, [pc];\n\
         mov.u32 %r1, %tid.x;\nmul.wide.u32 %x4, %r1, 16;\n\
         setp.lt.u32 %p0, %r1, {a_copy};\n@%p0 add.s64 %x5, %x1, %x4;\n@%p0 ld.global.v4.u32 {{%r2,%r3,%r4,%r5}}, [%x5];\nmov.u64 %x6, sa;\n@%p0 add.s64 %x7, %x6, %x4;\n@%p0 st.shared.v4.u32 [%x7], {{%r2,%r3,%r4,%r5}};\n\
         setp.lt.u32 %p1, %r1, {b_copy};\n@%p1 add.s64 %x5, %x2, %x4;\n@%p1 ld.global.v4.u32 {{%r2,%r3,%r4,%r5}}, [%x5];\nmov.u64 %x8, sb;\n@%p1 add.s64 %x7, %x8, %x4;\n@%p1 st.shared.v4.u32 [%x7], {{%r2,%r3,%r4,%r5}};\n\
         bar.sync 0;\n\
         and.b32 %r6, %r1, 15;\nshr.u32 %r7, %r1, 4;\nmul.lo.u32 %r8, %r6, {a_row_bytes};\nmul.lo.u32 %r9, %r7, 16;\nadd.u32 %r10, %r8, %r9;\ncvt.u64.u32 %x9, %r10;\nadd.s64 %x10, %x6, %x9;\n\
         ldmatrix.sync.aligned.m8n8.x{a_num}.shared.b16 {{{a_regs}}}, [%x10];\n\
         mul.lo.u32 %r11, %r6, 16;\ncvt.u64.u32 %x11, %r11;\nadd.s64 %x12, %x8, %x11;\n\
         ldmatrix.sync.aligned.m8n8.x{b_num}.trans.shared.b16 {{{b_regs}}}, [%x12];\n\
         mov.f32 %one, 0f3F800000;\nmov.b32 %oneh, 0x3C003C00;\n\
         {mma}\n\
         shr.u32 %r18, %r1, 2;\nand.b32 %r19, %r1, 3;\nmul.lo.u32 %r21, %r19, 8;\n\
         {body_store}\nret;\n}}\n",
        a_copy = 16 * m.k * 2 / 16,
        b_copy = m.k * 8 * 2 / 16,
    )
}

fn run_mma(m: Mma) {
    let ptx = mma_ptx(m);
    let ty = if m.bf16 { "bf16*" } else { "f16*" };
    let out_ty = if m.f32_acc { "f32*" } else { "f16*" };
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         [[arg]]\nname = \"a\"\ntype = \"{ty}\"\nlen = {}\ninit = {{ random = {{ seed = 7, lo = -2.0, hi = 2.0 }} }}\n\
         [[arg]]\nname = \"b\"\ntype = \"{ty}\"\nlen = {}\ninit = {{ random = {{ seed = 8, lo = -2.0, hi = 2.0 }} }}\n\
         [[arg]]\nname = \"c\"\ntype = \"{out_ty}\"\nlen = 128\n",
        16 * m.k,
        m.k * 8
    );
    let spec = emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
    let r = run_ptx(
        &ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .unwrap_or_else(|e| panic!("{m:?}: {e}\n{ptx}"));
    let conv = |bits: u16| {
        if m.bf16 {
            bf16::from_bits(bits).to_f32()
        } else {
            h(bits)
        }
    };
    let a: Vec<f32> = halves(buffer(&r, "a")).into_iter().map(conv).collect();
    let b: Vec<f32> = halves(buffer(&r, "b")).into_iter().map(conv).collect();
    let out = buffer(&r, "c");
    for i in 0..16 {
        for j in 0..8 {
            let mut acc = 1f32;
            let mut exact = 1f64;
            for k in 0..m.k {
                let p = a[i * m.k + k] * b[k * 8 + j];
                acc += p;
                exact += p as f64;
            }
            let e = i * 8 + j;
            if m.f32_acc {
                let got = f32s(out)[e];
                assert_eq!(got.to_bits(), acc.to_bits(), "{m:?} d[{i}][{j}] order");
                assert!(
                    near(got as f64, exact, 1e-5),
                    "{m:?} d[{i}][{j}] {got} vs {exact}"
                );
            } else {
                let got = halves(out)[e];
                assert_eq!(got, f16::from_f32(acc).to_bits(), "{m:?} d[{i}][{j}] order");
                assert!(
                    near(h(got) as f64, exact, 2f64.powi(-10)),
                    "{m:?} d[{i}][{j}]"
                );
            }
        }
    }
}

#[test]
fn mma_sync_m16n8k16_and_m16n8k8_through_ldmatrix() {
    for k in [16, 8] {
        for bf16 in [false, true] {
            for f32_acc in [true, false] {
                // bf16 multiplicands take only an f32 accumulator.
                if bf16 && !f32_acc {
                    continue;
                }
                run_mma(Mma { k, bf16, f32_acc });
            }
        }
    }
}

/// ldmatrix x1/x2/x4 with and without .trans, and stmatrix, against the
/// ISA's rule: lane l's register j holds row l/4, columns 2(l%4), 2(l%4)+1
/// of matrix j (of its transpose with .trans); lanes 8j..8j+8 address the
/// rows of matrix j. Rows sit at a lane-dependent, scrambled offset.
#[test]
fn ldmatrix_and_stmatrix_move_8x8_tiles() {
    for num in [1usize, 2, 4] {
        for trans in [false, true] {
            let regs = (0..num)
                .map(|i| format!("%m{i}"))
                .collect::<Vec<_>>()
                .join(",");
            let t = if trans { ".trans" } else { "" };
            // Row q of the 32 rows lives at shared offset ((q * 7) % 32) * 16.
            let ptx = format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pback)\n{{\n\
                 .reg .b64 %x<20>;\n.reg .b32 %r<20>;\n.reg .b32 %m<4>;\n.shared .align 16 .b8 sm[512];\n.shared .align 16 .b8 sm2[512];\n\
                 ld.param.u64 %x1, [pin];\nld.param.u64 %x2, [pout];\nld.param.u64 %x3, [pback];\nmov.u32 %r1, %tid.x;\n\
                 mul.lo.u32 %r2, %r1, 7;\nand.b32 %r2, %r2, 31;\nmul.wide.u32 %x4, %r2, 16;\nmov.u64 %x5, sm;\nadd.s64 %x6, %x5, %x4;\n\
                 mul.wide.u32 %x7, %r1, 16;\nadd.s64 %x8, %x1, %x7;\nld.global.v4.u32 {{%r3,%r4,%r5,%r6}}, [%x8];\nst.shared.v4.u32 [%x6], {{%r3,%r4,%r5,%r6}};\n\
                 bar.sync 0;\n\
                 ldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 {{{regs}}}, [%x6];\n\
                 mul.wide.u32 %x9, %r1, {stride};\nadd.s64 %x10, %x2, %x9;\n{stores}\n\
                 mov.u64 %x11, sm2;\nadd.s64 %x12, %x11, %x4;\n\
                 stmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 [%x12], {{{regs}}};\n\
                 bar.sync 0;\nld.shared.v4.u32 {{%r3,%r4,%r5,%r6}}, [%x12];\nadd.s64 %x13, %x3, %x7;\nst.global.v4.u32 [%x13], {{%r3,%r4,%r5,%r6}};\nret;\n}}\n",
                stride = 4 * num,
                stores = (0..num)
                    .map(|j| format!("st.global.b32 [%x10+{}], %m{j};", 4 * j))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
            let spec_text = format!(
                "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
                 [[arg]]\nname = \"in\"\ntype = \"u16*\"\nlen = 256\ninit = {{ random = {{ seed = 3, lo = 0, hi = 65535 }} }}\n\
                 [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = {}\n\
                 [[arg]]\nname = \"back\"\ntype = \"u16*\"\nlen = 256\n",
                32 * num
            );
            let spec = emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
            let r = run_ptx(
                &ptx,
                "k.ptx",
                &spec,
                LaunchOptions::default(),
                &mut NoObserver,
            )
            .unwrap_or_else(|e| panic!("x{num}{t}: {e}"));
            // Thread q stored its input row q (8 halves) at the row address it
            // later gives ldmatrix: matrix j row i is input row 8j + i.
            let input = halves(buffer(&r, "in"));
            let elem = |j: usize, row: usize, col: usize| input[(8 * j + row) * 8 + col] as u32;
            let out = common::u32s(buffer(&r, "out"));
            for l in 0..32 {
                for j in 0..num {
                    let (row, col) = (l / 4, 2 * (l % 4));
                    let want = if trans {
                        elem(j, col, row) | (elem(j, col + 1, row) << 16)
                    } else {
                        elem(j, row, col) | (elem(j, row, col + 1) << 16)
                    };
                    assert_eq!(out[l * num + j], want, "x{num}{t} lane {l} reg {j}");
                }
            }
            // stmatrix with the same addresses and layout writes the rows back.
            let back = halves(buffer(&r, "back"));
            for q in 0..8 * num {
                assert_eq!(
                    back[q * 8..q * 8 + 8],
                    input[q * 8..q * 8 + 8],
                    "x{num}{t} row {q}"
                );
            }
        }
    }
}
