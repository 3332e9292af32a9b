//! Texture objects as CUDA code uses them: `tex1Dfetch<T>(obj, i)` on a
//! `cudaTextureObject_t` over linear memory, compiled by NVRTC and run on
//! the emulator with a `type = "texture"` argument; the profile counts a
//! fetch as a global load on the read-only path, as `__ldg`; the forms not
//! run yet are named.

mod common;

use common::kernels::{dumped, run_kernel, run_refused, spec};
use common::{nvrtc_available, ptxperf_in};

const SOURCE: &str = r#"
extern "C" __global__ void fetch(cudaTextureObject_t tex, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i) * 2.0f;
}
extern "C" __global__ void fetch4(cudaTextureObject_t tex, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = tex1Dfetch<float4>(tex, i);
        out[i] = v.x + v.y + v.z + v.w;
    }
}
extern "C" __global__ void fetch_uchar4(cudaTextureObject_t tex, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float4>(tex, i).y;
}
extern "C" __global__ void ldg(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&in[i]) * 2.0f;
}
"#;

/// A launch of `kernel` over 1000 threads whose first argument is `first`
/// (type, keys).
fn launch(kernel: &str, first: (&str, &str)) -> String {
    spec(
        &format!(
            r#"kernel = "{kernel}"; arch = "sm_80"; defines = {{ N = 1000 }}; grid = ["(N + 127) / 128"]; block = [128]"#
        ),
        &[
            ("tex", first.0, first.1),
            ("out", "f32*", r#"len = "N""#),
            ("n", "i32", r#"value = "N""#),
        ],
    )
}

#[test]
fn tex1dfetch_reads_each_threads_texel() {
    if !nvrtc_available() {
        return;
    }
    // float texels hold i; float4 texels 4i .. 4i + 3.
    for (kernel, texel, want) in [
        (
            "fetch",
            "f32",
            (0..1000).map(|i| 2.0 * i as f32).collect::<Vec<_>>(),
        ),
        (
            "fetch4",
            "f32x4",
            (0..1000).map(|i| 16.0 * i as f32 + 6.0).collect(),
        ),
    ] {
        let keys = format!(r#"texel = "{texel}"; len = "N"; init = "iota""#);
        let (dir, _) = run_kernel(
            &format!("tex-{texel}"),
            SOURCE,
            &launch(kernel, ("texture", &keys)),
        );
        assert_eq!(dumped(&dir, "out", f32::from_le_bytes), want, "{kernel}");
    }
    // uchar4 read normalized: channel y of every texel is 51 / 255.
    let (dir, _) = run_kernel(
        "tex-u8x4",
        SOURCE,
        &launch(
            "fetch_uchar4",
            (
                "texture",
                r#"texel = "u8x4"; len = "N"; init = { fill = 51 }; read = "normalized""#,
            ),
        ),
    );
    let out = dumped(&dir, "out", f32::from_le_bytes);
    assert!(out.iter().all(|&v| v == 51.0 / 255.0), "{:?}", &out[..4]);
}

#[test]
fn a_fetch_is_profiled_as_the_read_only_load_it_replaces() {
    if !nvrtc_available() {
        return;
    }
    let profile = |kernel: &str, first: (&str, &str)| -> serde_json::Value {
        let (dir, _) = run_kernel(
            &format!("tex-json-{kernel}"),
            SOURCE,
            &launch(kernel, first),
        );
        let out = ptxperf_in(&dir, &["characterize", "spec.toml", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("characterize --json")
    };
    let tex = profile("fetch", ("texture", r#"texel = "f32"; len = "N""#));
    let ldg = profile("ldg", ("f32*", r#"len = "N""#));
    for key in ["global_requests", "global_sectors", "global_transactions"] {
        assert!(
            tex[key].as_f64().unwrap_or(0.0) > 0.0,
            "{key}: {}",
            tex[key]
        );
        assert_eq!(tex[key], ldg[key], "{key}");
    }
    // The fetch counts as a global load in the mix, as the __ldg does.
    let loads = |p: &serde_json::Value| p["instruction_mix"]["ld_global"].clone();
    assert_eq!(loads(&tex), loads(&ldg));
}

const SOURCE_2D: &str = r#"
extern "C" __global__ void shift(cudaTextureObject_t tex, float *out, int w, int h, float dx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + 0.5f + dx, y + 0.5f);
}
extern "C" __global__ void volume(cudaTextureObject_t tex, float *out, int w, int h, float dx) {
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    out[(z * h + y) * w + x] = tex3D<float>(tex, x + 0.5f, y + 0.5f, z + 0.5f);
}
"#;

/// `kernel` over a W x H x D block with the texture `keys`.
fn launch_2d(kernel: &str, block: &str, keys: &str, dx: f32) -> String {
    spec(
        &format!(r#"kernel = "{kernel}"; arch = "sm_80"; grid = [1]; block = {block}"#),
        &[
            ("tex", "texture", keys),
            ("out", "f32*", "len = 48"),
            ("w", "i32", "value = 4"),
            ("h", "i32", "value = 3"),
            ("dx", "f32", &format!("value = {dx:?}")),
        ],
    )
}

#[test]
fn tex2d_and_tex3d_sample_as_the_texture_says() {
    if !nvrtc_available() {
        return;
    }
    // Texel centres, point sampling: the texture itself.
    let grid = r#"texel = "f32"; dims = [4, 3]; init = "iota""#;
    let (dir, _) = run_kernel(
        "tex-2d-point",
        SOURCE_2D,
        &launch_2d("shift", "[4, 3]", grid, 0.0),
    );
    let out = dumped(&dir, "out", f32::from_le_bytes);
    assert_eq!(&out[..12], (0..12).map(|i| i as f32).collect::<Vec<_>>());
    // Half a texel right, bilinear, clamped: the mean of each texel and its
    // right neighbour, the last column its own.
    let (dir, _) = run_kernel(
        "tex-2d-linear",
        SOURCE_2D,
        &launch_2d(
            "shift",
            "[4, 3]",
            &format!(r#"{grid}; filter = "linear"; address = "clamp""#),
            0.5,
        ),
    );
    let out = dumped(&dir, "out", f32::from_le_bytes);
    let want: Vec<f32> = (0..12)
        .map(|i| if i % 4 == 3 { i as f32 } else { i as f32 + 0.5 })
        .collect();
    assert_eq!(&out[..12], want);
    // A 4 x 3 x 4 volume.
    let (dir, _) = run_kernel(
        "tex-3d",
        SOURCE_2D,
        &launch_2d(
            "volume",
            "[4, 3, 4]",
            r#"texel = "f32"; dims = [4, 3, 4]; init = "iota""#,
            0.0,
        ),
    );
    let out = dumped(&dir, "out", f32::from_le_bytes);
    assert_eq!(out, (0..48).map(|i| i as f32).collect::<Vec<_>>());
}

#[test]
fn texture_forms_not_run_yet_are_named() {
    if !nvrtc_available() {
        return;
    }
    let source = r#"
extern "C" __global__ void k(cudaTextureObject_t tex, float *out, int w) {
    int x = threadIdx.x;
    out[x] = tex2DLod<float>(tex, x + 0.5f, 0.5f, 1.0f);
}
"#;
    let err = run_refused(
        "tex-lod",
        source,
        &spec(
            r#"kernel = "k"; grid = [1]; block = [32]"#,
            &[
                ("tex", "texture", r#"texel = "f32"; dims = [32, 1]"#),
                ("out", "f32*", "len = 32"),
                ("w", "i32", "value = 32"),
            ],
        ),
    );
    assert!(
        err.contains("a texture fetch other than `tex1Dfetch`, `tex1D`, `tex2D` or `tex3D`")
            && err.contains("tex.level.2d"),
        "{err}"
    );
}

const SURFACES: &str = r#"
extern "C" __global__ void twice(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float v = surf2Dread<float>(in, x * 4, y);
        surf2Dwrite(v * 2.0f, out, x * 4, y);
    }
}
extern "C" __global__ void reverse(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = threadIdx.x;
    uchar4 v = surf1Dread<uchar4>(in, (x + 1) * 4, cudaBoundaryModeClamp);
    surf1Dwrite(make_uchar4(v.w, v.z, v.y, v.x), out, x * 4);
}
"#;

#[test]
fn surf2dread_and_surf2dwrite_copy_bytes_of_rows() {
    if !nvrtc_available() {
        return;
    }
    let launch = |kernel: &str, block: &str, texel: &str, shape: &str| {
        spec(
            &format!(r#"kernel = "{kernel}"; arch = "sm_80"; grid = [1]; block = {block}"#),
            &[
                (
                    "in",
                    "surface",
                    &format!(r#"texel = "{texel}"; {shape}; init = "iota""#),
                ),
                ("out", "surface", &format!(r#"texel = "{texel}"; {shape}"#)),
                ("w", "i32", "value = 4"),
                ("h", "i32", "value = 3"),
            ],
        )
    };
    let (dir, _) = run_kernel(
        "surf-2d",
        SURFACES,
        &launch("twice", "[4, 3]", "f32", "dims = [4, 3]"),
    );
    let out = dumped(&dir, "out", f32::from_le_bytes);
    assert_eq!(out, (0..12).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
    // Each thread reads the next uchar4 (the last one clamped to the edge)
    // and writes it reversed.
    let (dir, _) = run_kernel(
        "surf-1d",
        SURFACES,
        &launch("reverse", "[4]", "u8x4", "len = 4"),
    );
    let out = std::fs::read(dir.join("out").join("out.bin")).expect("out.bin");
    assert_eq!(
        out,
        [7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 15, 14, 13, 12]
    );
}
