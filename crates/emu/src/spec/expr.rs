//! Integer expressions over `defines`: `+ - * / %`, unary minus, parentheses,
//! decimal and `0x` hexadecimal literals, and identifiers naming defines.
//!
//! Used wherever a launch spec allows a number (`len = "N*N"`). Arithmetic is
//! checked `i64`: overflow and division by zero are errors, never wraps.

/// Why an expression failed, with the byte offset inside the expression text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

/// Evaluate `text`, looking identifiers up with `lookup` (None: unknown name).
pub fn eval(text: &str, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        lookup,
        depth: 0,
    };
    p.skip_ws();
    if p.pos >= p.bytes.len() {
        return Err(p.error(0, "empty expression"));
    }
    let value = p.sum()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error(p.pos, &format!("unexpected `{}`", p.rest_char())));
    }
    Ok(value)
}

/// Nesting limit for parentheses and unary minus, so hostile input cannot
/// overflow the host stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    lookup: &'a dyn Fn(&str) -> Option<i64>,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, offset: usize, message: &str) -> ExprError {
        ExprError {
            offset,
            message: message.to_string(),
        }
    }

    fn rest_char(&self) -> char {
        self.text
            .get(self.pos..)
            .and_then(|s| s.chars().next())
            .unwrap_or(' ')
    }

    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    fn sum(&mut self) -> Result<i64, ExprError> {
        let mut acc = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let rhs = self.product()?;
            let r = if op == b'+' {
                acc.checked_add(rhs)
            } else {
                acc.checked_sub(rhs)
            };
            acc = r.ok_or_else(|| self.error(at, "integer overflow"))?;
        }
        Ok(acc)
    }

    fn product(&mut self) -> Result<i64, ExprError> {
        let mut acc = self.unary()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let rhs = self.unary()?;
            if op != b'*' && rhs == 0 {
                return Err(self.error(at, "division by zero"));
            }
            let r = match op {
                b'*' => acc.checked_mul(rhs),
                b'/' => acc.checked_div(rhs),
                _ => acc.checked_rem(rhs),
            };
            acc = r.ok_or_else(|| self.error(at, "integer overflow"))?;
        }
        Ok(acc)
    }

    fn unary(&mut self) -> Result<i64, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(self.pos, "expression nested too deeply"));
        }
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> Result<i64, ExprError> {
        match self.peek() {
            Some(b'-') => {
                let at = self.pos;
                self.pos += 1;
                let v = self.unary()?;
                v.checked_neg()
                    .ok_or_else(|| self.error(at, "integer overflow"))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            Some(b'(') => {
                let open = self.pos;
                self.pos += 1;
                let v = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err(self.error(open, "unclosed `(`"));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => self.identifier(),
            Some(_) => Err(self.error(self.pos, &format!("unexpected `{}`", self.rest_char()))),
            None => Err(self.error(self.pos, "expression ends too early")),
        }
    }

    fn number(&mut self) -> Result<i64, ExprError> {
        let start = self.pos;
        let (radix, digits_start) =
            if self.bytes[start..].starts_with(b"0x") || self.bytes[start..].starts_with(b"0X") {
                (16, start + 2)
            } else {
                (10, start)
            };
        let mut end = digits_start;
        while end < self.bytes.len()
            && (self.bytes[end].is_ascii_alphanumeric() || self.bytes[end] == b'_')
        {
            end += 1;
        }
        let digits: String = self.text[digits_start..end]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        self.pos = end;
        i64::from_str_radix(&digits, radix).map_err(|_| {
            self.error(
                start,
                &format!("`{}` is not an integer", &self.text[start..end]),
            )
        })
    }

    fn identifier(&mut self) -> Result<i64, ExprError> {
        let start = self.pos;
        while self.pos < self.bytes.len()
            && (self.bytes[self.pos].is_ascii_alphanumeric() || self.bytes[self.pos] == b'_')
        {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        (self.lookup)(name).ok_or_else(|| self.error(start, &format!("unknown define `{name}`")))
    }
}
