//! The integer / real expression evaluator of experiment files.

use validate::expr::{Expr, ExprError};

fn vars(name: &str) -> Option<i64> {
    match name {
        "block_size_x" => Some(48),
        "tile_size_x" => Some(3),
        "n" => Some(7),
        _ => None,
    }
}

fn check_int(text: &str, expected: i64) {
    let v = Expr::parse(text).and_then(|e| e.eval_int(&vars));
    assert_eq!(v, Ok(expected), "{text}");
}

fn check_int_error(text: &str, column: usize, needle: &str) {
    match Expr::parse(text).and_then(|e| e.eval_int(&vars)) {
        Ok(v) => panic!("{text}: expected an error, got {v}"),
        Err(ExprError { column: c, message }) => {
            assert_eq!(c, column, "{text}: {message}");
            assert!(message.contains(needle), "{text}: {message}");
        }
    }
}

#[test]
fn integer_arithmetic() {
    check_int("42", 42);
    check_int("2+3*4", 14);
    check_int("(2+3)*4", 20);
    check_int("2*3+4", 10);
    check_int("10-4-3", 3); // left associative
    check_int("64/4/2", 8);
    check_int("7/2", 3);
    check_int("-7/2", -3); // truncates like C
    check_int("7%3", 1);
    check_int("-n", -7);
    check_int("--n", 7);
    check_int("+n", 7);
    check_int("block_size_x*tile_size_x", 144);
    check_int("(4096 + 15/2*2) * (4096 + 15/2*2)", 4110 * 4110);
    check_int("min(3, n, 5)", 3);
    check_int("max(block_size_x, 4) + min(1,2)", 49);
    check_int("  1 +\t2 ", 3);
}

#[test]
fn integer_errors_have_columns() {
    check_int_error("2+", 3, "ends too early");
    check_int_error("", 1, "ends too early");
    check_int_error("x + 1", 1, "unknown integer name `x`");
    check_int_error("n / (n - 7)", 3, "division by zero");
    check_int_error("n % 0", 3, "division by zero");
    check_int_error("1.5 * n", 1, "not an integer");
    check_int_error("pow(2, 3)", 1, "unknown function `pow`");
    check_int_error("2 $ 3", 3, "unexpected character `$`");
    check_int_error("(1 + 2", 7, "expected `)`");
    check_int_error("min(1, 2", 9, "expected `)`");
    check_int_error("1 2", 3, "unexpected number");
    check_int_error("9223372036854775807 + 1", 21, "overflow");
    check_int_error("3000000000 * 3000000000 * 3", 25, "overflow"); // 9e18 fits, times 3 does not
    check_int_error("1e", 1, "bad number");
}

#[test]
fn real_mode_and_variables() {
    let e = Expr::parse("1/4 + i*0.5 - 2e-1").unwrap_or_else(|e| panic!("{e}"));
    let at = |i: f64| e.eval_f64(&|n| (n == "i").then_some(i));
    assert_eq!(at(0.0), Ok(0.25 - 0.2));
    assert_eq!(at(2.0), Ok(1.25 - 0.2));
    assert_eq!(e.variables(), vec!["i".to_string()]);
    let e = Expr::parse("max(a, b) * a + min(b, 1)").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.variables(), vec!["a".to_string(), "b".to_string()]);
    let r = e.eval_f64(&|n| match n {
        "a" => Some(2.0),
        "b" => Some(0.5),
        _ => None,
    });
    assert_eq!(r, Ok(4.5));
    assert!(
        Expr::parse("1/x")
            .and_then(|e| e.eval_f64(&|_| Some(0.0)))
            .is_err()
    );
}

#[test]
fn hostile_inputs_are_errors_not_crashes() {
    check_int(&format!("{}1", "-".repeat(1001)), -1);
    check_int_error(
        &format!("{}1{}", "(".repeat(300), ")".repeat(300)),
        201, // the first "(" past the limit
        "nested deeper",
    );
    check_int_error(&vec!["1"; 1500].join("+"), 1, "longer than");
    check_int_error("é + 1", 1, "unknown integer name `é`");
}
