//! The launch of one configuration, as Kernel Tuner made it: what to
//! compile (source, defines, include directories), how to launch it (grid,
//! block) and with which data (arguments, `__constant__` symbols). The
//! vocabulary (element types, `init`) is the one of the launch spec TOML in
//! DESIGN.md, so a caller can hand it to the emulator unchanged.

use std::fmt;
use std::path::PathBuf;

use crate::source::{Define, SourceFiles};

/// Element or scalar type, named as in the launch spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    BF16,
    F32,
    F64,
}

impl ScalarType {
    const ALL: [(ScalarType, &'static str, u32); 12] = [
        (ScalarType::I8, "i8", 1),
        (ScalarType::U8, "u8", 1),
        (ScalarType::I16, "i16", 2),
        (ScalarType::U16, "u16", 2),
        (ScalarType::I32, "i32", 4),
        (ScalarType::U32, "u32", 4),
        (ScalarType::I64, "i64", 8),
        (ScalarType::U64, "u64", 8),
        (ScalarType::F16, "f16", 2),
        (ScalarType::BF16, "bf16", 2),
        (ScalarType::F32, "f32", 4),
        (ScalarType::F64, "f64", 8),
    ];

    /// Parses a launch-spec type name (`"f32"`).
    pub fn parse(name: &str) -> Option<ScalarType> {
        Self::ALL
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(t, _, _)| *t)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(t, _, _)| *t == self)
            .map_or("?", |(_, n, _)| n)
    }

    /// Size in bytes.
    pub fn size(self) -> u32 {
        Self::ALL
            .iter()
            .find(|(t, _, _)| *t == self)
            .map_or(0, |(_, _, s)| *s)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64
        )
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scalar argument's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    Int(i64),
    Float(f64),
}

/// How a buffer or constant symbol is filled before the launch.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Zeros,
    /// Element i holds i.
    Iota,
    Fill(f64),
    /// Uniform in [lo, hi) from the consumer's seeded generator.
    Random {
        seed: u64,
        lo: f64,
        hi: f64,
    },
    /// Raw little-endian elements from a file.
    File(PathBuf),
    /// Explicit values, computed from an experiment's `formula`.
    Values(Vec<f64>),
}

/// One kernel parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum LaunchArg {
    Scalar {
        name: String,
        ty: ScalarType,
        value: ScalarValue,
    },
    /// A pointer to a fresh global buffer of `len` elements.
    Buffer {
        name: String,
        elem: ScalarType,
        len: u64,
        init: Init,
        /// In mapped (zero-copy) host memory: every access crosses PCIe.
        host_mapped: bool,
    },
}

impl LaunchArg {
    pub fn name(&self) -> &str {
        match self {
            LaunchArg::Scalar { name, .. } | LaunchArg::Buffer { name, .. } => name,
        }
    }

    /// The bytes of a buffer in mapped host memory (0 for anything else).
    pub fn host_mapped_bytes(&self) -> u64 {
        match self {
            LaunchArg::Buffer {
                elem,
                len,
                host_mapped: true,
                ..
            } => len.saturating_mul(u64::from(elem.size())),
            _ => 0,
        }
    }
}

/// A `__constant__` (or `__device__`) symbol to initialise.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchConstant {
    pub name: String,
    pub elem: ScalarType,
    pub len: u64,
    pub init: Init,
}

/// Everything needed to compile and launch one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The kernel's source files and header, resolved against the
    /// experiment file's folder.
    pub source: SourceFiles,
    /// Entry name as written in the source (C++ names unmangled).
    pub kernel: String,
    /// Kernel Tuner's prefix, in order; see `source::instantiate_source`.
    pub defines: Vec<Define>,
    /// `-I` directories for the compiler, resolved like `source`.
    pub include_dirs: Vec<PathBuf>,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub args: Vec<LaunchArg>,
    pub constants: Vec<LaunchConstant>,
}

impl Launch {
    /// A stable key for caching the compiled PTX: the source paths and the
    /// defines (grid and block are among them).
    pub fn compile_key(&self) -> String {
        let mut key = String::new();
        for (i, path) in self.source.paths().enumerate() {
            if i > 0 {
                key.push('+');
            }
            key.push_str(&path.display().to_string());
        }
        for d in &self.defines {
            key.push('|');
            match d {
                Define::Macro { name, value } => key.push_str(&format!("{name}={value}")),
                Define::Constexpr { name, value } => key.push_str(&format!("{name}:={value}")),
                Define::DropUnrollPragma { name } => key.push_str(&format!("{name}!")),
            }
        }
        key
    }
}
