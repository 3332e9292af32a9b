//! Evaluation of a parsed expression: checked integers (with strings,
//! booleans and logic where the dialect has them), or reals.

use super::Dialect;
use super::Value;
use super::parse::{Arith, Cmp, Func, Node};
use crate::ExprError;
use crate::expr_error::fail;

pub(super) fn truth(v: Value, col: usize) -> Result<bool, ExprError> {
    match v {
        Value::Bool(b) => Ok(b),
        Value::Int(i) => Ok(i != 0),
        Value::Str(s) => fail(col, format!("string '{s}' is not a condition")),
    }
}

pub(super) fn int(v: Value, col: usize) -> Result<i64, ExprError> {
    match v {
        Value::Int(i) => Ok(i),
        other => fail(col, format!("expected an integer, found {}", other.kind())),
    }
}

/// The column where a node starts, for messages about an operand.
fn column(n: &Node) -> usize {
    match n {
        Node::Lit(_) => 0,
        Node::Real(_, c)
        | Node::Var(_, c)
        | Node::Neg(_, c, _)
        | Node::Not(_, c, _)
        | Node::Call(_, _, c) => *c,
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

fn arith(op: Arith, a: i64, b: i64, col: usize) -> Result<i64, ExprError> {
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

fn compare(op: Cmp, a: &Value, b: &Value, col: usize) -> Result<bool, ExprError> {
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

pub(super) fn eval(
    n: &Node,
    var: &dyn Fn(&str) -> Option<Value>,
    d: &Dialect,
) -> Result<Value, ExprError> {
    match n {
        Node::Lit(v) => Ok(v.clone()),
        Node::Real(v, col) => fail(*col, format!("`{v}` is not an integer")),
        Node::Var(name, col) => var(name).map_or_else(
            || fail(*col, format!("unknown {} `{name}`", d.name_noun)),
            Ok,
        ),
        Node::Neg(a, col, count) => {
            let v = int(eval(a, var, d)?, *col)?;
            if count % 2 == 0 {
                return Ok(Value::Int(v));
            }
            v.checked_neg()
                .map(Value::Int)
                .map_or_else(|| fail(*col, "integer overflow"), Ok)
        }
        Node::Not(a, col, count) => {
            let t = truth(eval(a, var, d)?, *col)?;
            Ok(Value::Bool(if count % 2 == 1 { !t } else { t }))
        }
        Node::Arith(op, a, b, col) => {
            let x = int(eval(a, var, d)?, *col)?;
            let y = int(eval(b, var, d)?, *col)?;
            arith(*op, x, y, *col).map(Value::Int)
        }
        Node::Compare(first, rest) => {
            let mut left = eval(first, var, d)?;
            for (op, node, col) in rest {
                let right = eval(node, var, d)?;
                if !compare(*op, &left, &right, *col)? {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Ok(Value::Bool(true))
        }
        Node::And(a, b, col) => {
            if !truth(eval(a, var, d)?, *col)? {
                return Ok(Value::Bool(false));
            }
            Ok(Value::Bool(truth(eval(b, var, d)?, *col)?))
        }
        Node::Or(a, b, col) => {
            if truth(eval(a, var, d)?, *col)? {
                return Ok(Value::Bool(true));
            }
            Ok(Value::Bool(truth(eval(b, var, d)?, *col)?))
        }
        Node::Call(func, args, col) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                let c = match column(a) {
                    0 => *col,
                    c => c,
                };
                vals.push(int(eval(a, var, d)?, c)?);
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

pub(super) fn eval_f64(n: &Node, var: &dyn Fn(&str) -> Option<f64>) -> Result<f64, ExprError> {
    match n {
        Node::Lit(Value::Int(v)) => Ok(*v as f64),
        Node::Real(v, _) => Ok(*v),
        Node::Var(name, col) => {
            var(name).map_or_else(|| fail(*col, format!("unknown name `{name}`")), Ok)
        }
        Node::Neg(a, _, count) => {
            let v = eval_f64(a, var)?;
            Ok(if count % 2 == 0 { v } else { -v })
        }
        Node::Arith(op, a, b, col) => {
            let (a, b) = (eval_f64(a, var)?, eval_f64(b, var)?);
            if matches!(op, Arith::Div | Arith::FloorDiv | Arith::Rem) && b == 0.0 {
                return fail(*col, "division by zero");
            }
            Ok(match op {
                Arith::Add => a + b,
                Arith::Sub => a - b,
                Arith::Mul => a * b,
                Arith::Div => a / b,
                Arith::FloorDiv => (a / b).floor(),
                Arith::Rem => a % b,
                Arith::Pow => a.powf(b),
            })
        }
        Node::Call(func, args, _) => {
            let vals = args
                .iter()
                .map(|a| eval_f64(a, var))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(match func {
                Func::Min => vals.into_iter().reduce(f64::min).unwrap_or(0.0),
                Func::Max => vals.into_iter().reduce(f64::max).unwrap_or(0.0),
                Func::Abs => vals.first().map_or(0.0, |v| v.abs()),
            })
        }
        Node::Lit(_) | Node::Not(..) | Node::Compare(..) | Node::And(..) | Node::Or(..) => {
            fail(column(n).max(1), "not a number")
        }
    }
}
