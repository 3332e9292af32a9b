//! The project's one expression grammar, shared by experiment expressions
//! (validate: `block_size_x*tile_size_x`, reals for buffer formulas) and
//! tuning constraints (tune: `x*y <= 1024 and kind == 'shared'`).
//!
//! One parser reads the superset; a [`Dialect`] says what a use admits:
//! - always: integers (`1_000` may group digits, `0x` is hexadecimal), names, `+ - * / %`
//!   (`/` truncates like C), unary `-`/`+`, parentheses, calls of the
//!   dialect's functions (`min`, `max`, and `abs` where admitted);
//! - `reals`: real literals (`0.5`, `2e-1`), evaluated by [`Expr::eval_f64`];
//! - `logic`: strings, `True`/`False`, `**`, `//` (floor), comparisons that
//!   chain as in Python, and `&&`/`and`, `||`/`or`, `!`/`not`.
//!
//! Errors are [`crate::ExprError`]s at 1-based columns in characters. Input
//! that nests deeper or runs longer than the dialect's limits is an error,
//! never a stack overflow.

mod eval;
mod lex;
mod parse;

use std::fmt;

use crate::ExprError;
use crate::expr_error::fail;
use parse::{Node, Parser, tree_depth};

/// What one use of the grammar admits, and how its messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// What the text is called in messages ("expression", "constraint").
    pub noun: &'static str,
    /// What an unknown name is called in integer evaluation.
    pub name_noun: &'static str,
    /// Real literals.
    pub reals: bool,
    /// Strings, booleans, `**`, `//`, comparisons and logic.
    pub logic: bool,
    /// The functions a call may name.
    pub functions: &'static [&'static str],
    /// Nesting limit of parentheses and calls.
    pub max_depth: usize,
    /// Length limit in tokens.
    pub max_tokens: usize,
    /// Limit on the parsed tree's depth, where evaluation must stay shallow.
    pub max_tree_depth: Option<usize>,
}

/// A value of integer evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Str(String),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Bool(_) => "a boolean",
            Value::Str(_) => "a string",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => write!(f, "'{s}'"),
        }
    }
}

/// A parsed expression of some dialect.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    node: Node,
    dialect: Dialect,
}

impl Expr {
    /// Parses `text` as `dialect` admits it.
    pub fn parse(text: &str, dialect: &Dialect) -> Result<Expr, ExprError> {
        let tokens = lex::tokenize(text, dialect)?;
        if tokens.len() > dialect.max_tokens {
            return fail(1, format!("longer than {} tokens", dialect.max_tokens));
        }
        if tokens.is_empty() {
            return fail(
                1,
                format!("the {} is empty (it ends too early)", dialect.noun),
            );
        }
        let mut p = Parser::new(tokens, text.chars().count() + 1, dialect);
        let node = p.top()?;
        if let Some((t, col)) = p.peek() {
            return fail(*col, format!("unexpected {t}"));
        }
        if let Some(limit) = dialect.max_tree_depth
            && tree_depth(&node) > limit
        {
            return fail(
                1,
                format!(
                    "more than {limit} nested operations; split the {}",
                    dialect.noun
                ),
            );
        }
        Ok(Expr {
            node,
            dialect: *dialect,
        })
    }

    /// The names it reads with the column of their first use, in that order.
    pub fn variables(&self) -> Vec<(String, usize)> {
        parse::variables(&self.node)
    }

    /// Evaluates with integer arithmetic (and, where admitted, strings,
    /// booleans and logic); `var` gives each name's value.
    pub fn eval_value(&self, var: &dyn Fn(&str) -> Option<Value>) -> Result<Value, ExprError> {
        eval::eval(&self.node, var, &self.dialect)
    }

    /// Evaluates as a condition: a boolean, or an integer (true when non-zero).
    pub fn eval_bool(&self, var: &dyn Fn(&str) -> Option<Value>) -> Result<bool, ExprError> {
        eval::truth(self.eval_value(var)?, 1)
    }

    /// Evaluates to an integer.
    pub fn eval_int(&self, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
        let v = self.eval_value(&|n| var(n).map(Value::Int))?;
        eval::int(v, 1)
    }

    /// Evaluates with real arithmetic (`/` is real division); `var` gives
    /// each name's value.
    pub fn eval_f64(&self, var: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
        eval::eval_f64(&self.node, var)
    }
}

#[cfg(test)]
mod tests;
