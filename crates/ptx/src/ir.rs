//! The typed IR of a PTX module.
//!
//! Tour:
//! - [`Module`]: directives (`.version`, `.target`, `.address_size`), the `.file`
//!   table, module-scope variables (`globals`), functions, and `items`, the
//!   order in which they were declared (so the printer reproduces it).
//! - [`Function`]: `.entry` or `.func`, its parameters and return parameters
//!   (as [`Variable`]s in the `.param` space), performance-tuning directives,
//!   and, when it has a body: the register table (`regs`, indexed by [`Reg`]),
//!   body-scope variables (`locals`), labels resolved to instruction indices,
//!   inline-asm / call-sequence scopes, body pragmas, call prototypes and the
//!   FLAT instruction list (`instructions`).
//! - [`Instruction`]: guard, [`Opcode`], typed [`Modifiers`], type suffixes,
//!   [`Operand`]s and the `.loc` in effect.
//!
//! All collections of named things are [`Arena`]s addressed by `Handle<T>`
//! (a `u32`), with the source span of each element kept beside it. Spans are
//! ignored by `PartialEq`, so printing and reparsing compares equal.
//!
//! Scoping: `{ }` blocks inside a body are flattened; the registers, variables
//! and labels they declare get their own handles (two scopes declaring `%p`
//! give two distinct `Reg`s). [`BlockScope`] remembers the block structure only
//! so that the printer can reproduce it.

mod arena;
mod inst;
mod types;

pub use arena::{Arena, Handle, Span};
pub use inst::*;
pub use types::*;

/// A register: an index into [`Function::regs`].
pub type Reg = Handle<RegDecl>;

/// An index into [`Function::scopes`].
pub type ScopeId = u32;

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

/// A parsed PTX module.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub version: Version,
    /// The `.target` list as written (`sm_80`, optionally `texmode_*`, `debug`).
    pub target: Vec<String>,
    /// `.address_size` as written (32 or 64); `None` when the directive is
    /// absent, which PTX reads as 32.
    pub address_size: Option<u32>,
    /// The `.file` table, in source order.
    pub files: Vec<FileEntry>,
    pub globals: Arena<Variable>,
    pub functions: Arena<Function>,
    /// Module-level `.pragma` strings, in order (their position is in `items`).
    pub pragmas: Vec<String>,
    /// Every module-scope declaration in source order.
    pub items: Vec<Item>,
    /// `.section` blocks (DWARF data that -lineinfo emits with inlining), kept verbatim.
    pub sections: Vec<Section>,
}

/// `.section .debug_str { label: .b8 1, 2, ... }`: opaque debug data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// As written, with its dot (`.debug_str`).
    pub name: String,
    pub items: Vec<SectionItem>,
}

/// One line of a `.section` body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionItem {
    Label(String),
    Data { ty: Type, values: Vec<SectionValue> },
}

/// A value in a `.section` data line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionValue {
    Int(i64),
    /// A label or symbol, possibly `+offset` (kept by name: it may name debug labels).
    Symbol {
        name: String,
        offset: i64,
    },
}

/// A module-scope declaration, for ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Global(Handle<Variable>),
    /// A forward declaration (prototype without body) of a function that is
    /// defined by a later [`Item::FunctionDef`] or is `.extern`.
    FunctionDecl(Handle<Function>),
    /// The definition of a function (with body) or the only declaration of a body-less one.
    FunctionDef(Handle<Function>),
    /// Index into [`Module::pragmas`].
    Pragma(u32),
    /// Index into [`Module::sections`].
    Section(u32),
}

/// `.file N "name" [, timestamp, size]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    pub index: u32,
    pub name: String,
    pub timestamp: Option<u64>,
    pub size: Option<u64>,
}

/// Linkage / visibility of a module-scope symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    #[default]
    Internal,
    Visible,
    Extern,
    Weak,
    Common,
}

impl Linkage {
    pub fn name(self) -> Option<&'static str> {
        match self {
            Linkage::Internal => None,
            Linkage::Visible => Some("visible"),
            Linkage::Extern => Some("extern"),
            Linkage::Weak => Some("weak"),
            Linkage::Common => Some("common"),
        }
    }
}

/// `.ptr [.space] .align N` attributes of a kernel pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: u32,
}

/// A variable: module-scope, body-scope, or a (return) parameter.
///
/// Invariants: `dims` lists array dimensions outermost first, `None` for an
/// unsized `[]` (only as the outermost dimension, extern or initialized);
/// `init` (when present) has been checked to fit `ty`, `vec` and `dims`.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub linkage: Linkage,
    pub space: StateSpace,
    pub align: Option<u32>,
    pub vec: Option<VecWidth>,
    pub ty: Type,
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub ptr: Option<PtrAttr>,
}

impl Variable {
    /// Elements of the declared type (vector lanes and array dimensions
    /// multiplied out); `None` when a dimension is unsized.
    pub fn element_count(&self) -> Option<u64> {
        let mut n = self.vec.map_or(1, |v| u64::from(v.lanes()));
        for d in &self.dims {
            n = n.checked_mul((*d)?)?;
        }
        Some(n)
    }

    /// Size in bytes, `None` when unsized.
    pub fn size_bytes(&self) -> Option<u64> {
        self.element_count()?
            .checked_mul(u64::from(self.ty.bytes()))
    }
}

/// A variable initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Imm(Immediate),
    /// `sym`, `sym+4` or `generic(sym)`: the address of a global or function.
    Symbol {
        symbol: Symbol,
        offset: i64,
        generic: bool,
    },
    /// `{a, b, ...}` (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// `.entry` (kernel) or `.func` (device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// Performance-tuning and other function-header directives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionDirective {
    MaxNtid(Vec<u32>),
    ReqNtid(Vec<u32>),
    MinNctaPerSm(u32),
    MaxNctaPerSm(u32),
    MaxNReg(u32),
    ReqNctaPerCluster(Vec<u32>),
    MaxClusterRank(u32),
    ExplicitCluster,
    /// `.pragma "..."` between the header and the body.
    Pragma(String),
}

/// A declared register: its name as written (`%r5`, `%p`, `low`) and type.
#[derive(Clone, Debug, PartialEq)]
pub struct RegDecl {
    pub name: String,
    pub ty: Type,
    /// Vector registers (`.reg .v4 .f32 %v`) are rare but legal.
    pub vec: Option<VecWidth>,
    /// The `{ }` block that declares it; `None` for the function body.
    pub scope: Option<ScopeId>,
}

/// A variable declared in a body (`.shared`, `.local`, `.param` in a call sequence).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalVar {
    pub var: Variable,
    pub scope: Option<ScopeId>,
}

/// A label, resolved to the index of the instruction it precedes.
///
/// Invariant: `target <= instructions.len()` (equal when the label ends the body).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelDecl {
    pub name: String,
    pub target: u32,
    pub scope: Option<ScopeId>,
}

/// A `{ }` block inside a body, kept for printing.
///
/// Invariants: scopes are in opening order (a parent before its children);
/// `start <= end <= instructions.len()`; a child's range lies within its parent's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockScope {
    pub parent: Option<ScopeId>,
    /// First instruction inside.
    pub start: u32,
    /// One past the last instruction inside.
    pub end: u32,
}

/// `.pragma "text";` inside a body, before instruction `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyPragma {
    pub at: u32,
    pub text: String,
    pub scope: Option<ScopeId>,
}

/// `name: .callprototype (.param .b32 _) _ (.param .b64 _, ...);`
#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype {
    pub name: String,
    pub returns: Vec<Variable>,
    pub params: Vec<Variable>,
    pub noreturn: bool,
    pub scope: Option<ScopeId>,
    /// Position in the body (index of the following instruction), for printing.
    pub at: u32,
}

/// `name: .branchtargets L1, L2, ...;` for brx.idx.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchTargets {
    pub name: String,
    pub labels: Vec<Handle<LabelDecl>>,
    pub scope: Option<ScopeId>,
    /// Position in the body (index of the following instruction), for printing.
    pub at: u32,
}

/// A function (kernel or device function), with or without body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub linkage: Linkage,
    /// Return parameters (`.func (.param .b32 r) f(...)`), empty for entries.
    pub returns: Vec<Variable>,
    pub params: Vec<Variable>,
    /// `.noreturn` attribute.
    pub noreturn: bool,
    pub directives: Vec<FunctionDirective>,
    /// False for a prototype without body (`.extern .func`, forward declarations).
    pub has_body: bool,
    /// The register table, indexed by [`Reg`]. Body-level registers come
    /// first, in declaration order, then each block's registers in block order.
    pub regs: Arena<RegDecl>,
    pub locals: Arena<LocalVar>,
    pub labels: Arena<LabelDecl>,
    pub scopes: Vec<BlockScope>,
    pub pragmas: Vec<BodyPragma>,
    pub prototypes: Arena<CallPrototype>,
    pub branch_targets: Arena<BranchTargets>,
    /// The flat instruction list; labels and branch targets index into it.
    pub instructions: Arena<Instruction>,
}

impl Function {
    pub fn is_entry(&self) -> bool {
        self.kind == FunctionKind::Entry
    }

    /// The instruction index a label refers to.
    pub fn label_target(&self, label: Handle<LabelDecl>) -> Option<u32> {
        self.labels.get(label).map(|l| l.target)
    }

    /// A register by name among the body-level registers (block-scoped ones are not found).
    pub fn reg_by_name(&self, name: &str) -> Option<Reg> {
        self.regs
            .iter()
            .find(|(_, r)| r.scope.is_none() && r.name == name)
            .map(|(h, _)| h)
    }

    /// The register standing for `.reg` parameter `i` (ISA 7.1: `.func
    /// (.reg .u32 res) f (.reg .u32 a)`): the body uses the parameter as a
    /// body-level register of the same name.
    pub fn param_reg(&self, i: usize) -> Option<Reg> {
        let p = self.params.get(i)?;
        (p.space == StateSpace::Reg).then(|| self.reg_by_name(&p.name))?
    }

    /// The register standing for `.reg` return parameter `i`.
    pub fn return_reg(&self, i: usize) -> Option<Reg> {
        let p = self.returns.get(i)?;
        (p.space == StateSpace::Reg).then(|| self.reg_by_name(&p.name))?
    }

    /// Whether `r` is the register of a `.reg` parameter or return value
    /// (declared by the header, not by a `.reg` statement).
    pub fn is_param_reg(&self, r: &RegDecl) -> bool {
        r.scope.is_none()
            && self
                .params
                .iter()
                .chain(&self.returns)
                .any(|p| p.space == StateSpace::Reg && p.name == r.name)
    }

    /// The parameter index of `name`.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// Bytes of statically declared `.shared` variables in the body.
    pub fn local_shared_bytes(&self) -> u64 {
        self.locals
            .iter()
            .filter(|(_, l)| l.var.space.is_shared())
            .filter_map(|(_, l)| l.var.size_bytes())
            .sum()
    }
}

impl Module {
    /// The function named `name` (definition preferred; names are unique per module).
    pub fn function_by_name(&self, name: &str) -> Option<Handle<Function>> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(h, _)| h)
    }

    /// The module-scope variable named `name`.
    pub fn global_by_name(&self, name: &str) -> Option<Handle<Variable>> {
        self.globals
            .iter()
            .find(|(_, v)| v.name == name)
            .map(|(h, _)| h)
    }

    /// Kernels (`.entry`) in declaration order.
    pub fn entries(&self) -> impl Iterator<Item = (Handle<Function>, &Function)> {
        self.functions.iter().filter(|(_, f)| f.is_entry())
    }

    /// The `.file` entry with PTX index `index`.
    pub fn file(&self, index: u32) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.index == index)
    }

    /// Total instructions over all function bodies.
    pub fn instruction_count(&self) -> usize {
        self.functions
            .iter()
            .map(|(_, f)| f.instructions.len())
            .sum()
    }
}
