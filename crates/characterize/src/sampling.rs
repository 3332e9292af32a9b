//! CTA sampling: emulate K of the grid's CTAs, chosen deterministically
//! (spread over every dimension of the grid, [`Sample::spread`]; or evenly
//! spaced over the linear ids, [`Sample::evenly`]), and scale the counts by
//! total / K. The estimated error is the relative standard error of the
//! scaled total, from the spread of the sampled CTAs' instruction counts
//! with the finite-population correction (0 when every CTA ran).

/// Which CTAs a run watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// CTAs in the grid.
    pub total: u64,
    /// Linear ids of the CTAs watched, ascending.
    pub ctas: Vec<u32>,
}

impl Sample {
    /// Every CTA of a grid of `total`.
    pub fn full(total: u64) -> Sample {
        Sample {
            total,
            ctas: (0..total.min(u64::from(u32::MAX)) as u32).collect(),
        }
    }

    /// `k` CTAs of `total`, evenly spaced, first and last included; all of
    /// them when `k >= total`.
    pub fn evenly(total: u64, k: u64) -> Sample {
        if k >= total || total <= 1 {
            return Sample::full(total);
        }
        Sample {
            total,
            ctas: emu::exec::evenly_spaced(total, k.max(1)),
        }
    }

    /// `k` CTAs of `grid` spread over each of its dimensions
    /// ([`emu::exec::spread_ctas`]); all of them when `k` covers the grid.
    pub fn spread(grid: [u32; 3], k: u64) -> Sample {
        let total = grid.iter().map(|&g| u64::from(g)).product::<u64>();
        if k >= total || total <= 1 {
            return Sample::full(total);
        }
        Sample {
            total,
            ctas: emu::exec::spread_ctas(grid, k.max(1)),
        }
    }

    /// Exactly `ctas` (ids past the grid dropped, sorted, deduplicated).
    pub fn explicit(total: u64, ctas: &[u32]) -> Sample {
        let mut v: Vec<u32> = ctas
            .iter()
            .copied()
            .filter(|&c| u64::from(c) < total)
            .collect();
        v.sort_unstable();
        v.dedup();
        Sample { total, ctas: v }
    }

    /// Is this every CTA?
    pub fn is_full(&self) -> bool {
        self.ctas.len() as u64 >= self.total
    }

    /// The factor extrapolating sampled counts to the grid.
    pub fn scale(&self) -> f64 {
        if self.ctas.is_empty() || self.is_full() {
            1.0
        } else {
            self.total as f64 / self.ctas.len() as f64
        }
    }

    /// Estimated relative error of the extrapolated total, from the sampled
    /// CTAs' counts.
    pub fn relative_error(&self, counts: &[u64]) -> f64 {
        let n = counts.len() as f64;
        if self.is_full() || counts.len() < 2 {
            return 0.0;
        }
        let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
        if mean == 0.0 {
            return 0.0;
        }
        let var = counts
            .iter()
            .map(|&c| (c as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        let fpc = (1.0 - n / self.total as f64).max(0.0);
        (var / n * fpc).sqrt() / mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(total: u64, k: u64, expected: &[u32]) {
        assert_eq!(
            Sample::evenly(total, k).ctas,
            expected,
            "total {total}, k {k}"
        );
    }

    #[test]
    fn choice() {
        check(10, 2, &[0, 9]);
        check(10, 3, &[0, 5, 9]);
        check(10, 1, &[0]);
        check(4, 10, &[0, 1, 2, 3]);
        check(100, 5, &[0, 25, 50, 74, 99]);
        check(1, 1, &[0]);
        check(0, 3, &[]);
    }

    #[test]
    fn scale_and_error() {
        let s = Sample::evenly(100, 4);
        assert_eq!(s.scale(), 25.0);
        assert_eq!(s.relative_error(&[10, 10, 10, 10]), 0.0);
        assert!(s.relative_error(&[10, 20, 10, 20]) > 0.0);
        assert_eq!(Sample::full(8).relative_error(&[1, 2, 3]), 0.0);
        assert_eq!(Sample::full(8).scale(), 1.0);
    }
}
