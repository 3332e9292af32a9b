//! Small arithmetic expressions over parameter names, as experiment files
//! write them: `block_size_x*tile_size_x`, `(4096 + filter_width/2*2)`.
//!
//! The grammar is the project's one expression grammar ([`syntax::expr`]) in
//! its arithmetic dialect: numbers, names, `+ - * / %`, unary minus,
//! parentheses and the functions `min(a, b, ...)` and `max(a, b, ...)`. One
//! parsed `Expr` is evaluated in two modes:
//! - integers (`eval_int`): checked i64 arithmetic, `/` and `%` truncate
//!   like C (all sizes here are non-negative, where this equals Python's
//!   `//`); a fractional literal is an error;
//! - reals (`eval_f64`): f64 arithmetic, `/` is real division; used for
//!   buffer contents defined by a formula of the element index.

use syntax::expr::Dialect;

/// A parse or evaluation error; `column` is 1-based, in characters of the
/// expression text (the project's one expression error).
pub use syntax::ExprError;

/// What experiment expressions admit of the shared grammar.
pub const DIALECT: Dialect = Dialect {
    noun: "expression",
    name_noun: "integer name",
    reals: true,
    logic: false,
    functions: &["min", "max"],
    // Nesting limit: deeper input is an error rather than a stack overflow.
    max_depth: 200,
    // Length limit in tokens (experiment expressions are a few dozen).
    max_tokens: 2000,
    max_tree_depth: None,
};

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr(syntax::expr::Expr);

impl Expr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        syntax::expr::Expr::parse(text, &DIALECT).map(Expr)
    }

    /// Evaluates with integer arithmetic; `var` gives each name's value.
    pub fn eval_int(&self, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
        self.0.eval_int(var)
    }

    /// Evaluates with real arithmetic; `var` gives each name's value.
    pub fn eval_f64(&self, var: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
        self.0.eval_f64(var)
    }

    /// The names the expression reads, in first-use order.
    pub fn variables(&self) -> Vec<String> {
        self.0
            .variables()
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }
}

/// Parses and evaluates an integer expression in one step.
pub fn eval_int_str(text: &str, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    Expr::parse(text)?.eval_int(var)
}
