//! What the `learned` model adds to a prediction (issue 30's bar: at most
//! 1 ms per configuration): a launch spec emulated once, then its profile
//! predicted on one GPU many times with `timing` alone and with `timing`
//! and `learned`, and the per-call difference printed; also the one-off
//! read of the model file (once per process).
//!
//! Run: `cargo bench -p pipeline --bench learned [-- SPEC.toml GPU_ID N]`
//! (default: the corpus conv2d spec, geforce-rtx-3090, 2,000 calls). The
//! spec's CUDA source needs NVRTC (scripts/setup.sh, or PTXPERF_NVRTC).

use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let spec = args
        .next()
        .map_or_else(|| root.join("kernels/conv2d/spec.toml"), PathBuf::from);
    let gpu_id = args
        .next()
        .unwrap_or_else(|| "geforce-rtx-3090".to_string());
    let calls: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
    if let Err(e) = run(&spec, &gpu_id, calls) {
        eprintln!("learned bench: {e}");
        std::process::exit(1);
    }
}

fn run(spec: &Path, gpu_id: &str, calls: u32) -> Result<(), String> {
    let catalog = arch::Catalog::bundled().map_err(|e| e.to_string())?;
    let gpu = catalog.get(gpu_id).map_err(|e| e.to_string())?;
    let loaded = pipeline::load_spec(spec, &[]).map_err(|e| e.to_string())?;
    let opts = pipeline::Options {
        sample_ctas: Some(8),
        gpu: Some(gpu.clone()),
        ..pipeline::Options::default()
    };
    let profiled = pipeline::profile(&loaded, &opts).map_err(|e| e.to_string())?;
    let profile = &profiled.profile;

    let path = models::learned::model_path();
    let start = Instant::now();
    models::learned::load(&path).map_err(|e| e.to_string())?;
    let load_ms = start.elapsed().as_secs_f64() * 1e3;

    let timing = vec!["timing".to_string()];
    let both = vec!["timing".to_string(), "learned".to_string()];
    // The first call reads the model file (once per process): not timed.
    let first = pipeline::predict_profile(profile, gpu, &both).map_err(|e| e.to_string())?;
    let per_call = |names: &[String]| -> Result<f64, String> {
        let start = Instant::now();
        for _ in 0..calls {
            let p = pipeline::predict_profile(profile, gpu, names).map_err(|e| e.to_string())?;
            std::hint::black_box(p);
        }
        Ok(start.elapsed().as_secs_f64() * 1e3 / f64::from(calls))
    };
    // Interleaved twice, the smaller of each kept, against a busy machine.
    let mut t = f64::INFINITY;
    let mut tl = f64::INFINITY;
    for _ in 0..2 {
        t = t.min(per_call(&timing)?);
        tl = tl.min(per_call(&both)?);
    }
    let learned = first
        .predictions
        .iter()
        .find(|p| p.model == "learned")
        .ok_or("no learned prediction")?;
    println!(
        "{} on {gpu_id}: learned {:.4} ms ({})",
        spec.display(),
        learned.seconds * 1e3,
        learned.bottleneck
    );
    println!(
        "model file {}: read and checked in {load_ms:.1} ms (once per process)",
        path.display()
    );
    println!(
        "per call over {calls} calls: timing {:.4} ms, timing + learned {:.4} ms: learned adds {:.4} ms",
        t,
        tl,
        tl - t
    );
    Ok(())
}
