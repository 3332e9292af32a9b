//! The printer: `impl Display for Module` writes PTX that parses back to the
//! same IR (spans aside). Registers declared as `stem0..stemN-1` are printed as
//! a `stem<N>` range; `{ }` blocks are reopened from [`BlockScope`]s.

use std::fmt::{self, Write};

use crate::ir::*;

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, ".version {}.{}", self.version.major, self.version.minor)?;
        if !self.target.is_empty() {
            writeln!(f, ".target {}", self.target.join(", "))?;
        }
        if let Some(a) = self.address_size {
            writeln!(f, ".address_size {a}")?;
        }
        for item in &self.items {
            writeln!(f)?;
            match *item {
                Item::Global(h) => {
                    let v = &self.globals[h];
                    print_var(f, self, None, v)?;
                    writeln!(f, ";")?;
                }
                Item::FunctionDecl(h) => {
                    header(f, self, &self.functions[h])?;
                    writeln!(f, ";")?;
                }
                Item::FunctionDef(h) => {
                    let func = &self.functions[h];
                    header(f, self, func)?;
                    if func.has_body {
                        body(f, self, func)?;
                    } else {
                        writeln!(f, ";")?;
                    }
                }
                Item::Section(i) => {
                    if let Some(sec) = self.sections.get(i as usize) {
                        section(f, sec)?;
                    }
                }
                Item::Pragma(i) => {
                    if let Some(p) = self.pragmas.get(i as usize) {
                        writeln!(f, ".pragma \"{p}\";")?;
                    }
                }
            }
        }
        for file in &self.files {
            write!(f, "\n.file {} \"{}\"", file.index, file.name)?;
            if let Some(t) = file.timestamp {
                write!(f, ", {t}")?;
                if let Some(s) = file.size {
                    write!(f, ", {s}")?;
                }
            }
        }
        writeln!(f)
    }
}

/// Prints a module as PTX text.
pub fn print(module: &Module) -> String {
    module.to_string()
}

fn imm(f: &mut impl Write, i: Immediate) -> fmt::Result {
    match i {
        Immediate::Int(v) => write!(f, "{v}"),
        Immediate::F32(b) => write!(f, "0f{b:08X}"),
        Immediate::F64(b) => write!(f, "0d{b:016X}"),
    }
}

fn symbol_name<'m>(m: &'m Module, func: Option<&'m Function>, s: Symbol) -> &'m str {
    match s {
        Symbol::Global(h) => m.globals.get(h).map_or("?", |v| &v.name),
        Symbol::Function(h) => m.functions.get(h).map_or("?", |v| &v.name),
        Symbol::Local(h) => func
            .and_then(|f| f.locals.get(h))
            .map_or("?", |v| &v.var.name),
        Symbol::Param(i) => func
            .and_then(|f| f.params.get(i as usize))
            .map_or("?", |v| &v.name),
        Symbol::Return(i) => func
            .and_then(|f| f.returns.get(i as usize))
            .map_or("?", |v| &v.name),
    }
}

fn offset(f: &mut impl Write, off: i64) -> fmt::Result {
    match off {
        0 => Ok(()),
        o if o > 0 => write!(f, "+{o}"),
        o => write!(f, "+-{}", o.unsigned_abs()),
    }
}

fn init(f: &mut impl Write, m: &Module, i: &Initializer) -> fmt::Result {
    match i {
        Initializer::Imm(v) => imm(f, *v),
        Initializer::Symbol {
            symbol,
            offset: off,
            generic,
        } => {
            // `generic(sym)+off`, the ISA's own spelling (5.4.4 "Initializers").
            if *generic {
                write!(f, "generic({})", symbol_name(m, None, *symbol))?;
            } else {
                f.write_str(symbol_name(m, None, *symbol))?;
            }
            offset(f, *off)
        }
        Initializer::List(items) => {
            f.write_str("{")?;
            for (k, it) in items.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                init(f, m, it)?;
            }
            f.write_str("}")
        }
    }
}

fn print_var(
    f: &mut impl Write,
    m: &Module,
    _func: Option<&Function>,
    v: &Variable,
) -> fmt::Result {
    if let Some(l) = v.linkage.name() {
        write!(f, ".{l} ")?;
    }
    write!(f, ".{}", v.space.name())?;
    if let Some(a) = v.align {
        write!(f, " .align {a}")?;
    }
    if let Some(vec) = v.vec {
        write!(f, " .{}", vec.name())?;
    }
    write!(f, " .{}", v.ty.name())?;
    if let Some(p) = v.ptr {
        write!(f, " .ptr")?;
        if let Some(s) = p.space {
            write!(f, " .{}", s.name())?;
        }
        write!(f, " .align {}", p.align)?;
    }
    write!(f, " {}", v.name)?;
    for d in &v.dims {
        match d {
            Some(n) => write!(f, "[{n}]")?,
            None => write!(f, "[]")?,
        }
    }
    if let Some(i) = &v.init {
        write!(f, " = ")?;
        init(f, m, i)?;
    }
    Ok(())
}

fn param_list(f: &mut impl Write, m: &Module, ps: &[Variable]) -> fmt::Result {
    f.write_str("(")?;
    for (k, p) in ps.iter().enumerate() {
        f.write_str(if k > 0 { ",\n\t" } else { "\n\t" })?;
        print_var(f, m, None, p)?;
    }
    f.write_str("\n)")
}

fn header(f: &mut fmt::Formatter<'_>, m: &Module, func: &Function) -> fmt::Result {
    if let Some(l) = func.linkage.name() {
        write!(f, ".{l} ")?;
    }
    f.write_str(if func.is_entry() { ".entry " } else { ".func " })?;
    if !func.returns.is_empty() {
        param_list(f, m, &func.returns)?;
        f.write_str(" ")?;
    }
    f.write_str(&func.name)?;
    param_list(f, m, &func.params)?;
    if func.noreturn {
        f.write_str(" .noreturn")?;
    }
    for d in &func.directives {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        match d {
            FunctionDirective::MaxNtid(v) => write!(f, "\n.maxntid {}", list(v))?,
            FunctionDirective::ReqNtid(v) => write!(f, "\n.reqntid {}", list(v))?,
            FunctionDirective::ReqNctaPerCluster(v) => {
                write!(f, "\n.reqnctapercluster {}", list(v))?
            }
            FunctionDirective::MinNctaPerSm(n) => write!(f, "\n.minnctapersm {n}")?,
            FunctionDirective::MaxNctaPerSm(n) => write!(f, "\n.maxnctapersm {n}")?,
            FunctionDirective::MaxNReg(n) => write!(f, "\n.maxnreg {n}")?,
            FunctionDirective::MaxClusterRank(n) => write!(f, "\n.maxclusterrank {n}")?,
            FunctionDirective::ExplicitCluster => write!(f, "\n.explicitcluster")?,
            FunctionDirective::Pragma(p) => write!(f, "\n.pragma \"{p}\";")?,
        }
    }
    writeln!(f)
}

/// Register declarations of one scope, compressing `stem0..stemN-1` into `stem<N>`.
fn reg_decls(f: &mut impl Write, regs: &[(Reg, &RegDecl)], indent: &str) -> fmt::Result {
    let mut k = 0;
    while k < regs.len() {
        let r = regs[k].1;
        let stem = r.name.trim_end_matches(|c: char| c.is_ascii_digit());
        let mut n = 0;
        if r.name.len() > stem.len() && &r.name[stem.len()..] == "0" && !stem.is_empty() {
            while k + n < regs.len() {
                let o = regs[k + n].1;
                if o.ty != r.ty
                    || o.vec != r.vec
                    || o.name.len() <= stem.len()
                    || !o.name.starts_with(stem)
                {
                    break;
                }
                if o.name[stem.len()..] != *n.to_string() {
                    break;
                }
                n += 1;
            }
        }
        write!(f, "{indent}.reg")?;
        if let Some(v) = r.vec {
            write!(f, " .{}", v.name())?;
        }
        if n >= 2 {
            writeln!(f, " .{} {stem}<{n}>;", r.ty.name())?;
            k += n;
        } else {
            writeln!(f, " .{} {};", r.ty.name(), r.name)?;
            k += 1;
        }
    }
    Ok(())
}

struct BodyPrinter<'m> {
    m: &'m Module,
    func: &'m Function,
    stack: Vec<ScopeId>,
    out: String,
}

impl BodyPrinter<'_> {
    fn indent(&self) -> String {
        "\t".repeat(self.stack.len() + 1)
    }

    fn open(&mut self, s: ScopeId) -> fmt::Result {
        let ind = self.indent();
        writeln!(self.out, "{ind}{{")?;
        self.stack.push(s);
        self.decls(Some(s))
    }

    fn decls(&mut self, scope: Option<ScopeId>) -> fmt::Result {
        let ind = self.indent();
        for (_, l) in self.func.locals.iter().filter(|(_, l)| l.scope == scope) {
            self.out.push_str(&ind);
            print_var(&mut self.out, self.m, Some(self.func), &l.var)?;
            self.out.push_str(";\n");
        }
        let regs: Vec<(Reg, &RegDecl)> = self
            .func
            .regs
            .iter()
            .filter(|(_, r)| r.scope == scope && !self.func.is_param_reg(r))
            .collect();
        reg_decls(&mut self.out, &regs, &ind)
    }

    /// Closes and opens blocks until the innermost open block is `target`.
    fn enter(&mut self, target: Option<ScopeId>) -> fmt::Result {
        let mut path = Vec::new();
        let mut cur = target;
        while let Some(s) = cur {
            path.push(s);
            cur = self.func.scopes.get(s as usize).and_then(|b| b.parent);
            if path.len() > self.func.scopes.len() {
                break;
            }
        }
        path.reverse();
        let common = self
            .stack
            .iter()
            .zip(&path)
            .take_while(|(a, b)| a == b)
            .count();
        while self.stack.len() > common {
            self.stack.pop();
            let ind = self.indent();
            writeln!(self.out, "{ind}}}")?;
        }
        for &s in &path[common..] {
            self.open(s)?;
        }
        Ok(())
    }
}

fn body(f: &mut fmt::Formatter<'_>, m: &Module, func: &Function) -> fmt::Result {
    let mut p = BodyPrinter {
        m,
        func,
        stack: Vec::new(),
        out: String::new(),
    };
    p.out.push_str("{\n");
    p.decls(None)?;
    let n = func.instructions.len() as u32;
    // Which scopes hold something (else they are opened and closed where they start).
    let mut used = vec![false; func.scopes.len()];
    let mark = |s: Option<ScopeId>, used: &mut Vec<bool>| {
        let mut cur = s;
        let mut guard = 0;
        while let Some(id) = cur {
            if let Some(u) = used.get_mut(id as usize) {
                *u = true;
            }
            cur = func.scopes.get(id as usize).and_then(|b| b.parent);
            guard += 1;
            if guard > func.scopes.len() {
                break;
            }
        }
    };
    for (k, s) in func.scopes.iter().enumerate() {
        if s.start < s.end {
            mark(Some(k as ScopeId), &mut used);
        }
    }
    for (_, l) in func.labels.iter() {
        mark(l.scope, &mut used);
    }
    for pr in &func.pragmas {
        mark(pr.scope, &mut used);
    }
    for (_, pr) in func.prototypes.iter() {
        mark(pr.scope, &mut used);
    }
    for (_, b) in func.branch_targets.iter() {
        mark(b.scope, &mut used);
    }
    let mut labels: Vec<&LabelDecl> = func.labels.iter().map(|(_, l)| l).collect();
    labels.sort_by_key(|l| l.target);
    let mut li = 0;
    let mut last_loc: Option<&SourceLoc> = None;
    // Innermost scope of each instruction (children follow parents, so they overwrite them).
    let mut inst_scope: Vec<Option<ScopeId>> = vec![None; n as usize];
    for (k, s) in func.scopes.iter().enumerate() {
        for slot in inst_scope
            .iter_mut()
            .take(s.end as usize)
            .skip(s.start as usize)
        {
            *slot = Some(k as ScopeId);
        }
    }
    // Blocks holding nothing, by start position (opened and closed where they start).
    let empty: Vec<(u32, ScopeId)> = func
        .scopes
        .iter()
        .enumerate()
        .filter(|(k, _)| !used[*k])
        .map(|(k, s)| (s.start, k as ScopeId))
        .collect();
    let has_extras =
        !func.pragmas.is_empty() || !func.prototypes.is_empty() || !func.branch_targets.is_empty();
    let mut ei = 0;
    for i in 0..=n {
        while ei < empty.len() && empty[ei].0 <= i {
            let k = empty[ei].1;
            ei += 1;
            if let Some(s) = func.scopes.get(k as usize) {
                p.enter(s.parent)?;
                p.open(k as ScopeId)?;
                p.enter(s.parent)?;
            }
        }
        while li < labels.len() && labels[li].target == i {
            p.enter(labels[li].scope)?;
            writeln!(p.out, "{}:", labels[li].name)?;
            li += 1;
        }
        for pr in func.pragmas.iter().filter(|pr| has_extras && pr.at == i) {
            p.enter(pr.scope)?;
            let ind = p.indent();
            writeln!(p.out, "{ind}.pragma \"{}\";", pr.text)?;
        }
        for (_, pr) in func
            .prototypes
            .iter()
            .filter(|(_, pr)| has_extras && pr.at == i)
        {
            p.enter(pr.scope)?;
            write!(p.out, "{}: .callprototype ", pr.name)?;
            if !pr.returns.is_empty() {
                param_list(&mut p.out, m, &pr.returns)?;
                p.out.push(' ');
            }
            p.out.push_str("_ ");
            if !pr.params.is_empty() {
                param_list(&mut p.out, m, &pr.params)?;
            }
            if pr.noreturn {
                p.out.push_str(" .noreturn");
            }
            p.out.push_str(";\n");
        }
        for (_, b) in func
            .branch_targets
            .iter()
            .filter(|(_, b)| has_extras && b.at == i)
        {
            p.enter(b.scope)?;
            let names: Vec<&str> = b
                .labels
                .iter()
                .filter_map(|&l| func.labels.get(l))
                .map(|l| l.name.as_str())
                .collect();
            writeln!(p.out, "{}: .branchtargets {};", b.name, names.join(", "))?;
        }
        if i == n {
            break;
        }
        let inst = &func.instructions[Handle::from_index(i as usize)];
        let scope = inst_scope.get(i as usize).copied().flatten();
        p.enter(scope)?;
        if let Some(loc) = &inst.loc
            && last_loc != Some(loc)
        {
            let ind = p.indent();
            loc_directives(&mut p.out, &ind, loc)?;
            last_loc = Some(loc);
        }
        let ind = p.indent();
        p.out.push_str(&ind);
        instruction(&mut p.out, m, func, inst)?;
        p.out.push('\n');
    }
    p.enter(None)?;
    p.out.push_str("}\n");
    f.write_str(&p.out)
}

/// The `.loc` directives of `loc`: the chain of call sites it was inlined
/// through first (outermost first), then its own, a line each.
fn loc_directives(out: &mut String, ind: &str, loc: &SourceLoc) -> fmt::Result {
    if let Some(outer) = loc.inlined_at.as_ref().and_then(|ia| ia.outer.as_deref()) {
        loc_directives(out, ind, outer)?;
    }
    write!(out, "{ind}.loc {} {} {}", loc.file, loc.line, loc.col)?;
    if let Some(ia) = &loc.inlined_at {
        write!(
            out,
            ", function_name {}, inlined_at {} {} {}",
            ia.function_name, ia.file, ia.line, ia.col
        )?;
    }
    out.push('\n');
    Ok(())
}

/// Prints one instruction (without indentation or newline).
pub fn instruction(
    f: &mut impl Write,
    m: &Module,
    func: &Function,
    inst: &Instruction,
) -> fmt::Result {
    let reg = |r: Reg| func.regs.get(r).map_or("?", |d| d.name.as_str());
    if let Some(g) = inst.guard {
        write!(f, "@{}{} ", if g.negated { "!" } else { "" }, reg(g.reg))?;
    }
    f.write_str(inst.opcode.name())?;
    mods(f, inst)?;
    let op = inst.opcode;
    match inst.operands.as_slice() {
        // `tex.2d.v4.f32.f32 d, [t, {x, y}]`, `suld.b.2d.b32.trap d, [s, {x, y}]`:
        // handle and coordinates in brackets.
        [d, t, x] if op.is_texture_fetch() || op.is_surface_load() => {
            f.write_str(" ")?;
            operand(f, m, func, d)?;
            f.write_str(", ")?;
            bracketed(f, m, func, t, x)?;
            return f.write_str(";");
        }
        // `sust.b.2d.b32.trap [s, {x, y}], a`.
        [t, x, a] if op.is_surface_store() => {
            f.write_str(" ")?;
            bracketed(f, m, func, t, x)?;
            f.write_str(", ")?;
            operand(f, m, func, a)?;
            return f.write_str(";");
        }
        _ => {}
    }
    for (k, o) in inst.operands.iter().enumerate() {
        f.write_str(if k == 0 { " " } else { ", " })?;
        if k > 0 && inst.mods.video_neg.get(k - 1) == Some(&true) {
            f.write_str("-")?;
        }
        operand(f, m, func, o)?;
        if let Some(Some(sel)) = inst.mods.video_sel.get(k) {
            write!(f, ".{}", sel.name())?;
        }
        if let Some(Some(sel)) = inst.mods.simd_sel.get(k) {
            write!(f, ".{sel}")?;
        }
    }
    f.write_str(";")
}

/// `[t, {x, ...}]`: the handle and coordinates of a texture or surface access.
fn bracketed(
    f: &mut impl Write,
    m: &Module,
    func: &Function,
    t: &Operand,
    x: &Operand,
) -> fmt::Result {
    f.write_str("[")?;
    operand(f, m, func, t)?;
    f.write_str(", ")?;
    operand(f, m, func, x)?;
    f.write_str("]")
}

fn operand(f: &mut impl Write, m: &Module, func: &Function, o: &Operand) -> fmt::Result {
    let reg = |r: Reg| func.regs.get(r).map_or("?", |d| d.name.as_str());
    match o {
        Operand::Reg(r) => f.write_str(reg(*r)),
        Operand::NotReg(r) => write!(f, "!{}", reg(*r)),
        Operand::Pair(a, b) => write!(f, "{}|{}", reg(*a), reg(*b)),
        Operand::SinkPair(b) => write!(f, "_|{}", reg(*b)),
        Operand::VecElem(r, i) => {
            let c = ["x", "y", "z", "w"].get(*i as usize).unwrap_or(&"?");
            write!(f, "{}.{c}", reg(*r))
        }
        Operand::Vector(items) | Operand::List(items) => {
            let (open, close) = if matches!(o, Operand::Vector(_)) {
                ("{", "}")
            } else {
                ("(", ")")
            };
            f.write_str(open)?;
            for (k, it) in items.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                operand(f, m, func, it)?;
            }
            f.write_str(close)
        }
        Operand::Imm(i) => imm(f, *i),
        Operand::Address(a) => {
            f.write_str("[")?;
            match a.base {
                AddrBase::Reg(r) => {
                    f.write_str(reg(r))?;
                    offset(f, a.offset)?;
                }
                AddrBase::Symbol(s) => {
                    f.write_str(symbol_name(m, Some(func), s))?;
                    offset(f, a.offset)?;
                }
                AddrBase::Absolute => write!(f, "{}", a.offset)?,
            }
            f.write_str("]")
        }
        Operand::Symbol(s, off) => {
            f.write_str(symbol_name(m, Some(func), *s))?;
            offset(f, *off)
        }
        Operand::Label(l) => f.write_str(func.labels.get(*l).map_or("?", |l| l.name.as_str())),
        Operand::Special(s) => write!(f, "{s}"),
        Operand::Sink => f.write_str("_"),
        Operand::BranchTargets(b) => {
            f.write_str(func.branch_targets.get(*b).map_or("?", |b| b.name.as_str()))
        }
        Operand::Prototype(p) => {
            f.write_str(func.prototypes.get(*p).map_or("?", |p| p.name.as_str()))
        }
    }
}

/// Modifiers in the order the PTX ISA grammar of each instruction writes them.
fn mods(f: &mut impl Write, inst: &Instruction) -> fmt::Result {
    let m = &inst.mods;
    let op = inst.opcode;
    let mut w = |s: &str| -> fmt::Result { write!(f, ".{s}") };
    let late_space = matches!(op, Opcode::Ldmatrix | Opcode::Stmatrix | Opcode::Wmma);
    if let Some(x) = m.wmma_op {
        w(x.name())?;
    }
    if let Some(x) = m.fragment {
        w(x.name())?;
    }
    if let Some(x) = m.mbarrier_op {
        w(x.name())?;
    }
    if m.expect_tx {
        w("expect_tx")?;
    }
    if m.no_complete {
        w("noComplete")?;
    }
    if m.parity {
        w("parity")?;
    }
    if m.noinc {
        w("noinc")?;
    }
    if op == Opcode::Match
        && let Some(x) = m.match_mode
    {
        w(x.name())?;
    }
    if op == Opcode::CpAsync
        && let Some(c) = m.cache
    {
        w(c.name())?;
    }
    if m.sync {
        w("sync")?;
    }
    let bar = matches!(op, Opcode::Bar | Opcode::Barrier);
    if m.aligned && !bar {
        w("aligned")?;
    }
    if let Some(x) = m.bar_mode {
        w(x.name())?;
    }
    if op == Opcode::Wmma {
        for l in [m.layout_a, m.layout_b].into_iter().flatten() {
            w(l.name())?;
        }
    }
    if let Some(x) = m.cmp {
        w(x.name())?;
    }
    if let Some(x) = m.bool_op {
        w(x.name())?;
    }
    if let Some(x) = m.mul_part {
        w(x.name())?;
    }
    if m.carry_out {
        w("cc")?;
    }
    if let Some(x) = m.shf_dir {
        w(x.name())?;
    }
    if let Some(x) = m.shf_mode {
        w(x.name())?;
    }
    if let Some(x) = m.testp {
        w(x.name())?;
    }
    if let Some(x) = m.shfl_mode {
        w(x.name())?;
    }
    if let Some(x) = m.vote_mode {
        w(x.name())?;
    }
    if let Some(x) = m.sem {
        w(x.name())?;
    }
    if let Some(x) = m.scope {
        w(if op == Opcode::Membar && x == MemScope::Gpu {
            "gl"
        } else {
            x.name()
        })?;
    }
    if let Some(x) = m.proxy {
        w("proxy")?;
        w(x.name())?;
    }
    if let Some(x) = m.policy {
        w(x.name())?;
        match x {
            PolicyKind::Range => w("global")?,
            PolicyKind::Cvt => w("L2")?,
            PolicyKind::Fractional => {}
        }
    }
    for x in &m.priorities {
        w(x.name())?;
    }
    if m.cvta_to {
        w("to")?;
    }
    // `cp.async.bulk.prefetch.L2.global`: the level comes first.
    let early_level = op == Opcode::CpAsyncBulkPrefetch;
    if early_level && let Some(x) = m.level {
        w(x.name())?;
    }
    if !late_space {
        if let Some(x) = m.space {
            w(x.name())?;
        }
        if let Some(x) = m.src_space {
            w(x.name())?;
        }
    }
    if let Some(x) = m.completion {
        w(x.name())?;
    }
    if m.read {
        w("read")?;
    }
    if !early_level && let Some(x) = m.level {
        w(x.name())?;
    }
    if op != Opcode::CpAsync
        && let Some(x) = m.cache
    {
        w(x.name())?;
    }
    if m.nc {
        w("nc")?;
    }
    if let Some(x) = m.atom_op {
        w(x.name())?;
    }
    if m.aligned && bar {
        w("aligned")?;
    }
    if m.noftz {
        w("noftz")?;
    }
    if let Some(x) = m.shape {
        w(&x.to_string())?;
    }
    if op != Opcode::Wmma {
        for l in [m.layout_a, m.layout_b].into_iter().flatten() {
            w(l.name())?;
        }
    }
    if let Some(n) = m.num {
        w(&format!("x{n}"))?;
    }
    if m.trans {
        w("trans")?;
    }
    if late_space && let Some(x) = m.space {
        w(x.name())?;
    }
    if let Some(x) = m.precision {
        w(x.name())?;
    }
    if let Some(x) = m.rounding {
        w(x.name())?;
    }
    if m.ftz {
        w("ftz")?;
    }
    if m.nan {
        w("NaN")?;
    }
    if m.xorsign_abs {
        w("xorsign")?;
        w("abs")?;
    }
    if m.pack {
        w("pack")?;
    }
    if m.relu {
        w("relu")?;
    }
    if m.sat {
        w("sat")?;
    }
    if m.satfinite {
        w("satfinite")?;
    }
    for h in &m.cache_hints {
        w(h.name())?;
    }
    if let Some(x) = m.vec {
        w(x.name())?;
    }
    if m.uni {
        w("uni")?;
    }
    if m.shiftamt {
        w("shiftamt")?;
    }
    if op != Opcode::Match
        && let Some(x) = m.match_mode
    {
        w(x.name())?;
    }
    for t in &inst.types {
        w(t.name())?;
    }
    if let Some(x) = m.prmt_mode {
        w(x.name())?;
    }
    if m.video_add {
        w("add")?;
    }
    if let Some(x) = m.video_op2 {
        w(x.name())?;
    }
    if m.video_po {
        w("po")?;
    }
    if let Some(x) = m.video_scale {
        w(x.name())?;
    }
    if let Some(x) = m.surface_clamp {
        w(x.name())?;
    }
    Ok(())
}

fn section(f: &mut fmt::Formatter<'_>, sec: &Section) -> fmt::Result {
    writeln!(f, ".section {}\n{{", sec.name)?;
    for item in &sec.items {
        match item {
            SectionItem::Label(l) => writeln!(f, "{l}:")?,
            SectionItem::Data { ty, values } => {
                write!(f, ".{}", ty.name())?;
                for (k, v) in values.iter().enumerate() {
                    f.write_str(if k == 0 { " " } else { ", " })?;
                    match v {
                        SectionValue::Int(i) => write!(f, "{i}")?,
                        SectionValue::Symbol { name, offset: off } => {
                            f.write_str(name)?;
                            offset(f, *off)?;
                        }
                    }
                }
                writeln!(f)?;
            }
        }
    }
    writeln!(f, "}}")
}
