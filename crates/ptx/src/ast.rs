//! The syntax tree the parser builds and the decoder consumes: PTX as written,
//! with names unresolved and modifiers as spelled. Borrowed from the source text.

// Some spans are kept for diagnostics that do not use them yet.
#![allow(dead_code)]

use crate::ir::{Linkage, Span};

/// A word of the source (identifier, modifier, number text) and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Word<'a> {
    pub text: &'a str,
    pub span: Span,
}

#[derive(Debug)]
pub enum TopItem<'a> {
    Version {
        major: u32,
        minor: u32,
        span: Span,
    },
    Target(Vec<Word<'a>>, Span),
    AddressSize(u32, Span),
    File {
        index: u32,
        name: String,
        timestamp: Option<u64>,
        size: Option<u64>,
        span: Span,
    },
    Pragma(String, Span),
    Var(VarDecl<'a>),
    Func(FuncDecl<'a>),
    Section(crate::ir::Section),
}

/// Declaration qualifiers as written (`.visible .global .align 4 .v2 .u32`).
#[derive(Clone, Debug, Default)]
pub struct DeclHead<'a> {
    pub linkage: Linkage,
    /// The state-space word (`.global`, `.reg`, ...).
    pub space: Option<Word<'a>>,
    pub align: Option<(u64, Span)>,
    pub vec: Option<Word<'a>>,
    pub ty: Option<Word<'a>>,
    /// `.ptr` attribute: its own optional space and alignment.
    pub ptr: Option<PtrHead<'a>>,
    /// Words that fit none of the above (reported by the decoder).
    pub unknown: Vec<Word<'a>>,
    pub span: Span,
}

/// `.ptr [.space] [.align N]`: the space word, the alignment and where `.ptr` is.
pub type PtrHead<'a> = (Option<Word<'a>>, Option<(u64, Span)>, Span);

/// One declared name: `a`, `a[4][2]`, `%r<43>`, `t[] = {1, 2}`.
#[derive(Clone, Debug)]
pub struct Declarator<'a> {
    pub name: Word<'a>,
    /// `%r<43>`: a parameterized range of that many registers.
    pub range: Option<(u64, Span)>,
    pub dims: Vec<(Option<u64>, Span)>,
    pub init: Option<Init<'a>>,
}

#[derive(Clone, Debug)]
pub struct VarDecl<'a> {
    pub head: DeclHead<'a>,
    pub names: Vec<Declarator<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Init<'a> {
    Num(Num, Span),
    Sym {
        name: Word<'a>,
        offset: i64,
        generic: bool,
    },
    List(Vec<Init<'a>>, Span),
}

/// A numeric literal (with its sign applied).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    F32(u32),
    F64(u64),
}

#[derive(Debug)]
pub struct FuncDecl<'a> {
    pub linkage: Linkage,
    pub is_entry: bool,
    pub name: Word<'a>,
    pub returns: Vec<VarDecl<'a>>,
    pub params: Vec<VarDecl<'a>>,
    pub noreturn: bool,
    pub directives: Vec<(Word<'a>, Vec<u64>)>,
    pub pragmas: Vec<String>,
    pub body: Option<Vec<Stmt<'a>>>,
    pub span: Span,
}

#[derive(Debug)]
pub enum Stmt<'a> {
    Reg(VarDecl<'a>),
    Var(VarDecl<'a>),
    Label(Word<'a>),
    Instr(Instr<'a>),
    Block(Vec<Stmt<'a>>, Span),
    Loc {
        file: u32,
        line: u32,
        col: u32,
        inlined: Option<(String, u32, u32, u32)>,
        span: Span,
    },
    Pragma(String, Span),
    Prototype {
        name: Word<'a>,
        returns: Vec<VarDecl<'a>>,
        params: Vec<VarDecl<'a>>,
        noreturn: bool,
        span: Span,
    },
    BranchTargets {
        name: Word<'a>,
        labels: Vec<Word<'a>>,
        span: Span,
    },
}

#[derive(Debug)]
pub struct Instr<'a> {
    pub guard: Option<(Word<'a>, bool)>,
    pub opcode: Word<'a>,
    pub mods: Vec<Word<'a>>,
    pub operands: Vec<Op<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Op<'a> {
    /// A name: register, symbol, label or special register (`%tid.x` joined).
    Name(Word<'a>),
    /// `sym+4` as a value.
    NameOffset(Word<'a>, i64, Span),
    Not(Word<'a>),
    /// `-%r1`: a negated register (vmad's operands).
    Neg(Word<'a>),
    Pair(Word<'a>, Word<'a>),
    Num(Num, Span),
    Addr {
        base: Option<Word<'a>>,
        offset: i64,
        span: Span,
    },
    Vector(Vec<Op<'a>>, Span),
    List(Vec<Op<'a>>, Span),
    Sink(Span),
    /// `_|%p`: a dual destination whose first part is discarded (elect.sync).
    SinkPair(Span, Word<'a>),
}

impl Op<'_> {
    pub fn span(&self) -> Span {
        match self {
            Op::Name(w) | Op::Not(w) => w.span,
            Op::Neg(w) => w.span,
            Op::Pair(a, b) => a.span.join(b.span),
            Op::SinkPair(s, b) => s.join(b.span),
            Op::NameOffset(_, _, s)
            | Op::Num(_, s)
            | Op::Addr { span: s, .. }
            | Op::Vector(_, s)
            | Op::List(_, s)
            | Op::Sink(s) => *s,
        }
    }
}
