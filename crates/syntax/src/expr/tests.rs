//! One table over the cases of the three former parsers (experiment
//! expressions, tuning constraints, launch-spec expressions): the same
//! inputs are accepted, with the same values.

use super::{Dialect, Expr, Value};

/// The dialects of experiment expressions and of tuning constraints.
const ARITH: Dialect = dialect("expression", "integer name", false, &["min", "max"]);
const LOGIC: Dialect = dialect("constraint", "name", true, &["min", "max", "abs"]);

const fn dialect(
    noun: &'static str,
    name_noun: &'static str,
    logic: bool,
    functions: &'static [&'static str],
) -> Dialect {
    Dialect {
        noun,
        name_noun,
        reals: !logic,
        logic,
        functions,
        max_depth: 100,
        max_tokens: 1000,
        max_tree_depth: if logic { Some(256) } else { None },
    }
}

fn var(name: &str) -> Option<Value> {
    match name {
        "n" => Some(Value::Int(7)),
        "N" => Some(Value::Int(64)),
        "M" => Some(Value::Int(3)),
        "kind" => Some(Value::Str("shared".into())),
        _ => None,
    }
}

#[test]
fn values_agree_across_dialects() {
    let int = Value::Int;
    let cases: [(&str, &Dialect, Result<Value, usize>); 22] = [
        ("42", &ARITH, Ok(int(42))),
        ("1_000", &LOGIC, Ok(int(1000))),
        ("N*N + 1", &ARITH, Ok(int(4097))),
        ("10-4-3", &ARITH, Ok(int(3))),
        ("-7/2", &ARITH, Ok(int(-3))),
        ("-7 // 2", &LOGIC, Ok(int(-4))),
        ("N % M", &ARITH, Ok(int(1))),
        ("--n", &ARITH, Ok(int(7))),
        ("+5", &LOGIC, Ok(int(5))),
        ("min(3, n, 5)", &ARITH, Ok(int(3))),
        ("abs(-n)", &LOGIC, Ok(int(7))),
        ("2 ** 3 ** 2", &LOGIC, Ok(int(512))),
        ("-2 ** 2", &LOGIC, Ok(int(-4))),
        ("16 <= N <= 1024", &LOGIC, Ok(Value::Bool(true))),
        ("kind == 'shared' and n > 1", &LOGIC, Ok(Value::Bool(true))),
        ("not n or 0", &LOGIC, Ok(Value::Bool(false))),
        ("and + 1", &ARITH, Err(1)),
        ("abs(1)", &ARITH, Err(1)),
        ("1.5", &LOGIC, Err(2)),
        ("1.5 * n", &ARITH, Err(1)),
        ("N / (n - 7)", &ARITH, Err(3)),
        ("n < 'a'", &LOGIC, Err(3)),
    ];
    for (text, dialect, want) in cases {
        let got = Expr::parse(text, dialect)
            .and_then(|e| e.eval_value(&var))
            .map_err(|e| e.column);
        assert_eq!(got, want, "{text} as a {}", dialect.noun);
    }
}

#[test]
fn reals_evaluate_where_admitted() {
    let e = Expr::parse("1/4 + i*0.5 - 2e-1", &ARITH);
    let at = |i: f64| {
        e.clone()
            .and_then(|e| e.eval_f64(&|n| (n == "i").then_some(i)))
    };
    assert_eq!(at(2.0), Ok(1.25 - 0.2));
}
