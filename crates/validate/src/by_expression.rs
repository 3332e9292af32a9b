//! Errors grouped by the value of an expression over the tunable
//! parameters (`validate --by EXPR`), beside the errors by each parameter
//! ([`crate::by_param`]).
//!
//! An effect often follows a product or a ratio of parameters rather than
//! any one of them: the dedispersion's blocks cover
//! `block_size_x*tile_size_x` samples, and the timing model's median
//! predicted/measured on the RTX A4000 falls from 0.97 where that is 1 to
//! 0.74 where it is 128, more steadily than with either factor alone. A
//! grouping is listed under its expression's text, as a parameter would
//! be, and ranked with the parameters by the share of the error it
//! explains.

use crate::by_param::{ParamErrors, errors_by_value, scored_rows};
use crate::dataset::{Dataset, ParamValue};
use crate::expr::Expr;
use crate::score::Outcome;

/// A parsed `--by` expression: integer arithmetic over parameter names
/// (the experiment files' grammar, [`crate::expr`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Grouping {
    text: String,
    expr: Expr,
}

impl Grouping {
    /// Parses `text`; the error says where it fails.
    pub fn parse(text: &str) -> Result<Grouping, String> {
        let expr = Expr::parse(text)
            .map_err(|e| format!("--by '{text}': column {}: {}", e.column, e.message))?;
        Ok(Grouping {
            text: text.to_string(),
            expr,
        })
    }

    /// The expression as given: the name its errors are listed under.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value of every row of `dataset`, in row order. A name that is
    /// not one of the dataset's parameters, a parameter whose value is not
    /// an integer, or arithmetic that fails (division by zero, overflow)
    /// is an error naming the row's parameters.
    pub fn values(&self, dataset: &Dataset) -> Result<Vec<ParamValue>, String> {
        if let Some(name) = self
            .expr
            .variables()
            .into_iter()
            .find(|n| !dataset.params.contains(n))
        {
            return Err(format!(
                "--by '{}': `{name}` is not a tunable parameter of this data (its parameters: {})",
                self.text,
                dataset.params.join(", ")
            ));
        }
        dataset
            .rows
            .iter()
            .map(|row| {
                let lookup = |name: &str| {
                    let column = dataset.params.iter().position(|p| p == name)?;
                    row.values.get(column)?.as_int()
                };
                self.expr
                    .eval_int(&lookup)
                    .map(ParamValue::Int)
                    .map_err(|e| {
                        let params: Vec<String> = dataset
                            .params
                            .iter()
                            .zip(&row.values)
                            .map(|(n, v)| format!("{n}={v}"))
                            .collect();
                        format!(
                            "--by '{}': {} (configuration {})",
                            self.text,
                            e.message,
                            params.join(",")
                        )
                    })
            })
            .collect()
    }
}

/// Errors of `model` over the scored outcomes grouped by the value of one
/// grouping, `values` being [`Grouping::values`] of the same dataset;
/// `None` where the scored configurations hold fewer than two values.
pub fn by_expression(
    dataset: &Dataset,
    outcomes: &[Outcome],
    model: &str,
    grouping: &Grouping,
    values: &[ParamValue],
) -> Option<ParamErrors> {
    let scored = scored_rows(dataset, outcomes, model);
    errors_by_value(grouping.text(), &scored, &|row| values.get(row).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::by_param::tests::{dataset, predicted};

    /// Groups `rows` of (a, b) with predicted/measured `ratios` by `text`
    /// and compares (value, scored, median ratio) of each group, or the
    /// error's text.
    fn check(
        text: &str,
        rows: &[&[i64]],
        ratios: &[f64],
        expect: Result<&[(i64, usize, f64)], &str>,
    ) {
        let d = dataset(&["a", "b"], rows);
        let o: Vec<Outcome> = ratios
            .iter()
            .enumerate()
            .map(|(i, r)| predicted(i, *r, 1.0))
            .collect();
        let got = Grouping::parse(text).and_then(|g| {
            let values = g.values(&d)?;
            let errors = by_expression(&d, &o, "m", &g, &values);
            Ok(errors.map_or_else(Vec::new, |e| {
                assert_eq!(e.param, text);
                e.values
                    .iter()
                    .map(|v| {
                        let value = v.value.as_int().expect("integer groups");
                        (value, v.scored, (v.median_ratio * 1000.0).round() / 1000.0)
                    })
                    .collect()
            }))
        });
        match expect {
            Ok(want) => assert_eq!(got, Ok(want.to_vec()), "{text}"),
            Err(want) => assert_eq!(got, Err(want.to_string()), "{text}"),
        }
    }

    #[test]
    fn groups_follow_the_expression_not_either_parameter() {
        let rows: &[&[i64]] = &[&[1, 4], &[2, 2], &[4, 1], &[1, 8], &[8, 1]];
        let ratios = [1.0, 0.8, 0.6, 0.5, 0.4];
        // a*b: 4 three times (1.0, 0.8, 0.6), 8 twice (0.5, 0.4).
        check("a*b", rows, &ratios, Ok(&[(4, 3, 0.8), (8, 2, 0.45)]));
        // Any arithmetic of the experiment grammar: max, division (which
        // truncates: max(2, 2) / 4 is 0), literals.
        check(
            "max(a, b) / 4",
            rows,
            &ratios,
            Ok(&[(0, 1, 0.8), (1, 2, 0.8), (2, 2, 0.45)]),
        );
        // One value among the scored configurations: nothing to compare.
        check("a*0", rows, &ratios, Ok(&[]));
    }

    #[test]
    fn bad_expressions_are_errors_that_say_why() {
        let rows: &[&[i64]] = &[&[1, 0], &[2, 3]];
        check(
            "a*c",
            rows,
            &[1.0, 1.0],
            Err("--by 'a*c': `c` is not a tunable parameter of this data (its parameters: a, b)"),
        );
        let err = Grouping::parse("a*").expect_err("incomplete");
        assert!(err.starts_with("--by 'a*': column 3: "), "{err}");
        let d = dataset(&["a", "b"], rows);
        let err = Grouping::parse("a/b")
            .and_then(|g| g.values(&d))
            .expect_err("division by zero");
        assert!(err.starts_with("--by 'a/b': "), "{err}");
        assert!(err.ends_with("(configuration a=1,b=0)"), "{err}");
    }
}
