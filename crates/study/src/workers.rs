//! The worker threads of `validate` and `tune`: one pool builder, so every
//! pool gets the stack NVRTC needs, and one way to hand them configurations.

use std::sync::{Mutex, PoisonError};

use crate::error::StudyError;

/// Stack of each worker thread. The workers call NVRTC, whose optimiser
/// (LLVM's NVVM) recurses deeply on large unrolled kernels: the fully
/// unrolled 8 x 8-tile convolution is 335 KB of PTX. Compilers are built
/// and tested on a main thread's 8 MiB; rayon's default is Rust's 2 MiB,
/// and a stack overflow inside foreign code is a bare SIGSEGV rather than
/// Rust's message. Address space only: untouched pages cost no memory.
pub const WORKER_STACK_BYTES: usize = 64 << 20;

/// A pool of `jobs` worker threads (at least one) with
/// [`WORKER_STACK_BYTES`], kept for the rest of the process: one per
/// `jobs`, made on first use and never dropped.
///
/// Why never dropped: a dropped pool's threads exit on their own while the
/// program goes on, and a thread that has run NVRTC runs NVRTC's
/// thread-exit destructors as it exits, maybe while another worker does the
/// same or while the main thread's `exit` tears NVRTC down. `ptxperf tune`
/// on two configurations crashed once, in a test run beside a heavy build,
/// with a SIGSEGV inside libnvrtc 12.9, storing through a null pointer the
/// way code that unlinks an entry from a list does (`dmesg`; the run's
/// stderr was empty). 5,785 runs of such a command afterwards, four at a
/// time, did not crash: a race of that kind is a guess at the cause, not a
/// proven one, and keeping the pools costs nothing. Threads that
/// never exit run none of those destructors: at the process's exit they are
/// stopped where they sleep.
pub fn pool(jobs: usize) -> Result<&'static rayon::ThreadPool, StudyError> {
    static POOLS: Mutex<Vec<(usize, &'static rayon::ThreadPool)>> = Mutex::new(Vec::new());
    let jobs = jobs.max(1);
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == jobs) {
        return Ok(pool);
    }
    let pool: &'static rayon::ThreadPool = Box::leak(Box::new(build(jobs)?));
    pools.push((jobs, pool));
    Ok(pool)
}

/// A new pool of `jobs` threads with [`WORKER_STACK_BYTES`], the caller's
/// to keep (threads that never call NVRTC may exit with it).
fn build(jobs: usize) -> Result<rayon::ThreadPool, StudyError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(WORKER_STACK_BYTES)
        .build()
        .map_err(|source| StudyError::ThreadPool { jobs, source })
}

/// `f` of every item on the pool's threads, in the items' order, one item
/// per task.
///
/// Why one per task: rayon splits a slice into a few ranges up front and
/// splits a range again only when a thread idles while the range's owner has
/// not started it; a range being worked through is never split. That suits
/// items of equal cost. Configurations differ by 100x (a 1x1 tile against a
/// fully unrolled 8x8 one; a resumed configuration costs nothing): with two
/// threads, a whole-space `validate --resume` had one thread idle while the
/// other worked through the untouched half of the file alone. One item per
/// task lets an idle thread take the next configuration; the task costs
/// microseconds against seconds of compiling and emulating.
pub fn map_each<T, R>(pool: &rayon::ThreadPool, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    use rayon::prelude::*;
    pool.install(|| items.par_iter().with_max_len(1).map(&f).collect())
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
        // One pool per thread count, the same on every call.
        assert!(std::ptr::eq(pool, super::pool(2).expect("a pool")));
        assert_eq!(super::pool(3).expect("a pool").current_num_threads(), 3);
        let depth = 16 * 1024;
        let sum = pool.install(|| deep(depth));
        let want: u64 = (1..=depth as u64).map(|d| d % 256).sum();
        assert_eq!(sum, want);
    }

    /// Items 0 to 5 are free, like a resumed run's; 6 and 7 each wait for
    /// the other to start. Both have started only if two threads hold them
    /// at once, which a range split up front into {0..4} and {4..8} does
    /// not give: the thread of the free half finishes and the other works
    /// through 6 and 7 alone (each then gives up after its wait).
    #[test]
    fn an_idle_worker_takes_the_next_item() {
        use std::sync::{Condvar, Mutex};
        use std::time::Duration;
        // A pool of its own: the shared one may be busy with other tests.
        let pool = &super::build(2).expect("a pool");
        let started = Mutex::new(0usize);
        let wake = Condvar::new();
        let items: Vec<usize> = (0..8).collect();
        let met = super::map_each(pool, &items, |&i| {
            if i < 6 {
                return true;
            }
            let mut n = started.lock().expect("lock");
            *n += 1;
            wake.notify_all();
            let (n, _) = wake
                .wait_timeout_while(n, Duration::from_secs(20), |n| *n < 2)
                .expect("lock");
            *n >= 2
        });
        assert_eq!(met.len(), 8);
        assert!(met.iter().all(|&m| m), "6 and 7 never ran at once: {met:?}");
    }
}
