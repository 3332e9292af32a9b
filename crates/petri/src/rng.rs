//! A small deterministic pseudo-random generator: xoshiro256** seeded through
//! splitmix64 (both public-domain algorithms by Blackman and Vigna, written here
//! from their published definitions). Same seed, same sequence, on every
//! platform: the simulation's conflict resolution depends only on this.

/// One splitmix64 step: advances `state` and returns the next output. Used to
/// expand a 64-bit seed into the 256-bit xoshiro state and to derive per-run seeds.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256**: fast, 256 bits of state, good statistical quality.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose whole state is derived from `seed` by splitmix64, so
    /// that nearby seeds give unrelated sequences (and the state is never all zero).
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Self { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (`n > 0`; returns 0 for `n == 0`). Lemire's
    /// multiply-and-shift with rejection of the biased low zone, so every value
    /// is exactly equally likely.
    pub fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        let n64 = u64::from(n);
        // Values of the low 32 bits under `threshold` would make some results
        // more likely than others; redraw them.
        let threshold = (n.wrapping_neg() % n) as u64;
        loop {
            let x = self.next_u64() >> 32;
            let m = x * n64;
            if (m & 0xFFFF_FFFF) >= threshold {
                return (m >> 32) as u32;
            }
        }
    }
}

/// The 64-bit finaliser of splitmix64 (a bijection with full avalanche).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random order of a maximal step, as a counter-based generator: within
/// step `step` of a run seeded by `seed`, the enabled transitions are taken in
/// increasing order of their key (ties, of probability 2^-64, by index).
/// Independent uniform keys give a uniform random permutation, the paper's
/// rule (seed 003, §4); because a key depends only on `(seed, step, t)` and not
/// on which other transitions are enabled or how an executor stores them, the
/// general [`crate::Simulator`] and the specialised warp executor
/// ([`crate::fast`]) resolve every conflict the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepKeys {
    seed: u64,
}

impl StepKeys {
    pub fn new(seed: u64) -> Self {
        Self { seed: mix64(seed) }
    }

    /// The salt of step `step` (0-based: the number of steps executed before it).
    #[inline]
    pub fn step_salt(&self, step: u64) -> u64 {
        mix64(self.seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The key of transition `t` in the step whose salt is `salt`.
    #[inline]
    pub fn key(salt: u64, t: u32) -> u64 {
        Self::key_premultiplied(salt, Self::premultiply(t))
    }

    /// The transition's part of its key, for executors that keep it.
    #[inline]
    pub fn premultiply(t: u32) -> u64 {
        u64::from(t).wrapping_mul(0xD1B5_4A32_D192_ED03)
    }

    /// [`StepKeys::key`] from [`StepKeys::premultiply`]'s value.
    #[inline]
    pub fn key_premultiplied(salt: u64, tc: u64) -> u64 {
        mix64(salt ^ tc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_vector() {
        // Reference outputs of splitmix64 from seed 0 (Vigna's splitmix64.c).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn same_seed_same_numbers_and_different_seeds_differ() {
        let a: Vec<u64> = (0..8)
            .scan(Rng::new(42), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(Rng::new(42), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..8)
            .scan(Rng::new(43), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(7);
        for n in [1u32, 2, 3, 7, 10, 1000] {
            let mut seen = vec![false; n as usize];
            for _ in 0..20_000 {
                let v = r.below(n);
                assert!(v < n);
                seen[v as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "n = {n}");
        }
        assert_eq!(r.below(0), 0);
    }

    #[test]
    fn step_keys_order_pairs_both_ways_about_equally() {
        let keys = StepKeys::new(9);
        let first = (0..20_000u64)
            .filter(|&s| {
                let salt = keys.step_salt(s);
                StepKeys::key(salt, 3) < StepKeys::key(salt, 4)
            })
            .count();
        assert!((9_500..10_500).contains(&first), "{first}");
        assert_ne!(keys.step_salt(0), StepKeys::new(10).step_salt(0));
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }
}
