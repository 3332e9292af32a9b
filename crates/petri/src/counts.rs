//! From an emulated run's instruction mix to the model's per-warp counts
//! x_a, x_s, x_g (seed 003, §4: "the numbers of arithmetic operations, shared
//! and global memory accesses" of each warp).
//!
//! The input is `characterize`'s typed mix, keyed by the `ptx` crate's
//! instruction classes; [`kind_of`] matches every class by name, with no
//! default arm, so a new or renamed class fails to compile here instead of
//! silently counting as arithmetic. Which class goes where:
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
use characterize::{ClassCounts, InstClass};

/// Which of x_a, x_s, x_g a class counts towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Arithmetic,
    Shared,
    Global,
}

pub fn kind_of(class: InstClass) -> ModelKind {
    use InstClass::*;
    match class {
        LdGlobal | StGlobal | AtomGlobal | LdLocal | StLocal | LdGeneric | StGeneric
        | AtomGeneric | AsyncCopy => ModelKind::Global,
        LdShared | StShared | AtomShared => ModelKind::Shared,
        IntAlu | IntMul | Fp32 | Fp64 | Fp16 | Sfu | Convert | Move | Compare | Logic | LdParam
        | LdConst | StParam | Branch | CallRet | Exit | Barrier | Fence | Warp | Tensor | Other => {
            ModelKind::Arithmetic
        }
    }
}

/// x_a, x_s, x_g of a class mix, as real numbers.
pub fn split_mix(mix: &ClassCounts) -> [f64; 3] {
    let mut out = [0.0; 3];
    // In class-name order, the order these sums were always taken in.
    for (class, n) in mix.by_name() {
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
    warp_mix: &ClassCounts,
    thread_max: &ClassCounts,
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

    fn mix(items: &[(&str, f64)]) -> ClassCounts {
        let mut m = ClassCounts::default();
        for &(name, n) in items {
            let class = InstClass::from_name(name);
            assert!(class.is_some(), "no class {name}");
            if let Some(c) = class {
                m.set(c, n);
            }
        }
        m
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

    /// Every class, by the name the module docs list it under: the memory
    /// classes documented there, everything else arithmetic.
    #[test]
    fn every_class_maps_to_its_documented_kind() {
        const GLOBAL: [&str; 9] = [
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
        const SHARED: [&str; 3] = ["ld_shared", "st_shared", "atom_shared"];
        for &c in InstClass::ALL {
            let want = if GLOBAL.contains(&c.name()) {
                ModelKind::Global
            } else if SHARED.contains(&c.name()) {
                ModelKind::Shared
            } else {
                ModelKind::Arithmetic
            };
            assert_eq!(kind_of(c), want, "{}", c.name());
        }
        // The documented names are all real classes (none renamed away).
        for name in GLOBAL.iter().chain(&SHARED) {
            assert!(InstClass::from_name(name).is_some(), "{name}");
        }
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
