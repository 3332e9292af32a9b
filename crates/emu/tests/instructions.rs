//! Single-instruction semantics, data-driven: each case runs one PTX
//! instruction in a one-warp kernel on up to 32 input triples and compares
//! every lane's result bits.

use std::path::Path;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

/// Where the instruction writes: %r4 (b32), %x4 (b64), %f4 (f32), %fd4 (f64), %h4 (b16), %p4 (pred).
#[derive(Clone, Copy)]
enum Dst {
    R,
    X,
    F,
    Fd,
    H,
    P,
}

fn run_op(inst: &str, dst: Dst, inputs: &[[u64; 3]]) -> Vec<u64> {
    let store = match dst {
        Dst::R => "cvt.u64.u32 %x9, %r4;",
        Dst::X => "mov.b64 %x9, %x4;",
        Dst::F => "mov.b32 %r9, %f4;\ncvt.u64.u32 %x9, %r9;",
        Dst::Fd => "mov.b64 %x9, %fd4;",
        Dst::H => "cvt.u64.u16 %x9, %h4;",
        Dst::P => "selp.u64 %x9, 1, 0, %p4;",
    };
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n\
         .reg .b64 %x<10>;\n.reg .b32 %r<10>;\n.reg .f32 %f<10>;\n.reg .f64 %fd<10>;\n.reg .b16 %h<10>;\n.reg .pred %p<10>;\n.shared .align 16 .b8 sm[512];\n\
         ld.param.u64 %x5, [inp];\nld.param.u64 %x6, [out];\nmov.u32 %r8, %tid.x;\nmul.wide.u32 %x7, %r8, 24;\nadd.s64 %x5, %x5, %x7;\n\
         ld.global.u64 %x1, [%x5];\nld.global.u64 %x2, [%x5+8];\nld.global.u64 %x3, [%x5+16];\n\
         cvt.u32.u64 %r1, %x1;\ncvt.u32.u64 %r2, %x2;\ncvt.u32.u64 %r3, %x3;\n\
         mov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\nmov.b32 %f3, %r3;\nmov.b64 %fd1, %x1;\nmov.b64 %fd2, %x2;\nmov.b64 %fd3, %x3;\n\
         cvt.u16.u64 %h1, %x1;\ncvt.u16.u64 %h2, %x2;\ncvt.u16.u64 %h3, %x3;\n\
         setp.ne.u64 %p1, %x1, 0;\nsetp.ne.u64 %p2, %x2, 0;\n\
         {inst}\n{store}\nmul.wide.u32 %x7, %r8, 8;\nadd.s64 %x6, %x6, %x7;\nst.global.u64 [%x6], %x9;\nret;\n}}\n"
    );
    let n = inputs.len();
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|t| t.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    let dir = std::env::temp_dir().join(format!("emu-inst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!(
        "in{:x}.bin",
        inst.len() * 31 + inputs.len() + (bytes.iter().map(|&b| b as usize).sum::<usize>() << 8)
    ));
    std::fs::write(&file, &bytes).expect("write inputs");
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{n}]\n[[arg]]\nname = \"inp\"\ntype = \"u64*\"\nlen = {}\ninit = {{ file = \"{}\" }}\n\
         [[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = {n}\n",
        3 * n,
        file.display()
    );
    let spec = emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
    let r = run_ptx(
        &ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .unwrap_or_else(|e| panic!("{inst}: {e}"));
    let _ = std::fs::remove_file(&file);
    r.buffers[1]
        .bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

/// Check `inst` on each (a, b, c) -> expected.
fn check(inst: &str, dst: Dst, cases: &[(u64, u64, u64, u64)]) {
    let inputs: Vec<[u64; 3]> = cases.iter().map(|&(a, b, c, _)| [a, b, c]).collect();
    let got = run_op(inst, dst, &inputs);
    for (k, &(a, b, c, want)) in cases.iter().enumerate() {
        assert_eq!(
            got[k], want,
            "{inst} with ({a:#x}, {b:#x}, {c:#x}): got {:#x}, want {want:#x}",
            got[k]
        );
    }
}

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}
fn d(x: f64) -> u64 {
    x.to_bits()
}
fn neg(x: i32) -> u64 {
    x as u32 as u64
}

#[test]
fn integer_arithmetic() {
    check(
        "add.s32 %r4, %r1, %r2;",
        Dst::R,
        &[
            (1, 2, 0, 3),
            (0xffff_ffff, 1, 0, 0),
            (0x7fff_ffff, 1, 0, 0x8000_0000),
        ],
    );
    check("sub.s32 %r4, %r1, %r2;", Dst::R, &[(1, 2, 0, neg(-1))]);
    check(
        "add.sat.s32 %r4, %r1, %r2;",
        Dst::R,
        &[
            (0x7fff_ffff, 1, 0, 0x7fff_ffff),
            (neg(-5), neg(i32::MIN), 0, 0x8000_0000),
        ],
    );
    check(
        "mul.lo.s32 %r4, %r1, %r2;",
        Dst::R,
        &[(0x10000, 0x10001, 0, 0x10000)],
    );
    check(
        "mul.hi.s32 %r4, %r1, %r2;",
        Dst::R,
        &[(neg(-2), 3, 0, neg(-1)), (0x4000_0000, 4, 0, 1)],
    );
    check(
        "mul.hi.u32 %r4, %r1, %r2;",
        Dst::R,
        &[(0xffff_ffff, 0xffff_ffff, 0, 0xffff_fffe)],
    );
    check(
        "mul.hi.u64 %x4, %x1, %x2;",
        Dst::X,
        &[(u64::MAX, u64::MAX, 0, u64::MAX - 1), (1 << 63, 4, 0, 2)],
    );
    check(
        "mul.hi.s64 %x4, %x1, %x2;",
        Dst::X,
        &[((-2i64) as u64, 3, 0, u64::MAX), (1 << 62, 8, 0, 2)],
    );
    check(
        "mad.hi.u64 %x4, %x1, %x2, %x3;",
        Dst::X,
        &[(u64::MAX, u64::MAX, 1, u64::MAX)],
    );
    check(
        "mul.wide.s32 %x4, %r1, %r2;",
        Dst::X,
        &[(neg(-2), 3, 0, (-6i64) as u64)],
    );
    check(
        "mul.wide.u32 %x4, %r1, %r2;",
        Dst::X,
        &[(0xffff_ffff, 2, 0, 0x1_ffff_fffe)],
    );
    check("mad.lo.s32 %r4, %r1, %r2, %r3;", Dst::R, &[(3, 4, 5, 17)]);
    check(
        "mad.wide.u32 %x4, %r1, %r2, %x3;",
        Dst::X,
        &[(0x8000_0000, 4, 1, 0x2_0000_0001)],
    );
    check(
        "mul24.lo.u32 %r4, %r1, %r2;",
        Dst::R,
        &[(0x0100_0003, 2, 0, 6)],
    );
    check("sad.u32 %r4, %r1, %r2, %r3;", Dst::R, &[(3, 10, 1, 8)]);
    check(
        "div.s32 %r4, %r1, %r2;",
        Dst::R,
        &[
            (neg(-7), 2, 0, neg(-3)),
            (7, 0, 0, 0xffff_ffff),
            (neg(i32::MIN), neg(-1), 0, 0x8000_0000),
        ],
    );
    check(
        "div.u32 %r4, %r1, %r2;",
        Dst::R,
        &[(7, 2, 0, 3), (0xffff_fffe, 2, 0, 0x7fff_ffff)],
    );
    check(
        "rem.s32 %r4, %r1, %r2;",
        Dst::R,
        &[(neg(-7), 2, 0, neg(-1)), (7, 0, 0, 7)],
    );
    check(
        "min.s32 %r4, %r1, %r2;",
        Dst::R,
        &[(neg(-1), 1, 0, neg(-1))],
    );
    check("min.u32 %r4, %r1, %r2;", Dst::R, &[(neg(-1), 1, 0, 1)]);
    check(
        "max.s64 %x4, %x1, %x2;",
        Dst::X,
        &[((-1i64) as u64, 1, 0, 1)],
    );
    check(
        "abs.s32 %r4, %r1;",
        Dst::R,
        &[(neg(-5), 0, 0, 5), (neg(i32::MIN), 0, 0, 0x8000_0000)],
    );
    check("neg.s32 %r4, %r1;", Dst::R, &[(5, 0, 0, neg(-5))]);
}

#[test]
fn bits_and_shifts() {
    check(
        "shl.b32 %r4, %r1, %r2;",
        Dst::R,
        &[(1, 31, 0, 0x8000_0000), (1, 32, 0, 0), (1, 100, 0, 0)],
    );
    check(
        "shr.u32 %r4, %r1, %r2;",
        Dst::R,
        &[(0x8000_0000, 31, 0, 1), (0x8000_0000, 40, 0, 0)],
    );
    check(
        "shr.s32 %r4, %r1, %r2;",
        Dst::R,
        &[
            (0x8000_0000, 4, 0, 0xf800_0000),
            (0x8000_0000, 40, 0, 0xffff_ffff),
        ],
    );
    check("shl.b64 %x4, %x1, %r2;", Dst::X, &[(1, 63, 0, 1 << 63)]);
    check(
        "and.b32 %r4, %r1, %r2;",
        Dst::R,
        &[(0xf0f0, 0xff00, 0, 0xf000)],
    );
    check(
        "or.b32 %r4, %r1, %r2;",
        Dst::R,
        &[(0xf0f0, 0xff00, 0, 0xfff0)],
    );
    check(
        "xor.b32 %r4, %r1, %r2;",
        Dst::R,
        &[(0xf0f0, 0xff00, 0, 0x0ff0)],
    );
    check("not.b32 %r4, %r1;", Dst::R, &[(0, 0, 0, 0xffff_ffff)]);
    check("cnot.b32 %r4, %r1;", Dst::R, &[(0, 0, 0, 1), (5, 0, 0, 0)]);
    check("popc.b32 %r4, %r1;", Dst::R, &[(0xff, 0, 0, 8)]);
    check("popc.b64 %r4, %x1;", Dst::R, &[(u64::MAX, 0, 0, 64)]);
    check("clz.b32 %r4, %r1;", Dst::R, &[(1, 0, 0, 31), (0, 0, 0, 32)]);
    check("clz.b64 %r4, %x1;", Dst::R, &[(1, 0, 0, 63)]);
    check("brev.b32 %r4, %r1;", Dst::R, &[(1, 0, 0, 0x8000_0000)]);
    check(
        "bfind.u32 %r4, %r1;",
        Dst::R,
        &[(0x100, 0, 0, 8), (0, 0, 0, 0xffff_ffff)],
    );
    check(
        "bfind.s32 %r4, %r1;",
        Dst::R,
        &[(neg(-1), 0, 0, 0xffff_ffff), (neg(-2), 0, 0, 0)],
    );
    check("bfind.shiftamt.u32 %r4, %r1;", Dst::R, &[(0x100, 0, 0, 23)]);
    check(
        "bfe.u32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0xabcd, 4, 8, 0xbc), (0xabcd, 40, 8, 0)],
    );
    check(
        "bfe.s32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0x0080, 4, 4, neg(-8)), (0x0070, 4, 4, 7)],
    );
    check(
        "bfi.b32 %r4, %r1, %r2, 8, 4;",
        Dst::R,
        &[(0xf, 0, 0, 0xf00), (0x1, 0xffff, 0, 0xf1ff)],
    );
    check(
        "prmt.b32 %r4, %r1, %r2, 0x7351;",
        Dst::R,
        &[(0x0302_0100, 0x0706_0504, 0, 0x0703_0501)],
    );
    // Nibble 8: byte 0 with its sign replicated; nibbles 0: byte 0 itself.
    check(
        "prmt.b32 %r4, %r1, %r2, 0x0008;",
        Dst::R,
        &[(0x80, 0, 0, 0x8080_80ff)],
    );
    check(
        "shf.l.wrap.b32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0x8000_0000, 1, 1, 3), (5, 7, 32, 7)],
    );
    check(
        "shf.r.clamp.b32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(2, 1, 1, 0x8000_0001), (5, 7, 40, 7)],
    );
    check(
        "lop3.b32 %r4, %r1, %r2, %r3, 0x96;",
        Dst::R,
        &[(0b1100, 0b1010, 0b0110, 0b0000)],
    );
    check(
        "lop3.b32 %r4, %r1, %r2, %r3, 0xe8;",
        Dst::R,
        &[(0b1100, 0b1010, 0b0110, 0b1110)],
    );
}

#[test]
fn compare_select_and_predicates() {
    check(
        "setp.lt.s32 %p4, %r1, %r2;",
        Dst::P,
        &[(neg(-1), 1, 0, 1), (1, neg(-1), 0, 0)],
    );
    check("setp.lo.u32 %p4, %r1, %r2;", Dst::P, &[(neg(-1), 1, 0, 0)]);
    check(
        "setp.lt.f32 %p4, %f1, %f2;",
        Dst::P,
        &[(f(1.0), f(2.0), 0, 1), (f(f32::NAN), f(2.0), 0, 0)],
    );
    check(
        "setp.ltu.f32 %p4, %f1, %f2;",
        Dst::P,
        &[(f(f32::NAN), f(2.0), 0, 1)],
    );
    check(
        "setp.nan.f32 %p4, %f1, %f2;",
        Dst::P,
        &[(f(1.0), f(f32::NAN), 0, 1), (f(1.0), f(1.0), 0, 0)],
    );
    check(
        "setp.eq.f64 %p4, %fd1, %fd2;",
        Dst::P,
        &[(d(0.0), d(-0.0), 0, 1)],
    );
    check(
        "setp.gt.and.s32 %p4, %r1, %r2, %p2;",
        Dst::P,
        &[(2, 1, 0, 1), (2, 0, 0, 0)],
    );
    check(
        "selp.b32 %r4, %r1, %r2, %p2;",
        Dst::R,
        &[(10, 1, 0, 10), (10, 0, 0, 0)],
    );
    check(
        "set.lt.u32.s32 %r4, %r1, %r2;",
        Dst::R,
        &[(1, 2, 0, 0xffff_ffff), (2, 1, 0, 0)],
    );
    check(
        "and.pred %p4, %p1, %p2;",
        Dst::P,
        &[(1, 1, 0, 1), (1, 0, 0, 0)],
    );
    check(
        "xor.pred %p4, %p1, %p2;",
        Dst::P,
        &[(1, 1, 0, 0), (1, 0, 0, 1)],
    );
    check("not.pred %p4, %p1;", Dst::P, &[(1, 0, 0, 0), (0, 0, 0, 1)]);
}

#[test]
fn float_arithmetic_and_rounding() {
    check(
        "add.f32 %f4, %f1, %f2;",
        Dst::F,
        &[
            (f(1.0), f(2.0), 0, f(3.0)),
            (f(f32::INFINITY), f(f32::NEG_INFINITY), 0, 0x7fff_ffff),
        ],
    );
    check(
        "add.rp.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(1.0), f(2f32.powi(-30)), 0, f(1.0f32.next_up()))],
    );
    check(
        "add.rm.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(1.0), f(-1.0), 0, f(-0.0))],
    );
    check(
        "mul.rz.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(f32::MAX), f(2.0), 0, f(f32::MAX))],
    );
    check(
        "div.rn.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(1.0), f(3.0), 0, f(1.0 / 3.0))],
    );
    // 2/3 = 0x3f2aaaaa.aaa...: nearest rounds up, toward zero does not.
    check(
        "div.rz.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(2.0), f(3.0), 0, 0x3f2a_aaaa)],
    );
    check(
        "div.rn.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(2.0), f(3.0), 0, 0x3f2a_aaab)],
    );
    check(
        "sqrt.rn.f32 %f4, %f1;",
        Dst::F,
        &[
            (f(2.0), 0, 0, f(2f32.sqrt())),
            (f(-1.0), 0, 0, 0x7fff_ffff),
            // A NaN operand's payload never reaches the result.
            (0x7fc0_0001, 0, 0, 0x7fff_ffff),
        ],
    );
    for inst in [
        "add.f32 %f4, %f1, %f2;",
        "mul.f32 %f4, %f1, %f2;",
        "sub.rz.f32 %f4, %f1, %f2;",
        "div.rn.f32 %f4, %f1, %f2;",
        "div.approx.f32 %f4, %f1, %f2;",
        "fma.rn.f32 %f4, %f1, %f2, %f3;",
        "sqrt.approx.f32 %f4, %f1;",
        "ex2.approx.f32 %f4, %f1;",
    ] {
        check(inst, Dst::F, &[(0xffc0_1234, f(1.0), f(1.0), 0x7fff_ffff)]);
    }
    check("rcp.rn.f32 %f4, %f1;", Dst::F, &[(f(4.0), 0, 0, f(0.25))]);
    check(
        "fma.rn.f32 %f4, %f1, %f2, %f3;",
        Dst::F,
        &[(f(1.5), f(2.0), f(0.25), f(3.25))],
    );
    check(
        "min.f32 %f4, %f1, %f2;",
        Dst::F,
        &[
            (f(f32::NAN), f(2.0), 0, f(2.0)),
            (f(-0.0), f(0.0), 0, f(-0.0)),
        ],
    );
    check(
        "max.NaN.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(f32::NAN), f(2.0), 0, 0x7fff_ffff)],
    );
    check(
        "add.sat.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(0.75), f(0.5), 0, f(1.0)), (f(-3.0), f(1.0), 0, f(0.0))],
    );
    check(
        "add.ftz.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(1, 0, 0, 0), (f(1e-39), f(1e-39), 0, 0)],
    );
    check("neg.f32 %f4, %f1;", Dst::F, &[(f(1.0), 0, 0, f(-1.0))]);
    check("abs.f32 %f4, %f1;", Dst::F, &[(f(-2.0), 0, 0, f(2.0))]);
    check(
        "copysign.f32 %f4, %f1, %f2;",
        Dst::F,
        &[(f(-1.0), f(3.0), 0, f(-3.0))],
    );
    check(
        "add.f64 %fd4, %fd1, %fd2;",
        Dst::Fd,
        &[(d(0.1), d(0.2), 0, d(0.1 + 0.2))],
    );
    check(
        "div.rn.f64 %fd4, %fd1, %fd2;",
        Dst::Fd,
        &[(d(1.0), d(3.0), 0, d(1.0 / 3.0))],
    );
    check(
        "sqrt.rn.f64 %fd4, %fd1;",
        Dst::Fd,
        &[(d(2.0), 0, 0, d(2f64.sqrt()))],
    );
    check(
        "fma.rn.f64 %fd4, %fd1, %fd2, %fd3;",
        Dst::Fd,
        &[(d(0.1), d(10.0), d(-1.0), d(0.1f64.mul_add(10.0, -1.0)))],
    );
}

#[test]
fn approximate_functions_within_documented_bounds() {
    let xs = [0.1f32, 0.5, 1.0, 2.0, 3.0, -1.5, 10.0];
    let inputs: Vec<[u64; 3]> = xs.iter().map(|&x| [f(x), 0, 0]).collect();
    let approx = |inst: &str| -> Vec<f32> {
        run_op(inst, Dst::F, &inputs)
            .iter()
            .map(|&v| f32::from_bits(v as u32))
            .collect()
    };
    for (k, (s, c)) in approx("sin.approx.f32 %f4, %f1;")
        .iter()
        .zip(approx("cos.approx.f32 %f4, %f1;"))
        .enumerate()
    {
        // PTX ISA: max absolute error 2^-20.9 in [-pi, pi] (checked here on all inputs).
        let x = xs[k] as f64;
        assert!((*s as f64 - x.sin()).abs() < 2f64.powf(-20.9), "sin({x})");
        assert!((c as f64 - x.cos()).abs() < 2f64.powf(-20.9), "cos({x})");
    }
    for (k, v) in approx("ex2.approx.f32 %f4, %f1;").iter().enumerate() {
        let want = (xs[k] as f64).exp2();
        assert!(
            ((*v as f64) - want).abs() <= 2.0 * want * f32::EPSILON as f64,
            "ex2({})",
            xs[k]
        );
    }
    for (k, v) in approx("lg2.approx.f32 %f4, %f1;").iter().enumerate() {
        let x = xs[k] as f64;
        if x > 0.0 {
            assert!(
                ((*v as f64) - x.log2()).abs() < 2f64.powf(-22.6),
                "lg2({x})"
            );
        } else {
            assert!(v.is_nan());
        }
    }
    for (k, v) in approx("rsqrt.approx.f32 %f4, %f1;").iter().enumerate() {
        let x = xs[k] as f64;
        if x > 0.0 {
            assert!(
                ((*v as f64) - 1.0 / x.sqrt()).abs() <= 2.0 * f32::EPSILON as f64 / x.sqrt(),
                "rsqrt({x})"
            );
        }
    }
    for (k, v) in approx("tanh.approx.f32 %f4, %f1;").iter().enumerate() {
        let x = xs[k] as f64;
        assert!(
            ((*v as f64) - x.tanh()).abs() < 2f64.powf(-10.987),
            "tanh({x})"
        );
    }
}

#[test]
fn conversions() {
    check(
        "cvt.rzi.s32.f32 %r4, %f1;",
        Dst::R,
        &[
            (f(-2.7), 0, 0, neg(-2)),
            (f(f32::NAN), 0, 0, 0),
            (f(1e10), 0, 0, 0x7fff_ffff),
            (f(-1e10), 0, 0, 0x8000_0000),
        ],
    );
    check(
        "cvt.rni.s32.f32 %r4, %f1;",
        Dst::R,
        &[(f(2.5), 0, 0, 2), (f(3.5), 0, 0, 4)],
    );
    check(
        "cvt.rmi.s32.f32 %r4, %f1;",
        Dst::R,
        &[(f(-2.1), 0, 0, neg(-3))],
    );
    check(
        "cvt.rpi.u32.f32 %r4, %f1;",
        Dst::R,
        &[(f(2.1), 0, 0, 3), (f(-5.0), 0, 0, 0)],
    );
    check(
        "cvt.rn.f32.s32 %f4, %r1;",
        Dst::F,
        &[
            (neg(-3), 0, 0, f(-3.0)),
            (0x7fff_ffff, 0, 0, f(2147483648.0)),
        ],
    );
    check(
        "cvt.rz.f32.u32 %f4, %r1;",
        Dst::F,
        &[(0xffff_ffff, 0, 0, f(4294967040.0))],
    );
    check(
        "cvt.rn.f32.f64 %f4, %fd1;",
        Dst::F,
        &[(d(0.1), 0, 0, f(0.1))],
    );
    check(
        "cvt.rz.f32.f64 %f4, %fd1;",
        Dst::F,
        &[(d(1e300), 0, 0, f(f32::MAX))],
    );
    check(
        "cvt.f64.f32 %fd4, %f1;",
        Dst::Fd,
        &[(f(0.1), 0, 0, d(0.1f32 as f64))],
    );
    check(
        "cvt.rzi.s64.f64 %x4, %fd1;",
        Dst::X,
        &[(d(-1e3), 0, 0, (-1000i64) as u64)],
    );
    check(
        "cvt.rn.f16.f32 %h4, %f1;",
        Dst::H,
        &[(f(1.0), 0, 0, 0x3c00), (f(65520.0), 0, 0, 0x7c00)],
    );
    check(
        "cvt.rz.f16.f32 %h4, %f1;",
        Dst::H,
        &[(f(65520.0), 0, 0, 0x7bff)],
    );
    check(
        "cvt.f32.f16 %f4, %h1;",
        Dst::F,
        &[(0x3c00, 0, 0, f(1.0)), (0x0001, 0, 0, f(2f32.powi(-24)))],
    );
    check(
        "cvt.rn.bf16.f32 %h4, %f1;",
        Dst::H,
        &[(f(1.0), 0, 0, 0x3f80)],
    );
    check(
        "cvt.sat.u8.s32 %r4, %r1;",
        Dst::R,
        &[(300, 0, 0, 255), (neg(-3), 0, 0, 0)],
    );
    check("cvt.u8.u32 %r4, %r1;", Dst::R, &[(0x1ff, 0, 0, 0xff)]);
    check(
        "cvt.s64.s32 %x4, %r1;",
        Dst::X,
        &[(neg(-1), 0, 0, u64::MAX)],
    );
    check("cvt.u32.u64 %r4, %x1;", Dst::R, &[(0x1_0000_0002, 0, 0, 2)]);
    check("cvt.s32.s8 %r4, %r1;", Dst::R, &[(0x80, 0, 0, neg(-128))]);
    check(
        "cvt.rni.f32.f32 %f4, %f1;",
        Dst::F,
        &[(f(2.5), 0, 0, f(2.0)), (f(-0.4), 0, 0, f(-0.0))],
    );
}

#[test]
fn half_precision_ops() {
    check(
        "add.f16 %h4, %h1, %h2;",
        Dst::H,
        &[(0x3c00, 0x3c00, 0, 0x4000)],
    );
    check(
        "mul.rn.bf16 %h4, %h1, %h2;",
        Dst::H,
        &[(0x4000, 0x4040, 0, 0x40c0)],
    );
    check(
        "fma.rn.f16 %h4, %h1, %h2, %h3;",
        Dst::H,
        &[(0x4000, 0x4200, 0x3c00, 0x4700)],
    );
    check(
        "add.f16x2 %r4, %r1, %r2;",
        Dst::R,
        &[(0x3c00_4000, 0x3c00_3c00, 0, 0x4000_4200)],
    );
    check("neg.f16 %h4, %h1;", Dst::H, &[(0x3c00, 0, 0, 0xbc00)]);
}

#[test]
fn class_tests_select_and_dot_products() {
    check(
        "testp.finite.f32 %p4, %f1;",
        Dst::P,
        &[
            (f(1.0), 0, 0, 1),
            (f(f32::INFINITY), 0, 0, 0),
            (f(f32::NAN), 0, 0, 0),
        ],
    );
    check(
        "testp.subnormal.f32 %p4, %f1;",
        Dst::P,
        &[(1, 0, 0, 1), (f(1.0), 0, 0, 0)],
    );
    check(
        "testp.notanumber.f64 %p4, %fd1;",
        Dst::P,
        &[(d(f64::NAN), 0, 0, 1), (d(0.0), 0, 0, 0)],
    );
    check(
        "slct.u32.s32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(1, 2, 0, 1), (1, 2, neg(-1), 2)],
    );
    check(
        "slct.u32.f32 %r4, %r1, %r2, %f3;",
        Dst::R,
        &[(1, 2, f(-0.5), 2), (1, 2, f(0.0), 1)],
    );
    check(
        "dp4a.u32.u32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0x0102_0304, 0x0101_0101, 10, 20)],
    );
    check(
        "dp4a.s32.s32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0x0000_00ff, 0x0000_0002, 0, neg(-2))],
    );
}

/// A four-way `brx.idx` switch: each lane takes the case of its index, and
/// the warp reconverges after the switch.
#[test]
fn multiway_branch() {
    let switch = "and.b32 %r5, %r1, 3;\nts: .branchtargets L0, L1, L2, L3;\nbrx.idx %r5, ts;\n\
                  L0:\nmov.u32 %r4, 100;\nbra.uni END;\nL1:\nmov.u32 %r4, 200;\nbra.uni END;\n\
                  L2:\nmov.u32 %r4, 300;\nbra.uni END;\nL3:\nmov.u32 %r4, 400;\nEND:\nadd.u32 %r4, %r4, %r5;";
    let cases: Vec<(u64, u64, u64, u64)> = (0..32u64)
        .map(|i| (i, 0, 0, 100 * ((i & 3) + 1) + (i & 3)))
        .collect();
    check(switch, Dst::R, &cases);
    // All lanes on the same case: a uniform jump.
    check(switch, Dst::R, &[(2, 0, 0, 302), (6, 0, 0, 302)]);
}

#[test]
fn carry_chains() {
    let add = "add.cc.u32 %r6, %r1, %r2;\naddc.u32 %r4, %r3, 0;";
    check(add, Dst::R, &[(0xffff_ffff, 1, 5, 6), (1, 1, 5, 5)]);
    let add3 = "add.cc.u32 %r6, %r1, %r2;\naddc.cc.u32 %r7, %r3, 0xffffffff;\naddc.u32 %r4, 0, 0;";
    check(add3, Dst::R, &[(0xffff_ffff, 1, 0, 1), (0, 0, 0, 0)]);
    let sub = "sub.cc.u32 %r6, %r1, %r2;\nsubc.u32 %r4, %r3, 0;";
    check(sub, Dst::R, &[(0, 1, 5, 4), (2, 1, 5, 5)]);
    check(
        "add.cc.u64 %x8, %x1, %x2;\naddc.u64 %x4, 0, 0;",
        Dst::X,
        &[(u64::MAX, 1, 0, 1), (1, 1, 0, 0)],
    );
}

#[test]
fn multiply_add_carry_chains() {
    // 64-bit product of two 32-bit values assembled from lo/hi partial products.
    let lo = "mad.lo.cc.u32 %r6, %r1, %r2, %r3;\nmadc.hi.u32 %r4, %r1, %r2, 0;";
    check(lo, Dst::R, &[(0xffff_ffff, 2, 2, 2), (3, 4, 5, 0)]);
    check(
        "mad.lo.cc.u32 %r4, %r1, %r2, %r3;",
        Dst::R,
        &[(0x8000_0000, 2, 7, 7)],
    );
}

#[test]
fn async_copies_complete_by_the_wait() {
    let prefix = "mov.u32 %r6, sm;\nmul.lo.u32 %r7, %r8, 16;\nadd.u32 %r6, %r6, %r7;\n\
                  cp.async.ca.shared.global [%r6], [%x5], 16, 8;\ncp.async.commit_group;\ncp.async.wait_all;\n";
    check(
        &format!("{prefix}ld.shared.u64 %x4, [%r6];"),
        Dst::X,
        &[(0x1234, 7, 9, 0x1234), (5, 0, 0, 5)],
    );
    check(
        &format!("{prefix}ld.shared.u64 %x4, [%r6+8];"),
        Dst::X,
        &[(0x1234, 7, 9, 0)],
    );
}
