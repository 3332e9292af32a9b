//! The bundled catalog: every file loads and validates, every GPU DESIGN.md
//! names is present, spot values match their sources, bad files give
//! file:line:col diagnostics.

use arch::{ArchError, Catalog, ComputeCapability, SourceStatus};

fn catalog() -> Catalog {
    match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => panic!("bundled catalog does not load: {e}"),
    }
}

#[test]
fn every_gpus_file_is_bundled_and_loads_from_disk_too() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gpus");
    let on_disk = Catalog::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    let bundled = catalog();
    assert_eq!(on_disk, bundled);
    let files = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
                .filter(|e| e.file_name() != arch::cc::FILE_NAME)
                .count()
        })
        .unwrap_or(0);
    assert_eq!(bundled.len(), files);
}

/// The GPUs DESIGN.md lists, by catalog id.
const DESIGN_GPUS: &[&str] = &[
    "geforce-8800-gtx",
    "geforce-8800-gt",
    "quadro-fx5600",
    "geforce-gtx-280",
    "tesla-c2075",
    "geforce-gtx-680",
    "geforce-gtx-960m",
    "tesla-k20m",
    "geforce-gtx-titan-x-maxwell",
    "geforce-gtx-1080-ti",
    "tesla-p100-pcie-16gb",
    "tesla-v100-sxm2-16gb",
    "titan-rtx",
    "geforce-rtx-2070-super",
    "geforce-rtx-2080-ti",
    "tesla-t4",
    "a100-pcie-40gb",
    "a100-sxm4-80gb",
    "rtx-a4000",
    "rtx-a6000",
    "geforce-rtx-3060-laptop",
    "geforce-rtx-3090",
    "rtx-4000-ada",
    "geforce-rtx-4090",
    "h100-sxm5-80gb",
    "h100-pcie-80gb",
    "h200-sxm-141gb",
];

#[test]
fn every_design_gpu_is_present() {
    let c = catalog();
    for id in DESIGN_GPUS {
        assert!(c.get(id).is_ok(), "missing {id}");
    }
}

/// Spot values: (id, CC, SMs, FP32 lanes/SM, model clock MHz, DRAM GB/s, L2 bytes, max warps/SM).
#[test]
fn spot_values() {
    let c = catalog();
    let check = |id: &str, cc: (u32, u32), sms, lanes, mhz: f64, bw: f64, l2, warps| {
        let g = c.get(id).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            g.compute_capability,
            ComputeCapability::new(cc.0, cc.1),
            "{id}"
        );
        assert_eq!(g.sm_count, sms, "{id}");
        assert_eq!(g.sm.fp32_lanes, lanes, "{id}");
        assert_eq!(g.clock_mhz(), mhz, "{id}");
        assert_eq!(g.memory.bandwidth_gbs, bw, "{id}");
        assert_eq!(g.caches.l2_bytes, l2, "{id}");
        assert_eq!(g.limits.max_warps_per_sm, warps, "{id}");
    };
    // models.md 7.1 / 7.2.
    check("quadro-fx5600", (1, 0), 16, 8, 1350.0, 76.8, 0, 24);
    check("geforce-gtx-280", (1, 3), 30, 8, 1296.0, 141.7, 0, 32);
    check("tesla-c2075", (2, 0), 14, 32, 1150.0, 144.0, 786_432, 48);
    check(
        "geforce-gtx-960m",
        (5, 0),
        5,
        128,
        1176.0,
        80.0,
        2_097_152,
        64,
    );
    check(
        "tesla-v100-pcie-16gb",
        (7, 0),
        80,
        64,
        1380.0,
        900.0,
        6_291_456,
        64,
    );
    check("tesla-t4", (7, 5), 40, 64, 1590.0, 320.0, 4_194_304, 32);
    // Data-center boards of cloud instances (secondary sources, unverified).
    check("a10", (8, 6), 72, 128, 1695.0, 600.0, 6_291_456, 48);
    check("a40", (8, 6), 84, 128, 1740.0, 696.0, 6_291_456, 48);
    check("l4", (8, 9), 58, 128, 2040.0, 300.0, 50_331_648, 48);
    check(
        "a100-pcie-40gb",
        (8, 0),
        108,
        64,
        1410.0,
        1555.0,
        41_943_040,
        64,
    );
    check(
        "geforce-rtx-3090",
        (8, 6),
        82,
        128,
        1695.0,
        936.0,
        6_291_456,
        48,
    );
    check(
        "geforce-rtx-4090",
        (8, 9),
        128,
        128,
        2520.0,
        1008.0,
        75_497_472,
        48,
    );
    check(
        "h100-sxm5-80gb",
        (9, 0),
        132,
        128,
        1980.0,
        3350.0,
        52_428_800,
        64,
    );
    // NVIDIA's product figures (SMs, boost, GDDR7 bandwidth, L2) and CCCL's
    // sm_120 limits (48 warps per SM).
    check(
        "geforce-rtx-5090",
        (12, 0),
        170,
        128,
        2407.0,
        1792.0,
        100_663_296,
        48,
    );
    check(
        "geforce-rtx-5080",
        (12, 0),
        84,
        128,
        2617.0,
        960.0,
        67_108_864,
        48,
    );
    let b = c.get("geforce-rtx-5090").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.limits.max_blocks_per_sm, 24);
    assert_eq!(b.limits.shared_per_sm_bytes, 100 * 1024);
}

#[test]
fn derived_figures() {
    let c = catalog();
    let gtx280 = c.get("geforce-gtx-280").unwrap_or_else(|e| panic!("{e}"));
    // Hong & Kim / Stevens: #Issue_cycles = 4 on 8 SPs; Mem_LD = 450.
    assert_eq!(gtx280.issue_cycles(), 4.0);
    assert_eq!(gtx280.mem_ld(), 450.0);
    assert_eq!(gtx280.model_params.kothapalli_pipeline_depth, Some(4.0));
    assert_eq!(gtx280.model_params.paper_clock_mhz, Some(1300.0));
    let a100 = c.get("a100-pcie-40gb").unwrap_or_else(|e| panic!("{e}"));
    // 108 x 64 x 2 x 1.41 GHz = 19.49 TFLOP/s FP32 (the datasheet's 19.5).
    assert!((a100.peak_fp32_flops() / 1e12 - 19.491).abs() < 1e-3);
    // Volta+: 32 threads on 16 lanes per scheduler: 2 cycles; no Mem_LD given: DRAM latency.
    assert_eq!(a100.issue_cycles(), 2.0);
    assert_eq!(a100.mem_ld(), 466.3);
    assert_eq!(a100.compute_capability.sm_name(), "sm_80");
}

#[test]
fn sources_resolve_by_field_then_section() {
    let c = catalog();
    let g = c.get("a100-pcie-40gb").unwrap_or_else(|e| panic!("{e}"));
    let status = |path: &str| g.source_of(path).map(|s| s.status);
    assert_eq!(status("latencies.dram"), Some(SourceStatus::Verified));
    assert_eq!(status("latencies.fp32"), Some(SourceStatus::Verified));
    assert_eq!(status("latencies.fp64"), Some(SourceStatus::Unverified));
    assert_eq!(
        status("limits.max_warps_per_sm"),
        Some(SourceStatus::Verified)
    );
    assert_eq!(
        status("limits.shared_carveouts_kib"),
        Some(SourceStatus::Unverified)
    );
    assert_eq!(status("nothing.here"), None);
    let g92 = c.get("geforce-8800-gt").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        g92.source_of("model_params.mem_ld").map(|s| s.status),
        Some(SourceStatus::Assumption)
    );
    // Every number of every GPU has a source (validation enforces it; this checks the accessor).
    for gpu in c.gpus() {
        for (path, _) in gpu.numeric_fields() {
            assert!(gpu.source_of(&path).is_some(), "{}: {path}", gpu.id);
        }
    }
}

#[test]
fn lookup_suggests_close_ids() {
    let c = catalog();
    assert_eq!(
        c.get("A100 PCIe 40GB").map(|g| g.id.as_str()),
        Ok("a100-pcie-40gb")
    );
    let check = |id: &str, expected: &[&str]| match c.get(id) {
        Err(ArchError::UnknownGpu { suggestions, .. }) => assert_eq!(suggestions, expected, "{id}"),
        other => panic!("{id}: {other:?}"),
    };
    check("a100", &["a100-pcie-40gb", "a100-sxm4-80gb", "a10"]);
    check("a10-24gb", &["a10"]);
    check(
        "geforce-gtx-208",
        &["geforce-gtx-280", "geforce-gtx-680", "geforce-gtx-960m"],
    );
    check("zzzzzzzz", &[]);
}

fn good_text() -> String {
    arch::catalog::BUNDLED_FILES
        .iter()
        .find(|(f, _)| *f == "tesla-t4.toml")
        .map(|(_, t)| t.to_string())
        .unwrap_or_default()
}

/// A broken copy of the T4 file gives an error at the right place.
fn check_error(edit: impl Fn(&str) -> String, line: usize, contains: &str) {
    let text = edit(&good_text());
    let err = arch::catalog::parse_gpu("gpus/tesla-t4.toml", &text).err();
    let msg = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.starts_with(&format!("gpus/tesla-t4.toml:{line}:")),
        "{msg}"
    );
    assert!(msg.contains(contains), "{msg}");
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(needle))
        .map_or(0, |i| i + 1)
}

#[test]
fn bad_files_point_at_the_line() {
    let text = good_text();
    assert!(!text.is_empty());
    let warps = line_of(&text, "max_warps_per_sm");
    check_error(
        |t| t.replace("max_warps_per_sm = 32", "max_warps_per_sm = 33"),
        line_of(&text, "max_threads_per_sm"),
        "max_warps_per_sm",
    );
    check_error(
        |t| t.replace("max_warps_per_sm = 32", "max_warps_per_sm = \"x\""),
        warps,
        "invalid type",
    );
    check_error(
        |t| t.replace("sm_count = 40", "sm_count = 0"),
        line_of(&text, "sm_count"),
        "positive",
    );
    check_error(
        |t| t.replace("dram = ", "dramm = "),
        line_of(&text, "dram = "),
        "unknown field",
    );
    check_error(
        |t| t.replace("compute_capability = \"7.5\"", "compute_capability = \"7\""),
        line_of(&text, "compute_capability"),
        "MAJOR.MINOR",
    );
    check_error(
        |t| t.replace("id = \"tesla-t4\"", "id = \"tesla-t5\""),
        line_of(&text, "id = "),
        "file name",
    );
    check_error(
        |t| t.replace("\"throughput\" = {", "\"throughputs\" = {"),
        line_of(&text, "\"throughput\""),
        "names no field",
    );
    check_error(
        |t| t.replace("\"throughput\" = {", "# \"throughput\" = {"),
        line_of(&text, "fp32 = 64"),
        "no entry in [sources]",
    );
    // A sustained clock is a number like any other: positive, with a source
    // (here the file's [sources] entry for the whole clocks section).
    check_error(
        |t| t.replace("model_clock = ", "sustained_mhz = -1.0\nmodel_clock = "),
        line_of(&text, "model_clock = "),
        "must be a positive number",
    );
    let held = text.replace("model_clock = ", "sustained_mhz = 1500.0\nmodel_clock = ");
    let gpu = arch::catalog::parse_gpu("gpus/tesla-t4.toml", &held);
    assert_eq!(gpu.map(|g| g.clock_mhz()).ok(), Some(1500.0));
}

#[test]
fn a_sustained_clock_replaces_the_rated_one() {
    let c = catalog();
    let t4 = c.get("tesla-t4").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t4.clocks.sustained_mhz, None);
    assert_eq!((t4.clock_mhz(), t4.rated_clock_mhz()), (1590.0, 1590.0));
    let held = t4
        .with_sustained_clock(1100.0)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((held.clock_mhz(), held.rated_clock_mhz()), (1100.0, 1590.0));
    assert_eq!(held.clock_hz(), 1.1e9);
    // 40 SMs x 64 lanes x 2 x 1.1 GHz.
    assert!((held.peak_fp32_flops() - 5.632e12).abs() < 1.0);
    for bad in [0.0, -5.0, f64::NAN, f64::INFINITY, 20_000.0] {
        let err = t4
            .with_sustained_clock(bad)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("outside 1 to 10000 MHz"), "{bad}: {err}");
    }
}

/// The host links of the kt-pnpoly GPUs (docs/timing-model.md, "Mapped host
/// memory"): generation, lanes and the mapped-read rate, each with a source,
/// the rate below the raw rate of the link.
#[test]
fn pcie_links_are_parsed_and_sourced() {
    let c = catalog();
    let check = |id: &str, generation: u32, lanes: u32, gbs: f64, raw: f64| {
        let gpu = c.get(id).unwrap_or_else(|e| panic!("{e}"));
        let Some(p) = &gpu.pcie else {
            panic!("{id} has no [pcie]")
        };
        assert_eq!(
            (p.generation, p.lanes, p.mapped_read_gbs),
            (generation, lanes, gbs),
            "{id}"
        );
        let got = p.raw_gbs().unwrap_or(0.0);
        assert!((got - raw).abs() < 0.01, "{id}: raw {got}");
        assert!(p.mapped_read_gbs < got, "{id}");
        for field in ["generation", "lanes", "mapped_read_gbs"] {
            let s = gpu.source_of(&format!("pcie.{field}"));
            assert!(
                s.is_some_and(|s| s.source.contains("PCI") || s.source.contains("assumption")),
                "{id}: pcie.{field}: {s:?}"
            );
        }
    };
    check("geforce-rtx-2080-ti", 3, 16, 12.3, 15.75);
    check("titan-rtx", 3, 16, 12.3, 15.75);
    check("geforce-rtx-3090", 4, 16, 24.6, 31.51);
    check("geforce-rtx-3060-laptop", 4, 16, 24.6, 31.51);
    // The laptop's link is the GPU's interface, not the measured host's.
    let laptop = c
        .get("geforce-rtx-3060-laptop")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        laptop.source_of("pcie.lanes").map(|s| s.status),
        Some(SourceStatus::Assumption)
    );
    // Optional elsewhere.
    assert!(c.get("tesla-t4").is_ok_and(|g| g.pcie.is_none()));
}

#[test]
fn bad_pcie_figures_point_at_the_line() {
    let text = arch::catalog::BUNDLED_FILES
        .iter()
        .find(|(f, _)| *f == "geforce-rtx-3090.toml")
        .map(|(_, t)| t.to_string())
        .unwrap_or_default();
    assert!(text.contains("[pcie]"));
    let check = |from: &str, to: &str, needle: &str, contains: &str| {
        let edited = text.replace(from, to);
        let err = arch::catalog::parse_gpu("gpus/geforce-rtx-3090.toml", &edited).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        let line = line_of(&edited, needle);
        assert!(
            msg.starts_with(&format!("gpus/geforce-rtx-3090.toml:{line}:")),
            "{msg}"
        );
        assert!(msg.contains(contains), "{msg}");
    };
    check(
        "generation = 4",
        "generation = 7",
        "generation = ",
        "not a PCIe generation",
    );
    check(
        "lanes = 16",
        "lanes = 12",
        "lanes = ",
        "not a PCIe link width",
    );
    check(
        "mapped_read_gbs = 24.6",
        "mapped_read_gbs = 40.0",
        "mapped_read_gbs = ",
        "exceeds the raw 31.51 GB/s of PCIe 4.0 x16",
    );
    check(
        "\"pcie.lanes\" = {",
        "# \"pcie.lanes\" = {",
        "lanes = ",
        "no entry in [sources]",
    );
}

/// Every compute capability the catalog's GPUs have has an entry in
/// gpus/compute-capabilities.toml, the GPU carries it, and each of its
/// figures (and the curve it names) has a non-empty source.
#[test]
fn every_gpus_compute_capability_has_sourced_figures() {
    let table = arch::cc::bundled_table().unwrap_or_else(|e| panic!("{e}"));
    for gpu in catalog().gpus() {
        let cc = gpu.compute_capability;
        let Some(entry) = table.get(cc) else {
            panic!("{}: no entry for compute capability {cc}", gpu.id);
        };
        assert_eq!(&gpu.cc_figures, entry, "{}: figures of {cc}", gpu.id);
        for field in [
            "l1_bytes_per_clock",
            "lsu_lanes",
            "convert_per_clock",
            "sass_bytes_per_instruction",
            "l1_caches_local_memory",
            "l1_caches_global_loads",
            "transaction_bytes",
            "instruction_fetch",
        ] {
            let source = entry.source_of(field);
            assert!(
                source.is_some_and(|s| !s.source.trim().is_empty()),
                "CC {cc}: {field} has no source"
            );
        }
        assert!(!entry.instruction_fetch.source.source.trim().is_empty());
    }
}

/// Spot values against their sources (the figures the models used to hold).
#[test]
fn compute_capability_figures_match_their_sources() {
    let table = arch::cc::bundled_table().unwrap_or_else(|e| panic!("{e}"));
    let at = |major, minor| match table.get(ComputeCapability::new(major, minor)) {
        Some(e) => e.clone(),
        None => panic!("no entry for {major}.{minor}"),
    };
    // L1 bytes per clock: measured V100 108.3, P100 31.3, P4 and M60 15.7,
    // K80 68.6 (Jia 2018), T4 58.8 (Jia 2019), RTX 3060 65.3, RTX 4090
    // 63.7 and A100 99.5 (Luo 2024); Hopper 128.
    for (major, minor, want) in [
        (7, 5, 58.8),
        (8, 0, 99.5),
        (8, 6, 65.3),
        (8, 9, 63.7),
        (7, 0, 108.3),
        (9, 0, 128.0),
        (6, 0, 31.3),
        (6, 1, 15.7),
        (5, 2, 15.7),
        (3, 5, 68.6),
        // Blackwell: assumed as Hopper (10.0) and Ada (12.0).
        (10, 0, 128.0),
        (12, 0, 63.7),
    ] {
        assert_eq!(at(major, minor).l1_bytes_per_clock, want, "{major}.{minor}");
    }
    // SASS bytes per instruction (Jia et al. 2018, section 2.1).
    assert_eq!(at(9, 0).sass_bytes_per_instruction, 16.0);
    // Measured here on ptxas 12.9's sm_100 and sm_120 code (nvdisasm).
    assert_eq!(at(10, 0).sass_bytes_per_instruction, 16.0);
    assert_eq!(at(12, 0).sass_bytes_per_instruction, 16.0);
    assert_eq!(at(7, 0).sass_bytes_per_instruction, 16.0);
    assert_eq!(at(6, 0).sass_bytes_per_instruction, 8.0 * 4.0 / 3.0);
    assert_eq!(at(3, 5).sass_bytes_per_instruction, 8.0 * 8.0 / 7.0);
    assert_eq!(at(2, 0).sass_bytes_per_instruction, 8.0);
    // LD/ST lanes: Turing 16 (Jia 2019, Table 3.1), Volta 32.
    assert_eq!(at(7, 5).lsu_lanes, 16);
    assert_eq!(at(7, 0).lsu_lanes, 32);
    // Maxwell and Pascal cache local loads in L2 only.
    assert!(!at(5, 2).l1_caches_local_memory && !at(6, 1).l1_caches_local_memory);
    assert!(at(7, 0).l1_caches_local_memory);
    // Plain global loads allocate in L1 on Fermi, GP100 and from Volta on;
    // Kepler, Maxwell and GP10x cache them in L2 only.
    for (major, minor, l1) in [
        (2, 0, true),
        (3, 5, false),
        (5, 2, false),
        (6, 0, true),
        (6, 1, false),
        (7, 0, true),
        (7, 5, true),
        (8, 6, true),
        (9, 0, true),
    ] {
        assert_eq!(
            at(major, minor).l1_caches_global_loads,
            l1,
            "{major}.{minor}"
        );
    }
    assert_eq!(at(8, 0).transaction_bytes, 32.0);
    // Kepler to Pascal load global data through L2 only by default: 32-byte
    // transactions (CUDA C Programming Guide); Fermi caches in L1: 128.
    assert_eq!(at(6, 0).transaction_bytes, 32.0);
    assert_eq!(at(3, 5).transaction_bytes, 32.0);
    assert_eq!(at(2, 0).transaction_bytes, 128.0);
    assert_eq!(at(8, 0).convert_per_clock, 16.0);
    // The H100's fetch curve, measured here, and an assumption elsewhere.
    let curve = at(9, 0).instruction_fetch;
    assert_eq!(curve.warps, 16.0);
    assert_eq!(curve.points.len(), 4);
    assert_eq!(curve.source.status, SourceStatus::Verified);
    let other = at(8, 6);
    assert_eq!(
        other.source_of("instruction_fetch").map(|s| s.status),
        Some(SourceStatus::Assumption)
    );
    // The curve is read at the code size times the H100's 128 KiB
    // instruction cache over the architecture's (Wikipedia's table of the
    // CUDA architectures): Kepler and GP10x 32 KiB, Maxwell 48, Turing ~46,
    // GP100, Volta and later 128; none before Kepler (the code's own size).
    assert_eq!(curve.instruction_cache_bytes, 131072.0);
    for (major, minor, want) in [
        (3, 0, 4.0),
        (3, 5, 4.0),
        (5, 0, 131072.0 / 49152.0),
        (5, 2, 131072.0 / 49152.0),
        (6, 0, 1.0),
        (6, 1, 4.0),
        (7, 0, 1.0),
        (7, 5, 131072.0 / 47104.0),
        (8, 0, 1.0),
        (8, 6, 1.0),
        (8, 9, 1.0),
        (9, 0, 1.0),
        (10, 0, 1.0),
        (12, 0, 1.0),
        (2, 0, 1.0),
        (1, 3, 1.0),
    ] {
        let e = at(major, minor);
        assert_eq!(e.fetch_code_scale(), want, "{major}.{minor}");
        assert_eq!(
            e.instruction_cache_bytes.is_some(),
            major >= 3,
            "{major}.{minor}"
        );
    }
}

/// A GPU of a compute capability the table lacks does not load, and says where.
#[test]
fn a_gpu_without_compute_capability_figures_is_refused() {
    let text = arch::catalog::BUNDLED_FILES
        .iter()
        .find(|(f, _)| *f == "tesla-t4.toml")
        .map(|(_, t)| {
            t.replace(
                "compute_capability = \"7.5\"",
                "compute_capability = \"7.2\"",
            )
        })
        .unwrap_or_default();
    let err = arch::catalog::parse_gpu("gpus/tesla-t4.toml", &text)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("gpus/tesla-t4.toml:")
            && err.contains("compute_capability: 7.2 has no entry in compute-capabilities.toml"),
        "{err}"
    );
}
