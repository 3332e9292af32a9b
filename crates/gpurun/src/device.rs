//! The GPU side (feature `gpu`): cudarc's driver API, loaded at run time.
//! The driver gate, then the kernels (module `launch`), then the copies.

use crate::launch::{measure_ops, measure_transfers};
use crate::sweep::Sweep;
use crate::{GpuRunError, MeasureOptions, Row};
use cudarc::driver::{CudaContext, CudaStream, sys};
use fit::measurements::Unit;
use std::sync::Arc;

/// Copy sizes, bytes: 4 KiB to 64 MiB in powers of four.
const COPY_SIZES: [usize; 7] = [
    1 << 12,
    1 << 14,
    1 << 16,
    1 << 18,
    1 << 20,
    1 << 22,
    1 << 26,
];

/// The driver gate: the driver library loads (cudarc panics without it).
pub fn driver_present() -> Result<(), GpuRunError> {
    // SAFETY: is_culib_present only tries to dlopen the driver library by name.
    if !unsafe { sys::is_culib_present() } {
        return Err(GpuRunError::NoDriver(
            "libcuda (libcuda.so.1 / nvcuda) cannot be loaded".into(),
        ));
    }
    Ok(())
}

/// A context on device 0, after the driver gate.
pub fn open() -> Result<Arc<CudaContext>, GpuRunError> {
    driver_present()?;
    CudaContext::new(0)
        .map_err(|e| GpuRunError::NoDriver(format!("cannot create a context on device 0: {e}")))
}

pub fn measure(opts: &MeasureOptions, sweep: &Sweep) -> Result<Vec<Row>, GpuRunError> {
    let ctx = open()?;
    let stream = ctx.default_stream();
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| GpuRunError::Cuda(e.to_string()))?;
    let arch = format!("sm_{major}{minor}");
    let compiler = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None))
        .map_err(|e| GpuRunError::Compile(e.to_string()))?;
    let mut rows = Vec::new();
    measure_ops(&compiler, &ctx, &stream, &arch, opts, sweep, &mut rows)?;
    measure_transfers(&compiler, &ctx, &stream, &arch, opts, sweep, &mut rows)?;
    measure_copies(&stream, opts, &mut rows)?;
    Ok(rows)
}

/// Host-to-device and device-to-host copies timed with CUDA events (x in
/// bytes, time in µs).
fn measure_copies(
    stream: &Arc<CudaStream>,
    opts: &MeasureOptions,
    rows: &mut Vec<Row>,
) -> Result<(), GpuRunError> {
    let cuda = |e: cudarc::driver::DriverError| GpuRunError::Cuda(e.to_string());
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    for rep in 0..opts.repetitions {
        for &bytes in &COPY_SIZES {
            let host = vec![0u8; bytes];
            let start = stream.record_event(timing).map_err(cuda)?;
            let dev = stream.clone_htod(&host).map_err(cuda)?;
            let mid = stream.record_event(timing).map_err(cuda)?;
            let back = stream.clone_dtoh(&dev).map_err(cuda)?;
            let end = stream.record_event(timing).map_err(cuda)?;
            end.synchronize().map_err(cuda)?;
            if back.len() != bytes {
                return Err(GpuRunError::Cuda(format!(
                    "device-to-host copy returned {} bytes, expected {bytes}",
                    back.len()
                )));
            }
            let h2d_ms = start.elapsed_ms(&mid).map_err(cuda)?;
            let d2h_ms = mid.elapsed_ms(&end).map_err(cuda)?;
            for (name, ms) in [("h2d_copy", h2d_ms), ("d2h_copy", d2h_ms)] {
                rows.push(Row {
                    gpu: opts.gpu.clone(),
                    benchmark: name.into(),
                    x: bytes as f64,
                    time: f64::from(ms) * 1e3,
                    unit: Unit::Us,
                    repetition: rep,
                });
            }
        }
    }
    Ok(())
}
