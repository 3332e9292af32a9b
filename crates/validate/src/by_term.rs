//! Errors by a term of the model's own breakdown (`validate --by-term`):
//! a model's median predicted/measured and MAPE over the scored
//! configurations grouped by the quintile of a value its prediction
//! computed, such as the timing model's `l2_seconds`, or the ratio of two
//! (`l2_seconds/sm_seconds`: the share of the SM time the L2 traffic would
//! take).
//!
//! Parameters and bottlenecks ([`crate::by_param`],
//! [`crate::by_bottleneck`]) group by what the data or the model names; a
//! cost the model mis-charges often follows a quantity that no parameter
//! holds alone. On CLBlast's GEMM the timing model's predicted/measured
//! falls with the L2 traffic's share of its time on all four GPUs
//! (docs/validation/gemm.md), which took a hand analysis of the
//! breakdowns before this grouping existed. `MODEL:TERM` takes the term
//! from one model's predictions for every model's errors, a shared axis:
//! whether the `learned` model, whose breakdown holds none of the timing
//! model's terms, still misses what the timing model's L2 share shows.

use crate::by_param::{ParamErrors, errors_by_value, per_row, scored_rows};
use crate::dataset::{Dataset, ParamValue};
use crate::score::Outcome;

/// Groups a term's values fall in: quintiles.
pub const BINS: usize = 5;

/// Before the text of a grouping in the name its errors are listed under
/// (`term:l2_seconds/sm_seconds`), so that a term is not read as a
/// parameter of the data.
pub const PREFIX: &str = "term:";

/// A parsed `--by-term` text: one breakdown key, or two divided, of each
/// model's own breakdown or of one model's for every model (`MODEL:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermGrouping {
    text: String,
    /// The model whose predictions give the term for every model's errors
    /// (a shared axis); `None`: each model its own.
    model: Option<String>,
    numerator: String,
    denominator: Option<String>,
}

impl TermGrouping {
    /// Parses `[MODEL:]KEY` or `[MODEL:]KEY/KEY` (keys of letters, digits
    /// and `_`; a model name also holds `-`); the error says what is wrong.
    pub fn parse(text: &str) -> Result<TermGrouping, String> {
        let (model, terms) = match text.split_once(':') {
            Some((m, rest)) => {
                let m = m.trim();
                if m.is_empty()
                    || !m
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err(format!(
                        "--by-term '{text}': `{m}` is not a model name (`ptxperf predict --help` lists them)"
                    ));
                }
                (Some(m.to_string()), rest)
            }
            None => (None, text),
        };
        let key = |k: &str| -> Result<String, String> {
            let k = k.trim();
            if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                Ok(k.to_string())
            } else {
                Err(format!(
                    "--by-term '{text}': `{k}` is not a breakdown key (letters, digits and _; \
                     `predict --json` lists a model's keys under `breakdown`)"
                ))
            }
        };
        let mut parts = terms.split('/');
        let numerator = key(parts.next().unwrap_or(""))?;
        let denominator = parts.next().map(key).transpose()?;
        if parts.next().is_some() {
            return Err(format!(
                "--by-term '{text}': one key, or two divided (KEY/KEY), not more"
            ));
        }
        Ok(TermGrouping {
            text: text.trim().to_string(),
            model,
            numerator,
            denominator,
        })
    }

    /// The text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The name its errors are listed under: [`PREFIX`] and the text
    /// (no parameter or `--by` expression holds a colon).
    pub fn name(&self) -> String {
        format!("{PREFIX}{}", self.text)
    }

    /// The model whose predictions give the term to every model's errors;
    /// `None`: each model its own.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The breakdown keys a prediction must keep for this grouping.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.numerator.as_str()).chain(self.denominator.as_deref())
    }

    /// The grouping's value from a prediction's kept terms; `None` where a
    /// key is missing or the value is not finite (a zero denominator).
    fn value(&self, terms: &[(String, f64)]) -> Option<f64> {
        let get = |k: &str| terms.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
        let v = match &self.denominator {
            None => get(&self.numerator)?,
            Some(d) => get(&self.numerator)? / get(d)?,
        };
        v.is_finite().then_some(v)
    }
}

/// Errors of `model` over the scored outcomes grouped by the quintile of
/// `grouping`'s value in its predictions, or in those of the model the
/// grouping names (a term with at most [`BINS`] distinct values is grouped
/// by value); `None` where those predictions carry the term for fewer than
/// two groups of `model`'s scored configurations.
pub fn by_term(
    dataset: &Dataset,
    outcomes: &[Outcome],
    model: &str,
    grouping: &TermGrouping,
) -> Option<ParamErrors> {
    let source = grouping.model().unwrap_or(model);
    let value_of_row = per_row(dataset, outcomes, source, |p| grouping.value(&p.terms));
    let scored = scored_rows(dataset, outcomes, model);
    let mut values: Vec<f64> = scored
        .iter()
        .filter_map(|&(row, _, _)| value_of_row[row])
        .collect();
    values.sort_by(f64::total_cmp);
    let bins = Bins::of(&values)?;
    errors_by_value(&grouping.name(), &scored, &|row| {
        value_of_row[row].map(|v| bins.label(v))
    })
}

/// Where a term's values are cut: the distinct values themselves when
/// there are at most [`BINS`], else the quintiles' upper bounds.
struct Bins {
    /// Ascending upper bounds; a value goes to the first bound it does
    /// not exceed.
    upper: Vec<f64>,
    /// The smallest value of each group, for its label.
    lower: Vec<f64>,
    /// Each group is one value.
    exact: bool,
}

impl Bins {
    /// From the sorted values; `None` when they hold fewer than two
    /// distinct values.
    fn of(sorted: &[f64]) -> Option<Bins> {
        let mut distinct = sorted.to_vec();
        distinct.dedup();
        if distinct.len() < 2 {
            return None;
        }
        if distinct.len() <= BINS {
            return Some(Bins {
                upper: distinct.clone(),
                lower: distinct,
                exact: true,
            });
        }
        // The value at each fifth of the ranks closes a group; equal values
        // stay together, so a heavy value can leave fewer than five groups.
        let n = sorted.len();
        let mut upper: Vec<f64> = (1..=BINS)
            .map(|k| sorted[(k * n).div_ceil(BINS) - 1])
            .collect();
        upper.dedup();
        let lower = upper
            .iter()
            .enumerate()
            .map(|(i, _)| {
                if i == 0 {
                    sorted[0]
                } else {
                    let prev = upper[i - 1];
                    sorted.iter().copied().find(|v| *v > prev).unwrap_or(prev)
                }
            })
            .collect();
        Some(Bins {
            upper,
            lower,
            exact: false,
        })
    }

    /// The group of `v`, labelled so that the labels sort in the order of
    /// the groups: "1: 0.0312 to 0.115", or the value itself ("4") where
    /// each group is one value.
    fn label(&self, v: f64) -> ParamValue {
        let i = self
            .upper
            .iter()
            .position(|u| v <= *u)
            .unwrap_or(self.upper.len() - 1);
        if self.exact {
            return ParamValue::Str(format!("{}: {}", i + 1, short(v)));
        }
        ParamValue::Str(format!(
            "{}: {} to {}",
            i + 1,
            short(self.lower[i]),
            short(self.upper[i])
        ))
    }
}

/// Three significant digits, without an exponent for the magnitudes of
/// timing terms (seconds to billions of bytes).
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::by_param::tests::dataset;
    use crate::score::Predicted;

    /// Row `index` predicted by model `m` at `ratio` of a measured 1 ms,
    /// its breakdown holding `terms`.
    fn outcome(index: usize, ratio: f64, terms: &[(&str, f64)]) -> Outcome {
        let p = Predicted {
            terms: terms.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Predicted::from(ratio)
        };
        crate::by_param::tests::measured_once(index, p)
    }

    /// Groups (ratio, terms) outcomes by `text` and compares (label,
    /// scored, median ratio) of each group in the order listed, or `None`.
    fn check(
        text: &str,
        outcomes: &[(f64, Vec<(&str, f64)>)],
        expect: Option<Vec<(&str, usize, f64)>>,
    ) {
        let d = crate::by_param::tests::indexed(outcomes.len());
        let o: Vec<Outcome> = (outcomes.iter().enumerate())
            .map(|(i, (r, t))| outcome(i, *r, t))
            .collect();
        let grouping = TermGrouping::parse(text).expect("a valid grouping");
        let got = by_term(&d, &o, "m", &grouping);
        if let Some(e) = &got {
            assert_eq!(e.param, format!("term:{}", text.trim()));
        }
        crate::by_param::tests::assert_groups(got.as_ref(), expect);
    }

    #[test]
    fn a_term_with_few_values_groups_by_value() {
        check(
            "regs",
            &[
                (0.8, vec![("regs", 64.0)]),
                (1.2, vec![("regs", 32.0)]),
                (0.6, vec![("regs", 64.0)]),
                (1.0, vec![("regs", 32.0)]),
            ],
            Some(vec![("1: 32.0", 2, 1.1), ("2: 64.0", 2, 0.7)]),
        );
        // One value: nothing to compare.
        check(
            "regs",
            &[(0.8, vec![("regs", 1.0)]), (0.9, vec![("regs", 1.0)])],
            None,
        );
    }

    #[test]
    fn a_term_with_many_values_groups_by_quintile() {
        // Ten values 1..10: two per quintile, the ratio falling with the term.
        let outcomes: Vec<(f64, Vec<(&str, f64)>)> = (1..=10)
            .map(|i| (2.0 - 0.1 * i as f64, vec![("t", i as f64)]))
            .collect();
        check(
            "t",
            &outcomes,
            Some(vec![
                ("1: 1.00 to 2.00", 2, 1.85),
                ("2: 3.00 to 4.00", 2, 1.65),
                ("3: 5.00 to 6.00", 2, 1.45),
                ("4: 7.00 to 8.00", 2, 1.25),
                ("5: 9.00 to 10.0", 2, 1.05),
            ]),
        );
    }

    #[test]
    fn equal_values_stay_in_one_group() {
        // Seven of fifteen at 0: the first two quintiles close at 0 and merge.
        let outcomes: Vec<(f64, Vec<(&str, f64)>)> = [0.0; 7]
            .into_iter()
            .chain((1..=8).map(f64::from))
            .map(|v| (1.0, vec![("t", v)]))
            .collect();
        check(
            "t",
            &outcomes,
            Some(vec![
                ("1: 0 to 0", 7, 1.0),
                ("2: 1.00 to 2.00", 2, 1.0),
                ("3: 3.00 to 5.00", 3, 1.0),
                ("4: 6.00 to 8.00", 3, 1.0),
            ]),
        );
    }

    #[test]
    fn a_ratio_of_two_terms_and_missing_terms() {
        // The share a/b; the configuration without b and the one with b = 0
        // are left out.
        check(
            "a/b",
            &[
                (0.5, vec![("a", 1.0), ("b", 2.0)]),
                (1.0, vec![("a", 1.0), ("b", 4.0)]),
                (9.0, vec![("a", 1.0)]),
                (9.0, vec![("a", 1.0), ("b", 0.0)]),
            ],
            Some(vec![("1: 0.250", 1, 1.0), ("2: 0.500", 1, 0.5)]),
        );
    }

    #[test]
    fn a_named_model_gives_every_model_its_term() {
        // Model `m` is grouped by the term `t` of model `n`'s predictions,
        // which `m`'s own do not hold; `n`'s configuration 2 is missing.
        let outcome = |index: usize, ratio: f64, term: Option<f64>| {
            let mut preds = vec![("m".to_string(), Ok(Predicted::from(ratio)))];
            if let Some(v) = term {
                let n = Predicted {
                    terms: vec![("t".to_string(), v)],
                    ..Predicted::from(1.0)
                };
                preds.push(("n".to_string(), Ok(n)));
            }
            Outcome {
                index,
                measured_ms: Some(1.0),
                attempt: crate::score::Attempt::Predicted(preds),
            }
        };
        // Three configurations at each of two values (a headline needs
        // three), and one without `n`'s prediction.
        let d = crate::by_param::tests::indexed(7);
        let o: Vec<Outcome> = (0..7)
            .map(|i| match i {
                0..3 => outcome(i, 0.5, Some(2.0)),
                3..6 => outcome(i, 2.0, Some(1.0)),
                _ => outcome(i, 9.0, None),
            })
            .collect();
        let shared = TermGrouping::parse("n:t").expect("n:t");
        assert_eq!(shared.model(), Some("n"));
        assert_eq!(shared.keys().collect::<Vec<_>>(), ["t"]);
        let got = by_term(&d, &o, "m", &shared);
        assert_eq!(got.as_ref().map(|e| e.param.as_str()), Some("term:n:t"));
        crate::by_param::tests::assert_groups(
            got.as_ref(),
            Some(vec![("1: 1.00", 3, 2.0), ("2: 2.00", 3, 0.5)]),
        );
        // Its own: `m` holds no `t`.
        assert_eq!(
            by_term(&d, &o, "m", &TermGrouping::parse("t").expect("t")),
            None
        );
        // The headline says whose term it is.
        let headline = crate::by_param::headline("m", &[got.expect("groups")]);
        assert!(
            headline
                .as_deref()
                .is_some_and(|h| h.contains("on the term t of n's breakdown")),
            "{headline:?}"
        );
    }

    #[test]
    fn a_model_without_the_term_has_no_groups() {
        check(
            "t",
            &[(1.0, vec![("u", 1.0)]), (2.0, vec![("u", 2.0)])],
            None,
        );
    }

    #[test]
    fn texts_that_are_not_keys_are_refused() {
        for (text, says) in [
            ("", "`` is not a breakdown key"),
            ("a/", "`` is not a breakdown key"),
            ("a-b", "`a-b` is not a breakdown key"),
            ("a/b/c", "one key, or two divided"),
            (":a", "`` is not a model name"),
            ("my model:a", "`my model` is not a model name"),
            ("timing:a:b", "`a:b` is not a breakdown key"),
        ] {
            let e = TermGrouping::parse(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
        let g = TermGrouping::parse(" l2_seconds / sm_seconds ").expect("valid");
        assert_eq!(g.keys().collect::<Vec<_>>(), ["l2_seconds", "sm_seconds"]);
        assert_eq!(g.text(), "l2_seconds / sm_seconds");
        assert_eq!(g.name(), "term:l2_seconds / sm_seconds");
    }

    #[test]
    fn the_headline_says_the_term_is_the_models_own() {
        let d = dataset(&["a"], &[&[1], &[2], &[3], &[4], &[5], &[6]]);
        let o: Vec<Outcome> = [(0.5, 2.0), (1.0, 1.0)]
            .iter()
            .flat_map(|&(r, t)| [r; 3].map(|r| (r, t)))
            .enumerate()
            .map(|(i, (r, t))| outcome(i, r, &[("t", t)]))
            .collect();
        let groups =
            by_term(&d, &o, "m", &TermGrouping::parse("t").expect("t")).expect("two values");
        assert_eq!(
            crate::by_param::headline("m", &[groups]).as_deref(),
            Some(
                "m's error depends most on the term t of its own breakdown (100 % of the \
                 variance of ln(predicted/measured)): median predicted/measured 0.50 at 2: 2.00 \
                 (3 configurations) to 1.00 at 1: 1.00 (3)"
            )
        );
    }

    #[test]
    fn labels_keep_three_digits() {
        for (v, s) in [
            (0.031_25, "0.0312"),
            (2.0, "2.00"),
            (1234.4, "1234"),
            (0.0, "0"),
            (17.449e9, "17449000000"),
        ] {
            assert_eq!(short(v), s, "{v}");
        }
    }
}
