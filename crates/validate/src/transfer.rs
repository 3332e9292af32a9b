//! The transferred-best baseline: tune on one GPU, run the winner on
//! another. The configuration measured fastest on the other GPU is looked
//! up in this GPU's data, and its measured time here is divided by this
//! GPU's measured best (1: the other GPU's optimum is this one's too). BAT
//! 2.0 (Tørring et al., 2023) reports such transfers reaching 58.5 to
//! 99.9 % of the optimum; a model that picks a configuration without
//! measuring anything should do at least as well.
//!
//! Both are taken within a set of this GPU's configurations (the ones a
//! run scored, say: a sample, or one part of the split): the transferred
//! configuration is the other GPU's fastest among the set's, and the best is
//! the set's. Where the other GPU's fastest configurations are not in the
//! set (absent from this GPU's data, failed here, or outside the set), the
//! next fastest is taken, and [`Transfer`] counts what was passed over.

use std::collections::HashMap;

use crate::dataset::{Dataset, ParamValue};

/// Why there is no transferred-best figure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransferError {
    #[error("the kernels differ: {this} here, {other} in the other GPU's data")]
    KernelMismatch { this: String, other: String },
    #[error(
        "the tunable parameters differ: [{}] here, [{}] in the other GPU's data",
        .this.join(", "),
        .other.join(", ")
    )]
    ParameterMismatch {
        this: Vec<String>,
        other: Vec<String>,
    },
    #[error("no configuration of the set has a measured time here")]
    NothingMeasuredHere,
    #[error(
        "none of the other GPU's {measured} measured configurations is in the set with a time here"
    )]
    NothingInCommon { measured: usize },
}

/// The other GPU's fastest configurations that were passed over, by why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PassedOver {
    /// Not in this GPU's data at all.
    pub missing_here: usize,
    /// In this GPU's data, measured as failed here.
    pub failed_here: usize,
    /// Measured here, but not in the set scored.
    pub outside_set: usize,
}

impl PassedOver {
    pub fn total(&self) -> usize {
        self.missing_here + self.failed_here + self.outside_set
    }
}

/// The transferred-best figure of one pair of GPUs.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    /// The other GPU, as its data file names it.
    pub from_gpu: String,
    /// Row of the transferred configuration in this GPU's data.
    pub row: usize,
    /// Its rank on the other GPU among the configurations measured there,
    /// 1-based (1: the other GPU's fastest).
    pub rank_there: usize,
    /// What was passed over before it (all zero when `rank_there` is 1).
    pub passed_over: PassedOver,
    /// Its measured time here, ms.
    pub measured_ms: f64,
    /// The fastest measured time here within the set, ms, and its row
    /// (with an objective: the time of the set's best by the objective).
    pub best_ms: f64,
    pub best_row: usize,
    /// `measured_ms / best_ms`, at least 1 (with an objective: the best's
    /// objective over the transferred configuration's, the ratio of their
    /// costs).
    pub ratio: f64,
    /// Configurations of the set with a measured time here.
    pub set_measured: usize,
}

impl Transfer {
    /// The share of the optimum the transfer reaches, in percent (BAT 2.0's
    /// measure): `100 / ratio`.
    pub fn percent_of_optimum(&self) -> f64 {
        100.0 / self.ratio
    }
}

/// The measured time of a row, when it is a positive finite number.
fn time_of(data: &Dataset, row: usize) -> Option<f64> {
    data.rows
        .get(row)
        .and_then(|r| r.measured.mean_ms())
        .filter(|t| t.is_finite() && *t > 0.0)
}

/// Whether `other`'s data can be transferred to `this`: the same kernel and
/// the same parameter names (in any column order, none twice).
pub fn compatible(this: &Dataset, other: &Dataset) -> Result<(), TransferError> {
    if this.kernel != other.kernel {
        return Err(TransferError::KernelMismatch {
            this: this.kernel.clone(),
            other: other.kernel.clone(),
        });
    }
    let mut sorted_this = this.params.clone();
    let mut sorted_other = other.params.clone();
    sorted_this.sort();
    sorted_other.sort();
    if sorted_this != sorted_other || sorted_this.windows(2).any(|w| w[0] == w[1]) {
        return Err(TransferError::ParameterMismatch {
            this: this.params.clone(),
            other: other.params.clone(),
        });
    }
    Ok(())
}

/// The transferred-best figure of `other`'s data on `this` GPU's, within the
/// rows `set` of `this` (ascending or not; rows out of range are ignored).
/// The kernel and the set of parameter names must agree; the parameters'
/// column order may differ.
pub fn transferred_best(
    this: &Dataset,
    set: &[usize],
    other: &Dataset,
) -> Result<Transfer, TransferError> {
    transferred_best_by(this, set, other, None)
}

/// The cost (lower is better) of row `row` of a dataset measured in `ms`
/// milliseconds, when an objective ranks the configurations rather than
/// the time ([`crate::score::RankCost`], per dataset: the two GPUs' files
/// may order their columns differently); `None`: it has none.
pub type DatasetCost<'a> = &'a dyn Fn(&Dataset, usize, f64) -> Option<f64>;

/// [`transferred_best`], the best here and there by `cost` when given:
/// the other GPU's best by the objective is transferred, and its ratio is
/// the ratio of the costs (for a throughput, the best's over its own).
pub fn transferred_best_by(
    this: &Dataset,
    set: &[usize],
    other: &Dataset,
    cost: Option<DatasetCost<'_>>,
) -> Result<Transfer, TransferError> {
    compatible(this, other)?;
    let cost_of = |data: &Dataset, row: usize| -> Option<f64> {
        let t = time_of(data, row)?;
        match cost {
            None => Some(t),
            Some(c) => c(data, row, t).filter(|c| c.is_finite() && *c > 0.0),
        }
    };
    // Column j of this GPU's rows is column `column[j]` of the other's.
    let column: Vec<usize> = this
        .params
        .iter()
        .map(|p| other.params.iter().position(|q| q == p).unwrap_or(0))
        .collect();

    let mut in_set = vec![false; this.rows.len()];
    let (mut best, mut set_measured) = (None::<(f64, usize)>, 0);
    for &r in set {
        let Some(flag) = in_set.get_mut(r) else {
            continue;
        };
        if *flag {
            continue;
        }
        *flag = true;
        if let Some(t) = cost_of(this, r) {
            set_measured += 1;
            if best.is_none_or(|(b, br)| t < b || (t == b && r < br)) {
                best = Some((t, r));
            }
        }
    }
    let (best_cost, best_row) = best.ok_or(TransferError::NothingMeasuredHere)?;
    let best_ms = time_of(this, best_row).unwrap_or(best_cost);

    let here: HashMap<&[ParamValue], usize> = this
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.values.as_slice(), i))
        .collect();
    let mut there: Vec<(f64, usize)> = (0..other.rows.len())
        .filter_map(|r| cost_of(other, r).map(|t| (t, r)))
        .collect();
    there.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));

    let mut passed_over = PassedOver::default();
    for (rank, &(_, r)) in there.iter().enumerate() {
        let values = &other.rows[r].values;
        let key: Vec<ParamValue> = column
            .iter()
            .filter_map(|&c| values.get(c).cloned())
            .collect();
        let Some(&row) = here.get(key.as_slice()) else {
            passed_over.missing_here += 1;
            continue;
        };
        let (Some(measured_ms), Some(here_cost)) = (time_of(this, row), cost_of(this, row)) else {
            passed_over.failed_here += 1;
            continue;
        };
        if !in_set[row] {
            passed_over.outside_set += 1;
            continue;
        }
        return Ok(Transfer {
            from_gpu: other.gpu.clone(),
            row,
            rank_there: rank + 1,
            passed_over,
            measured_ms,
            best_ms,
            best_row,
            ratio: here_cost / best_cost,
            set_measured,
        });
    }
    Err(TransferError::NothingInCommon {
        measured: there.len(),
    })
}

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
