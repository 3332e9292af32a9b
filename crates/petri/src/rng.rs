//! The simulation's randomness: the project's generator (xoshiro256** seeded
//! through splitmix64, from the `prng` crate) and the counter-based step keys
//! that order conflicting transitions. Same seed, same sequence, on every
//! platform: the simulation's conflict resolution depends only on this.

use prng::mix64;
pub use prng::{Rng, splitmix64};

/// The random order of a maximal step, as a counter-based generator: within
/// step `step` of a run seeded by `seed`, the enabled transitions are taken in
/// increasing order of their key (keys of distinct transitions never tie; the
/// index would break a tie). Independent uniform keys give a uniform random
/// permutation, the paper's rule (seed 003, §4); because a key depends only on `(seed, step, t)` and not
/// on which other transitions are enabled or how an executor stores them, the
/// general [`crate::Simulator`] and the specialised warp executor
/// ([`crate::fast`]) resolve every conflict the same way.
///
/// # The key function
/// A step has a salt of two random 32-bit words `(sa, sb)` (splitmix64's
/// finaliser of the seed and the step); a transition has a fixed code `c`, a
/// bijective scramble of its index. The key is
/// `g(f(sa ^ c) ^ sb)` with `f` and `g` the two halves of the `lowbias32`
/// integer hash (Chris Wellons' public-domain constants, written here from
/// its published form): xorshift, multiply, xorshift.
/// For a fixed step this is a bijection of the index, so two transitions
/// never share a key and the tie-break never acts; across steps the salts
/// make it a fresh random permutation. It works on 32-bit words with no
/// data-dependent branch, so the warp executor computes the keys of all its
/// waiting warps as one vectorised loop; the `rng` tests check, chi-square
/// style, that the orders it gives over small sets of transitions are uniform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepKeys {
    seed: u64,
}

/// The random words of one step (see [`StepKeys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepSalt {
    a: u32,
    b: u32,
}

/// The fixed code of one transition (see [`StepKeys`]), for executors that
/// keep it instead of recomputing it every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TransitionCode(u32);

/// First half of lowbias32: a bijection of u32.
#[inline(always)]
fn half_a(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^ (x >> 15)
}

/// Second half of lowbias32: a bijection of u32.
#[inline(always)]
fn half_b(mut x: u32) -> u32 {
    x = x.wrapping_mul(0x846C_A68B);
    x ^ (x >> 16)
}

impl StepKeys {
    pub fn new(seed: u64) -> Self {
        Self { seed: mix64(seed) }
    }

    /// The salt of step `step` (0-based: the number of steps executed before it).
    #[inline]
    pub fn step_salt(&self, step: u64) -> StepSalt {
        let x = mix64(self.seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        StepSalt {
            a: x as u32,
            b: (x >> 32) as u32,
        }
    }

    /// The key of transition `t` in the step whose salt is `salt`.
    #[inline]
    pub fn key(salt: StepSalt, t: u32) -> u64 {
        u64::from(Self::key_coded(salt, Self::code(t)))
    }

    /// The transition's part of its key (distinct transitions, distinct codes).
    #[inline]
    pub fn code(t: u32) -> TransitionCode {
        TransitionCode(half_b(half_a(t ^ 0x243F_6A88)))
    }

    /// [`StepKeys::key`] from [`StepKeys::code`]'s value, as 32 bits.
    #[inline(always)]
    pub fn key_coded(salt: StepSalt, code: TransitionCode) -> u32 {
        half_b(half_a(salt.a ^ code.0) ^ salt.b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Pearson's chi-square statistic of `counts` against equal expectations.
    fn chi_square(counts: &[u64]) -> f64 {
        let total: u64 = counts.iter().sum();
        let expected = total as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    /// The rank of the order of `ts` by key at `salt` among the 24 orders of
    /// four items (a Lehmer code).
    fn order_of_four(salt: StepSalt, ts: [u32; 4]) -> usize {
        let keys = ts.map(|t| (StepKeys::key(salt, t), t));
        let mut code = 0;
        for i in 0..4 {
            let smaller = (i + 1..4).filter(|&j| keys[j] < keys[i]).count();
            code = code * (4 - i) + smaller;
        }
        code
    }

    /// Check that the 24 orders of `ts` are equally frequent over 48,000
    /// steps. Chi-square with 23 degrees of freedom: 49.7 is its 0.1% tail;
    /// the bound 60 fails only on a real bias (the counts are deterministic).
    fn check_orders_uniform(seed: u64, ts: [u32; 4]) {
        let keys = StepKeys::new(seed);
        let mut counts = [0u64; 24];
        for step in 0..48_000 {
            counts[order_of_four(keys.step_salt(step), ts)] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 60.0, "chi2 = {chi:.1} for {ts:?}: {counts:?}");
    }

    #[test]
    fn step_key_orders_are_uniform_permutations() {
        // Adjacent indices, the spacing of one warp's transitions (17 in the
        // warp net), far-apart indices and the top of the range.
        check_orders_uniform(1, [0, 1, 2, 3]);
        check_orders_uniform(2, [1, 18, 35, 52]);
        check_orders_uniform(3, [7, 1_000, 65_536, 1 << 30]);
        check_orders_uniform(4, [u32::MAX, u32::MAX - 1, 0, 1]);
        check_orders_uniform(0, [100, 101, 102, 103]);
    }

    #[test]
    fn step_key_minimum_is_uniform_over_many_transitions() {
        // The warp executor's case: which of 64 waiting warps issues first.
        // Chi-square with 63 degrees of freedom: 103.4 is its 0.1% tail.
        let ts: Vec<u32> = (0..64).map(|w| 1 + 17 * w).collect();
        let keys = StepKeys::new(5);
        let mut counts = [0u64; 64];
        for step in 0..64_000 {
            let salt = keys.step_salt(step);
            let min = (0..64)
                .min_by_key(|&i| (StepKeys::key(salt, ts[i]), ts[i]))
                .unwrap_or(0);
            counts[min] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 115.0, "chi2 = {chi:.1}: {counts:?}");
    }

    #[test]
    fn consecutive_step_orders_are_independent() {
        // The order of a pair at step s and at step s + 1: four equally likely
        // outcomes (3 degrees of freedom: 16.3 is the 0.1% tail).
        for (seed, (t, u)) in [(6, (3, 4)), (7, (0, 1)), (8, (18, 35))] {
            let keys = StepKeys::new(seed);
            let first = |step: u64| {
                let salt = keys.step_salt(step);
                usize::from((StepKeys::key(salt, t), t) < (StepKeys::key(salt, u), u))
            };
            let mut counts = [0u64; 4];
            for step in 0..40_000 {
                counts[2 * first(step) + first(step + 1)] += 1;
            }
            let chi = chi_square(&counts);
            assert!(chi < 20.0, "chi2 = {chi:.1} for ({t}, {u}): {counts:?}");
        }
    }

    #[test]
    fn keys_of_distinct_transitions_differ_within_a_step() {
        let keys = StepKeys::new(12);
        for step in 0..20 {
            let salt = keys.step_salt(step);
            let mut all: Vec<u64> = (0..5_000).map(|t| StepKeys::key(salt, t)).collect();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), 5_000, "step {step}");
        }
    }

    #[test]
    fn key_from_code_equals_key_from_index() {
        let keys = StepKeys::new(11);
        for step in [0, 1, 99, u64::MAX] {
            let salt = keys.step_salt(step);
            for t in [0, 1, 17, 12_345, u32::MAX] {
                assert_eq!(
                    StepKeys::key(salt, t),
                    u64::from(StepKeys::key_coded(salt, StepKeys::code(t)))
                );
            }
        }
    }
}
