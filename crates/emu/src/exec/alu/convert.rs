//! `cvt` between every pair of types, and the new value of an atomic.

use half::{bf16, f16};
use ptx::{AtomOp, Type, TypeKind};

use super::float::{f32_of, float2, of_f32, sat16};
use super::{L, ext, mask_of, sx};
use crate::exec::ops::{CvtMods, FMods, FOp2, FTy, Tf32Round};
use crate::float::convert::{
    RoundInt, float_to_int, int_range, int_to_f32, int_to_f64, integral_f32, integral_f64,
};
use crate::float::half_ops;
use crate::float::{self as fl, Round, arith};
use crate::simt::{Mask, WARP_SIZE, lanes};

fn float_bits_to_f64(x: u64, t: Type) -> f64 {
    match t {
        Type::F32 => f32_of(x) as f64,
        Type::F64 => f64::from_bits(x),
        Type::F16 => f16::from_bits(x as u16).to_f64(),
        Type::Bf16 => bf16::from_bits(x as u16).to_f64(),
        _ => 0.0,
    }
}

/// A `cvt` or atomic form the emulator does not execute; it becomes
/// [`crate::FaultKind::Unsupported`] with this text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UnsupportedForm {
    #[error("cvt to {}", .to.name())]
    CvtTo { to: Type },
    #[error("cvt from {} to {}", .from.name(), .to.name())]
    Cvt { from: Type, to: Type },
    #[error("atom.{}.{}", .op.name(), .ty.name())]
    Atom { op: AtomOp, ty: Type },
    #[error("atom.popc")]
    AtomPopc,
}

/// One lane of `cvt`.
pub fn cvt(from: Type, to: Type, m: CvtMods, x: u64) -> Result<u64, UnsupportedForm> {
    let fb = from.bits();
    let tb = to.bits();
    let from_float = from.is_float();
    let to_float = to.is_float();
    let r = m.round.unwrap_or(Round::Rn);
    Ok(match (from_float, to_float) {
        (false, false) => {
            let v = ext(x, fb, from.kind() == TypeKind::Signed);
            if m.sat {
                let (lo, hi) = int_range(tb, to.kind() == TypeKind::Signed);
                (v.clamp(lo, hi) as u64) & mask_of(tb)
            } else {
                (v as u64) & mask_of(tb)
            }
        }
        (false, true) => {
            let v = ext(x, fb, from.kind() == TypeKind::Signed);
            let res = match to {
                Type::F32 => of_f32(int_to_f32(v, r)),
                Type::F64 => int_to_f64(v, r).to_bits(),
                Type::F16 => half_ops::f64_to_f16(int_to_f64(v, r), r).to_bits() as u64,
                Type::Bf16 => half_ops::f64_to_bf16(int_to_f64(v, r), r).to_bits() as u64,
                _ => return Err(UnsupportedForm::CvtTo { to }),
            };
            sat_float(res, to, m)
        }
        (true, false) => {
            let mut v = float_bits_to_f64(x, from);
            if m.ftz && from == Type::F32 {
                v = fl::ftz_f32(v as f32) as f64;
            }
            if v.is_nan() {
                return Ok(nan_to_int(from, tb));
            }
            let (lo, hi) = int_range(tb, to.kind() == TypeKind::Signed);
            (float_to_int(v, m.round_int.unwrap_or(RoundInt::Rzi), lo, hi) as u64) & mask_of(tb)
        }
        (true, true) => {
            let mut v = float_bits_to_f64(x, from);
            if m.ftz && from == Type::F32 {
                v = fl::ftz_f32(v as f32) as f64;
            }
            let res = match (to, m.round_int) {
                (Type::F32, Some(ri)) => of_f32(integral_f32(v as f32, ri)),
                (Type::F64, Some(ri)) => integral_f64(v, ri).to_bits(),
                (Type::F32, None) => {
                    let f = arith::f64_to_f32(v, r);
                    of_f32(if m.ftz { fl::ftz_f32(f) } else { f })
                }
                (Type::F64, None) => fl::canon_f64(v).to_bits(),
                (Type::F16 | Type::Bf16, _) => {
                    super::pack::to_half(v, to == Type::Bf16, r, m.relu, m.satfinite) as u64
                }
                _ => return Err(UnsupportedForm::Cvt { from, to }),
            };
            sat_float(res, to, m)
        }
    })
}

/// `cvt` on the lanes of `exec`. The forms the kernels we validate convert
/// in their inner loops (integer to integer without `.sat`, integer to
/// f32/f64 rounded to nearest, f32 to an integer of 32 bits or fewer
/// truncated) run as one loop each, in 64-bit arithmetic; every other form
/// goes lane by lane through [`cvt`]. Dedispersion spent 30 % of its
/// emulation in per-lane `cvt` calls. The loops give [`cvt`]'s results
/// (test `the_lane_loops_are_cvt`). Err: the unsupported form and the
/// first lane that met it.
/// An f32 (bits) rounded to TensorFloat-32: 1 sign, 8 exponent and 10
/// mantissa bits, returned as f32 bits with the low 13 bits zero. Infinities
/// and NaNs keep their class (a NaN stays a NaN with its top mantissa bits);
/// a rounding that carries past the largest finite value gives infinity, or
/// the largest finite tf32 with `satfinite` (which also clamps infinities).
pub fn to_tf32(x: u32, round: Tf32Round, satfinite: bool) -> u32 {
    const LOW: u32 = (1 << 13) - 1;
    const MAX_FINITE: u32 = 0x7f7f_e000;
    let sign = x & 0x8000_0000;
    let mag = x & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        // NaN: keep it a NaN whatever the low bits held.
        return sign | 0x7fc0_0000 | (mag & !LOW);
    }
    let rounded = if mag == 0x7f80_0000 {
        mag
    } else {
        let rest = mag & LOW;
        let down = mag & !LOW;
        let up = match round {
            Tf32Round::Zero => false,
            Tf32Round::NearestAway => rest >= 1 << 12,
            Tf32Round::NearestEven => rest > 1 << 12 || (rest == 1 << 12 && down & (1 << 13) != 0),
        };
        if up { down + (1 << 13) } else { down }
    };
    let rounded = if satfinite && rounded >= 0x7f80_0000 {
        MAX_FINITE
    } else {
        rounded
    };
    sign | rounded
}

pub fn cvt_lanes(
    from: Type,
    to: Type,
    m: CvtMods,
    x: &L,
    exec: Mask,
    out: &mut L,
) -> Result<(), (UnsupportedForm, usize)> {
    let (fb, tb) = (from.bits(), to.bits());
    let signed = from.kind() == TypeKind::Signed;
    let nearest = m.round.unwrap_or(Round::Rn) == Round::Rn;
    match (from.is_float(), to.is_float()) {
        (false, false) if !m.sat => {
            let (from_mask, to_mask) = (mask_of(fb), mask_of(tb));
            if signed {
                for l in lanes(exec) {
                    out[l] = sx(x[l], fb) as u64 & to_mask;
                }
            } else {
                for l in lanes(exec) {
                    out[l] = x[l] & from_mask & to_mask;
                }
            }
            return Ok(());
        }
        // Rust's integer-to-float `as` rounds to nearest, ties to even.
        (false, true) if !m.sat && nearest && matches!(to, Type::F32 | Type::F64) => {
            let from_mask = mask_of(fb);
            for l in lanes(exec) {
                out[l] = match (to, signed) {
                    (Type::F32, true) => of_f32(sx(x[l], fb) as f32),
                    (Type::F32, false) => of_f32((x[l] & from_mask) as f32),
                    (_, true) => (sx(x[l], fb) as f64).to_bits(),
                    (_, false) => ((x[l] & from_mask) as f64).to_bits(),
                };
            }
            return Ok(());
        }
        // Truncation: a subnormal truncates to zero with or without `.ftz`,
        // and NaN gives 0 to these widths (see `nan_to_int`).
        (true, false)
            if from == Type::F32
                && tb <= 32
                && m.round_int.unwrap_or(RoundInt::Rzi) == RoundInt::Rzi =>
        {
            let (lo, hi) = int_range(tb, to.kind() == TypeKind::Signed);
            let (lo, hi) = (lo as f64, hi as f64);
            let to_mask = mask_of(tb);
            // `as` truncates toward zero, and clamping to integer bounds
            // commutes with truncating, so no `trunc` (a libm call on
            // x86-64's baseline, 1.5 % of a dedispersion configuration).
            for l in lanes(exec) {
                let v = f32_of(x[l]) as f64;
                out[l] = if v.is_nan() {
                    0
                } else {
                    (v.clamp(lo, hi) as i64 as u64) & to_mask
                };
            }
            return Ok(());
        }
        _ => {}
    }
    for l in lanes(exec) {
        out[l] = cvt(from, to, m, x[l]).map_err(|e| (e, l))?;
    }
    Ok(())
}

fn sat_float(bits: u64, to: Type, m: CvtMods) -> u64 {
    if !m.sat {
        return bits;
    }
    match to {
        Type::F32 => of_f32(fl::sat_f32(f32_of(bits))),
        Type::F64 => fl::sat_f64(f64::from_bits(bits)).to_bits(),
        Type::F16 => sat16(bits as u16, false) as u64,
        Type::Bf16 => sat16(bits as u16, true) as u64,
        _ => bits,
    }
}

// ---- atomics ----

/// The new value of an atomic: `old` op `b` (and `c` for cas).
/// A NaN converted to an integer of `tb` bits. The ISA says 0; an H200 gives
/// 0 only from f16, bf16 or f32 to 32 bits or fewer, and the destination's
/// sign bit alone otherwise (an f64 source, or a 64-bit destination), signed
/// or unsigned (data/conformance/nvidia-h200; docs/conformance.md).
fn nan_to_int(from: Type, tb: u32) -> u64 {
    if from == Type::F64 || tb == 64 {
        1u64 << (tb - 1)
    } else {
        0
    }
}

/// The new value of an atomic's word. `global`: the word is in global
/// memory, where an f32 add flushes subnormal inputs and results to
/// sign-preserving zero (PTX ISA 9.7.13.5; recorded on an H200); on shared
/// memory it keeps them.
pub fn atomic(
    op: AtomOp,
    ty: Type,
    old: u64,
    b: u64,
    c: u64,
    global: bool,
) -> Result<u64, UnsupportedForm> {
    let w = ty.bits();
    let m = mask_of(w);
    let signed = ty.kind() == TypeKind::Signed;
    Ok(match (op, ty) {
        (AtomOp::Add, Type::F32) if global => {
            let (x, y) = (fl::ftz_f32(f32_of(old)), fl::ftz_f32(f32_of(b)));
            of_f32(fl::ftz_f32(x + y))
        }
        (AtomOp::Add, Type::F32) => of_f32(f32_of(old) + f32_of(b)),
        (AtomOp::Add, Type::F64) => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
        (AtomOp::Add, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2) => {
            let fty = match ty {
                Type::F16 => FTy::F16,
                Type::Bf16 => FTy::Bf16,
                Type::F16x2 => FTy::F16x2,
                _ => FTy::Bf16x2,
            };
            let mut out = [0u64; WARP_SIZE];
            let mods = FMods {
                round: Round::Rn,
                ftz: false,
                sat: false,
                relu: false,
                xorsign_abs: false,
            };
            float2(
                FOp2::Add,
                fty,
                mods,
                &[old; WARP_SIZE],
                &[b; WARP_SIZE],
                &mut out,
            );
            out[0]
        }
        (AtomOp::Min | AtomOp::Max, Type::F32) => {
            let (x, y) = (f32_of(old), f32_of(b));
            of_f32(if op == AtomOp::Min {
                fl::min_f32(x, y)
            } else {
                fl::max_f32(x, y)
            })
        }
        (_, t) if t.is_float() && op != AtomOp::Exch && op != AtomOp::Cas => {
            return Err(UnsupportedForm::Atom { op, ty: t });
        }
        (AtomOp::Add, _) => old.wrapping_add(b) & m,
        (AtomOp::Min, _) => (ext(old, w, signed).min(ext(b, w, signed)) as u64) & m,
        (AtomOp::Max, _) => (ext(old, w, signed).max(ext(b, w, signed)) as u64) & m,
        (AtomOp::Inc, _) => {
            if old & m >= b & m {
                0
            } else {
                (old + 1) & m
            }
        }
        (AtomOp::Dec, _) => {
            if old & m == 0 || old & m > b & m {
                b & m
            } else {
                (old - 1) & m
            }
        }
        (AtomOp::And, _) => old & b & m,
        (AtomOp::Or, _) => (old | b) & m,
        (AtomOp::Xor, _) => (old ^ b) & m,
        (AtomOp::Exch, _) => b & m,
        (AtomOp::Cas, _) => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
        (AtomOp::Popc, _) => return Err(UnsupportedForm::AtomPopc),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_tf32(x: u32, round: Tf32Round, satfinite: bool, want: u32) {
        let got = to_tf32(x, round, satfinite);
        assert_eq!(
            got, want,
            "{x:#010x} {round:?} satfinite {satfinite}: {got:#010x}"
        );
    }

    #[test]
    fn tf32_rounding_edges() {
        use Tf32Round::*;
        // 1 + 2^-11 exactly halfway between two tf32 values (1 and 1 + 2^-10).
        check_tf32(0x3f80_1000, NearestAway, false, 0x3f80_2000);
        check_tf32(0x3f80_1000, NearestEven, false, 0x3f80_0000);
        check_tf32(0xbf80_1000, NearestAway, false, 0xbf80_2000);
        check_tf32(0x3f80_3000, NearestEven, false, 0x3f80_4000);
        check_tf32(0x3f80_1fff, Zero, false, 0x3f80_0000);
        // The largest f32 rounds up past the largest tf32: infinity, or the
        // largest finite tf32 with .satfinite.
        check_tf32(0x7f7f_ffff, NearestAway, false, 0x7f80_0000);
        check_tf32(0x7f7f_ffff, NearestAway, true, 0x7f7f_e000);
        check_tf32(0xff80_0000, NearestEven, true, 0xff7f_e000);
        check_tf32(0x7f80_0000, NearestEven, false, 0x7f80_0000);
        // A NaN whose payload is only in the low bits stays a NaN.
        check_tf32(0x7f80_0001, NearestAway, false, 0x7fc0_0000);
        check_tf32(0x0000_1000, NearestAway, false, 0x0000_2000);
    }

    /// Every integer and float type pair, with and without `.sat`, `.ftz`
    /// and each rounding, on random bit patterns and edge values: the lane
    /// loops against [`cvt`] lane by lane.
    #[test]
    fn the_lane_loops_are_cvt() {
        let types = [
            Type::U8,
            Type::S8,
            Type::U16,
            Type::S16,
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
            Type::B32,
            Type::F32,
            Type::F64,
        ];
        let mut rng = prng::Rng::new(0x853C_49E6_748F_EA9Bu64);
        let mut next = move || rng.next_u64();
        let edges = [
            0u64,
            1,
            u64::MAX,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            1 << 24,
            (1 << 24) + 1,
            (1 << 53) + 1,
            0x4F00_0000,
            0xCF00_0001,
            0x7FC0_0000,
            0xFF80_0000,
            0x0000_0001,
            0x8000_0001,
            0x3F00_0000,
            0xBFC0_0000,
            0x4B80_0001,
            0x7FF8_0000_0000_0000,
        ];
        for from in types {
            for to in types {
                for (round, round_int, ftz, sat) in [
                    (None, None, false, false),
                    (Some(Round::Rn), Some(RoundInt::Rzi), true, false),
                    (Some(Round::Rz), Some(RoundInt::Rmi), false, false),
                    (None, Some(RoundInt::Rni), false, true),
                ] {
                    let m = CvtMods {
                        round,
                        round_int,
                        ftz,
                        sat,
                        relu: false,
                        satfinite: false,
                    };
                    for round in 0..8 {
                        let x: L = std::array::from_fn(|l| {
                            if round == 0 {
                                edges[l % edges.len()]
                            } else {
                                let r = next();
                                // Small magnitudes too, where floats are integral-ish.
                                if l % 3 == 0 { r >> (r % 64) } else { r }
                            }
                        });
                        let exec = if round == 1 { 0x00FF_F0F0 } else { Mask::MAX };
                        let mut fast = [0u64; WARP_SIZE];
                        let got = cvt_lanes(from, to, m, &x, exec, &mut fast);
                        let mut want = [0u64; WARP_SIZE];
                        let mut err = None;
                        for l in lanes(exec) {
                            match cvt(from, to, m, x[l]) {
                                Ok(v) => want[l] = v,
                                Err(e) => {
                                    err = Some((e, l));
                                    break;
                                }
                            }
                        }
                        match err {
                            Some(e) => assert_eq!(got, Err(e), "{from:?} -> {to:?} {m:?}"),
                            None => {
                                assert_eq!(got, Ok(()), "{from:?} -> {to:?} {m:?}");
                                for l in lanes(exec) {
                                    assert_eq!(
                                        fast[l], want[l],
                                        "{from:?} -> {to:?} {m:?} of {:#x}",
                                        x[l]
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
