//! The emulated counts of corpus kernels, and the choice of the best thread count.

use super::emulated::{EmulatedBlock, SpecRow, best_threads, emulate};
use crate::warp;
use crate::{WarpCounts, WarpModelConfig};
use std::path::Path;

fn row(spec: &str, threads: u32, steps: f64) -> SpecRow {
    SpecRow {
        spec: spec.into(),
        kernel: "k".into(),
        threads: Some(threads),
        block_threads: threads,
        ctas: 1,
        warps: 1,
        block_counts: WarpCounts::default(),
        warp0: WarpCounts::default(),
        other_warps: None,
        mean_steps: steps,
        min_steps: 0,
        max_steps: 0,
        mean_idle_steps: 0.0,
        runs: 1,
    }
}

#[test]
fn best_thread_count_per_spec() {
    let rows = [
        row("a", 32, 10.0),
        row("a", 64, 5.0),
        row("b", 32, 3.0),
        row("a", 128, 5.0),
        row("b", 64, 4.0),
    ];
    assert_eq!(
        best_threads(&rows),
        vec![("a".to_string(), 64), ("b".to_string(), 32)]
    );
}

/// Emulate a corpus kernel from its checked-in PTX (no NVRTC needed).
fn corpus(name: &str) -> EmulatedBlock {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../kernels")
        .join(name);
    let load = pipeline::LoadOptions {
        nvrtc: None,
        ptx: Some(root.join("sm_80.ptx")),
    };
    emulate(&root.join("spec.toml"), &[], None, &load).expect("the corpus kernel runs")
}

#[test]
fn spec_path_counts_the_radix_sorts() {
    // 64 threads, 16 keys each, 16 bits (the corpus specs): 2 warps.
    let b = corpus("radix_shared");
    assert_eq!(
        (b.kernel.as_str(), b.block_threads, b.ctas, b.warps.len()),
        ("radix_shared", 64, 1, 2)
    );
    // Every warp loads its 16 keys per bit from global memory and
    // writes them back: at least 2 * 16 * 16 global accesses per warp;
    // the partial sums live in shared memory.
    for w in &b.warps {
        assert!(w.global >= 2 * 16 * 16, "{w:?}");
        assert!(w.shared > 0 && w.arithmetic > w.global, "{w:?}");
    }
    let global = corpus("radix_global").warps;
    assert!(global.iter().all(|w| w.shared == 0), "{global:?}");
    // Thread 0 computes the prefix sums alone: warp 0 does more global work.
    assert!(global[0].global > global[1].global, "{global:?}");
    let cfg = WarpModelConfig::uniform(1, WarpCounts::default());
    let model = WarpModelConfig {
        warps: global.clone(),
        ..cfg
    };
    let report = warp::simulate(&model, 2, 1, None).expect("the model runs");
    let slowest = global.iter().map(|w| w.total()).max().unwrap_or(0);
    assert!(report.mean_steps >= slowest as f64, "{report:?}");
}
