//! Byte permutes, dot products and SIMD video instructions: the corpus
//! kernel `kernels/dp_prmt` against a CPU reference written from the PTX
//! ISA's definitions (prmt's selector nibbles and mode table, dp2a, dp4a,
//! vabsdiff with and without `.add`), bit-exact; and the other video
//! instructions (`vadd`, `vsub`, `vavrg`, `vmin`, `vmax`, 2- and 4-way,
//! signed and unsigned, `.sat`, `.add`) in a hand-written kernel.

mod common;

use std::path::Path;

use common::{buffer, run, u32s};
use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

fn byte(v: u32, i: u32) -> u32 {
    (v >> (8 * i)) & 0xff
}

/// Default prmt: each selector nibble picks byte n&7 of {b, a}; bit 3
/// replicates that byte's sign bit.
fn prmt(a: u32, b: u32, s: u32) -> u32 {
    let src = (b as u64) << 32 | a as u64;
    (0..4).fold(0, |r, i| {
        let n = (s >> (4 * i)) & 0xf;
        let v = ((src >> (8 * (n & 7))) & 0xff) as u32;
        let v = if n & 8 != 0 {
            if v & 0x80 != 0 { 0xff } else { 0 }
        } else {
            v
        };
        r | v << (8 * i)
    })
}

/// The ISA's mode table, each row written most significant byte first.
fn prmt_mode(mode: usize, a: u32, b: u32, s: u32) -> u32 {
    const TABLE: [[[u32; 4]; 4]; 6] = [
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]], // f4e
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]], // b4e
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]], // rc8
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]], // ecl
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]], // ecr
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]], // rc16
    ];
    let row = TABLE[mode][(s & 3) as usize];
    let src = (b as u64) << 32 | a as u64;
    (0..4).fold(0, |r, i| {
        r | (((src >> (8 * row[3 - i])) & 0xff) as u32) << (8 * i)
    })
}

fn dp2a(a: u32, b: u32, c: u32, hi: bool, signed: bool) -> u32 {
    let mut acc = c as i64;
    for i in 0..2 {
        let x = (a >> (16 * i)) as u16;
        let y = byte(b, i + if hi { 2 } else { 0 });
        let (x, y) = if signed {
            (x as i16 as i64, y as u8 as i8 as i64)
        } else {
            (x as i64, y as i64)
        };
        acc += x * y;
    }
    acc as u32
}

fn dp4a(a: u32, b: u32, c: u32, signed: bool) -> u32 {
    let mut acc = c as i64;
    for i in 0..4 {
        let (x, y) = (byte(a, i), byte(b, i));
        acc += if signed {
            x as u8 as i8 as i64 * y as u8 as i8 as i64
        } else {
            (x * y) as i64
        };
    }
    acc as u32
}

#[test]
fn dp_prmt_kernel_matches_the_isa() {
    let r = run("dp_prmt", &[]);
    let a = u32s(buffer(&r, "a"));
    let b = u32s(buffer(&r, "b"));
    let out = u32s(buffer(&r, "out"));
    let n = a.len();
    for i in 0..n {
        let (x, y, s) = (a[i], b[i], i as u32);
        let ad4 = |i: u32| byte(x, i).abs_diff(byte(y, i));
        let ad2 = |i: u32| ((x >> (16 * i)) & 0xffff).abs_diff((y >> (16 * i)) & 0xffff);
        let want: [u32; 20] = [
            // __byte_perm keeps the low 3 bits of each selector nibble.
            prmt(x, y, (0x3210 + s) & 0x7777),
            prmt(x, y, 0x7654),
            prmt(x, y, (0x5140 ^ s) & 0x7777),
            prmt(x, y, 0x89ab ^ s),
            prmt_mode(0, x, y, s),
            prmt_mode(1, x, y, s),
            prmt_mode(2, x, y, s),
            prmt_mode(3, x, y, s),
            prmt_mode(4, x, y, s),
            prmt_mode(5, x, y, s),
            dp2a(x, y, s, false, true),
            dp2a(x, y, s, true, true),
            dp2a(x, y, 7, false, false),
            dp2a(x, y, 7, true, false),
            dp4a(x, y, (i as i32).wrapping_neg() as u32, true),
            dp4a(x, y, 3, false),
            (0..4).fold(0, |r, k| r | ad4(k) << (8 * k)),
            (0..4).map(ad4).sum(),
            ad2(0) | ad2(1) << 16,
            ad2(0) + ad2(1),
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(out[k * n + i], *w, "out[{k}][{i}] x={x:#x} y={y:#x}");
        }
    }
}

/// Reference of a video instruction with default selectors and mask.
#[allow(clippy::too_many_arguments)]
fn video(op: &str, four: bool, signed: bool, sat: bool, add: bool, a: u32, b: u32, c: u32) -> u32 {
    let (n, w) = if four { (4, 8) } else { (2, 16) };
    let lane = |v: u32, i: u32| -> i64 {
        let u = (v >> (w * i)) & ((1u32 << w) - 1);
        if signed && u >> (w - 1) != 0 {
            u as i64 - (1i64 << w)
        } else {
            u as i64
        }
    };
    let (lo, hi) = if signed {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    };
    let mut sum = c as i64;
    let mut merged = 0u32;
    for i in 0..n {
        let (x, y) = (lane(a, i), lane(b, i));
        let t = match op {
            "vadd" => x + y,
            "vsub" => x - y,
            "vavrg" => (x + y + 1).div_euclid(2),
            "vabsdiff" => (x - y).abs(),
            "vmin" => x.min(y),
            _ => x.max(y),
        };
        let t = if sat { t.clamp(lo, hi) } else { t };
        sum += t;
        merged |= ((t as u32) & ((1u32 << w) - 1)) << (w * i);
    }
    if add { sum as u32 } else { merged }
}

#[test]
fn video_simd_instructions() {
    let inputs: Vec<(u32, u32, u32)> = (0..32u32)
        .map(|i| {
            let x = i.wrapping_mul(0x9e37_79b9) ^ 0x80ff_7f01;
            let y = i.wrapping_mul(0x85eb_ca6b).rotate_left(i);
            (x, y, i.wrapping_mul(0x0101_0101))
        })
        .collect();
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|&(a, b, c)| [a, b, c].into_iter().flat_map(u32::to_le_bytes))
        .collect();
    let file = std::env::temp_dir().join(format!("emu-video-{}.bin", std::process::id()));
    std::fs::write(&file, &bytes).expect("write inputs");
    for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"] {
        for four in [false, true] {
            for signed in [false, true] {
                for (sat, add) in [(false, false), (true, false), (false, true)] {
                    let t = if signed { "s32" } else { "u32" };
                    let inst = format!(
                        "{op}{}.{t}.{t}.{t}{}{} %r4, %r1, %r2, %r3;",
                        if four { 4 } else { 2 },
                        if sat { ".sat" } else { "" },
                        if add { ".add" } else { "" }
                    );
                    let ptx = format!(
                        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n\
                         .reg .b64 %x<10>;\n.reg .b32 %r<10>;\nld.param.u64 %x1, [inp];\nld.param.u64 %x2, [out];\nmov.u32 %r8, %tid.x;\n\
                         mul.wide.u32 %x3, %r8, 12;\nadd.s64 %x4, %x1, %x3;\nld.global.u32 %r1, [%x4];\nld.global.u32 %r2, [%x4+4];\nld.global.u32 %r3, [%x4+8];\n\
                         {inst}\nmul.wide.u32 %x5, %r8, 4;\nadd.s64 %x6, %x2, %x5;\nst.global.u32 [%x6], %r4;\nret;\n}}\n"
                    );
                    let spec_text = format!(
                        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n[[arg]]\nname = \"inp\"\ntype = \"u32*\"\nlen = 96\ninit = {{ file = \"{}\" }}\n\
                         [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = 32\n",
                        file.display()
                    );
                    let spec =
                        emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
                    let r = run_ptx(
                        &ptx,
                        "k.ptx",
                        &spec,
                        LaunchOptions::default(),
                        &mut NoObserver,
                    )
                    .unwrap_or_else(|e| panic!("{inst}: {e}"));
                    let got = u32s(&r.buffers[1].bytes);
                    for (l, &(a, b, c)) in inputs.iter().enumerate() {
                        let want = video(op, four, signed, sat, add, a, b, c);
                        assert_eq!(got[l], want, "{inst} a={a:#x} b={b:#x} c={c:#x}");
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&file);
}
