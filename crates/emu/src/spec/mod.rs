//! Launch specs (TOML, the format of DESIGN.md): what kernel to run, on what
//! grid, with what arguments and constant data.
//!
//! Parsing walks `toml::de::DeTable`, which keeps byte spans, so every error
//! names `file:line:col`. Integer fields accept an integer or a string holding
//! an expression over `defines` (see [`expr`]). Buffers are materialised by
//! [`init::materialize`].

pub mod expr;
pub mod init;
mod parse;
pub mod types;

use std::fmt;
use std::path::PathBuf;

pub use init::{Init, InitError};
pub use parse::{Limits, parse, parse_with};
pub use types::{EncodeError, Number, ScalarType};

/// The kind of source a spec names, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Cuda,
    Ptx,
}

/// A `-D` value: an integer (usable in expressions) or any other text, passed on verbatim.
#[derive(Debug, Clone, PartialEq)]
pub enum DefineValue {
    Int(i64),
    Text(String),
}

impl fmt::Display for DefineValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Text(s) => f.write_str(s),
        }
    }
}

/// A parsed launch spec. Paths are resolved against the spec file's directory.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSpec {
    /// The spec file itself, as given.
    pub path: PathBuf,
    pub source: PathBuf,
    pub source_kind: SourceKind,
    pub kernel: String,
    /// In name order; `--set` overrides already applied.
    pub defines: Vec<(String, DefineValue)>,
    pub arch: Option<String>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub args: Vec<ArgSpec>,
    pub constants: Vec<ConstantSpec>,
    /// Per-warp instruction budget override (`fuel = ...`), if given.
    pub fuel: Option<u64>,
}

impl LaunchSpec {
    pub fn threads_per_cta(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }

    /// Integer value of a define, if it has one.
    pub fn define(&self, name: &str) -> Option<i64> {
        self.defines
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| match v {
                DefineValue::Int(i) => Some(*i),
                DefineValue::Text(_) => None,
            })
    }
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgSpec {
    Scalar {
        name: String,
        ty: ScalarType,
        value: Number,
    },
    Buffer(BufferSpec),
    /// A struct passed by value (`__global__ void k(Params p)`, a `float2`,
    /// a `__grid_constant__` parameter): scalar fields laid out as C lays
    /// them out.
    Struct(StructSpec),
}

impl ArgSpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Scalar { name, .. } => name,
            Self::Buffer(b) => &b.name,
            Self::Struct(s) => &s.name,
        }
    }
}

/// A struct argument: its fields in declaration order, each at the next
/// offset that is a multiple of its size (the C layout of scalar and pointer
/// members), the whole rounded up to a multiple of its alignment: the
/// largest field's size, or `align` where the type says more
/// (`__align__(16)`, as CUDA's `float4`).
#[derive(Debug, Clone, PartialEq)]
pub struct StructSpec {
    pub name: String,
    pub fields: Vec<StructField>,
    /// The alignment the spec gives (`align`), if any (a power of two).
    pub align: Option<u64>,
}

/// One member of a struct argument.
#[derive(Debug, Clone, PartialEq)]
pub enum StructField {
    Scalar(ScalarType, Number),
    /// A pointer member: a fresh global buffer (named `<arg>.<field>`)
    /// whose address the launch writes into the struct.
    Pointer(BufferSpec),
}

/// A struct argument laid out: its bytes (pointer members zero) and where
/// each pointer member sits.
#[derive(Debug, Clone, PartialEq)]
pub struct StructLayout<'a> {
    pub bytes: Vec<u8>,
    /// (byte offset, the member's buffer), in field order.
    pub pointers: Vec<(u64, &'a BufferSpec)>,
    pub align: u64,
}

impl StructSpec {
    /// The struct laid out with pointers of `pointer_bytes` (8, or 4 in an
    /// `.address_size 32` module), padding zeroed.
    pub fn layout(&self, pointer_bytes: usize) -> Result<StructLayout<'_>, EncodeError> {
        let mut out = Vec::new();
        let mut pointers = Vec::new();
        let mut natural = 1;
        for f in &self.fields {
            match f {
                StructField::Scalar(ty, value) => {
                    let size = ty.size();
                    natural = natural.max(size);
                    out.resize(out.len().next_multiple_of(size), 0);
                    ty.encode(*value, &mut out)?;
                }
                StructField::Pointer(b) => {
                    natural = natural.max(pointer_bytes);
                    out.resize(out.len().next_multiple_of(pointer_bytes), 0);
                    pointers.push((out.len() as u64, b));
                    out.resize(out.len() + pointer_bytes, 0);
                }
            }
        }
        let align = self.align.unwrap_or(1).max(natural as u64);
        out.resize(out.len().next_multiple_of(align as usize), 0);
        Ok(StructLayout {
            bytes: out,
            pointers,
            align,
        })
    }

    /// The largest scalar field's size (what `align` may not go below; a
    /// pointer member's size depends on the module).
    pub fn scalar_align(fields: &[StructField]) -> u64 {
        fields
            .iter()
            .map(|f| match f {
                StructField::Scalar(t, _) => t.size() as u64,
                StructField::Pointer(_) => 1,
            })
            .max()
            .unwrap_or(1)
    }
}

/// A fresh global buffer of `len` elements of `elem`, filled by `init`.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub elem: ScalarType,
    pub len: u64,
    pub init: Init,
    /// The spec's `order_dependent = true`: the final contents depend on the
    /// order in which threads run (an atomicCAS winner, say), so a GPU may
    /// legitimately end with other values than the emulator.
    pub order_dependent: bool,
    /// The spec's `host_mapped = true`: the buffer lives in mapped
    /// (zero-copy) host memory, so every access of the kernel crosses PCIe.
    /// The emulator's memory is one space; only the timing reads it (the
    /// profile's PCIe bytes).
    pub host_mapped: bool,
    /// A `type = "texture"` argument: the buffer is the linear memory of a
    /// texture object, and the kernel's parameter gets the object's handle,
    /// not the buffer's address. `elem` is the channel type, `len` counts
    /// channels (texels x channels).
    pub texture: Option<TextureView>,
}

impl BufferSpec {
    pub fn bytes(&self) -> u64 {
        self.len.saturating_mul(self.elem.size() as u64)
    }
}

/// How a texture object reads its memory (a `cudaResourceDesc` with a
/// `cudaChannelFormatDesc`, and a `cudaTextureDesc`): the channels of one
/// texel, the shape, the read mode, the addressing and the filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureView {
    /// Channels per texel: 1, 2 or 4 (`float`, `float2`, `uchar4` ...).
    pub channels: u8,
    /// `cudaReadModeNormalizedFloat`: 8- and 16-bit integer channels read
    /// as floats in [0, 1] (unsigned) or [-1, 1] (signed).
    pub normalized: bool,
    /// Texels along x, y, z (1 past the texture's rank); the texels lie
    /// row after row, x fastest.
    pub dims: [u64; 3],
    /// Dimensions: 1, 2 or 3.
    pub rank: u8,
    /// What a texel index outside the texture reads.
    pub address: AddressMode,
    pub filter: FilterMode,
    /// `normalizedCoords`: float coordinates in [0, 1) span the texture.
    pub normalized_coords: bool,
    /// A surface object (`type = "surface"`, `cudaSurfaceObject_t`): read
    /// and written by `surf2Dread` and `surf2Dwrite`, x in bytes; the
    /// read mode, address mode, filter and coordinates above do not apply.
    pub surface: bool,
}

/// `cudaTextureAddressMode`, applied to texel indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressMode {
    /// Zeros outside the texture (`cudaAddressModeBorder`).
    Border,
    /// The nearest edge texel (`cudaAddressModeClamp`).
    Clamp,
    /// The texture repeats (`cudaAddressModeWrap`; normalized coordinates).
    Wrap,
    /// The texture repeats mirrored (`cudaAddressModeMirror`; normalized
    /// coordinates).
    Mirror,
}

/// `cudaTextureFilterMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterMode {
    /// The texel the coordinate falls in.
    Point,
    /// The weighted mean of the 2, 4 or 8 nearest texels (float reads only).
    Linear,
}

impl TextureView {
    /// The channel types a texture's texels may have (CUDA's channel
    /// formats of 8, 16 and 32 bits).
    pub const CHANNEL_TYPES: [ScalarType; 8] = [
        ScalarType::I8,
        ScalarType::U8,
        ScalarType::I16,
        ScalarType::U16,
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::F16,
        ScalarType::F32,
    ];
}

/// Initial data of a `__constant__` or `__device__` symbol of the module.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstantSpec {
    pub name: String,
    pub elem: ScalarType,
    pub len: u64,
    pub init: Init,
}

/// A spec error, rendered `file:line:col: error: message` (line 0: no position).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: error: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: error: {}",
                self.file, self.line, self.col, self.message
            )
        }
    }
}

impl LaunchSpec {
    /// The initial bytes of a buffer argument or constant symbol; errors (an
    /// unreadable or wrongly sized file, a bad random range) name the spec file.
    pub fn initial_bytes(
        &self,
        elem: ScalarType,
        len: u64,
        init: &Init,
    ) -> Result<Vec<u8>, SpecError> {
        init::materialize_kept(elem, len, init).map_err(|e| SpecError {
            file: self.path.display().to_string(),
            line: 0,
            col: 0,
            message: e.to_string(),
        })
    }
}
