//! Issue 5 acceptance: `predict` on every corpus kernel (kernels/*/spec.toml)
//! for the GTX 280, V100, A100 and H100 gives a finite, positive time from
//! every default model.
//!
//! The specs name `.cu` sources; this test loads the checked-in `sm_80.ptx`
//! (what NVRTC made of the source with the spec's defines) so it needs no
//! NVRTC. `nvrtc_matches_checked_in.rs` checks the compile path.

mod common;

use common::corpus;

use arch::Catalog;
use pipeline::{LoadOptions, Options, Policy, load_spec_with, predict, profile};

const GPUS: [&str; 4] = [
    "geforce-gtx-280",
    "tesla-v100-sxm2-16gb",
    "a100-pcie-40gb",
    "h100-sxm5-80gb",
];

#[test]
fn every_corpus_kernel_gets_finite_positive_times_on_four_gpus() {
    let dirs = corpus();
    assert!(dirs.len() >= 25, "corpus not found: {} kernels", dirs.len());
    let catalog = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => panic!("catalog: {e}"),
    };
    let mut failures = Vec::new();
    for dir in &dirs {
        let opts = LoadOptions {
            ptx: Some(dir.join("sm_80.ptx")),
            ..LoadOptions::default()
        };
        let loaded = match load_spec_with(&dir.join("spec.toml"), &[], &opts) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{}: load: {e}", dir.display()));
                continue;
            }
        };
        let profiled = match profile(
            &loaded,
            &Options {
                policy: Policy::Ipdom,
                ..Options::default()
            },
        ) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: profile: {e}", dir.display()));
                continue;
            }
        };
        assert!(
            profiled.profile.resources.registers_per_thread > 0,
            "{}: no register count",
            dir.display()
        );
        for id in GPUS {
            let gpu = match catalog.get(id) {
                Ok(g) => g,
                Err(e) => panic!("{id}: {e}"),
            };
            match predict(&profiled, gpu, &[]) {
                Ok(p) => {
                    assert_eq!(p.predictions.len(), pipeline::default_models().len());
                    for m in &p.predictions {
                        if !(m.seconds.is_finite() && m.seconds > 0.0) {
                            failures.push(format!(
                                "{} on {id}: {} gives {} s",
                                dir.display(),
                                m.model,
                                m.seconds
                            ));
                        }
                    }
                }
                Err(e) => failures.push(format!("{} on {id}: {e}", dir.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
