//! Structs passed by value (`type = "struct"` in a launch spec): scalar
//! fields at C's offsets (each at a multiple of its size), the whole
//! rounded up to its alignment, bound to the kernel's `.b8` array
//! parameter; pointer members get buffers of their own whose addresses the
//! launch writes into the struct; refused with a message where the sizes
//! disagree or the spec is malformed.

mod common;

use common::{f64s, run_text};

/// `k(.param .align A .b8 p[SIZE], .param .u64 out)` copies the struct's
/// fields at `loads` (PTX type, byte offset) into `out` as f64s.
fn ptx(align: u32, size: u32, loads: &[(&str, u32)]) -> String {
    let mut body = String::new();
    for (i, (ty, off)) in loads.iter().enumerate() {
        let (reg, cvt) = match *ty {
            "f32" => ("%f1", "cvt.f64.f32 %fd2, %f1;"),
            "f64" => ("%fd1", "mov.f64 %fd2, %fd1;"),
            "s32" => ("%r1", "cvt.rn.f64.s32 %fd2, %r1;"),
            "u16" => ("%h1", "cvt.rn.f64.u16 %fd2, %h1;"),
            _ => ("%r1", "cvt.rn.f64.u32 %fd2, %r1;"),
        };
        let ld_ty = if *ty == "u8" { "u8" } else { ty };
        let dst = if *ty == "u8" { "%h1" } else { reg };
        let cvt = if *ty == "u8" {
            "cvt.rn.f64.u16 %fd2, %h1;"
        } else {
            cvt
        };
        body.push_str(&format!(
            "ld.param.{ld_ty} {dst}, [p+{off}];\n{cvt}\nst.global.f64 [%rd1+{}], %fd2;\n",
            8 * i
        ));
    }
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .align {align} .b8 p[{size}], .param .u64 out)\n{{\n\
         .reg .b16 %h<2>;\n.reg .b32 %r<2>;\n.reg .f32 %f<2>;\n.reg .f64 %fd<3>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}ret;\n}}\n"
    )
}

fn spec(fields: &str, extra: &str) -> String {
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n\
         [[arg]]\nname = \"p\"\ntype = \"struct\"\nfields = {fields}\n{extra}\n\
         [[arg]]\nname = \"out\"\ntype = \"f64*\"\nlen = 8\n"
    )
}

/// The f64s the kernel wrote, or the launch's error.
fn run(ptx: &str, spec: &str) -> Result<Vec<f64>, String> {
    let r = run_text(ptx, spec)?;
    Ok(f64s(&r.buffers[0].bytes))
}

#[test]
fn fields_sit_at_c_offsets() {
    // struct { float a; int n; double d; unsigned char c; }: a at 0, n at 4,
    // d at 8, c at 16; 24 bytes (aligned to 8).
    let k = ptx(8, 24, &[("f32", 0), ("s32", 4), ("f64", 8), ("u8", 16)]);
    let s = spec(
        r#"[{ type = "f32", value = 1.5 }, { type = "i32", value = -7 }, { type = "f64", value = 0.25 }, { type = "u8", value = 200 }]"#,
        "",
    );
    let out = run(&k, &s).expect("runs");
    assert_eq!(&out[..4], &[1.5, -7.0, 0.25, 200.0]);

    // A char before an int is padded to 4: struct { char c; int n; } is 8 bytes.
    let k = ptx(4, 8, &[("u8", 0), ("s32", 4)]);
    let s = spec(
        r#"[{ type = "u8", value = 9 }, { type = "i32", value = 40000 }]"#,
        "",
    );
    assert_eq!(&run(&k, &s).expect("runs")[..2], &[9.0, 40000.0]);

    // A float4 (__align__(16)) from four fields, values as expressions.
    let k = ptx(16, 16, &[("f32", 0), ("f32", 4), ("f32", 8), ("f32", 12)]);
    let s = spec(
        r#"[{ type = "f32", value = 1 }, { type = "f32", value = 2 }, { type = "f32", value = 3 }, { type = "f32", value = 4.5 }]"#,
        "align = 16",
    );
    assert_eq!(&run(&k, &s).expect("runs")[..4], &[1.0, 2.0, 3.0, 4.5]);
}

#[test]
fn a_struct_of_another_size_is_refused() {
    // { double; int } is 16 bytes with its padding; the parameter has 12.
    let k = ptx(8, 12, &[("f64", 0)]);
    let s = spec(
        r#"[{ type = "f64", value = 1 }, { type = "i32", value = 2 }]"#,
        "",
    );
    let e = run(&k, &s).expect_err("refused");
    assert!(
        e.contains("argument `p` is a struct of 16 bytes (2 fields, aligned to 8), but parameter 0 `p` takes 12 bytes"),
        "{e}"
    );
}

#[test]
fn malformed_structs_are_refused_where_they_are_written() {
    let k = ptx(4, 4, &[("f32", 0)]);
    let cases = [
        (spec("[]", ""), "a struct needs at least one field"),
        (
            spec(r#"[{ type = "f32", value = 1 }]"#, "align = 6"),
            "align must be a power of two no less than the largest field (4 bytes), found 6",
        ),
        (
            spec(r#"[{ type = "f64", value = 1 }]"#, "align = 4"),
            "found 4",
        ),
        (
            spec(r#"[{ type = "u8", value = 300 }]"#, ""),
            "300 is out of range for type u8",
        ),
        (spec(r#"[{ type = "f32", value = 1, len = 2 }]"#, ""), "len"),
        (
            spec(r#"[{ type = "f32", value = 1 }]"#, "value = 3"),
            "a struct argument takes fields (and align), not value",
        ),
    ];
    for (s, want) in cases {
        let e = run(&k, &s).expect_err(want);
        assert!(e.contains(want), "{want}: {e}");
        assert!(e.starts_with("/k.toml:"), "{e}");
    }
    // fields on an argument that is not a struct.
    let s = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n\
             [[arg]]\nname = \"p\"\ntype = \"f32\"\nvalue = 1\nfields = []\n";
    let Err(e) = run_text(&k, s) else {
        panic!("fields on an f32 argument ran");
    };
    assert!(
        e.contains("only a `type = \"struct\"` argument takes fields"),
        "{e}"
    );
}

/// `k(.param .align 8 .b8 p[24])` with `struct { int n; float *x; float *y; }`:
/// y[i] = x[i] * n for i < 4.
const POINTERS: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .align 8 .b8 p[24])\n{\n\
.reg .b32 %r<3>;\n.reg .f32 %f<3>;\n.reg .b64 %rd<8>;\n\
ld.param.u32 %r1, [p];\nld.param.u64 %rd1, [p+8];\nld.param.u64 %rd2, [p+16];\n\
cvta.to.global.u64 %rd1, %rd1;\ncvta.to.global.u64 %rd2, %rd2;\n\
mov.u32 %r2, %tid.x;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd1, %rd3;\nadd.s64 %rd5, %rd2, %rd3;\n\
ld.global.f32 %f1, [%rd4];\ncvt.rn.f32.s32 %f2, %r1;\nmul.f32 %f1, %f1, %f2;\nst.global.f32 [%rd5], %f1;\n\
ret;\n}\n";

fn pointer_spec(fields: &str) -> String {
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4]\n\
         [[arg]]\nname = \"p\"\ntype = \"struct\"\nfields = {fields}\n"
    )
}

#[test]
fn pointer_members_get_buffers_of_their_own() {
    let s = pointer_spec(
        r#"[{ type = "i32", value = 3 }, { name = "x", type = "f32*", len = 4, init = "iota" }, { name = "y", type = "f32*", len = 4 }]"#,
    );
    let r = run_text(POINTERS, &s).expect("runs");
    let names: Vec<&str> = r.buffers.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["p.x", "p.y"]);
    assert_eq!(common::f32s(&r.buffers[1].bytes), [0.0, 3.0, 6.0, 9.0]);
    // The GPU launcher takes no such struct yet, and says so.
    let spec = emu::spec::parse(&s, std::path::Path::new("/k.toml"), &[]).expect("parses");
    let module = ptx::parse("k.ptx", POINTERS).expect("PTX");
    let Err(e) = emu::exec::host_launch(&module, "k.ptx", &spec) else {
        panic!("host_launch took a struct with pointer members");
    };
    assert!(
        e.to_string().contains("argument `p`: a struct with pointer members runs on the emulator but cannot be launched on a GPU yet"),
        "{e}"
    );
}

#[test]
fn malformed_pointer_members_are_refused() {
    let cases = [
        (r#"[{ type = "f32*", len = 4 }]"#, "missing key `name`"),
        (
            r#"[{ name = "x", type = "f32*", len = 4 }, { name = "x", type = "f32*", len = 4 }]"#,
            "struct `p` has two pointer fields named `x`",
        ),
        (
            r#"[{ name = "x", type = "f32*", len = 4, value = 1 }]"#,
            "unknown key `value` in struct pointer field",
        ),
        (r#"[{ name = "x", type = "f32*" }]"#, "missing key `len`"),
    ];
    for (fields, want) in cases {
        let Err(e) = run_text(POINTERS, &pointer_spec(fields)) else {
            panic!("{fields}: ran");
        };
        assert!(e.contains(want), "{want}: {e}");
    }
}
