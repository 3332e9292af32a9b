//! TMM, the Threaded Many-core Memory model (Ma, Agrawal and Chamberlain,
//! ICPADS 2012 / FGCS 2014), as models.md 3.2 reconstructs it (status [U]):
//!
//! ```text
//! TMM-1  T_conc = min(T, P*X, (P/Q)*floor(Z/S))        (last term dropped when S = 0)
//! TMM-2  T_TMM  = max(T1/P, T_inf, M*L/T_conc)          work, span and latency bounds
//! ```
//! Each term is reported separately; the span counts a global access on the
//! critical path as `L` (the document's convention).

pub mod adapter;

use crate::prediction::{ModelError, non_negative, positive};

const MODEL: &str = "tmm";

/// Machine parameters and algorithm metrics (models.md 3.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TmmParams {
    /// `L`: latency of one global access, cycles.
    pub l: f64,
    /// `P`: cores.
    pub p: f64,
    /// `Q`: cores per core group (SM).
    pub q: f64,
    /// `Z`: fast memory per core group, words.
    pub z: f64,
    /// `X`: hardware threads per core.
    pub x: f64,
    /// `C`: words per coalesced transaction (informational: `M` is given already merged).
    pub c: f64,
    /// `T1`: work, operations.
    pub t1: f64,
    /// `T_inf`: span, cycles.
    pub span: f64,
    /// `M`: global memory transactions.
    pub m: f64,
    /// `T`: threads the algorithm creates.
    pub threads: f64,
    /// `S`: fast-memory words per thread.
    pub s: f64,
}

/// Which TMM-2 term is the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Work,
    Span,
    Latency,
}

/// TMM-1 and TMM-2 with every term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TmmResult {
    pub t_conc: f64,
    /// `T1/P`, cycles.
    pub work_term: f64,
    /// `T_inf`, cycles.
    pub span_term: f64,
    /// `M*L/T_conc`, cycles.
    pub memory_term: f64,
    /// `T_TMM`, cycles.
    pub cycles: f64,
    pub bound: Bound,
}

/// Evaluate TMM-1 and TMM-2.
pub fn evaluate(p: &TmmParams) -> Result<TmmResult, ModelError> {
    for (name, v) in [("P", p.p), ("Q", p.q), ("X", p.x), ("T", p.threads)] {
        positive(MODEL, name, v)?;
    }
    for (name, v) in [
        ("L", p.l),
        ("Z", p.z),
        ("C", p.c),
        ("T1", p.t1),
        ("T_inf", p.span),
        ("M", p.m),
        ("S", p.s),
    ] {
        non_negative(MODEL, name, v)?;
    }
    let mut t_conc = p.threads.min(p.p * p.x);
    if p.s > 0.0 {
        t_conc = t_conc.min(p.p / p.q * (p.z / p.s).floor());
    }
    if t_conc <= 0.0 && p.m > 0.0 {
        return Err(crate::prediction::invalid(
            MODEL,
            "a thread's fast memory S exceeds Z: no thread can run",
        ));
    }
    let work_term = p.t1 / p.p;
    let span_term = p.span;
    let memory_term = if p.m > 0.0 { p.m * p.l / t_conc } else { 0.0 };
    let (cycles, bound) = if work_term >= span_term && work_term >= memory_term {
        (work_term, Bound::Work)
    } else if span_term >= memory_term {
        (span_term, Bound::Span)
    } else {
        (memory_term, Bound::Latency)
    };
    Ok(TmmResult {
        t_conc,
        work_term,
        span_term,
        memory_term,
        cycles,
        bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// models.md 3.3's machine: P = 1024, Q = 32, X = 48, Z = 12288 words, C = 32, L = 400.
    fn machine(t1: f64, span: f64, m: f64, threads: f64, s: f64) -> TmmParams {
        TmmParams {
            l: 400.0,
            p: 1024.0,
            q: 32.0,
            z: 12288.0,
            x: 48.0,
            c: 32.0,
            t1,
            span,
            m,
            threads,
            s,
        }
    }

    /// Compare `(T_conc, work, span, memory, T_TMM)` and the binding term.
    fn check(p: &TmmParams, expected: (f64, f64, f64, f64, f64), bound: Bound) {
        let r = match evaluate(p) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let got = (r.t_conc, r.work_term, r.span_term, r.memory_term, r.cycles);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(got.0, expected.0)
                && close(got.1, expected.1)
                && close(got.2, expected.2)
                && close(got.3, expected.3)
                && close(got.4, expected.4),
            "{got:?} != {expected:?}"
        );
        assert_eq!(r.bound, bound);
    }

    #[test]
    fn naive_matmul_1024_vector() {
        // n = 1024: T = n^2, T1 = 2n^3, T_inf = n(L+1), M = 2n^3/C + n^2/C, S = 0.
        let n = 1024.0_f64;
        assert_eq!(2.0 * n.powi(3) / 32.0 + n * n / 32.0, 67_141_632.0);
        check(
            &machine(2.0 * n.powi(3), n * 401.0, 67_141_632.0, n * n, 0.0),
            (49_152.0, 2_097_152.0, 410_624.0, 546_400.0, 2_097_152.0),
            Bound::Work,
        );
    }

    #[test]
    fn fast_memory_limits_concurrency() {
        // S = 2 words: (P/Q) * floor(Z/S) = 32 * 6144 = 196,608 > P*X; S = 1024: 32 * 12 = 384.
        check(
            &machine(0.0, 0.0, 1000.0, 1e6, 2.0),
            (
                49_152.0,
                0.0,
                0.0,
                1000.0 * 400.0 / 49_152.0,
                1000.0 * 400.0 / 49_152.0,
            ),
            Bound::Latency,
        );
        check(
            &machine(0.0, 0.0, 384.0, 1e6, 1024.0),
            (384.0, 0.0, 0.0, 400.0, 400.0),
            Bound::Latency,
        );
    }

    #[test]
    fn span_bound() {
        check(
            &machine(1024.0, 5000.0, 0.0, 10.0, 0.0),
            (10.0, 1.0, 5000.0, 0.0, 5000.0),
            Bound::Span,
        );
    }

    #[test]
    fn impossible_inputs_are_errors() {
        assert!(evaluate(&machine(1.0, 1.0, 1.0, 0.0, 0.0)).is_err());
        assert!(evaluate(&machine(1.0, 1.0, 10.0, 10.0, 1e9)).is_err());
        assert!(
            evaluate(&TmmParams {
                l: f64::NAN,
                ..machine(1.0, 1.0, 1.0, 1.0, 0.0)
            })
            .is_err()
        );
    }
}
