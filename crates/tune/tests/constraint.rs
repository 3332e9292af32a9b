//! The constraint language: parsing, evaluation, errors with columns.

use tune::{Constraint, Value};

/// Variables every case may read.
fn env(name: &str) -> Option<Value> {
    match name {
        "x" => Some(Value::Int(32)),
        "y" => Some(Value::Int(8)),
        "z" => Some(Value::Int(0)),
        "neg" => Some(Value::Int(-7)),
        "big" => Some(Value::Int(i64::MAX)),
        "kind" => Some(Value::Str("shared".into())),
        "flag" => Some(Value::Bool(true)),
        _ => None,
    }
}

fn value(text: &str, expected: Value) {
    let c = Constraint::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(c.eval_value(&env), Ok(expected), "{text}");
}

fn check(text: &str, expected: bool) {
    let c = Constraint::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(c.eval(&env), Ok(expected), "{text}");
}

/// A parse error at `column` whose message contains `fragment`.
fn parse_err(text: &str, column: usize, fragment: &str) {
    let e = Constraint::parse(text).expect_err(text);
    assert_eq!(e.column, column, "{text}: {e}");
    assert!(e.message.contains(fragment), "{text}: {e}");
}

/// An evaluation error at `column` whose message contains `fragment`.
fn eval_err(text: &str, column: usize, fragment: &str) {
    let c = Constraint::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let e = c.eval(&env).expect_err(text);
    assert_eq!(e.column, column, "{text}: {e}");
    assert!(e.message.contains(fragment), "{text}: {e}");
}

#[test]
fn arithmetic() {
    value("1 + 2 * 3", Value::Int(7));
    value("(1 + 2) * 3", Value::Int(9));
    value("x*y", Value::Int(256));
    value("x - y - 4", Value::Int(20));
    value("7 / 2", Value::Int(3));
    value("-7 / 2", Value::Int(-3));
    value("-7 // 2", Value::Int(-4));
    value("7 // 2", Value::Int(3));
    value("7 // -2", Value::Int(-4));
    value("7 % 3", Value::Int(1));
    value("2 ** 10", Value::Int(1024));
    value("2 ** 3 ** 2", Value::Int(512));
    value("-2 ** 2", Value::Int(-4));
    value("--3", Value::Int(3));
    value("+x", Value::Int(32));
    value("min(x, y, 100)", Value::Int(8));
    value("max(x, y * 5)", Value::Int(40));
    value("abs(neg)", Value::Int(7));
    value("min(x)", Value::Int(32));
    value("1_024", Value::Int(1024));
    value("'a'", Value::Str("a".into()));
}

#[test]
fn comparisons() {
    check("x*y <= 1024", true);
    check("x*y < 256", false);
    check("x > y", true);
    check("x >= 32", true);
    check("x == 32", true);
    check("x != 32", false);
    check("8 <= x <= 1024", true);
    check("8 <= x <= 16", false);
    check("1 < 2 < 3 < 4", true);
    check("3 > 2 < 1", false);
    check("kind == 'shared'", true);
    check("kind != \"shared\"", false);
    check("kind < 'zzz'", true);
    check("flag == True", true);
    check("flag != true", false);
}

#[test]
fn logic() {
    check("x > 1 && y > 1", true);
    check("x > 1 and y > 100", false);
    check("x > 100 || y > 1", true);
    check("x > 100 or y > 100", false);
    check("!(x > 100)", true);
    check("not x > 100", true);
    check("not not x > 100", false);
    check("! ! ! flag", false);
    check("x > 1 or y > 1 and z > 1", true);
    check("(x > 1 or y > 1) and z > 1", false);
    check("z", false);
    check("x", true);
    check("z or y", true);
    check("True", true);
    check("False or false", false);
    // Short-circuit: the division is never evaluated.
    check("z != 0 and x / z > 1", false);
    check("z == 0 || x / z > 1", true);
}

#[test]
fn parse_errors_with_columns() {
    parse_err("", 1, "empty");
    parse_err("x +", 4, "ends too early");
    parse_err("x ++* 2", 5, "unexpected `*`");
    parse_err("x = 3", 3, "`==`");
    parse_err("(x > 1", 7, "expected `)`");
    parse_err("x > 1)", 6, "unexpected `)`");
    parse_err("x $ 2", 3, "unexpected character `$`");
    parse_err("foo(x)", 1, "unknown function `foo`");
    parse_err("abs(x, y)", 1, "one argument");
    parse_err("min(x, y", 9, "expected `)`");
    parse_err("1.5 * x", 2, "only integers");
    parse_err("99999999999999999999", 1, "too large");
    parse_err("12ab", 1, "bad number");
    parse_err("x > 'abc", 5, "not closed");
    parse_err("x and", 6, "ends too early");
    parse_err("x y", 3, "unexpected name `y`");
    parse_err("and x", 1, "unexpected `and`");
}

#[test]
fn evaluation_errors_with_columns() {
    eval_err("w > 1", 1, "unknown name `w`");
    eval_err("x > 1 && w > 1", 10, "unknown name `w`");
    eval_err("x / z", 3, "division by zero");
    eval_err("x // z", 3, "division by zero");
    eval_err("x % z", 3, "division by zero");
    eval_err("big + 1", 5, "overflow");
    eval_err("big * 2", 5, "overflow");
    eval_err("2 ** 64", 3, "overflow");
    eval_err("2 ** -1", 3, "negative exponent");
    eval_err("-(big + 1)", 7, "overflow");
    eval_err("-(-big - 1)", 1, "overflow");
    eval_err("kind + 1", 6, "integer");
    eval_err("kind == 1", 6, "cannot compare");
    eval_err("flag < flag", 6, "cannot compare");
    eval_err("kind", 1, "not a condition");
    eval_err("kind and x", 6, "not a condition");
}

#[test]
fn hostile_input_is_an_error_not_a_crash() {
    let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
    let e = Constraint::parse(&deep).expect_err("deep nesting");
    assert!(e.message.contains("nested deeper"), "{e}");
    // Just inside the limits: 99 parentheses, 99 nested calls.
    let shallow = format!("{}1+x{}", "(".repeat(99), ")".repeat(99));
    assert_eq!(
        Constraint::parse(&shallow).map(|c| c.eval_value(&env)),
        Ok(Ok(Value::Int(33)))
    );
    let calls = format!("{}x{}", "min(y, ".repeat(98), ")".repeat(98));
    assert_eq!(
        Constraint::parse(&calls).map(|c| c.eval_value(&env)),
        Ok(Ok(Value::Int(8)))
    );
    let powers = vec!["2"; 300].join("**");
    assert!(Constraint::parse(&powers).is_err());
    let long = vec!["1"; 3000].join("+");
    let e = Constraint::parse(&long).expect_err("long");
    assert!(e.message.contains("tokens"), "{e}");
    let wide = vec!["1"; 400].join("+");
    let e = Constraint::parse(&wide).expect_err("wide");
    assert!(e.message.contains("nested operations"), "{e}");
    let sum = vec!["1"; 200].join("+");
    assert_eq!(
        Constraint::parse(&sum).map(|c| c.eval_value(&env)),
        Ok(Ok(Value::Int(200)))
    );
    // Many prefix operators are counted, not recursed into.
    let nots = format!("{}x", "!".repeat(900));
    assert_eq!(Constraint::parse(&nots).map(|c| c.eval(&env)), Ok(Ok(true)));
    let minuses = format!("{}1", "-".repeat(901));
    assert_eq!(
        Constraint::parse(&minuses).map(|c| c.eval_value(&env)),
        Ok(Ok(Value::Int(-1)))
    );
}

#[test]
fn variables_in_order_of_first_use() {
    let c = Constraint::parse("block_size_x*block_size_y <= 1024 and tile > block_size_x")
        .expect("parses");
    let vars: Vec<String> = c.variables().into_iter().map(|(n, _)| n).collect();
    assert_eq!(vars, ["block_size_x", "block_size_y", "tile"]);
    assert_eq!(c.variables()[2].1, 39);
}
