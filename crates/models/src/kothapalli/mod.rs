//! Kothapalli et al. (HiPC 2009, seed 000 section 3): the MAX and SUM models.
//!
//! ```text
//! (2) C_T(K) = max over threads of C(T)
//!     MAX: C(T) = max(N_comp, N_memory)     SUM: C(T) = N_comp + N_memory
//! (3) C(K)   = N_B * N_w * N_t * C_T(K) / (N_C * D)     cycles
//! (4) T(K)   = C(K) / R                                   seconds
//! (1) T(P)   = sum over the kernels of T(K)
//! ```
//! `N_B`: blocks assigned to one SM in sequence; `N_w`: warps per block;
//! `N_t`: threads per warp; `N_C`: cores per SM; `D`: pipeline depth; `R`: clock.
//!
//! Per-thread costs (section 3.2, GTX 280): an add 4 cycles, a 32-bit integer
//! multiply 16, a modulus 48; a global access 500 cycles (the 400-600 range of
//! the CUDA guide), or `(500 + k)/k` per access when one transaction serves
//! `k` threads (coalesced); a shared access 4 cycles, `4k` when `k` threads
//! conflict on a bank (QRQW, linear contention). These are per-warp *issue*
//! costs, not latencies (Wong et al. 2010 measure 24 cycles of dependent
//! latency for an add, models.md 5.1); the code keeps the paper's numbers.

pub mod adapter;

use crate::prediction::{ModelError, non_negative, positive};

const MODEL: &str = "kothapalli";

/// The overlap assumption of section 3.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Scheduling hides everything: `C(T) = max(N_comp, N_memory)`.
    Max,
    /// No overlap: `C(T) = N_comp + N_memory`.
    Sum,
}

/// Cycles per operation of one thread (section 3.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpCosts {
    /// Simple integer operations (add, logic, compare, move). Seed 000: 4.
    pub int_add: f64,
    /// 32-bit integer multiply. Seed 000: 16.
    pub int_mul: f64,
    /// Integer division and modulus. Seed 000: 48 (modulus).
    pub int_div: f64,
    /// FP32 add, mul, FMA. Seed 000 gives no FP figure; 4, like an add (GT200
    /// issues FP add/mul/mad at the integer-add rate, Wong et al. Table III).
    pub fp32: f64,
    /// FP64 operation. Assumption: 32 (GT200 has one FP64 unit per SM, so a
    /// warp takes 32 cycles where an 8-lane FP32 operation takes 4).
    pub fp64: f64,
    /// Special functions. Assumption: 16 (two SFUs per SM: 32 threads / 2).
    pub sfu: f64,
    /// Conversions, control, everything else. Assumption: 4, like an add.
    pub other: f64,
    /// One uncoalesced global access. Seed 000: 500.
    pub global: f64,
    /// One conflict-free shared access. Seed 000: 4.
    pub shared: f64,
}

impl OpCosts {
    /// The GTX 280 figures of seed 000 (section 3.2 and 3.5), with the assumptions above.
    pub const GTX280: OpCosts = OpCosts {
        int_add: 4.0,
        int_mul: 16.0,
        int_div: 48.0,
        fp32: 4.0,
        fp64: 32.0,
        sfu: 16.0,
        other: 4.0,
        global: 500.0,
        shared: 4.0,
    };

    /// Cost of one global access when one transaction serves `k` threads:
    /// `(global + k)/k` for `k > 1` (coalesced), `global` otherwise.
    pub fn global_access(&self, k: f64) -> f64 {
        if k > 1.0 {
            (self.global + k) / k
        } else {
            self.global
        }
    }

    /// Cost of one shared access with `k`-way bank contention: `shared * k` (QRQW, linear).
    pub fn shared_access(&self, k: f64) -> f64 {
        self.shared * k.max(1.0)
    }
}

/// Equation (3)'s parameters for one kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KothapalliParams {
    /// `N_B`: blocks assigned to one SM in sequence.
    pub n_b: f64,
    /// `N_w`: warps per block.
    pub n_w: f64,
    /// `N_t`: threads per warp.
    pub n_t: f64,
    /// `N_comp`: computation cycles of the costliest thread.
    pub comp_cycles: f64,
    /// `N_memory`: memory cycles of the costliest thread.
    pub memory_cycles: f64,
    /// `N_C`: cores per SM.
    pub n_c: f64,
    /// `D`: pipeline depth.
    pub d: f64,
    /// `R`: core clock, Hz.
    pub r_hz: f64,
}

/// Result of equations (2)-(4) for one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KothapalliResult {
    /// `C_T(K)`, cycles per thread.
    pub c_t: f64,
    /// `C(K)`, cycles of the kernel.
    pub cycles: f64,
    /// `T(K)`, seconds.
    pub seconds: f64,
}

/// Evaluate equations (2)-(4).
pub fn evaluate(p: &KothapalliParams, variant: Variant) -> Result<KothapalliResult, ModelError> {
    for (name, v) in [
        ("N_B", p.n_b),
        ("N_w", p.n_w),
        ("N_t", p.n_t),
        ("N_C", p.n_c),
        ("D", p.d),
        ("R", p.r_hz),
    ] {
        positive(MODEL, name, v)?;
    }
    non_negative(MODEL, "N_comp", p.comp_cycles)?;
    non_negative(MODEL, "N_memory", p.memory_cycles)?;
    let c_t = match variant {
        Variant::Max => p.comp_cycles.max(p.memory_cycles),
        Variant::Sum => p.comp_cycles + p.memory_cycles,
    };
    let cycles = p.n_b * p.n_w * p.n_t * c_t / (p.n_c * p.d);
    Ok(KothapalliResult {
        c_t,
        cycles,
        seconds: cycles / p.r_hz,
    })
}

#[cfg(test)]
mod tests;
