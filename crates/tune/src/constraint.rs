//! Constraints over tuning parameters: `block_size_x*block_size_y <= 1024`,
//! `tile_size_x > 1 or use_padding == 0`.
//!
//! Kernel Tuner writes restrictions in Python, users of a command line write
//! them in C, so both spellings are accepted:
//! - integers, strings (`'a'` or `"a"`), `True`/`False` (also `true`/`false`),
//!   parameter names;
//! - arithmetic on integers, checked (overflow is an error): `+ - * %`, `/`
//!   (truncating, like C and like the experiment files' expressions), `//`
//!   (floor, like Python), `**`, unary `-`/`+`, parentheses, and the
//!   functions `min(a, ...)`, `max(a, ...)`, `abs(a)`;
//! - comparisons `< <= > >= == !=` on two integers, two strings or (only
//!   `==`/`!=`) two booleans; they chain as in Python (`16 <= x <= 1024`);
//! - logic: `&&`/`and`, `||`/`or`, `!`/`not`, short-circuit, with Python's
//!   precedence (`not` binds looser than comparisons). An integer operand
//!   counts as true when non-zero, as in both languages.
//!
//! The grammar is the project's one expression grammar ([`syntax::expr`]) in
//! its logic dialect. Errors carry the 1-based column (in characters) of the offending token.
//! Input that nests deeper than [`MAX_DEPTH`] or runs longer than
//! [`MAX_TOKENS`] tokens is an error, never a stack overflow.

use std::fmt;

use syntax::expr::{Dialect, Expr};
use validate::ParamValue;

/// Nesting limit: deeper input is an error rather than a stack overflow.
pub const MAX_DEPTH: usize = 100;
/// Length limit in tokens (real restrictions are a few dozen).
pub const MAX_TOKENS: usize = 1000;
/// Limit on the depth of the parsed tree (a chain `a+b+c+...` of n terms is
/// n deep), which bounds the recursion of evaluation and of dropping it.
pub const MAX_TREE_DEPTH: usize = 256;

/// A parse or evaluation error; `column` is 1-based in the constraint text
/// (the project's one expression error, shared with experiment expressions).
pub type ConstraintError = syntax::ExprError;

/// A value during evaluation.
pub use syntax::expr::Value;

/// What constraints admit of the shared grammar: all of it but reals.
pub const DIALECT: Dialect = Dialect {
    noun: "constraint",
    name_noun: "name",
    reals: false,
    logic: true,
    functions: &["min", "max", "abs"],
    max_depth: MAX_DEPTH,
    max_tokens: MAX_TOKENS,
    max_tree_depth: Some(MAX_TREE_DEPTH),
};

/// The value a configuration's parameter has in a constraint.
pub fn param_value(v: &ParamValue) -> Value {
    match v {
        ParamValue::Int(i) => Value::Int(*i),
        ParamValue::Str(s) => Value::Str(s.clone()),
    }
}

/// A parsed constraint, with its text kept for messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    text: String,
    expr: Expr,
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Constraint {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        Ok(Constraint {
            text: text.to_string(),
            expr: Expr::parse(text, &DIALECT)?,
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names it reads with the column of their first use, in that order.
    pub fn variables(&self) -> Vec<(String, usize)> {
        self.expr.variables()
    }

    /// Evaluates to a value; `var` gives each name's value.
    pub fn eval_value(
        &self,
        var: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Value, ConstraintError> {
        self.expr.eval_value(var)
    }

    /// Evaluates as a condition: a boolean, or an integer (true when non-zero).
    pub fn eval(&self, var: &dyn Fn(&str) -> Option<Value>) -> Result<bool, ConstraintError> {
        self.expr.eval_bool(var)
    }

    /// Evaluates over (name, value) pairs, as a configuration holds them.
    pub fn eval_params(&self, params: &[(&str, &ParamValue)]) -> Result<bool, ConstraintError> {
        self.eval(&|name| {
            params
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| param_value(v))
        })
    }
}
