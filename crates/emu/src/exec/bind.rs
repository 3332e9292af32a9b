//! The host side of a launch: the bytes each kernel argument and each
//! `[[constant]]` symbol holds before the first CTA runs, checked against the
//! kernel's parameters and the module's symbols.
//!
//! The emulator's own launch ([`super::launch()`]) binds through these
//! functions, and so can anything that launches the same spec elsewhere (a
//! real GPU, crate `gpurun`): both see the same bytes and the same errors.

use ptx::{Function, Handle, Module};

use super::launch::launch_err;
use super::layout::{ModuleLayout, Placed};
use crate::fault::Fault;
use crate::mem::Space;
use crate::spec::{ArgSpec, LaunchSpec, ScalarType, TextureView};

/// One kernel argument as the launch binds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostArg {
    /// A scalar's little-endian encoding, exactly the parameter's size.
    Scalar { name: String, bytes: Vec<u8> },
    /// A fresh global buffer's initial contents; the parameter holds its
    /// address (8 bytes, or 4 in an `.address_size 32` module).
    Buffer {
        name: String,
        elem: ScalarType,
        bytes: Vec<u8>,
        /// A texture object over the buffer: the parameter holds the
        /// object's handle (8 bytes), not the address.
        texture: Option<TextureView>,
    },
    /// A struct with pointer members: its bytes, each pointer member's
    /// buffer, and where the launch writes that buffer's address.
    Struct {
        name: String,
        bytes: Vec<u8>,
        pointers: Vec<StructPointer>,
    },
}

/// A pointer member of a struct argument: a fresh global buffer whose
/// address goes at `offset` of the struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructPointer {
    pub offset: u64,
    /// `<argument>.<field>`: the buffer's name in dumps and results.
    pub name: String,
    pub elem: ScalarType,
    pub bytes: Vec<u8>,
}

impl HostArg {
    pub fn name(&self) -> &str {
        match self {
            Self::Scalar { name, .. } | Self::Buffer { name, .. } | Self::Struct { name, .. } => {
                name
            }
        }
    }
}

/// The initial bytes of a `[[constant]]` (a `__constant__` or `__device__` symbol).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConstant {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Everything a launch of a spec binds: the entry's name in the module (as
/// PTX spells it, mangled), its arguments in parameter order, and the constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLaunch {
    pub entry: String,
    pub args: Vec<HostArg>,
    pub constants: Vec<HostConstant>,
}

/// An argument bound to its kernel parameter.
pub(super) struct BoundArg {
    pub arg: HostArg,
    /// The parameter's name in the PTX.
    pub param: String,
    pub offset: u64,
    pub size: u64,
}

/// A constant bound to where the layout placed its symbol.
pub(super) struct BoundConstant {
    pub placed: Placed,
    pub constant: HostConstant,
}

/// The spec's kernel entry in `module` (by exact name, else by its unique
/// nested-name match), the argument bytes and the constant bytes of a launch
/// of `spec`. `file` names the PTX in errors.
pub fn host_launch(
    module: &Module,
    file: &str,
    spec: &LaunchSpec,
) -> Result<HostLaunch, Box<Fault>> {
    let entry = super::launch::resolve_entry(module, file, spec)?;
    let layout = ModuleLayout::build(module).map_err(|e| launch_err(e.to_string()))?;
    let args = bind_args(module, &layout, spec, entry)?;
    if let Some(b) = args
        .iter()
        .find(|b| matches!(b.arg, HostArg::Struct { .. }))
    {
        return Err(launch_err(format!(
            "argument `{}`: a struct with pointer members runs on the emulator but cannot be launched on a GPU yet (give the pointers as arguments of their own)",
            b.arg.name()
        )));
    }
    if let Some(b) = args.iter().find(|b| {
        matches!(
            b.arg,
            HostArg::Buffer {
                texture: Some(_),
                ..
            }
        )
    }) {
        return Err(launch_err(format!(
            "argument `{}`: a texture or surface object runs on the emulator but cannot be launched on a GPU yet",
            b.arg.name()
        )));
    }
    let constants = bind_constants(module, &layout, spec)?;
    let name = module
        .functions
        .get(entry)
        .map(|f| f.name.clone())
        .ok_or_else(|| launch_err("internal: the kernel handle names no function"))?;
    Ok(HostLaunch {
        entry: name,
        args: args.into_iter().map(|b| b.arg).collect(),
        constants: constants.into_iter().map(|c| c.constant).collect(),
    })
}

/// The spec's arguments bound to the parameters of `entry`: one per
/// parameter, scalars of the parameter's size, buffers on 64-bit parameters.
pub(super) fn bind_args(
    module: &Module,
    layout: &ModuleLayout,
    spec: &LaunchSpec,
    entry: Handle<Function>,
) -> Result<Vec<BoundArg>, Box<Fault>> {
    let kfunc = module
        .functions
        .get(entry)
        .ok_or_else(|| Fault::launch("kernel handle"))?;
    // Every kernel has its parameter layout: a missing one is a layout bug,
    // not "no parameters".
    let kparams = layout
        .kernel_params
        .get(entry.index())
        .cloned()
        .ok_or_else(|| {
            launch_err(format!(
                "internal: no parameter layout for kernel `{}`",
                kfunc.name
            ))
        })?;
    if kparams.len() != spec.args.len() {
        return Err(launch_err(format!(
            "kernel `{}` takes {} parameters, the spec gives {} [[arg]] entries",
            kfunc.name,
            kparams.len(),
            spec.args.len()
        )));
    }
    let mut bound = Vec::with_capacity(kparams.len());
    for (i, (arg, &(offset, size))) in spec.args.iter().zip(&kparams).enumerate() {
        let pname = kfunc.params.get(i).map_or("?", |p| p.name.as_str());
        let ptype = kfunc.params.get(i).and_then(scalar_param_type);
        let arg = match arg {
            ArgSpec::Scalar { name, ty, value } => {
                if let Some(pt) = ptype
                    && let Some(why) = kind_mismatch(ty.is_float(), pt)
                {
                    return Err(launch_err(format!(
                        "argument `{name}` is {ty}, but parameter {i} `{pname}` is .{}: {why}",
                        pt.name()
                    )));
                }
                let mut b = Vec::new();
                ty.encode(*value, &mut b)
                    .map_err(|e| Fault::launch(format!("argument `{name}`: {e}")))?;
                if b.len() as u64 != size {
                    return Err(launch_err(format!(
                        "argument `{name}` is {ty} ({} bytes), but parameter {i} `{pname}` takes {size} bytes",
                        b.len()
                    )));
                }
                HostArg::Scalar {
                    name: name.clone(),
                    bytes: b,
                }
            }
            ArgSpec::Struct(st) => {
                let laid = st
                    .layout(pointer_bytes(module) as usize)
                    .map_err(|e| Fault::launch(format!("argument `{}`: {e}", st.name)))?;
                if laid.bytes.len() as u64 != size {
                    return Err(launch_err(format!(
                        "argument `{}` is a struct of {} bytes ({} fields, aligned to {}), but parameter {i} `{pname}` takes {size} bytes",
                        st.name,
                        laid.bytes.len(),
                        st.fields.len(),
                        laid.align
                    )));
                }
                if laid.pointers.is_empty() {
                    HostArg::Scalar {
                        name: st.name.clone(),
                        bytes: laid.bytes,
                    }
                } else {
                    let mut pointers = Vec::with_capacity(laid.pointers.len());
                    for (offset, b) in laid.pointers {
                        let bytes = spec
                            .initial_bytes(b.elem, b.len, &b.init)
                            .map_err(|e| Fault::launch(e.to_string()))?;
                        pointers.push(StructPointer {
                            offset,
                            name: b.name.clone(),
                            elem: b.elem,
                            bytes,
                        });
                    }
                    HostArg::Struct {
                        name: st.name.clone(),
                        bytes: laid.bytes,
                        pointers,
                    }
                }
            }
            ArgSpec::Buffer(bs) => {
                // A texture object is a 64-bit handle in every module.
                let want = if bs.texture.is_some() {
                    8
                } else {
                    pointer_bytes(module)
                };
                if let Some(pt) = ptype
                    && pt.is_float()
                {
                    return Err(launch_err(format!(
                        "pointer argument `{}` is bound to parameter {i} `{pname}`, which is .{}: a pointer needs an integer parameter",
                        bs.name,
                        pt.name()
                    )));
                }
                if size != want {
                    let what = match bs.texture {
                        Some(v) if v.surface => "surface argument",
                        Some(_) => "texture argument",
                        None => "pointer argument",
                    };
                    return Err(launch_err(format!(
                        "{what} `{}` needs a {}-bit parameter; `{pname}` has {size} bytes",
                        bs.name,
                        want * 8
                    )));
                }
                let bytes = spec
                    .initial_bytes(bs.elem, bs.len, &bs.init)
                    .map_err(|e| Fault::launch(e.to_string()))?;
                HostArg::Buffer {
                    name: bs.name.clone(),
                    elem: bs.elem,
                    bytes,
                    texture: bs.texture,
                }
            }
        };
        bound.push(BoundArg {
            arg,
            param: pname.to_string(),
            offset,
            size,
        });
    }
    Ok(bound)
}

/// Bytes of a pointer in `module`: as wide as its addresses (8, or 4 with
/// `.address_size 32`).
pub(super) fn pointer_bytes(module: &Module) -> u64 {
    if module.address_size == Some(32) {
        4
    } else {
        8
    }
}

/// The type of a plain scalar parameter (not a vector, not a byte array
/// holding a struct or a half passed by value), whose kind can be checked.
fn scalar_param_type(p: &ptx::ir::Variable) -> Option<ptx::ir::Type> {
    (p.vec.is_none() && p.dims.is_empty()).then_some(p.ty)
}

/// Why a value of the spec's kind does not suit a parameter of type `pt`:
/// a float value in an integer parameter (`.u32`, `.s64`) or an integer in a
/// float one. Untyped bits (`.b32`) take either: the PTX does not say.
/// Sizes are checked apart, so an `f32` given for an `int` is caught here
/// although both are 4 bytes.
fn kind_mismatch(value_is_float: bool, pt: ptx::ir::Type) -> Option<&'static str> {
    use ptx::ir::TypeKind;
    match (value_is_float, pt.kind()) {
        (true, TypeKind::Signed | TypeKind::Unsigned) => {
            Some("a float value for an integer parameter (declare it as an integer type)")
        }
        (false, TypeKind::Float) => {
            Some("an integer value for a float parameter (declare it as f16, bf16, f32 or f64)")
        }
        _ => None,
    }
}

/// The spec's `[[constant]]` entries bound to the module's symbols: each
/// must exist, be in constant or global memory, and hold its bytes.
pub(super) fn bind_constants(
    module: &Module,
    layout: &ModuleLayout,
    spec: &LaunchSpec,
) -> Result<Vec<BoundConstant>, Box<Fault>> {
    let mut bound = Vec::with_capacity(spec.constants.len());
    for c in &spec.constants {
        let (placed, size) = layout.symbol(module, &c.name).ok_or_else(|| {
            Fault::launch(format!(
                "[[constant]] `{}`: no such __constant__ or __device__ symbol",
                c.name
            ))
        })?;
        let bytes = spec
            .initial_bytes(c.elem, c.len, &c.init)
            .map_err(|e| Fault::launch(e.to_string()))?;
        if bytes.len() as u64 > size {
            return Err(launch_err(format!(
                "[[constant]] `{}`: {} bytes do not fit the symbol's {size}",
                c.name,
                bytes.len()
            )));
        }
        if !matches!(placed.space, Space::Const | Space::Global) {
            return Err(launch_err(format!(
                "[[constant]] `{}` is in {} memory",
                c.name, placed.space
            )));
        }
        bound.push(BoundConstant {
            placed,
            constant: HostConstant {
                name: c.name.clone(),
                bytes,
            },
        });
    }
    Ok(bound)
}
