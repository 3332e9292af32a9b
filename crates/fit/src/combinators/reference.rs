//! The CPU references the combinator kernels' headers state, and the
//! comparison of an emulated output with them.

/// How an emulated output differs from its CPU reference.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// The run left no buffer of this name.
    #[error("no buffer `{0}` after the run")]
    MissingBuffer(&'static str),
    /// `out` has the wrong number of elements.
    #[error("out has {got} elements, expected {expected}")]
    Length { got: usize, expected: u64 },
    /// A map output element differs.
    #[error("out[{index}] = {got}, CPU reference {want}")]
    Map { index: usize, got: f32, want: f64 },
    /// The fold's partial sums do not add up to N.
    #[error("sum of partial sums is {sum}, CPU reference {n}")]
    Fold { sum: f64, n: u64 },
    /// A scan output element differs.
    #[error("out[{index}] = {got}, CPU reference {want}")]
    Scan { index: usize, got: i32, want: i64 },
}

/// Little-endian f32 elements of a buffer (a trailing partial element is dropped).
pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Little-endian i32 elements of a buffer (a trailing partial element is dropped).
pub fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// map: out[i] = 0.5 x^2 + 2 x + 1 with x[i] = i, within 1e-6 relative.
pub fn check_map(out: &[f32], n: u64) -> Result<(), Mismatch> {
    if out.len() as u64 != n {
        return Err(Mismatch::Length {
            got: out.len(),
            expected: n,
        });
    }
    for (i, &got) in out.iter().enumerate() {
        let x = i as f64;
        let want = 0.5 * x * x + 2.0 * x + 1.0;
        if (f64::from(got) - want).abs() > 1e-6 * want.abs().max(1.0) {
            return Err(Mismatch::Map {
                index: i,
                got,
                want,
            });
        }
    }
    Ok(())
}

/// fold over x = fill 1.0: the partial sums add up to n, exactly.
pub fn check_fold(partial: &[f32], n: u64) -> Result<(), Mismatch> {
    let sum: f64 = partial.iter().map(|&v| f64::from(v)).sum();
    if sum != n as f64 {
        return Err(Mismatch::Fold { sum, n });
    }
    Ok(())
}

/// scan over x = iota: per-block inclusive prefix sums.
pub fn check_scan(out: &[i32], n: u64, block: usize) -> Result<(), Mismatch> {
    if out.len() as u64 != n {
        return Err(Mismatch::Length {
            got: out.len(),
            expected: n,
        });
    }
    let mut acc: i64 = 0;
    for (i, &got) in out.iter().enumerate() {
        if i % block.max(1) == 0 {
            acc = 0;
        }
        acc += i as i64;
        if i64::from(got) != acc {
            return Err(Mismatch::Scan {
                index: i,
                got,
                want: acc,
            });
        }
    }
    Ok(())
}
