//! The Kerr et al. metrics (seed 001, section IV) as pure functions of counts.
//!
//! Ocelot, the paper's emulator, executes a whole CTA as one SIMD unit; this
//! project's emulator runs warps of 32 threads, so the counts below are warp
//! counts and the "threads that could be active" of equation 1 is the warp
//! size (the issue fixes warp size 32). Choices, each following the paper's
//! words where its equations leave room:
//! - activity factor (eq. 1): mean over dynamic warp instructions of
//!   `active / 32`, i.e. thread instructions / (32 x warp instructions);
//! - memory intensity (eq. 2): `A_f x M / D` with `M` the dynamic warp-level
//!   global memory instructions (loads, stores, atomics) and `D` all dynamic
//!   warp instructions;
//! - memory efficiency (eq. 3): `2 W / T`, `W` the dynamic warps (at least one
//!   active thread) executing a global memory instruction and `T` the
//!   transactions of the CC 1.2 half-warp protocol; for the sector protocol,
//!   where the paper's "two transactions per instruction" floor has no
//!   counterpart, the efficiency is used bytes / transferred bytes;
//! - MIMD parallelism (eq. 4): total dynamic instructions over those of the
//!   longest CTA;
//! - SIMD parallelism (eq. 6): the activity factor of each CTA times its
//!   thread count, weighted by its dynamic instructions.

/// Threads per warp assumed by equation 1.
pub const WARP: f64 = 32.0;

/// `x / y`, or `empty` when `y` is zero.
fn ratio(x: f64, y: f64, empty: f64) -> f64 {
    if y == 0.0 { empty } else { x / y }
}

/// Equation 1: thread instructions over (32 x warp instructions). 1 for an empty run.
pub fn activity_factor(thread_instructions: u64, warp_instructions: u64) -> f64 {
    ratio(
        thread_instructions as f64,
        WARP * warp_instructions as f64,
        1.0,
    )
}

/// Equation 2: `A_f x M / D`. 0 for an empty run.
pub fn memory_intensity(
    activity_factor: f64,
    global_memory_instructions: u64,
    warp_instructions: u64,
) -> f64 {
    activity_factor
        * ratio(
            global_memory_instructions as f64,
            warp_instructions as f64,
            0.0,
        )
}

/// Equation 3: `2 W / T` (CC 1.2 transactions). 1 when there is no global access.
pub fn memory_efficiency(dynamic_warps: u64, transactions: u64) -> f64 {
    ratio(2.0 * dynamic_warps as f64, transactions as f64, 1.0)
}

/// Divergent branches over branches; 0 without branches.
pub fn divergent_branch_ratio(divergent: u64, branches: u64) -> f64 {
    ratio(divergent as f64, branches as f64, 0.0)
}

/// Equation 4: sum of the CTAs' dynamic instructions over the largest. 0 without CTAs.
pub fn mimd_parallelism(cta_instructions: &[u64]) -> f64 {
    let max = cta_instructions.iter().copied().max().unwrap_or(0);
    ratio(
        cta_instructions.iter().map(|&d| d as f64).sum(),
        max as f64,
        0.0,
    )
}

/// One CTA's figures for equation 6.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CtaActivity {
    /// Dynamic warp instructions of the CTA.
    pub warp_instructions: u64,
    /// Thread instructions of the CTA.
    pub thread_instructions: u64,
    /// Threads of the CTA.
    pub threads: u64,
}

/// Equation 6: `sum(A_f,i x threads_i x D_i) / sum(D_i)`. 0 without instructions.
pub fn simd_parallelism(ctas: &[CtaActivity]) -> f64 {
    let weight: f64 = ctas.iter().map(|c| c.warp_instructions as f64).sum();
    let sum: f64 = ctas
        .iter()
        .map(|c| {
            activity_factor(c.thread_instructions, c.warp_instructions)
                * c.threads as f64
                * c.warp_instructions as f64
        })
        .sum();
    ratio(sum, weight, 0.0)
}

/// Equations 5 and 7: a per-kernel metric averaged over kernels, weighted by
/// their dynamic instructions: pairs of (instructions, metric).
pub fn application_average(kernels: &[(u64, f64)]) -> f64 {
    let weight: f64 = kernels.iter().map(|&(d, _)| d as f64).sum();
    ratio(
        kernels.iter().map(|&(d, m)| d as f64 * m).sum(),
        weight,
        0.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(got: f64, expected: f64) {
        assert!(
            (got - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "got {got}, expected {expected}"
        );
    }

    #[test]
    fn activity() {
        check(activity_factor(32 * 10, 10), 1.0);
        check(activity_factor(16 + 32, 2), 0.75);
        check(activity_factor(0, 0), 1.0);
    }

    #[test]
    fn intensity_and_efficiency() {
        check(memory_intensity(0.5, 10, 100), 0.05);
        check(memory_intensity(1.0, 0, 0), 0.0);
        check(memory_efficiency(10, 20), 1.0);
        check(memory_efficiency(10, 320), 1.0 / 16.0);
        check(memory_efficiency(0, 0), 1.0);
        check(divergent_branch_ratio(1, 4), 0.25);
        check(divergent_branch_ratio(0, 0), 0.0);
    }

    #[test]
    fn parallelism() {
        check(mimd_parallelism(&[10, 10, 10, 10]), 4.0);
        check(mimd_parallelism(&[10, 20]), 1.5);
        check(mimd_parallelism(&[]), 0.0);
        let full = CtaActivity {
            warp_instructions: 10,
            thread_instructions: 320,
            threads: 64,
        };
        let half = CtaActivity {
            warp_instructions: 30,
            thread_instructions: 480,
            threads: 64,
        };
        // A_f = 1 and 0.5; weights 10 and 30: (64*10 + 32*30) / 40 = 40.
        check(simd_parallelism(&[full, half]), 40.0);
        check(simd_parallelism(&[]), 0.0);
        check(application_average(&[(1, 2.0), (3, 4.0)]), 3.5);
    }
}
