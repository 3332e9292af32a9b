//! A validation study end to end on a few convolution configurations: the real
//! Kernel Tuner source (fetched by scripts/fetch-validation-kernels.sh),
//! NVRTC, the emulator, every model. The image is shrunk to 64x64 (the
//! source and the experiment file are copied with their sizes changed) so
//! that the test runs in seconds; the measured times are a small fixture
//! written here.
//!
//! Without NVRTC or the fetched source the test says so and passes, except
//! under CI (env `CI` set), where both must be present.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pipeline::Stage;
use validate::score::Attempt;

use super::{Options, Study, run};
use crate::error::StudyError;
use crate::timings::Timings;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

/// The fixture: five configurations, one measured as failed. Parameter
/// order and names are those of the Kernel Tuner convolution caches.
fn kt_cache() -> String {
    let keys = [
        "filter_width",
        "filter_height",
        "block_size_x",
        "block_size_y",
        "tile_size_x",
        "tile_size_y",
        "use_padding",
        "read_only",
    ];
    let configs: [([i64; 8], &str); 5] = [
        ([15, 15, 16, 16, 1, 1, 0, 0], "0.5"),
        ([15, 15, 32, 8, 2, 2, 1, 0], "0.25"),
        ([15, 15, 16, 8, 4, 1, 1, 1], "0.3"),
        ([15, 15, 64, 4, 1, 2, 0, 1], "0.4"),
        ([15, 15, 128, 8, 8, 8, 1, 0], "\"CompilationFailedConfig\""),
    ];
    let entries: Vec<String> = configs
        .iter()
        .map(|(v, time)| {
            let key: Vec<String> = v.iter().map(i64::to_string).collect();
            let fields: Vec<String> = keys
                .iter()
                .zip(v)
                .map(|(k, x)| format!("\"{k}\": {x}"))
                .collect();
            format!(
                "\"{}\": {{{}, \"time\": {time}}}",
                key.join(","),
                fields.join(", ")
            )
        })
        .collect();
    let quoted: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    format!(
        "{{\"device_name\": \"NVIDIA GeForce RTX 3090\", \"kernel_name\": \"convolution_kernel\", \
         \"problem_size\": [64, 64], \"tune_params_keys\": [{}], \"cache\": {{{}}}}}",
        quoted.join(", "),
        entries.join(", ")
    )
}

/// The repository's convolution experiment with a 64x64 image and the
/// source path made absolute.
fn small_experiment(root: &Path, source: &Path) -> Result<String, String> {
    let path = root.join("experiments").join("convolution.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = text.replace("4096", "64").replace(
        "\"../third_party/kernel_tuner/convolution.cu\"",
        &format!("{:?}", source.display().to_string()),
    );
    if !text.contains("problem_size = [64, 64]") {
        return Err(
            "experiments/convolution.toml no longer has problem_size = [4096, 4096]".to_string(),
        );
    }
    Ok(text)
}

/// The breakdown of a study: one per configuration run (none for the one
/// measured as failed), every stage's time within the configuration's
/// total, the totals their sum, the stages in `busy` non-zero, and
/// `ptx_hits` PTX cache hits in all.
/// The row index and launch of the data's first measured configuration.
fn first_measured(
    experiment: &validate::Experiment,
    dataset: &validate::Dataset,
) -> (usize, validate::Launch) {
    let (i, row) = dataset
        .rows
        .iter()
        .enumerate()
        .find(|(_, r)| r.measured.mean_ms().is_some())
        .expect("a measured configuration");
    let launch = experiment
        .launch(&dataset.named_values(row))
        .expect("its launch");
    (i, launch)
}

fn check_timings(study: &Study, busy: &[Stage], ptx_hits: usize) {
    assert_eq!(study.timings.len(), study.outcomes.len());
    let mut sum = Timings::default();
    for (o, t) in study.outcomes.iter().zip(&study.timings) {
        match (&o.attempt, t) {
            (Attempt::NotRun, None) => {}
            (Attempt::NotRun, Some(t)) => panic!("{}: not run, timed {t:?}", o.index),
            (_, None) => panic!("configuration {} has no breakdown", o.index),
            (_, Some(t)) => {
                assert_eq!(t.configurations, 1);
                assert!(t.stages.sum() <= t.total, "{}: {t:?}", o.index);
                assert_eq!(t.other() + t.stages.sum(), t.total);
                assert_eq!(t.result_cache_hits, 0);
                sum.add(t);
            }
        }
    }
    assert_eq!(sum, study.timing_totals);
    assert_eq!(sum.configurations, 4);
    assert_eq!(sum.ptx_cache_hits, ptx_hits);
    for stage in busy {
        assert!(sum.stage(*stage) > Duration::ZERO, "{stage:?}: {sum:?}");
    }
}

#[test]
fn validate_runs_end_to_end_on_convolution_configurations() {
    let ci = std::env::var_os("CI").is_some();
    let root = repo_root();
    let source = root
        .join("third_party")
        .join("kernel_tuner")
        .join("convolution.cu");
    if !source.is_file() {
        assert!(
            !ci,
            "{} is missing: run scripts/fetch-validation-kernels.sh",
            source.display()
        );
        eprintln!(
            "skipped: {} is missing (run scripts/fetch-validation-kernels.sh)",
            source.display()
        );
        return;
    }
    if let Err(e) = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)) {
        assert!(!ci, "NVRTC is required under CI: {e}");
        eprintln!("skipped: NVRTC is not available ({e})");
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptxperf-validate-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let experiment = dir.join("convolution-64.toml");
    let data = dir.join("cache.json");
    let small_source = dir.join("convolution.cu");
    let text = small_experiment(&root, &small_source).expect("the experiment file can be adapted");
    std::fs::write(&experiment, text).expect("write experiment");
    let kernel = std::fs::read_to_string(&source).expect("read the kernel source");
    let small_kernel = kernel
        .replace("#define image_height 4096", "#define image_height 64")
        .replace("#define image_width 4096", "#define image_width 64");
    assert_ne!(
        small_kernel, kernel,
        "convolution.cu no longer defines a 4096x4096 image"
    );
    std::fs::write(&small_source, small_kernel).expect("write kernel");
    std::fs::write(&data, kt_cache()).expect("write data");

    let saved = dir.join("profiles");
    let catalog = arch::Catalog::bundled().expect("the bundled catalog loads");
    let gpu = catalog
        .get("geforce-rtx-3090")
        .expect("an RTX 3090")
        .clone();
    let experiment_file = validate::Experiment::load(&experiment).expect("experiment");
    let dataset = validate::import_dataset(&data).expect("dataset");
    let args = |jobs: usize, cache: &str| Options {
        models: models::registry::MODEL_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect(),
        sample: None,
        rows: None,
        seed: 1,
        sample_ctas: 2,
        work_budget: None,
        jobs,
        cache_dir: Some(dir.join(cache)),
        save_profiles: (jobs == 1).then(|| saved.clone()),
        profiles: None,
        resume: false,
        ptx_arch: None,
        terms: Vec::new(),
        objective: None,
    };
    let evaluate =
        |gpu: &arch::Gpu, opts: &Options| run(&experiment_file, &dataset, gpu, opts, &|_| ());
    let one = match evaluate(&gpu, &args(1, "ptx")) {
        Ok(ev) => ev,
        Err(e) => panic!("validate failed: {e}"),
    };
    assert_eq!((dataset.rows.len(), one.indices.len()), (5, 5));
    assert_eq!(
        one.ptx_compiled, 4,
        "four measured configurations, four distinct sources"
    );
    check_timings(&one, &[Stage::Nvrtc, Stage::Emulation, Stage::Models], 0);
    for o in &one.outcomes {
        if let Attempt::Failed(why) = &o.attempt {
            panic!("configuration {} did not reach the models: {why}", o.index);
        }
    }
    let scored: Vec<usize> = one.scores.iter().map(|m| m.scored).collect();
    assert_eq!(one.scores.len(), models::registry::MODEL_NAMES.len());
    for m in &one.scores {
        assert_eq!(m.measured_failed, 1, "{}", m.model);
        assert_eq!(m.scored + m.ptxperf_failed, 4, "{}", m.model);
    }
    assert!(
        one.scores
            .iter()
            .any(|m| m.scored == 4 && m.mape.is_some() && m.best_ratio.is_some()),
        "at least one model scores every configuration: {scored:?}"
    );

    // Two workers and a warm cache: the same outcomes, nothing compiled.
    let two = match evaluate(&gpu, &args(2, "ptx")) {
        Ok(ev) => ev,
        Err(e) => panic!("second run failed: {e}"),
    };
    assert_eq!(two.ptx_compiled, 0);
    assert_eq!(two.ptx_cache_hits, 4);
    assert_eq!(two.outcomes, one.outcomes);
    // Served from the PTX cache: NVRTC at 0 s, four hits.
    check_timings(&two, &[Stage::Emulation], 4);
    assert_eq!(two.timing_totals.stage(Stage::Nvrtc), Duration::ZERO);

    // Profiles that cannot be saved (their folder would be under a file):
    // the run fails with the path and the OS error, not a silent gap.
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "").expect("write a file");
    let mut unsaved = args(2, "ptx");
    unsaved.save_profiles = Some(blocker.clone());
    match evaluate(&gpu, &unsaved) {
        Err(e) => {
            let m = e.to_string();
            assert!(matches!(e, StudyError::SaveProfile(_)), "{m}");
            assert!(m.contains(&blocker.display().to_string()), "{m}");
            assert!(m.contains("cannot create the folder"), "{m}");
            assert!(m.contains("os error"), "{m}");
        }
        Ok(_) => panic!("profiles that cannot be saved must fail the run"),
    }

    // The profiles the first run saved, rescored: the same outcomes, with no
    // PTX cache (nothing is compiled or emulated).
    let mut replay = args(2, "no-such-cache");
    replay.save_profiles = None;
    replay.profiles = Some(saved.clone());
    replay.cache_dir = None;
    let three = match evaluate(&gpu, &replay) {
        Ok(ev) => ev,
        Err(e) => panic!("rescoring the saved profiles failed: {e}"),
    };
    assert_eq!((three.ptx_compiled, three.ptx_cache_hits), (0, 0));
    assert_eq!(three.outcomes, one.outcomes);
    // Only the models run on saved profiles.
    check_timings(&three, &[Stage::Models], 0);
    for stage in [Stage::Nvrtc, Stage::Emulation, Stage::Ptxas] {
        assert_eq!(
            three.timing_totals.stage(stage),
            Duration::ZERO,
            "{stage:?}"
        );
    }
    // The same profiles at half the RTX 3090's rated 1695 MHz: no model is
    // faster, the timing model is slower, and the header says so.
    let held_gpu = gpu.with_sustained_clock(847.5).expect("a valid clock");
    assert_eq!(gpu.rated_clock_mhz(), 1695.0);
    let slow = match evaluate(&held_gpu, &replay) {
        Ok(ev) => ev,
        Err(e) => panic!("rescoring at a held clock failed: {e}"),
    };
    let timing_ms = |ev: &Study| -> Vec<f64> {
        ev.outcomes
            .iter()
            .filter_map(|o| match &o.attempt {
                Attempt::Predicted(p) => p
                    .iter()
                    .find(|(n, _)| n == "timing")
                    .and_then(|(_, r)| r.as_ref().ok().map(|t| t.ms)),
                _ => None,
            })
            .collect()
    };
    let (rated, held) = (timing_ms(&three), timing_ms(&slow));
    assert_eq!(rated.len(), 4);
    assert_eq!(held.len(), 4);
    for (r, h) in rated.iter().zip(&held) {
        assert!(h > r, "timing at 847.5 MHz {h} ms, at 1695 MHz {r} ms");
    }
    assert!(
        gpu.with_sustained_clock(0.0).is_err(),
        "a 0 MHz clock must be refused"
    );
    // A folder without them: every configuration fails, and says why; one
    // the saving run failed on (its `.failed` file) says that run's reason.
    replay.profiles = Some(dir.join("empty"));
    let first = first_measured(&experiment_file, &dataset);
    super::engine::save_failure(
        &dir.join("empty"),
        &gpu.id,
        &first.1,
        "emulation: out of fuel",
    )
    .expect("write the failure");
    let four = match evaluate(&gpu, &replay) {
        Ok(ev) => ev,
        Err(e) => panic!("an empty profile folder is not a run error: {e}"),
    };
    for o in four.outcomes.iter().filter(|o| o.measured_ms.is_some()) {
        match &o.attempt {
            Attempt::Failed(why) if o.index == first.0 => assert!(
                why.contains("failed when the profiles were saved: emulation: out of fuel"),
                "{why}"
            ),
            Attempt::Failed(why) => assert!(why.contains("no saved profile"), "{why}"),
            other => panic!("configuration {} without a profile: {other:?}", o.index),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
