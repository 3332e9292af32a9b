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

/// What Kernel Tuner `restrictions` admit of the shared grammar: the logic
/// dialect of tuning constraints (the `tune` crate's), with `min`, `max` and
/// `abs`. `/` truncates like C; Kernel Tuner evaluates the restriction as
/// Python, where `/` is real division: the two agree wherever the division is
/// exact (every division in CLBlast's Xgemm restrictions is), and `//` is
/// Python's floor division in both.
pub const RESTRICTION_DIALECT: Dialect = Dialect {
    noun: "restriction",
    name_noun: "name",
    reals: false,
    logic: true,
    functions: &["min", "max", "abs"],
    max_depth: 100,
    max_tokens: 1000,
    max_tree_depth: Some(256),
};

/// One of Kernel Tuner's `restrictions`: a condition over the tunable
/// parameters that a configuration must meet to be in the space at all.
#[derive(Debug, Clone, PartialEq)]
pub struct Restriction {
    text: String,
    expr: syntax::expr::Expr,
}

impl Restriction {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Restriction, ExprError> {
        Ok(Restriction {
            text: text.to_string(),
            expr: syntax::expr::Expr::parse(text, &RESTRICTION_DIALECT)?,
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether `var` (each parameter's value) meets it: a boolean, or an
    /// integer that is non-zero. A name it reads that `var` lacks is an error.
    pub fn holds(
        &self,
        var: &dyn Fn(&str) -> Option<syntax::expr::Value>,
    ) -> Result<bool, ExprError> {
        self.expr.eval_bool(var)
    }
}
