//! Kernels that take structs by value, compiled by NVRTC: a `Params`
//! struct, a `float4` and a `__grid_constant__` parameter, given in the
//! launch spec as `type = "struct"` arguments (docs/launch-spec.md,
//! "Structs by value"), and a struct of pointers, each member its own
//! buffer, dumped under `<argument>.<member>`; a struct whose fields do not
//! add up to the parameter's size is refused with both sizes.

mod common;

use common::kernels::{dumped, run_kernel, run_refused, spec};
use common::nvrtc_available;

const SOURCE: &str = r#"
struct Params { float alpha; int n; double eps; unsigned char flags; };
extern "C" __global__ void scale(Params p, float *x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) x[i] = x[i] * p.alpha + (float)p.eps + p.flags;
}
struct Args { const float *in; float *out; int n; };
extern "C" __global__ void triple(Args a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) a.out[i] = 3.0f * a.in[i];
}
extern "C" __global__ void addv(float4 v, __grid_constant__ const Params q, float *x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < q.n) x[i] += v.x + 2.0f * v.y + 3.0f * v.z + 4.0f * v.w;
}
"#;

const PARAMS: &str = r#"fields = [{ type = "f32", value = 2.0 }, { type = "i32", value = "N - 24" }, { type = "f64", value = 0.5 }, { type = "u8", value = 3 }]"#;

#[test]
fn struct_fields_reach_the_kernel() {
    if !nvrtc_available() {
        return;
    }
    let s = spec(
        r#"kernel = "scale"; defines = { N = 1024 }; grid = [4]; block = [256]"#,
        &[
            ("params", "struct", PARAMS),
            ("x", "f32*", r#"len = "N"; init = "iota""#),
        ],
    );
    let (dir, _) = run_kernel("struct-params", SOURCE, &s);
    let x = dumped(&dir, "x", f32::from_le_bytes);
    // x[i] = 2 i + 0.5 + 3 for i < n = 1000, untouched (i) beyond.
    assert_eq!(&x[..2], &[3.5, 5.5]);
    assert_eq!(x[999], 2001.5);
    assert_eq!(x[1000], 1000.0);

    let s = spec(
        r#"kernel = "addv"; defines = { N = 34 }; grid = [1]; block = [64]"#,
        &[
            (
                "v",
                "struct",
                r#"align = 16; fields = [{ type = "f32", value = 1 }, { type = "f32", value = 2 }, { type = "f32", value = 3 }, { type = "f32", value = 4 }]"#,
            ),
            ("q", "struct", PARAMS),
            ("x", "f32*", "len = 64"),
        ],
    );
    let (dir, _) = run_kernel("struct-float4", SOURCE, &s);
    let x = dumped(&dir, "x", f32::from_le_bytes);
    // 1 + 4 + 9 + 16 = 30 for i < q.n = 10.
    assert_eq!(
        &x[..11],
        &[
            30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 30.0, 0.0
        ]
    );
}

#[test]
fn a_struct_missing_a_field_is_refused_with_both_sizes() {
    if !nvrtc_available() {
        return;
    }
    let s = spec(
        r#"kernel = "scale"; grid = [1]; block = [32]"#,
        &[
            (
                "params",
                "struct",
                r#"fields = [{ type = "f32", value = 2.0 }, { type = "i32", value = 10 }]"#,
            ),
            ("x", "f32*", "len = 32"),
        ],
    );
    let err = run_refused("struct-short", SOURCE, &s);
    assert!(
        err.contains("argument `params` is a struct of 8 bytes (2 fields, aligned to 4), but parameter 0 `scale_param_0` takes 24 bytes"),
        "{err}"
    );
}

#[test]
fn pointer_members_are_buffers_dumped_under_their_member_names() {
    if !nvrtc_available() {
        return;
    }
    let s = spec(
        r#"kernel = "triple"; grid = [1]; block = [64]"#,
        &[(
            "args",
            "struct",
            r#"fields = [{ name = "in", type = "f32*", len = 64, init = "iota" }, { name = "out", type = "f32*", len = 64 }, { type = "i32", value = 50 }]"#,
        )],
    );
    let (dir, _) = run_kernel("struct-pointers", SOURCE, &s);
    let out = dumped(&dir, "args.out", f32::from_le_bytes);
    assert_eq!(out.len(), 64);
    assert_eq!(&out[..3], &[0.0, 3.0, 6.0]);
    assert_eq!(out[49], 147.0);
    assert_eq!(out[50], 0.0);
}
