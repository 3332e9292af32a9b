//! The microbench kernels on the GPU (feature `gpu`): compile
//! microbench/ops.cu and transfer.cu with NVRTC for the device's compute
//! capability, load the PTX with the driver and launch through cudarc's
//! `result` layer (cudarc's safe `load_module` needs its `nvrtc` feature,
//! which this crate does not enable: NVRTC comes from the `nvrtc` crate).

use std::ffi::{CString, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaStream, DevicePtrMut, DeviceRepr, DriverError, ValidAsZeroBits, result, sys,
};
use nvrtc::{CompileOptions, Compiler};

use crate::rows::{op_row, transfer_row};
use crate::sweep::Sweep;
use crate::{GpuRunError, MeasureOptions, Row};

const OPS_SOURCE: &str = include_str!("../../../microbench/ops.cu");
const TRANSFER_SOURCE: &str = include_str!("../../../microbench/transfer.cu");

/// The op kernels on 4-byte integers and on doubles (microbench/ops.cu).
pub const INT_KERNELS: [&str; 5] = ["int_add", "int_mul", "int_cmp", "int_and", "int_or"];
pub const DBL_KERNELS: [&str; 5] = ["dbl_add", "dbl_mul", "dbl_cmp", "dbl_and", "dbl_or"];

pub(crate) fn cuda(e: DriverError) -> GpuRunError {
    GpuRunError::Cuda(e.to_string())
}

/// A loaded module, unloaded on drop.
pub(crate) struct Module {
    ctx: Arc<CudaContext>,
    raw: sys::CUmodule,
}

impl Module {
    pub(crate) fn load(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Module, GpuRunError> {
        // cuModuleLoadData reads PTX as a NUL-terminated string.
        let text = CString::new(ptx)
            .map_err(|_| GpuRunError::Compile("the PTX holds a NUL byte".into()))?;
        ctx.bind_to_thread().map_err(cuda)?;
        // SAFETY: `text` is NUL-terminated PTX that outlives the call, and the
        // context is current on this thread.
        let raw = unsafe { result::module::load_data(text.as_ptr().cast()) }.map_err(cuda)?;
        Ok(Module {
            ctx: Arc::clone(ctx),
            raw,
        })
    }

    pub(crate) fn function(&self, name: &str) -> Result<sys::CUfunction, GpuRunError> {
        let c = CString::new(name)
            .map_err(|_| GpuRunError::Cuda(format!("kernel name `{name}` holds a NUL byte")))?;
        // SAFETY: `self.raw` was loaded by `load` and is unloaded only on drop.
        unsafe { result::module::get_function(self.raw, c) }
            .map_err(|e| GpuRunError::Cuda(format!("kernel `{name}`: {e}")))
    }

    /// The device address and size of a module-scope symbol
    /// (`__constant__` or `__device__`; cuModuleGetGlobal).
    pub(crate) fn global(&self, name: &str) -> Result<(sys::CUdeviceptr, usize), GpuRunError> {
        let c = CString::new(name)
            .map_err(|_| GpuRunError::Cuda(format!("symbol name `{name}` holds a NUL byte")))?;
        // SAFETY: `self.raw` was loaded by `load` and is unloaded only on drop.
        unsafe { result::module::get_global(self.raw, c) }
            .map_err(|e| GpuRunError::Cuda(format!("symbol `{name}`: {e}")))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // Failure to unload leaks the module until the context goes; nothing
        // to report at this point.
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: loaded by `load`, unloaded once, here.
            let _ = unsafe { result::module::unload(self.raw) };
        }
    }
}

/// PTX for `source` at `arch` with one define.
fn compile(
    compiler: &Compiler,
    source: &str,
    name: &str,
    arch: &str,
    define: (&str, u32),
) -> Result<String, GpuRunError> {
    let options = CompileOptions {
        arch: Some(arch.to_string()),
        defines: vec![(define.0.to_string(), Some(define.1.to_string()))],
        ..CompileOptions::default()
    };
    compiler
        .compile(source, name, &options)
        .map(|c| c.ptx)
        .map_err(|e| GpuRunError::Compile(format!("{name} with {}={}: {e}", define.0, define.1)))
}

/// Launch `f` on `stream` and wait for it. `params` point at the argument values.
fn launch(
    stream: &CudaStream,
    f: sys::CUfunction,
    grid: u32,
    block: u32,
    shared: u32,
    params: &mut [*mut c_void],
) -> Result<(), GpuRunError> {
    // SAFETY: every entry of `params` points at a live value of the type the
    // kernel declares for that position (the callers mirror the signatures in
    // microbench/*.cu), and the buffers behind device pointers are sized for
    // `grid * block` threads.
    unsafe { enqueue(stream, f, [grid, 1, 1], [block, 1, 1], shared, params) }?;
    stream.synchronize().map_err(cuda)
}

/// Enqueue a launch of `f` on `stream` without waiting for it.
///
/// # Safety
/// `f` belongs to a loaded module, every entry of `params` points at a live
/// value of exactly the size the kernel declares for that parameter, and the
/// memory behind device pointers is what the kernel expects.
pub(crate) unsafe fn enqueue(
    stream: &CudaStream,
    f: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    params: &mut [*mut c_void],
) -> Result<(), GpuRunError> {
    // SAFETY: the caller's contract.
    unsafe {
        result::launch_kernel(
            f,
            (grid[0], grid[1], grid[2]),
            (block[0], block[1], block[2]),
            shared,
            stream.cu_stream(),
            params,
        )
    }
    .map_err(cuda)
}

/// One op kernel over `threads` threads: the per-thread cycle counts. The
/// kernel runs twice and the second run is kept, so the instruction cache is warm.
fn run_op<T: DeviceRepr + ValidAsZeroBits + Copy>(
    stream: &Arc<CudaStream>,
    f: sys::CUfunction,
    (init, operand): (T, T),
    threads: u32,
    block: u32,
) -> Result<Vec<i64>, GpuRunError> {
    let n = threads as usize;
    let mut data = stream.clone_htod(&vec![init; n]).map_err(cuda)?;
    let mut cycles = stream.alloc_zeros::<i64>(n).map_err(cuda)?;
    let shared = block.saturating_mul(size_of::<T>() as u32);
    for _ in 0..2 {
        let (mut a, _g1) = data.device_ptr_mut(stream);
        let (mut c, _g2) = cycles.device_ptr_mut(stream);
        let (mut op, mut count) = (operand, i32::try_from(threads).unwrap_or(i32::MAX));
        let mut params: [*mut c_void; 4] = [
            (&raw mut a).cast(),
            (&raw mut c).cast(),
            (&raw mut op).cast(),
            (&raw mut count).cast(),
        ];
        launch(
            stream,
            f,
            threads.div_ceil(block),
            block,
            shared,
            &mut params,
        )?;
    }
    stream.clone_dtoh(&cycles).map_err(cuda)
}

/// The op kernels, one compile per OPS value.
pub fn measure_ops(
    compiler: &Compiler,
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    arch: &str,
    opts: &MeasureOptions,
    sweep: &Sweep,
    rows: &mut Vec<Row>,
) -> Result<(), GpuRunError> {
    for &ops in &sweep.ops {
        let ptx = compile(
            compiler,
            OPS_SOURCE,
            "microbench/ops.cu",
            arch,
            ("OPS", ops),
        )?;
        let module = Module::load(ctx, &ptx)?;
        for rep in 0..opts.repetitions {
            for name in INT_KERNELS {
                let f = module.function(name)?;
                let cyc = run_op::<i32>(stream, f, (1, 3), sweep.op_threads, sweep.op_block)?;
                rows.push(op_row(&opts.gpu, name, ops, &cyc, rep)?);
            }
            for name in DBL_KERNELS {
                let f = module.function(name)?;
                let (init, operand) = (1.0f64, 1.000_001f64);
                let cyc = run_op(stream, f, (init, operand), sweep.op_threads, sweep.op_block)?;
                rows.push(op_row(&opts.gpu, name, ops, &cyc, rep)?);
            }
        }
    }
    Ok(())
}

/// The transfer kernels, one compile per ELEMS value.
pub fn measure_transfers(
    compiler: &Compiler,
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    arch: &str,
    opts: &MeasureOptions,
    sweep: &Sweep,
    rows: &mut Vec<Row>,
) -> Result<(), GpuRunError> {
    let (grid, block) = (sweep.transfer_blocks, sweep.transfer_block);
    let threads = grid as usize * block as usize;
    for &elems in &sweep.elems {
        let ptx = compile(
            compiler,
            TRANSFER_SOURCE,
            "microbench/transfer.cu",
            arch,
            ("ELEMS", elems),
        )?;
        let module = Module::load(ctx, &ptx)?;
        let to_shared = module.function("global_to_shared")?;
        let to_global = module.function("shared_to_global")?;
        let words = threads * elems as usize;
        let shared = block.saturating_mul(elems).saturating_mul(4);
        let host: Vec<f32> = (0..words).map(|i| (i % 1024) as f32).collect();
        let mut global = stream.clone_htod(&host).map_err(cuda)?;
        let mut cycles = stream.alloc_zeros::<i64>(threads).map_err(cuda)?;
        let mut sink = stream.alloc_zeros::<f32>(threads).map_err(cuda)?;
        for rep in 0..opts.repetitions {
            // Twice each, the second run kept (warm instruction cache and TLB).
            for _ in 0..2 {
                let (mut g, _g1) = global.device_ptr_mut(stream);
                let (mut c, _g2) = cycles.device_ptr_mut(stream);
                let (mut s, _g3) = sink.device_ptr_mut(stream);
                let mut params: [*mut c_void; 3] = [
                    (&raw mut g).cast(),
                    (&raw mut c).cast(),
                    (&raw mut s).cast(),
                ];
                launch(stream, to_shared, grid, block, shared, &mut params)?;
            }
            let cyc = stream.clone_dtoh(&cycles).map_err(cuda)?;
            rows.push(transfer_row(
                &opts.gpu,
                "global_to_shared",
                block,
                elems,
                &cyc,
                rep,
            )?);
            for _ in 0..2 {
                let (mut g, _g1) = global.device_ptr_mut(stream);
                let (mut c, _g2) = cycles.device_ptr_mut(stream);
                let mut seed = 0.5f32;
                let mut params: [*mut c_void; 3] = [
                    (&raw mut g).cast(),
                    (&raw mut c).cast(),
                    (&raw mut seed).cast(),
                ];
                launch(stream, to_global, grid, block, shared, &mut params)?;
            }
            let cyc = stream.clone_dtoh(&cycles).map_err(cuda)?;
            rows.push(transfer_row(
                &opts.gpu,
                "shared_to_global",
                block,
                elems,
                &cyc,
                rep,
            )?);
        }
    }
    Ok(())
}
