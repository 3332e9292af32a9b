//! The decoder: syntax tree to the typed IR. Resolves names (registers,
//! symbols, labels) with block scoping, checks declarations, and hands each
//! instruction to [`crate::decode_inst`] for modifier, type and operand checks.
//! Every problem becomes a diagnostic; decoding continues past it.

use std::collections::HashMap;

use crate::ast::{self, Declarator, Init, Num, Stmt, TopItem, VarDecl, Word};
use crate::diag::Diagnostic;
use crate::ir::*;

/// What a name in a function body can resolve to, with the block declaring it.
#[derive(Clone, Copy)]
pub(crate) enum Decl {
    Reg(Reg),
    Local(Handle<LocalVar>),
    Label(Handle<LabelDecl>),
    Proto(Handle<CallPrototype>),
}

/// Name tables of the module, built before any body is decoded.
pub(crate) struct ModuleScope<'a> {
    pub globals: HashMap<&'a str, Handle<Variable>>,
    pub functions: HashMap<&'a str, Handle<Function>>,
}

/// Per-function name resolution state.
pub(crate) struct FuncScope<'a> {
    pub names: HashMap<String, Vec<(Option<ScopeId>, Decl)>>,
    pub parents: Vec<Option<ScopeId>>,
    pub params: HashMap<String, u32>,
    pub returns: HashMap<String, u32>,
    pub marker: std::marker::PhantomData<&'a str>,
}

impl FuncScope<'_> {
    /// Innermost declaration of `name` visible from `scope`.
    pub fn lookup(&self, name: &str, scope: Option<ScopeId>) -> Option<Decl> {
        let cands = self.names.get(name)?;
        let mut cur = scope;
        loop {
            if let Some((_, d)) = cands.iter().rev().find(|(s, _)| *s == cur) {
                return Some(*d);
            }
            match cur {
                Some(s) => cur = self.parents.get(s as usize).copied().flatten(),
                None => return None,
            }
        }
    }
}

pub(crate) struct Decoder<'a> {
    pub diags: Vec<Diagnostic>,
    pub module: Module,
    pub mscope: ModuleScope<'a>,
    /// `.loc` file numbers and where they were used, checked once the whole `.file` table is known.
    loc_files: Vec<(u32, Span)>,
}

pub(crate) fn err(diags: &mut Vec<Diagnostic>, span: Span, msg: impl Into<String>) {
    diags.push(Diagnostic::error(span, msg));
}

impl<'a> Decoder<'a> {
    pub fn new() -> Self {
        Decoder {
            diags: Vec::new(),
            module: Module {
                version: Version { major: 0, minor: 0 },
                target: Vec::new(),
                address_size: None,
                files: Vec::new(),
                globals: Arena::new(),
                functions: Arena::new(),
                pragmas: Vec::new(),
                items: Vec::new(),
                sections: Vec::new(),
            },
            mscope: ModuleScope {
                globals: HashMap::new(),
                functions: HashMap::new(),
            },
            loc_files: Vec::new(),
        }
    }

    pub fn decode(&mut self, items: &[TopItem<'a>], eof: Span) {
        let mut seen_version = false;
        // Pass 1: declare every module-scope name, so uses may precede declarations.
        let mut func_handles = Vec::new();
        for item in items {
            match item {
                TopItem::Var(v) => self.declare_globals(v),
                TopItem::Func(f) => func_handles.push(self.declare_function(f)),
                _ => {}
            }
        }
        // Pass 2: directives, initializers and bodies in order.
        let mut fi = 0;
        for item in items {
            match item {
                TopItem::Version { major, minor, span } => {
                    if seen_version {
                        err(&mut self.diags, *span, "duplicate `.version` directive");
                    }
                    seen_version = true;
                    self.module.version = Version {
                        major: *major,
                        minor: *minor,
                    };
                }
                TopItem::Target(list, _) => {
                    self.module.target = list.iter().map(|w| w.text.to_string()).collect()
                }
                TopItem::AddressSize(n, span) => {
                    if *n != 32 && *n != 64 {
                        err(
                            &mut self.diags,
                            *span,
                            format!("`.address_size` must be 32 or 64, not {n}"),
                        );
                    }
                    self.module.address_size = Some(*n);
                }
                TopItem::File {
                    index,
                    name,
                    timestamp,
                    size,
                    span,
                } => {
                    if self.module.file(*index).is_some() {
                        err(
                            &mut self.diags,
                            *span,
                            format!("duplicate `.file` index {index}"),
                        );
                    }
                    self.module.files.push(FileEntry {
                        index: *index,
                        name: name.clone(),
                        timestamp: *timestamp,
                        size: *size,
                    });
                }
                TopItem::Pragma(s, _) => {
                    self.module
                        .items
                        .push(Item::Pragma(self.module.pragmas.len() as u32));
                    self.module.pragmas.push(s.clone());
                }
                TopItem::Section(sec) => {
                    self.module
                        .items
                        .push(Item::Section(self.module.sections.len() as u32));
                    self.module.sections.push(sec.clone());
                }
                TopItem::Var(v) => self.define_globals(v),
                TopItem::Func(f) => {
                    if let Some(Some((h, is_def))) = func_handles.get(fi).copied() {
                        self.module.items.push(if is_def {
                            Item::FunctionDef(h)
                        } else {
                            Item::FunctionDecl(h)
                        });
                        if let Some(body) = &f.body {
                            self.decode_body(h, body);
                        }
                    }
                    fi += 1;
                }
            }
        }
        if !seen_version {
            err(&mut self.diags, eof, "missing `.version` directive");
        }
        if self.module.target.is_empty() {
            err(&mut self.diags, eof, "missing `.target` directive");
        }
        for (file, span) in std::mem::take(&mut self.loc_files) {
            if self.module.file(file).is_none() {
                err(
                    &mut self.diags,
                    span,
                    format!("`.loc` refers to undeclared file {file}"),
                );
            }
        }
        self.fix_decl_items();
    }

    /// A function declared but never defined keeps its (only) declaration as its definition item.
    fn fix_decl_items(&mut self) {
        let mut has_def = vec![false; self.module.functions.len()];
        for it in &self.module.items {
            if let Item::FunctionDef(h) = it {
                has_def[h.index()] = true;
            }
        }
        let mut promoted = vec![false; self.module.functions.len()];
        for it in self.module.items.iter_mut().rev() {
            if let Item::FunctionDecl(h) = *it
                && !has_def[h.index()]
                && !promoted[h.index()]
            {
                promoted[h.index()] = true;
                *it = Item::FunctionDef(h);
            }
        }
    }

    // --------------------------------------------------------------- globals

    fn declare_globals(&mut self, v: &VarDecl<'a>) {
        for d in &v.names {
            if self.mscope.globals.contains_key(d.name.text)
                || self.mscope.functions.contains_key(d.name.text)
            {
                err(
                    &mut self.diags,
                    d.name.span,
                    format!("duplicate declaration of `{}`", d.name.text),
                );
                continue;
            }
            let Some(var) = self.variable(&v.head, d, Context::Global) else {
                continue;
            };
            let h = self.module.globals.append(var, d.name.span);
            self.mscope.globals.insert(d.name.text, h);
        }
    }

    fn define_globals(&mut self, v: &VarDecl<'a>) {
        for d in &v.names {
            let Some(&h) = self.mscope.globals.get(d.name.text) else {
                continue;
            };
            if self.module.globals.span(h) != d.name.span {
                continue; // a duplicate, already reported
            }
            self.module.items.push(Item::Global(h));
            if let Some(init) = &d.init {
                let var = &self.module.globals[h];
                let (ty, count) = (var.ty, var.element_count());
                if let Some(i) = self.initializer(init, ty) {
                    if let (Some(n), Some(have)) = (count, init_len(&i))
                        && have > n
                    {
                        err(
                            &mut self.diags,
                            d.name.span,
                            format!(
                                "initializer has {have} elements but `{}` holds {n}",
                                d.name.text
                            ),
                        );
                    }
                    self.module.globals[h].init = Some(i);
                }
            }
        }
    }

    fn variable(
        &mut self,
        head: &ast::DeclHead<'a>,
        d: &Declarator<'a>,
        ctx: Context,
    ) -> Option<Variable> {
        variable(&mut self.diags, head, d, ctx)
    }

    /// The initializer of a variable declared in a body. ISA 5.4.4: "variable
    /// initialization is supported only for constant and global state spaces".
    fn body_initializer(&mut self, d: &Declarator<'a>, var: &Variable) -> Option<Initializer> {
        let init = d.init.as_ref()?;
        if !matches!(var.space, StateSpace::Global | StateSpace::Const) {
            err(
                &mut self.diags,
                d.name.span,
                format!(
                    "a .{} variable cannot have an initializer (only .global and .const can)",
                    var.space.name()
                ),
            );
            return None;
        }
        self.initializer(init, var.ty)
    }

    fn initializer(&mut self, init: &Init<'a>, ty: Type) -> Option<Initializer> {
        match init {
            Init::Num(n, span) => {
                let imm = num_to_imm(*n);
                if let (Immediate::F32(_) | Immediate::F64(_), false) =
                    (imm, ty.is_float() || ty.kind() == TypeKind::Bits)
                {
                    err(
                        &mut self.diags,
                        *span,
                        format!("float initializer for a `.{}` variable", ty.name()),
                    );
                    return None;
                }
                Some(Initializer::Imm(imm))
            }
            Init::Sym {
                name,
                offset,
                generic,
            } => {
                let symbol = if let Some(&g) = self.mscope.globals.get(name.text) {
                    // PTX ISA 5.4.4 "Initializers": only `.global` and
                    // `.const` variables may be used in initializers.
                    let space = self.module.globals[g].space;
                    if !matches!(space, StateSpace::Global | StateSpace::Const) {
                        err(
                            &mut self.diags,
                            name.span,
                            format!(
                                "`{}` is a .{} variable; only .global and .const variables may appear in initializers",
                                name.text,
                                space.name()
                            ),
                        );
                        return None;
                    }
                    Symbol::Global(g)
                } else if let Some(&f) = self.mscope.functions.get(name.text) {
                    Symbol::Function(f)
                } else {
                    err(
                        &mut self.diags,
                        name.span,
                        format!("undeclared symbol `{}` in initializer", name.text),
                    );
                    return None;
                };
                Some(Initializer::Symbol {
                    symbol,
                    offset: *offset,
                    generic: *generic,
                })
            }
            Init::List(items, _) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.initializer(i, ty)?);
                }
                Some(Initializer::List(out))
            }
        }
    }

    // ------------------------------------------------------------- functions

    /// Declares a function's name; returns its handle and whether this item is a definition.
    fn declare_function(&mut self, f: &ast::FuncDecl<'a>) -> Option<(Handle<Function>, bool)> {
        let name = f.name.text;
        if self.mscope.globals.contains_key(name) {
            err(
                &mut self.diags,
                f.name.span,
                format!("duplicate declaration of `{name}`"),
            );
            return None;
        }
        let func = self.function_header(f);
        if let Some(&h) = self.mscope.functions.get(name) {
            let prev = &self.module.functions[h];
            if prev.has_body && f.body.is_some() {
                err(
                    &mut self.diags,
                    f.name.span,
                    format!("duplicate definition of function `{name}`"),
                );
                return None;
            }
            if prev.kind != func.kind
                || prev.params.len() != func.params.len()
                || prev.returns.len() != func.returns.len()
            {
                err(
                    &mut self.diags,
                    f.name.span,
                    format!("declaration of `{name}` does not match an earlier one"),
                );
                return None;
            }
            if f.body.is_some() {
                self.module.functions[h] = func;
                self.module.functions.set_span(h, f.name.span);
            }
            return Some((h, f.body.is_some()));
        }
        let h = self.module.functions.append(func, f.name.span);
        self.mscope.functions.insert(name, h);
        Some((h, f.body.is_some()))
    }

    fn function_header(&mut self, f: &ast::FuncDecl<'a>) -> Function {
        let mut params = Vec::new();
        let mut returns = Vec::new();
        let mut names: HashMap<&str, Span> = HashMap::new();
        for (list, out, ctx) in [
            (&f.returns, &mut returns, Context::Param),
            (&f.params, &mut params, Context::Param),
        ] {
            for v in list.iter() {
                for d in &v.names {
                    if d.name.text != "_" && names.insert(d.name.text, d.name.span).is_some() {
                        err(
                            &mut self.diags,
                            d.name.span,
                            format!("duplicate parameter `{}`", d.name.text),
                        );
                    }
                    if let Some(var) = self.variable(&v.head, d, ctx) {
                        out.push(var);
                    }
                }
            }
        }
        if f.is_entry
            && let Some(p) = params
                .iter()
                .find(|p: &&Variable| p.space == StateSpace::Reg)
        {
            let span = f
                .params
                .iter()
                .flat_map(|v| &v.names)
                .find(|d| d.name.text == p.name)
                .map_or(f.name.span, |d| d.name.span);
            err(
                &mut self.diags,
                span,
                format!(
                    "kernel parameter `{}` must be in .param space, not .reg",
                    p.name
                ),
            );
        }
        if f.is_entry && !f.returns.is_empty() {
            err(
                &mut self.diags,
                f.name.span,
                "a `.entry` cannot have return parameters",
            );
        }
        let mut directives = Vec::new();
        for (w, vals) in &f.directives {
            let d = function_directive(&mut self.diags, w, vals);
            if let Some(d) = d {
                directives.push(d);
            }
        }
        directives.extend(
            f.pragmas
                .iter()
                .map(|p| FunctionDirective::Pragma(p.clone())),
        );
        Function {
            name: f.name.text.to_string(),
            kind: if f.is_entry {
                FunctionKind::Entry
            } else {
                FunctionKind::Func
            },
            linkage: f.linkage,
            returns,
            params,
            noreturn: f.noreturn,
            directives,
            has_body: f.body.is_some(),
            regs: Arena::new(),
            locals: Arena::new(),
            labels: Arena::new(),
            scopes: Vec::new(),
            pragmas: Vec::new(),
            prototypes: Arena::new(),
            branch_targets: Arena::new(),
            instructions: Arena::new(),
        }
    }

    fn decode_body(&mut self, h: Handle<Function>, body: &[Stmt<'a>]) {
        let stub = self.function_header_stub();
        let mut func = std::mem::replace(&mut self.module.functions[h], stub);
        let mut fs = FuncScope {
            names: HashMap::new(),
            parents: Vec::new(),
            params: HashMap::new(),
            returns: HashMap::new(),
            marker: std::marker::PhantomData,
        };
        // `.reg` parameters are registers of the body, declared first (see
        // `Function::param_reg`); the others are `.param` symbols.
        let header: Vec<(Variable, bool, u32)> = (func.params.iter().enumerate())
            .map(|(i, p)| (p.clone(), false, i as u32))
            .chain((func.returns.iter().enumerate()).map(|(i, r)| (r.clone(), true, i as u32)))
            .collect();
        for (v, is_ret, i) in header {
            if v.space == StateSpace::Reg {
                let span = self.module.functions.span(h);
                let r = func.regs.append(
                    RegDecl {
                        name: v.name.clone(),
                        ty: v.ty,
                        vec: v.vec,
                        scope: None,
                    },
                    span,
                );
                self.declare_named(&mut fs, v.name, span, None, Decl::Reg(r));
            } else if is_ret {
                fs.returns.insert(v.name, i);
            } else {
                fs.params.insert(v.name, i);
            }
        }
        // Body-level registers first (see `Function::regs`).
        for s in body {
            if let Stmt::Reg(v) = s {
                self.declare_regs(&mut func, &mut fs, v, None);
            }
        }
        let mut counter = 0u32;
        self.layout(&mut func, &mut fs, body, None, &mut counter);
        let mut ctx = BodyCtx {
            pending_locs: Vec::new(),
            loc: None,
            index: 0,
            next_scope: 0,
        };
        self.instructions(&mut func, &fs, body, None, &mut ctx);
        self.module.functions[h] = func;
    }

    fn function_header_stub(&self) -> Function {
        Function {
            name: String::new(),
            kind: FunctionKind::Func,
            linkage: Linkage::Internal,
            returns: Vec::new(),
            params: Vec::new(),
            noreturn: false,
            directives: Vec::new(),
            has_body: false,
            regs: Arena::new(),
            locals: Arena::new(),
            labels: Arena::new(),
            scopes: Vec::new(),
            pragmas: Vec::new(),
            prototypes: Arena::new(),
            branch_targets: Arena::new(),
            instructions: Arena::new(),
        }
    }

    fn declare(
        &mut self,
        fs: &mut FuncScope<'a>,
        name: Word<'a>,
        scope: Option<ScopeId>,
        d: Decl,
    ) -> bool {
        self.declare_named(fs, name.text.to_string(), name.span, scope, d)
    }

    fn declare_named(
        &mut self,
        fs: &mut FuncScope<'a>,
        name: String,
        span: Span,
        scope: Option<ScopeId>,
        d: Decl,
    ) -> bool {
        let shown = name.clone();
        let list = fs.names.entry(name).or_default();
        let is_value = |x: &Decl| matches!(x, Decl::Reg(_) | Decl::Local(_));
        let clash = list.iter().any(|(s, other)| {
            *s == scope
                && (is_value(other) && is_value(&d)
                    || std::mem::discriminant(other) == std::mem::discriminant(&d))
        });
        if !clash {
            list.push((scope, d));
            return true;
        }
        let kind = match d {
            Decl::Reg(_) => "register",
            Decl::Local(_) => "variable",
            Decl::Label(_) => "label",
            Decl::Proto(_) => "call prototype",
        };
        err(
            &mut self.diags,
            span,
            format!("duplicate declaration of {kind} `{shown}`"),
        );
        false
    }

    fn declare_regs(
        &mut self,
        func: &mut Function,
        fs: &mut FuncScope<'a>,
        v: &VarDecl<'a>,
        scope: Option<ScopeId>,
    ) {
        let Some(ty) = decl_type(&mut self.diags, &v.head, v.span) else {
            return;
        };
        let vec = v.head.vec.and_then(|w| VecWidth::from_name(&w.text[1..]));
        if let Some(a) = v.head.align {
            err(
                &mut self.diags,
                a.1,
                "`.align` is not allowed on `.reg` declarations",
            );
        }
        for w in &v.head.unknown {
            err(
                &mut self.diags,
                w.span,
                format!("unexpected `{}` in a register declaration", w.text),
            );
        }
        for d in &v.names {
            if d.init.is_some() || !d.dims.is_empty() {
                err(
                    &mut self.diags,
                    d.name.span,
                    "registers cannot have array dimensions or initializers",
                );
            }
            match d.range {
                None => {
                    let r = func.regs.append(
                        RegDecl {
                            name: d.name.text.to_string(),
                            ty,
                            vec,
                            scope,
                        },
                        d.name.span,
                    );
                    self.declare(fs, d.name, scope, Decl::Reg(r));
                }
                Some((n, span)) => {
                    if n > 1 << 20 {
                        err(
                            &mut self.diags,
                            span,
                            format!("register range of {n} is too large"),
                        );
                        continue;
                    }
                    for i in 0..n {
                        let name = format!("{}{i}", d.name.text);
                        let r = func.regs.append(
                            RegDecl {
                                name: name.clone(),
                                ty,
                                vec,
                                scope,
                            },
                            d.name.span,
                        );
                        self.declare_named(fs, name, d.name.span, scope, Decl::Reg(r));
                    }
                }
            }
        }
    }

    /// Pass over the tree that assigns scopes, instruction indices to labels and declares block-level names.
    fn layout(
        &mut self,
        func: &mut Function,
        fs: &mut FuncScope<'a>,
        stmts: &[Stmt<'a>],
        scope: Option<ScopeId>,
        counter: &mut u32,
    ) {
        // Block registers (body-level ones were declared up front).
        if scope.is_some() {
            for s in stmts {
                if let Stmt::Reg(v) = s {
                    self.declare_regs(func, fs, v, scope);
                }
            }
        }
        // Then the block's variables, so each block's names are contiguous (the printer relies on it).
        for s in stmts {
            if let Stmt::Var(v) = s {
                for d in &v.names {
                    if let Some(mut var) = variable(&mut self.diags, &v.head, d, Context::Body) {
                        var.init = self.body_initializer(d, &var);
                        let h = func.locals.append(LocalVar { var, scope }, d.name.span);
                        self.declare(fs, d.name, scope, Decl::Local(h));
                    }
                }
            }
        }
        for s in stmts {
            match s {
                Stmt::Instr(_) => *counter += 1,
                Stmt::Label(w) => {
                    let l = func.labels.append(
                        LabelDecl {
                            name: w.text.to_string(),
                            target: *counter,
                            scope,
                        },
                        w.span,
                    );
                    self.declare(fs, *w, scope, Decl::Label(l));
                }
                Stmt::Prototype {
                    name,
                    returns,
                    params,
                    noreturn,
                    ..
                } => {
                    let mut rets = Vec::new();
                    let mut ps = Vec::new();
                    for (list, out) in [(returns, &mut rets), (params, &mut ps)] {
                        for v in list {
                            for d in &v.names {
                                if let Some(var) =
                                    variable(&mut self.diags, &v.head, d, Context::Param)
                                {
                                    out.push(var);
                                }
                            }
                        }
                    }
                    let p = func.prototypes.append(
                        CallPrototype {
                            name: name.text.to_string(),
                            returns: rets,
                            params: ps,
                            noreturn: *noreturn,
                            scope,
                            at: *counter,
                        },
                        name.span,
                    );
                    self.declare(fs, *name, scope, Decl::Proto(p));
                }
                Stmt::Block(inner, _) => {
                    let id = func.scopes.len() as ScopeId;
                    func.scopes.push(BlockScope {
                        parent: scope,
                        start: *counter,
                        end: *counter,
                    });
                    fs.parents.push(scope);
                    self.layout(func, fs, inner, Some(id), counter);
                    func.scopes[id as usize].end = *counter;
                }
                Stmt::Reg(_)
                | Stmt::Var(_)
                | Stmt::Loc { .. }
                | Stmt::Pragma(..)
                | Stmt::BranchTargets { .. } => {}
            }
        }
    }

    fn instructions(
        &mut self,
        func: &mut Function,
        fs: &FuncScope<'a>,
        stmts: &[Stmt<'a>],
        scope: Option<ScopeId>,
        ctx: &mut BodyCtx,
    ) {
        for s in stmts {
            match s {
                Stmt::Instr(i) => {
                    let inst =
                        crate::decode_inst::decode(self, func, fs, scope, i, ctx.loc.clone());
                    let inst = inst.unwrap_or_else(|| Instruction {
                        guard: None,
                        opcode: Opcode::Trap,
                        mods: Modifiers::default(),
                        types: Vec::new(),
                        operands: Vec::new(),
                        loc: None,
                    });
                    func.instructions.append(inst, i.span);
                    ctx.index += 1;
                    ctx.pending_locs.clear();
                }
                Stmt::Loc {
                    file,
                    line,
                    col,
                    inlined,
                    span,
                } => {
                    self.loc_files.push((*file, *span));
                    let loc = SourceLoc {
                        file: *file,
                        line: *line,
                        col: *col,
                        inlined_at: inlined.as_ref().map(|(f, a, b, c)| {
                            Box::new(InlinedAt {
                                function_name: f.clone(),
                                file: *a,
                                line: *b,
                                col: *c,
                                outer: ctx
                                    .pending_locs
                                    .iter()
                                    .rev()
                                    .find(|o| (o.file, o.line, o.col) == (*a, *b, *c))
                                    .filter(|o| {
                                        (o.file, o.line, o.col) != (*file, *line, *col)
                                            && o.inline_depth() < MAX_INLINE_DEPTH
                                    })
                                    .cloned()
                                    .map(Box::new),
                            })
                        }),
                    };
                    if loc.inlined_at.is_some() {
                        // A window of the last few: a chain is shorter, and
                        // a run of directives stays linear to decode.
                        if ctx.pending_locs.len() >= 2 * MAX_INLINE_DEPTH {
                            ctx.pending_locs.remove(0);
                        }
                        ctx.pending_locs.push(loc.clone());
                    }
                    ctx.loc = Some(loc);
                }
                Stmt::Pragma(text, _) => func.pragmas.push(BodyPragma {
                    at: ctx.index,
                    text: text.clone(),
                    scope,
                }),
                Stmt::BranchTargets { name, labels, .. } => {
                    let mut ls = Vec::new();
                    for l in labels {
                        match fs.lookup(l.text, scope) {
                            Some(Decl::Label(h)) => ls.push(h),
                            _ => err(
                                &mut self.diags,
                                l.span,
                                format!("undeclared label `{}`", l.text),
                            ),
                        }
                    }
                    func.branch_targets.append(
                        BranchTargets {
                            name: name.text.to_string(),
                            labels: ls,
                            scope,
                            at: ctx.index,
                        },
                        name.span,
                    );
                }
                Stmt::Block(inner, _) => {
                    // Scopes were numbered in pre-order by `layout`; this walk is in the same order.
                    let id = ctx.next_scope;
                    ctx.next_scope += 1;
                    self.instructions(func, fs, inner, Some(id), ctx);
                }
                Stmt::Reg(_) | Stmt::Var(_) | Stmt::Label(_) | Stmt::Prototype { .. } => {}
            }
        }
    }
}

/// The longest chain of inlined `.loc`s kept ([`InlinedAt::outer`]): deeper
/// inlining than compilers produce, and a bound on what a run of `.loc`s
/// each inlined at the one before could build.
const MAX_INLINE_DEPTH: usize = 32;

pub(crate) struct BodyCtx {
    loc: Option<SourceLoc>,
    /// The inlined `.loc`s since the last instruction, in order: a `.loc`
    /// inlined at the position of one of them hangs its chain of call
    /// sites on the last such ([`InlinedAt::outer`]). Compilers write a
    /// chain as consecutive directives before the instruction, and the
    /// printer writes it back so, which keeps a reparse the same.
    pending_locs: Vec<SourceLoc>,
    index: u32,
    next_scope: ScopeId,
}

/// Where a variable is declared.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    Global,
    Body,
    Param,
}

fn init_len(i: &Initializer) -> Option<u64> {
    match i {
        Initializer::List(items) => {
            if items.iter().any(|x| matches!(x, Initializer::List(_))) {
                None
            } else {
                Some(items.len() as u64)
            }
        }
        _ => Some(1),
    }
}

pub(crate) fn num_to_imm(n: Num) -> Immediate {
    match n {
        Num::Int(v) => Immediate::Int(v),
        Num::F32(b) => Immediate::F32(b),
        Num::F64(b) => Immediate::F64(b),
    }
}

fn decl_type(diags: &mut Vec<Diagnostic>, head: &ast::DeclHead<'_>, span: Span) -> Option<Type> {
    match head.ty {
        Some(w) => Type::from_name(&w.text[1..]),
        None => {
            err(diags, span, "declaration has no type");
            None
        }
    }
}

/// Builds a [`Variable`] from a declaration head and declarator, checking it fits the context.
pub(crate) fn variable(
    diags: &mut Vec<Diagnostic>,
    head: &ast::DeclHead<'_>,
    d: &Declarator<'_>,
    ctx: Context,
) -> Option<Variable> {
    let mut ok = true;
    for w in &head.unknown {
        let t = &w.text[1..];
        let msg = if t.starts_with('v') && t[1..].parse::<u32>().is_ok() {
            format!(
                "invalid vector width `{}` (expected .v2, .v4 or .v8)",
                w.text
            )
        } else {
            format!("unknown qualifier `{}` in declaration", w.text)
        };
        err(diags, w.span, msg);
        ok = false;
    }
    let space = match head.space {
        Some(w) => StateSpace::from_name(&w.text[1..]).unwrap_or(StateSpace::Global),
        None if ctx == Context::Param => StateSpace::Param,
        None => {
            err(
                diags,
                d.name.span,
                format!("declaration of `{}` has no state space", d.name.text),
            );
            return None;
        }
    };
    let allowed = match ctx {
        Context::Global => {
            matches!(
                space,
                StateSpace::Global | StateSpace::Const | StateSpace::Shared | StateSpace::Tex
            ) || space.is_shared()
        }
        // The ISA restricts `.reg` and `.local` to function scope under the ABI
        // (5.1.1, 5.1.5) but puts no scope restriction on `.global` or `.const`
        // (5.1.3, 5.1.4): in a body they are statically allocated, visible in
        // their block only.
        Context::Body => {
            matches!(
                space,
                StateSpace::Local
                    | StateSpace::Shared
                    | StateSpace::Param
                    | StateSpace::Const
                    | StateSpace::Global
            ) || space.is_shared()
                || space.is_param()
        }
        // `.func` parameters may also be registers (ISA 7.1, "Function
        // declarations and definitions"); `.entry` ones are refused by the caller.
        Context::Param => space.is_param() || space == StateSpace::Reg,
    };
    if !allowed {
        if let Some(w) = head.space {
            err(
                diags,
                w.span,
                format!("state space `{}` is not allowed here", w.text),
            );
        }
        return None;
    }
    let ty = decl_type(diags, head, d.name.span)?;
    if d.range.is_some() {
        err(
            diags,
            d.name.span,
            "only registers can be declared as a `<N>` range",
        );
        ok = false;
    }
    for (i, (dim, span)) in d.dims.iter().enumerate() {
        if dim.is_none()
            && (i > 0
                || (head.linkage != Linkage::Extern && d.init.is_none() && ctx != Context::Param))
        {
            err(
                diags,
                *span,
                "unsized array dimension is only allowed on `.extern` or initialized arrays",
            );
            ok = false;
        }
        if *dim == Some(0) {
            err(diags, *span, "array dimension must be positive");
            ok = false;
        }
    }
    let align = match head.align {
        Some((a, span)) => {
            if !a.is_power_of_two() || a > 1 << 16 {
                err(diags, span, format!("alignment {a} is not a power of two"));
                ok = false;
            }
            Some(a as u32)
        }
        None => None,
    };
    let ptr = head.ptr.map(|(sp, al, _)| PtrAttr {
        space: sp.and_then(|w| StateSpace::from_name(&w.text[1..])),
        align: al.map_or(1, |a| a.0 as u32),
    });
    if !ok {
        return None;
    }
    Some(Variable {
        name: d.name.text.to_string(),
        linkage: head.linkage,
        space,
        align,
        vec: head.vec.and_then(|w| VecWidth::from_name(&w.text[1..])),
        ty,
        dims: d.dims.iter().map(|(n, _)| *n).collect(),
        init: None,
        ptr,
    })
}

fn function_directive(
    diags: &mut Vec<Diagnostic>,
    w: &Word<'_>,
    vals: &[u64],
) -> Option<FunctionDirective> {
    let u32s: Vec<u32> = vals
        .iter()
        .map(|&v| v.min(u64::from(u32::MAX)) as u32)
        .collect();
    let dims = |diags: &mut Vec<Diagnostic>| {
        if u32s.is_empty() || u32s.len() > 3 {
            err(
                diags,
                w.span,
                format!("`{}` takes 1 to 3 dimensions", w.text),
            );
            None
        } else {
            Some(u32s.clone())
        }
    };
    let one = |diags: &mut Vec<Diagnostic>| {
        if u32s.len() == 1 {
            Some(u32s[0])
        } else {
            err(
                diags,
                w.span,
                format!("`{}` takes exactly one value", w.text),
            );
            None
        }
    };
    Some(match &w.text[1..] {
        "maxntid" => FunctionDirective::MaxNtid(dims(diags)?),
        "reqntid" => FunctionDirective::ReqNtid(dims(diags)?),
        "reqnctapercluster" => FunctionDirective::ReqNctaPerCluster(dims(diags)?),
        "minnctapersm" => FunctionDirective::MinNctaPerSm(one(diags)?),
        "maxnctapersm" => FunctionDirective::MaxNctaPerSm(one(diags)?),
        "maxnreg" => FunctionDirective::MaxNReg(one(diags)?),
        "maxclusterrank" => FunctionDirective::MaxClusterRank(one(diags)?),
        _ => FunctionDirective::ExplicitCluster,
    })
}
