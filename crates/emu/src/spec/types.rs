//! Element types of launch arguments and their little-endian encoding.

use half::{bf16, f16};

/// A scalar type a launch spec may name (`type = "f32"`, or `"f32*"` for a buffer).
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

/// A number as written in the spec, before it is given a type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl ScalarType {
    pub const ALL: [ScalarType; 12] = [
        Self::I8,
        Self::U8,
        Self::I16,
        Self::U16,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
        Self::F16,
        Self::BF16,
        Self::F32,
        Self::F64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::I8 => "i8",
            Self::U8 => "u8",
            Self::I16 => "i16",
            Self::U16 => "u16",
            Self::I32 => "i32",
            Self::U32 => "u32",
            Self::I64 => "i64",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 | Self::F16 | Self::BF16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::BF16 | Self::F32 | Self::F64)
    }

    /// Inclusive range of an integer type, as i128 so that u64 fits.
    fn int_range(self) -> (i128, i128) {
        match self {
            Self::I8 => (i8::MIN as i128, i8::MAX as i128),
            Self::U8 => (0, u8::MAX as i128),
            Self::I16 => (i16::MIN as i128, i16::MAX as i128),
            Self::U16 => (0, u16::MAX as i128),
            Self::I32 => (i32::MIN as i128, i32::MAX as i128),
            Self::U32 => (0, u32::MAX as i128),
            Self::I64 => (i64::MIN as i128, i64::MAX as i128),
            _ => (0, u64::MAX as i128),
        }
    }

    /// Append the encoding of `value` to `out`. Integers must be in range and
    /// integral; floats round to nearest even (f16/bf16 through `half`).
    pub fn encode(self, value: Number, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.is_float() {
            let v = match value {
                Number::Int(i) => i as f64,
                Number::Float(f) => f,
            };
            self.encode_f64(v, out);
            return Ok(());
        }
        let i: i128 = match value {
            Number::Int(i) => i as i128,
            Number::Float(f) if f.fract() == 0.0 && f.abs() < 1.9e19 => f as i128,
            Number::Float(f) => return Err(EncodeError::NotInteger { value: f, ty: self }),
        };
        self.encode_int(i, out)
    }

    /// Encode an integer known to be valid for an integer type, or convert it for a float type.
    pub(crate) fn encode_int(self, i: i128, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.is_float() {
            self.encode_f64(i as f64, out);
            return Ok(());
        }
        let (lo, hi) = self.int_range();
        if i < lo || i > hi {
            return Err(EncodeError::OutOfRange { value: i, ty: self });
        }
        // Two's complement little-endian, truncated to the type's width.
        let bytes = (i as u128).to_le_bytes();
        out.extend_from_slice(&bytes[..self.size()]);
        Ok(())
    }

    pub(crate) fn encode_f64(self, v: f64, out: &mut Vec<u8>) {
        match self {
            Self::F16 => out.extend_from_slice(&f16::from_f64(v).to_le_bytes()),
            Self::BF16 => out.extend_from_slice(&bf16::from_f64(v).to_le_bytes()),
            Self::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            _ => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
}

/// A value its element type cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum EncodeError {
    #[error("{value} is not an integer, as type {ty} needs")]
    NotInteger { value: f64, ty: ScalarType },
    #[error("{value} is out of range for type {ty}")]
    OutOfRange { value: i128, ty: ScalarType },
}

impl std::fmt::Display for ScalarType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
