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
//! Errors carry the 1-based column (in characters) of the offending token.
//! Input that nests deeper than [`MAX_DEPTH`] or runs longer than
//! [`MAX_TOKENS`] tokens is an error, never a stack overflow.

use std::fmt;

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
use syntax::expr_error::fail;

/// A value during evaluation.
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

impl From<&ParamValue> for Value {
    fn from(v: &ParamValue) -> Value {
        match v {
            ParamValue::Int(i) => Value::Int(*i),
            ParamValue::Str(s) => Value::Str(s.clone()),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Lit(Value),
    Var(String, usize),
    /// `count` signs in a row (counted, so "------1" stays one node).
    Neg(Box<Node>, usize, usize),
    /// `count` negations in a row.
    Not(Box<Node>, usize, usize),
    Arith(Arith, Box<Node>, Box<Node>, usize),
    /// `a op1 b op2 c ...`: every adjacent pair must hold.
    Compare(Box<Node>, Vec<(Cmp, Node, usize)>),
    And(Box<Node>, Box<Node>, usize),
    Or(Box<Node>, Box<Node>, usize),
    Call(Func, Vec<Node>, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    Min,
    Max,
    Abs,
}

/// A parsed constraint, with its text kept for messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    text: String,
    node: Node,
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Constraint {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        let tokens = tokenize(text)?;
        if tokens.len() > MAX_TOKENS {
            return fail(1, format!("longer than {MAX_TOKENS} tokens"));
        }
        let mut p = Parser {
            tokens,
            pos: 0,
            depth: 0,
            end: text.chars().count() + 1,
        };
        if p.tokens.is_empty() {
            return fail(1, "empty constraint");
        }
        let node = p.or()?;
        if let Some((t, col)) = p.peek() {
            return fail(*col, format!("unexpected {t}"));
        }
        if tree_depth(&node) > MAX_TREE_DEPTH {
            return fail(
                1,
                format!("more than {MAX_TREE_DEPTH} nested operations; split the constraint"),
            );
        }
        Ok(Constraint {
            text: text.to_string(),
            node,
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names it reads with the column of their first use, in that order.
    pub fn variables(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        let mut stack = vec![&self.node];
        // Explicit stack, visiting children left to right.
        while let Some(n) = stack.pop() {
            match n {
                Node::Lit(_) => {}
                Node::Var(v, c) => {
                    if !out.iter().any(|(name, _)| name == v) {
                        out.push((v.clone(), *c));
                    }
                }
                Node::Neg(a, ..) | Node::Not(a, ..) => stack.push(a),
                Node::Arith(_, a, b, _) | Node::And(a, b, _) | Node::Or(a, b, _) => {
                    stack.push(b);
                    stack.push(a);
                }
                Node::Compare(first, rest) => {
                    for (_, n, _) in rest.iter().rev() {
                        stack.push(n);
                    }
                    stack.push(first);
                }
                Node::Call(_, args, _) => stack.extend(args.iter().rev()),
            }
        }
        out.sort_by_key(|(_, c)| *c);
        out
    }

    /// Evaluates to a value; `var` gives each name's value.
    pub fn eval_value(
        &self,
        var: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Value, ConstraintError> {
        eval(&self.node, var)
    }

    /// Evaluates as a condition: a boolean, or an integer (true when non-zero).
    pub fn eval(&self, var: &dyn Fn(&str) -> Option<Value>) -> Result<bool, ConstraintError> {
        truth(eval(&self.node, var)?, 1)
    }

    /// Evaluates over (name, value) pairs, as a configuration holds them.
    pub fn eval_params(&self, params: &[(&str, &ParamValue)]) -> Result<bool, ConstraintError> {
        self.eval(&|name| {
            params
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| Value::from(*v))
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Str(String),
    Name(String),
    /// Operators and punctuation, spelled as in the source.
    Sym(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Str(s) => write!(f, "string '{s}'"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Sym(s) => write!(f, "`{s}`"),
        }
    }
}

/// Longest first, so `<=` is not read as `<` then `=`.
const SYMBOLS: [&str; 20] = [
    "**", "//", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!", "(",
    ")", ",", "=",
];

fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, ConstraintError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            if chars.get(i) == Some(&'.') {
                return fail(i + 1, "only integers are supported");
            }
            match s.parse::<i64>() {
                Ok(v) => out.push((Tok::Int(v), col)),
                Err(_) if s.chars().all(|c| c.is_ascii_digit()) => {
                    return fail(col, format!("integer `{s}` is too large"));
                }
                Err(_) => return fail(col, format!("bad number `{s}`")),
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Name(chars[start..i].iter().collect()), col));
        } else if c == '\'' || c == '"' {
            let start = i + 1;
            let Some(len) = chars[start..].iter().position(|x| *x == c) else {
                return fail(col, "string is not closed");
            };
            out.push((Tok::Str(chars[start..start + len].iter().collect()), col));
            i = start + len + 1;
        } else if let Some(sym) = SYMBOLS.iter().find(|s| {
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

struct Parser {
    tokens: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
    /// Column just past the text, for "ends too early".
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&(Tok, usize)> {
        self.tokens.get(self.pos)
    }

    fn here(&self) -> usize {
        self.peek().map_or(self.end, |(_, c)| *c)
    }

    /// Consumes the next token when it is one of `spellings` (symbols or
    /// keywords), returning its column.
    fn eat(&mut self, spellings: &[&str]) -> Option<usize> {
        let hit = match self.peek() {
            Some((Tok::Sym(s), col)) if spellings.contains(s) => Some(*col),
            Some((Tok::Name(n), col)) if spellings.contains(&n.as_str()) => Some(*col),
            _ => None,
        };
        if hit.is_some() {
            self.pos += 1;
        }
        hit
    }

    fn enter(&mut self) -> Result<(), ConstraintError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return fail(
                self.here(),
                format!("nested deeper than {MAX_DEPTH} levels"),
            );
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Node, ConstraintError> {
        self.enter()?;
        let result = self.or_inner();
        self.depth -= 1;
        result
    }

    fn or_inner(&mut self) -> Result<Node, ConstraintError> {
        let mut left = self.and()?;
        while let Some(col) = self.eat(&["||", "or"]) {
            let right = self.and()?;
            left = Node::Or(Box::new(left), Box::new(right), col);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Node, ConstraintError> {
        let mut left = self.not()?;
        while let Some(col) = self.eat(&["&&", "and"]) {
            let right = self.not()?;
            left = Node::And(Box::new(left), Box::new(right), col);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Node, ConstraintError> {
        // Counted, not recursed into, so "not not not ..." cannot overflow.
        let mut nots = Vec::new();
        while let Some(col) = self.eat(&["!", "not"]) {
            nots.push(col);
        }
        let node = self.comparison()?;
        Ok(match nots.first() {
            None => node,
            Some(col) => Node::Not(Box::new(node), *col, nots.len()),
        })
    }

    fn comparison(&mut self) -> Result<Node, ConstraintError> {
        let first = self.sum()?;
        let mut rest = Vec::new();
        loop {
            let ops = [
                ("<", Cmp::Lt),
                ("<=", Cmp::Le),
                (">", Cmp::Gt),
                (">=", Cmp::Ge),
                ("==", Cmp::Eq),
                ("!=", Cmp::Ne),
            ];
            let Some((op, col)) = ops
                .iter()
                .find_map(|(s, op)| self.eat(&[s]).map(|c| (*op, c)))
            else {
                break;
            };
            rest.push((op, self.sum()?, col));
        }
        if rest.is_empty() {
            Ok(first)
        } else {
            Ok(Node::Compare(Box::new(first), rest))
        }
    }

    fn sum(&mut self) -> Result<Node, ConstraintError> {
        let mut left = self.product()?;
        loop {
            let (op, col) = if let Some(c) = self.eat(&["+"]) {
                (Arith::Add, c)
            } else if let Some(c) = self.eat(&["-"]) {
                (Arith::Sub, c)
            } else {
                return Ok(left);
            };
            let right = self.product()?;
            left = Node::Arith(op, Box::new(left), Box::new(right), col);
        }
    }

    fn product(&mut self) -> Result<Node, ConstraintError> {
        let mut left = self.unary()?;
        loop {
            let ops = [
                ("*", Arith::Mul),
                ("/", Arith::Div),
                ("//", Arith::FloorDiv),
                ("%", Arith::Rem),
            ];
            let Some((op, col)) = ops
                .iter()
                .find_map(|(s, op)| self.eat(&[s]).map(|c| (*op, c)))
            else {
                return Ok(left);
            };
            let right = self.unary()?;
            left = Node::Arith(op, Box::new(left), Box::new(right), col);
        }
    }

    fn unary(&mut self) -> Result<Node, ConstraintError> {
        let mut negations = Vec::new();
        loop {
            if let Some(col) = self.eat(&["-"]) {
                negations.push(col);
            } else if self.eat(&["+"]).is_none() {
                break;
            }
        }
        let node = self.power()?;
        Ok(match negations.first() {
            None => node,
            Some(col) => Node::Neg(Box::new(node), *col, negations.len()),
        })
    }

    /// `a ** b`, right-associative, binding tighter than a unary minus on its
    /// left (Python: `-2**2 == -4`).
    fn power(&mut self) -> Result<Node, ConstraintError> {
        let base = self.atom()?;
        let Some(col) = self.eat(&["**"]) else {
            return Ok(base);
        };
        self.enter()?;
        let exponent = self.unary();
        self.depth -= 1;
        Ok(Node::Arith(
            Arith::Pow,
            Box::new(base),
            Box::new(exponent?),
            col,
        ))
    }

    fn atom(&mut self) -> Result<Node, ConstraintError> {
        let Some((tok, col)) = self.tokens.get(self.pos).cloned() else {
            return fail(self.end, "constraint ends too early");
        };
        self.pos += 1;
        match tok {
            Tok::Int(v) => Ok(Node::Lit(Value::Int(v))),
            Tok::Str(s) => Ok(Node::Lit(Value::Str(s))),
            Tok::Name(name) => match name.as_str() {
                "True" | "true" => Ok(Node::Lit(Value::Bool(true))),
                "False" | "false" => Ok(Node::Lit(Value::Bool(false))),
                "and" | "or" | "not" => fail(col, format!("unexpected `{name}`")),
                _ if self.eat(&["("]).is_some() => self.call(name, col),
                _ => Ok(Node::Var(name, col)),
            },
            Tok::Sym("(") => {
                let inner = self.or()?;
                if self.eat(&[")"]).is_none() {
                    return fail(self.here(), "expected `)`");
                }
                Ok(inner)
            }
            other => fail(col, format!("unexpected {other}")),
        }
    }

    fn call(&mut self, name: String, col: usize) -> Result<Node, ConstraintError> {
        let func = match name.as_str() {
            "min" => Func::Min,
            "max" => Func::Max,
            "abs" => Func::Abs,
            _ => return fail(col, format!("unknown function `{name}` (min, max, abs)")),
        };
        let mut args = vec![self.or()?];
        while self.eat(&[","]).is_some() {
            args.push(self.or()?);
        }
        if self.eat(&[")"]).is_none() {
            return fail(self.here(), "expected `)` after the arguments");
        }
        if func == Func::Abs && args.len() != 1 {
            return fail(col, "abs takes one argument");
        }
        Ok(Node::Call(func, args, col))
    }
}

fn truth(v: Value, col: usize) -> Result<bool, ConstraintError> {
    match v {
        Value::Bool(b) => Ok(b),
        Value::Int(i) => Ok(i != 0),
        Value::Str(s) => fail(col, format!("string '{s}' is not a condition")),
    }
}

fn int(v: Value, col: usize) -> Result<i64, ConstraintError> {
    match v {
        Value::Int(i) => Ok(i),
        other => fail(col, format!("expected an integer, found {}", other.kind())),
    }
}

/// The column where a node starts, for messages about an operand.
fn column(n: &Node) -> usize {
    match n {
        Node::Lit(_) => 0,
        Node::Var(_, c) | Node::Neg(_, c, _) | Node::Not(_, c, _) | Node::Call(_, _, c) => *c,
        Node::Arith(_, a, _, c) | Node::And(a, _, c) | Node::Or(a, _, c) => {
            let inner = column(a);
            if inner == 0 { *c } else { inner }
        }
        Node::Compare(a, rest) => {
            let inner = column(a);
            if inner == 0 {
                rest.first().map_or(0, |(_, _, c)| *c)
            } else {
                inner
            }
        }
    }
}

fn arith(op: Arith, a: i64, b: i64, col: usize) -> Result<i64, ConstraintError> {
    if matches!(op, Arith::Div | Arith::FloorDiv | Arith::Rem) && b == 0 {
        return fail(col, "division by zero");
    }
    let r = match op {
        Arith::Add => a.checked_add(b),
        Arith::Sub => a.checked_sub(b),
        Arith::Mul => a.checked_mul(b),
        Arith::Div => a.checked_div(b),
        Arith::FloorDiv => a.checked_div(b).map(|q| {
            // Round toward negative infinity when the signs differ and the
            // division is inexact; cannot overflow once checked_div passed.
            if (a % b != 0) && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }),
        Arith::Rem => a.checked_rem(b),
        Arith::Pow => {
            if b < 0 {
                return fail(col, "negative exponent");
            }
            u32::try_from(b).ok().and_then(|e| a.checked_pow(e))
        }
    };
    r.map_or_else(|| fail(col, "integer overflow"), Ok)
}

fn compare(op: Cmp, a: &Value, b: &Value, col: usize) -> Result<bool, ConstraintError> {
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) if matches!(op, Cmp::Eq | Cmp::Ne) => x.cmp(y),
        _ => {
            return fail(
                col,
                format!("cannot compare {} with {}", a.kind(), b.kind()),
            );
        }
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    Ok(match op {
        Cmp::Lt => ord == Less,
        Cmp::Le => ord != Greater,
        Cmp::Gt => ord == Greater,
        Cmp::Ge => ord != Less,
        Cmp::Eq => ord == Equal,
        Cmp::Ne => ord != Equal,
    })
}

fn eval(n: &Node, var: &dyn Fn(&str) -> Option<Value>) -> Result<Value, ConstraintError> {
    match n {
        Node::Lit(v) => Ok(v.clone()),
        Node::Var(name, col) => {
            var(name).map_or_else(|| fail(*col, format!("unknown name `{name}`")), Ok)
        }
        Node::Neg(a, col, count) => {
            let v = int(eval(a, var)?, *col)?;
            if count % 2 == 0 {
                return Ok(Value::Int(v));
            }
            v.checked_neg()
                .map(Value::Int)
                .map_or_else(|| fail(*col, "integer overflow"), Ok)
        }
        Node::Not(a, col, count) => {
            let t = truth(eval(a, var)?, *col)?;
            Ok(Value::Bool(if count % 2 == 1 { !t } else { t }))
        }
        Node::Arith(op, a, b, col) => {
            let x = int(eval(a, var)?, *col)?;
            let y = int(eval(b, var)?, *col)?;
            arith(*op, x, y, *col).map(Value::Int)
        }
        Node::Compare(first, rest) => {
            let mut left = eval(first, var)?;
            for (op, node, col) in rest {
                let right = eval(node, var)?;
                if !compare(*op, &left, &right, *col)? {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Ok(Value::Bool(true))
        }
        Node::And(a, b, col) => {
            if !truth(eval(a, var)?, *col)? {
                return Ok(Value::Bool(false));
            }
            Ok(Value::Bool(truth(eval(b, var)?, *col)?))
        }
        Node::Or(a, b, col) => {
            if truth(eval(a, var)?, *col)? {
                return Ok(Value::Bool(true));
            }
            Ok(Value::Bool(truth(eval(b, var)?, *col)?))
        }
        Node::Call(func, args, col) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                let c = match column(a) {
                    0 => *col,
                    c => c,
                };
                vals.push(int(eval(a, var)?, c)?);
            }
            let r = match func {
                Func::Min => vals.into_iter().min(),
                Func::Max => vals.into_iter().max(),
                Func::Abs => vals.first().and_then(|v| v.checked_abs()),
            };
            r.map(Value::Int)
                .map_or_else(|| fail(*col, "integer overflow"), Ok)
        }
    }
}

/// Depth of the tree, computed without recursion.
fn tree_depth(root: &Node) -> usize {
    let mut max = 0;
    let mut stack = vec![(root, 1usize)];
    while let Some((n, d)) = stack.pop() {
        max = max.max(d);
        match n {
            Node::Lit(_) | Node::Var(..) => {}
            Node::Neg(a, ..) | Node::Not(a, ..) => stack.push((a, d + 1)),
            Node::Arith(_, a, b, _) | Node::And(a, b, _) | Node::Or(a, b, _) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            Node::Compare(a, rest) => {
                stack.push((a, d + 1));
                stack.extend(rest.iter().map(|(_, n, _)| (n, d + 1)));
            }
            Node::Call(_, args, _) => stack.extend(args.iter().map(|n| (n, d + 1))),
        }
    }
    max
}
