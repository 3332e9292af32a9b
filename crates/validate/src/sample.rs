//! Deterministic sampling of configurations: the same (total, n, seed)
//! gives the same indices on every machine and every thread count.
//!
//! The draws are a plain splitmix64 stream from the seed (the project's
//! `prng` crate), reduced to a range by [`prng::below_u64`]; the validation
//! report's sampled configurations depend on this exact sequence.

/// `n` distinct indices out of `0..total`, ascending, chosen uniformly with
/// `seed` (a partial Fisher-Yates shuffle). All indices when n >= total.
pub fn sample_indices(total: usize, n: usize, seed: u64) -> Vec<usize> {
    if n >= total {
        return (0..total).collect();
    }
    let mut pool: Vec<usize> = (0..total).collect();
    let mut state = seed;
    for i in 0..n {
        let j = i + prng::below_u64((total - i) as u64, || prng::splitmix64(&mut state)) as usize;
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool.sort_unstable();
    pool
}
