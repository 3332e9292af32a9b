//! The OCP 8-bit float formats of `cvt` (`.e4m3x2`, `.e5m2x2`).
//!
//! E4M3: bias 7, 3 mantissa bits, no infinity, NaN only S.1111.111, largest
//! finite 1.75 * 2^8 = 448. E5M2: bias 15, 2 mantissa bits, IEEE-like
//! (S.11111.00 infinity, other S.11111.xx NaN), largest finite 1.75 * 2^15 =
//! 57344 (OCP "8-bit Floating Point Specification (OFP8)" 1.0, table 1).
//! Every value of either format is exact in f16 and in f64.

/// One of the two formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fp8 {
    E4m3,
    E5m2,
}

/// The NaN `cvt` writes. The ISA asks for "NaN in the specified destination
/// format" (`.satfinite`) and "canonical NaN" (`.relu`); 0x7f, all ones and
/// positive, is one in both formats: E4M3's only positive NaN (0.1111.111)
/// and an E5M2 NaN (0.11111.11). CUDA's host-side emulation in
/// `cuda_fp8.hpp` writes 0x7f for E4M3 but `0x7e | the input's top two
/// mantissa bits` for E5M2, which is also 0x7f for the canonical f32 NaN
/// 0x7fffffff (and 0x7e for 0x7fc00000); any of these is a NaN.
pub const NAN: u8 = 0x7f;

impl Fp8 {
    fn mbits(self) -> i32 {
        match self {
            Fp8::E4m3 => 3,
            Fp8::E5m2 => 2,
        }
    }

    fn bias(self) -> i32 {
        match self {
            Fp8::E4m3 => 7,
            Fp8::E5m2 => 15,
        }
    }

    /// The largest finite magnitude.
    pub fn max(self) -> f64 {
        match self {
            Fp8::E4m3 => 448.0,
            Fp8::E5m2 => 57344.0,
        }
    }

    /// The value of an encoding.
    pub fn decode(self, b: u8) -> f64 {
        let (mb, bias) = (self.mbits(), self.bias());
        let e = (b & 0x7f) as i32 >> mb;
        let m = (b as i32) & ((1 << mb) - 1);
        let emax = (1 << (7 - mb)) - 1;
        let special = match self {
            Fp8::E4m3 => (e == emax && m == (1 << mb) - 1).then_some(f64::NAN),
            Fp8::E5m2 if e == emax => Some(if m == 0 { f64::INFINITY } else { f64::NAN }),
            Fp8::E5m2 => None,
        };
        let mag = special.unwrap_or_else(|| {
            if e == 0 {
                m as f64 * pow2(1 - bias - mb)
            } else {
                ((1 << mb) + m) as f64 * pow2(e - bias - mb)
            }
        });
        if b & 0x80 != 0 { -mag } else { mag }
    }

    /// `v` rounded to nearest, ties to even (`.rn`). Magnitudes above the
    /// largest finite value give it with `satfinite` (PTX ISA "cvt",
    /// `.satfinite`), else infinity (E5M2) or NaN (E4M3, which has no
    /// infinity); NaN gives [`NAN`]; `relu` makes negative results +0.
    pub fn encode(self, v: f64, satfinite: bool, relu: bool) -> u8 {
        if v.is_nan() {
            return NAN;
        }
        if relu && v.is_sign_negative() {
            return 0;
        }
        let sign = if v.is_sign_negative() { 0x80 } else { 0 };
        let (mb, bias) = (self.mbits(), self.bias());
        let a = v.abs();
        if a > self.max() {
            return sign
                | match (satfinite, self) {
                    (true, _) => self.encode(self.max(), false, false),
                    (false, Fp8::E5m2) => 0x7c,
                    (false, Fp8::E4m3) => NAN,
                };
        }
        // The spacing of representable values around `a` (subnormals share
        // that of the smallest normal binade), then an exact rounding of
        // a / spacing to an integer.
        let min_exp = 1 - bias;
        let exp_of = |x: f64| (((x.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(min_exp);
        let step = pow2(exp_of(a) - mb);
        let r = (a / step).round_ties_even() * step;
        if r == 0.0 {
            return sign;
        }
        let e = exp_of(r);
        let field = if r < pow2(min_exp) { 0 } else { e + bias };
        let mant = (r / pow2(e - mb)) as i32 & ((1 << mb) - 1);
        sign | ((field << mb) | mant) as u8
    }
}

/// 2^k for the small exponents of these formats (exact).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_encoding_round_trips() {
        for f in [Fp8::E4m3, Fp8::E5m2] {
            for b in 0..=255u8 {
                let v = f.decode(b);
                if v.is_finite() {
                    // -0 encodes back to 0x80.
                    assert_eq!(f.encode(v, true, false), b, "{f:?} {b:#x} = {v}");
                }
            }
        }
    }
}
