//! Integer `mma.sync` with 8-bit multiplicands against a CPU reference
//! written from the PTX ISA ("Warp-level matrix multiply-accumulate
//! instructions: mma", integer type, and the fragment layouts of "Matrix
//! fragments for mma.m8n8k16 / mma.m16n8k16 with integer type /
//! mma.m16n8k32").
//!
//! Each lane's fragment registers come from random buffers (`a`, `b`, `c`,
//! lane-major); the test decodes them into A, B and C with the ISA's
//! row/column formulas, computes D = A B + C exactly, and compares every
//! lane's D registers. `.satfinite` clamps to the s32 range, otherwise the
//! sum wraps (ISA: "If .satfinite is not specified, the accumulated value is
//! wrapped").

mod common;

use std::path::Path;

use common::{buffer, u32s};
use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    k: usize,
    a_signed: bool,
    b_signed: bool,
    satfinite: bool,
    /// C filled with this value instead of random (to force overflow).
    c_fill: Option<i32>,
}

impl Case {
    fn regs(&self) -> (usize, usize, usize) {
        (self.m * self.k / 128, self.k * 8 / 128, self.m * 8 / 32)
    }
}

/// ISA row/column of A element i (groupID g, threadID_in_group t).
fn a_pos(c: &Case, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (c.m, c.k) {
        // m8n8k16: row = groupID; col = threadID_in_group * 4 + i.
        (8, 16) => (g, t * 4 + i),
        // m16n8k16: row = groupID (i < 4) or groupID + 8; col = t * 4 + (i & 3).
        (16, 16) => (if i < 4 { g } else { g + 8 }, t * 4 + (i & 3)),
        // m16n8k32: row = groupID for 0 <= i < 4 || 8 <= i < 12, else + 8;
        // col = t * 4 + (i & 3), + 16 for i >= 8.
        _ => (
            if i < 4 || (8..12).contains(&i) {
                g
            } else {
                g + 8
            },
            t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 },
        ),
    }
}

/// ISA row/column of B element i: row = t * 4 + (i & 3) (+ 16 for i >= 4
/// in m16n8k32), col = groupID.
fn b_pos(t: usize, g: usize, i: usize) -> (usize, usize) {
    (t * 4 + (i & 3) + if i >= 4 { 16 } else { 0 }, g)
}

/// ISA row/column of C/D element i: row = groupID (i < 2) or groupID + 8;
/// col = t * 2 + (i & 1).
fn c_pos(g: usize, t: usize, i: usize) -> (usize, usize) {
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

fn ptx(c: &Case) -> String {
    let (na, nb, nc) = c.regs();
    let list = |p: &str, n: usize| {
        (0..n)
            .map(|i| format!("%{p}{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let t = |s: bool| if s { "s8" } else { "u8" };
    let loads = |p: &str, n: usize, x: usize| {
        (0..n)
            .map(|i| format!("ld.global.u32 %{p}{i}, [%x{x}+{}];", 4 * i))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
         .reg .b64 %x<12>;\n.reg .b32 %l;\n.reg .b32 %a<4>;\n.reg .b32 %b<2>;\n.reg .b32 %c<4>;\n.reg .b32 %d<4>;\n\
         ld.param.u64 %x0, [pa];\nld.param.u64 %x1, [pb];\nld.param.u64 %x2, [pc];\nld.param.u64 %x3, [pd];\n\
         mov.u32 %l, %laneid;\n\
         mul.wide.u32 %x4, %l, {sa};\nadd.s64 %x5, %x0, %x4;\n\
         mul.wide.u32 %x4, %l, {sb};\nadd.s64 %x6, %x1, %x4;\n\
         mul.wide.u32 %x4, %l, {sc};\nadd.s64 %x7, %x2, %x4;\nadd.s64 %x8, %x3, %x4;\n\
         {la}\n{lb}\n{lc}\n\
         mma.sync.aligned.m{m}n8k{k}.row.col{sat}.s32.{ta}.{tb}.s32 {{{d}}}, {{{a}}}, {{{b}}}, {{{cc}}};\n\
         {st}\nret;\n}}\n",
        sa = 4 * na,
        sb = 4 * nb,
        sc = 4 * nc,
        la = loads("a", na, 5),
        lb = loads("b", nb, 6),
        lc = loads("c", nc, 7),
        m = c.m,
        k = c.k,
        sat = if c.satfinite { ".satfinite" } else { "" },
        ta = t(c.a_signed),
        tb = t(c.b_signed),
        d = list("d", nc),
        a = list("a", na),
        b = list("b", nb),
        cc = list("c", nc),
        st = (0..nc)
            .map(|i| format!("st.global.u32 [%x8+{}], %d{i};", 4 * i))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn check(c: Case) {
    let (na, nb, nc) = c.regs();
    let c_init = match c.c_fill {
        Some(v) => format!("{{ fill = {v} }}"),
        None => "{ random = { seed = 5, lo = -2147483648, hi = 2147483647 } }".into(),
    };
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         [[arg]]\nname = \"a\"\ntype = \"u32*\"\nlen = {}\ninit = {{ random = {{ seed = 3, lo = 0, hi = 4294967295 }} }}\n\
         [[arg]]\nname = \"b\"\ntype = \"u32*\"\nlen = {}\ninit = {{ random = {{ seed = 4, lo = 0, hi = 4294967295 }} }}\n\
         [[arg]]\nname = \"c\"\ntype = \"i32*\"\nlen = {}\ninit = {c_init}\n\
         [[arg]]\nname = \"d\"\ntype = \"u32*\"\nlen = {}\n",
        32 * na,
        32 * nb,
        32 * nc,
        32 * nc
    );
    let spec = emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
    let text = ptx(&c);
    let r = run_ptx(
        &text,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .unwrap_or_else(|e| panic!("{c:?}: {e}\n{text}"));
    let (av, bv, cv) = (
        u32s(buffer(&r, "a")),
        u32s(buffer(&r, "b")),
        u32s(buffer(&r, "c")),
    );
    let elem = |v: &[u32], regs: usize, l: usize, i: usize, signed: bool| {
        let byte = (v[l * regs + i / 4] >> (8 * (i % 4))) as u8;
        if signed {
            byte as i8 as i64
        } else {
            byte as i64
        }
    };
    let mut am = vec![[0i64; 32]; c.m];
    let mut bm = vec![[0i64; 8]; c.k];
    let mut cm = vec![[0i64; 8]; c.m];
    for l in 0..32 {
        let (g, t) = (l >> 2, l % 4);
        for i in 0..c.m * c.k / 32 {
            let (row, col) = a_pos(&c, g, t, i);
            am[row][col] = elem(&av, na, l, i, c.a_signed);
        }
        for i in 0..c.k / 4 {
            let (row, col) = b_pos(t, g, i);
            bm[row][col] = elem(&bv, nb, l, i, c.b_signed);
        }
        for i in 0..nc {
            let (row, col) = c_pos(g, t, i);
            cm[row][col] = cv[l * nc + i] as i32 as i64;
        }
    }
    let d = u32s(buffer(&r, "d"));
    for l in 0..32 {
        let (g, t) = (l >> 2, l % 4);
        for i in 0..nc {
            let (row, col) = c_pos(g, t, i);
            let exact: i64 =
                cm[row][col] + (0..c.k).map(|kk| am[row][kk] * bm[kk][col]).sum::<i64>();
            let want = if c.satfinite {
                exact.clamp(i32::MIN.into(), i32::MAX.into()) as i32
            } else {
                exact as i32 // two's-complement wrap
            };
            assert_eq!(d[l * nc + i] as i32, want, "{c:?} lane {l} d{i}");
        }
    }
}

#[test]
fn mma_8bit_integer_shapes_and_signedness() {
    for (m, k) in [(16, 32), (16, 16), (8, 16)] {
        for (a_signed, b_signed) in [(true, true), (false, false), (true, false), (false, true)] {
            for satfinite in [false, true] {
                check(Case {
                    m,
                    k,
                    a_signed,
                    b_signed,
                    satfinite,
                    c_fill: None,
                });
            }
        }
    }
}

/// C at the top of the s32 range: positive sums overflow, negative ones
/// do not; .satfinite clamps, plain wraps.
#[test]
fn mma_8bit_integer_overflow() {
    for satfinite in [false, true] {
        for c_fill in [i32::MAX - 1000, i32::MIN + 1000] {
            check(Case {
                m: 16,
                k: 32,
                a_signed: false,
                b_signed: true,
                satfinite,
                c_fill: Some(c_fill),
            });
        }
    }
}

/// The rest of the ISA's mma table (see `TensorOp` decoding) is refused
/// with a reason, at parse time or when the instruction is reached, never
/// run with a wrong answer.
#[test]
fn unsupported_mma_forms_fail_with_a_reason() {
    let forms = [
        // (instruction, what the error must say)
        (
            "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%d0,%d1,%d2,%d3}, {%d0,%d1}, {%d1}, {%d0,%d1,%d2,%d3};",
            "mma.m16n8k8.f64.f64 is not emulated",
        ),
        (
            "mma.sync.aligned.m8n8k4.row.col.f32.f64.f64.f32 {%f0,%f1}, {%d0}, {%d1}, {%f0,%f1};",
            "all four .f64 run",
        ),
        (
            "mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%d0,%d1}, {%d0}, {%d1}, {%d0,%d1};",
            "rounding .rz is not emulated",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%f0,%f1,%f2,%f3};",
            "mma.tf32.tf32 is not emulated",
        ),
        (
            "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1}, {%r2,%r3}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};",
            "layouts other than .row.col",
        ),
        (
            "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
            "mma.m16n8k64.s4.s4 is not emulated",
        ),
        (
            "mma.sync.aligned.m8n8k32.row.col.s32.u8.u8.s32 {%r0,%r1}, {%r0}, {%r1}, {%r0,%r1};",
            "mma.m8n8k32.u8.u8 is not emulated",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%f0,%f1,%f2,%f3};",
            ".satfinite on a floating-point form",
        ),
        (
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.u4.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
            "mma.s8.u4 is not emulated",
        ),
    ];
    for (inst, why) in forms {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<4>;\n.reg .f32 %f<8>;\n.reg .f64 %d<4>;\n{inst}\nret;\n}}\n"
        );
        let spec_text = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n";
        let spec = emu::spec::parse(spec_text, Path::new("/k.toml"), &[]).expect("spec");
        let e = run_ptx(
            &text,
            "k.ptx",
            &spec,
            LaunchOptions::default(),
            &mut NoObserver,
        )
        .expect_err(inst)
        .to_string();
        assert!(e.contains(why), "{inst}: {e}");
    }
}
