//! A launch spec's kernel on the GPU (feature `gpu`): load the PTX (the
//! driver's JIT compiles it for the device), fill the constants, upload the
//! buffers, launch once and copy every buffer back, then queue a short spin
//! kernel, the warm-up launches and the timed launches, each of these between
//! two CUDA events.

use std::ffi::c_void;

use cudarc::driver::{CudaSlice, DevicePtr, result, sys};

use crate::GpuRunError;
use crate::device;
use crate::launch::{Module, cuda, enqueue};
use crate::spec::{KernelArg, OutBuffer, SpecRun, SpecRunResult};

/// Dynamic shared memory a kernel gets without opting in, bytes.
const DEFAULT_DYNAMIC_SHARED: u32 = 48 * 1024;

/// A one-thread kernel that waits `ns` nanoseconds of %globaltimer. Queued
/// before the warm-up and timed launches, it holds the stream while the host
/// enqueues them, so each timed launch starts right after its start event
/// instead of waiting for the host (which would add the launch latency of
/// the host to the time of a short kernel).
const SPIN_PTX: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry ptxperf_spin(.param .u64 ns)
{
    .reg .pred %p;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [ns];
    mov.u64 %rd2, %globaltimer;
    add.u64 %rd1, %rd1, %rd2;
WAIT:
    mov.u64 %rd3, %globaltimer;
    setp.lt.u64 %p, %rd3, %rd1;
    @%p bra WAIT;
    ret;
}
";

/// How long the spin kernel holds the stream: 1 ms and 20 µs a launch, at most 1 s.
fn spin_ns(launches: u64) -> u64 {
    (1_000_000 + 20_000 * launches).min(1_000_000_000)
}

pub fn run(r: &SpecRun) -> Result<SpecRunResult, GpuRunError> {
    let ctx = device::open()?;
    let stream = ctx.default_stream();
    let compute_capability = ctx.compute_capability().map_err(cuda)?;
    let name = ctx.name().map_err(cuda)?;
    let module = Module::load(&ctx, &r.ptx)
        .map_err(|e| GpuRunError::Cuda(format!("cannot load the PTX on {name}: {e}")))?;
    let f = module.function(&r.entry)?;
    if r.dynamic_shared > DEFAULT_DYNAMIC_SHARED {
        let bytes = i32::try_from(r.dynamic_shared).unwrap_or(i32::MAX);
        // SAFETY: `f` comes from `module`, which is loaded.
        unsafe {
            result::function::set_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
        }
        .map_err(|e| {
            GpuRunError::Cuda(format!(
                "{} bytes of dynamic shared memory: {e}",
                r.dynamic_shared
            ))
        })?;
    }
    for c in &r.constants {
        let (ptr, size) = module.global(&c.name)?;
        if c.bytes.len() > size {
            return Err(GpuRunError::Options(format!(
                "[[constant]] `{}`: {} bytes do not fit the symbol's {size}",
                c.name,
                c.bytes.len()
            )));
        }
        if !c.bytes.is_empty() {
            // SAFETY: `ptr` addresses a symbol of `size` >= len bytes in the
            // loaded module, and the context is current (Module::load bound it).
            unsafe { result::memcpy_htod_sync(ptr, &c.bytes) }.map_err(cuda)?;
        }
    }
    // Device buffers (an empty one gets one byte so it has an address) and
    // the parameter values: device addresses for buffers, bytes for scalars.
    let mut slices: Vec<Option<CudaSlice<u8>>> = Vec::with_capacity(r.args.len());
    let mut addrs = vec![0u64; r.args.len()];
    let mut scalars: Vec<Vec<u8>> = vec![Vec::new(); r.args.len()];
    for (i, arg) in r.args.iter().enumerate() {
        match arg {
            KernelArg::Buffer { bytes, .. } => {
                let s = if bytes.is_empty() {
                    stream.clone_htod(&[0u8])
                } else {
                    stream.clone_htod(bytes)
                }
                .map_err(cuda)?;
                addrs[i] = s.device_ptr(&stream).0;
                slices.push(Some(s));
            }
            KernelArg::Scalar { bytes, .. } => {
                scalars[i].clone_from(bytes);
                slices.push(None);
            }
        }
    }
    let mut params: Vec<*mut c_void> = r
        .args
        .iter()
        .enumerate()
        .map(|(i, arg)| match arg {
            KernelArg::Buffer { .. } => addrs.as_mut_ptr().wrapping_add(i).cast(),
            KernelArg::Scalar { .. } => scalars[i].as_mut_ptr().cast(),
        })
        .collect();
    // SAFETY (every launch below): the spec was bound by emu's `host_launch`
    // on this PTX, so there is one value per parameter, each scalar exactly
    // the parameter's size and each buffer parameter 64 bits; `addrs` and
    // `scalars` are not touched while `params` points into them.
    let go = |params: &mut [*mut c_void]| unsafe {
        enqueue(&stream, f, r.grid, r.block, r.dynamic_shared, params)
    };
    go(&mut params)?;
    stream.synchronize().map_err(|e| {
        GpuRunError::Kernel(format!("`{}` failed on its first launch: {e}", r.entry))
    })?;
    let mut buffers = Vec::new();
    for (arg, slice) in r.args.iter().zip(&slices) {
        if let (KernelArg::Buffer { name, bytes }, Some(s)) = (arg, slice) {
            let mut back = stream.clone_dtoh(s).map_err(cuda)?;
            back.truncate(bytes.len());
            buffers.push(OutBuffer {
                name: name.clone(),
                bytes: back,
            });
        }
    }
    let spin_module = Module::load(&ctx, SPIN_PTX)?;
    let spin = spin_module.function("ptxperf_spin")?;
    let mut ns = spin_ns(u64::from(r.warmup) + u64::from(r.reps));
    let mut spin_params: [*mut c_void; 1] = [(&raw mut ns).cast()];
    // SAFETY: ptxperf_spin takes one u64, and `ns` outlives the launch
    // (the stream is synchronized below before this function returns).
    unsafe { enqueue(&stream, spin, [1; 3], [1; 3], 0, &mut spin_params) }?;
    for _ in 0..r.warmup {
        go(&mut params)?;
    }
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let mut events = Vec::with_capacity(r.reps as usize);
    for _ in 0..r.reps {
        let start = stream.record_event(timing).map_err(cuda)?;
        go(&mut params)?;
        let end = stream.record_event(timing).map_err(cuda)?;
        events.push((start, end));
    }
    stream
        .synchronize()
        .map_err(|e| GpuRunError::Kernel(format!("`{}` failed in a timed launch: {e}", r.entry)))?;
    let times_ms = events
        .iter()
        .map(|(start, end)| start.elapsed_ms(end).map(f64::from).map_err(cuda))
        .collect::<Result<Vec<_>, _>>()?;
    drop(slices);
    Ok(SpecRunResult {
        device: name,
        compute_capability,
        times_ms,
        buffers,
    })
}
