//! Deterministic sampling of configurations: the same (total, n, seed)
//! gives the same indices on every machine and every thread count.
//!
//! The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014): a 64-bit counter stepped
//! by the golden-ratio constant and mixed by two multiply-xorshift rounds.

/// SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..bound (bound > 0), without modulo bias: draws that fall
    /// in the incomplete last block of 2^64 are rejected.
    pub fn below(&mut self, bound: u64) -> u64 {
        let bound = bound.max(1);
        // Largest multiple of bound that fits, minus one: accept x <= zone.
        let zone = u64::MAX - (u64::MAX % bound + 1) % bound;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return x % bound;
            }
        }
    }
}

/// `n` distinct indices out of `0..total`, ascending, chosen uniformly with
/// `seed` (a partial Fisher-Yates shuffle). All indices when n >= total.
pub fn sample_indices(total: usize, n: usize, seed: u64) -> Vec<usize> {
    if n >= total {
        return (0..total).collect();
    }
    let mut pool: Vec<usize> = (0..total).collect();
    let mut rng = SplitMix64::new(seed);
    for i in 0..n {
        let j = i + rng.below((total - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool.sort_unstable();
    pool
}
