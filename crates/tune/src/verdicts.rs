//! A restriction's verdict for every combination of the parameters it
//! reads, computed once before a space is expanded. A restriction reads a
//! few parameters (`MWG % (MDIMC * VWM) == 0` reads three, 48 combinations
//! in the GEMM's space), while the space has hundreds of thousands of
//! points: evaluating each restriction at each point, with a configuration
//! built for it (its names cloned), took a second of every `tune` of the
//! GEMM's 663,552 points, however few it then emulated.

use validate::ParamValue;

use crate::constraint::{Constraint, ConstraintError};
use crate::space::Param;

/// Past this many combinations a restriction is evaluated point by point.
const MAX_TABLE: u64 = 1 << 16;

/// The verdicts of one restriction.
pub(crate) struct Verdicts {
    /// The positions (in the space's order) of the parameters it reads,
    /// with the stride of each in `table`.
    reads: Vec<(usize, usize)>,
    table: Vec<Result<bool, ConstraintError>>,
}

impl Verdicts {
    /// The table of `restriction` over `params`; None when it would be too
    /// large or names a parameter the space lacks (the caller evaluates
    /// point by point, and reports what it finds).
    pub(crate) fn of(restriction: &Constraint, params: &[Param]) -> Option<Verdicts> {
        let mut positions: Vec<usize> = Vec::new();
        for (name, _) in restriction.variables() {
            let at = params.iter().position(|p| p.name == name)?;
            if !positions.contains(&at) {
                positions.push(at);
            }
        }
        let size = positions.iter().try_fold(1u64, |acc, &at| {
            acc.checked_mul(params[at].values.len() as u64)
        })?;
        if size > MAX_TABLE {
            return None;
        }
        let mut reads = Vec::with_capacity(positions.len());
        let mut stride = 1usize;
        for &at in &positions {
            reads.push((at, stride));
            stride *= params[at].values.len();
        }
        let table = (0..stride)
            .map(|cell| {
                let pairs: Vec<(&str, &ParamValue)> = reads
                    .iter()
                    .map(|&(at, stride)| {
                        let p = &params[at];
                        (p.name.as_str(), &p.values[cell / stride % p.values.len()])
                    })
                    .collect();
                restriction.eval_params(&pairs)
            })
            .collect();
        Some(Verdicts { reads, table })
    }

    /// The verdict at the point whose value index of parameter `k` is
    /// `digits[k]`.
    #[inline]
    pub(crate) fn at(&self, digits: &[usize]) -> &Result<bool, ConstraintError> {
        let cell: usize = self.reads.iter().map(|&(at, s)| digits[at] * s).sum();
        &self.table[cell]
    }
}
