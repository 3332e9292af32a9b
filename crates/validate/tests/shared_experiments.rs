//! The experiment files of the GEMM and pnpoly ground truth
//! (experiments/gemm.toml, experiments/pnpoly.toml) and of gemm_milo
//! (experiments/gemm-milo.toml, no data here), whose kernel sources
//! and data live in the shared data folder (../shared/data/groundtruth, never
//! committed): they parse, rebuild Kernel Tuner's launches, and their
//! restrictions admit exactly the configurations Kernel Tuner measured.
//!
//! Without the shared folder the tests say so and pass, except under CI (env
//! `CI` set), where it must be present.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

mod common;

use validate::{Define, Experiment, LaunchArg, Measured, ParamValue, import_dataset};

/// gemm.py's parameters, in its `tune_params` order.
const GEMM_KEYS: [&str; 15] = [
    "MWG",
    "NWG",
    "KWG",
    "MDIMC",
    "NDIMC",
    "MDIMA",
    "NDIMB",
    "KWI",
    "VWM",
    "VWN",
    "STRM",
    "STRN",
    "SA",
    "SB",
    "PRECISION",
];

/// gemm_milo.py's parameters (search space 2): GEMMK first, KREG before
/// PRECISION, the rest as gemm.py's.
fn gemm_milo_keys() -> Vec<&'static str> {
    let mut keys = vec!["GEMMK"];
    keys.extend_from_slice(&GEMM_KEYS[..14]);
    keys.extend(["KREG", "PRECISION"]);
    keys
}

/// The file names of a launch's sources, header first.
fn file_names(launch: &validate::Launch) -> Vec<String> {
    launch
        .source
        .paths()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn experiment(name: &str) -> Experiment {
    Experiment::load(&repo().join("experiments").join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Every configuration of the cache file's `tune_params` (the full cross
/// product, in `tune_params_keys` order) as its cache key and values.
fn cross_product(path: &Path) -> Vec<(String, Vec<(String, ParamValue)>)> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("open"))
        .read_to_string(&mut text)
        .expect("gunzip");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let keys: Vec<String> = v["tune_params_keys"]
        .as_array()
        .expect("tune_params_keys")
        .iter()
        .map(|k| k.as_str().expect("a name").to_string())
        .collect();
    let mut out: Vec<Vec<(String, ParamValue)>> = vec![Vec::new()];
    for k in &keys {
        let values = v["tune_params"][k].as_array().expect("values");
        out = out
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |x| {
                    let mut p = prefix.clone();
                    p.push((k.clone(), ParamValue::Int(x.as_i64().expect("an integer"))));
                    p
                })
            })
            .collect();
    }
    out.into_iter()
        .map(|p| {
            let key: Vec<String> = p.iter().map(|(_, v)| v.to_string()).collect();
            (key.join(","), p)
        })
        .collect()
}

/// The configurations of the cross product the experiment's restrictions
/// admit, against the cache's entries: `(admitted, entries, valid entries)`.
fn admitted(exp: &Experiment, data: &Path) -> (BTreeSet<String>, BTreeSet<String>, usize) {
    let mut admitted = BTreeSet::new();
    for (key, params) in cross_product(data) {
        let named: Vec<(&str, &ParamValue)> = params.iter().map(|(n, v)| (n.as_str(), v)).collect();
        if exp.admits(&named).unwrap_or_else(|e| panic!("{e}")) {
            admitted.insert(key);
        }
    }
    let dataset = import_dataset(data).unwrap_or_else(|e| panic!("{e}"));
    let entries = dataset
        .rows
        .iter()
        .map(|r| {
            let v: Vec<String> = r.values.iter().map(ToString::to_string).collect();
            v.join(",")
        })
        .collect();
    let valid = dataset
        .rows
        .iter()
        .filter(|r| matches!(r.measured, Measured::Time(_)))
        .count();
    (admitted, entries, valid)
}

#[test]
fn gemm_restrictions_admit_exactly_the_measured_configurations() {
    let Some(gt) = common::shared_groundtruth() else {
        return;
    };
    let exp = experiment("gemm.toml");
    assert_eq!(exp.restrictions().count(), 7);
    // The 3060 Laptop file holds 10,000 of the space; the others all of it.
    for gpu in ["RTX_3090", "RTX_2080_Ti", "RTX_Titan"] {
        let data = gt.join(format!("kt-gemm/KT_gemm_{gpu}.json.gz"));
        let (admitted, entries, valid) = admitted(&exp, &data);
        assert_eq!(
            admitted.len(),
            17_956,
            "{gpu}: of 82,944 in the cross product"
        );
        assert_eq!(valid, 17_956, "{gpu}");
        assert!(
            admitted == entries,
            "{gpu}: admitted and measured sets differ"
        );
    }
    let laptop = gt.join("kt-gemm/KT_gemm_RTX_3060_laptop.json.gz");
    let (admitted, entries, _) = admitted(&exp, &laptop);
    assert_eq!(entries.len(), 10_000);
    assert!(
        entries.is_subset(&admitted),
        "3060 Laptop: a measured configuration is not admitted"
    );
}

#[test]
fn pnpoly_has_no_restrictions_and_kernel_tuner_ran_its_whole_space() {
    let Some(gt) = common::shared_groundtruth() else {
        return;
    };
    let exp = experiment("pnpoly.toml");
    assert_eq!(exp.restrictions().count(), 0);
    let (admitted, entries, valid) =
        admitted(&exp, &gt.join("kt-pnpoly/KT_pnpoly_RTX_3090.json.gz"));
    assert_eq!(admitted.len(), 4_092);
    assert!(admitted == entries);
    // The rest failed at run time (RuntimeFailedConfig), not by restriction.
    assert_eq!(valid, 3_774);
}

fn mac(name: &str, value: i64) -> Define {
    Define::Macro {
        name: name.into(),
        value: value.to_string(),
    }
}

/// gemm.py's launch: block (MDIMC, NDIMC), grid (4096/MWG, 4096/NWG), the
/// block-size names first among the defines, the sources in gemm.py's
/// order and the header.
#[test]
fn gemm_launch_is_kernel_tuners() {
    let Some(_) = common::shared_groundtruth() else {
        return;
    };
    let exp = experiment("gemm.toml");
    let keys = GEMM_KEYS;
    let values = [64, 128, 32, 16, 32, 16, 16, 2, 4, 4, 0, 0, 1, 0, 32].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(values.iter()).collect();
    assert!(exp.admits(&params).unwrap_or_else(|e| panic!("{e}")));
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.block, [16, 32, 1]);
    assert_eq!(launch.grid, [64, 32, 1]);
    assert_eq!(
        launch.defines[..7],
        [
            mac("grid_size_x", 64),
            mac("grid_size_y", 32),
            mac("grid_size_z", 1),
            mac("MDIMC", 16),
            mac("NDIMC", 32),
            mac("block_size_z", 1),
            mac("MWG", 64),
        ]
    );
    assert_eq!(launch.defines.last(), Some(&mac("kernel_tuner", 1)));
    let files = file_names(&launch);
    assert_eq!(
        files,
        [
            "cl_to_cuda.h",
            "common.opencl",
            "xgemm_part1.opencl",
            "xgemm_part2.opencl",
            "xgemm_part3.opencl"
        ]
    );
    let text = launch.source.read().unwrap_or_else(|e| panic!("{e}"));
    assert!(text.starts_with("// From https://github.com/CNugteren/CLTune"));
    assert!(!text.contains("__local realM*") && !text.contains("__local realN*"));
    assert!(
        text.contains("__local realM alm[KWG * MWG/VWM];"),
        "the local arrays stay shared"
    );
    // A restriction that fails: MWG % (MDIMC * VWM) with MDIMC*VWM = 128 > 64.
    let mut bad = values.clone();
    bad[8] = ParamValue::Int(8);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(bad.iter()).collect();
    assert!(!exp.admits(&params).unwrap_or_else(|e| panic!("{e}")));
}

/// gemm_milo.py's launch: the same grid and block as gemm.py, ten
/// arguments (the two offsets last), its five sources after the header with
/// nothing replaced, and its one restriction more (no 128 x 128 tile on an
/// 8 x 8 block).
#[test]
fn gemm_milo_launch_is_kernel_tuners() {
    let Some(_) = common::shared_groundtruth() else {
        return;
    };
    let exp = experiment("gemm-milo.toml");
    let keys = gemm_milo_keys();
    let values = [0, 64, 128, 32, 16, 32, 16, 16, 2, 4, 4, 0, 0, 1, 0, 1, 32].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(values.iter()).collect();
    assert!(exp.admits(&params).unwrap_or_else(|e| panic!("{e}")));
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.block, [16, 32, 1]);
    assert_eq!(launch.grid, [64, 32, 1]);
    assert_eq!(launch.args.len(), 10);
    let files = file_names(&launch);
    assert_eq!(
        files,
        [
            "cl_to_cuda.h",
            "common.opencl",
            "xgemm_part1.opencl",
            "xgemm_part2.opencl",
            "xgemm_part3.opencl",
            "xgemm_part4.opencl"
        ]
    );
    let text = launch.source.read().unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("__global__ void Xgemm("));
    // 128 x 128 on an 8 x 8 block meets every divisibility rule (VWM = VWN
    // = 1, MDIMA = NDIMB = 8) but not the last restriction.
    let tile = [0, 128, 128, 32, 8, 8, 8, 8, 2, 1, 1, 0, 0, 0, 0, 1, 32].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(tile.iter()).collect();
    assert!(!exp.admits(&params).unwrap_or_else(|e| panic!("{e}")));
    let mut block16 = tile.clone();
    block16[4] = ParamValue::Int(16);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(block16.iter()).collect();
    assert!(exp.admits(&params).unwrap_or_else(|e| panic!("{e}")));
}

/// pnpoly.py's launch: grid ceil(2e7 / (block_size_x*tile_size)), the two
/// big buffers in mapped host memory (240 MB over PCIe), 600 vertices on
/// the unit circle.
#[test]
fn pnpoly_launch_is_kernel_tuners() {
    let Some(_) = common::shared_groundtruth() else {
        return;
    };
    let exp = experiment("pnpoly.toml");
    let keys = ["between_method", "block_size_x", "tile_size", "use_method"];
    let values = [1, 96, 6, 2].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = keys.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.block, [96, 1, 1]);
    assert_eq!(launch.grid, [20_000_000u64.div_ceil(576), 1, 1]);
    let mapped: u64 = launch.args.iter().map(LaunchArg::host_mapped_bytes).sum();
    assert_eq!(mapped, 20_000_000 * 4 + 2 * 20_000_000 * 4);
    let [c] = &launch.constants[..] else {
        panic!("one constant symbol")
    };
    let validate::Init::Values(v) = &c.init else {
        panic!("the vertices are a formula")
    };
    assert_eq!(v.len(), 1200);
    for xy in v.chunks(2) {
        let r = (xy[0] * xy[0] + xy[1] * xy[1]).sqrt();
        assert!((r - 1.0).abs() < 1e-9, "vertex {xy:?} off the unit circle");
    }
    assert!(v[0] < -0.9 && v[1] < 0.0 && v[1198] < -0.9 && v[1199] > 0.0);
}
