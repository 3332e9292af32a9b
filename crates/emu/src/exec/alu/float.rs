//! Float arithmetic over 32 lanes in every format (f32, f64, f16, bf16 and
//! the packed pairs), `fma`, and comparisons.

use half::{bf16, f16};
use ptx::CmpOp;

use super::half::{fin16, fout16, ftz16, is_nan16, xorsign_abs};
use super::{L, ext, map1, map2, map3};
use crate::exec::ops::{CmpTy, FMods, FOp1, FOp2, FTy};
use crate::float::half_ops::{self, BinOp};
use crate::float::{self as fl, Round, arith};
use crate::simt::{Mask, WARP_SIZE};

#[inline]
pub(super) fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
#[inline]
pub(super) fn of_f32(x: f32) -> u64 {
    x.to_bits() as u64
}

fn fin32(x: f32, m: FMods) -> f32 {
    if m.ftz { fl::ftz_f32(x) } else { x }
}

fn fout32(x: f32, m: FMods) -> f32 {
    let x = if m.ftz { fl::ftz_f32(x) } else { x };
    if m.sat { fl::sat_f32(x) } else { x }
}

fn f2_32(op: FOp2, x: f32, y: f32, r: Round) -> f32 {
    match op {
        FOp2::Add => arith::add_f32(x, y, r),
        FOp2::Sub => arith::sub_f32(x, y, r),
        FOp2::Mul => arith::mul_f32(x, y, r),
        FOp2::Div => arith::div_f32(x, y, r),
        FOp2::DivApprox => fl::canon_f32(x / y),
        FOp2::Min => fl::min_f32(x, y),
        FOp2::Max => fl::max_f32(x, y),
        FOp2::MinNan if x.is_nan() || y.is_nan() => f32::from_bits(fl::CANON_NAN_F32),
        FOp2::MaxNan if x.is_nan() || y.is_nan() => f32::from_bits(fl::CANON_NAN_F32),
        FOp2::MinNan => fl::min_f32(x, y),
        FOp2::MaxNan => fl::max_f32(x, y),
        FOp2::Copysign => y.copysign(x),
    }
}

fn f2_64(op: FOp2, x: f64, y: f64, r: Round) -> f64 {
    match op {
        FOp2::Add => arith::add_f64(x, y, r),
        FOp2::Sub => arith::sub_f64(x, y, r),
        FOp2::Mul => arith::mul_f64(x, y, r),
        FOp2::Div | FOp2::DivApprox => arith::div_f64(x, y, r),
        FOp2::Min => fl::min_f64(x, y),
        FOp2::Max => fl::max_f64(x, y),
        FOp2::MinNan | FOp2::MaxNan if x.is_nan() || y.is_nan() => {
            f64::from_bits(fl::CANON_NAN_F64)
        }
        FOp2::MinNan => fl::min_f64(x, y),
        FOp2::MaxNan => fl::max_f64(x, y),
        FOp2::Copysign => y.copysign(x),
    }
}

/// A 16-bit float operation through f32 (min/max/copysign are exact
/// there), with the inputs and result under the modifiers (see `half`).
fn f2_16(op: FOp2, x: u16, y: u16, m: FMods, bf: bool) -> u16 {
    let (x, y) = (fin16(x, bf, m), fin16(y, bf, m));
    if m.xorsign_abs {
        let plain = FMods {
            xorsign_abs: false,
            ..m
        };
        let nan = |d: u64| is_nan16(d as u16, bf);
        let f = |p: u64, q: u64| f2_16(op, p as u16, q as u16, plain, bf) as u64;
        return xorsign_abs(x as u64, y as u64, 16, nan, f) as u16;
    }
    fout16(f2_16_plain(op, x, y, m.round, bf), bf, m)
}

fn f2_16_plain(op: FOp2, x: u16, y: u16, r: Round, bf: bool) -> u16 {
    let bop = match op {
        FOp2::Add => Some(BinOp::Add),
        FOp2::Sub => Some(BinOp::Sub),
        FOp2::Mul => Some(BinOp::Mul),
        FOp2::Div | FOp2::DivApprox => Some(BinOp::Div),
        _ => None,
    };
    if bf {
        let (a, b) = (bf16::from_bits(x), bf16::from_bits(y));
        match bop {
            Some(o) => half_ops::binop_bf16(o, a, b, r).to_bits(),
            None => half_ops::f32_to_bf16(f2_32(op, a.to_f32(), b.to_f32(), r), r).to_bits(),
        }
    } else {
        let (a, b) = (f16::from_bits(x), f16::from_bits(y));
        match bop {
            Some(o) => half_ops::binop_f16(o, a, b, r).to_bits(),
            None => half_ops::f32_to_f16(f2_32(op, a.to_f32(), b.to_f32(), r), r).to_bits(),
        }
    }
}

pub(super) fn sat16(x: u16, bf: bool) -> u16 {
    let v = if bf {
        bf16::from_bits(x).to_f32()
    } else {
        f16::from_bits(x).to_f32()
    };
    let s = fl::sat_f32(v);
    if bf {
        bf16::from_f32(s).to_bits()
    } else {
        f16::from_f32(s).to_bits()
    }
}

pub fn float2(op: FOp2, ty: FTy, m: FMods, a: &L, b: &L, out: &mut L) {
    let r = m.round;
    match ty {
        FTy::F32 if m.xorsign_abs => map2(a, b, out, |x, y| {
            let plain = FMods {
                xorsign_abs: false,
                ..m
            };
            let nan = |d: u64| f32_of(d).is_nan();
            let f = |p: u64, q: u64| {
                let v = f2_32(op, fin32(f32_of(p), plain), fin32(f32_of(q), plain), r);
                of_f32(fout32(v, plain))
            };
            xorsign_abs(x, y, 32, nan, f)
        }),
        FTy::F32 if !m.ftz && !m.sat && r == Round::Rn => match op {
            FOp2::Add => map2(a, b, out, |x, y| {
                of_f32(fl::canon_f32(f32_of(x) + f32_of(y)))
            }),
            FOp2::Sub => map2(a, b, out, |x, y| {
                of_f32(fl::canon_f32(f32_of(x) - f32_of(y)))
            }),
            FOp2::Mul => map2(a, b, out, |x, y| {
                of_f32(fl::canon_f32(f32_of(x) * f32_of(y)))
            }),
            _ => map2(a, b, out, |x, y| of_f32(f2_32(op, f32_of(x), f32_of(y), r))),
        },
        FTy::F32 => map2(a, b, out, |x, y| {
            of_f32(fout32(
                f2_32(op, fin32(f32_of(x), m), fin32(f32_of(y), m), r),
                m,
            ))
        }),
        FTy::F64 => map2(a, b, out, |x, y| {
            let v = f2_64(op, f64::from_bits(x), f64::from_bits(y), r);
            (if m.sat { fl::sat_f64(v) } else { v }).to_bits()
        }),
        FTy::F16 | FTy::Bf16 => {
            let bf = ty == FTy::Bf16;
            map2(a, b, out, |x, y| {
                f2_16(op, x as u16, y as u16, m, bf) as u64
            })
        }
        FTy::F16x2 | FTy::Bf16x2 => {
            let bf = ty == FTy::Bf16x2;
            map2(a, b, out, |x, y| {
                let lo = f2_16(op, x as u16, y as u16, m, bf);
                let hi = f2_16(op, (x >> 16) as u16, (y >> 16) as u16, m, bf);
                lo as u64 | (hi as u64) << 16
            })
        }
    }
}

fn f1_64(op: FOp1, x: f64, r: Round) -> f64 {
    match op {
        FOp1::Neg => -x,
        FOp1::Abs => x.abs(),
        FOp1::Sqrt | FOp1::SqrtApprox => arith::sqrt_f64(x, r),
        FOp1::Rsqrt => fl::canon_f64(1.0 / x.sqrt()),
        FOp1::Rcp | FOp1::RcpApprox => arith::div_f64(1.0, x, r),
        FOp1::Sin => fl::canon_f64(x.sin()),
        FOp1::Cos => fl::canon_f64(x.cos()),
        FOp1::Lg2 => fl::canon_f64(x.log2()),
        FOp1::Ex2 => fl::canon_f64(x.exp2()),
        FOp1::Tanh => fl::canon_f64(x.tanh()),
    }
}

/// f32 unary ops. The `.approx` ones use the host's libm in f64 and round
/// once: at least as accurate as the GPU's documented bounds (PTX ISA: e.g.
/// `sin.approx.f32` max absolute error 2^-20.9 in [-pi, pi]).
fn f1_32(op: FOp1, x: f32, r: Round) -> f32 {
    match op {
        FOp1::Neg => -x,
        FOp1::Abs => x.abs(),
        FOp1::Sqrt => arith::sqrt_f32(x, r),
        FOp1::Rcp => arith::div_f32(1.0, x, r),
        _ => fl::canon_f32(f1_64(op, x as f64, Round::Rn) as f32),
    }
}

pub fn float1(op: FOp1, ty: FTy, m: FMods, a: &L, out: &mut L) {
    let r = m.round;
    match ty {
        FTy::F32 => map1(a, out, |x| {
            let v = fin32(f32_of(x), m);
            let res = f1_32(op, v, r);
            // neg/abs only flip or clear the sign bit, NaN payloads included.
            of_f32(if matches!(op, FOp1::Neg | FOp1::Abs) {
                if m.ftz { fl::ftz_f32(res) } else { res }
            } else {
                fout32(res, m)
            })
        }),
        FTy::F64 => map1(a, out, |x| f1_64(op, f64::from_bits(x), r).to_bits()),
        FTy::F16 | FTy::Bf16 | FTy::F16x2 | FTy::Bf16x2 => {
            let bf = matches!(ty, FTy::Bf16 | FTy::Bf16x2);
            // `.ftz` (f16 neg/abs) flushes the input and the result.
            let one = |h: u16| -> u16 {
                let h = fin16(h, bf, m);
                let res = match op {
                    FOp1::Neg => h ^ 0x8000,
                    FOp1::Abs => h & 0x7fff,
                    _ => {
                        let v = if bf {
                            bf16::from_bits(h).to_f32()
                        } else {
                            f16::from_bits(h).to_f32()
                        };
                        let res = f1_32(op, v, r);
                        if bf {
                            half_ops::f32_to_bf16(res, r).to_bits()
                        } else {
                            half_ops::f32_to_f16(res, r).to_bits()
                        }
                    }
                };
                fin16(res, bf, m)
            };
            let packed = matches!(ty, FTy::F16x2 | FTy::Bf16x2);
            map1(a, out, |x| {
                if packed {
                    one(x as u16) as u64 | (one((x >> 16) as u16) as u64) << 16
                } else {
                    one(x as u16) as u64
                }
            })
        }
    }
}

/// `fma.rn.f32` on 32 lanes. The CPU's fused multiply-add, where it has one
/// (x86-64 with FMA, detected once at run time; every aarch64), computes
/// IEEE's single-rounding result, as the f64 round-to-odd of
/// [`arith::fma_f32_rn`] does in about fifteen operations; the GEMM's
/// emulation spent a fifth of its time there. The two agree bit for bit
/// (test `the_cpu_fma_is_the_software_fma`), so the result does not depend
/// on the machine.
fn fma_f32_rn_lanes(a: &L, b: &L, c: &L, out: &mut L) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA, checked just above.
        unsafe { fma_f32_rn_lanes_fma(a, b, c, out) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    {
        // aarch64 has a fused multiply-add in its base instruction set.
        return map3(a, b, c, out, |x, y, z| {
            of_f32(fl::canon_f32(f32_of(x).mul_add(f32_of(y), f32_of(z))))
        });
    }
    #[allow(unreachable_code)]
    fma_f32_rn_lanes_soft(a, b, c, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_f32_rn_lanes_fma(a: &L, b: &L, c: &L, out: &mut L) {
    for l in 0..WARP_SIZE {
        let v = f32_of(a[l]).mul_add(f32_of(b[l]), f32_of(c[l]));
        out[l] = of_f32(fl::canon_f32(v));
    }
}

/// The software fma, lane by lane: CPUs without one, and the test's oracle.
fn fma_f32_rn_lanes_soft(a: &L, b: &L, c: &L, out: &mut L) {
    map3(a, b, c, out, |x, y, z| {
        of_f32(arith::fma_f32_rn(f32_of(x), f32_of(y), f32_of(z)))
    })
}

pub fn fma(ty: FTy, m: FMods, a: &L, b: &L, c: &L, out: &mut L) {
    let r = m.round;
    match ty {
        FTy::F32 if r == Round::Rn && !m.ftz && !m.sat => fma_f32_rn_lanes(a, b, c, out),
        FTy::F32 => map3(a, b, c, out, |x, y, z| {
            of_f32(fout32(
                arith::fma_f32(
                    fin32(f32_of(x), m),
                    fin32(f32_of(y), m),
                    fin32(f32_of(z), m),
                    r,
                ),
                m,
            ))
        }),
        FTy::F64 => map3(a, b, c, out, |x, y, z| {
            let v = arith::fma_f64(f64::from_bits(x), f64::from_bits(y), f64::from_bits(z), r);
            (if m.sat { fl::sat_f64(v) } else { v }).to_bits()
        }),
        _ => {
            let bf = matches!(ty, FTy::Bf16 | FTy::Bf16x2);
            let one = |x: u16, y: u16, z: u16| -> u16 {
                let (x, y, z) = (fin16(x, bf, m), fin16(y, bf, m), fin16(z, bf, m));
                let v = if bf {
                    half_ops::fma_bf16(
                        bf16::from_bits(x),
                        bf16::from_bits(y),
                        bf16::from_bits(z),
                        r,
                    )
                    .to_bits()
                } else {
                    half_ops::fma_f16(f16::from_bits(x), f16::from_bits(y), f16::from_bits(z), r)
                        .to_bits()
                };
                fout16(v, bf, m)
            };
            let packed = matches!(ty, FTy::F16x2 | FTy::Bf16x2);
            map3(a, b, c, out, |x, y, z| {
                let lo = one(x as u16, y as u16, z as u16) as u64;
                if packed {
                    lo | (one((x >> 16) as u16, (y >> 16) as u16, (z >> 16) as u16) as u64) << 16
                } else {
                    lo
                }
            })
        }
    }
}

// ---- comparisons ----

fn cmp_ord(cmp: CmpOp, o: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (cmp, o) {
        (CmpOp::Num, o) => o.is_some(),
        (CmpOp::Nan, o) => o.is_none(),
        (CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu, None) => true,
        (_, None) => false,
        (CmpOp::Eq | CmpOp::Equ, Some(o)) => o == Equal,
        (CmpOp::Ne | CmpOp::Neu, Some(o)) => o != Equal,
        (CmpOp::Lt | CmpOp::Ltu | CmpOp::Lo, Some(o)) => o == Less,
        (CmpOp::Le | CmpOp::Leu | CmpOp::Ls, Some(o)) => o != Greater,
        (CmpOp::Gt | CmpOp::Gtu | CmpOp::Hi, Some(o)) => o == Greater,
        (CmpOp::Ge | CmpOp::Geu | CmpOp::Hs, Some(o)) => o != Less,
    }
}

fn half_val(h: u16, bf: bool) -> f32 {
    if bf {
        bf16::from_bits(h).to_f32()
    } else {
        f16::from_bits(h).to_f32()
    }
}

/// Lanes where `a cmp b` holds. For packed types the low half decides (the
/// high half goes to `compare_hi`).
pub fn compare(cmp: CmpOp, ty: CmpTy, a: &L, b: &L, hi_half: bool) -> Mask {
    #[inline]
    fn lanes_mask(f: impl Fn(usize) -> bool) -> Mask {
        let mut mask = 0;
        for l in 0..WARP_SIZE {
            mask |= (f(l) as u32) << l;
        }
        mask
    }
    match ty {
        CmpTy::Int { bits, signed } => {
            let w = bits as u32;
            // lo/ls/hi/hs compare unsigned whatever the type says.
            let s = signed && !matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
            match cmp {
                CmpOp::Eq => lanes_mask(|l| ext(a[l], w, s) == ext(b[l], w, s)),
                CmpOp::Ne => lanes_mask(|l| ext(a[l], w, s) != ext(b[l], w, s)),
                CmpOp::Lt | CmpOp::Lo => lanes_mask(|l| ext(a[l], w, s) < ext(b[l], w, s)),
                CmpOp::Le | CmpOp::Ls => lanes_mask(|l| ext(a[l], w, s) <= ext(b[l], w, s)),
                CmpOp::Gt | CmpOp::Hi => lanes_mask(|l| ext(a[l], w, s) > ext(b[l], w, s)),
                CmpOp::Ge | CmpOp::Hs => lanes_mask(|l| ext(a[l], w, s) >= ext(b[l], w, s)),
                _ => lanes_mask(|l| cmp_ord(cmp, Some(ext(a[l], w, s).cmp(&ext(b[l], w, s))))),
            }
        }
        CmpTy::Float { ty: FTy::F32, ftz } => lanes_mask(|l| {
            let (x, y) = (f32_of(a[l]), f32_of(b[l]));
            let (x, y) = if ftz {
                (fl::ftz_f32(x), fl::ftz_f32(y))
            } else {
                (x, y)
            };
            cmp_ord(cmp, x.partial_cmp(&y))
        }),
        CmpTy::Float { ty: FTy::F64, .. } => {
            lanes_mask(|l| cmp_ord(cmp, f64::from_bits(a[l]).partial_cmp(&f64::from_bits(b[l]))))
        }
        CmpTy::Float { ty, ftz } => {
            let bf = matches!(ty, FTy::Bf16 | FTy::Bf16x2);
            let sh = if hi_half { 16 } else { 0 };
            // `.ftz`: subnormal inputs compare as the zero of their sign.
            let half = |v: u64| {
                let h = (v >> sh) as u16;
                half_val(if ftz { ftz16(h, bf) } else { h }, bf)
            };
            lanes_mask(|l| {
                let (x, y) = (half(a[l]), half(b[l]));
                cmp_ord(cmp, x.partial_cmp(&y))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random bit patterns (every class: NaNs, infinities, subnormals,
    /// zeros of both signs) and products that cancel against the addend,
    /// through the CPU path and the software path.
    #[test]
    fn the_cpu_fma_is_the_software_fma() {
        let mut rng = prng::Rng::new(0x2545_F491_4F6C_DD1Du64);
        let mut next = move || rng.next_u64();
        let special = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007F_FFFF,
            0x0080_0000,
            0x3F80_0000,
            0xBF80_0000,
            0x7F7F_FFFF,
            0xFF7F_FFFF,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0x7F80_0001,
            0x3400_0000,
            0x3380_0000,
        ];
        let mut pick = |i: usize| -> u64 {
            let r = next();
            u64::from(match (r >> 60) % 4 {
                0 => special[(r % special.len() as u64) as usize],
                // Near one: products whose low bits decide the rounding.
                1 => 0x3F80_0000 ^ (r as u32 & 0x00FF_FFFF),
                // Small exponents: subnormal products and sums.
                2 => (r as u32 & 0x80FF_FFFF) | ((i as u32 % 24) << 23),
                _ => r as u32,
            })
        };
        for round in 0..4000 {
            let a: L = std::array::from_fn(|l| pick(l + round));
            let b: L = std::array::from_fn(|l| pick(l + 2 * round));
            // Half the lanes add minus the product, rounded: near-total cancellation.
            let c: L = std::array::from_fn(|l| {
                if l % 2 == 0 {
                    of_f32(-(f32_of(a[l]) * f32_of(b[l])))
                } else {
                    pick(l + 3 * round)
                }
            });
            let (mut hw, mut sw) = ([0u64; WARP_SIZE], [0u64; WARP_SIZE]);
            fma_f32_rn_lanes(&a, &b, &c, &mut hw);
            fma_f32_rn_lanes_soft(&a, &b, &c, &mut sw);
            for l in 0..WARP_SIZE {
                assert_eq!(hw[l], sw[l], "fma({:#x}, {:#x}, {:#x})", a[l], b[l], c[l]);
            }
        }
    }
}
