//! The recursive-descent parser: Python's precedence, from `or` down to
//! `**` and atoms; the arithmetic dialect enters at the sum.

use super::Dialect;
use super::Value;
use super::lex::Tok;
use crate::ExprError;
use crate::expr_error::fail;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Func {
    Min,
    Max,
    Abs,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Lit(Value),
    Real(f64, usize),
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

pub(super) struct Parser<'d> {
    tokens: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
    /// Column just past the text, for "ends too early".
    end: usize,
    dialect: &'d Dialect,
}

impl<'d> Parser<'d> {
    pub(super) fn new(tokens: Vec<(Tok, usize)>, end: usize, dialect: &'d Dialect) -> Self {
        Parser {
            tokens,
            pos: 0,
            depth: 0,
            end,
            dialect,
        }
    }

    pub(super) fn peek(&self) -> Option<&(Tok, usize)> {
        self.tokens.get(self.pos)
    }

    fn here(&self) -> usize {
        self.peek().map_or(self.end, |(_, c)| *c)
    }

    /// Consumes the next token when it is one of `spellings` (symbols, or
    /// keywords where the dialect has logic), returning its column.
    fn eat(&mut self, spellings: &[&str]) -> Option<usize> {
        let hit = match self.peek() {
            Some((Tok::Sym(s), col)) if spellings.contains(s) => Some(*col),
            Some((Tok::Name(n), col)) if self.dialect.logic && spellings.contains(&n.as_str()) => {
                Some(*col)
            }
            _ => None,
        };
        if hit.is_some() {
            self.pos += 1;
        }
        hit
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > self.dialect.max_depth {
            return fail(
                self.here(),
                format!("nested deeper than {} levels", self.dialect.max_depth),
            );
        }
        Ok(())
    }

    /// A whole (sub)expression of the dialect, counted against the nesting limit.
    pub(super) fn top(&mut self) -> Result<Node, ExprError> {
        self.enter()?;
        let result = if self.dialect.logic {
            self.or()
        } else {
            self.sum()
        };
        self.depth -= 1;
        result
    }

    fn or(&mut self) -> Result<Node, ExprError> {
        let mut left = self.and()?;
        while let Some(col) = self.eat(&["||", "or"]) {
            let right = self.and()?;
            left = Node::Or(Box::new(left), Box::new(right), col);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Node, ExprError> {
        let mut left = self.not()?;
        while let Some(col) = self.eat(&["&&", "and"]) {
            let right = self.not()?;
            left = Node::And(Box::new(left), Box::new(right), col);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Node, ExprError> {
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

    fn comparison(&mut self) -> Result<Node, ExprError> {
        let first = self.sum()?;
        let mut rest = Vec::new();
        let ops = [
            ("<", Cmp::Lt),
            ("<=", Cmp::Le),
            (">", Cmp::Gt),
            (">=", Cmp::Ge),
            ("==", Cmp::Eq),
            ("!=", Cmp::Ne),
        ];
        while let Some((op, col)) = ops
            .iter()
            .find_map(|(s, op)| self.eat(&[s]).map(|c| (*op, c)))
        {
            rest.push((op, self.sum()?, col));
        }
        if rest.is_empty() {
            Ok(first)
        } else {
            Ok(Node::Compare(Box::new(first), rest))
        }
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
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

    fn product(&mut self) -> Result<Node, ExprError> {
        let mut left = self.unary()?;
        let ops = [
            ("*", Arith::Mul),
            ("/", Arith::Div),
            ("//", Arith::FloorDiv),
            ("%", Arith::Rem),
        ];
        while let Some((op, col)) = ops
            .iter()
            .find_map(|(s, op)| self.eat(&[s]).map(|c| (*op, c)))
        {
            let right = self.unary()?;
            left = Node::Arith(op, Box::new(left), Box::new(right), col);
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        // Signs are counted, not recursed into, so "------1" cannot overflow.
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
    fn power(&mut self) -> Result<Node, ExprError> {
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

    fn atom(&mut self) -> Result<Node, ExprError> {
        let Some((tok, col)) = self.tokens.get(self.pos).cloned() else {
            return fail(self.end, format!("{} ends too early", self.dialect.noun));
        };
        self.pos += 1;
        let logic = self.dialect.logic;
        match tok {
            Tok::Int(v) => Ok(Node::Lit(Value::Int(v))),
            Tok::Real(v) => Ok(Node::Real(v, col)),
            Tok::Str(s) => Ok(Node::Lit(Value::Str(s))),
            Tok::Name(name) => match name.as_str() {
                "True" | "true" if logic => Ok(Node::Lit(Value::Bool(true))),
                "False" | "false" if logic => Ok(Node::Lit(Value::Bool(false))),
                "and" | "or" | "not" if logic => fail(col, format!("unexpected `{name}`")),
                _ if self.eat(&["("]).is_some() => self.call(name, col),
                _ => Ok(Node::Var(name, col)),
            },
            Tok::Sym("(") => {
                let inner = self.top()?;
                if self.eat(&[")"]).is_none() {
                    return fail(self.here(), "unclosed `(`: expected `)`");
                }
                Ok(inner)
            }
            other => fail(col, format!("unexpected {other}")),
        }
    }

    fn call(&mut self, name: String, col: usize) -> Result<Node, ExprError> {
        let known = self.dialect.functions;
        let func = match name.as_str() {
            "min" if known.contains(&"min") => Func::Min,
            "max" if known.contains(&"max") => Func::Max,
            "abs" if known.contains(&"abs") => Func::Abs,
            _ => {
                let hint = if known.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", known.join(", "))
                };
                return fail(col, format!("unknown function `{name}`{hint}"));
            }
        };
        let mut args = vec![self.top()?];
        while self.eat(&[","]).is_some() {
            args.push(self.top()?);
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

/// The names `root` reads with the column of their first use, in that order.
pub(super) fn variables(root: &Node) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for n in nodes(root) {
        if let Node::Var(v, c) = n
            && !out.iter().any(|(name, _)| name == v)
        {
            out.push((v.clone(), *c));
        }
    }
    out.sort_by_key(|(_, c)| *c);
    out
}

/// Every node with its depth, left to right, without recursion.
fn nodes_with_depth(root: &Node) -> Vec<(&Node, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 1usize)];
    while let Some((n, d)) = stack.pop() {
        out.push((n, d));
        match n {
            Node::Lit(_) | Node::Real(..) | Node::Var(..) => {}
            Node::Neg(a, ..) | Node::Not(a, ..) => stack.push((a, d + 1)),
            Node::Arith(_, a, b, _) | Node::And(a, b, _) | Node::Or(a, b, _) => {
                stack.push((b, d + 1));
                stack.push((a, d + 1));
            }
            Node::Compare(first, rest) => {
                stack.extend(rest.iter().rev().map(|(_, n, _)| (n, d + 1)));
                stack.push((first, d + 1));
            }
            Node::Call(_, args, _) => stack.extend(args.iter().rev().map(|n| (n, d + 1))),
        }
    }
    out
}

fn nodes(root: &Node) -> impl Iterator<Item = &Node> {
    nodes_with_depth(root).into_iter().map(|(n, _)| n)
}

/// Depth of the tree, computed without recursion.
pub(super) fn tree_depth(root: &Node) -> usize {
    nodes_with_depth(root)
        .into_iter()
        .map(|(_, d)| d)
        .max()
        .unwrap_or(0)
}
