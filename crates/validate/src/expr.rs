//! Small arithmetic expressions over parameter names, as experiment files
//! write them: `block_size_x*tile_size_x`, `(4096 + filter_width/2*2)`.
//!
//! Grammar: numbers, names, `+ - * / %`, unary minus, parentheses and the
//! functions `min(a, b, ...)` and `max(a, b, ...)`. One parsed `Expr` is
//! evaluated in two modes:
//! - integers (`eval_int`): checked i64 arithmetic, `/` and `%` truncate
//!   like C (all sizes here are non-negative, where this equals Python's
//!   `//`); a fractional literal is an error;
//! - reals (`eval_f64`): f64 arithmetic, `/` is real division; used for
//!   buffer contents defined by a formula of the element index.

use std::fmt;

/// A parse or evaluation error; `column` is 1-based, in characters of the
/// expression text (the project's one expression error).
pub use syntax::ExprError;
use syntax::expr_error::fail;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    node: Node,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Int(i64),
    Real(f64, usize),
    Var(String, usize),
    Neg(Box<Node>, usize),
    Bin(Op, Box<Node>, Box<Node>, usize),
    Call(String, Vec<Node>, usize),
}

impl Expr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let tokens = tokenize(text)?;
        // Bounds the tree depth, so evaluation cannot overflow the stack.
        if tokens.len() > MAX_TOKENS {
            return fail(1, format!("longer than {MAX_TOKENS} tokens"));
        }
        let mut p = Parser {
            tokens,
            pos: 0,
            depth: 0,
        };
        let node = p.sum()?;
        match p.peek() {
            None => Ok(Expr { node }),
            Some((t, col)) => fail(*col, format!("unexpected {t}")),
        }
    }

    /// Evaluates with integer arithmetic; `var` gives each name's value.
    pub fn eval_int(&self, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
        eval_int(&self.node, var)
    }

    /// Evaluates with real arithmetic; `var` gives each name's value.
    pub fn eval_f64(&self, var: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
        eval_f64(&self.node, var)
    }

    /// The names the expression reads, in first-use order.
    pub fn variables(&self) -> Vec<String> {
        fn walk(n: &Node, out: &mut Vec<String>) {
            match n {
                Node::Int(_) | Node::Real(..) => {}
                Node::Var(v, _) => {
                    if !out.contains(v) {
                        out.push(v.clone());
                    }
                }
                Node::Neg(a, _) => walk(a, out),
                Node::Bin(_, a, b, _) => {
                    walk(a, out);
                    walk(b, out);
                }
                Node::Call(_, args, _) => args.iter().for_each(|a| walk(a, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.node, &mut out);
        out
    }
}

/// Parses and evaluates an integer expression in one step.
pub fn eval_int_str(text: &str, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    Expr::parse(text)?.eval_int(var)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Real(f64),
    Name(String),
    Sym(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Real(v) => write!(f, "number `{v}`"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Sym(c) => write!(f, "`{c}`"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (byte, c) = chars[i];
        // Columns count characters, as every expression error does.
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            while i < chars.len() && (chars[i].1.is_ascii_alphanumeric() || chars[i].1 == '.') {
                // An exponent sign belongs to the number: 1e-3.
                let is_exp = matches!(chars[i].1, 'e' | 'E');
                i += 1;
                if is_exp && i < chars.len() && matches!(chars[i].1, '+' | '-') {
                    i += 1;
                }
            }
            let end = chars.get(i).map_or(text.len(), |(b, _)| *b);
            let s = &text[byte..end];
            if let Ok(v) = s.parse::<i64>() {
                out.push((Tok::Int(v), col));
            } else if let Ok(v) = s.parse::<f64>() {
                out.push((Tok::Real(v), col));
            } else {
                return fail(col, format!("bad number `{s}`"));
            }
        } else if c.is_alphabetic() || c == '_' {
            let end_i = (i..chars.len())
                .find(|&j| !(chars[j].1.is_alphanumeric() || chars[j].1 == '_'))
                .unwrap_or(chars.len());
            let end = chars.get(end_i).map_or(text.len(), |(b, _)| *b);
            out.push((Tok::Name(text[byte..end].to_string()), col));
            i = end_i;
        } else if "+-*/%(),".contains(c) {
            out.push((Tok::Sym(c), col));
            i += 1;
        } else {
            return fail(col, format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

/// Nesting limit: deeper input is an error rather than a stack overflow.
const MAX_DEPTH: usize = 200;
/// Length limit in tokens (experiment expressions are a few dozen).
const MAX_TOKENS: usize = 2000;

struct Parser {
    tokens: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&(Tok, usize)> {
        self.tokens.get(self.pos)
    }

    fn end_column(&self) -> usize {
        self.tokens.last().map_or(1, |(_, c)| c + 1)
    }

    fn eat(&mut self, sym: char) -> Option<usize> {
        match self.peek() {
            Some((Tok::Sym(c), col)) if *c == sym => {
                let col = *col;
                self.pos += 1;
                Some(col)
            }
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let c = self.peek().map_or(self.end_column(), |(_, c)| *c);
            return fail(c, format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let result = self.sum_inner();
        self.depth -= 1;
        result
    }

    fn sum_inner(&mut self) -> Result<Node, ExprError> {
        let mut left = self.product()?;
        loop {
            let (op, col) = if let Some(c) = self.eat('+') {
                (Op::Add, c)
            } else if let Some(c) = self.eat('-') {
                (Op::Sub, c)
            } else {
                return Ok(left);
            };
            let right = self.product()?;
            left = Node::Bin(op, Box::new(left), Box::new(right), col);
        }
    }

    fn product(&mut self) -> Result<Node, ExprError> {
        let mut left = self.unary()?;
        loop {
            let (op, col) = if let Some(c) = self.eat('*') {
                (Op::Mul, c)
            } else if let Some(c) = self.eat('/') {
                (Op::Div, c)
            } else if let Some(c) = self.eat('%') {
                (Op::Rem, c)
            } else {
                return Ok(left);
            };
            let right = self.unary()?;
            left = Node::Bin(op, Box::new(left), Box::new(right), col);
        }
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        // Signs are counted, not recursed into, so "------1" cannot overflow.
        let mut negations = Vec::new();
        loop {
            if let Some(col) = self.eat('-') {
                negations.push(col);
            } else if self.eat('+').is_none() {
                break;
            }
        }
        let mut node = self.atom()?;
        for col in negations.into_iter().rev() {
            node = Node::Neg(Box::new(node), col);
        }
        Ok(node)
    }

    fn atom(&mut self) -> Result<Node, ExprError> {
        let Some((tok, col)) = self.tokens.get(self.pos).cloned() else {
            return fail(self.end_column(), "expression ends too early");
        };
        self.pos += 1;
        match tok {
            Tok::Int(v) => Ok(Node::Int(v)),
            Tok::Real(v) => Ok(Node::Real(v, col)),
            Tok::Name(name) => {
                if self.eat('(').is_none() {
                    return Ok(Node::Var(name, col));
                }
                let mut args = vec![self.sum()?];
                while self.eat(',').is_some() {
                    args.push(self.sum()?);
                }
                if self.eat(')').is_none() {
                    let c = self.peek().map_or(self.end_column(), |(_, c)| *c);
                    return fail(c, "expected `)` after the arguments");
                }
                if name != "min" && name != "max" {
                    return fail(col, format!("unknown function `{name}` (min, max)"));
                }
                Ok(Node::Call(name, args, col))
            }
            Tok::Sym('(') => {
                let inner = self.sum()?;
                if self.eat(')').is_none() {
                    let c = self.peek().map_or(self.end_column(), |(_, c)| *c);
                    return fail(c, "expected `)`");
                }
                Ok(inner)
            }
            other => fail(col, format!("unexpected {other}")),
        }
    }
}

fn eval_int(n: &Node, var: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    match n {
        Node::Int(v) => Ok(*v),
        Node::Real(v, col) => fail(*col, format!("`{v}` is not an integer")),
        Node::Var(name, col) => match var(name) {
            Some(v) => Ok(v),
            None => fail(*col, format!("unknown integer name `{name}`")),
        },
        Node::Neg(a, col) => match eval_int(a, var)?.checked_neg() {
            Some(v) => Ok(v),
            None => fail(*col, "integer overflow"),
        },
        Node::Bin(op, a, b, col) => {
            let (a, b) = (eval_int(a, var)?, eval_int(b, var)?);
            if matches!(op, Op::Div | Op::Rem) && b == 0 {
                return fail(*col, "division by zero");
            }
            let r = match op {
                Op::Add => a.checked_add(b),
                Op::Sub => a.checked_sub(b),
                Op::Mul => a.checked_mul(b),
                Op::Div => a.checked_div(b),
                Op::Rem => a.checked_rem(b),
            };
            r.map_or_else(|| fail(*col, "integer overflow"), Ok)
        }
        Node::Call(name, args, _) => {
            let vals = args
                .iter()
                .map(|a| eval_int(a, var))
                .collect::<Result<Vec<_>, _>>()?;
            let folded = if name == "min" {
                vals.into_iter().min()
            } else {
                vals.into_iter().max()
            };
            // The parser guarantees at least one argument.
            Ok(folded.unwrap_or(0))
        }
    }
}

fn eval_f64(n: &Node, var: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
    match n {
        Node::Int(v) => Ok(*v as f64),
        Node::Real(v, _) => Ok(*v),
        Node::Var(name, col) => match var(name) {
            Some(v) => Ok(v),
            None => fail(*col, format!("unknown name `{name}`")),
        },
        Node::Neg(a, _) => Ok(-eval_f64(a, var)?),
        Node::Bin(op, a, b, col) => {
            let (a, b) = (eval_f64(a, var)?, eval_f64(b, var)?);
            if matches!(op, Op::Div | Op::Rem) && b == 0.0 {
                return fail(*col, "division by zero");
            }
            Ok(match op {
                Op::Add => a + b,
                Op::Sub => a - b,
                Op::Mul => a * b,
                Op::Div => a / b,
                Op::Rem => a % b,
            })
        }
        Node::Call(name, args, _) => {
            let vals = args
                .iter()
                .map(|a| eval_f64(a, var))
                .collect::<Result<Vec<_>, _>>()?;
            let pick: fn(f64, f64) -> f64 = if name == "min" { f64::min } else { f64::max };
            Ok(vals.into_iter().reduce(pick).unwrap_or(0.0))
        }
    }
}
