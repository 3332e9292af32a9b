//! The project's one deterministic pseudo-random generator: xoshiro256**
//! (Blackman & Vigna, 2018) seeded through splitmix64 (Steele, Lea & Flood,
//! 2014), both public-domain algorithms written here from their published
//! definitions. Same seed, same sequence, on every platform: `random` buffer
//! initialisation (emu), conflict resolution (petri) and configuration
//! sampling (validate) all depend only on this.
//!
//! splitmix64 is exposed as a seeding function, not as a second generator:
//! callers that need a plain splitmix64 stream (validate's sampling, petri's
//! per-run seeds) step it by hand with [`splitmix64`].

/// One splitmix64 step: advances `state` and returns the next output. Used to
/// expand a 64-bit seed into the 256-bit xoshiro state and to derive seeds.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// The 64-bit finaliser of splitmix64: a bijection with full avalanche, also
/// used on its own as a counter-based hash (petri's step keys).
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform integer in `0..bound` (a bound of 0 counts as 1) from the draws
/// of `draw`, without modulo bias: draws that fall in the incomplete last
/// block of 2^64 are rejected and drawn again.
pub fn below_u64(bound: u64, mut draw: impl FnMut() -> u64) -> u64 {
    let bound = bound.max(1);
    // Largest multiple of bound that fits, minus one: accept x <= zone.
    let zone = u64::MAX - (u64::MAX % bound + 1) % bound;
    loop {
        let x = draw();
        if x <= zone {
            return x % bound;
        }
    }
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

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
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

    /// Uniform integer in the inclusive range [lo, hi] (lo <= hi), by
    /// rejection so that no value is favoured. The rejection zone differs from
    /// [`below_u64`]'s when the span divides 2^64; it is kept as it is because
    /// emu's committed `random` buffers depend on the exact draws.
    pub fn range_i128(&mut self, lo: i128, hi: i128) -> i128 {
        let span = (hi - lo) as u128 + 1;
        if span > u64::MAX as u128 {
            return lo + self.next_u64() as i128;
        }
        let span = span as u64;
        let zone = u64::MAX - (u64::MAX % span);
        loop {
            let x = self.next_u64();
            if x < zone {
                return lo + (x % span) as i128;
            }
        }
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
    fn below_u64_on_splitmix_keeps_its_sequence() {
        // The draws validate's sampling made before the generators were merged.
        let mut s = 7u64;
        let draws: Vec<u64> = (0..12)
            .map(|_| below_u64(3, || splitmix64(&mut s)))
            .collect();
        assert_eq!(draws, [0, 0, 0, 0, 1, 0, 1, 0, 2, 2, 1, 1]);
        assert_eq!(below_u64(0, || 5), 0);
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

    #[test]
    fn range_and_unit_interval_stay_in_bounds() {
        let mut r = Rng::new(3);
        for _ in 0..1_000 {
            let v = r.range_i128(-5, 5);
            assert!((-5..=5).contains(&v));
            let f = r.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
    }
}
