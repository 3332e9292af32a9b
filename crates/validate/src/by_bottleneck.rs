//! Errors by the model's own bottleneck: a model's median predicted/measured
//! and MAPE over the scored configurations grouped by the limit its
//! prediction names (`validate --by-bottleneck`).
//!
//! Where one limit's configurations sit at a median well below the others',
//! that limit's term is optimistic (or a cost the model does not charge
//! rides with it): on CLBlast's GEMM on the RTX 2080 Ti the timing model's
//! configurations bound by the L1 data path were at 1.14 and those bound by
//! latency at 0.80 (docs/validation/gemm.md). Listed and ranked with the
//! parameters of [`crate::by_param`], under [`NAME`].

use crate::by_param::{ParamErrors, errors_by_value, per_row, scored_rows};
use crate::dataset::{Dataset, ParamValue};
use crate::score::Outcome;

/// The name the groups are listed under.
pub const NAME: &str = "bottleneck";

/// Most distinct limits a model may name for its errors to be grouped by
/// them: a model whose bottleneck text differs per configuration (the
/// `learned` model's names its factor on `timing`) has no groups to read.
pub const MAX_GROUPS: usize = 12;

/// The limit a bottleneck text names: its words before a parenthesis or a
/// semicolon ("compute issue (datasheet bandwidths)" -> "compute issue").
pub fn limit_of(bottleneck: &str) -> &str {
    bottleneck
        .split([';', '('])
        .next()
        .unwrap_or(bottleneck)
        .trim()
}

/// Errors of `model` over the scored outcomes grouped by the limit its
/// prediction of each names; `None` where they name fewer than two limits
/// or more than [`MAX_GROUPS`], or the model names none.
pub fn by_bottleneck(dataset: &Dataset, outcomes: &[Outcome], model: &str) -> Option<ParamErrors> {
    let limit_of_row = per_row(dataset, outcomes, model, |p| {
        let text = p.bottleneck.as_deref()?;
        Some(ParamValue::Str(limit_of(text).to_string()))
    });
    let scored = scored_rows(dataset, outcomes, model);
    errors_by_value(NAME, &scored, &|row| {
        limit_of_row.get(row).cloned().flatten()
    })
    .filter(|e| e.values.len() <= MAX_GROUPS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::by_param::tests::dataset;
    use crate::score::Predicted;

    /// Row `index` predicted by model `m` at `ratio` of a measured 1 ms,
    /// naming `bottleneck`.
    fn outcome(index: usize, ratio: f64, bottleneck: &str) -> Outcome {
        let p = Predicted {
            bottleneck: Some(bottleneck.to_string()),
            ..Predicted::from(ratio)
        };
        crate::by_param::tests::measured_once(index, p)
    }

    /// Groups (ratio, bottleneck) outcomes and compares (limit, scored,
    /// median ratio) of each group in the order listed, or `None`.
    fn check(outcomes: &[(f64, &str)], expect: Option<Vec<(&str, usize, f64)>>) {
        let d = crate::by_param::tests::indexed(outcomes.len());
        let o: Vec<Outcome> = (outcomes.iter().enumerate())
            .map(|(i, (r, b))| outcome(i, *r, b))
            .collect();
        let got = by_bottleneck(&d, &o, "m");
        if let Some(e) = &got {
            assert_eq!(e.param, NAME);
            assert!(
                e.values
                    .iter()
                    .all(|v| matches!(v.value, ParamValue::Str(_)))
            );
        }
        crate::by_param::tests::assert_groups(got.as_ref(), expect);
    }

    #[test]
    fn the_limit_is_the_words_before_the_details() {
        assert_eq!(
            limit_of("compute issue (datasheet bandwidths)"),
            "compute issue"
        );
        assert_eq!(
            limit_of("timing x 0.87 (interval 0.68 to 1.13); the trees"),
            "timing x 0.87"
        );
        assert_eq!(limit_of("DRAM bandwidth"), "DRAM bandwidth");
        assert_eq!(limit_of(" latency ; x"), "latency");
    }

    #[test]
    fn configurations_group_by_the_limit_their_prediction_names() {
        // Two limits, listed in the order of their names: the details in
        // parentheses do not split a group.
        check(
            &[
                (0.8, "shared memory (datasheet bandwidths)"),
                (1.2, "L1 bandwidth (datasheet bandwidths)"),
                (0.6, "shared memory (calibrated)"),
                (1.0, "L1 bandwidth (datasheet bandwidths)"),
            ],
            Some(vec![("L1 bandwidth", 2, 1.1), ("shared memory", 2, 0.7)]),
        );
        // One limit: nothing to compare.
        check(&[(0.8, "latency"), (0.9, "latency (x)")], None);
    }

    #[test]
    fn a_model_that_names_too_many_limits_has_no_groups() {
        let texts: Vec<String> = (0..=MAX_GROUPS).map(|i| format!("limit {i}")).collect();
        let outcomes: Vec<(f64, &str)> = texts.iter().map(|t| (1.0, t.as_str())).collect();
        check(&outcomes, None);
        // Each of the 12 a group of one, listed in the order of its name.
        let mut names: Vec<&str> = texts[..MAX_GROUPS].iter().map(String::as_str).collect();
        names.sort_unstable();
        check(
            &outcomes[..MAX_GROUPS],
            Some(names.into_iter().map(|n| (n, 1, 1.0)).collect()),
        );
    }

    #[test]
    fn the_headline_says_the_limits_are_the_models_own() {
        let d = dataset(&["a"], &[&[1], &[2], &[3], &[4], &[5], &[6]]);
        let o: Vec<Outcome> = [(0.5, "latency"), (1.0, "shared memory")]
            .iter()
            .flat_map(|&(r, b)| [r; 3].map(|r| (r, b)))
            .enumerate()
            .map(|(i, (r, b))| outcome(i, r, b))
            .collect();
        let groups = by_bottleneck(&d, &o, "m").expect("two limits");
        assert_eq!(
            crate::by_param::headline("m", &[groups]).as_deref(),
            Some(
                "m's error depends most on the limit its prediction names (bottleneck) (100 % of \
                 the variance of ln(predicted/measured)): median predicted/measured 0.50 at \
                 latency (3 configurations) to 1.00 at shared memory (3)"
            )
        );
    }

    #[test]
    fn a_model_without_a_bottleneck_has_no_groups() {
        let d = dataset(&["a"], &[&[1], &[2]]);
        let o: Vec<Outcome> = (0..2)
            .map(|i| crate::by_param::tests::predicted(i, 1.0, 1.0))
            .collect();
        assert_eq!(by_bottleneck(&d, &o, "m"), None);
    }
}
