//! gpurun: run on a real GPU (feature `gpu`): the seed-004 microbenchmarks,
//! written as the measurement CSV that `fit::measurements` reads
//! (`gpu,benchmark,x,time,unit,repetition`), and a launch spec's kernel,
//! timed and its buffers read back (`ptxperf measure`).
//!
//! Tour:
//! - [`measure`] / [`measure_sweep`] / [`run_spec`]: the entry points.
//!   Without the `gpu` feature they return [`GpuRunError::NotBuilt`]. With
//!   it, every call first checks that the CUDA driver library can be loaded
//!   (`cudarc::driver::sys::is_culib_present`; cudarc panics without it) and
//!   that a context on device 0 can be created, and returns
//!   [`GpuRunError::NoDriver`] otherwise. Nothing here panics on a machine
//!   without a GPU. [`available`] is the same gate alone.
//! - [`sweep`]: what a run sweeps ([`Sweep`]: OPS and ELEMS values, launch
//!   shapes) and [`sweep::parse_counts`] for lists such as `1..256,384`.
//! - [`rows`]: per-thread cycle counts to CSV rows (median over threads; the
//!   x conventions below). Pure, tested without a GPU.
//! - [`to_csv`]: rows as the measurement CSV.
//! - [`spec`]: a launch spec's kernel as a [`SpecRun`] (PTX, entry, grid,
//!   block, argument and constant bytes exactly as the emulator binds them,
//!   from `emu::exec::host_launch`), its [`SpecRunResult`] and [`TimeStats`].
//!   Pure, tested without a GPU.
//! - [`compare`]: the GPU's buffers against the emulator's (integers exact,
//!   floats within a relative tolerance, NaN equal to NaN). Pure.
//!
//! What a microbenchmark run measures (modules `device` and `launch`, feature `gpu`):
//! - microbench/ops.cu, compiled by NVRTC (crate `nvrtc`) for the device's
//!   compute capability once per OPS value: `int_*` and `dbl_*`, x = OPS
//!   (dependent operations per thread), time = median cycles over threads;
//! - microbench/transfer.cu, once per ELEMS value: `global_to_shared` and
//!   `shared_to_global`, x = bytes moved per block, time = median cycles;
//! - host-to-device and device-to-host copies of 4 KiB to 64 MiB timed with
//!   CUDA events (`h2d_copy`, `d2h_copy`; x in bytes, time in µs).
//!
//! What [`run_spec`] does (module `spec_run`, feature `gpu`): loads the PTX
//! with `cuModuleLoadData` (the driver JIT-compiles it for the device),
//! writes the constants (`cuModuleGetGlobal` and a copy), uploads the
//! buffers, launches once, waits and checks for errors (a faulting kernel is
//! [`GpuRunError::Kernel`]), copies every buffer back, then runs the warm-up
//! launches and times each repetition with CUDA events recorded around it.
//! A one-thread spin kernel (about 1 ms) is queued first, so the host has
//! enqueued the launches before the GPU reaches them and a short kernel's
//! time does not include the host's launch latency.
//! The warm-up and timed launches start from what the previous launch left,
//! so a kernel that updates its data in place is timed on modified data.
//!
//! The PTX is loaded with `cuModuleLoadData` and launched with
//! `cuLaunchKernel` through cudarc's `result` layer, since cudarc's safe
//! module loader needs its `nvrtc` feature, which this crate leaves off.

#[cfg(feature = "gpu")]
mod device;
#[cfg(feature = "gpu")]
mod launch;
#[cfg(feature = "gpu")]
mod spec_run;

pub mod compare;
pub mod rows;
pub mod spec;
pub mod sweep;

pub use spec::{KernelArg, OutBuffer, SpecRun, SpecRunResult, TimeStats};
pub use sweep::Sweep;

use fit::measurements::Unit;

/// One measured point, a row of the measurement CSV.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    pub gpu: String,
    pub benchmark: String,
    pub x: f64,
    pub time: f64,
    pub unit: Unit,
    pub repetition: u32,
}

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasureOptions {
    /// The catalog id written in the `gpu` column.
    pub gpu: String,
    /// Repetitions of every benchmark (one data set each); at least 1.
    pub repetitions: u32,
}

/// Why nothing was measured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuRunError {
    #[error(
        "error: this binary was built without `--features gpu`; rebuild with `cargo build --features gpu` to measure on a GPU, or import a measurement CSV"
    )]
    NotBuilt,
    #[error("error: no CUDA driver found: {0}")]
    NoDriver(String),
    #[error("error: CUDA call failed: {0}")]
    Cuda(String),
    #[error("error: the kernel failed on the GPU: {0}")]
    Kernel(String),
    #[error("error: cannot compile a microbenchmark: {0}")]
    Compile(String),
    #[error("error: {0}")]
    Options(String),
}

/// Run the microbenchmarks on device 0 with the default [`Sweep`] and return
/// the measured rows.
pub fn measure(opts: &MeasureOptions) -> Result<Vec<Row>, GpuRunError> {
    measure_sweep(opts, &Sweep::default())
}

/// Run the microbenchmarks on device 0 over `sweep`. The options and the
/// sweep are checked before the driver is touched.
pub fn measure_sweep(opts: &MeasureOptions, sweep: &Sweep) -> Result<Vec<Row>, GpuRunError> {
    if opts.repetitions == 0 {
        return Err(GpuRunError::Options("--reps must be at least 1".into()));
    }
    sweep.validate()?;
    run_on_device(opts, sweep)
}

/// Whether this binary can reach a GPU: [`GpuRunError::NotBuilt`] without
/// the `gpu` feature, [`GpuRunError::NoDriver`] without a loadable driver.
pub fn available() -> Result<(), GpuRunError> {
    #[cfg(feature = "gpu")]
    return device::driver_present();
    #[cfg(not(feature = "gpu"))]
    Err(GpuRunError::NotBuilt)
}

/// Run a launch spec's kernel on device 0 (see the crate docs): the buffers
/// after the first launch and the times of `run.reps` launches.
pub fn run_spec(run: &SpecRun) -> Result<SpecRunResult, GpuRunError> {
    if run.reps == 0 {
        return Err(GpuRunError::Options("--reps must be at least 1".into()));
    }
    run_spec_on_device(run)
}

#[cfg(feature = "gpu")]
fn run_spec_on_device(run: &SpecRun) -> Result<SpecRunResult, GpuRunError> {
    spec_run::run(run)
}

#[cfg(not(feature = "gpu"))]
fn run_spec_on_device(_run: &SpecRun) -> Result<SpecRunResult, GpuRunError> {
    Err(GpuRunError::NotBuilt)
}

#[cfg(feature = "gpu")]
fn run_on_device(opts: &MeasureOptions, sweep: &Sweep) -> Result<Vec<Row>, GpuRunError> {
    device::measure(opts, sweep)
}

#[cfg(not(feature = "gpu"))]
fn run_on_device(_opts: &MeasureOptions, _sweep: &Sweep) -> Result<Vec<Row>, GpuRunError> {
    Err(GpuRunError::NotBuilt)
}

/// The rows as a measurement CSV, header first.
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from("gpu,benchmark,x,time,unit,repetition\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{}\n",
            r.gpu,
            r.benchmark,
            r.x,
            r.time,
            r.unit.name(),
            r.repetition
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(reps: u32) -> MeasureOptions {
        MeasureOptions {
            gpu: "test-gpu".into(),
            repetitions: reps,
        }
    }

    #[test]
    fn measuring_without_a_gpu_is_an_error_not_a_panic() {
        let e = measure(&opts(2)).expect_err("no GPU here");
        if cfg!(feature = "gpu") {
            // This machine has no libcuda: the gate must catch it.
            assert!(
                matches!(&e, GpuRunError::NoDriver(_)),
                "unexpected error: {e}"
            );
            assert!(e.to_string().contains("no CUDA driver found"));
        } else {
            assert_eq!(e, GpuRunError::NotBuilt);
            assert!(e.to_string().contains("--features gpu"));
        }
    }

    #[test]
    fn running_a_spec_without_a_gpu_is_an_error_not_a_panic() {
        let run = SpecRun {
            ptx: ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"
                .into(),
            entry: "k".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
            args: vec![],
            constants: vec![],
            warmup: 0,
            reps: 1,
        };
        let gate = available().expect_err("no GPU here");
        let e = run_spec(&run).expect_err("no GPU here");
        assert_eq!(e, gate);
        if cfg!(feature = "gpu") {
            assert!(matches!(&e, GpuRunError::NoDriver(_)), "{e}");
        } else {
            assert_eq!(e, GpuRunError::NotBuilt);
        }
        let zero = SpecRun { reps: 0, ..run };
        assert!(matches!(run_spec(&zero), Err(GpuRunError::Options(_))));
    }

    #[test]
    fn zero_repetitions_are_refused() {
        assert!(matches!(measure(&opts(0)), Err(GpuRunError::Options(_))));
    }

    #[test]
    fn an_invalid_sweep_is_refused_before_the_driver_is_touched() {
        let sweep = Sweep {
            elems: vec![64],
            ..Sweep::default()
        };
        let e = measure_sweep(&opts(1), &sweep).expect_err("ELEMS 64 is too many");
        assert!(
            matches!(&e, GpuRunError::Options(m) if m.contains("ELEMS 64")),
            "{e}"
        );
    }

    #[test]
    fn csv_round_trips_through_the_fit_reader() {
        let rows = vec![
            Row {
                gpu: "g".into(),
                benchmark: "h2d_copy".into(),
                x: 4096.0,
                time: 3.5,
                unit: Unit::Us,
                repetition: 0,
            },
            Row {
                gpu: "g".into(),
                benchmark: "h2d_copy".into(),
                x: 8192.0,
                time: 4.25,
                unit: Unit::Us,
                repetition: 0,
            },
        ];
        let sets = fit::measurements::parse_csv("t.csv", &to_csv(&rows)).expect("valid CSV");
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].xs, vec![4096.0, 8192.0]);
        assert_eq!(sets[0].times, vec![3.5, 4.25]);
    }
}
