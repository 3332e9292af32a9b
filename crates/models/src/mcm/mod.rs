//! MCM, the many-core machine model (Haque, Moreno Maza and Xie, 2014/2015),
//! as models.md 4.3-4.4 reconstructs it (status [U]), for one kernel whose
//! thread-blocks are alike:
//!
//! ```text
//! MCM-1  W(B) = local operations of all threads of B
//! MCM-2  S(B) = local operations of B's longest thread
//! MCM-3  O(B) = U * (r_B + w_B)                 words read/written in global memory
//! MCM-4  W(K) = sum W(B);  S(K) = max S(B);  O(K) = sum O(B)
//! MCM-6  T <= (N/K + L) * C,   C = max_B (S(B) + O(B))   (Graham-Brent with overhead)
//! ```
//! `N`: thread-blocks, `L`: critical path of the thread-block DAG in blocks
//! (1 for a single kernel), `K`: SMs. Time unit: one local operation.

pub mod adapter;

use crate::prediction::{ModelError, non_negative, positive};

const MODEL: &str = "mcm";

/// One kernel of `blocks` alike thread-blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McmParams {
    /// `U`: time units per word moved between global and local memory.
    pub u: f64,
    /// `K`: SMs executing the program.
    pub k: f64,
    /// `N`: thread-blocks.
    pub blocks: f64,
    /// `L`: critical-path length of the thread-block DAG, blocks.
    pub critical_path: f64,
    /// `W(B)`: local operations of one block.
    pub block_work: f64,
    /// `S(B)`: local operations of one block's longest thread.
    pub block_span: f64,
    /// `r_B`: words one block reads from global memory.
    pub words_read: f64,
    /// `w_B`: words one block writes to global memory.
    pub words_written: f64,
}

/// Every measure of MCM-1 to MCM-6.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McmResult {
    /// `W(P)`.
    pub work: f64,
    /// `S(P)`.
    pub span: f64,
    /// `O(B)`.
    pub block_overhead: f64,
    /// `O(P)`.
    pub overhead: f64,
    /// `C(P) = S(B) + O(B)`.
    pub c: f64,
    /// The bound `(N/K + L) * C`, time units.
    pub bound: f64,
    /// `O(P)/W(P)`, the parallelism-overhead ratio (infinite when W = 0).
    pub overhead_ratio: f64,
}

/// Evaluate the measures and the Graham-Brent bound.
pub fn evaluate(p: &McmParams) -> Result<McmResult, ModelError> {
    positive(MODEL, "K", p.k)?;
    positive(MODEL, "N", p.blocks)?;
    for (name, v) in [
        ("U", p.u),
        ("L", p.critical_path),
        ("W(B)", p.block_work),
        ("S(B)", p.block_span),
        ("r_B", p.words_read),
        ("w_B", p.words_written),
    ] {
        non_negative(MODEL, name, v)?;
    }
    let block_overhead = p.u * (p.words_read + p.words_written);
    let work = p.blocks * p.block_work;
    let overhead = p.blocks * block_overhead;
    let c = p.block_span + block_overhead;
    Ok(McmResult {
        work,
        span: p.block_span,
        block_overhead,
        overhead,
        c,
        bound: (p.blocks / p.k + p.critical_path) * c,
        overhead_ratio: if work > 0.0 {
            overhead / work
        } else {
            f64::INFINITY
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// models.md 4.5: vector addition of n words, l threads per block, s elements per thread:
    /// W(B) = 4ls, S(B) = 4s, r_B = 2ls, w_B = ls.
    fn vector_add(n: f64, l: f64, s: f64, u: f64, k: f64) -> McmParams {
        McmParams {
            u,
            k,
            blocks: n / (l * s),
            critical_path: 1.0,
            block_work: 4.0 * l * s,
            block_span: 4.0 * s,
            words_read: 2.0 * l * s,
            words_written: l * s,
        }
    }

    /// Compare `(N, W, S, O, C, bound)`.
    fn check(p: &McmParams, expected: (f64, f64, f64, f64, f64, f64)) {
        let r = match evaluate(p) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let got = (p.blocks, r.work, r.span, r.overhead, r.c, r.bound);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(got.0, expected.0)
                && close(got.1, expected.1)
                && close(got.2, expected.2)
                && close(got.3, expected.3)
                && close(got.4, expected.4)
                && close(got.5, expected.5),
            "{got:?} != {expected:?}"
        );
    }

    #[test]
    fn vector_addition_vector() {
        // n = 2^20, l = 256, s = 4, U = 10, K = 80.
        check(
            &vector_add(1_048_576.0, 256.0, 4.0, 10.0, 80.0),
            (1024.0, 4_194_304.0, 16.0, 31_457_280.0, 30_736.0, 424_156.8),
        );
    }

    #[test]
    fn bound_formula() {
        // (n/(l s K) + 1)(4s + 3 l s U) with s = 1: (4096/80 + 1) * (4 + 3*256*10).
        check(
            &vector_add(1_048_576.0, 256.0, 1.0, 10.0, 80.0),
            (
                4096.0,
                4_194_304.0,
                4.0,
                31_457_280.0,
                7684.0,
                (4096.0 / 80.0 + 1.0) * 7684.0,
            ),
        );
    }

    #[test]
    fn overhead_ratio_is_3u_over_4() {
        let r =
            evaluate(&vector_add(1_048_576.0, 256.0, 4.0, 10.0, 80.0)).map(|r| r.overhead_ratio);
        assert_eq!(r, Ok(7.5));
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(evaluate(&vector_add(1024.0, 256.0, 4.0, 10.0, 0.0)).is_err());
        assert!(evaluate(&vector_add(1024.0, 256.0, 4.0, -1.0, 8.0)).is_err());
    }
}
