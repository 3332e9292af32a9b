//! Reference float arithmetic, computed independently of the emulator's
//! float code: `rustc_apfloat` (LLVM's soft-float, exactly rounded in all
//! four IEEE rounding directions) for add, sub, mul, fma, div and
//! conversions, which the emulator computes through error-free transforms
//! on the host's own floats instead. Conversions go through Quad, which
//! holds every f64, f32, f16, bf16, fp8 and 64-bit integer exactly, so the
//! only rounding is the final one.

use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

use crate::ty::FloatKind;

/// A PTX rounding modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

impl Rnd {
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

    /// `rn`, `rz`, `rm`, `rp`.
    pub fn name(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }

    /// The integer rounding spelling: `rni`, `rzi`, `rmi`, `rpi`.
    pub fn int_name(self) -> &'static str {
        match self {
            Rnd::Rn => "rni",
            Rnd::Rz => "rzi",
            Rnd::Rm => "rmi",
            Rnd::Rp => "rpi",
        }
    }

    fn ap(self) -> Round {
        match self {
            Rnd::Rn => Round::NearestTiesToEven,
            Rnd::Rz => Round::TowardZero,
            Rnd::Rm => Round::TowardNegative,
            Rnd::Rp => Round::TowardPositive,
        }
    }
}

/// A binary or ternary arithmetic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    /// a * b + c with one rounding.
    Fma,
}

fn arith_in<F: Float>(op: Arith, a: u64, b: u64, c: u64, r: Rnd) -> u64 {
    let (a, b, c) = (
        F::from_bits(a as u128),
        F::from_bits(b as u128),
        F::from_bits(c as u128),
    );
    let v = match op {
        Arith::Add => a.add_r(b, r.ap()),
        Arith::Sub => a.sub_r(b, r.ap()),
        Arith::Mul => a.mul_r(b, r.ap()),
        Arith::Div => a.div_r(b, r.ap()),
        Arith::Fma => a.mul_add_r(b, c, r.ap()),
    };
    v.value.to_bits() as u64
}

/// `op` on values of layout `k` (bits in, bits out), rounded by `r`.
pub fn arith(k: FloatKind, op: Arith, a: u64, b: u64, c: u64, r: Rnd) -> u64 {
    match k {
        FloatKind::E4m3 => arith_in::<Float8E4M3FN>(op, a, b, c, r),
        FloatKind::E5m2 => arith_in::<Float8E5M2>(op, a, b, c, r),
        FloatKind::F16 => arith_in::<Half>(op, a, b, c, r),
        FloatKind::Bf16 => arith_in::<BFloat>(op, a, b, c, r),
        FloatKind::F32 => arith_in::<Single>(op, a, b, c, r),
        FloatKind::F64 => arith_in::<Double>(op, a, b, c, r),
    }
}

fn widen<F: Float + FloatConvert<Quad>>(x: u64) -> Quad {
    let mut lost = false;
    F::from_bits(x as u128)
        .convert_r(Round::NearestTiesToEven, &mut lost)
        .value
}

fn narrow<F: Float>(q: Quad, r: Rnd) -> u64
where
    Quad: FloatConvert<F>,
{
    let mut lost = false;
    let v: F = q.convert_r(r.ap(), &mut lost).value;
    v.to_bits() as u64
}

/// The exact value of `x`, a `k`.
pub fn to_quad(k: FloatKind, x: u64) -> Quad {
    match k {
        FloatKind::E4m3 => widen::<Float8E4M3FN>(x),
        FloatKind::E5m2 => widen::<Float8E5M2>(x),
        FloatKind::F16 => widen::<Half>(x),
        FloatKind::Bf16 => widen::<BFloat>(x),
        FloatKind::F32 => widen::<Single>(x),
        FloatKind::F64 => widen::<Double>(x),
    }
}

/// `q` rounded by `r` to layout `k`.
pub fn from_quad(k: FloatKind, q: Quad, r: Rnd) -> u64 {
    match k {
        FloatKind::E4m3 => narrow::<Float8E4M3FN>(q, r),
        FloatKind::E5m2 => narrow::<Float8E5M2>(q, r),
        FloatKind::F16 => narrow::<Half>(q, r),
        FloatKind::Bf16 => narrow::<BFloat>(q, r),
        FloatKind::F32 => narrow::<Single>(q, r),
        FloatKind::F64 => narrow::<Double>(q, r),
    }
}

/// Float to float conversion with one rounding.
pub fn convert(from: FloatKind, to: FloatKind, x: u64, r: Rnd) -> u64 {
    from_quad(to, to_quad(from, x), r)
}

/// An integer to a float of layout `k`, rounded by `r`.
pub fn from_int(k: FloatKind, v: i128, r: Rnd) -> u64 {
    from_quad(k, Quad::from_i128(v).value, r)
}

/// The value of a float as f64 (exact for every layout but f64 itself,
/// where it is the identity).
pub fn to_f64(k: FloatKind, x: u64) -> f64 {
    f64::from_bits(convert(k, FloatKind::F64, x, Rnd::Rn))
}

/// The largest finite value of a layout, as bits (sign clear).
pub fn max_finite(k: FloatKind) -> u64 {
    match k {
        FloatKind::E4m3 => 0x7e,
        FloatKind::E5m2 => 0x7b,
        FloatKind::F16 => 0x7bff,
        FloatKind::Bf16 => 0x7f7f,
        FloatKind::F32 => 0x7f7f_ffff,
        FloatKind::F64 => 0x7fef_ffff_ffff_ffff,
    }
}

/// A NaN of the layout (for references; compared as a class).
pub fn nan(k: FloatKind) -> u64 {
    match k {
        FloatKind::E4m3 => 0x7f,
        FloatKind::E5m2 => 0x7e,
        FloatKind::F16 => 0x7e00,
        FloatKind::Bf16 => 0x7fc0,
        FloatKind::F32 => 0x7fc0_0000,
        FloatKind::F64 => 0x7ff8_0000_0000_0000,
    }
}

/// Square root rounded by `r`, from the host's correctly rounded f64 root
/// and the sign of the exact residual x - s*s by fma (exact when s is the
/// correctly rounded root); f32 roots go through f64, which has the
/// 2p + 2 bits that make the double rounding of a square root innocuous.
pub fn sqrt(k: FloatKind, x: u64, r: Rnd) -> u64 {
    let v = to_f64(k, x);
    if v.is_nan() || v < 0.0 {
        return nan(k);
    }
    let s = v.sqrt();
    if k != FloatKind::F64 {
        // Exact product in f64 (2 * 24 bits), so the residual's sign is exact.
        let c = convert(FloatKind::F64, k, s.to_bits(), Rnd::Rn);
        let cf = to_f64(k, c);
        let res = v - cf * cf;
        return step(k, c, res, r);
    }
    // Tiny inputs: scale by 2^200 (a power of four, so the root scales by
    // 2^100 exactly) to keep s*s and the residual clear of underflow.
    let tiny = v < f64::from_bits(0x0370_0000_0000_0000);
    let (v, unscale) = if tiny {
        (
            v * f64::from_bits(0x4c70_0000_0000_0000),
            f64::from_bits(0x39b0_0000_0000_0000),
        )
    } else {
        (v, 1.0)
    };
    let s = v.sqrt();
    let res = (-s).mul_add(s, v);
    (f64::from_bits(step(k, s.to_bits(), res, r)) * unscale).to_bits()
}

/// Step `c` (round-to-nearest) one ulp in direction `r` when the exact
/// result lies on the side `err` (its sign) of it.
fn step(k: FloatKind, c: u64, err: f64, r: Rnd) -> u64 {
    let cv = to_f64(k, c);
    match r {
        _ if err == 0.0 || cv.is_infinite() => c,
        Rnd::Rn => c,
        Rnd::Rm if err < 0.0 => next(k, c, false),
        Rnd::Rp if err > 0.0 => next(k, c, true),
        Rnd::Rz if cv > 0.0 && err < 0.0 => next(k, c, false),
        Rnd::Rz if cv < 0.0 && err > 0.0 => next(k, c, true),
        _ => c,
    }
}

/// The neighbour of finite `c` in layout `k`, above (`up`) or below, by its
/// bits: magnitudes are ordered like their encodings.
fn next(k: FloatKind, c: u64, up: bool) -> u64 {
    let sign = 1u64 << (k.bits() - 1);
    let mag = c & !sign & k.mask();
    match (mag, c & sign != 0, up) {
        (0, _, true) => 1,
        (0, _, false) => sign | 1,
        (_, false, true) | (_, true, false) => c + 1,
        _ => c - 1,
    }
}
