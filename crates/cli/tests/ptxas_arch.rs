//! `predict` on several GPUs runs ptxas for each GPU's own architecture
//! where the GPU can run the PTX, and says so where it cannot (a GPU older
//! than the PTX's target).

mod common;

use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `predict examples/saxpy.toml` (PTX for sm_80) on `gpus` with the
/// timing model and `extra` options: its standard output, after checking
/// that it succeeded.
fn predict(gpus: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "predict",
        "examples/saxpy.toml",
        "--set",
        "N=4096",
        "--gpu",
        gpus,
        "--model",
        "timing",
    ];
    args.extend_from_slice(extra);
    let out = common::ptxperf_in(&repo(), &args);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// [`predict`] in JSON: for each GPU its `ptxas_arch` and the timing
/// model's code size.
fn ptxas_archs(gpus: &str) -> Vec<(String, String, f64)> {
    let stdout = predict(gpus, &["--json", "--quiet"]);
    let v: serde_json::Value = serde_json::from_slice(&stdout).expect("JSON");
    let list = match v.get("gpus") {
        Some(serde_json::Value::Array(list)) => list.clone(),
        _ => vec![v],
    };
    list.iter()
        .map(|g| {
            (
                g["gpu"].as_str().unwrap_or_default().to_string(),
                g["occupancy"]["ptxas_arch"]
                    .as_str()
                    .unwrap_or("-")
                    .to_string(),
                g["models"][0]["breakdown"]["code_bytes"]
                    .as_f64()
                    .unwrap_or(f64::NAN),
            )
        })
        .collect()
}

#[test]
fn each_gpu_gets_ptxas_for_its_own_architecture() {
    if !common::nvrtc_available() || !common::ptxas_available() {
        return;
    }
    // saxpy's spec targets sm_80: the H100 and the RTX 3090 run that PTX
    // built for sm_90 and sm_86; the A100 is sm_80 itself.
    let got = ptxas_archs("a100-sxm4-80gb,h100-sxm5-80gb,geforce-rtx-3090");
    let archs: Vec<(&str, &str)> = got
        .iter()
        .map(|(g, a, _)| (g.as_str(), a.as_str()))
        .collect();
    assert_eq!(
        archs,
        [
            ("a100-sxm4-80gb", "sm_80"),
            ("h100-sxm5-80gb", "sm_90"),
            ("geforce-rtx-3090", "sm_86")
        ],
        "{got:?}"
    );
    // The code size is the SASS ptxas built: 16 B instructions from Volta on.
    for (gpu, _, code) in &got {
        assert!(*code > 0.0 && code % 16.0 == 0.0, "{gpu}: {code}");
    }
}

/// [`predict`]'s table on one GPU.
fn predict_text(gpu: &str) -> String {
    String::from_utf8_lossy(&predict(gpu, &[])).into_owned()
}

#[test]
fn a_gpu_older_than_the_ptx_target_is_told_so() {
    if !common::nvrtc_available() || !common::ptxas_available() {
        return;
    }
    common::assert_contains_all(
        &predict_text("geforce-gtx-1080-ti"),
        &[
            "registers/thread (from ptxas, sm_80)",
            "note: the PTX targets sm_80, newer than this GPU (6.1), which cannot run it",
            "`arch = \"sm_61\"`",
        ],
    );
    // Its own architecture gets no such note.
    let text = predict_text("h100-sxm5-80gb");
    assert!(text.contains("(from ptxas, sm_90)"), "{text}");
    assert!(!text.contains("newer than this GPU"), "{text}");
}

/// A kernel of 8,000 independent FMAs, fully unrolled (86 KB of SASS for
/// sm_61: well beyond the GTX 1080 Ti's 32 KiB instruction cache), and its
/// spec, in a fresh folder. On Pascal the FP32 pipe keeps up with issue, so
/// instruction fetch bounds it.
fn big_kernel() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-big-kernel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let source = r#"extern "C" __global__ void big(float *out, float a)
{
    float x[8];
#pragma unroll
    for (int k = 0; k < 8; k++)
        x[k] = threadIdx.x + k;
#pragma unroll
    for (int i = 0; i < STEPS; i++) {
#pragma unroll
        for (int k = 0; k < 8; k++)
            x[k] = x[k] * a + 1.0f;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++)
        s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"#;
    let spec = r#"source = "big.cu"
kernel = "big"
arch = "sm_61"
defines = { STEPS = 1000, BLOCK = 256 }
grid = [1728]
block = ["BLOCK"]

[[arg]]
name = "out"
type = "f32*"
len = "1728 * BLOCK"

[[arg]]
name = "a"
type = "f32"
value = 0.5
"#;
    std::fs::write(dir.join("big.cu"), source).expect("write");
    std::fs::write(dir.join("big.toml"), spec).expect("write");
    dir
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn tune_prices_the_code_size_as_predict_does() {
    if !common::nvrtc_available() || !common::ptxas_available() {
        return;
    }
    // Before 2026-12-06 tune's profiles had no code size (nor spills), so
    // its timing model charged no instruction fetch: 0.632 ms here against
    // predict's 0.928.
    let dir = big_kernel();
    let gpu = [
        "--gpu",
        "a100-sxm4-80gb",
        "--model",
        "timing",
        "--json",
        "--quiet",
    ];
    let mut args = vec!["predict", "big.toml"];
    args.extend_from_slice(&gpu);
    let predicted = json_of(&common::ptxperf_in(&dir, &args));
    let code = predicted["models"][0]["breakdown"]["code_bytes"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(code > 65536.0, "{code} B of SASS");
    let bottleneck = predicted["models"][0]["bottleneck"].as_str().unwrap_or("");
    assert!(bottleneck.starts_with("compute issue"), "{bottleneck}");
    let seconds = predicted["models"][0]["seconds"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let mut args = vec!["tune", "big.toml", "--param", "BLOCK=256"];
    args.extend_from_slice(&gpu);
    let tuned = json_of(&common::ptxperf_in(&dir, &args));
    let ms = tuned["configurations"][0]["result"]["models"][0]["ms"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(
        (ms / 1e3 - seconds).abs() <= 1e-9 * seconds,
        "tune {ms} ms, predict {seconds} s"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
