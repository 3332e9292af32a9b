//! Hand-written recursive-descent parser: tokens to the syntax tree of
//! [`crate::ast`]. On an error it records a diagnostic and recovers at the
//! next `;` (or before the `}` closing the current block), so that every
//! error of a file is reported. Each token is looked at a bounded number of
//! times: linear time.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::ir::{Linkage, SimdSel, Span};
use crate::lexer::{Token, TokenKind as K};

/// The texture and surface instructions, whose operands (`[tex, {x, y}]`)
/// the parser skips: ptxperf does not run them, and the decoder says so.
pub(crate) const TEXTURE_OPCODES: [&str; 7] =
    ["tex", "tld4", "txq", "suld", "sust", "sured", "suq"];

/// Nesting limit of `{ }` blocks and initializer lists (deeper input is an error, not a stack overflow).
const MAX_DEPTH: usize = 64;

pub struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    pub diags: Vec<Diagnostic>,
    depth: usize,
}

/// A parse failure already recorded in `diags`; the caller recovers.
pub struct Fail;

type PResult<T> = Result<T, Fail>;

/// Parses the text of an integer literal (decimal, hex, binary, octal, `U` suffix) into 64 bits.
pub fn parse_int(text: &str) -> Option<u64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, toks: Vec<Token>) -> Self {
        Parser {
            src,
            toks,
            pos: 0,
            diags: Vec::new(),
            depth: 0,
        }
    }

    fn peek(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, n: usize) -> Token {
        self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    fn text(&self, t: Token) -> &'a str {
        &self.src[t.span.range()]
    }

    fn word(&self, t: Token) -> Word<'a> {
        Word {
            text: self.text(t),
            span: t.span,
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn at(&self, k: K) -> bool {
        self.peek().kind == k
    }

    fn eat(&mut self, k: K) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            K::Eof => "end of file".to_string(),
            K::Error(e) => format!("{} `{}`", e.message(), self.text(t)),
            _ => format!("`{}`", self.text(t)),
        }
    }

    /// Records "expected X, found Y" at the current token.
    fn expected<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.peek();
        let msg = match t.kind {
            K::Error(e) => format!("{}: `{}`", e.message(), self.text(t)),
            _ => format!("expected {what}, found {}", self.describe(t)),
        };
        self.diags.push(Diagnostic::error(t.span, msg));
        Err(Fail)
    }

    fn expect(&mut self, k: K, what: &str) -> PResult<Token> {
        if self.at(k) {
            Ok(self.bump())
        } else {
            self.expected(what)
        }
    }

    fn is_dot(&self, t: Token, s: &str) -> bool {
        t.kind == K::DotWord && &self.text(t)[1..] == s
    }

    fn expect_u64(&mut self) -> PResult<(u64, Span)> {
        let t = self.peek();
        if t.kind == K::Int {
            self.bump();
            match parse_int(self.text(t)) {
                Some(v) => Ok((v, t.span)),
                None => {
                    self.diags.push(Diagnostic::error(
                        t.span,
                        format!("integer literal `{}` is out of range", self.text(t)),
                    ));
                    Err(Fail)
                }
            }
        } else {
            self.expected("an integer")
        }
    }

    fn expect_u32(&mut self) -> PResult<u32> {
        let (v, span) = self.expect_u64()?;
        u32::try_from(v).map_err(|_| {
            self.diags.push(Diagnostic::error(
                span,
                format!("value {v} does not fit in 32 bits"),
            ));
            Fail
        })
    }

    fn expect_string(&mut self) -> PResult<String> {
        let t = self.expect(K::Str, "a string literal")?;
        let s = self.text(t);
        Ok(s[1..s.len() - 1].to_string())
    }

    /// Skips to just past the next `;` at this nesting level, or to (not past)
    /// an unmatched `}` or the end of file.
    fn recover(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.peek().kind {
                K::Eof => return,
                K::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                K::LBrace => depth += 1,
                K::RBrace => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips at module level to the next token that can start a declaration at brace depth 0.
    fn recover_top(&mut self) {
        let mut depth = 0usize;
        loop {
            let t = self.peek();
            match t.kind {
                K::Eof => return,
                K::LBrace => depth += 1,
                K::RBrace => depth = depth.saturating_sub(1),
                K::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                K::DotWord if depth == 0 && is_top_start(&self.text(t)[1..]) => return,
                _ => {}
            }
            self.bump();
        }
    }

    // ---------------------------------------------------------------- module

    pub fn parse_module(&mut self) -> Vec<TopItem<'a>> {
        let mut items = Vec::new();
        while !self.at(K::Eof) {
            let start = self.pos;
            match self.top_item() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Fail) => {
                    self.recover_top();
                    if self.pos == start {
                        self.bump();
                    }
                }
            }
        }
        items
    }

    fn top_item(&mut self) -> PResult<Option<TopItem<'a>>> {
        let t = self.peek();
        if t.kind != K::DotWord {
            if t.kind == K::RBrace {
                self.bump();
                self.diags.push(Diagnostic::error(t.span, "unmatched `}`"));
                return Ok(None);
            }
            return self.expected("a directive");
        }
        let name = &self.text(t)[1..];
        match name {
            "version" => {
                self.bump();
                let v = self.peek();
                let text = self.text(v);
                let parsed = if v.kind == K::Float || v.kind == K::Int {
                    let (a, b) = text.split_once('.').unwrap_or((text, "0"));
                    a.parse().ok().zip(b.parse().ok())
                } else {
                    None
                };
                match parsed {
                    Some((major, minor)) => {
                        self.bump();
                        Ok(Some(TopItem::Version {
                            major,
                            minor,
                            span: t.span.join(v.span),
                        }))
                    }
                    None => self.expected("a version number like 8.8"),
                }
            }
            "target" => {
                self.bump();
                let mut list = Vec::new();
                loop {
                    let w = self.expect(K::Ident, "a target name")?;
                    list.push(self.word(w));
                    if !self.eat(K::Comma) {
                        break;
                    }
                }
                Ok(Some(TopItem::Target(list, t.span)))
            }
            "address_size" => {
                self.bump();
                let v = self.expect_u32()?;
                Ok(Some(TopItem::AddressSize(v, t.span)))
            }
            "file" => {
                self.bump();
                let index = self.expect_u32()?;
                let name = self.expect_string()?;
                let (mut timestamp, mut size) = (None, None);
                if self.eat(K::Comma) {
                    timestamp = Some(self.expect_u64()?.0);
                    if self.eat(K::Comma) {
                        size = Some(self.expect_u64()?.0);
                    }
                }
                Ok(Some(TopItem::File {
                    index,
                    name,
                    timestamp,
                    size,
                    span: t.span,
                }))
            }
            "pragma" => {
                self.bump();
                let s = self.expect_string()?;
                self.expect(K::Semi, "`;`")?;
                Ok(Some(TopItem::Pragma(s, t.span)))
            }
            "section" => {
                self.bump();
                self.section().map(|s| Some(TopItem::Section(s)))
            }
            _ => {
                // Linkage prefix, then a function or a variable.
                let mut linkage = Linkage::Internal;
                let mut k = 0;
                loop {
                    let w = self.peek_at(k);
                    let l = match (w.kind, &self.text(w).get(1..)) {
                        (K::DotWord, Some("visible")) => Linkage::Visible,
                        (K::DotWord, Some("extern")) => Linkage::Extern,
                        (K::DotWord, Some("weak")) => Linkage::Weak,
                        (K::DotWord, Some("common")) => Linkage::Common,
                        _ => break,
                    };
                    linkage = l;
                    k += 1;
                }
                let after = self.peek_at(k);
                if self.is_dot(after, "entry") || self.is_dot(after, "func") {
                    for _ in 0..k {
                        self.bump();
                    }
                    return self.function(linkage).map(|f| Some(TopItem::Func(f)));
                }
                let v = self.var_decl()?;
                Ok(Some(TopItem::Var(v)))
            }
        }
    }

    /// `.section NAME { (label: | .type v, v, ...)* }` (the `.section` word is consumed).
    fn section(&mut self) -> PResult<crate::ir::Section> {
        use crate::ir::{Section, SectionItem, SectionValue, Type};
        let n = self.peek();
        if !matches!(n.kind, K::DotWord | K::Ident) {
            return self.expected("a section name");
        }
        self.bump();
        let mut sec = Section {
            name: self.text(n).to_string(),
            items: Vec::new(),
        };
        self.expect(K::LBrace, "`{`")?;
        loop {
            let t = self.peek();
            match t.kind {
                K::RBrace => {
                    self.bump();
                    return Ok(sec);
                }
                K::Ident if self.peek_at(1).kind == K::Colon => {
                    self.bump();
                    self.bump();
                    sec.items.push(SectionItem::Label(self.text(t).to_string()));
                }
                K::DotWord => {
                    let Some(ty) = Type::from_name(&self.text(t)[1..]) else {
                        return self.expected("a data type in the section");
                    };
                    self.bump();
                    let mut values = Vec::new();
                    loop {
                        let v = self.peek();
                        if v.kind == K::Ident {
                            self.bump();
                            let offset = self.opt_offset()?;
                            values.push(SectionValue::Symbol {
                                name: self.text(v).to_string(),
                                offset,
                            });
                        } else {
                            match self.number()? {
                                (Num::Int(i), _) => values.push(SectionValue::Int(i)),
                                (_, span) => {
                                    self.diags.push(Diagnostic::error(
                                        span,
                                        "section data must be integers or symbols",
                                    ));
                                    return Err(Fail);
                                }
                            }
                        }
                        if !self.eat(K::Comma) {
                            break;
                        }
                    }
                    sec.items.push(SectionItem::Data { ty, values });
                }
                _ => return self.expected("a label, data line or `}` in the section"),
            }
        }
    }

    // ---------------------------------------------------------- declarations

    /// Parses declaration qualifiers until a non-dot word.
    fn decl_head(&mut self) -> DeclHead<'a> {
        let mut h = DeclHead {
            span: self.peek().span,
            ..DeclHead::default()
        };
        while self.at(K::DotWord) {
            let t = self.bump();
            let w = self.word(t);
            h.span = h.span.join(t.span);
            let name = &w.text[1..];
            match name {
                "visible" => h.linkage = Linkage::Visible,
                "extern" => h.linkage = Linkage::Extern,
                "weak" => h.linkage = Linkage::Weak,
                "common" => h.linkage = Linkage::Common,
                "ptr" => h.ptr = Some((None, None, t.span)),
                "align" => {
                    let a = match self.expect_u64() {
                        Ok(a) => a,
                        Err(Fail) => (0, t.span),
                    };
                    match &mut h.ptr {
                        Some((_, al, _)) => *al = Some(a),
                        None => h.align = Some(a),
                    }
                }
                "v2" | "v4" | "v8" => h.vec = Some(w),
                _ if crate::ir::Type::from_name(name).is_some() => h.ty = Some(w),
                _ if crate::ir::StateSpace::from_name(name).is_some() => match &mut h.ptr {
                    Some((sp, _, _)) => *sp = Some(w),
                    None if h.space.is_none() => h.space = Some(w),
                    None => h.unknown.push(w),
                },
                _ => h.unknown.push(w),
            }
        }
        h
    }

    /// `head name[dims] = init, name2, ... ;` (consumes the `;`).
    fn var_decl(&mut self) -> PResult<VarDecl<'a>> {
        let v = self.var_decl_no_semi(true)?;
        self.expect(K::Semi, "`;` after the declaration")?;
        Ok(v)
    }

    /// A declaration without its `;`; `multi` allows `a, b, c` (not in parameter lists).
    fn var_decl_no_semi(&mut self, multi: bool) -> PResult<VarDecl<'a>> {
        let start = self.peek().span;
        let head = self.decl_head();
        let mut names = Vec::new();
        loop {
            names.push(self.declarator()?);
            if !multi || !self.eat(K::Comma) {
                break;
            }
        }
        let span = start.join(self.toks[self.pos.saturating_sub(1)].span);
        Ok(VarDecl { head, names, span })
    }

    fn declarator(&mut self) -> PResult<Declarator<'a>> {
        let t = self.peek();
        if t.kind != K::Ident && t.kind != K::Underscore {
            return self.expected("a name");
        }
        self.bump();
        let mut d = Declarator {
            name: self.word(t),
            range: None,
            dims: Vec::new(),
            init: None,
        };
        if self.eat(K::Lt) {
            d.range = Some(self.expect_u64()?);
            self.expect(K::Gt, "`>`")?;
        }
        while self.at(K::LBracket) {
            let open = self.bump();
            if self.at(K::RBracket) {
                let close = self.bump();
                d.dims.push((None, open.span.join(close.span)));
            } else {
                let (n, _) = self.expect_u64()?;
                let close = self.expect(K::RBracket, "`]`")?;
                d.dims.push((Some(n), open.span.join(close.span)));
            }
        }
        if self.eat(K::Eq) {
            d.init = Some(self.init()?);
        }
        Ok(d)
    }

    fn init(&mut self) -> PResult<Init<'a>> {
        let t = self.peek();
        match t.kind {
            K::LBrace => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    self.depth -= 1;
                    self.diags
                        .push(Diagnostic::error(t.span, "initializer nested too deeply"));
                    return Err(Fail);
                }
                self.bump();
                let mut items = Vec::new();
                if !self.at(K::RBrace) {
                    loop {
                        match self.init() {
                            Ok(i) => items.push(i),
                            Err(Fail) => {
                                self.depth -= 1;
                                return Err(Fail);
                            }
                        }
                        if !self.eat(K::Comma) {
                            break;
                        }
                    }
                }
                self.depth -= 1;
                let close = self.expect(K::RBrace, "`,` or `}` in the initializer")?;
                Ok(Init::List(items, t.span.join(close.span)))
            }
            K::Ident if self.text(t) == "generic" && self.peek_at(1).kind == K::LParen => {
                self.bump();
                self.bump();
                let n = self.expect(K::Ident, "a symbol")?;
                let inner = self.opt_offset()?;
                self.expect(K::RParen, "`)`")?;
                // ISA 5.4.4 writes the offset outside: `generic(foo)+8`.
                let offset = inner.wrapping_add(self.opt_offset()?);
                Ok(Init::Sym {
                    name: self.word(n),
                    offset,
                    generic: true,
                })
            }
            K::Ident => {
                self.bump();
                let offset = self.opt_offset()?;
                Ok(Init::Sym {
                    name: self.word(t),
                    offset,
                    generic: false,
                })
            }
            _ => {
                let (n, s) = self.number()?;
                Ok(Init::Num(n, s))
            }
        }
    }

    /// `+N`, `-N`, `+-N` or nothing.
    fn opt_offset(&mut self) -> PResult<i64> {
        let neg = if self.eat(K::Plus) {
            self.eat(K::Minus)
        } else if self.eat(K::Minus) {
            true
        } else {
            return Ok(0);
        };
        let (v, _) = self.expect_u64()?;
        let v = v as i64;
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    /// A possibly negated numeric literal.
    fn number(&mut self) -> PResult<(Num, Span)> {
        let start = self.peek().span;
        let neg = self.eat(K::Minus);
        let t = self.peek();
        let text = self.text(t);
        let num = match t.kind {
            K::Int => match parse_int(text) {
                Some(v) => Num::Int(if neg {
                    (v as i64).wrapping_neg()
                } else {
                    v as i64
                }),
                None => {
                    self.bump();
                    self.diags.push(Diagnostic::error(
                        t.span,
                        format!("integer literal `{text}` is out of range"),
                    ));
                    return Err(Fail);
                }
            },
            K::HexF32 => {
                let bits = u32::from_str_radix(&text[2..], 16).unwrap_or(0);
                Num::F32(if neg { bits ^ 0x8000_0000 } else { bits })
            }
            K::HexF64 => {
                let bits = u64::from_str_radix(&text[2..], 16).unwrap_or(0);
                Num::F64(if neg { bits ^ (1 << 63) } else { bits })
            }
            K::Float => match text.parse::<f64>() {
                Ok(f) => Num::F64(if neg { (-f).to_bits() } else { f.to_bits() }),
                Err(_) => return self.expected("a number"),
            },
            _ => return self.expected("a number"),
        };
        self.bump();
        Ok((num, start.join(t.span)))
    }

    // ------------------------------------------------------------- functions

    /// `(.param ..., .param ...)`
    fn param_list(&mut self) -> PResult<Vec<VarDecl<'a>>> {
        self.expect(K::LParen, "`(`")?;
        let mut out = Vec::new();
        if self.eat(K::RParen) {
            return Ok(out);
        }
        loop {
            out.push(self.var_decl_no_semi(false)?);
            if !self.eat(K::Comma) {
                break;
            }
        }
        self.expect(K::RParen, "`,` or `)` in the parameter list")?;
        Ok(out)
    }

    fn function(&mut self, linkage: Linkage) -> PResult<FuncDecl<'a>> {
        let kw = self.bump();
        let is_entry = self.is_dot(kw, "entry");
        let returns = if self.at(K::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let n = self.expect(K::Ident, "a function name")?;
        let mut f = FuncDecl {
            linkage,
            is_entry,
            name: self.word(n),
            returns,
            params: Vec::new(),
            noreturn: false,
            directives: Vec::new(),
            pragmas: Vec::new(),
            body: None,
            span: kw.span.join(n.span),
        };
        if self.at(K::LParen) {
            f.params = self.param_list()?;
        }
        loop {
            let t = self.peek();
            if t.kind != K::DotWord {
                break;
            }
            let d = &self.text(t)[1..];
            match d {
                "noreturn" => {
                    self.bump();
                    f.noreturn = true;
                }
                "pragma" => {
                    self.bump();
                    let s = self.expect_string()?;
                    self.expect(K::Semi, "`;`")?;
                    f.pragmas.push(s);
                }
                "maxntid" | "reqntid" | "minnctapersm" | "maxnctapersm" | "maxnreg"
                | "reqnctapercluster" | "maxclusterrank" | "explicitcluster" => {
                    self.bump();
                    let mut vals = Vec::new();
                    if self.at(K::Int) {
                        loop {
                            vals.push(self.expect_u64()?.0);
                            if !self.eat(K::Comma) {
                                break;
                            }
                        }
                    }
                    f.directives.push((self.word(t), vals));
                }
                _ => break,
            }
        }
        if self.eat(K::Semi) {
            return Ok(f);
        }
        if !self.at(K::LBrace) {
            return self.expected("`{` or `;` after the function header");
        }
        let open = self.bump();
        f.body = Some(self.block_body(open)?);
        Ok(f)
    }

    /// Statements up to and including the closing `}`.
    fn block_body(&mut self, open: Token) -> PResult<Vec<Stmt<'a>>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            self.diags
                .push(Diagnostic::error(open.span, "blocks nested too deeply"));
            return Err(Fail);
        }
        let mut stmts = Vec::new();
        loop {
            match self.peek().kind {
                K::RBrace => {
                    self.bump();
                    break;
                }
                K::Eof => {
                    let t = self.peek();
                    self.diags.push(
                        Diagnostic::error(t.span, "unexpected end of file: expected `}`")
                            .with_label({
                                let (l, c) =
                                    crate::diag::Diagnostics::line_col(self.src, open.span.start);
                                format!("the `{{` at {l}:{c} is not closed")
                            }),
                    );
                    self.depth -= 1;
                    return Err(Fail);
                }
                _ => {
                    let before = self.pos;
                    match self.stmt() {
                        Ok(s) => stmts.push(s),
                        Err(Fail) => {
                            self.recover();
                            if self.pos == before {
                                self.bump();
                            }
                        }
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(stmts)
    }

    fn stmt(&mut self) -> PResult<Stmt<'a>> {
        let t = self.peek();
        match t.kind {
            K::LBrace => {
                self.bump();
                let body = self.block_body(t)?;
                Ok(Stmt::Block(body, t.span))
            }
            K::DotWord => {
                let d = &self.text(t)[1..];
                match d {
                    "reg" => Ok(Stmt::Reg(self.var_decl()?)),
                    "loc" => self.loc(),
                    "pragma" => {
                        self.bump();
                        let s = self.expect_string()?;
                        self.expect(K::Semi, "`;`")?;
                        Ok(Stmt::Pragma(s, t.span))
                    }
                    _ => Ok(Stmt::Var(self.var_decl()?)),
                }
            }
            K::Ident if self.peek_at(1).kind == K::Colon => {
                self.bump();
                self.bump();
                let name = self.word(t);
                let next = self.peek();
                if self.is_dot(next, "callprototype") {
                    self.bump();
                    let returns = if self.at(K::LParen) {
                        self.param_list()?
                    } else {
                        Vec::new()
                    };
                    self.expect(K::Underscore, "`_` in the call prototype")?;
                    let params = if self.at(K::LParen) {
                        self.param_list()?
                    } else {
                        Vec::new()
                    };
                    let noreturn = self.is_dot(self.peek(), "noreturn");
                    if noreturn {
                        self.bump();
                    }
                    self.expect(K::Semi, "`;`")?;
                    return Ok(Stmt::Prototype {
                        name,
                        returns,
                        params,
                        noreturn,
                        span: t.span,
                    });
                }
                if self.is_dot(next, "branchtargets") {
                    self.bump();
                    let mut labels = Vec::new();
                    loop {
                        let l = self.expect(K::Ident, "a label")?;
                        labels.push(self.word(l));
                        if !self.eat(K::Comma) {
                            break;
                        }
                    }
                    self.expect(K::Semi, "`;`")?;
                    return Ok(Stmt::BranchTargets {
                        name,
                        labels,
                        span: t.span,
                    });
                }
                Ok(Stmt::Label(name))
            }
            K::Ident | K::At => self.instr().map(Stmt::Instr),
            _ => self.expected("an instruction, declaration or label"),
        }
    }

    fn loc(&mut self) -> PResult<Stmt<'a>> {
        let t = self.bump();
        let file = self.expect_u32()?;
        let line = self.expect_u32()?;
        let col = self.expect_u32()?;
        let mut inlined = None;
        if self.eat(K::Comma) {
            let kw = self.expect(K::Ident, "`function_name`")?;
            if self.text(kw) != "function_name" {
                self.diags
                    .push(Diagnostic::error(kw.span, "expected `function_name`"));
                return Err(Fail);
            }
            let f = self.expect(K::Ident, "a label")?;
            self.expect(K::Comma, "`,`")?;
            let kw2 = self.expect(K::Ident, "`inlined_at`")?;
            if self.text(kw2) != "inlined_at" {
                self.diags
                    .push(Diagnostic::error(kw2.span, "expected `inlined_at`"));
                return Err(Fail);
            }
            let a = self.expect_u32()?;
            let b = self.expect_u32()?;
            let c = self.expect_u32()?;
            inlined = Some((self.text(f).to_string(), a, b, c));
        }
        Ok(Stmt::Loc {
            file,
            line,
            col,
            inlined,
            span: t.span,
        })
    }

    fn instr(&mut self) -> PResult<Instr<'a>> {
        let start = self.peek().span;
        let mut guard = None;
        if self.eat(K::At) {
            let neg = self.eat(K::Bang);
            let g = self.expect(K::Ident, "a predicate register after `@`")?;
            guard = Some((self.word(g), neg));
        }
        let op = self.expect(K::Ident, "an opcode")?;
        let mut mods = Vec::new();
        while self.at(K::DotWord) {
            let m = self.bump();
            mods.push(self.word(m));
        }
        let mut operands = Vec::new();
        // Texture and surface instructions, and bulk tensor copies, have
        // operand forms of their own (`[tex, {x, y}]`, `[tensorMap, {x}]`);
        // ptxperf does not run them, so their operands are skipped and the
        // decoder says what the instruction is.
        let tensor_copy = matches!(&self.src[op.span.range()], "cp" | "prefetch")
            && mods.iter().any(|m| m.text == ".tensor");
        let opname = &self.src[op.span.range()];
        if matches!(opname, "tex" | "suld" | "sust") && !self.at(K::Semi) {
            // `tex d, [t, {x}]`, `suld d, [s, {x}]`, `sust [s, {x}], a`: the
            // handle and the coordinate vector become operands of their
            // own; the decoder says which forms run.
            operands = self.texture_operands(opname == "sust")?;
        } else if tensor_copy || TEXTURE_OPCODES.contains(&opname) {
            while !self.at(K::Semi) && !self.at(K::Eof) {
                self.bump();
            }
        }
        if operands.is_empty() && !self.at(K::Semi) {
            loop {
                operands.push(self.operand()?);
                if !self.eat(K::Comma) {
                    break;
                }
            }
        }
        let end = self.peek();
        if end.kind != K::Semi {
            return self.expected("`,` or `;` after the operand");
        }
        self.bump();
        Ok(Instr {
            guard,
            opcode: self.word(op),
            mods,
            operands,
            span: start.join(end.span),
        })
    }

    /// A name, joined with a directly following `.x`-style component: of a
    /// special register (`%tid.x`) or a vector register (`v.w`, `v.r`; ISA
    /// 6.4.2 "Vector Operands").
    fn name(&mut self) -> PResult<Word<'a>> {
        let t = self.expect(K::Ident, "a name")?;
        let mut w = self.word(t);
        {
            let n = self.peek();
            // `%tid.x`, and the operand selectors of the video instructions
            // (`%r1.b2`, `%r1.h0`, `%r1.h32`, `%r1.b3210`), written without a
            // space.
            if n.kind == K::DotWord
                && n.span.start == t.span.end
                && (matches!(
                    self.text(n),
                    ".x" | ".y" | ".z" | ".w" | ".r" | ".g" | ".b" | ".a"
                ) || SimdSel::from_name(&self.text(n)[1..]).is_some())
            {
                self.bump();
                let span = t.span.join(n.span);
                w = Word {
                    text: &self.src[span.range()],
                    span,
                };
            }
        }
        Ok(w)
    }

    /// The operands of `tex` and `suld`: `d, [t, {x, ...}]` as `d`, `t`,
    /// `{x, ...}`; a separate sampler (`[t, s, {x}]`) adds `s` before the
    /// vector, and anything after the bracket (an offset, a depth) follows
    /// it. Those of `sust` (`store`): `[s, {x, ...}], a` as `s`, `{x, ...}`,
    /// `a`.
    fn texture_operands(&mut self, store: bool) -> PResult<Vec<Op<'a>>> {
        let mut ops = Vec::new();
        if !store {
            ops.push(self.operand()?);
            if self.at(K::Pipe) {
                let t = self.peek();
                self.diags.push(Diagnostic::error(
                    t.span,
                    "`tex` with a predicate destination (`d|p`) is not supported by ptxperf yet",
                ));
                return Err(Fail);
            }
            self.expect(K::Comma, "`,` after the destination")?;
        }
        self.expect(K::LBracket, "`[` before the texture or surface")?;
        loop {
            if self.at(K::LBrace) {
                ops.push(self.operand()?);
                break;
            }
            if self.peek_at(1).kind == K::RBracket {
                let t = self.peek();
                self.diags.push(Diagnostic::error(
                    t.span,
                    "the coordinates of a texture or surface access are a vector `{x, ...}`",
                ));
                return Err(Fail);
            }
            ops.push(Op::Name(self.name()?));
            self.expect(K::Comma, "`,` after the texture or surface")?;
        }
        self.expect(K::RBracket, "`]` after the coordinates")?;
        while self.eat(K::Comma) {
            ops.push(self.operand()?);
        }
        Ok(ops)
    }

    fn operand(&mut self) -> PResult<Op<'a>> {
        let t = self.peek();
        match t.kind {
            K::Ident => {
                let n = self.name()?;
                if self.eat(K::Pipe) {
                    let m = self.name()?;
                    return Ok(Op::Pair(n, m));
                }
                if self.at(K::Plus) || (self.at(K::Minus) && !n.text.starts_with('%')) {
                    let off = self.opt_offset()?;
                    let span = n.span.join(self.toks[self.pos - 1].span);
                    return Ok(Op::NameOffset(n, off, span));
                }
                Ok(Op::Name(n))
            }
            K::Bang => {
                self.bump();
                Ok(Op::Not(self.name()?))
            }
            K::Minus
                if self.peek_at(1).kind == K::Ident
                    && self.text(self.peek_at(1)).starts_with('%') =>
            {
                self.bump();
                Ok(Op::Neg(self.name()?))
            }
            K::Underscore => {
                self.bump();
                if self.eat(K::Pipe) {
                    let m = self.name()?;
                    return Ok(Op::SinkPair(t.span, m));
                }
                Ok(Op::Sink(t.span))
            }
            K::LBracket => {
                self.bump();
                let base = if self.at(K::Ident) {
                    Some(self.name()?)
                } else {
                    None
                };
                let offset = if base.is_some() {
                    self.opt_offset()?
                } else {
                    match self.number()? {
                        (Num::Int(v), _) => v,
                        (_, s) => {
                            self.diags.push(Diagnostic::error(
                                s,
                                "an address must be a register, symbol or integer",
                            ));
                            return Err(Fail);
                        }
                    }
                };
                let close = self.expect(K::RBracket, "`]` closing the address")?;
                Ok(Op::Addr {
                    base,
                    offset,
                    span: t.span.join(close.span),
                })
            }
            K::LBrace | K::LParen => {
                let (close_kind, what) = if t.kind == K::LBrace {
                    (K::RBrace, "`,` or `}` in the vector")
                } else {
                    (K::RParen, "`,` or `)`")
                };
                self.bump();
                let mut items = Vec::new();
                if !self.at(close_kind) {
                    loop {
                        let item = self.operand()?;
                        if matches!(item, Op::Vector(..) | Op::List(..)) {
                            self.diags.push(Diagnostic::error(
                                item.span(),
                                "nested operand lists are not allowed",
                            ));
                            return Err(Fail);
                        }
                        items.push(item);
                        if !self.eat(K::Comma) {
                            break;
                        }
                    }
                }
                let close = self.expect(close_kind, what)?;
                let span = t.span.join(close.span);
                Ok(if t.kind == K::LBrace {
                    Op::Vector(items, span)
                } else {
                    Op::List(items, span)
                })
            }
            _ => {
                let (n, s) = self.number()?;
                Ok(Op::Num(n, s))
            }
        }
    }
}

/// Directives that begin a module-scope declaration (recovery points).
fn is_top_start(d: &str) -> bool {
    matches!(
        d,
        "version"
            | "target"
            | "address_size"
            | "file"
            | "entry"
            | "func"
            | "visible"
            | "extern"
            | "weak"
            | "common"
            | "global"
            | "const"
            | "shared"
            | "pragma"
            | "section"
    )
}
