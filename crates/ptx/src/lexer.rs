//! The lexer: PTX text to tokens. It never fails: a malformed token becomes a
//! [`TokenKind::Error`] carrying its message, and the parser reports it.
//! Comments and whitespace are skipped. Linear in the input length.

use crate::ir::Span;

/// What a token is; its text is `&source[span]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier, register or special-register stem: `foo`, `%r1`, `$L__BB0_1`, `%tid`.
    Ident,
    /// `.word` (directives, modifiers, types): `.reg`, `.f32`, `.shared::cta`, `.L2::128B`, `.x4`.
    DotWord,
    /// An integer literal (decimal, `0x` hex, `0b` binary, octal, optional `U` suffix).
    Int,
    /// `0fXXXXXXXX` (f32 bits).
    HexF32,
    /// `0dXXXXXXXXXXXXXXXX` (f64 bits).
    HexF64,
    /// A decimal float `1.5`, `2e10`.
    Float,
    /// `"..."`.
    Str,
    Comma,
    Semi,
    Colon,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Plus,
    Minus,
    Bang,
    At,
    Pipe,
    Lt,
    Gt,
    Eq,
    /// `_`: the sink.
    Underscore,
    /// A malformed token; the message says why.
    Error(LexError),
    Eof,
}

/// Why a token is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexError {
    UnexpectedChar,
    UnterminatedString,
    UnterminatedComment,
    BadNumber,
    BadHexFloat,
}

impl LexError {
    pub fn message(self) -> &'static str {
        match self {
            LexError::UnexpectedChar => "unexpected character",
            LexError::UnterminatedString => "unterminated string literal",
            LexError::UnterminatedComment => "unterminated block comment",
            LexError::BadNumber => "malformed number",
            LexError::BadHexFloat => {
                "malformed hexadecimal float literal (expected 0f + 8 or 0d + 16 hex digits)"
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

fn is_follow(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Splits `src` into tokens, ending with one [`TokenKind::Eof`].
pub fn tokenize(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4 + 1);
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            match src[i + 2..].find("*/") {
                Some(p) => i = i + 2 + p + 2,
                None => {
                    out.push(Token {
                        kind: TokenKind::Error(LexError::UnterminatedComment),
                        span: Span::new(i, i + 2),
                    });
                    i = b.len();
                }
            }
            continue;
        }
        let single = match c {
            b',' => Some(TokenKind::Comma),
            b';' => Some(TokenKind::Semi),
            b':' => Some(TokenKind::Colon),
            b'(' => Some(TokenKind::LParen),
            b')' => Some(TokenKind::RParen),
            b'[' => Some(TokenKind::LBracket),
            b']' => Some(TokenKind::RBracket),
            b'{' => Some(TokenKind::LBrace),
            b'}' => Some(TokenKind::RBrace),
            b'+' => Some(TokenKind::Plus),
            b'-' => Some(TokenKind::Minus),
            b'!' => Some(TokenKind::Bang),
            b'@' => Some(TokenKind::At),
            b'|' => Some(TokenKind::Pipe),
            b'<' => Some(TokenKind::Lt),
            b'>' => Some(TokenKind::Gt),
            b'=' => Some(TokenKind::Eq),
            _ => None,
        };
        if let Some(kind) = single {
            i += 1;
            out.push(Token {
                kind,
                span: Span::new(start, i),
            });
            continue;
        }
        let kind = if c == b'"' {
            i += 1;
            loop {
                match b.get(i) {
                    None | Some(b'\n') => break TokenKind::Error(LexError::UnterminatedString),
                    Some(b'\\') => i += 2,
                    Some(b'"') => {
                        i += 1;
                        break TokenKind::Str;
                    }
                    Some(_) => i += 1,
                }
            }
        } else if c == b'.' && b.get(i + 1).is_some_and(|&n| is_follow(n)) {
            i += 1;
            while i < b.len() {
                if is_follow(b[i]) {
                    i += 1;
                } else if b[i] == b':'
                    && b.get(i + 1) == Some(&b':')
                    && b.get(i + 2).is_some_and(|&n| is_follow(n))
                {
                    i += 2;
                } else {
                    break;
                }
            }
            TokenKind::DotWord
        } else if c.is_ascii_digit() {
            lex_number(b, &mut i)
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' {
            i += 1;
            while i < b.len() && is_follow(b[i]) {
                i += 1;
            }
            if c == b'_' && i == start + 1 {
                TokenKind::Underscore
            } else if c == b'%' && i == start + 1 {
                TokenKind::Error(LexError::UnexpectedChar)
            } else {
                TokenKind::Ident
            }
        } else {
            // Skip one whole UTF-8 character so that spans stay on char boundaries.
            i += src[i..].chars().next().map_or(1, char::len_utf8);
            TokenKind::Error(LexError::UnexpectedChar)
        };
        let i_end = i.min(b.len());
        i = i_end;
        out.push(Token {
            kind,
            span: Span::new(start, i_end),
        });
    }
    out.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(b.len(), b.len()),
    });
    out
}

/// Lexes a number starting at `*i` (a digit). Accepts `0f`/`0d` hex floats,
/// `0x`/`0b` integers, decimal and octal integers with `U` suffix, decimal floats.
fn lex_number(b: &[u8], i: &mut usize) -> TokenKind {
    let start = *i;
    let word_end = |mut j: usize| {
        while j < b.len() && (is_follow(b[j])) {
            j += 1;
        }
        j
    };
    if b[start] == b'0' && matches!(b.get(start + 1), Some(b'f' | b'F' | b'd' | b'D')) {
        let end = word_end(start + 2);
        *i = end;
        let digits = &b[start + 2..end];
        let want = if matches!(b[start + 1], b'f' | b'F') {
            8
        } else {
            16
        };
        if digits.len() == want && digits.iter().all(u8::is_ascii_hexdigit) {
            return if want == 8 {
                TokenKind::HexF32
            } else {
                TokenKind::HexF64
            };
        }
        return TokenKind::Error(LexError::BadHexFloat);
    }
    if b[start] == b'0' && matches!(b.get(start + 1), Some(b'x' | b'X' | b'b' | b'B')) {
        let end = word_end(start + 2);
        *i = end;
        let hex = matches!(b[start + 1], b'x' | b'X');
        let mut digits = &b[start + 2..end];
        if let Some(d) = digits.strip_suffix(b"U") {
            digits = d;
        }
        let ok = !digits.is_empty()
            && digits.iter().all(|d| {
                if hex {
                    d.is_ascii_hexdigit()
                } else {
                    *d == b'0' || *d == b'1'
                }
            });
        return if ok {
            TokenKind::Int
        } else {
            TokenKind::Error(LexError::BadNumber)
        };
    }
    let mut j = start;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    let mut is_float = false;
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        is_float = true;
        j += 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if b.get(k).is_some_and(u8::is_ascii_digit) {
            is_float = true;
            j = k;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
    }
    if !is_float && b.get(j) == Some(&b'U') {
        j += 1;
    }
    // Trailing identifier characters glued to a number make it malformed (`12abc`).
    let end = word_end(j);
    *i = end;
    if end != j {
        return TokenKind::Error(LexError::BadNumber);
    }
    if is_float {
        TokenKind::Float
    } else {
        TokenKind::Int
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_instruction() {
        use TokenKind::*;
        assert_eq!(
            kinds("@!%p1 ld.global.nc.v4.f32 {%f1,_}, [%rd1+-4]; // c"),
            vec![
                At, Bang, Ident, Ident, DotWord, DotWord, DotWord, DotWord, LBrace, Ident, Comma,
                Underscore, RBrace, Comma, LBracket, Ident, Plus, Minus, Int, RBracket, Semi, Eof
            ]
        );
    }

    #[test]
    fn lexes_numbers() {
        use TokenKind::*;
        let cases: &[(&str, TokenKind)] = &[
            ("0f3F800000", HexF32),
            ("0d3FF0000000000000", HexF64),
            ("0f3F80", Error(LexError::BadHexFloat)),
            ("0x1fU", Int),
            ("0b101", Int),
            ("0b102", Error(LexError::BadNumber)),
            ("017", Int),
            ("8.8", Float),
            ("1e10", Float),
            ("12abc", Error(LexError::BadNumber)),
            ("4294967295U", Int),
        ];
        for (src, want) in cases {
            assert_eq!(kinds(src)[0], *want, "{src}");
        }
    }

    #[test]
    fn lexes_modifiers_with_colons() {
        let src = "ld.shared::cta.L2::128B.b32";
        let toks = tokenize(src);
        let texts: Vec<&str> = toks.iter().map(|t| &src[t.span.range()]).collect();
        assert_eq!(texts, vec!["ld", ".shared::cta", ".L2::128B", ".b32", ""]);
    }

    #[test]
    fn bad_input_never_panics_and_keeps_boundaries() {
        let src = "é\u{0}\"abc\n/* x";
        for t in tokenize(src) {
            assert!(
                src.is_char_boundary(t.span.start as usize)
                    && src.is_char_boundary(t.span.end as usize)
            );
        }
    }
}
