//! Where every variable of a module lives: global allocations for `.global`
//! symbols, offsets in the constant bank, in the CTA's shared memory, and in
//! each function's per-thread frame (`.local` depots, `.param` variables of
//! call sequences, a device function's own parameters and return values).

use std::collections::HashMap;

use ptx::{Function, Immediate, Initializer, Module, StateSpace, Type, Variable};

use super::decode::FUNC_BASE;
use super::layout_error::LayoutError;
use crate::mem::generic::Width;
use crate::mem::{GlobalMemory, Region, Space};

/// Largest shared, constant or local space, or single variable, the emulator
/// accepts (16 MiB; GPUs allow 228 KiB of shared and 64 KiB of constant memory).
pub const MAX_SPACE_BYTES: u64 = 1 << 24;

/// Where a module-scope variable was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub space: Space,
    pub addr: u64,
}

/// The per-thread frame of one function.
#[derive(Debug, Clone, Default)]
pub struct FrameLayout {
    /// Offsets of the function's parameters (device functions only).
    pub params: Vec<(u64, u64)>,
    /// Offsets of its return parameters.
    pub rets: Vec<(u64, u64)>,
    /// Offsets of body variables in the frame (by `LocalVar` index); shared
    /// variables are in `shared` instead.
    pub locals: HashMap<usize, u64>,
    /// Offsets of body `.shared` variables in the CTA's shared memory.
    pub shared: HashMap<usize, u64>,
    /// Body `.global` and `.const` variables: static storage, like module
    /// variables (one instance per launch), named only inside their block.
    pub statics: HashMap<usize, Placed>,
    pub size: u64,
}

/// Memory images and offsets built from a module before any CTA runs.
#[derive(Debug, Clone)]
pub struct ModuleLayout {
    pub globals: Vec<Option<Placed>>,
    pub frames: Vec<FrameLayout>,
    /// Kernel parameter offsets and sizes, per function (used for entries).
    pub kernel_params: Vec<Vec<(u64, u64)>>,
    /// Bytes of static shared memory; dynamic shared memory starts here.
    pub shared_static: u64,
    /// Named shared symbols (for fault messages).
    pub shared_symbols: Vec<(String, u64, u64)>,
    /// Extern (dynamic) shared symbols: they all start at `shared_static`.
    pub const_bank: Region,
    pub global: GlobalMemory,
}

fn align_of(v: &Variable) -> u64 {
    let natural = u64::from(v.ty.bytes().max(1)) * u64::from(v.vec.map_or(1, |w| w.lanes()));
    v.align.map_or(natural, u64::from).max(1)
}

fn place(cursor: &mut u64, v: &Variable) -> (u64, u64) {
    let align = align_of(v);
    let off = cursor.div_ceil(align) * align;
    let size = v.size_bytes().unwrap_or(0);
    *cursor = off + size;
    (off, size)
}

/// Allocation state shared by the frames of all functions: body `.shared`,
/// `.const` and `.global` variables live in the module-wide spaces.
struct Cursors<'a> {
    shared: &'a mut u64,
    shared_symbols: &'a mut Vec<(String, u64, u64)>,
    konst: &'a mut u64,
    const_syms: &'a mut Vec<(String, u64, u64)>,
    global: &'a mut GlobalMemory,
}

/// Little-endian bytes of an initializer for a variable of type `ty`; an
/// error names a symbol without an address (never a silent 0).
fn init_bytes(
    init: &Initializer,
    ty: Type,
    size: usize,
    resolve: &dyn Fn(&ptx::Symbol, bool) -> Result<u64, LayoutError>,
) -> Result<Vec<u8>, LayoutError> {
    let mut out = Vec::with_capacity(size);
    let width = ty.bytes().max(1) as usize;
    fn walk(
        i: &Initializer,
        ty: Type,
        width: usize,
        out: &mut Vec<u8>,
        resolve: &dyn Fn(&ptx::Symbol, bool) -> Result<u64, LayoutError>,
    ) -> Result<(), LayoutError> {
        match i {
            Initializer::Imm(imm) => {
                let bits: u64 = match (*imm, ty) {
                    (Immediate::F64(b), Type::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
                    (Immediate::F32(b), Type::F64) => (f32::from_bits(b) as f64).to_bits(),
                    (Immediate::Int(i), Type::F32) => (i as f32).to_bits() as u64,
                    (Immediate::Int(i), Type::F64) => (i as f64).to_bits(),
                    (Immediate::Int(i), _) => i as u64,
                    (Immediate::F32(b), _) => b as u64,
                    (Immediate::F64(b), _) => b,
                };
                out.extend_from_slice(&bits.to_le_bytes()[..width.min(8)]);
            }
            Initializer::Symbol {
                symbol,
                offset,
                generic,
            } => {
                let a = resolve(symbol, *generic)?.wrapping_add(*offset as u64);
                out.extend_from_slice(&a.to_le_bytes()[..width.min(8)]);
            }
            Initializer::List(items) => {
                for it in items {
                    walk(it, ty, width, out, resolve)?;
                }
            }
        }
        Ok(())
    }
    walk(init, ty, width, &mut out, resolve)?;
    out.resize(size, 0);
    Ok(out)
}

impl ModuleLayout {
    /// Lay the module out; an error names a variable or space too large to emulate.
    pub fn build(module: &Module) -> Result<ModuleLayout, LayoutError> {
        // Refuse absurd sizes before allocating anything.
        for (_, v) in module.globals.iter() {
            if v.size_bytes().unwrap_or(0) > MAX_SPACE_BYTES {
                return Err(LayoutError::VariableTooLarge {
                    name: v.name.clone(),
                });
            }
        }
        for (_, f) in module.functions.iter() {
            for (_, l) in f.locals.iter() {
                if l.var.size_bytes().unwrap_or(0) > MAX_SPACE_BYTES {
                    return Err(LayoutError::LocalTooLarge {
                        name: l.var.name.clone(),
                        function: f.name.clone(),
                    });
                }
            }
        }
        // 32-bit modules address global memory with 32-bit pointers.
        let mut global = if module.address_size == Some(32) {
            GlobalMemory::with_base(crate::mem::GLOBAL_BASE_32)
        } else {
            GlobalMemory::new()
        };
        let mut globals: Vec<Option<Placed>> = Vec::with_capacity(module.globals.len());
        let mut shared_cursor = 0u64;
        let mut const_cursor = 0u64;
        let mut shared_symbols = Vec::new();
        let mut const_syms = Vec::new();
        let mut externs_shared = Vec::new();
        // First pass: offsets and sizes. Initial data needs every address, so it comes second.
        for (h, v) in module.globals.iter() {
            let placed = match v.space {
                s if s.is_shared() => {
                    if v.size_bytes().is_none() || v.dims.first().is_some_and(|d| d.is_none()) {
                        externs_shared.push(h.index());
                        None
                    } else {
                        let (off, size) = place(&mut shared_cursor, v);
                        shared_symbols.push((v.name.clone(), off, size));
                        Some(Placed {
                            space: Space::Shared,
                            addr: off,
                        })
                    }
                }
                StateSpace::Const => {
                    let (off, size) = place(&mut const_cursor, v);
                    const_syms.push((v.name.clone(), off, size));
                    Some(Placed {
                        space: Space::Const,
                        addr: off,
                    })
                }
                StateSpace::Global => {
                    let size = v.size_bytes().unwrap_or(0) as usize;
                    let addr = global.alloc(&v.name, vec![0; size]);
                    Some(Placed {
                        space: Space::Global,
                        addr,
                    })
                }
                _ => None,
            };
            globals.push(placed);
        }
        // Body variables of every function.
        let mut frames = Vec::with_capacity(module.functions.len());
        let mut kernel_params = Vec::with_capacity(module.functions.len());
        for (_, f) in module.functions.iter() {
            let mut cursors = Cursors {
                shared: &mut shared_cursor,
                shared_symbols: &mut shared_symbols,
                konst: &mut const_cursor,
                const_syms: &mut const_syms,
                global: &mut global,
            };
            let (frame, kparams) = Self::frame_of(f, &mut cursors);
            frames.push(frame);
            kernel_params.push(kparams);
        }
        let shared_static = shared_cursor.div_ceil(16) * 16;
        if shared_static > MAX_SPACE_BYTES || const_cursor > MAX_SPACE_BYTES {
            return Err(LayoutError::StaticSpaces);
        }
        for i in externs_shared {
            if let Some(slot) = globals.get_mut(i) {
                *slot = Some(Placed {
                    space: Space::Shared,
                    addr: shared_static,
                });
            }
        }
        let mut const_bank = Region::new(Space::Const, const_cursor as usize, false);
        for (name, off, size) in &const_syms {
            const_bank.add_symbol(name, *off, *size);
        }
        let mut layout = ModuleLayout {
            globals,
            frames,
            kernel_params,
            shared_static,
            shared_symbols,
            const_bank,
            global,
        };
        layout.write_initializers(module)?;
        Ok(layout)
    }

    fn frame_of(f: &Function, c: &mut Cursors<'_>) -> (FrameLayout, Vec<(u64, u64)>) {
        let mut frame = FrameLayout::default();
        let mut cursor = 0u64;
        let mut kparams = Vec::new();
        if f.is_entry() {
            let mut pc = 0u64;
            for p in &f.params {
                kparams.push(place(&mut pc, p));
            }
        } else {
            for p in &f.params {
                frame.params.push(place(&mut cursor, p));
            }
            for r in &f.returns {
                frame.rets.push(place(&mut cursor, r));
            }
        }
        for (h, l) in f.locals.iter() {
            if l.var.space.is_shared() {
                let (off, size) = place(c.shared, &l.var);
                c.shared_symbols.push((l.var.name.clone(), off, size));
                frame.shared.insert(h.index(), off);
            } else if l.var.space == StateSpace::Const {
                let (off, size) = place(c.konst, &l.var);
                c.const_syms.push((l.var.name.clone(), off, size));
                let p = Placed {
                    space: Space::Const,
                    addr: off,
                };
                frame.statics.insert(h.index(), p);
            } else if l.var.space == StateSpace::Global {
                let size = l.var.size_bytes().unwrap_or(0) as usize;
                let p = Placed {
                    space: Space::Global,
                    addr: c.global.alloc(&l.var.name, vec![0; size]),
                };
                frame.statics.insert(h.index(), p);
            } else {
                let (off, _) = place(&mut cursor, &l.var);
                frame.locals.insert(h.index(), off);
            }
        }
        frame.size = cursor.div_ceil(16) * 16;
        (frame, kparams)
    }

    /// PTX ISA 5.4.4 "Initializers": a variable named in an initializer is
    /// its address in its own state space (what `mov` gives: the offset in
    /// the constant bank for a `.const` variable); `generic(var)` is its
    /// generic address. Global addresses are generic addresses here, so the
    /// two differ only for the other spaces. A symbol without an address is
    /// an error, never a silent 0.
    fn write_initializers(&mut self, module: &Module) -> Result<(), LayoutError> {
        let width = if module.address_size == Some(32) {
            Width::A32
        } else {
            Width::A64
        };
        let addr_of = |globals: &[Option<Placed>], s: &ptx::Symbol, generic: bool| match s {
            ptx::Symbol::Global(g) => globals
                .get(g.index())
                .copied()
                .flatten()
                .map(|p| match p.space {
                    other if generic => width.to_generic(other, p.addr),
                    _ => p.addr,
                })
                .ok_or_else(|| {
                    let name = module.globals.get(*g).map_or("?", |v| v.name.as_str());
                    LayoutError::NoAddress {
                        name: name.to_string(),
                    }
                }),
            // The address `mov.u64 %rd, f` gives (a table of functions).
            ptx::Symbol::Function(f) => Ok(FUNC_BASE + f.index() as u64),
            other => Err(LayoutError::NotModuleScope { symbol: *other }),
        };
        let globals = self.globals.clone();
        let module_vars = module
            .globals
            .iter()
            .filter_map(|(h, v)| Some((v, globals.get(h.index()).copied().flatten()?)));
        let body_vars = module
            .functions
            .iter()
            .zip(&self.frames)
            .flat_map(|((_, f), fr)| {
                f.locals
                    .iter()
                    .filter_map(|(h, l)| Some((&l.var, fr.statics.get(&h.index()).copied()?)))
            });
        let mut inits: Vec<(Placed, &str, Vec<u8>)> = Vec::new();
        for (v, p) in module_vars.chain(body_vars) {
            let Some(init) = v.init.as_ref() else {
                continue;
            };
            let size = v.size_bytes().unwrap_or(0) as usize;
            let bytes =
                init_bytes(init, v.ty, size, &|s, g| addr_of(&globals, s, g)).map_err(|e| {
                    LayoutError::Initializer {
                        name: v.name.clone(),
                        reason: Box::new(e),
                    }
                })?;
            inits.push((p, v.name.as_str(), bytes));
        }
        for (p, name, bytes) in inits {
            // Placement makes the bytes fit: a failure is an emulator bug,
            // reported rather than leaving the variable zero.
            match p.space {
                Space::Global => self.global.write(p.addr, &bytes, 1),
                Space::Const => self.const_bank.init(p.addr, &bytes),
                _ => Ok(()),
            }
            .map_err(|fault| LayoutError::InitializerWrite {
                name: name.to_string(),
                fault,
            })?;
        }
        Ok(())
    }

    /// Where a module symbol lives, by name (for `[[constant]]` initialisation).
    pub fn symbol(&self, module: &Module, name: &str) -> Option<(Placed, u64)> {
        let h = module.global_by_name(name)?;
        let v = module.globals.get(h)?;
        let p = self.globals.get(h.index()).copied().flatten()?;
        Some((p, v.size_bytes().unwrap_or(0)))
    }
}
