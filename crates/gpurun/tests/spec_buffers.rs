//! Launch specs of the corpus marshalled for the GPU, and a GPU run's
//! buffers compared with the emulator's (no GPU needed: the "GPU" side is
//! made up from the emulator's own buffers).

use emu::exec::{LaunchOptions, launch_boxed};
use emu::observer::NoObserver;
use gpurun::OutBuffer;
use gpurun::compare::Status;
use gpurun::compare::compare_buffers;
use gpurun::{SpecRun, SpecRunResult};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(kernel: &str) -> pipeline::LoadedSpec {
    let dir = root().join("kernels").join(kernel);
    let opts = pipeline::LoadOptions {
        nvrtc: None,
        ptx: Some(dir.join("sm_80.ptx")),
    };
    match pipeline::load_spec_with(&dir.join("spec.toml"), &[], &opts) {
        Ok(l) => l,
        Err(e) => panic!("{kernel}: {e}"),
    }
}

#[test]
fn every_corpus_spec_marshals_for_the_gpu() {
    let mut kernels = 0;
    for entry in std::fs::read_dir(root().join("kernels"))
        .into_iter()
        .flatten()
    {
        let Ok(entry) = entry else { continue };
        if !entry.path().join("spec.toml").exists() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let loaded = load(&name);
        let host = emu::exec::host_launch(&loaded.module, &loaded.ptx_file, &loaded.spec)
            .unwrap_or_else(|f| panic!("{name}: {f}"));
        let run = SpecRun::new(&loaded.ptx, &loaded.spec, host, 3, 20);
        assert_eq!(run.args.len(), loaded.spec.args.len(), "{name}");
        assert!(
            loaded.ptx.contains(&format!(".entry {}(", run.entry)),
            "{name}: entry `{}` is not in the PTX",
            run.entry
        );
        kernels += 1;
    }
    assert!(kernels >= 30, "only {kernels} corpus kernels");
}

#[test]
fn buffers_compare_with_the_emulator_in_argument_order() {
    let loaded = load("map");
    let emulated = launch_boxed(
        &loaded.module,
        &loaded.ptx,
        &loaded.ptx_file,
        &loaded.spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .unwrap_or_else(|f| panic!("{f}"));
    let mut measured = SpecRunResult {
        device: "test".into(),
        compute_capability: (9, 0),
        times_ms: vec![0.004],
        buffers: emulated
            .buffers
            .iter()
            .map(|b| OutBuffer {
                name: b.name.clone(),
                bytes: b.bytes.clone(),
            })
            .collect(),
    };
    let statuses = |m: &SpecRunResult| -> Vec<(String, Status)> {
        compare_buffers(m, &emulated.buffers, &loaded.spec)
            .into_iter()
            .map(|c| (c.buffer, c.status))
            .collect()
    };
    let same = vec![
        ("x".to_string(), Status::Identical),
        ("out".to_string(), Status::Identical),
    ];
    assert_eq!(statuses(&measured), same);
    // One element of `out` changed by far more than the tolerance.
    measured.buffers[1].bytes[4..8].copy_from_slice(&1e9f32.to_le_bytes());
    let c = compare_buffers(&measured, &emulated.buffers, &loaded.spec);
    assert_eq!(c[1].status, Status::Different);
    assert_eq!((c[1].first_diff_index, c[1].differing), (Some(1), 1));
    // The same difference in a buffer the spec marks order-dependent is
    // reported as such and no longer counts as a failure.
    let mut spec = loaded.spec.clone();
    for a in &mut spec.args {
        if let emu::spec::ArgSpec::Buffer(b) = a {
            b.order_dependent = b.name == "out";
        }
    }
    let c = compare_buffers(&measured, &emulated.buffers, &spec);
    assert_eq!(c[1].status, Status::OrderDependent);
    assert!(!c[1].status.is_different());
    assert_eq!(c[0].status, Status::Identical);
}

#[test]
fn the_atomics_kernel_marks_its_cas_winner_order_dependent() {
    // flag[1] holds the g + 1 of whichever thread won an atomicCAS; an
    // H100 ended with 129 where the emulator has 1 (data/measured).
    let loaded = load("atomics_global");
    let marked: Vec<&str> = loaded
        .spec
        .args
        .iter()
        .filter_map(|a| match a {
            emu::spec::ArgSpec::Buffer(b) if b.order_dependent => Some(b.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(marked, ["flag"]);
}
