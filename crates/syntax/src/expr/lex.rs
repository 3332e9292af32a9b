//! Tokens of the expression grammar: numbers (decimal, `0x` hexadecimal,
//! `_` grouping digits; reals where admitted), names, strings and symbols.

use std::fmt;

use super::Dialect;
use crate::ExprError;
use crate::expr_error::fail;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Int(i64),
    Real(f64),
    Str(String),
    Name(String),
    /// Operators and punctuation, spelled as in the source.
    Sym(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Real(v) => write!(f, "number `{v}`"),
            Tok::Str(s) => write!(f, "string '{s}'"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Sym(s) => write!(f, "`{s}`"),
        }
    }
}

/// Longest first, so `<=` is not read as `<` then `=`.
const LOGIC_SYMBOLS: [&str; 20] = [
    "**", "//", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!", "(",
    ")", ",", "=",
];
/// The symbols of plain arithmetic.
const ARITH_SYMBOLS: [&str; 8] = ["+", "-", "*", "/", "%", "(", ")", ","];

/// The tokens of `text` with their 1-based columns in characters.
pub(super) fn tokenize(text: &str, dialect: &Dialect) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let symbols: &[&'static str] = if dialect.logic {
        &LOGIC_SYMBOLS
    } else {
        &ARITH_SYMBOLS
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (dialect.reals && c == '.') {
            let (tok, next) = number(&chars, i, dialect)?;
            out.push((tok, col));
            i = next;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Name(chars[start..i].iter().collect()), col));
        } else if dialect.logic && (c == '\'' || c == '"') {
            let start = i + 1;
            let Some(len) = chars[start..].iter().position(|x| *x == c) else {
                return fail(col, "string is not closed");
            };
            out.push((Tok::Str(chars[start..start + len].iter().collect()), col));
            i = start + len + 1;
        } else if let Some(sym) = symbols.iter().find(|s| {
            s.chars()
                .enumerate()
                .all(|(k, sc)| chars.get(i + k) == Some(&sc))
        }) {
            if *sym == "=" {
                return fail(col, "`=` is not a comparison; write `==`");
            }
            out.push((Tok::Sym(sym), col));
            i += sym.len();
        } else {
            return fail(col, format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

/// The number starting at `chars[start]` and the index just past it.
fn number(chars: &[char], start: usize, dialect: &Dialect) -> Result<(Tok, usize), ExprError> {
    let col = start + 1;
    let hex = chars[start] == '0' && matches!(chars.get(start + 1), Some('x' | 'X'));
    let mut i = start;
    while i < chars.len()
        && (chars[i].is_ascii_alphanumeric()
            || chars[i] == '_'
            || (dialect.reals && chars[i] == '.'))
    {
        // An exponent sign belongs to a real number: 1e-3 (not to 0x1e-3).
        let is_exp = dialect.reals && !hex && matches!(chars[i], 'e' | 'E');
        i += 1;
        if is_exp && i < chars.len() && matches!(chars[i], '+' | '-') {
            i += 1;
        }
    }
    if !dialect.reals && chars.get(i) == Some(&'.') {
        return fail(i + 1, "only integers are supported");
    }
    let s: String = chars[start..i].iter().filter(|c| **c != '_').collect();
    if hex {
        return match s.get(2..).map(|digits| i64::from_str_radix(digits, 16)) {
            Some(Ok(v)) => Ok((Tok::Int(v), i)),
            _ => fail(col, format!("bad number `{s}`")),
        };
    }
    if let Ok(v) = s.parse::<i64>() {
        return Ok((Tok::Int(v), i));
    }
    if dialect.reals
        && let Ok(v) = s.parse::<f64>()
    {
        return Ok((Tok::Real(v), i));
    }
    if s.chars().all(|c| c.is_ascii_digit()) {
        return fail(col, format!("integer `{s}` is too large"));
    }
    fail(col, format!("bad number `{s}`"))
}
