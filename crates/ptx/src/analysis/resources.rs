//! Declared resources of a function: registers by type and static shared
//! memory, the inputs of the occupancy calculator until ptxas figures exist.
//!
//! These are PTX-level declarations, not the allocation ptxas makes: PTX
//! registers are virtual (ptxas usually needs far fewer physical ones). The
//! declared registers are shown (`ptxperf cfg`), never used for occupancy:
//! that takes ptxas's count or [`super::registers::estimate_registers`].

use crate::ir::{AddrBase, Function, Handle, Module, Operand, Symbol, Type, Variable};

/// Registers of one type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterClass {
    pub ty: Type,
    /// Declared registers (a `.v4` register counts once).
    pub count: u32,
    /// Bytes, with vector lanes multiplied out and `.pred` counted as 1 byte.
    pub bytes: u64,
}

/// Every register declared in a body, scoped blocks included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterUsage {
    pub count: u32,
    pub bytes: u64,
    /// Per type, in order of first declaration.
    pub by_type: Vec<RegisterClass>,
}

/// The declared registers of `func`.
pub fn declared_registers(func: &Function) -> RegisterUsage {
    let mut usage = RegisterUsage::default();
    for (_, r) in func.regs.iter() {
        let bytes = u64::from(r.ty.bytes()) * u64::from(r.vec.map_or(1, |v| v.lanes()));
        usage.count = usage.count.saturating_add(1);
        usage.bytes = usage.bytes.saturating_add(bytes);
        match usage.by_type.iter_mut().find(|c| c.ty == r.ty) {
            Some(c) => {
                c.count = c.count.saturating_add(1);
                c.bytes = c.bytes.saturating_add(bytes);
            }
            None => usage.by_type.push(RegisterClass {
                ty: r.ty,
                count: 1,
                bytes,
            }),
        }
    }
    usage
}

/// One `.shared` variable an entry uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub name: String,
    /// `None` for an unsized `.extern` array (dynamic shared memory).
    pub bytes: Option<u64>,
    /// Declared in a function body (a demoted local) rather than at module scope.
    pub local: bool,
}

/// Shared memory of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedUsage {
    /// Static bytes: every sized shared variable the kernel (or a function it
    /// calls) declares or references, laid out in order, each aligned to its
    /// `.align` (or its element size).
    pub static_bytes: u64,
    /// Whether the kernel uses an unsized `.extern .shared` array, sized at
    /// launch (`dynamic_shared` of the launch spec).
    pub uses_dynamic: bool,
    pub variables: Vec<SharedVar>,
}

/// The shared memory of function `entry` of `module`: its own demoted
/// `.shared` locals, the module-scope `.shared` variables it references, and
/// the same for every function it calls, transitively.
pub fn shared_memory(module: &Module, entry: Handle<crate::ir::Function>) -> SharedUsage {
    let n = module.functions.len();
    let mut visited = vec![false; n];
    let mut work = vec![entry];
    let mut globals: Vec<Handle<Variable>> = Vec::new();
    let mut usage = SharedUsage::default();
    let mut offset = 0u64;
    while let Some(h) = work.pop() {
        let Some(func) = module.functions.get(h) else {
            continue;
        };
        if std::mem::replace(&mut visited[h.index()], true) {
            continue;
        }
        for (_, l) in func.locals.iter() {
            if l.var.space.is_shared() {
                place(&l.var, true, &mut offset, &mut usage);
            }
        }
        for (_, inst) in func.instructions.iter() {
            for op in &inst.operands {
                visit_symbols(op, &mut |s| match s {
                    Symbol::Global(g) if !globals.contains(&g) => globals.push(g),
                    Symbol::Function(f) => work.push(f),
                    _ => {}
                });
            }
        }
    }
    // Module variables in declaration order, so the layout does not depend
    // on the order the code mentions them.
    globals.sort_by_key(|g| g.index());
    for g in globals {
        if let Some(var) = module.globals.get(g).filter(|v| v.space.is_shared()) {
            place(var, false, &mut offset, &mut usage);
        }
    }
    usage
}

fn place(var: &Variable, local: bool, offset: &mut u64, usage: &mut SharedUsage) {
    let bytes = var.size_bytes();
    match bytes {
        Some(b) => {
            let align = u64::from(var.align.unwrap_or_else(|| var.ty.bytes()).max(1));
            *offset = offset
                .div_ceil(align)
                .saturating_mul(align)
                .saturating_add(b);
            usage.static_bytes = *offset;
        }
        None => usage.uses_dynamic = true,
    }
    usage.variables.push(SharedVar {
        name: var.name.clone(),
        bytes,
        local,
    });
}

fn visit_symbols(op: &Operand, f: &mut impl FnMut(Symbol)) {
    match op {
        Operand::Symbol(s, _) => f(*s),
        Operand::Address(a) => {
            if let AddrBase::Symbol(s) = a.base {
                f(s)
            }
        }
        Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| visit_symbols(o, f)),
        _ => {}
    }
}
