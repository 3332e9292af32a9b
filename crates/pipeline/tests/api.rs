//! The pipeline's API on small inputs: loading (files, in-memory sources,
//! NVRTC with its cache), errors with locations, profiling options, the cache
//! model per GPU, and determinism.

use std::path::{Path, PathBuf};

use arch::Catalog;
use pipeline::{
    LoadOptions, LoadedSpec, Options, PipelineError, Policy, Profiled, PtxOrigin, compare,
    load_source, load_spec, load_spec_with, predict, predict_on_gpus, profile,
};
use profile::RegisterSource;

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../kernels")
        .join(name)
}

fn load_checked_in(name: &str) -> LoadedSpec {
    let dir = kernel(name);
    let opts = LoadOptions {
        ptx: Some(dir.join("sm_80.ptx")),
        ..LoadOptions::default()
    };
    match load_spec_with(&dir.join("spec.toml"), &[], &opts) {
        Ok(l) => l,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn gpu(id: &str) -> arch::Gpu {
    match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{id}: {e}"),
    }
}

/// Write `text` to a fresh temporary file named `name` and return its path.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pipeline-api-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    let path = dir.join(name);
    if let Err(e) = std::fs::write(&path, text) {
        panic!("{}: {e}", path.display());
    }
    path
}

/// Load a spec written to a temp file and compare the error's text with `expected` (a substring).
fn check_load_error(file: &str, spec: &str, expected: &str) {
    let path = temp_file(file, spec);
    match load_spec(&path, &[]) {
        Ok(_) => panic!("{file}: loaded, expected an error containing {expected:?}"),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(expected),
                "{file}: error {text:?} lacks {expected:?}"
            );
        }
    }
}

const SAXPY_PTX: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry saxpy(.param .u64 x, .param .f32 a)
{
.reg .b32 %r<4>;
.reg .f32 %f<3>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [x];
ld.param.f32 %f1, [a];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
ld.global.f32 %f2, [%rd3];
mul.f32 %f2, %f2, %f1;
st.global.f32 [%rd3], %f2;
ret;
}
";

fn saxpy_spec(source: &str) -> String {
    format!(
        "source = \"{source}\"\nkernel = \"saxpy\"\ngrid = [2, 1, 1]\nblock = [64, 1, 1]\n\n\
         [[arg]]\nname = \"x\"\ntype = \"f32*\"\nlen = 128\ninit = \"iota\"\n\n\
         [[arg]]\nname = \"a\"\ntype = \"f32\"\nvalue = 2.0\n"
    )
}

#[test]
fn load_errors_name_the_file_and_position() {
    check_load_error(
        "bad_key.toml",
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\ncolour = 1\n",
        "bad_key.toml:5:1: error:",
    );
    check_load_error(
        "missing_source.toml",
        "source = \"does_not_exist.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n",
        "does_not_exist.ptx: error: cannot read file",
    );
    temp_file(
        "broken.ptx",
        ".version 8.0\n.target sm_80\n.visible .entry k(\n",
    );
    check_load_error(
        "broken_ptx.toml",
        "source = \"broken.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n",
        "broken.ptx:",
    );
    temp_file("saxpy.ptx", SAXPY_PTX);
    check_load_error(
        "wrong_kernel.toml",
        "source = \"saxpy.ptx\"\nkernel = \"daxpy\"\ngrid = [1]\nblock = [1]\n",
        "wrong_kernel.toml: error:",
    );
}

#[test]
fn in_memory_ptx_loads_and_profiles() {
    let spec_path = temp_file("mem.toml", &saxpy_spec("mem.ptx"));
    let spec = match emu::spec::parse(&saxpy_spec("mem.ptx"), &spec_path, &[]) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let loaded = match load_source(spec, SAXPY_PTX, &LoadOptions::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(loaded.spec.kernel, "saxpy");
    assert!(matches!(loaded.origin, PtxOrigin::File(_)));
    let opts = Options {
        ptxas: false,
        ..Options::default()
    };
    let p = match profile(&loaded, &opts) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    // 4 warps, one global load and one store each.
    assert_eq!(p.profile.global.loads.requests, 4.0);
    assert_eq!(p.profile.global.stores.requests, 4.0);
    assert_eq!(
        p.profile.resources.registers_source,
        RegisterSource::Estimate
    );
    // The PTX-only estimate (ptx::analysis::registers): at most 4 slots
    // live at once (at the mul: %rd3 (2), %f2 and the reloaded parameter
    // %f1), plus the overhead of 3.
    assert_eq!(p.profile.resources.registers_per_thread, 7);
    assert_eq!(p.profile.workload.activity_factor, Some(1.0));
}

#[test]
fn cache_figures_follow_the_gpu() {
    let loaded = load_checked_in("matmul_tiled");
    let opts = Options {
        gpu: Some(gpu("a100-pcie-40gb")),
        ..Options::default()
    };
    let p = match profile(&loaded, &opts) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(p.profile.cache.gpu, "a100-pcie-40gb");
    // Three 64x64 f32 matrices: A and B read (32 KiB), C written (16 KiB).
    assert_eq!(p.profile.cache.dram_read_bytes, Some(32768.0));
    assert_eq!(p.profile.cache.dram_write_bytes, Some(16384.0));
    assert_eq!(p.profile.global.dram_bytes, Some(49152.0));
    assert!(p.cache.is_some());
    // The GTX 280 has no L2 for global data: predict drops the A100's figures.
    let old = match predict(&p, &gpu("geforce-gtx-280"), &[]) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(old.profile.cache.gpu, "");
    assert_eq!(old.profile.cache.l2_hit_rate, None);
    assert_eq!(old.profile.global.dram_bytes, None);
    // The H100 gets its own simulation.
    let h100 = match predict(&p, &gpu("h100-sxm5-80gb"), &["roofline".to_string()]) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(h100.profile.cache.gpu, "h100-sxm5-80gb");
    assert_eq!(h100.predictions.len(), 1);
}

/// One emulation predicted on several GPUs gives, per GPU, exactly what a
/// separate emulation with that GPU's cache model gives.
#[test]
fn one_emulation_predicts_every_gpu_as_separate_runs_do() {
    let ids = ["rtx-a4000", "h100-sxm5-80gb", "geforce-gtx-280"];
    let gpus: Vec<arch::Gpu> = ids.iter().map(|id| gpu(id)).collect();
    for kernel in ["conv2d", "matmul_tiled"] {
        let loaded = load_checked_in(kernel);
        let first = Options {
            gpu: gpus.first().cloned(),
            ..Options::default()
        };
        let once = profile(&loaded, &first).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let per_gpu = predict_on_gpus(&once, &gpus, &[]);
        assert_eq!(per_gpu.len(), ids.len());
        for (g, id) in per_gpu.iter().zip(ids) {
            assert_eq!(g.gpu, id);
            let shared = g.result.as_ref().unwrap_or_else(|e| panic!("{id}: {e}"));
            let alone_opts = Options {
                gpu: Some(gpu(id)),
                ..Options::default()
            };
            let alone = profile(&loaded, &alone_opts).unwrap_or_else(|e| panic!("{id}: {e}"));
            let alone = predict(&alone, &gpu(id), &[]).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(
                shared.profile.cache, alone.profile.cache,
                "{kernel} on {id}"
            );
            assert_eq!(shared.occupancy, alone.occupancy, "{kernel} on {id}");
            assert_eq!(shared.predictions, alone.predictions, "{kernel} on {id}");
        }
        let rows = compare(&per_gpu);
        assert_eq!(rows.len(), ids.len(), "{kernel}");
        assert!(
            rows.iter().all(|r| r.model == "timing"),
            "{kernel}: {rows:?}"
        );
        assert!((rows[0].relative - 1.0).abs() < 1e-12, "{kernel}: {rows:?}");
        assert!(
            rows.windows(2).all(|w| w[0].seconds <= w[1].seconds),
            "{kernel}: {rows:?}"
        );
    }
}

#[test]
fn unknown_model_is_an_error() {
    let loaded = load_checked_in("map");
    let p = match profile(&loaded, &Options::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    match predict(&p, &gpu("a100-pcie-40gb"), &["no-such-model".to_string()]) {
        Ok(_) => panic!("an unknown model predicted"),
        Err(e) => assert!(matches!(e, PipelineError::Model(_)), "{e}"),
    }
}

#[test]
fn profiling_is_deterministic() {
    let loaded = load_checked_in("histogram_shared");
    let opts = Options {
        gpu: Some(gpu("tesla-v100-sxm2-16gb")),
        ..Options::default()
    };
    let run = || match profile(&loaded, &opts) {
        Ok(p) => p.profile,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(run(), run());
}

#[test]
fn sampling_emulates_fewer_ctas_and_scales_counts() {
    let loaded = load_checked_in("map");
    let full = match profile(&loaded, &Options::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let opts = Options {
        sample_ctas: Some(2),
        ..Options::default()
    };
    let sampled = match profile(&loaded, &opts) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(sampled.characterization.ctas_emulated, 2);
    assert_eq!(sampled.profile.workload.ctas_emulated, Some(2.0));
    // map's CTAs are identical, so the extrapolation is exact.
    assert_eq!(
        sampled.profile.warp_instructions.total(),
        full.profile.warp_instructions.total()
    );
}

#[test]
fn both_policies_profile_divergent_code() {
    let loaded = load_checked_in("divergence");
    let count = |policy| match profile(
        &loaded,
        &Options {
            policy,
            cache: false,
            ..Options::default()
        },
    ) {
        Ok(p) => p.characterization.warp_instructions,
        Err(e) => panic!("{e}"),
    };
    // Reconverging only at barriers issues more warp instructions (seed 001, section 5).
    assert!(count(Policy::Barrier) > count(Policy::Ipdom));
}

/// NVRTC is needed here: skip with a message when it is absent, unless CI is set.
fn nvrtc_available() -> bool {
    let found = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)).is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "NVRTC is required in CI (run scripts/setup.sh)"
        );
        eprintln!("skipping: NVRTC not found (run scripts/setup.sh)");
    }
    found
}

#[test]
fn compiled_source_matches_the_checked_in_ptx_and_is_cached() {
    if !nvrtc_available() {
        return;
    }
    for name in ["fold_reduce", "conv2d"] {
        let spec = kernel(name).join("spec.toml");
        let first = match load_spec(&spec, &[]) {
            Ok(l) => l,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(first.arch, "sm_80");
        let again = match load_spec(&spec, &[]) {
            Ok(l) => l,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(again.origin, PtxOrigin::Compiled { cached: true });
        let opts = Options {
            cache: false,
            ..Options::default()
        };
        let compiled = match profile(&first, &opts) {
            Ok(p) => p.characterization.warp_instructions,
            Err(e) => panic!("{name}: {e}"),
        };
        let checked_in = match profile(&load_checked_in(name), &opts) {
            Ok(p) => p.characterization.warp_instructions,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(compiled, checked_in, "{name}");
    }
}

#[test]
fn defines_override_recompiles() {
    if !nvrtc_available() {
        return;
    }
    let spec = kernel("coalescing").join("spec.toml");
    let a = load_spec(&spec, &[("STRIDE".to_string(), "1".to_string())]);
    let b = load_spec(&spec, &[("STRIDE".to_string(), "4".to_string())]);
    match (a, b) {
        (Ok(a), Ok(b)) => assert_ne!(a.ptx, b.ptx),
        (Err(e), _) | (_, Err(e)) => panic!("{e}"),
    }
}

/// The full run and a `k`-CTA sampled run of a spec given as text with its PTX.
fn full_and_sampled(toml_name: &str, text: &str, ptx: &str, k: u64) -> (Profiled, Profiled) {
    let path = temp_file(toml_name, text);
    let spec = match emu::spec::parse(text, &path, &[]) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let loaded = match load_source(spec, ptx, &LoadOptions::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    let base = Options {
        ptxas: false,
        gpu: Some(gpu("a100-pcie-40gb")),
        ..Options::default()
    };
    let full = match profile(&loaded, &base) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let sampled = match profile(
        &loaded,
        &Options {
            sample_ctas: Some(k),
            ..base
        },
    ) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    (full, sampled)
}

/// A sampled figure against the full run's: within 10 % (NaN fails).
#[track_caller]
fn check_within_10_percent(what: &str, sampled: f64, full: f64) {
    assert!(
        (sampled - full).abs() <= 0.1 * full,
        "{what}: sampled {sampled} vs full {full}"
    );
}

/// A kernel whose CTAs with `blockIdx.x >= 4` exit at once (the data ends
/// there), launched on a grid of 8 x 6 CTAs: half the columns do the work.
const GUARDED_PTX: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry guarded(.param .u64 x, .param .u32 n)
{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .f32 %f<3>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [x];
ld.param.u32 %r2, [n];
mov.u32 %r3, %ctaid.x;
mov.u32 %r4, %ntid.x;
mov.u32 %r5, %tid.x;
mad.lo.s32 %r1, %r3, %r4, %r5;
setp.ge.u32 %p1, %r1, %r2;
@%p1 bra DONE;
mov.u32 %r6, %ctaid.y;
mad.lo.s32 %r7, %r6, %r2, %r1;
mul.wide.u32 %rd2, %r7, 4;
add.s64 %rd3, %rd1, %rd2;
ld.global.f32 %f2, [%rd3];
add.f32 %f2, %f2, %f2;
mul.f32 %f2, %f2, %f2;
add.f32 %f2, %f2, %f2;
st.global.f32 [%rd3], %f2;
DONE:
ret;
}
";

#[test]
fn sampling_a_grid_with_idle_ctas_extrapolates_the_busy_fraction() {
    // Evenly spaced linear ids would alias here: with 2 samples of 48 CTAs
    // they are ids 0 and 47, i.e. columns 0 and 7, and with 3 samples columns
    // 0, 7 and 7 again. The sample spreads over x (columns 2 and 6 of 8 at
    // k = 2), and grows while its CTAs disagree.
    let text = "source = \"guarded.ptx\"\nkernel = \"guarded\"\ngrid = [8, 6, 1]\nblock = [32, 1, 1]\n\n\
         [[arg]]\nname = \"x\"\ntype = \"f32*\"\nlen = 768\ninit = \"iota\"\n\n\
         [[arg]]\nname = \"n\"\ntype = \"u32\"\nvalue = 128\n";
    let (full, sampled) = full_and_sampled("guarded.toml", text, GUARDED_PTX, 2);
    // 4 busy columns x 6 rows x 1 warp: one load and one store each.
    assert_eq!(full.profile.global.loads.requests, 24.0);
    let (s, f) = (&sampled.profile, &full.profile);
    check_within_10_percent("loads", s.global.loads.requests, f.global.loads.requests);
    check_within_10_percent(
        "instructions",
        s.warp_instructions.total(),
        f.warp_instructions.total(),
    );
    // The cache model weights every emulated CTA, idle or not: the sampled
    // DRAM traffic is the full run's (3 KiB read, 3 KiB written), not
    // inflated by the idle CTAs that never reached the trace.
    let (sd, fd) = (
        s.global.dram_bytes.unwrap_or(f64::NAN),
        f.global.dram_bytes.unwrap_or(f64::NAN),
    );
    assert_eq!(fd, 6144.0);
    check_within_10_percent("DRAM bytes", sd, fd);
    // It grew: two CTAs (one busy, one idle) disagree completely.
    assert!(sampled.characterization.ctas_emulated > 2);
}

/// A kernel whose CTAs with `blockIdx.y >= rows` exit at once: a grid taller
/// than its data, as Kernel Tuner launches when it divides the problem by the
/// block only.
const ROW_GUARDED_PTX: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry row_guarded(.param .u64 x, .param .u32 rows)
{
.reg .pred %p<2>;
.reg .b32 %r<10>;
.reg .f32 %f<3>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [x];
ld.param.u32 %r2, [rows];
mov.u32 %r6, %ctaid.y;
setp.ge.u32 %p1, %r6, %r2;
@%p1 bra DONE;
mov.u32 %r3, %ctaid.x;
mov.u32 %r4, %ntid.x;
mov.u32 %r5, %tid.x;
mad.lo.s32 %r1, %r3, %r4, %r5;
mov.u32 %r8, %nctaid.x;
mul.lo.s32 %r9, %r8, %r4;
mad.lo.s32 %r7, %r6, %r9, %r1;
mul.wide.u32 %rd2, %r7, 4;
add.s64 %rd3, %rd1, %rd2;
ld.global.f32 %f2, [%rd3];
add.f32 %f2, %f2, %f2;
st.global.f32 [%rd3], %f2;
DONE:
ret;
}
";

/// A launch spec of [`ROW_GUARDED_PTX`] on a `gx` x `gy` grid of one-warp
/// CTAs whose first `rows` rows are busy (`x` holds exactly their data).
fn row_guarded_spec(gx: u32, gy: u32, rows: u32) -> String {
    format!(
        "source = \"rows.ptx\"\nkernel = \"row_guarded\"\ngrid = [{gx}, {gy}, 1]\nblock = [32, 1, 1]\n\n\
         [[arg]]\nname = \"x\"\ntype = \"f32*\"\nlen = {len}\ninit = \"iota\"\n\n\
         [[arg]]\nname = \"rows\"\ntype = \"u32\"\nvalue = {rows}\n",
        len = gx * 32 * rows
    )
}

#[test]
fn sampling_finds_the_busy_rows_of_a_grid_taller_than_its_data() {
    // 4 x 16 CTAs, only rows 0 and 1 busy (8 of 64 CTAs). Four CTAs whose
    // rows all miss {0, 1} would agree (all idle) and never grow, and the
    // kernel would be predicted to do nothing: the spread's first point is in
    // row 0, so the sample disagrees and grows.
    let text = row_guarded_spec(4, 16, 2);
    let (full, sampled) = full_and_sampled("rows.toml", &text, ROW_GUARDED_PTX, 4);
    // 8 busy CTAs x 1 warp: one load each.
    assert_eq!(full.profile.global.loads.requests, 8.0);
    check_within_10_percent(
        "loads",
        sampled.profile.global.loads.requests,
        full.profile.global.loads.requests,
    );
    assert!(sampled.characterization.ctas_emulated > 4);
}

#[test]
fn a_stratified_sample_takes_the_busy_share_from_the_probe() {
    // 64 x 100 CTAs with rows 0 to 6 busy: 448 of 6,400 (7 %). A spread
    // sample grown to 64 CTAs catches 4 or 5 of them, so its busy share is
    // off by up to a fifth; the probe of 4 x 1024 CTAs resolves it, and the
    // sample holds 16 busy CTAs and idle ones in the probe's proportion.
    let text = row_guarded_spec(64, 100, 7);
    let (full, sampled) = full_and_sampled("rows.toml", &text, ROW_GUARDED_PTX, 4);
    assert_eq!(full.profile.global.loads.requests, 448.0);
    let (s, f) = (
        sampled.profile.global.loads.requests,
        full.profile.global.loads.requests,
    );
    assert!((s - f).abs() <= 0.02 * f, "sampled {s} vs full {f}");
    let c = &sampled.characterization;
    let busy = c
        .cta_instructions
        .iter()
        .filter(|&&(id, _)| id < 7 * 64)
        .count();
    assert_eq!(busy, 16, "busy CTAs emulated");
    assert!(
        c.ctas_emulated > 16 * 10,
        "{} CTAs emulated",
        c.ctas_emulated
    );
    // Every busy CTA does the same work: the estimate is settled.
    assert!(
        c.sampling_error <= pipeline::SAMPLING_TARGET,
        "{}",
        c.sampling_error
    );
}

/// Two PTX texts are one program for the emulator when only their
/// `.target` lines differ; any other difference makes two.
#[test]
fn the_same_program_differs_only_in_its_target() {
    let ptx = |target: &str, body: &str| {
        format!(
            ".version 8.5\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
        )
    };
    let add = "add.s32 %r1, %r1, 1;";
    for (a, b, same) in [
        (ptx("sm_86", add), ptx("sm_86", add), true),
        (ptx("sm_86", add), ptx("sm_75", add), true),
        (ptx("sm_90", add), ptx("sm_90a", add), true),
        (
            ptx("sm_86", add),
            ptx("sm_75", "add.s32 %r1, %r1, 2;"),
            false,
        ),
        (
            ptx("sm_86", add),
            ptx("sm_86", &format!("{add}\n{add}")),
            false,
        ),
        (
            ptx("sm_86", add),
            ptx("sm_86", add).replace(".version 8.5", ".version 8.4"),
            false,
        ),
        (ptx("sm_86", add), String::new(), false),
    ] {
        assert_eq!(pipeline::same_program(&a, &b), same, "{a}\n---\n{b}");
        assert_eq!(pipeline::same_program(&b, &a), same, "symmetric");
    }
}

/// Whether ptxas is installed; in CI it must be (the test fails there),
/// elsewhere a test that needs it says it is skipped.
fn ptxas_installed() -> bool {
    if arch::ptxas::find_ptxas(None).is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "ptxas is required in CI (run scripts/setup.sh)"
    );
    eprintln!("skipping: ptxas not found (run scripts/setup.sh)");
    false
}

#[test]
fn retargeting_takes_ptxas_s_figures_for_the_architecture_and_keeps_a_set_compiler() {
    if !ptxas_installed() {
        return;
    }
    let loaded = load_checked_in("matmul_tiled");
    let mut p = match profile(&loaded, &Options::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let r = p.profile.resources;
    assert_eq!(r.ptxas_arch, profile::SmArch::parse("sm_80"), "{r:?}");
    let sm80_code = p.profile.analysis.spills.sass_bytes;
    assert!(sm80_code > 0 && sm80_code.is_multiple_of(16), "{sm80_code}");
    // `predict --compiler 13.0` sets the compiler before the retarget.
    let set = profile::CompilerVersion::new(13, 0);
    p.profile.resources.compiler = Some(set);
    let mut times = pipeline::StageTimes::default();
    assert!(p.retarget_arch(&loaded, "sm_90", &mut times));
    let r = p.profile.resources;
    assert_eq!(r.ptxas_arch, profile::SmArch::parse("sm_90"), "{r:?}");
    assert_eq!(r.compiler, Some(set), "{r:?}");
    assert_eq!(r.registers_source, profile::RegisterSource::Ptxas);
    assert!(p.profile.analysis.spills.sass_bytes > 0);
    // An architecture ptxas does not build for leaves the figures as they were.
    let before = p.profile.clone();
    assert!(!p.retarget_arch(&loaded, "sm_5", &mut times));
    assert_eq!(p.profile, before);
}

/// ptxas runs once per PTX text and architecture in a process; a report
/// served again is the one a fresh ptxas run gives, for each architecture.
#[test]
fn ptxas_reports_are_kept_per_ptx_and_architecture() {
    if !ptxas_installed() {
        return;
    }
    let loaded = load_checked_in("matmul_tiled");
    let entry = loaded.spec.kernel.clone();
    for sm in ["sm_80", "sm_90", "sm_80", "sm_86", "sm_90"] {
        let fresh = arch::ptxas::ptxas_resources(None, &loaded.ptx, sm)
            .unwrap_or_else(|e| panic!("{sm}: {e}"))
            .into_iter()
            .find(|k| k.name == entry);
        assert!(fresh.is_some(), "{sm}: no entry {entry}");
        let served = pipeline::registers::ptxas_kernel(&loaded.ptx, sm, &entry);
        assert_eq!(served, fresh, "{sm}");
    }
    // The code differs by architecture, so a report keyed by the PTX alone
    // would have failed above.
    let code =
        |sm| pipeline::registers::ptxas_kernel(&loaded.ptx, sm, &entry).and_then(|k| k.code_bytes);
    assert_ne!(code("sm_80"), code("sm_90"));
}
