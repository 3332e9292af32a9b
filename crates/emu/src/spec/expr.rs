//! Integer expressions over `defines`: `+ - * / %`, unary minus, parentheses,
//! decimal and `0x` hexadecimal literals, and identifiers naming defines.
//!
//! Used wherever a launch spec allows a number (`len = "N*N"`). The grammar
//! is the project's one expression grammar ([`syntax::expr`]) in its
//! integer-only dialect: no reals, no functions, no logic. Arithmetic is
//! checked `i64`: overflow and division by zero are errors, never wraps.

use syntax::expr::{Dialect, Expr};

/// What launch-spec expressions admit of the shared grammar.
pub const DIALECT: Dialect = Dialect {
    noun: "expression",
    name_noun: "define",
    reals: false,
    logic: false,
    functions: &[],
    // Nesting limit for parentheses, so hostile input cannot overflow the
    // host stack.
    max_depth: 64,
    // Length and tree-depth limits bound the recursion of evaluation; a
    // launch spec's numbers are a few tokens.
    max_tokens: 4096,
    max_tree_depth: Some(1024),
};

/// Why an expression failed, with the byte offset inside the expression text
/// (the spec parser adds it to the string's place in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

/// Evaluate `text`, looking identifiers up with `lookup` (None: unknown name).
pub fn eval(text: &str, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    Expr::parse(text, &DIALECT)
        .and_then(|e| e.eval_int(lookup))
        .map_err(|e| ExprError {
            // Columns count characters from 1; the offset is in bytes.
            offset: text
                .char_indices()
                .nth(e.column.saturating_sub(1))
                .map_or(text.len(), |(b, _)| b),
            message: e.message,
        })
}
