//! The corpus's combinator kernels (`kernels/map`, `kernels/fold_reduce`,
//! `kernels/scan_block`): which launches each one makes at a size N, run in
//! the emulator, checked against the CPU reference and counted into the
//! [`StageCounts`] the cost model reads.

use super::inputs::{OpClass, StageCounts};
use super::reference::{self, Mismatch};
use arch::Gpu;
use emu::spec::ArgSpec;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A combinator of the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combinator {
    Map,
    Fold,
    Scan,
}

impl Combinator {
    pub const ALL: [Combinator; 3] = [Combinator::Map, Combinator::Fold, Combinator::Scan];

    pub fn name(self) -> &'static str {
        match self {
            Combinator::Map => "map",
            Combinator::Fold => "fold",
            Combinator::Scan => "scan",
        }
    }

    /// The kernel's folder in the corpus.
    pub fn dir(self) -> &'static str {
        match self {
            Combinator::Map => "map",
            Combinator::Fold => "fold_reduce",
            Combinator::Scan => "scan_block",
        }
    }

    /// The combinator named `s` (surrounding blanks ignored).
    pub fn from_name(s: &str) -> Option<Combinator> {
        Combinator::ALL.into_iter().find(|c| c.name() == s.trim())
    }
}

/// Threads of fold's first pass each sum this many elements (grid = N / (block * FOLD_PER_THREAD)).
const FOLD_PER_THREAD: u64 = 16;

/// Where the kernels are and how much of each grid to emulate for the counts.
#[derive(Debug, Clone)]
pub struct CorpusOptions {
    /// The kernel corpus folder.
    pub kernels: PathBuf,
    /// CTAs to emulate for the counts (0: all); the check always runs the full grid.
    pub sample_ctas: u64,
}

/// Why a combinator could not be emulated and counted.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// Loading or profiling the kernel failed.
    #[error("{0}")]
    Pipeline(#[from] pipeline::PipelineError),
    /// The emulator faulted.
    #[error("{0}")]
    Fault(Box<emu::fault::Fault>),
    /// A launch grid does not fit the 32-bit grid dimension.
    #[error("grid {0} is too large")]
    GridTooLarge(u64),
    /// The emulated output differs from the CPU reference.
    #[error("{}: error: {stage}, N = {n}: {mismatch}", spec.display())]
    Mismatch {
        spec: PathBuf,
        stage: String,
        n: u64,
        mismatch: Mismatch,
    },
}

/// The launches of one combinator at size `n`, emulated, checked and counted.
pub fn emulate(
    opts: &CorpusOptions,
    gpu: &Gpu,
    comb: Combinator,
    n: u64,
) -> Result<Vec<StageCounts>, CorpusError> {
    match comb {
        Combinator::Map => {
            let block = 128;
            Ok(vec![launch(
                opts,
                gpu,
                comb,
                n,
                n.div_ceil(block),
                None,
                "map",
            )?])
        }
        Combinator::Fold => {
            let grid = (n / (128 * FOLD_PER_THREAD)).max(1);
            let first = launch(opts, gpu, comb, n, grid, Some(grid), "fold")?;
            let mut last = launch(opts, gpu, comb, grid, 1, Some(1), "fold final pass")?;
            last.separate_launch = true;
            Ok(vec![first, last])
        }
        Combinator::Scan => Ok(vec![launch(opts, gpu, comb, n, n / 256, None, "scan")?]),
    }
}

/// Load the combinator's spec with N = `n`, set its grid (and fold's partial
/// length), run it fully to check the output, and profile it for the counts.
fn launch(
    opts: &CorpusOptions,
    gpu: &Gpu,
    comb: Combinator,
    n: u64,
    grid: u64,
    partial_len: Option<u64>,
    name: &str,
) -> Result<StageCounts, CorpusError> {
    let dir = opts.kernels.join(comb.dir());
    let spec_path = dir.join("spec.toml");
    // The checked-in PTX does not depend on N (n is a kernel argument); use it
    // when present so that no NVRTC is needed.
    let ptx = dir.join("sm_80.ptx");
    let load_opts = pipeline::LoadOptions {
        ptx: ptx.exists().then_some(ptx),
        ..Default::default()
    };
    let overrides = vec![("N".to_string(), n.to_string())];
    let mut loaded = pipeline::load_spec_with(&spec_path, &overrides, &load_opts)?;
    loaded.spec.grid = [
        u32::try_from(grid).map_err(|_| CorpusError::GridTooLarge(grid))?,
        1,
        1,
    ];
    if let Some(len) = partial_len {
        for a in &mut loaded.spec.args {
            if let ArgSpec::Buffer(b) = a
                && b.name == "partial"
            {
                b.len = len;
            }
        }
    }
    let result = emu::exec::launch::launch_boxed(
        &loaded.module,
        &loaded.ptx,
        &loaded.ptx_file,
        &loaded.spec,
        emu::exec::launch::LaunchOptions {
            parallel: true,
            ..Default::default()
        },
        &mut emu::observer::NoObserver,
    )
    .map_err(CorpusError::Fault)?;
    check_output(comb, n, &result.buffers).map_err(|mismatch| CorpusError::Mismatch {
        spec: spec_path.clone(),
        stage: name.to_string(),
        n,
        mismatch,
    })?;

    let popts = pipeline::Options {
        sample_ctas: (opts.sample_ctas > 0 && opts.sample_ctas < grid).then_some(opts.sample_ctas),
        cache: false,
        ..Default::default()
    };
    let profiled = pipeline::profile(&loaded, &popts)?;
    let occ = pipeline::occupancy_for(&profiled.profile, gpu)?;
    Ok(stage_counts(name, &profiled.profile, &occ))
}

/// The cost model's view of one profiled launch: bytes, operations per class,
/// barriers and residency.
fn stage_counts(name: &str, p: &profile::KernelProfile, occ: &arch::Occupancy) -> StageCounts {
    let m = &p.thread_instructions;
    let mut ops = BTreeMap::new();
    ops.insert(OpClass::IntAdd, m.int_add);
    ops.insert(OpClass::IntMul, m.int_mul + m.int_div);
    ops.insert(OpClass::Fp32, m.fp32 + m.fp32_div + m.fp32_fma + m.fp16);
    ops.insert(OpClass::Fp64, m.fp64 + m.fp64_fma);
    ops.insert(OpClass::Sfu, m.sfu + m.sfu_ieee);
    ops.insert(OpClass::Shared, m.shared_load + m.shared_store);
    ops.insert(
        OpClass::Other,
        m.control
            + m.convert
            + m.other
            + m.global_load
            + m.global_store
            + m.local
            + m.constant
            + m.constant_indexed
            + m.atomic
            + m.barrier,
    );
    StageCounts {
        name: name.to_string(),
        load_bytes: p.global.loads.bytes,
        store_bytes: p.global.stores.bytes,
        ops,
        barriers_per_thread: p.sync.barriers_per_thread,
        ctas: p.launch.blocks(),
        threads_per_cta: p.launch.threads_per_block(),
        blocks_per_sm: occ.active_blocks_per_sm,
        occupancy: occ.occupancy,
        separate_launch: false,
    }
}

/// Compare a launch's output with the CPU reference the kernel's header states.
fn check_output(
    comb: Combinator,
    n: u64,
    buffers: &[emu::exec::launch::Buffer],
) -> Result<(), Mismatch> {
    let find = |name: &'static str| {
        buffers
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.bytes.as_slice())
            .ok_or(Mismatch::MissingBuffer(name))
    };
    match comb {
        Combinator::Map => reference::check_map(&reference::f32s(find("out")?), n),
        Combinator::Fold => reference::check_fold(&reference::f32s(find("partial")?), n),
        Combinator::Scan => reference::check_scan(&reference::i32s(find("out")?), n, 256),
    }
}
