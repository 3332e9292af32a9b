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
