//! Errors by parameter value (`validate --by-param`, and `by_parameter` in
//! `validate --json`): per model, per tunable parameter, the median
//! predicted/measured and MAPE of each value ([`validate::by_param`]).

use serde_json::{Value, json};

use validate::ParamValue;
use validate::by_param::{self, ByParameter, Part};

/// A parameter value as JSON: a number where it is an integer.
pub fn value_json(v: &ParamValue) -> Value {
    match v {
        ParamValue::Int(i) => json!(i),
        ParamValue::Str(s) => json!(s),
    }
}

/// Each model's errors by parameter, as `validate --json` holds them.
pub fn json(errors: &ByParameter) -> Value {
    let part = errors.part;
    let models: Vec<Value> = errors
        .models
        .iter()
        .map(|(model, params)| {
            let params: Vec<Value> = params
                .iter()
                .map(|p| {
                    let values: Vec<Value> = p
                        .values
                        .iter()
                        .map(|v| {
                            json!({
                                "value": value_json(&v.value),
                                "scored": v.scored,
                                "median_predicted_over_measured": v.median_ratio,
                                "mape_percent": v.mape,
                            })
                        })
                        .collect();
                    json!({
                        "name": p.param,
                        "explained": p.explained,
                        "spread": p.spread,
                        "values": values,
                    })
                })
                .collect();
            json!({ "model": model, "part": part.name(), "parameters": params })
        })
        .collect();
    Value::Array(models)
}

/// The table of `validate --by-param`: per model a headline (the parameter
/// that explains most of its error) and one row per parameter in that
/// order, its values as "value: median pred/meas (configurations) MAPE".
pub fn text(errors: &ByParameter, width: u16) -> String {
    let mut out = String::new();
    if errors.part == Part::Development {
        out.push_str(&crate::table::wrap(
            "errors by parameter over the development part of the split only (the check part is scored to report, not to develop a model on; --part check shows it)",
            width,
        ));
        out.push('\n');
    }
    for (model, params) in &errors.models {
        if params.is_empty() {
            out.push_str(&format!(
                "{model}: no parameter takes two values among the scored configurations\n"
            ));
            continue;
        }
        let head = by_param::headline(model, params).unwrap_or_else(|| {
            format!("{model}: no parameter has two values with enough configurations to compare")
        });
        out.push_str(&crate::table::wrap(
            &format!("errors by parameter, {head}:"),
            width,
        ));
        out.push('\n');
        let mut table = crate::table::new(width);
        table.set_header([
            "parameter",
            "explains",
            "spread",
            "median predicted/measured by value (configurations), MAPE %",
        ]);
        crate::table::wrap_last_column_only(&mut table);
        for p in params {
            let cells: Vec<String> = p
                .values
                .iter()
                .map(|v| {
                    format!(
                        "{}: {:.2} ({}) {:.0} %",
                        v.value, v.median_ratio, v.scored, v.mape
                    )
                })
                .collect();
            table.add_row([
                p.param.clone(),
                format!("{:.0} %", 100.0 * p.explained),
                format!("{:.2}", p.spread),
                cells.join(" | "),
            ]);
        }
        out.push_str(&format!("{table}\n"));
    }
    out.push_str(&crate::table::wrap(
        &format!(
            "explains: the share of the variance of ln(predicted/measured) that the parameter's values explain (adjusted R², floored at 0; the rows are in its order); spread: the highest median predicted/measured of a value over the lowest, among values with at least {} configurations (1.00: the bias does not move with the parameter)",
            by_param::MIN_FOR_SPREAD
        ),
        width,
    ));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use validate::by_param::{ParamErrors, ValueErrors};

    fn errors(part: Part) -> ByParameter {
        let v = |value: i64, scored, median_ratio, mape| ValueErrors {
            value: ParamValue::Int(value),
            scored,
            median_ratio,
            mape,
        };
        let models = vec![(
            "timing".to_string(),
            vec![ParamErrors {
                param: "block_size_x".into(),
                values: vec![v(1, 399, 0.79, 21.0), v(32, 10, 0.61, 39.5)],
                spread: 0.79 / 0.61,
                explained: 0.14,
            }],
        )];
        ByParameter { part, models }
    }

    /// No parameter for `timing`.
    fn empty(part: Part) -> ByParameter {
        ByParameter {
            part,
            models: vec![("timing".to_string(), Vec::new())],
        }
    }

    #[test]
    fn text_names_the_parameter_and_lists_its_values() {
        // Wide enough that the headline does not wrap.
        let t = text(&errors(Part::All), 400);
        assert!(
            t.contains("errors by parameter, timing's error depends most on block_size_x (14 % of the variance of ln(predicted/measured)): median predicted/measured 0.61 at 32 (10 configurations) to 0.79 at 1 (399):"),
            "{t}"
        );
        assert!(t.contains("1: 0.79 (399) 21 % | 32: 0.61 (10) 40 %"), "{t}");
        assert!(t.contains("1.30"), "{t}");
        assert!(t.contains("14 %"), "{t}");
    }

    #[test]
    fn json_keeps_integers_as_numbers() {
        let j = json(&errors(Part::Development));
        assert_eq!(j[0]["model"], "timing");
        assert_eq!(j[0]["parameters"][0]["name"], "block_size_x");
        assert_eq!(j[0]["parameters"][0]["values"][1]["value"], 32);
        assert_eq!(j[0]["parameters"][0]["values"][1]["scored"], 10);
        assert_eq!(j[0]["parameters"][0]["explained"], 0.14);
        assert_eq!(j[0]["part"], "development");
    }

    #[test]
    fn a_model_without_parameters_says_so() {
        let t = text(&empty(Part::All), 80);
        assert!(
            t.starts_with("timing: no parameter takes two values"),
            "{t}"
        );
        let t = text(&empty(Part::Development), 400);
        assert!(
            t.starts_with("errors by parameter over the development part"),
            "{t}"
        );
    }
}
