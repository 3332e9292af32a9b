//! From per-thread cycle counts to CSV rows: the part of a GPU run that needs
//! no GPU, kept apart so it is tested everywhere.
//!
//! Conventions (also in the comments of microbench/ops.cu and transfer.cu):
//! - op kernels: x = OPS, the dependent operations each thread performs;
//!   time = median cycles over threads. A line fitted to these gives the
//!   cycles per dependent operation, as `fit::combinators::OpLatencies`
//!   expects.
//! - transfer kernels: x = bytes moved per block (`block * ELEMS * 4`);
//!   time = median cycles over threads.

use crate::{GpuRunError, Row};
use fit::measurements::Unit;

/// The median of per-thread cycle counts: the middle value, or the mean of
/// the two middle values for an even count. `None` for no threads.
pub fn median_cycles(cycles: &[i64]) -> Option<f64> {
    let mut v = cycles.to_vec();
    v.sort_unstable();
    let n = v.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    Some(if n % 2 == 1 {
        v[mid] as f64
    } else {
        (v[mid - 1] as f64 + v[mid] as f64) / 2.0
    })
}

/// Bytes one block of a transfer kernel moves: `block` threads x `elems`
/// 4-byte words.
pub fn transfer_bytes_per_block(block: u32, elems: u32) -> f64 {
    f64::from(block) * f64::from(elems) * 4.0
}

/// One row in cycles from a kernel's per-thread counts. A negative count
/// (the clock read back wrongly, or memory never written) is an error, as is
/// an empty array.
pub fn cycles_row(
    gpu: &str,
    benchmark: &str,
    x: f64,
    cycles: &[i64],
    repetition: u32,
) -> Result<Row, GpuRunError> {
    if let Some(&c) = cycles.iter().find(|&&c| c < 0) {
        return Err(GpuRunError::Cuda(format!(
            "{benchmark} at x = {x}: a thread reported {c} cycles"
        )));
    }
    let time = median_cycles(cycles)
        .ok_or_else(|| GpuRunError::Cuda(format!("{benchmark} at x = {x}: no thread reported")))?;
    Ok(Row {
        gpu: gpu.to_string(),
        benchmark: benchmark.to_string(),
        x,
        time,
        unit: Unit::Cycles,
        repetition,
    })
}

/// The row of an op kernel run with `ops` dependent operations per thread.
pub fn op_row(
    gpu: &str,
    benchmark: &str,
    ops: u32,
    cycles: &[i64],
    repetition: u32,
) -> Result<Row, GpuRunError> {
    cycles_row(gpu, benchmark, f64::from(ops), cycles, repetition)
}

/// The row of a transfer kernel run with `elems` words per thread in blocks
/// of `block` threads.
pub fn transfer_row(
    gpu: &str,
    benchmark: &str,
    block: u32,
    elems: u32,
    cycles: &[i64],
    repetition: u32,
) -> Result<Row, GpuRunError> {
    let x = transfer_bytes_per_block(block, elems);
    cycles_row(gpu, benchmark, x, cycles, repetition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fit::combinators::{OpClass, OpLatencies};

    fn check_median(cycles: &[i64], expected: Option<f64>) {
        assert_eq!(median_cycles(cycles), expected, "median of {cycles:?}");
    }

    #[test]
    fn median_of_per_thread_cycles() {
        check_median(&[], None);
        check_median(&[7], Some(7.0));
        check_median(&[9, 1, 5], Some(5.0));
        check_median(&[4, 1, 3, 2], Some(2.5));
        check_median(&[10, 10, 10, 1000], Some(10.0));
        check_median(&[3, 3, 4, 4], Some(3.5));
        check_median(&[i64::MAX, i64::MAX], Some(i64::MAX as f64));
    }

    fn check_op_row(ops: u32, cycles: &[i64], x: f64, time: f64) {
        let r = op_row("g", "int_add", ops, cycles, 2).expect("valid counts");
        assert_eq!(
            (r.x, r.time, r.unit, r.repetition),
            (x, time, Unit::Cycles, 2)
        );
        assert_eq!((r.gpu.as_str(), r.benchmark.as_str()), ("g", "int_add"));
    }

    #[test]
    fn op_rows_have_x_ops_per_thread_and_median_cycles() {
        check_op_row(1, &[30, 31, 29], 1.0, 30.0);
        check_op_row(64, &[300, 310, 290, 305], 64.0, 302.5);
        check_op_row(256, &[1050; 32], 256.0, 1050.0);
    }

    fn check_transfer_row(block: u32, elems: u32, x: f64) {
        let r = transfer_row("g", "global_to_shared", block, elems, &[5, 6, 7], 0)
            .expect("valid counts");
        assert_eq!((r.x, r.time), (x, 6.0));
    }

    #[test]
    fn transfer_rows_have_x_bytes_per_block() {
        check_transfer_row(256, 1, 1024.0);
        check_transfer_row(256, 32, 32768.0);
        check_transfer_row(32, 3, 384.0);
    }

    #[test]
    fn bad_counts_are_errors() {
        assert!(matches!(
            op_row("g", "b", 1, &[], 0),
            Err(GpuRunError::Cuda(_))
        ));
        let e = op_row("g", "int_mul", 4, &[5, -1], 0).expect_err("negative count");
        assert!(e.to_string().contains("int_mul"), "{e}");
    }

    /// The rows gpurun writes, read back by `fit` and priced by the
    /// combinators' `OpLatencies`: the slope must be the cycles per
    /// dependent operation the synthetic threads were given.
    #[test]
    fn op_rows_give_the_latency_the_combinators_read() {
        let mut rows = Vec::new();
        for rep in 0..2 {
            for ops in [1u32, 2, 4, 8, 16, 32, 64, 128, 256] {
                let o = i64::from(ops);
                // 32 threads: 6 cycles per op plus 20 of overhead, jitter
                // of +-3 that the median removes, one straggler thread.
                let mut cycles: Vec<i64> = (0..31).map(|t| 6 * o + 20 + (t % 7) - 3).collect();
                cycles.push(100_000);
                rows.push(op_row("g", "int_mul", ops, &cycles, rep).expect("valid"));
                let cycles: Vec<i64> = (0..32).map(|_| 4 * o + 12).collect();
                rows.push(op_row("g", "int_add", ops, &cycles, rep).expect("valid"));
            }
        }
        let sets = fit::measurements::parse_csv("m.csv", &crate::to_csv(&rows)).expect("csv");
        assert_eq!(sets.len(), 4);
        let lat = OpLatencies::from_datasets(&sets, "g");
        let mul = lat.by_class[&OpClass::IntMul].0;
        let add = lat.by_class[&OpClass::IntAdd].0;
        assert!((mul - 6.0).abs() < 0.05, "int_mul latency {mul}");
        assert!((add - 4.0).abs() < 1e-9, "int_add latency {add}");
    }
}
