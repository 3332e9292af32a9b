//! `run_many`: several data files, each on its GPU, against the same files
//! run alone. A tiny CUDA kernel (out = 2 in, as Kernel Tuner builds it,
//! `block_size_x` defined) and measured times written here; each case names
//! its (data file, GPU) pairs, the options, and the work it must cost: PTX
//! compiled, emulations, predictions. Every GPU's study must equal the
//! study of its pair alone (sample, outcomes, scores, PTX counts).
//!
//! Without NVRTC the test says so and passes, except under CI.

use std::path::{Path, PathBuf};

use validate::score::Attempt;

use super::{Options, Pair, Study, run, run_many};

/// out = 2 in, as Kernel Tuner builds it (`block_size_x` defined), and its
/// experiment file (also the CLI's JSON tests' fixture).
const CUDA: &str = include_str!("testdata/twice.cu");
const EXPERIMENT: &str = include_str!("testdata/twice.exp.toml");

/// Schoonhoven CSVs: (file name, block_size_x and mean time per row; `nan`:
/// measured as failed). `b` has the rows in another order, one that `a`
/// lacks, and a failure where `a` has a time.
const DATA: [(&str, &[(u32, &str)]); 2] = [
    (
        "a.csv",
        &[
            (32, "0.012"),
            (64, "0.010"),
            (128, "0.008"),
            (256, "0.009"),
            (512, "nan"),
        ],
    ),
    (
        "b.csv",
        &[
            (256, "0.004"),
            (128, "0.005"),
            (1024, "0.006"),
            (64, "nan"),
            (32, "0.007"),
        ],
    ),
];

/// The fixture written to a folder and loaded: a.csv on the RTX 3090 and
/// b.csv on the H100 (two architectures).
pub(super) struct TwoGpus {
    pub experiment: validate::Experiment,
    pub datasets: [validate::Dataset; 2],
    pub gpus: [arch::Gpu; 2],
}

impl TwoGpus {
    pub fn written_to(dir: &Path) -> TwoGpus {
        write_fixture(dir);
        let catalog = arch::Catalog::bundled().expect("the bundled catalog loads");
        let data = |f: &str| validate::import_dataset(&dir.join(f)).expect("dataset");
        let gpu = |id: &str| catalog.get(id).expect("gpu").clone();
        TwoGpus {
            experiment: validate::Experiment::load(&dir.join("twice.exp.toml"))
                .expect("experiment"),
            datasets: [data("a.csv"), data("b.csv")],
            gpus: [gpu("geforce-rtx-3090"), gpu("h100-sxm5-80gb")],
        }
    }

    pub fn pairs(&self) -> [Pair<'_>; 2] {
        [0, 1].map(|k| Pair {
            dataset: &self.datasets[k],
            gpu: &self.gpus[k],
            rows: None,
        })
    }
}

fn write_fixture(dir: &Path) {
    std::fs::create_dir_all(dir).expect("temp dir");
    std::fs::write(dir.join("twice.cu"), CUDA).expect("write cu");
    std::fs::write(dir.join("twice.exp.toml"), EXPERIMENT).expect("write experiment");
    for (name, rows) in DATA {
        let mut csv = String::from("block_size_x,mean_ms,median_ms,min_ms,std_ms,n\n");
        for (bx, t) in rows {
            let n = if *t == "nan" { 0 } else { 32 };
            csv.push_str(&format!("{bx},{t},{t},{t},0.0001,{n}\n"));
        }
        std::fs::write(dir.join(name), csv).expect("write csv");
    }
}

/// One case: (data file, GPU, rows) pairs, sample and seed, and the work
/// the shared run must cost: (configurations, PTX compiled, emulations,
/// predictions).
struct Case {
    name: &'static str,
    pairs: &'static [(&'static str, &'static str, Option<&'static [usize]>)],
    sample: Option<usize>,
    seed: u64,
    work: (usize, usize, usize, usize),
}

const CASES: &[Case] = &[
    // Two sm_86 GPUs on the same data: one compile and one emulation per
    // configuration (four measured), eight predictions.
    Case {
        name: "same arch, same data",
        pairs: &[
            ("a.csv", "rtx-a4000", None),
            ("a.csv", "geforce-rtx-3090", None),
        ],
        sample: None,
        seed: 1,
        work: (5, 4, 4, 8),
    },
    // Two sm_86 GPUs, two data files: six distinct configurations (1024 only
    // in b, 512 failed in a and absent from b: not run), each compiled once.
    Case {
        name: "same arch, two data files",
        pairs: &[
            ("a.csv", "geforce-rtx-3090", None),
            ("b.csv", "rtx-a4000", None),
        ],
        sample: None,
        seed: 1,
        work: (6, 5, 5, 8),
    },
    // sm_86 and sm_90: each configuration compiled per arch; NVRTC writes
    // the same PTX for both apart from `.target`, so each is emulated once
    // (five configurations ran; each GPU still gets what it gets alone).
    Case {
        name: "two archs",
        pairs: &[
            ("a.csv", "geforce-rtx-3090", None),
            ("b.csv", "h100-sxm5-80gb", None),
        ],
        sample: None,
        seed: 1,
        work: (6, 8, 5, 8),
    },
    // Three GPUs, two archs, each file sampled alone: the union is run.
    Case {
        name: "sampled, three GPUs",
        pairs: &[
            ("a.csv", "geforce-rtx-3090", None),
            ("b.csv", "rtx-a4000", None),
            ("b.csv", "h100-sxm5-80gb", None),
        ],
        sample: Some(3),
        seed: 7,
        work: (0, 0, 0, 0),
    },
    // Rows restricted per file (a --part), then sampled.
    Case {
        name: "rows per file",
        pairs: &[
            ("a.csv", "rtx-a4000", Some(&[1, 2, 3])),
            ("b.csv", "geforce-rtx-3090", Some(&[0, 4])),
        ],
        sample: Some(2),
        seed: 3,
        work: (0, 0, 0, 0),
    },
];

pub(super) fn options(sample: Option<usize>, seed: u64, jobs: usize) -> Options {
    Options {
        models: vec!["timing".to_string(), "roofline".to_string()],
        sample,
        rows: None,
        seed,
        sample_ctas: 2,
        work_budget: None,
        jobs,
        cache_dir: None,
        save_profiles: None,
        profiles: None,
        resume: false,
        ptx_arch: None,
        terms: Vec::new(),
        objective: None,
    }
}

/// Everything of a study that must not depend on how it was run.
fn figures(s: &Study) -> impl PartialEq + std::fmt::Debug + '_ {
    (
        &s.indices,
        &s.outcomes,
        &s.scores,
        (s.ptx_compiled, s.ptx_cache_hits),
        s.nvrtc_version,
    )
}

fn check(dir: &Path, case: &Case) {
    let catalog = arch::Catalog::bundled().expect("the bundled catalog loads");
    let experiment = validate::Experiment::load(&dir.join("twice.exp.toml")).expect("experiment");
    let datasets: Vec<validate::Dataset> = case
        .pairs
        .iter()
        .map(|(file, _, _)| validate::import_dataset(&dir.join(file)).expect("dataset"))
        .collect();
    let gpus: Vec<arch::Gpu> = case
        .pairs
        .iter()
        .map(|(_, id, _)| catalog.get(id).expect("a catalog GPU").clone())
        .collect();
    let pairs: Vec<Pair<'_>> = case
        .pairs
        .iter()
        .zip(&datasets)
        .zip(&gpus)
        .map(|(((_, _, rows), dataset), gpu)| Pair {
            dataset,
            gpu,
            rows: rows.map(<[usize]>::to_vec),
        })
        .collect();
    let alone: Vec<Study> = pairs
        .iter()
        .map(|p| {
            let mut opts = options(case.sample, case.seed, 2);
            opts.rows = p.rows.clone();
            run(&experiment, p.dataset, p.gpu, &opts, &|_| ())
                .unwrap_or_else(|e| panic!("{}: alone: {e}", case.name))
        })
        .collect();
    for s in &alone {
        for o in &s.outcomes {
            if let Attempt::Failed(why) = &o.attempt {
                panic!("{}: row {} failed: {why}", case.name, o.index);
            }
        }
    }
    let mut first = None;
    for jobs in [1, 3] {
        let many = run_many(
            &experiment,
            &pairs,
            &options(case.sample, case.seed, jobs),
            &|_| (),
        )
        .unwrap_or_else(|e| panic!("{}: shared: {e}", case.name));
        assert_eq!(many.studies.len(), alone.len(), "{}", case.name);
        for (k, (shared, single)) in many.studies.iter().zip(&alone).enumerate() {
            assert_eq!(
                figures(shared),
                figures(single),
                "{}: GPU {k} ({}) with --jobs {jobs}",
                case.name,
                case.pairs[k].1
            );
        }
        let w = many.shared;
        let work = (
            w.configurations,
            w.ptx_compiled,
            w.emulations,
            w.predictions,
        );
        if case.work != (0, 0, 0, 0) {
            assert_eq!(
                work, case.work,
                "{}: (configurations, compiled, emulations, predictions)",
                case.name
            );
        }
        // Without a cache: nothing served from one; every prediction is a
        // predicted outcome of some GPU.
        assert_eq!(w.ptx_cache_hits, 0, "{}", case.name);
        let predicted: usize = many
            .studies
            .iter()
            .map(|s| {
                s.outcomes
                    .iter()
                    .filter(|o| matches!(o.attempt, Attempt::Predicted(_)))
                    .count()
            })
            .sum();
        assert_eq!(w.predictions, predicted, "{}", case.name);
        assert!(w.emulations <= w.ptx_compiled, "{}: {w:?}", case.name);
        match &first {
            None => first = Some((work, many.studies)),
            Some((work1, studies1)) => {
                assert_eq!(*work1, work, "{}: --jobs 1 and 3", case.name);
                for (a, b) in studies1.iter().zip(&many.studies) {
                    assert_eq!(figures(a), figures(b), "{}: --jobs 1 and 3", case.name);
                }
            }
        }
    }
}

pub(super) fn nvrtc_or_skip() -> bool {
    match nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)) {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "NVRTC is required under CI: {e}"
            );
            eprintln!("skipped: NVRTC is not available ({e})");
            false
        }
    }
}

pub(super) fn temp_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ptxperf-multi-{name}-{}", std::process::id()))
}

#[test]
fn several_gpus_give_each_gpu_its_study_alone() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("cases");
    write_fixture(&dir);
    for case in CASES {
        check(&dir, case);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ptx_arch`: one NVRTC compile per configuration for every GPU of the
/// run. On the fixture (whose PTX is the same for sm_86 and sm_90 but for
/// its `.target`) every GPU's outcomes and scores equal those of a run that
/// compiles per architecture, for half the compiles; a PTX architecture
/// newer than a GPU's is refused before anything runs.
#[test]
fn one_ptx_arch_compiles_once_for_every_gpu() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("ptx-arch");
    let fx = TwoGpus::written_to(&dir);
    let pairs = fx.pairs();
    let per_arch = run_many(&fx.experiment, &pairs, &options(None, 1, 2), &|_| ())
        .expect("a run per architecture");
    for jobs in [1, 3] {
        let mut opts = options(None, 1, jobs);
        opts.ptx_arch = Some("sm_86".to_string());
        let once = run_many(&fx.experiment, &pairs, &opts, &|_| ()).expect("one PTX arch");
        for (k, (a, b)) in once.studies.iter().zip(&per_arch.studies).enumerate() {
            assert_eq!(
                (&a.indices, &a.outcomes, &a.scores),
                (&b.indices, &b.outcomes, &b.scores),
                "GPU {k} with --jobs {jobs}"
            );
        }
        // Six configurations, five run (as in the case "two archs"): five
        // compiles for sm_86 and none for sm_90, where per architecture
        // eight; nothing from a cache; the same five emulations.
        let (w, p) = (once.shared, per_arch.shared);
        assert_eq!(
            (
                w.configurations,
                w.ptx_compiled,
                w.ptx_cache_hits,
                w.emulations
            ),
            (6, 5, 0, 5),
            "--jobs {jobs}"
        );
        assert_eq!((p.ptx_compiled, p.emulations), (8, 5));
        assert_eq!(w.predictions, p.predictions);
        // The H100's rows got sm_86 PTX: compiled for the one configuration
        // only its file has (1024), shared by the RTX 3090's for the others.
        assert_eq!(
            (once.studies[1].ptx_compiled, once.studies[1].ptx_cache_hits),
            (1, 0)
        );
    }
    let mut newer = options(None, 1, 2);
    newer.ptx_arch = Some("sm_90".to_string());
    let refused = run_many(&fx.experiment, &pairs, &newer, &|_| ());
    match refused {
        Err(e) => assert!(
            e.to_string()
                .contains("--ptx-arch sm_90: newer than geforce-rtx-3090 (sm_86)"),
            "{e}"
        ),
        Ok(_) => panic!("sm_90 PTX for an sm_86 GPU was accepted"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Profiles saved by a shared run land under DIR/<gpu>/ as a run alone
/// saves them, and rescoring them per GPU gives the same outcomes.
#[test]
fn a_shared_run_saves_and_rescores_profiles_per_gpu() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("profiles");
    let two = TwoGpus::written_to(&dir);
    let (experiment, pairs) = (&two.experiment, two.pairs());
    let (g1, g2) = (&two.gpus[0], &two.gpus[1]);
    let saved = dir.join("saved");
    let mut opts = options(None, 1, 2);
    opts.save_profiles = Some(saved.clone());
    let first = run_many(experiment, &pairs, &opts, &|_| ()).expect("shared run");
    for (gpu, rows) in [(g1, 4), (g2, 4)] {
        let n = std::fs::read_dir(saved.join(&gpu.id))
            .expect("a folder per GPU")
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
            .count();
        assert_eq!(n, rows, "{}", gpu.id);
    }
    let mut replay = options(None, 1, 2);
    replay.profiles = Some(saved);
    let again = run_many(experiment, &pairs, &replay, &|_| ()).expect("rescored");
    assert_eq!((again.shared.ptx_compiled, again.shared.emulations), (0, 0));
    for (x, y) in first.studies.iter().zip(&again.studies) {
        assert_eq!(x.outcomes, y.outcomes);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
