//! The worker threads of `validate` and `tune`: one pool builder, so every
//! pool gets the stack NVRTC needs.

use crate::error::StudyError;

/// Stack of each worker thread. The workers call NVRTC, whose optimiser
/// (LLVM's NVVM) recurses deeply on large unrolled kernels: the fully
/// unrolled 8 x 8-tile convolution is 335 KB of PTX. Compilers are built
/// and tested on a main thread's 8 MiB; rayon's default is Rust's 2 MiB,
/// and a stack overflow inside foreign code is a bare SIGSEGV rather than
/// Rust's message. Address space only: untouched pages cost no memory.
pub const WORKER_STACK_BYTES: usize = 64 << 20;

/// A pool of `jobs` worker threads (at least one) with [`WORKER_STACK_BYTES`].
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, StudyError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .stack_size(WORKER_STACK_BYTES)
        .build()
        .map_err(|source| StudyError::ThreadPool { jobs, source })
}

#[cfg(test)]
mod tests {
    /// Uses about `depth` KiB of stack.
    fn deep(depth: usize) -> u64 {
        let frame = std::hint::black_box([depth as u8; 1024]);
        if depth == 0 {
            u64::from(frame[0])
        } else {
            deep(depth - 1) + u64::from(frame[1023])
        }
    }

    #[test]
    fn a_worker_has_room_for_a_deep_compile() {
        // 16 MiB of frames: twice a main thread's stack, eight times rayon's
        // default. It overflows (and aborts the test binary) without the
        // pool's stack size.
        let pool = super::pool(2).expect("a pool");
        let depth = 16 * 1024;
        let sum = pool.install(|| deep(depth));
        let want: u64 = (1..=depth as u64).map(|d| d % 256).sum();
        assert_eq!(sum, want);
    }
}
