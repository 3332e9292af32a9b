//! Buffer initialisers (`init = ...`) and their materialisation into bytes.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

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

/// Initial contents made before, kept for the next launch that asks for the
/// same (element type, length, initialiser): `validate` and `tune` launch
/// every configuration of a space on the same inputs, two or three times
/// each (the sample, its neighbours' warm-up, a second sample), and drawing
/// a GEMM's three 4096 x 4096 random matrices cost more than a tenth of its
/// emulation. Only initialisers whose bytes depend on nothing but the key
/// are kept (not `zeros`, which costs nothing, nor files, which can change).
struct Kept {
    /// Most recently used last.
    entries: Vec<(ScalarType, u64, Init, Arc<Vec<u8>>)>,
    /// The bytes kept at most; the least recently used go first.
    cap: usize,
}

/// Contents smaller than this are made again each time (cheap).
const KEEP_FROM_BYTES: usize = 1 << 20;
/// The most the process keeps.
const KEEP_AT_MOST_BYTES: usize = 512 << 20;

static KEPT: Mutex<Kept> = Mutex::new(Kept {
    entries: Vec::new(),
    cap: KEEP_AT_MOST_BYTES,
});

impl Kept {
    fn get(&mut self, elem: ScalarType, len: u64, init: &Init) -> Option<Arc<Vec<u8>>> {
        let i = self
            .entries
            .iter()
            .position(|(e, l, x, _)| *e == elem && *l == len && x == init)?;
        let entry = self.entries.remove(i);
        let bytes = Arc::clone(&entry.3);
        self.entries.push(entry);
        Some(bytes)
    }

    fn put(&mut self, elem: ScalarType, len: u64, init: &Init, bytes: Arc<Vec<u8>>) {
        if bytes.len() > self.cap {
            return;
        }
        self.entries.push((elem, len, init.clone(), bytes));
        while self.entries.iter().map(|e| e.3.len()).sum::<usize>() > self.cap {
            self.entries.remove(0);
        }
    }
}

/// [`materialize`], served from the contents kept by earlier launches of
/// this process where it can be (the same bytes: test
/// `kept_contents_are_the_made_ones`).
pub fn materialize_kept(elem: ScalarType, len: u64, init: &Init) -> Result<Vec<u8>, InitError> {
    if matches!(init, Init::Zeros | Init::File(_)) {
        return materialize(elem, len, init);
    }
    let lock = || KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(bytes) = lock().get(elem, len, init) {
        return Ok(bytes.as_ref().clone());
    }
    let bytes = materialize(elem, len, init)?;
    if bytes.len() >= KEEP_FROM_BYTES {
        lock().put(elem, len, init, Arc::new(bytes.clone()));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(seed: u64) -> Init {
        Init::Random {
            seed,
            lo: Number::Float(-1.0),
            hi: Number::Float(1.0),
        }
    }

    #[test]
    fn kept_contents_are_the_made_ones() {
        let len = (KEEP_FROM_BYTES / 4 + 5) as u64;
        for init in [random(3), Init::Iota, Init::Fill(Number::Float(2.5))] {
            let made = materialize(ScalarType::F32, len, &init).expect("made");
            // The first call makes and keeps, the second is served.
            assert_eq!(
                materialize_kept(ScalarType::F32, len, &init).expect("kept"),
                made
            );
            assert_eq!(
                materialize_kept(ScalarType::F32, len, &init).expect("kept"),
                made
            );
        }
        // Another seed, type or length is another key.
        let other = materialize_kept(ScalarType::F32, len, &random(4)).expect("other seed");
        assert_ne!(
            other,
            materialize(ScalarType::F32, len, &random(3)).expect("made")
        );
        let shorter = materialize_kept(ScalarType::F32, len - 1, &random(3)).expect("shorter");
        assert_eq!(shorter.len() as u64, 4 * (len - 1));
        let wider = materialize_kept(ScalarType::F64, len, &random(3)).expect("f64");
        assert_eq!(
            wider,
            materialize(ScalarType::F64, len, &random(3)).expect("made")
        );
    }

    #[test]
    fn the_least_recently_used_go_first() {
        let mut kept = Kept {
            entries: Vec::new(),
            cap: 10,
        };
        let bytes = |n: usize| Arc::new(vec![0u8; n]);
        kept.put(ScalarType::U8, 4, &random(1), bytes(4));
        kept.put(ScalarType::U8, 4, &random(2), bytes(4));
        assert!(kept.get(ScalarType::U8, 4, &random(1)).is_some());
        // 4 + 4 + 4 > 10: the least recently used (seed 2) goes.
        kept.put(ScalarType::U8, 4, &random(3), bytes(4));
        assert!(kept.get(ScalarType::U8, 4, &random(2)).is_none());
        assert!(kept.get(ScalarType::U8, 4, &random(1)).is_some());
        assert!(kept.get(ScalarType::U8, 4, &random(3)).is_some());
        // Larger than the cap: not kept at all.
        kept.put(ScalarType::U8, 11, &random(4), bytes(11));
        assert!(kept.get(ScalarType::U8, 11, &random(4)).is_none());
        assert_eq!(kept.entries.len(), 2);
    }
}
