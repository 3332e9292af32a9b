//! From an emulated run's instruction mix to the model's per-warp counts
//! x_a, x_s, x_g (seed 003, §4: "the numbers of arithmetic operations, shared
//! and global memory accesses" of each warp).
//!
//! The input is given by class name (the `ptx` crate's instruction classes,
//! as `characterize` reports them), so this crate stays free of the emulator.
//! Which class goes where:
//! - x_g, global memory (latency l1): `ld_global`, `st_global`, `atom_global`,
//!   `ld_local`, `st_local` (local memory lives in device memory, with the
//!   global latency), `ld_generic`, `st_generic`, `atom_generic` (a generic
//!   address is taken to be global: the compilers use generic accesses mostly
//!   for global pointers), `async_copy` (a global-to-shared copy waits for
//!   the global memory).
//! - x_s, shared memory (latency l2): `ld_shared`, `st_shared`, `atom_shared`.
//! - x_a, everything else: integer and floating-point arithmetic, moves,
//!   compares, conversions, branches, barriers, fences, warp collectives,
//!   parameter and constant loads (served by the constant cache in a few
//!   cycles, like an arithmetic instruction).

use crate::warp::WarpCounts;
use std::collections::BTreeMap;

/// Instruction classes counted as global-memory accesses.
pub const GLOBAL_CLASSES: [&str; 9] = [
    "ld_global",
    "st_global",
    "atom_global",
    "ld_local",
    "st_local",
    "ld_generic",
    "st_generic",
    "atom_generic",
    "async_copy",
];

/// Instruction classes counted as shared-memory accesses.
pub const SHARED_CLASSES: [&str; 3] = ["ld_shared", "st_shared", "atom_shared"];

/// Which of x_a, x_s, x_g a class counts towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Arithmetic,
    Shared,
    Global,
}

pub fn kind_of(class: &str) -> ModelKind {
    if GLOBAL_CLASSES.contains(&class) {
        ModelKind::Global
    } else if SHARED_CLASSES.contains(&class) {
        ModelKind::Shared
    } else {
        ModelKind::Arithmetic
    }
}

/// x_a, x_s, x_g of a class mix, as real numbers.
pub fn split_mix(mix: &BTreeMap<String, f64>) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (class, &n) in mix {
        let i = match kind_of(class) {
            ModelKind::Arithmetic => 0,
            ModelKind::Shared => 1,
            ModelKind::Global => 2,
        };
        out[i] += n;
    }
    out
}

fn to_count(x: f64) -> u32 {
    // Counts of an emulated run are non-negative and far below 2^32 per warp;
    // clamp anyway so that no input can wrap.
    x.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The per-warp counts of `warps` warps from the kernel's warp-instruction mix
/// (`warp_mix`, summed over the warps) and the busiest thread's mix
/// (`thread_max`). The busiest warp executes at least the busiest thread's
/// instructions, so warp 0 gets `max(thread_max, warp_mix / warps)` per kind
/// and the other warps share what is left evenly. This keeps the imbalance of
/// kernels where one thread does serial work (the prefix sums of the
/// global-memory radix sort), which the model sees through warp 0 finishing
/// last. With one warp, it gets the whole mix.
pub fn per_warp_counts(
    warp_mix: &BTreeMap<String, f64>,
    thread_max: &BTreeMap<String, f64>,
    warps: u32,
) -> Vec<WarpCounts> {
    let n = warps.max(1);
    let total = split_mix(warp_mix);
    let busiest = split_mix(thread_max);
    let mean = total.map(|t| t / f64::from(n));
    let heavy: [f64; 3] = std::array::from_fn(|i| busiest[i].max(mean[i]).min(total[i]));
    let rest: [f64; 3] = if n > 1 {
        std::array::from_fn(|i| (total[i] - heavy[i]).max(0.0) / f64::from(n - 1))
    } else {
        [0.0; 3]
    };
    let counts = |c: [f64; 3]| WarpCounts::new(to_count(c[0]), to_count(c[1]), to_count(c[2]));
    let mut out = vec![counts(rest); n as usize];
    out[0] = counts(if n == 1 { total } else { heavy });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(items: &[(&str, f64)]) -> BTreeMap<String, f64> {
        items.iter().map(|&(c, n)| (c.to_string(), n)).collect()
    }

    fn check(
        warp: &[(&str, f64)],
        thread: &[(&str, f64)],
        warps: u32,
        expected: &[(u32, u32, u32)],
    ) {
        let got = per_warp_counts(&mix(warp), &mix(thread), warps);
        let want: Vec<WarpCounts> = expected
            .iter()
            .map(|&(a, s, g)| WarpCounts::new(a, s, g))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn classes_map_to_the_three_kinds() {
        assert_eq!(kind_of("ld_global"), ModelKind::Global);
        assert_eq!(kind_of("st_local"), ModelKind::Global);
        assert_eq!(kind_of("ld_generic"), ModelKind::Global);
        assert_eq!(kind_of("atom_shared"), ModelKind::Shared);
        assert_eq!(kind_of("fp32"), ModelKind::Arithmetic);
        assert_eq!(kind_of("ld_param"), ModelKind::Arithmetic);
        assert_eq!(kind_of("barrier"), ModelKind::Arithmetic);
    }

    #[test]
    fn balanced_kernels_split_evenly() {
        let w = [
            ("int_alu", 40.0),
            ("ld_global", 8.0),
            ("st_shared", 4.0),
            ("move", 8.0),
        ];
        let t = [
            ("int_alu", 10.0),
            ("ld_global", 2.0),
            ("st_shared", 1.0),
            ("move", 2.0),
        ];
        check(&w, &t, 4, &[(12, 1, 2); 4]);
        check(&w, &t, 1, &[(48, 4, 8)]);
    }

    #[test]
    fn a_busy_thread_makes_warp_zero_heavier() {
        // 4 warps; one thread runs 100 extra global accesses.
        let w = [("int_alu", 40.0), ("ld_global", 112.0)];
        let t = [("int_alu", 10.0), ("ld_global", 103.0)];
        check(
            &w,
            &t,
            4,
            &[(10, 0, 103), (10, 0, 3), (10, 0, 3), (10, 0, 3)],
        );
    }

    #[test]
    fn empty_mix_gives_zero_counts() {
        check(&[], &[], 2, &[(0, 0, 0), (0, 0, 0)]);
        check(&[], &[], 0, &[(0, 0, 0)]);
    }
}
