//! Surface objects (`type = "surface"` in a launch spec) read and written
//! with `suld.b` / `sust.b` (`surf2Dread`, `surf2Dwrite`): x counts bytes,
//! y rows; outside the surface the boundary mode decides (`.trap` stops
//! the kernel with the thread and line, `.clamp` takes the edge, `.zero`
//! reads zeros and drops the write); a handle of the wrong kind, another
//! rank or a misaligned x is a fault that says so.

mod common;

use common::{buffer, f32s, run_text};

/// `k(in, out)`: thread (x, y) reads 4 bytes at byte 4x + shift of row y
/// of `in` with `mode`, and writes them at byte 4x of row y of `out`.
fn ptx(mode: &str, shift: i32) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [in];\nld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %tid.x;\nmov.u32 %r2, %tid.y;\nshl.b32 %r4, %r1, 2;\nadd.s32 %r3, %r4, {shift};\n\
         suld.b.2d.b32.{mode} {{%r5}}, [%rd1, {{%r3, %r2}}];\n\
         sust.b.2d.b32.trap [%rd2, {{%r4, %r2}}], {{%r5}};\n\
         ret;\n}}\n"
    )
}

/// A 4 x 3 block over surfaces `in` (keys `input`) and `out` (4 x 3 f32).
fn spec(input: &str) -> String {
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4, 3]\n\
         [[arg]]\nname = \"in\"\ntype = \"surface\"\n{input}\n\
         [[arg]]\nname = \"out\"\ntype = \"surface\"\ntexel = \"f32\"\ndims = [4, 3]\ninit = {{ fill = -1.0 }}\n"
    )
}

fn copied(mode: &str, shift: i32, input: &str) -> Result<Vec<f32>, String> {
    let r = run_text(&ptx(mode, shift), &spec(input))?;
    Ok(f32s(buffer(&r, "out")))
}

const GRID: &str = "texel = \"f32\"\ndims = [4, 3]\ninit = \"iota\"";

#[test]
fn reads_and_writes_address_bytes_of_rows() {
    let got = copied("trap", 0, GRID).expect("runs");
    assert_eq!(got, (0..12).map(|i| i as f32).collect::<Vec<_>>());
}

#[test]
fn the_boundary_mode_says_what_lies_outside() {
    // One texel right: the last column reads past its row.
    let zero = copied("zero", 4, GRID).expect("zero");
    let clamp = copied("clamp", 4, GRID).expect("clamp");
    for y in 0..3 {
        let row = |v: &[f32]| v[y * 4..y * 4 + 4].to_vec();
        let r = (y * 4) as f32;
        assert_eq!(
            row(&zero),
            [r + 1.0, r + 2.0, r + 3.0, 0.0],
            "zero, row {y}"
        );
        assert_eq!(
            row(&clamp),
            [r + 1.0, r + 2.0, r + 3.0, r + 3.0],
            "clamp, row {y}"
        );
    }
    let e = copied("trap", 4, GRID).expect_err("trap");
    assert!(
        e.contains("surface `in`: (16, 0, 0) lies outside its 4 x 3 x 1 texels of 4 bytes")
            && e.contains("thread (3,0,0)"),
        "{e}"
    );
}

#[test]
fn wrong_accesses_are_faults_that_say_why() {
    let e = copied("trap", 2, GRID).expect_err("misaligned");
    assert!(
        e.contains("surface `in`: byte 2 of a row is not a multiple of the access's 4 bytes"),
        "{e}"
    );
    let e = copied("trap", 0, "texel = \"f32\"\nlen = 12").expect_err("1D surface");
    assert!(
        e.contains("`in` has 1 dimension(s), but the access is a 2D surface access"),
        "{e}"
    );
    // A texture given where the kernel reads a surface.
    let text = spec(GRID).replacen("type = \"surface\"", "type = \"texture\"", 1);
    let e = run_text(&ptx("trap", 0), &text).expect_err("texture as surface");
    assert!(
        e.contains("`in` is a texture object, but the instruction reads a surface"),
        "{e}"
    );
}

#[test]
fn surface_specs_take_only_what_a_surface_has() {
    for (input, want) in [
        (
            "texel = \"f32\"\ndims = [4, 3]\nfilter = \"linear\"",
            "a surface argument takes texel, len or dims and init, not filter",
        ),
        (
            "texel = \"f32\"\ndims = [4, 3]\nvalue = 1",
            "a surface argument takes texel, len or dims and init, not value",
        ),
    ] {
        let e = copied("trap", 0, input).expect_err(input);
        assert!(e.contains(want), "{input}: {e}");
    }
}

#[test]
fn vector_accesses_move_each_element() {
    // `uchar4` texels read and written as .v4.b8.
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{\n\
         .reg .b16 %rs<5>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [in];\nld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\n\
         suld.b.1d.v4.b8.trap {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r2}];\n\
         sust.b.1d.v4.b8.trap [%rd2, {%r2}], {%rs4, %rs3, %rs2, %rs1};\n\
         ret;\n}\n";
    let spec = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [2]\n\
         [[arg]]\nname = \"in\"\ntype = \"surface\"\ntexel = \"u8x4\"\nlen = 2\ninit = \"iota\"\n\
         [[arg]]\nname = \"out\"\ntype = \"surface\"\ntexel = \"u8x4\"\nlen = 2\n";
    let r = run_text(text, spec).expect("runs");
    assert_eq!(buffer(&r, "out"), [3, 2, 1, 0, 7, 6, 5, 4]);
}
