//! Device-side `malloc` / `free` in a CUDA kernel compiled by NVRTC: each
//! thread's block is its own and usable, and `run` says the CTAs ran
//! sequentially (docs/conformance.md, "Device `malloc` and `free`").

mod common;

use common::kernels::{dumped, run_kernel, spec};
use common::nvrtc_available;

const SOURCE: &str = r#"
extern "C" __global__ void km(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *tmp = (float *)malloc(4 * sizeof(float));
    if (tmp == nullptr) { out[i] = -1.0f; return; }
    for (int k = 0; k < 4; k++) tmp[k] = i + k;
    float s = 0;
    for (int k = 0; k < 4; k++) s += tmp[k];
    free(tmp);
    if (i < n) out[i] = s;
}
"#;

#[test]
fn each_thread_sums_its_own_block() {
    if !nvrtc_available() {
        return;
    }
    let s = spec(
        r#"kernel = "km"; grid = [4]; block = [64]"#,
        &[("out", "f32*", "len = 256"), ("n", "i32", "value = 256")],
    );
    let (dir, text) = run_kernel("device-malloc", SOURCE, &s);
    let out = dumped(&dir, "out", f32::from_le_bytes);
    // i + (i+1) + (i+2) + (i+3) = 4i + 6 for every thread: no block shared.
    let want: Vec<f32> = (0..256).map(|i| 4.0 * i as f32 + 6.0).collect();
    assert_eq!(out, want);
    assert!(
        text.contains("global atomics or device malloc, so its CTAs ran sequentially"),
        "{text}"
    );
}
