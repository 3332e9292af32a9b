//! Buffers from the GPU against the emulator's, element by element: integers
//! must be equal; floats are equal as numbers (NaN equals NaN, +0 equals -0)
//! or within a relative tolerance of the type ([`tolerance`]). Pure, tested
//! without a GPU.

use emu::spec::ScalarType;
use half::{bf16, f16};

/// How a buffer compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every element equal.
    Identical,
    /// Floats that differ, all within the tolerance.
    WithinTolerance,
    /// At least one element differs (beyond the tolerance for floats).
    Different,
    /// The buffers hold different numbers of elements.
    DifferentLength,
    /// Different, in a buffer the spec marks `order_dependent`: reported,
    /// not a failure.
    OrderDependent,
}

impl Status {
    /// A difference that fails the comparison.
    pub fn is_different(self) -> bool {
        matches!(self, Status::Different | Status::DifferentLength)
    }
}

/// The comparison of one buffer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub buffer: String,
    pub status: Status,
    /// Elements that differ (beyond the tolerance for floats).
    pub differing: u64,
    /// Largest |a - b| / max(|a|, |b|) over elements that are not equal as
    /// numbers (0 when all are; infinite for a NaN against a number).
    pub max_rel_diff: f64,
    /// Largest distance in units in the last place (floats; 0 for integers).
    pub max_ulp: u64,
    /// The first differing element, with both values as text.
    pub first_diff_index: Option<u64>,
    pub first_diff_gpu: Option<String>,
    pub first_diff_emu: Option<String>,
    /// Element counts (differ only for [`Status::DifferentLength`]).
    pub gpu_len: u64,
    pub emu_len: u64,
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Status::Identical => write!(f, "identical"),
            Status::WithinTolerance => write!(
                f,
                "within tolerance (max rel diff {:.3e}, max {} ulp)",
                self.max_rel_diff, self.max_ulp
            ),
            Status::DifferentLength => write!(
                f,
                "DIFFERENT lengths: gpu {} elements, emu {}",
                self.gpu_len, self.emu_len
            ),
            Status::OrderDependent | Status::Different => {
                let (word, note) = if self.status == Status::Different {
                    ("DIFFERENT", "")
                } else {
                    ("differs", "; order-dependent by the spec, not a failure")
                };
                write!(
                    f,
                    "{word} at index {}: gpu {}, emu {} ({} differing elements{note})",
                    self.first_diff_index.unwrap_or(0),
                    self.first_diff_gpu.as_deref().unwrap_or("?"),
                    self.first_diff_emu.as_deref().unwrap_or("?"),
                    self.differing
                )
            }
        }
    }
}

impl Comparison {
    /// The comparison of a buffer whose final contents depend on the order
    /// threads run in: differing elements are reported as
    /// [`Status::OrderDependent`] (a length difference stays a failure).
    pub fn order_dependent(mut self) -> Self {
        if self.status == Status::Different {
            self.status = Status::OrderDependent;
        }
        self
    }
}

/// Relative tolerance of a float type: |a - b| <= rel * max(|a|, |b|) + abs.
/// About 84 units of f32 rounding (1e-5), to allow for contracted
/// multiply-adds and approximate functions; the 16-bit types and f64 scaled
/// alike. `None` for integer types (exact).
pub fn tolerance(elem: ScalarType) -> Option<(f64, f64)> {
    match elem {
        ScalarType::F16 => Some((1e-2, 1e-7)),
        ScalarType::BF16 => Some((5e-2, 1e-30)),
        ScalarType::F32 => Some((1e-5, 1e-30)),
        ScalarType::F64 => Some((1e-12, 1e-300)),
        _ => None,
    }
}

/// One element: its bits (for integers and ulps) and its value as f64 (floats).
fn element(elem: ScalarType, b: &[u8]) -> (u64, f64) {
    let mut raw = [0u8; 8];
    raw[..b.len()].copy_from_slice(b);
    let bits = u64::from_le_bytes(raw);
    let value = match elem {
        ScalarType::F16 => f16::from_bits(bits as u16).to_f64(),
        ScalarType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        ScalarType::F32 => f64::from(f32::from_bits(bits as u32)),
        ScalarType::F64 => f64::from_bits(bits),
        _ => 0.0,
    };
    (bits, value)
}

/// An element as text, in its type.
fn show(elem: ScalarType, b: &[u8]) -> String {
    let (bits, value) = element(elem, b);
    let width = elem.size() * 8;
    match elem {
        _ if elem.is_float() => format!("{value:e}"),
        ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64 => {
            // Sign-extend from the type's width.
            let shift = 64 - width;
            format!("{}", ((bits << shift) as i64) >> shift)
        }
        _ => format!("{bits}"),
    }
}

/// Distance in units in the last place between two floats of `elem` given as
/// bits (the number of representable values between them); 0 for integers.
fn ulps(elem: ScalarType, a: u64, b: u64) -> u64 {
    let width = elem.size() * 8;
    // Map sign-magnitude bits onto a monotonic integer line.
    let line = |x: u64| -> i128 {
        let sign = 1u64 << (width - 1);
        if x & sign != 0 {
            -((x & (sign - 1)) as i128)
        } else {
            x as i128
        }
    };
    if elem.is_float() {
        line(a).abs_diff(line(b)).min(u128::from(u64::MAX)) as u64
    } else {
        0
    }
}

/// Compare the GPU's bytes of buffer `name` (elements of `elem`) with the emulator's.
pub fn compare(name: &str, elem: ScalarType, gpu: &[u8], emu: &[u8]) -> Comparison {
    let size = elem.size();
    let mut c = Comparison {
        buffer: name.to_string(),
        status: Status::Identical,
        differing: 0,
        max_rel_diff: 0.0,
        max_ulp: 0,
        first_diff_index: None,
        first_diff_gpu: None,
        first_diff_emu: None,
        gpu_len: (gpu.len() / size) as u64,
        emu_len: (emu.len() / size) as u64,
    };
    if gpu.len() != emu.len() {
        c.status = Status::DifferentLength;
        return c;
    }
    let tol = tolerance(elem);
    let mut inexact = false;
    for (i, (g, e)) in gpu
        .chunks_exact(size)
        .zip(emu.chunks_exact(size))
        .enumerate()
    {
        let ((gb, gv), (eb, ev)) = (element(elem, g), element(elem, e));
        let differs = match tol {
            None => gb != eb,
            Some(_) if gv == ev || (gv.is_nan() && ev.is_nan()) => false,
            Some((rel, abs)) => {
                inexact = true;
                let scale = gv.abs().max(ev.abs());
                let diff = (gv - ev).abs();
                let r = if diff.is_nan() {
                    f64::INFINITY
                } else {
                    diff / scale
                };
                c.max_rel_diff = c
                    .max_rel_diff
                    .max(if r.is_nan() { f64::INFINITY } else { r });
                c.max_ulp = c.max_ulp.max(ulps(elem, gb, eb));
                // A NaN difference (NaN against a number) is never within.
                diff.is_nan() || diff > rel * scale + abs
            }
        };
        if differs {
            c.differing += 1;
            if c.first_diff_index.is_none() {
                c.first_diff_index = Some(i as u64);
                c.first_diff_gpu = Some(show(elem, g));
                c.first_diff_emu = Some(show(elem, e));
            }
        }
    }
    c.status = if c.differing > 0 {
        Status::Different
    } else if inexact {
        Status::WithinTolerance
    } else {
        Status::Identical
    };
    c
}

/// Every buffer of the GPU's first launch against the emulator's, in
/// argument order; a difference in a buffer the spec marks
/// `order_dependent` is reported but is not a failure.
pub fn compare_buffers(
    measured: &crate::SpecRunResult,
    emulated: &[emu::exec::Buffer],
    spec: &emu::spec::LaunchSpec,
) -> Vec<Comparison> {
    let order_dependent = |name: &str| {
        spec.args.iter().any(
            |a| matches!(a, emu::spec::ArgSpec::Buffer(b) if b.name == name && b.order_dependent),
        )
    };
    measured
        .buffers
        .iter()
        .zip(emulated)
        .map(|(gpu, emu)| {
            let c = compare(&gpu.name, emu.elem, &gpu.bytes, &emu.bytes);
            if order_dependent(&gpu.name) {
                c.order_dependent()
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_i32(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn bytes_f32(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// What a comparison should find: status, differing, first index, and
    /// the first differing values as text.
    struct Expect {
        status: Status,
        differing: u64,
        first: Option<(u64, &'static str, &'static str)>,
    }

    fn check(input: (ScalarType, Vec<u8>, Vec<u8>), expect: Expect) -> Comparison {
        let (elem, gpu, emu) = input;
        let c = compare("b", elem, &gpu, &emu);
        assert_eq!(c.status, expect.status, "{c:?}");
        assert_eq!(c.differing, expect.differing, "{c:?}");
        let first = c.first_diff_index.map(|i| {
            (
                i,
                c.first_diff_gpu.clone().unwrap_or_default(),
                c.first_diff_emu.clone().unwrap_or_default(),
            )
        });
        let want = expect
            .first
            .map(|(i, g, e)| (i, g.to_string(), e.to_string()));
        assert_eq!(first, want, "{c:?}");
        c
    }

    const SAME: Expect = Expect {
        status: Status::Identical,
        differing: 0,
        first: None,
    };

    #[test]
    fn identical_integers() {
        let v = bytes_i32(&[1, -2, 3, i32::MAX]);
        let c = check((ScalarType::I32, v.clone(), v), SAME);
        assert_eq!(c.to_string(), "identical");
        check((ScalarType::U8, vec![], vec![]), SAME);
    }

    #[test]
    fn one_differing_integer_reports_its_index_and_count() {
        let c = check(
            (
                ScalarType::I32,
                bytes_i32(&[1, 2, -7, 4]),
                bytes_i32(&[1, 2, 3, 4]),
            ),
            Expect {
                status: Status::Different,
                differing: 1,
                first: Some((2, "-7", "3")),
            },
        );
        assert_eq!(
            c.to_string(),
            "DIFFERENT at index 2: gpu -7, emu 3 (1 differing elements)"
        );
        check(
            (
                ScalarType::U16,
                vec![0, 0, 255, 255, 1, 0],
                vec![0, 0, 1, 0, 2, 0],
            ),
            Expect {
                status: Status::Different,
                differing: 2,
                first: Some((1, "65535", "1")),
            },
        );
    }

    #[test]
    fn floats_within_tolerance() {
        let a = 1.0f32;
        let b = f32::from_bits(a.to_bits() + 3);
        let c = check(
            (ScalarType::F32, bytes_f32(&[a, 2.0]), bytes_f32(&[b, 2.0])),
            Expect {
                status: Status::WithinTolerance,
                differing: 0,
                first: None,
            },
        );
        assert_eq!(c.max_ulp, 3);
        assert!(c.max_rel_diff > 3e-7 && c.max_rel_diff < 4e-7, "{c:?}");
        assert!(
            c.to_string()
                .starts_with("within tolerance (max rel diff 3.5")
        );
        // Beyond 1e-5 relative: different.
        check(
            (ScalarType::F32, bytes_f32(&[1.0]), bytes_f32(&[1.0001])),
            Expect {
                status: Status::Different,
                differing: 1,
                first: Some((0, "1e0", "1.000100016593933e0")),
            },
        );
        let f64s = |v: f64| v.to_le_bytes().to_vec();
        check(
            (ScalarType::F64, f64s(1.0), f64s(1.0 + 1e-14)),
            Expect {
                status: Status::WithinTolerance,
                differing: 0,
                first: None,
            },
        );
    }

    #[test]
    fn nan_equals_nan_and_zeros_are_equal() {
        let quiet = f32::NAN;
        let other = f32::from_bits(quiet.to_bits() | 1);
        check(
            (
                ScalarType::F32,
                bytes_f32(&[quiet, 0.0, f32::INFINITY]),
                bytes_f32(&[other, -0.0, f32::INFINITY]),
            ),
            SAME,
        );
        // A NaN against a number differs.
        let c = check(
            (ScalarType::F32, bytes_f32(&[f32::NAN]), bytes_f32(&[1.0])),
            Expect {
                status: Status::Different,
                differing: 1,
                first: Some((0, "NaN", "1e0")),
            },
        );
        assert_eq!(c.max_rel_diff, f64::INFINITY);
    }

    #[test]
    fn different_lengths() {
        let c = check(
            (ScalarType::I32, bytes_i32(&[1, 2]), bytes_i32(&[1, 2, 3])),
            Expect {
                status: Status::DifferentLength,
                differing: 0,
                first: None,
            },
        );
        assert!(c.status.is_different());
        assert_eq!(c.to_string(), "DIFFERENT lengths: gpu 2 elements, emu 3");
    }
}
