//! Texture objects over linear memory (`type = "texture"` in a launch
//! spec) and `tex.1d` fetches with an integer coordinate (`tex1Dfetch`):
//! each lane reads its texel's channels, converted as the texture's read
//! mode says; a coordinate outside the texture reads zeros; a handle that
//! is no texture of the launch, or a fetch in a type the texels cannot be
//! read as, is a fault that says so.

mod common;

use common::{buffer, f32s, i32s, run_text};

/// `k(tex, out, n)`: thread `i < n` fetches texel `i + shift` as `.v4.DTYPE`
/// and stores its four channels at `out[4 i ..]`.
fn ptx(dtype: &str, shift: i32) -> String {
    let (reg, st) = if dtype == "f32" {
        ("%f", "f32")
    } else {
        ("%q", "b32")
    };
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 tex, .param .u64 out, .param .u32 n)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b32 %q<5>;\n.reg .f32 %f<5>;\n.reg .b64 %rd<6>;\n\
         ld.param.u64 %rd1, [tex];\nld.param.u64 %rd2, [out];\nld.param.u32 %r2, [n];\n\
         mov.u32 %r1, %tid.x;\nsetp.ge.s32 %p1, %r1, %r2;\n@%p1 bra DONE;\n\
         add.s32 %r3, %r1, {shift};\n\
         tex.1d.v4.{dtype}.s32 {{{reg}1, {reg}2, {reg}3, {reg}4}}, [%rd1, {{%r3}}];\n\
         cvta.to.global.u64 %rd3, %rd2;\nmul.wide.s32 %rd4, %r1, 16;\nadd.s64 %rd5, %rd3, %rd4;\n\
         st.global.v4.{st} [%rd5], {{{reg}1, {reg}2, {reg}3, {reg}4}};\n\
         DONE:\nret;\n}}\n"
    )
}

/// A launch of 4 threads whose texture argument has the keys `texture`.
fn spec_of(texture: &str) -> String {
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4]\n\
         [[arg]]\nname = \"tex\"\ntype = \"texture\"\n{texture}\n\
         [[arg]]\nname = \"out\"\ntype = \"f32*\"\nlen = 16\n\
         [[arg]]\nname = \"n\"\ntype = \"u32\"\nvalue = 4\n"
    )
}

/// The 16 words the kernel wrote, as floats or integers.
fn floats(dtype: &str, shift: i32, texture: &str) -> Result<Vec<f32>, String> {
    let r = run_text(&ptx(dtype, shift), &spec_of(texture))?;
    Ok(f32s(buffer(&r, "out")))
}

fn ints(dtype: &str, shift: i32, texture: &str) -> Result<Vec<i32>, String> {
    let r = run_text(&ptx(dtype, shift), &spec_of(texture))?;
    Ok(i32s(buffer(&r, "out")))
}

/// `texture` fetched as `dtype` gives `expect` (four channels per thread).
fn check_f32(texture: &str, expect: &[f32]) {
    let got = floats("f32", 0, texture).unwrap_or_else(|e| panic!("{texture}: {e}"));
    assert_eq!(got, expect, "{texture}");
}

fn check_int(dtype: &str, texture: &str, expect: &[i32]) {
    let got = ints(dtype, 0, texture).unwrap_or_else(|e| panic!("{texture}: {e}"));
    assert_eq!(got, expect, "{texture}");
}

#[test]
fn each_lane_reads_its_texels_channels() {
    // One float channel: x is the texel, y z w read 0.
    check_f32(
        "texel = \"f32\"\nlen = 4\ninit = \"iota\"",
        &[
            0., 0., 0., 0., 1., 0., 0., 0., 2., 0., 0., 0., 3., 0., 0., 0.,
        ],
    );
    // float2 and float4: texel i holds elements 2i, 2i+1 (4i .. 4i+3).
    check_f32(
        "texel = \"f32x2\"\nlen = 4\ninit = \"iota\"",
        &[
            0., 1., 0., 0., 2., 3., 0., 0., 4., 5., 0., 0., 6., 7., 0., 0.,
        ],
    );
    check_f32(
        "texel = \"f32x4\"\nlen = 4\ninit = \"iota\"",
        &(0..16).map(|i| i as f32).collect::<Vec<_>>(),
    );
    // Half channels read as floats.
    check_f32(
        "texel = \"f16x2\"\nlen = 4\ninit = { fill = 1.5 }",
        &[
            1.5, 1.5, 0., 0., 1.5, 1.5, 0., 0., 1.5, 1.5, 0., 0., 1.5, 1.5, 0., 0.,
        ],
    );
    // Integer channels read as they are: signed ones sign-extended.
    check_int(
        "s32",
        "texel = \"i8x2\"\nlen = 4\ninit = { fill = -3 }",
        &[-3, -3, 0, 0, -3, -3, 0, 0, -3, -3, 0, 0, -3, -3, 0, 0],
    );
    check_int(
        "u32",
        "texel = \"u16\"\nlen = 4\ninit = \"iota\"",
        &[0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
    );
    check_int(
        "s32",
        "texel = \"i32x4\"\nlen = 4\ninit = \"iota\"",
        &(0..16).collect::<Vec<_>>(),
    );
}

#[test]
fn normalized_reads_scale_integers_to_unit_floats() {
    check_f32(
        "texel = \"u8x4\"\nlen = 4\ninit = { fill = 255 }\nread = \"normalized\"",
        &[1.0; 16],
    );
    let got = floats(
        "f32",
        0,
        "texel = \"i16\"\nlen = 4\ninit = { fill = -32768 }\nread = \"normalized\"",
    )
    .expect("runs");
    // -32768 / 32767 is clamped to -1, as CUDA's signed normalization is.
    assert_eq!(got[0], -1.0);
    let got = floats(
        "f32",
        0,
        "texel = \"u16\"\nlen = 4\ninit = { fill = 32768 }\nread = \"normalized\"",
    )
    .expect("runs");
    assert_eq!(got[0], 32768.0 / 65535.0);
}

#[test]
fn coordinates_outside_the_texture_read_zeros() {
    // Threads 0..4 fetch texels 2..6 of a 4-texel texture: 2 and 3 exist.
    let got = floats("f32", 2, "texel = \"f32\"\nlen = 4\ninit = { fill = 7.0 }").expect("runs");
    let x: Vec<f32> = got.chunks(4).map(|c| c[0]).collect();
    assert_eq!(x, [7.0, 7.0, 0.0, 0.0]);
    // A negative coordinate too.
    let got = floats("f32", -1, "texel = \"f32\"\nlen = 4\ninit = { fill = 7.0 }").expect("runs");
    let x: Vec<f32> = got.chunks(4).map(|c| c[0]).collect();
    assert_eq!(x, [0.0, 7.0, 7.0, 7.0]);
}

#[test]
fn a_fetch_its_texels_cannot_be_read_as_is_a_fault() {
    let e = floats("f32", 0, "texel = \"i32\"\nlen = 4").expect_err("int as float");
    assert!(
        e.contains("texture `tex` has i32 channels, but the fetch reads .f32")
            && e.contains("read = \"normalized\""),
        "{e}"
    );
    let e = ints("s32", 0, "texel = \"f32\"\nlen = 4").expect_err("float as int");
    assert!(
        e.contains("texture `tex` has f32 channels, but the fetch reads .s32"),
        "{e}"
    );
    let e = ints("u32", 0, "texel = \"u8\"\nlen = 4\nread = \"normalized\"")
        .expect_err("normalized as int");
    assert!(e.contains("u8 channels read normalized (floats)"), "{e}");
}

#[test]
fn a_handle_that_is_no_texture_is_a_fault() {
    // The texture parameter given a plain u64: handle 0.
    let spec = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4]\n\
         [[arg]]\nname = \"tex\"\ntype = \"u64\"\nvalue = 0\n\
         [[arg]]\nname = \"out\"\ntype = \"f32*\"\nlen = 16\n\
         [[arg]]\nname = \"n\"\ntype = \"u32\"\nvalue = 4\n";
    let e = run_text(&ptx("f32", 0), spec).expect_err("no texture");
    assert!(
        e.contains("handle 0x0 is no texture object of this launch")
            && e.contains("type = \"texture\""),
        "{e}"
    );
    // A surface where the kernel fetches a texture.
    let spec = spec_of("texel = \"f32\"\nlen = 4").replacen("\"texture\"", "\"surface\"", 1);
    let e = run_text(&ptx("f32", 0), &spec).expect_err("surface as texture");
    assert!(
        e.contains("`tex` is a surface object, but the instruction reads a texture"),
        "{e}"
    );
}

#[test]
fn texture_specs_that_make_no_sense_are_refused() {
    for (texture, want) in [
        ("texel = \"f64\"\nlen = 4", "unknown texel `f64`"),
        ("texel = \"f32x3\"\nlen = 4", "unknown texel `f32x3`"),
        ("len = 4", "texel"),
        (
            "texel = \"f32\"",
            "a texture needs len (texels, 1D) or dims",
        ),
        (
            "texel = \"f32\"\nlen = 4\ndims = [4]",
            "a texture takes len (1D) or dims, not both",
        ),
        (
            "texel = \"f32\"\ndims = [4, 4, 4, 4]",
            "dims has 1 to 3 entries",
        ),
        (
            "texel = \"f32\"\nlen = 4\nread = \"normalized\"",
            "read = \"normalized\" needs 8- or 16-bit integer channels, not f32",
        ),
        (
            "texel = \"u8\"\nlen = 4\nread = \"linear\"",
            "unknown read `linear`",
        ),
        (
            "texel = \"f32\"\nlen = 4\naddress = \"wrap\"",
            "address = \"wrap\" and \"mirror\" need normalized_coords = true",
        ),
        (
            "texel = \"f32\"\nlen = 4\naddress = \"repeat\"",
            "unknown address `repeat`",
        ),
        (
            "texel = \"i32\"\nlen = 4\nfilter = \"linear\"",
            "filter = \"linear\" needs texels read as floats",
        ),
        (
            "texel = \"f32\"\nlen = 4\nfilter = \"cubic\"",
            "unknown filter `cubic`",
        ),
        (
            "texel = \"f32\"\nlen = 4\nvalue = 1",
            "a texture argument takes texel, len or dims, init, read, address, filter and normalized_coords, not value",
        ),
    ] {
        let e = floats("f32", 0, texture).expect_err(texture);
        assert!(e.contains(want), "{texture}: {e}");
    }
    // A pointer takes no texel.
    let spec = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4]\n\
         [[arg]]\nname = \"tex\"\ntype = \"f32*\"\nlen = 4\ntexel = \"f32\"\n";
    let e = run_text(&ptx("f32", 0), spec).expect_err("texel on a pointer");
    assert!(
        e.contains("only a `type = \"texture\"` or `\"surface\"` argument takes texel"),
        "{e}"
    );
}

/// `k(tex, out, a, b, s)`: thread (x, y) fetches `tex.2d` at float
/// coordinates (a + x s, b + y s) and stores channel x at out[y W + x].
const PTX_2D: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 tex, .param .u64 out, .param .f32 a, .param .f32 b, .param .f32 s)\n{\n\
    .reg .b32 %r<8>;\n.reg .f32 %f<12>;\n.reg .b64 %rd<6>;\n\
    ld.param.u64 %rd1, [tex];\nld.param.u64 %rd2, [out];\n\
    ld.param.f32 %f1, [a];\nld.param.f32 %f2, [b];\nld.param.f32 %f3, [s];\n\
    mov.u32 %r1, %tid.x;\nmov.u32 %r2, %tid.y;\nmov.u32 %r3, %ntid.x;\n\
    cvt.rn.f32.u32 %f4, %r1;\ncvt.rn.f32.u32 %f5, %r2;\n\
    fma.rn.f32 %f6, %f4, %f3, %f1;\nfma.rn.f32 %f7, %f5, %f3, %f2;\n\
    tex.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, {%f6, %f7}];\n\
    mad.lo.s32 %r4, %r2, %r3, %r1;\n\
    cvta.to.global.u64 %rd3, %rd2;\nmul.wide.u32 %rd4, %r4, 4;\nadd.s64 %rd5, %rd3, %rd4;\n\
    st.global.f32 [%rd5], %f8;\nret;\n}\n";

/// `v` as a TOML float.
fn toml_float(v: f32) -> String {
    match v {
        v if v.is_nan() => "nan".into(),
        f32::INFINITY => "inf".into(),
        f32::NEG_INFINITY => "-inf".into(),
        v => format!("{v:?}"),
    }
}

/// What a `block` of threads fetching at (a + x s, b + y s) from the
/// texture with keys `texture` stores.
fn fetch_2d(texture: &str, block: [u32; 2], a: f32, b: f32, s: f32) -> Result<Vec<f32>, String> {
    let spec = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{}, {}]\n\
         [[arg]]\nname = \"tex\"\ntype = \"texture\"\n{texture}\n\
         [[arg]]\nname = \"out\"\ntype = \"f32*\"\nlen = {}\n\
         [[arg]]\nname = \"a\"\ntype = \"f32\"\nvalue = {}\n\
         [[arg]]\nname = \"b\"\ntype = \"f32\"\nvalue = {}\n\
         [[arg]]\nname = \"s\"\ntype = \"f32\"\nvalue = {}\n",
        block[0],
        block[1],
        block[0] * block[1],
        toml_float(a),
        toml_float(b),
        toml_float(s)
    );
    let r = run_text(PTX_2D, &spec)?;
    Ok(f32s(buffer(&r, "out")))
}

fn check_2d(texture: &str, block: [u32; 2], at: (f32, f32, f32), expect: &[f32]) {
    let got = fetch_2d(texture, block, at.0, at.1, at.2)
        .unwrap_or_else(|e| panic!("{texture} at {at:?}: {e}"));
    assert_eq!(got, expect, "{texture} at {at:?}");
}

/// A 4 x 3 float texture holding its texel index (row after row).
const GRID: &str = "texel = \"f32\"\ndims = [4, 3]\ninit = \"iota\"";

#[test]
fn point_sampling_reads_the_texel_a_coordinate_falls_in() {
    // Texel centres, and anywhere inside a texel.
    let iota: Vec<f32> = (0..12).map(|i| i as f32).collect();
    check_2d(GRID, [4, 3], (0.5, 0.5, 1.0), &iota);
    check_2d(GRID, [4, 3], (0.0, 0.99, 1.0), &iota);
    // Normalized coordinates: [0, 1) spans the texture.
    check_2d(
        &format!("{GRID}\nnormalized_coords = true"),
        [1, 1],
        (0.6, 0.5, 0.0),
        &[6.0],
    );
}

#[test]
fn linear_filtering_weighs_the_nearest_texels() {
    let lin = format!("{GRID}\nfilter = \"linear\"");
    // At the corner shared by texels 0, 1, 4, 5: their mean.
    check_2d(&lin, [1, 1], (1.0, 1.0, 0.0), &[2.5]);
    // A quarter of the way from texel 0's centre to texel 1's.
    check_2d(&lin, [1, 1], (0.75, 0.5, 0.0), &[0.25]);
    // The weight is held in 9-bit fixed point (8 fractional bits):
    // 1/3 becomes 85/256.
    check_2d(&lin, [1, 1], (0.5 + 1.0 / 3.0, 0.5, 0.0), &[85.0 / 256.0]);
}

#[test]
fn address_modes_say_what_lies_outside() {
    // Half a texel left of texel 0 (index -1 and 0 weighed equally) of a
    // texture of 10s.
    let base =
        |extra: &str| format!("texel = \"f32\"\ndims = [4, 1]\ninit = {{ fill = 10.0 }}\n{extra}");
    check_2d(
        &base("filter = \"linear\""),
        [1, 1],
        (0.0, 0.5, 0.0),
        &[5.0],
    );
    check_2d(
        &base("filter = \"linear\"\naddress = \"clamp\""),
        [1, 1],
        (0.0, 0.5, 0.0),
        &[10.0],
    );
    // Point sampling left of the texture: zeros under border, the edge
    // texel under clamp.
    check_2d(&base(""), [1, 1], (-0.5, 0.5, 0.0), &[0.0]);
    check_2d(
        &base("address = \"clamp\""),
        [1, 1],
        (-7.5, 0.5, 0.0),
        &[10.0],
    );
    // Wrap and mirror (normalized coordinates) on 0, 1, 2, 3: x = 1.125 is
    // texel 4, which wraps to 0 and mirrors to 3; x = -0.125 is texel -1,
    // which wraps to 3 and mirrors to 0.
    let ramp = |mode: &str| {
        format!(
            "texel = \"f32\"\ndims = [4, 1]\ninit = \"iota\"\nnormalized_coords = true\naddress = \"{mode}\""
        )
    };
    check_2d(&ramp("wrap"), [1, 1], (1.125, 0.5, 0.0), &[0.0]);
    check_2d(&ramp("mirror"), [1, 1], (1.125, 0.5, 0.0), &[3.0]);
    check_2d(&ramp("wrap"), [1, 1], (-0.125, 0.5, 0.0), &[3.0]);
    check_2d(&ramp("mirror"), [1, 1], (-0.125, 0.5, 0.0), &[0.0]);
}

#[test]
fn coordinates_at_infinity_or_nan_read_without_a_fault() {
    for mode in ["border", "clamp"] {
        for filter in ["point", "linear"] {
            let texture = format!("{GRID}\naddress = \"{mode}\"\nfilter = \"{filter}\"");
            for (a, b) in [
                (f32::INFINITY, 0.5),
                (f32::NEG_INFINITY, f32::INFINITY),
                (f32::NAN, 0.5),
                (f32::MAX, -f32::MAX),
            ] {
                let got = fetch_2d(&texture, [1, 1], a, b, 0.0);
                assert!(got.is_ok(), "{texture} at ({a}, {b}): {got:?}");
            }
        }
    }
}

#[test]
fn a_fetch_of_another_rank_than_the_texture_is_a_fault() {
    let e = fetch_2d("texel = \"f32\"\nlen = 12", [1, 1], 0.5, 0.5, 0.0).expect_err("1D as 2D");
    assert!(
        e.contains("`tex` has 1 dimension(s), but the access is tex.2d")
            && e.contains("dims = [W, H]"),
        "{e}"
    );
}

/// Counts the global memory events of a launch.
#[derive(Default)]
struct Loads(u32);

impl emu::observer::Observer for Loads {
    fn memory(&mut self, e: &emu::observer::MemEvent<'_>) {
        self.0 += u32::from(e.space == emu::mem::Space::Global);
    }
}

#[test]
fn a_linear_fetch_loads_each_texel_it_weighs() {
    // One warp: the output store, plus one load (point) or four (bilinear).
    let loads = |texture: &str| {
        let spec = format!(
            "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [4, 3]\n\
             [[arg]]\nname = \"tex\"\ntype = \"texture\"\n{texture}\n\
             [[arg]]\nname = \"out\"\ntype = \"f32*\"\nlen = 12\n\
             [[arg]]\nname = \"a\"\ntype = \"f32\"\nvalue = 0.7\n\
             [[arg]]\nname = \"b\"\ntype = \"f32\"\nvalue = 0.7\n\
             [[arg]]\nname = \"s\"\ntype = \"f32\"\nvalue = 1.0\n"
        );
        let spec = emu::spec::parse(&spec, std::path::Path::new("/k.toml"), &[]).expect("spec");
        let mut count = Loads::default();
        emu::exec::run_ptx(
            PTX_2D,
            "k.ptx",
            &spec,
            emu::exec::LaunchOptions::default(),
            &mut count,
        )
        .expect("runs");
        count.0
    };
    assert_eq!(loads(GRID), 2);
    assert_eq!(loads(&format!("{GRID}\nfilter = \"linear\"")), 5);
}

#[test]
fn the_gpu_launcher_says_it_takes_no_texture_yet() {
    let text = spec_of("texel = \"f32\"\nlen = 4");
    let spec = emu::spec::parse(&text, std::path::Path::new("/k.toml"), &[]).expect("parses");
    let module = ptx::parse("k.ptx", &ptx("f32", 0)).expect("PTX");
    let Err(e) = emu::exec::host_launch(&module, "k.ptx", &spec) else {
        panic!("host_launch took a texture");
    };
    assert!(
        e.to_string().contains(
            "argument `tex`: a texture or surface object runs on the emulator but cannot be launched on a GPU yet"
        ),
        "{e}"
    );
}
