//! A kernel launch: bind the spec's arguments to the kernel's parameters,
//! place buffers and constants, run every CTA (in order, or on several host
//! threads), and hand back the buffers, printf output and counters.

use ptx::Module;
use ptx::analysis::{KernelLookup, find_kernel};
use rayon::prelude::*;

use super::bind::{HostArg, bind_args, bind_constants};
use super::cta::{CtaStats, run_cta};
use super::decode::Program;
use super::idle::IdleOps;
use super::layout::ModuleLayout;
use super::ops::{MemSpace, Op};
use super::warp::{LaunchCtx, Texture};
use crate::fault::Fault;
use crate::mem::{GlobalMemory, Region, Space};
use crate::observer::{NoObserver, Observer};
use crate::simt::DEFAULT_WARP_FUEL;
use crate::simt::stack::Policy;
use crate::spec::{LaunchSpec, ScalarType};

/// How to run a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchOptions {
    pub policy: Policy,
    /// Run CTAs on rayon's thread pool: one contiguous range of CTAs per host
    /// thread, each on its own copy of global memory, changes merged in CTA
    /// order. Falls back to sequential for kernels with global atomics and
    /// for observers that watch events.
    pub parallel: bool,
    /// Per-warp instruction budget; `None`: the spec's `fuel`, else the default.
    pub fuel: Option<u64>,
    /// Which CTAs to run. Sampling leaves the other CTAs' output untouched,
    /// which is what profiling wants (their events are extrapolated by the
    /// caller), not what a correctness run wants.
    pub ctas: CtaSelection,
    /// Run for the events alone: the pure ops whose results no address,
    /// branch or other effect reads are skipped and the loads that feed only
    /// them read no data ([`crate::exec::idle`]). Every instruction, memory,
    /// branch and barrier event, every count and every fault is as in a
    /// full run; the buffers it returns are not the kernel's results.
    pub addresses_only: bool,
}

/// The CTAs a launch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CtaSelection {
    /// Every CTA of the grid.
    #[default]
    All,
    /// `k` CTAs evenly spaced over the linear CTA ids, first and last
    /// included ([`evenly_spaced`]); all of them when `k` covers the grid.
    Evenly(u64),
    /// `k` CTAs spread over every dimension of the grid ([`spread_ctas`]);
    /// all of them when `k` covers the grid.
    Spread(u64),
}

/// `k` CTAs of `grid` spread over each of its dimensions, as ascending linear
/// ids without repeats (fewer than `k` when two points fall in one CTA); every
/// CTA when `k` covers the grid.
///
/// Along the grid's width the sample is stratified, jittered and mirrored:
/// point `i` of `k` sits at x = (i + u_i) / k of the width, one point in each
/// of `k` equal parts, with u_i = frac(sqrt 2 + i / phi) (a deterministic
/// jitter that never repeats) for the first half and u_{k-1-i} = 1 - u_i for
/// the second, so the points pair up as x and 1 - x of the width (with odd
/// `k` the middle point, which has no partner, at the centre; with `k` at
/// least the width, the midpoints (i + 1/2) / k, which reach every column).
/// The pairs keep the sample exact for work that changes linearly with
/// `blockIdx.x`, as the midpoint rule (i + 1/2) / k was, and the jitter
/// keeps it off the power-of-two strides where the midpoint rule aliases:
/// on a grid of 2^n columns its ids are multiples of
/// 2^n / 2k, with few set bits, and work that grows with the set bits of the
/// CTA id (cuRAND's `curand_init` skips ahead one matrix product per set
/// bit of its subsequence) was under-sampled, 19 % on a 4,096-CTA Monte
/// Carlo kernel with k = 4. A mirrored pair x, 2^n - 1 - x holds n set bits
/// between them, the grid's mean. Height and depth take the fractional parts
/// of i a and i b, with a and b the irrational steps of the R3
/// low-discrepancy sequence (Roberts 2018).
/// Point 0 is in row 0 and layer 0: a grid larger than its data (Kernel Tuner
/// divides the problem by the block only, so up to 15 of 16 rows can be past
/// the data) keeps its busy CTAs at the low indices, where range checks pass,
/// and a sample of idle CTAs alone would agree with itself and never grow
/// (`pipeline::profile` grows the sample while its CTAs disagree). Evenly spaced linear ids alias with the grid's rows: with
/// `grid.y` a multiple of `k` every sampled CTA has the same `blockIdx.x`, and
/// a kernel whose work depends on `blockIdx.x` (CTAs past the data that exit
/// at once) is extrapolated from that one column. Spreading every dimension
/// independently samples each column and each row in proportion.
pub fn spread_ctas(grid: [u32; 3], k: u64) -> Vec<u32> {
    let [gx, gy, gz] = grid.map(u64::from);
    let total = gx * gy * gz;
    if k >= total || total <= 1 {
        return (0..total as u32).collect();
    }
    if k == 0 {
        return Vec::new();
    }
    // R3 steps: 1/g, 1/g^2 for g the real root of x^4 = x + 1 (Roberts 2018).
    const A: f64 = 0.819_172_513_396_164_4;
    const B: f64 = 0.671_043_606_703_789_2;
    let cell = |u: f64, n: u64| ((u * n as f64) as u64).min(n - 1);
    let mut v: Vec<u32> = (0..k)
        .map(|i| {
            let x = cell(width_point(i, k, gx), gx);
            let y = cell((i as f64 * A).fract(), gy);
            let z = cell((i as f64 * B).fract(), gz);
            (x + y * gx + z * gx * gy) as u32
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Where point `i` of `k` sits along a grid `width` CTAs wide, in [0, 1)
/// ([`spread_ctas`]: stratified, jittered, mirrored). With at least as many
/// points as columns a stratum is at most one column wide: the midpoints
/// then reach every column, where jittered points could leave one out.
fn width_point(i: u64, k: u64, width: u64) -> f64 {
    if k >= width {
        return (i as f64 + 0.5) / k as f64;
    }
    // frac(sqrt 2) and 1 / phi: irrational, so no two strata get the same
    // offset and no offset is a dyadic fraction.
    const START: f64 = 0.414_213_562_373_095_1;
    const STEP: f64 = 0.618_033_988_749_894_8;
    let jitter = |j: u64| (START + j as f64 * STEP).fract();
    let mirror = k - 1 - i;
    let offset = match i.cmp(&mirror) {
        std::cmp::Ordering::Less => jitter(i),
        std::cmp::Ordering::Greater => 1.0 - jitter(mirror),
        // The middle point of an odd k has no partner: the centre keeps the
        // sample exact for linear work.
        std::cmp::Ordering::Equal => 0.5,
    };
    ((i as f64 + offset) / k as f64).clamp(0.0, 1.0 - f64::EPSILON)
}

/// `k` of `total` linear CTA ids, evenly spaced with the first and the last
/// included, ascending and without repeats; every id when `k >= total`.
/// Characterization samples with this same rule, so that the CTAs it
/// extrapolates from are the CTAs that ran.
pub fn evenly_spaced(total: u64, k: u64) -> Vec<u32> {
    if k >= total || total <= 1 {
        return (0..total as u32).collect();
    }
    if k <= 1 {
        return vec![0];
    }
    let mut v: Vec<u32> = (0..k)
        .map(|i| ((i * (total - 1) + (k - 1) / 2) / (k - 1)) as u32)
        .collect();
    v.dedup();
    v
}

/// The (x, y, z) index of the CTA with linear id `id` (x fastest).
pub(super) fn cta_coords(grid: [u32; 3], id: u32) -> [u32; 3] {
    let [gx, gy, _] = grid;
    let (gx, gy) = (gx.max(1), gy.max(1));
    [id % gx, (id / gx) % gy, id / (gx * gy)]
}

/// The CTAs of `grid` that `sel` keeps, in launch order (x fastest).
fn selected_ctas(grid: [u32; 3], sel: CtaSelection) -> Vec<([u32; 3], u32)> {
    let total = grid.iter().map(|&g| u64::from(g)).product::<u64>();
    let coords = |id: u32| (cta_coords(grid, id), id);
    match sel {
        CtaSelection::All => cta_ids(grid).collect(),
        CtaSelection::Evenly(k) => evenly_spaced(total, k).into_iter().map(coords).collect(),
        CtaSelection::Spread(k) => spread_ctas(grid, k).into_iter().map(coords).collect(),
    }
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            policy: Policy::Ipdom,
            parallel: false,
            fuel: None,
            ctas: CtaSelection::All,
            addresses_only: false,
        }
    }
}

/// A pointer argument's buffer after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub elem: ScalarType,
    /// The device address the kernel saw (the buffer's first byte).
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// Totals over the launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchStats {
    pub ctas: u64,
    pub warps: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub max_stack_depth: u64,
    /// Parallel mode was asked for but the kernel has global atomics (whose
    /// results depend on CTA interleaving) or the observer watches events:
    /// it ran sequentially.
    pub ran_sequentially: bool,
}

#[derive(Debug, Clone)]
pub struct LaunchResult {
    pub buffers: Vec<Buffer>,
    pub printf: String,
    pub stats: LaunchStats,
}

/// Everything prepared before the first CTA runs.
pub(super) struct Prepared {
    pub(super) code: Code,
    pub(super) global: GlobalMemory,
    buffers: Vec<(String, ScalarType, u64, usize)>,
    /// The kernel's parameters' (offset, bytes) in `code.params`.
    kernel_params: Vec<(u64, u64)>,
    /// Per module variable, where the launch placed it.
    globals: Vec<Option<super::layout::Placed>>,
}

/// The read-only part of a prepared launch.
pub(super) struct Code {
    pub(super) prog: Program,
    pub(super) entry: u32,
    params: Region,
    consts: Region,
    pub(super) shared_template: Region,
    /// The device heap's (base, bytes), where the kernel calls malloc.
    heap: Option<(u64, u64)>,
    /// The launch's texture objects; object `k`'s handle is `k + 1`.
    textures: Vec<Texture>,
    /// What a run for addresses alone leaves out
    /// ([`LaunchOptions::addresses_only`]).
    pub(super) idle: Option<IdleOps>,
}

/// A launch error where a 32-bit module's global memory, after placing
/// `what`, reaches past what its addresses can hold.
fn fits_32_bit(global: &GlobalMemory, what: &str) -> Result<(), Box<Fault>> {
    if global.end() > crate::mem::generic::WINDOWS_32 {
        return Err(launch_err(format!(
            "{what} does not fit the {:#x} bytes of a 32-bit global space",
            crate::mem::generic::WINDOWS_32
        )));
    }
    Ok(())
}

/// The device heap a launch that calls `malloc` gets: CUDA's default
/// (`cudaLimitMallocHeapSize`, 8 MB; CUDA C++ Programming Guide, "Dynamic
/// Global Memory Allocation and Operations").
pub const DEVICE_HEAP_BYTES: u64 = 8 << 20;

/// The heap's first bytes hold its next free address.
pub(super) const HEAP_HEADER_BYTES: u64 = 16;

pub(super) fn prepare(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
) -> Result<Prepared, Box<Fault>> {
    let entry = resolve_entry(module, file, spec)?;
    prepare_entry(module, text, file, spec, entry)
}

/// [`prepare`], with what `opts` leaves out ([`LaunchOptions::addresses_only`]).
pub(super) fn prepare_for(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
) -> Result<Prepared, Box<Fault>> {
    let mut p = prepare(module, text, file, spec)?;
    if opts.addresses_only {
        let places = super::idle::LaunchPlaces {
            module,
            kernel_params: &p.kernel_params,
            params: &p.code.params,
            globals: &p.globals,
            global: &p.global,
        };
        p.code.idle = Some(IdleOps::of(module, &p.code.prog, p.code.entry, &places));
    }
    Ok(p)
}

/// The spec's kernel in `module`: by exact name, else by its unique nested-name match.
pub(super) fn resolve_entry(
    module: &Module,
    file: &str,
    spec: &LaunchSpec,
) -> Result<ptx::Handle<ptx::Function>, Box<Fault>> {
    match find_kernel(module, &spec.kernel) {
        KernelLookup::Found(h) => Ok(h),
        KernelLookup::NotFound { available } => {
            find_nested(module, &spec.kernel).ok_or_else(|| {
                launch_err(format!(
                    "no kernel `{}` in {file} (kernels: {})",
                    spec.kernel,
                    available.join(", ")
                ))
            })
        }
        KernelLookup::Ambiguous { candidates } => Err(launch_err(format!(
            "kernel name `{}` is ambiguous: {}",
            spec.kernel,
            candidates.join(", ")
        ))),
    }
}

/// The components of an Itanium nested name `_ZN <len><id>... E...`.
fn nested_components(mangled: &str) -> Option<Vec<&str>> {
    let mut rest = mangled.strip_prefix("_ZN")?;
    let mut parts = Vec::new();
    while !rest.starts_with('E') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest.get(..digits)?.parse().ok()?;
        let id = rest.get(digits..digits + len)?;
        parts.push(id);
        rest = &rest[digits + len..];
    }
    Some(parts)
}

/// A kernel in a namespace, named `ns::name` or just `name` (when unique).
fn find_nested(module: &Module, name: &str) -> Option<ptx::Handle<ptx::Function>> {
    let hits: Vec<_> = module
        .entries()
        .filter(|(_, f)| {
            nested_components(&f.name)
                .is_some_and(|c| c.join("::") == name || c.last() == Some(&name))
        })
        .map(|(h, _)| h)
        .collect();
    if hits.len() == 1 {
        hits.first().copied()
    } else {
        None
    }
}

/// The cluster shape `entry` requires (`.reqnctapercluster`, what
/// `__cluster_dims__` compiles to) where it is more than one CTA. A launch
/// without one runs each CTA as a cluster of its own (the PTX ISA's implicit
/// 1 x 1 x 1 cluster), which the emulator does.
fn cluster_dims(module: &Module, entry: ptx::Handle<ptx::Function>) -> Option<Vec<u32>> {
    let f = module.functions.get(entry)?;
    f.directives.iter().find_map(|d| match d {
        ptx::FunctionDirective::ReqNctaPerCluster(dims) if dims.iter().product::<u32>() > 1 => {
            Some(dims.clone())
        }
        _ => None,
    })
}

fn prepare_entry(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    entry: ptx::Handle<ptx::Function>,
) -> Result<Prepared, Box<Fault>> {
    if let Some(dims) = cluster_dims(module, entry) {
        return Err(launch_err(format!(
            "the kernel asks for thread block clusters of {} CTAs (.reqnctapercluster {}): clusters of more than one CTA are not supported by ptxperf yet",
            dims.iter().product::<u32>(),
            dims.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut layout = ModuleLayout::build(module).map_err(|e| launch_err(e.to_string()))?;
    if layout.shared_static + spec.dynamic_shared as u64 > super::layout::MAX_SPACE_BYTES {
        return Err(launch_err(format!(
            "{} bytes of static and {} of dynamic shared memory exceed {} bytes",
            layout.shared_static,
            spec.dynamic_shared,
            super::layout::MAX_SPACE_BYTES
        )));
    }
    let prog = Program::decode(module, &layout, text, file).map_err(|e| {
        let kernel = module.functions.get(entry).map_or("?", |f| f.name.as_str());
        launch_err(format!("kernel `{kernel}`: {e}"))
    })?;
    let bound = bind_args(module, &layout, spec, entry)?;
    let param_size = bound.iter().map(|b| b.offset + b.size).max().unwrap_or(0);
    let mut params = Region::new(Space::Param, param_size as usize, false);
    let mut buffers = Vec::new();
    let mut textures = Vec::new();
    for b in bound {
        params.add_symbol(&b.param, b.offset, b.size);
        // A buffer's address, as wide as the module's pointers: a 32-bit
        // module's holds the low 4 bytes, valid because its global memory
        // lies below 4 GiB.
        let mut place = |name: String,
                         elem: ScalarType,
                         bytes: Vec<u8>,
                         width: u64|
         -> Result<Vec<u8>, Box<Fault>> {
            let idx = layout.global.allocations().len();
            let addr = layout.global.alloc(&name, bytes);
            if width < 8 {
                fits_32_bit(&layout.global, &format!("buffer `{name}`"))?;
            }
            buffers.push((name, elem, addr, idx));
            Ok(addr.to_le_bytes()[..width.min(8) as usize].to_vec())
        };
        let bytes = match b.arg {
            HostArg::Scalar { bytes, .. } => bytes,
            HostArg::Buffer {
                name,
                elem,
                bytes,
                texture: Some(view),
            } => {
                let label = name.clone();
                let base = u64::from_le_bytes(
                    place(name, elem, bytes, 8)?
                        .try_into()
                        .map_err(|_| launch_err("internal: a texture's address is not 8 bytes"))?,
                );
                textures.push(Texture {
                    name: label,
                    base,
                    elem,
                    view,
                });
                (textures.len() as u64).to_le_bytes().to_vec()
            }
            HostArg::Buffer {
                name, elem, bytes, ..
            } => place(name, elem, bytes, b.size)?,
            HostArg::Struct {
                mut bytes,
                pointers,
                ..
            } => {
                let width = super::bind::pointer_bytes(module);
                for p in pointers {
                    let addr = place(p.name, p.elem, p.bytes, width)?;
                    let at = p.offset as usize;
                    if let Some(slot) = bytes.get_mut(at..at + addr.len()) {
                        slot.copy_from_slice(&addr);
                    }
                }
                bytes
            }
        };
        params
            .init(b.offset, &bytes)
            .map_err(|e| Fault::launch(e.to_string()))?;
    }
    for c in bind_constants(module, &layout, spec)? {
        let bytes = &c.constant.bytes;
        let r = match c.placed.space {
            Space::Const => layout.const_bank.init(c.placed.addr, bytes),
            _ => layout.global.write(c.placed.addr, bytes, 1),
        };
        r.map_err(|e| Fault::launch(e.to_string()))?;
    }
    let shared_size = layout.shared_static + spec.dynamic_shared as u64;
    let mut shared_template = Region::new(Space::Shared, shared_size as usize, true);
    for (name, off, size) in &layout.shared_symbols {
        shared_template.add_symbol(name, *off, *size);
    }
    if spec.dynamic_shared > 0 {
        shared_template.add_symbol(
            "dynamic shared memory",
            layout.shared_static,
            spec.dynamic_shared as u64,
        );
    }
    // Device-side malloc: CUDA's default heap, allocated where the kernel
    // can call malloc; its first 8 bytes hold the next free address.
    let entry_index = entry.index() as u32;
    let heap = if reachable_ops(&prog, entry_index).any(|op| matches!(op, Op::Malloc { .. })) {
        let base = layout.global.alloc(
            "device heap (malloc)",
            vec![0u8; DEVICE_HEAP_BYTES as usize],
        );
        if module.address_size == Some(32) {
            fits_32_bit(&layout.global, "the device heap")?;
        }
        layout
            .global
            .write(base, &(base + HEAP_HEADER_BYTES).to_le_bytes(), 1)
            .map_err(|e| Fault::launch(e.to_string()))?;
        Some((base, DEVICE_HEAP_BYTES))
    } else {
        None
    };
    Ok(Prepared {
        code: Code {
            prog,
            entry: entry_index,
            params,
            consts: layout.const_bank,
            shared_template,
            heap,
            textures,
            idle: None,
        },
        global: layout.global,
        buffers,
        kernel_params: layout
            .kernel_params
            .get(entry.index())
            .cloned()
            .unwrap_or_default(),
        globals: layout.globals,
    })
}

/// What one host thread's range of CTAs produced: its memory, printf output,
/// counters and observer.
type RangeResult<O> = Result<(GlobalMemory, String, CtaStats, O), Box<Fault>>;

/// A launch error, boxed like every fault (they are large).
pub(super) fn launch_err(message: impl Into<String>) -> Box<Fault> {
    Box::new(Fault::launch(message))
}

fn cta_ids(grid: [u32; 3]) -> impl Iterator<Item = ([u32; 3], u32)> {
    let [gx, gy, gz] = grid;
    (0..gz).flat_map(move |z| {
        (0..gy).flat_map(move |y| (0..gx).map(move |x| ([x, y, z], x + y * gx + z * gx * gy)))
    })
}

pub(super) fn finish(
    mut p: Prepared,
    printf: String,
    stats: LaunchStats,
) -> Result<LaunchResult, Box<Fault>> {
    // The launch is over: each buffer's bytes move out of its allocation
    // instead of being copied (a copy was 192 MB and its page faults for
    // each GEMM launch). A second buffer on the same allocation, if a spec
    // ever made one, gets a copy of what the first took.
    let mut buffers: Vec<Buffer> = Vec::with_capacity(p.buffers.len());
    for (k, (name, elem, base, idx)) in p.buffers.iter().enumerate() {
        let earlier = p.buffers[..k].iter().position(|b| b.3 == *idx);
        let bytes = match earlier.and_then(|j| buffers.get(j)) {
            Some(b) => b.bytes.clone(),
            // Each buffer was allocated at `idx`: a miss is a bug, and an
            // empty buffer handed back would read as the kernel's output.
            None => std::mem::take(
                &mut p
                    .global
                    .allocation_mut(*idx)
                    .ok_or_else(|| {
                        launch_err(format!("internal: buffer `{name}` has no allocation"))
                    })?
                    .data,
            ),
        };
        buffers.push(Buffer {
            name: name.clone(),
            elem: *elem,
            base: *base,
            bytes,
        });
    }
    Ok(LaunchResult {
        buffers,
        printf,
        stats,
    })
}

/// The ops of the functions a launch of `entry` can run: the entry and what
/// it calls, directly or through calls of its callees. A module often holds
/// several kernels (one `.cu` file, several `__global__`s), and what another
/// kernel does must not decide how this one runs. A call through a function
/// pointer can reach any function, so then every function counts.
fn reachable_ops(prog: &Program, entry: u32) -> impl Iterator<Item = &Op> {
    let mut seen = vec![false; prog.funcs.len()];
    let mut stack = vec![entry as usize];
    let mut indirect = false;
    while let Some(f) = stack.pop() {
        if f >= seen.len() || std::mem::replace(&mut seen[f], true) {
            continue;
        }
        for op in &prog.funcs[f].ops {
            match op {
                Op::Call { callee, .. } => stack.push(*callee as usize),
                Op::CallIndirect { .. } => indirect = true,
                _ => {}
            }
        }
    }
    if indirect {
        seen.fill(true);
    }
    prog.funcs
        .iter()
        .zip(seen)
        .filter(|(_, reached)| *reached)
        .flat_map(|(f, _)| &f.ops)
}

/// Whether an op a launch of `entry` can run may do a global
/// read-modify-write (so CTAs can see each other).
fn has_global_atomics(prog: &Program, entry: u32) -> bool {
    reachable_ops(prog, entry).any(|op| {
        matches!(
            op,
            // malloc bumps the heap's shared free pointer: an atomic too
            // (so the addresses it returns do not depend on the host threads).
            Op::Malloc { .. }
                | Op::Atom {
                    space: MemSpace::Global | MemSpace::Generic | MemSpace::Generic32,
                    ..
                }
                | Op::AtomVec {
                    space: MemSpace::Global | MemSpace::Generic | MemSpace::Generic32,
                    ..
                }
        )
    })
}

/// Run a launch with an observer: CTAs in order (x fastest), warps of a CTA
/// round-robin, each until it blocks. (The fault is returned unboxed: other
/// crates match on it; the internal paths box it.)
#[allow(clippy::result_large_err)]
pub fn launch<O: Observer>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    obs: &mut O,
) -> Result<LaunchResult, Fault> {
    launch_boxed(module, text, file, spec, opts, obs).map_err(|f| *f)
}

/// [`launch()`], with the fault boxed.
pub fn launch_boxed<O: Observer>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    obs: &mut O,
) -> Result<LaunchResult, Box<Fault>> {
    let p = prepare_for(module, text, file, spec, opts)?;
    run_prepared(p, spec, opts, obs)
}

/// Run a prepared launch (the second half of [`launch_boxed`]).
pub(super) fn run_prepared<O: Observer>(
    mut p: Prepared,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    obs: &mut O,
) -> Result<LaunchResult, Box<Fault>> {
    // Events must arrive in CTA order, so a watching observer means sequential
    // (an observer that can be forked per range of CTAs uses [`launch_forked`]).
    if opts.parallel && !O::WATCHES && !has_global_atomics(&p.code.prog, p.code.entry) {
        return launch_parallel(p, spec, opts);
    }
    let ids = selected_ctas(spec.grid, opts.ctas);
    let c = &p.code;
    let lx = launch_ctx(c, spec, opts);
    let mut printf = String::new();
    let mut stats = LaunchStats {
        ran_sequentially: opts.parallel,
        ..Default::default()
    };
    let progress = crate::progress::current();
    if let Some(pr) = &progress {
        pr.begin_ctas(ids.len() as u64);
    }
    let totals = run_range(
        &lx,
        c,
        &ids,
        &mut p.global,
        &mut printf,
        obs,
        progress.as_deref(),
    )?;
    stats.ctas = ids.len() as u64;
    fill(&mut stats, &totals);
    finish(p, printf, stats)
}

/// Run the CTAs `ids` in order on `global`, with `obs` watching, counting
/// each finished CTA in `progress`.
fn run_range<O: Observer>(
    lx: &LaunchCtx<'_>,
    c: &Code,
    ids: &[([u32; 3], u32)],
    global: &mut GlobalMemory,
    printf: &mut String,
    obs: &mut O,
    progress: Option<&crate::progress::Progress>,
) -> Result<CtaStats, Box<Fault>> {
    let mut totals = CtaStats::default();
    for &(id, linear) in ids {
        let s = run_cta(
            lx,
            c.entry,
            id,
            linear,
            c.shared_template.clone(),
            global,
            printf,
            obs,
        )?;
        totals.add(&s);
        if let Some(p) = progress {
            p.cta_done();
        }
    }
    Ok(totals)
}

pub(super) fn launch_ctx<'a>(p: &'a Code, spec: &LaunchSpec, opts: LaunchOptions) -> LaunchCtx<'a> {
    LaunchCtx {
        prog: &p.prog,
        grid: spec.grid,
        block: spec.block,
        params: &p.params,
        consts: &p.consts,
        policy: opts.policy,
        fuel: opts.fuel.or(spec.fuel).unwrap_or(DEFAULT_WARP_FUEL),
        dynamic_shared: spec.dynamic_shared,
        shared_total: p.shared_template.len() as u64,
        heap: p.heap,
        textures: &p.textures,
        idle: p.idle.as_ref(),
    }
}

pub(super) fn fill(stats: &mut LaunchStats, t: &CtaStats) {
    stats.warps = t.warps;
    stats.warp_instructions = t.warp_instructions;
    stats.thread_instructions = t.thread_instructions;
    stats.max_stack_depth = t.max_stack_depth;
}

/// Parallel mode: the grid is cut into one contiguous range of CTAs per host
/// thread; each range runs in order on its own copy of global memory, and
/// the bytes each range changed are merged back in range order. For kernels
/// whose CTAs do not read each other's writes this equals the sequential
/// result byte for byte (and a location written by several CTAs ends with
/// the last CTA's value, as sequentially). Kernels with global atomics never
/// come here.
fn launch_parallel(
    mut p: Prepared,
    spec: &LaunchSpec,
    opts: LaunchOptions,
) -> Result<LaunchResult, Box<Fault>> {
    let ids: Vec<([u32; 3], u32)> = selected_ctas(spec.grid, opts.ctas);
    let workers = rayon::current_num_threads().max(1);
    let (printf, totals, _) = run_ranges(&mut p, spec, opts, &ids, workers, &|| NoObserver)?;
    let mut stats = LaunchStats {
        ctas: ids.len() as u64,
        ..Default::default()
    };
    fill(&mut stats, &totals);
    finish(p, printf, stats)
}

/// How [`launch_forked`] cuts a launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ForkPlan<'a> {
    /// Run exactly these CTAs (linear ids, in this order; ids past the grid
    /// are skipped), as [`super::launch_ctas`] does; `None`: the CTAs that
    /// the options' selection picks.
    pub ctas: Option<&'a [u32]>,
    /// Contiguous ranges of CTAs (0: one per thread of rayon's current pool).
    pub ranges: usize,
}

/// A launch whose CTAs ran in contiguous ranges, each with its own observer.
#[derive(Debug)]
pub struct ForkedLaunch<O> {
    pub result: LaunchResult,
    /// One observer per range, in launch order: every CTA of range `i` comes
    /// before every CTA of range `i + 1`.
    pub observers: Vec<O>,
}

/// Run a launch on rayon's pool, the CTAs cut into `plan.ranges` contiguous
/// ranges, each range watched by its own observer from `fork` and run in
/// order on its own copy of global memory from before the launch (changes
/// merged back in range order, as in parallel mode).
///
/// A range does not see what the ranges before it wrote, so the caller must
/// check from the events whether that mattered (and run again with one range
/// if it did): every global read of a forked launch is reported by a memory
/// event whose lanes' `[addr, addr + size)` cover the bytes read. Kernels for
/// which that does not hold, and kernels with global atomics, run as one
/// range: exactly the sequential launch.
pub fn launch_forked<O, F>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    plan: ForkPlan<'_>,
    fork: F,
) -> Result<ForkedLaunch<O>, Box<Fault>>
where
    O: Observer + Send,
    F: Fn() -> O + Sync,
{
    let mut p = prepare_for(module, text, file, spec, opts)?;
    let ids: Vec<([u32; 3], u32)> = match plan.ctas {
        Some(list) => list
            .iter()
            .filter(|&&id| u64::from(id) < spec.ctas())
            .map(|&id| (cta_coords(spec.grid, id), id))
            .collect(),
        None => selected_ctas(spec.grid, opts.ctas),
    };
    let forkable = !has_global_atomics(&p.code.prog, p.code.entry)
        && reads_are_reported(&p.code.prog, p.code.entry);
    let ranges = match plan.ranges {
        _ if !forkable => 1,
        0 => rayon::current_num_threads().max(1),
        n => n,
    };
    let (printf, totals, observers) = run_ranges(&mut p, spec, opts, &ids, ranges, &fork)?;
    let mut stats = LaunchStats {
        ctas: ids.len() as u64,
        ran_sequentially: observers.len() <= 1,
        ..Default::default()
    };
    fill(&mut stats, &totals);
    Ok(ForkedLaunch {
        result: finish(p, printf, stats)?,
        observers,
    })
}

/// Whether every global read a launch of `entry` can do is reported by a memory event that
/// covers its bytes (what [`launch_forked`] promises). Tensor operations
/// report one address per lane for several elements, and `printf` reads its
/// format string and arguments without one; an op added later that reads
/// global memory unreported belongs here too. (`cp.async` reports its read
/// as a load of its copy size, which covers the bytes it reads.)
fn reads_are_reported(prog: &Program, entry: u32) -> bool {
    reachable_ops(prog, entry).all(|op| !matches!(op, Op::Tensor(_) | Op::Vprintf { .. }))
}

/// What the ranges of a launch produced: printf output and counters, merged
/// in range order, and the observers.
type Ranges<O> = (String, CtaStats, Vec<O>);

/// Run `ids` cut into `ranges` contiguous ranges (one range: in place on
/// `p.global`, no copy), each with an observer from `fork`.
fn run_ranges<O, F>(
    p: &mut Prepared,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    ids: &[([u32; 3], u32)],
    ranges: usize,
    fork: &F,
) -> Result<Ranges<O>, Box<Fault>>
where
    O: Observer + Send,
    F: Fn() -> O + Sync,
{
    let c = &p.code;
    let lx = launch_ctx(c, spec, opts);
    let progress = crate::progress::current();
    let progress = progress.as_deref();
    if let Some(pr) = progress {
        pr.begin_ctas(ids.len() as u64);
    }
    if ranges <= 1 || ids.len() <= 1 {
        let (mut printf, mut obs) = (String::new(), fork());
        let totals = run_range(&lx, c, ids, &mut p.global, &mut printf, &mut obs, progress)?;
        return Ok((printf, totals, vec![obs]));
    }
    let chunk = ids.len().div_ceil(ranges).max(1);
    let snapshot = &p.global;
    let results: Vec<RangeResult<O>> = ids
        .par_chunks(chunk)
        .map(|range| {
            let (mut mem, mut printf, mut obs) = (snapshot.clone(), String::new(), fork());
            let totals = run_range(&lx, c, range, &mut mem, &mut printf, &mut obs, progress)?;
            Ok((mem, printf, totals, obs))
        })
        .collect();
    let mut merged = p.global.clone();
    let mut printf = String::new();
    let mut totals = CtaStats::default();
    let mut observers = Vec::with_capacity(results.len());
    // The first fault in CTA order wins, as it would sequentially.
    for r in results {
        let (mem, out, t, obs) = r?;
        merge_changes(&p.global, &mem, &mut merged);
        printf.push_str(&out);
        totals.add(&t);
        observers.push(obs);
    }
    p.global = merged;
    Ok((printf, totals, observers))
}

/// Copy into `out` every byte where `changed` differs from `base`.
fn merge_changes(base: &GlobalMemory, changed: &GlobalMemory, out: &mut GlobalMemory) {
    for (i, (b, c)) in base
        .allocations()
        .iter()
        .zip(changed.allocations())
        .enumerate()
    {
        if b.data == c.data {
            continue;
        }
        let Some(o) = out.allocation_mut(i) else {
            continue;
        };
        for (k, (x, y)) in b.data.iter().zip(&c.data).enumerate() {
            if x != y {
                o.data[k] = *y;
            }
        }
    }
}
