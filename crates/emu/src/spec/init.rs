//! Buffer initialisers (`init = ...`) and their materialisation into bytes.

use std::path::PathBuf;

use super::types::{EncodeError, Number, ScalarType};
use prng::Rng;

/// How a buffer or constant symbol starts out.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Zeros,
    /// Element i holds the value i (converted to the element type; wraps for
    /// integer types too narrow to hold i).
    Iota,
    Fill(Number),
    /// Uniform in the half-open range [lo, hi), for integer and float types.
    Random {
        seed: u64,
        lo: Number,
        hi: Number,
    },
    /// Raw little-endian file of exactly `len` elements.
    File(PathBuf),
}

fn as_f64(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    }
}

/// Why a buffer's initial bytes cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("buffer too large")]
    TooLarge,
    #[error(transparent)]
    Encode(#[from] EncodeError),
    #[error("random bound {value} is not an integer, as type {ty} needs")]
    BoundNotInteger { value: f64, ty: ScalarType },
    #[error("random range [{lo}, {hi}] is empty or not finite")]
    FloatRange { lo: f64, hi: f64 },
    #[error("random range [{lo}, {hi}) is empty")]
    IntRange { lo: i128, hi: i128 },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} holds {got} bytes, but {len} elements of {elem} need {total}", path.display())]
    FileSize {
        path: PathBuf,
        got: usize,
        len: u64,
        elem: ScalarType,
        total: usize,
    },
}

fn as_int(n: Number, ty: ScalarType) -> Result<i128, InitError> {
    match n {
        Number::Int(i) => Ok(i as i128),
        Number::Float(f) if f.fract() == 0.0 && f.abs() < 1.9e19 => Ok(f as i128),
        Number::Float(value) => Err(InitError::BoundNotInteger { value, ty }),
    }
}

/// The bytes of `len` elements of `elem` initialised by `init`.
pub fn materialize(elem: ScalarType, len: u64, init: &Init) -> Result<Vec<u8>, InitError> {
    let size = elem.size();
    let total = usize::try_from(len)
        .ok()
        .and_then(|l| l.checked_mul(size))
        .ok_or(InitError::TooLarge)?;
    match init {
        Init::Zeros => Ok(vec![0; total]),
        Init::Iota => {
            let mut out = Vec::with_capacity(total);
            for i in 0..len {
                if elem.is_float() {
                    elem.encode_f64(i as f64, &mut out);
                } else {
                    // Wrap to the element width, as a C loop `a[i] = (T)i` would.
                    out.extend_from_slice(&i.to_le_bytes()[..size]);
                }
            }
            Ok(out)
        }
        Init::Fill(v) => {
            let mut one = Vec::with_capacity(size);
            elem.encode(*v, &mut one)?;
            Ok(one.repeat(len as usize))
        }
        Init::Random { seed, lo, hi } => {
            let mut rng = Rng::new(*seed);
            let mut out = Vec::with_capacity(total);
            if elem.is_float() {
                let (lo, hi) = (as_f64(*lo), as_f64(*hi));
                if lo.is_nan() || hi.is_nan() || lo > hi || !lo.is_finite() || !hi.is_finite() {
                    return Err(InitError::FloatRange { lo, hi });
                }
                for _ in 0..len {
                    elem.encode_f64(lo + rng.next_f64() * (hi - lo), &mut out);
                }
            } else {
                let (lo, hi) = (as_int(*lo, elem)?, as_int(*hi, elem)?);
                if lo >= hi {
                    return Err(InitError::IntRange { lo, hi });
                }
                // Check the bounds once; every draw then lies inside them.
                elem.encode_int(lo, &mut Vec::new())?;
                elem.encode_int(hi - 1, &mut Vec::new())?;
                for _ in 0..len {
                    elem.encode_int(rng.range_i128(lo, hi - 1), &mut out)?;
                }
            }
            Ok(out)
        }
        Init::File(path) => {
            let bytes = std::fs::read(path).map_err(|source| InitError::Read {
                path: path.clone(),
                source,
            })?;
            if bytes.len() != total {
                return Err(InitError::FileSize {
                    path: path.clone(),
                    got: bytes.len(),
                    len,
                    elem,
                    total,
                });
            }
            Ok(bytes)
        }
    }
}
