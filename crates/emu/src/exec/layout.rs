//! Where every variable of a module lives: global allocations for `.global`
//! symbols, offsets in the constant bank, in the CTA's shared memory, and in
//! each function's per-thread frame (`.local` depots, `.param` variables of
//! call sequences, a device function's own parameters and return values).

use std::collections::HashMap;

use ptx::{Function, Immediate, Initializer, Module, StateSpace, Type, Variable};

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

/// Little-endian bytes of an initializer for a variable of type `ty`; an
/// error names a symbol without an address (never a silent 0).
fn init_bytes(
    init: &Initializer,
    ty: Type,
    size: usize,
    resolve: &dyn Fn(&ptx::Symbol) -> Result<u64, String>,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(size);
    let width = ty.bytes().max(1) as usize;
    fn walk(
        i: &Initializer,
        ty: Type,
        width: usize,
        out: &mut Vec<u8>,
        resolve: &dyn Fn(&ptx::Symbol) -> Result<u64, String>,
    ) -> Result<(), String> {
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
            Initializer::Symbol { symbol, offset, .. } => {
                let a = resolve(symbol)?.wrapping_add(*offset as u64);
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
    pub fn build(module: &Module) -> Result<ModuleLayout, String> {
        // Refuse absurd sizes before allocating anything.
        for (_, v) in module.globals.iter() {
            if v.size_bytes().unwrap_or(0) > MAX_SPACE_BYTES {
                return Err(format!(
                    "variable `{}` is larger than {MAX_SPACE_BYTES} bytes",
                    v.name
                ));
            }
        }
        for (_, f) in module.functions.iter() {
            for (_, l) in f.locals.iter() {
                if l.var.size_bytes().unwrap_or(0) > MAX_SPACE_BYTES {
                    return Err(format!(
                        "variable `{}` of `{}` is larger than {MAX_SPACE_BYTES} bytes",
                        l.var.name, f.name
                    ));
                }
            }
        }
        let mut global = GlobalMemory::new();
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
            let (frame, kparams) = Self::frame_of(f, &mut shared_cursor, &mut shared_symbols);
            frames.push(frame);
            kernel_params.push(kparams);
        }
        let shared_static = shared_cursor.div_ceil(16) * 16;
        if shared_static > MAX_SPACE_BYTES || const_cursor > MAX_SPACE_BYTES {
            return Err(format!(
                "static shared or constant memory exceeds {MAX_SPACE_BYTES} bytes"
            ));
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

    fn frame_of(
        f: &Function,
        shared_cursor: &mut u64,
        shared_symbols: &mut Vec<(String, u64, u64)>,
    ) -> (FrameLayout, Vec<(u64, u64)>) {
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
                let (off, size) = place(shared_cursor, &l.var);
                shared_symbols.push((l.var.name.clone(), off, size));
                frame.shared.insert(h.index(), off);
            } else {
                let (off, _) = place(&mut cursor, &l.var);
                frame.locals.insert(h.index(), off);
            }
        }
        frame.size = cursor.div_ceil(16) * 16;
        (frame, kparams)
    }

    fn write_initializers(&mut self, module: &Module) -> Result<(), String> {
        let addr_of = |globals: &[Option<Placed>], s: &ptx::Symbol| match s {
            ptx::Symbol::Global(g) => globals
                .get(g.index())
                .copied()
                .flatten()
                .map(|p| match p.space {
                    Space::Global => p.addr,
                    other => crate::mem::generic::to_generic(other, p.addr),
                })
                .ok_or_else(|| {
                    let name = module.globals.get(*g).map_or("?", |v| v.name.as_str());
                    format!("`{name}` has no address in the emulator")
                }),
            // The address `mov.u64 %rd, f` gives (a table of functions).
            ptx::Symbol::Function(f) => Ok(crate::exec::decode::FUNC_BASE + f.index() as u64),
            other => Err(format!("{other:?} is not a module-scope symbol")),
        };
        let globals = self.globals.clone();
        for (h, v) in module.globals.iter() {
            let (Some(init), Some(Some(p))) = (&v.init, globals.get(h.index())) else {
                continue;
            };
            let size = v.size_bytes().unwrap_or(0) as usize;
            let bytes = init_bytes(init, v.ty, size, &|s| addr_of(&globals, s))
                .map_err(|e| format!("the initializer of `{}`: {e}", v.name))?;
            // Placement makes the bytes fit: a failure is an emulator bug,
            // reported rather than leaving the variable zero.
            match p.space {
                Space::Global => self.global.write(p.addr, &bytes, 1),
                Space::Const => self.const_bank.init(p.addr, &bytes),
                _ => Ok(()),
            }
            .map_err(|e| format!("the initializer of `{}`: {e}", v.name))?;
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
