//! Directed rounding checked against rustc_apfloat (the oracle) by property
//! tests, over bit patterns that include subnormals, infinities, NaNs and
//! near-cancellations. sqrt has no apfloat operation: it is checked by the
//! defining inequalities of a correctly rounded root instead.

use emu::float::arith::*;
use emu::float::convert::{int_to_f32, int_to_f64};
use emu::float::half_ops::{BinOp, binop_bf16, binop_f16, f64_to_bf16, f64_to_f16, fma_f16};
use emu::float::{CANON_NAN_F32, CANON_NAN_F64, Round};
use half::{bf16, f16};
use proptest::prelude::*;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert};

fn ap32(x: f32) -> Single {
    Single::from_bits(x.to_bits() as u128)
}
fn ap64(x: f64) -> Double {
    Double::from_bits(x.to_bits() as u128)
}

/// Results agree when bit-identical, or both NaN (the emulator canonicalises).
fn same32(got: f32, want: Single) -> bool {
    let want = f32::from_bits(want.to_bits() as u32);
    (got.is_nan() && want.is_nan() && got.to_bits() == CANON_NAN_F32)
        || got.to_bits() == want.to_bits()
}
fn same64(got: f64, want: Double) -> bool {
    let want = f64::from_bits(want.to_bits() as u64);
    (got.is_nan() && want.is_nan() && got.to_bits() == CANON_NAN_F64)
        || got.to_bits() == want.to_bits()
}

/// f32 bit patterns biased toward the interesting: specials, subnormals, near 1.
fn f32_any() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (0u32..0x0080_0000, any::<bool>())
            .prop_map(|(m, s)| f32::from_bits(m | ((s as u32) << 31))),
        (0x3f00_0000u32..0x4000_0000, any::<bool>())
            .prop_map(|(m, s)| f32::from_bits(m | ((s as u32) << 31))),
        prop::sample::select(vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
            1.0
        ]),
    ]
}

fn f64_any() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        (0u64..(1 << 52), any::<bool>()).prop_map(|(m, s)| f64::from_bits(m | ((s as u64) << 63))),
        (
            0x3fe0_0000_0000_0000u64..0x4000_0000_0000_0000,
            any::<bool>()
        )
            .prop_map(|(m, s)| f64::from_bits(m | ((s as u64) << 63))),
        (0x0010_0000_0000_0000u64..0x0400_0000_0000_0000).prop_map(f64::from_bits),
        prop::sample::select(vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            1.0
        ]),
    ]
}

fn mode() -> impl Strategy<Value = Round> {
    prop::sample::select(Round::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn f32_ops_match_apfloat(a in f32_any(), b in f32_any(), c in f32_any(), m in mode()) {
        let r = m_ap(m);
        prop_assert!(same32(add_f32(a, b, m), ap32(a).add_r(ap32(b), r).value), "add {a:e} {b:e} {m:?}");
        prop_assert!(same32(sub_f32(a, b, m), ap32(a).sub_r(ap32(b), r).value), "sub {a:e} {b:e} {m:?}");
        prop_assert!(same32(mul_f32(a, b, m), ap32(a).mul_r(ap32(b), r).value), "mul {a:e} {b:e} {m:?}");
        prop_assert!(same32(div_f32(a, b, m), ap32(a).div_r(ap32(b), r).value), "div {a:e} {b:e} {m:?}");
        prop_assert!(same32(fma_f32(a, b, c, m), ap32(a).mul_add_r(ap32(b), ap32(c), r).value), "fma {a:e} {b:e} {c:e} {m:?}");
        let rn = ap32(a).mul_add_r(ap32(b), ap32(c), rustc_apfloat::Round::NearestTiesToEven).value;
        prop_assert!(same32(fma_f32_rn(a, b, c), rn), "fma_rn {a:e} {b:e} {c:e}");
    }

    #[test]
    fn f32_cancellation(a in f32_any(), k in -3i32..3, m in mode()) {
        // a + (-a + tiny) style near-cancellation.
        let b = -f32::from_bits(a.to_bits().wrapping_add(k as u32));
        prop_assert!(same32(add_f32(a, b, m), ap32(a).add_r(ap32(b), m_ap(m)).value), "add {a:e} {b:e} {m:?}");
        prop_assert!(same32(fma_f32(a, 1.0, b, m), ap32(a).mul_add_r(ap32(1.0), ap32(b), m_ap(m)).value));
    }

    #[test]
    fn f64_ops_match_apfloat(a in f64_any(), b in f64_any(), c in f64_any(), m in mode()) {
        let r = m_ap(m);
        prop_assert!(same64(add_f64(a, b, m), ap64(a).add_r(ap64(b), r).value), "add {a:e} {b:e} {m:?}");
        prop_assert!(same64(mul_f64(a, b, m), ap64(a).mul_r(ap64(b), r).value), "mul {a:e} {b:e} {m:?}");
        prop_assert!(same64(div_f64(a, b, m), ap64(a).div_r(ap64(b), r).value), "div {a:e} {b:e} {m:?}");
        prop_assert!(same64(fma_f64(a, b, c, m), ap64(a).mul_add_r(ap64(b), ap64(c), r).value), "fma {a:e} {b:e} {c:e} {m:?}");
    }

    #[test]
    fn narrowing_matches_apfloat(x in f64_any(), y in f32_any(), m in mode()) {
        let r = m_ap(m);
        let mut lost = false;
        let want: Single = ap64(x).convert_r(r, &mut lost).value;
        prop_assert!(same32(f64_to_f32(x, m), want), "f64->f32 {x:e} {m:?}");
        for v in [x, y as f64] {
            let want: Half = ap64(v).convert_r(r, &mut lost).value;
            let got = f64_to_f16(v, m);
            prop_assert!(got.to_bits() as u128 == want.to_bits() || got.is_nan() && want.is_nan(), "f64->f16 {v:e} {m:?}");
            let want: BFloat = ap64(v).convert_r(r, &mut lost).value;
            let got = f64_to_bf16(v, m);
            prop_assert!(got.to_bits() as u128 == want.to_bits() || got.is_nan() && want.is_nan(), "f64->bf16 {v:e} {m:?}");
        }
    }

    #[test]
    fn half_ops_match_apfloat(a in any::<u16>(), b in any::<u16>(), c in any::<u16>(), m in mode()) {
        let r = m_ap(m);
        let (ha, hb, hc) = (f16::from_bits(a), f16::from_bits(b), f16::from_bits(c));
        let (pa, pb, pc) = (Half::from_bits(a as u128), Half::from_bits(b as u128), Half::from_bits(c as u128));
        let cases = [
            (binop_f16(BinOp::Add, ha, hb, m), pa.add_r(pb, r).value),
            (binop_f16(BinOp::Sub, ha, hb, m), pa.sub_r(pb, r).value),
            (binop_f16(BinOp::Mul, ha, hb, m), pa.mul_r(pb, r).value),
            (binop_f16(BinOp::Div, ha, hb, m), pa.div_r(pb, r).value),
            (fma_f16(ha, hb, hc, m), pa.mul_add_r(pb, pc, r).value),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            prop_assert!(got.to_bits() as u128 == want.to_bits() || got.is_nan() && want.is_nan(), "op {i} {ha} {hb} {hc} {m:?}");
        }
        let (ba, bb) = (bf16::from_bits(a), bf16::from_bits(b));
        let (qa, qb) = (BFloat::from_bits(a as u128), BFloat::from_bits(b as u128));
        let got = binop_bf16(BinOp::Mul, ba, bb, m);
        let want = qa.mul_r(qb, r).value;
        prop_assert!(got.to_bits() as u128 == want.to_bits() || got.is_nan() && want.is_nan(), "bf16 mul {ba} {bb} {m:?}");
    }

    #[test]
    fn int_to_float_matches_apfloat(x in any::<i64>(), u in any::<u64>(), m in mode()) {
        let r = m_ap(m);
        for v in [x as i128, u as i128, (x >> 20) as i128] {
            let want32 = Single::from_i128_r(v, r).value;
            prop_assert!(same32(int_to_f32(v, m), want32), "{v} -> f32 {m:?}");
            let want64 = Double::from_i128_r(v, r).value;
            prop_assert!(same64(int_to_f64(v, m), want64), "{v} -> f64 {m:?}");
        }
    }

    #[test]
    fn sqrt_is_correctly_rounded(a in f32_any(), d in f64_any(), m in mode()) {
        check_sqrt32(a, m);
        check_sqrt64(d, m);
    }
}

fn m_ap(m: Round) -> rustc_apfloat::Round {
    match m {
        Round::Rn => rustc_apfloat::Round::NearestTiesToEven,
        Round::Rz => rustc_apfloat::Round::TowardZero,
        Round::Rm => rustc_apfloat::Round::TowardNegative,
        Round::Rp => rustc_apfloat::Round::TowardPositive,
    }
}

/// s is the directed sqrt of a iff s^2 and its neighbour's square bracket a
/// the right way; squares of f32 values are exact in f64.
fn check_sqrt32(a: f32, m: Round) {
    let s = sqrt_f32(a, m);
    if a.is_nan() || a <= 0.0 || a.is_infinite() {
        // Spelled out, not through canon_f32: the expectation must not
        // depend on the code under test (nor on the optimiser).
        let want = if a.is_nan() || a < 0.0 {
            CANON_NAN_F32
        } else {
            a.to_bits()
        };
        assert_eq!(s.to_bits(), want, "sqrt {a:e} {m:?}");
        return;
    }
    let a = a as f64;
    let sq = |x: f32| x as f64 * x as f64;
    match m {
        Round::Rn => assert_eq!(s, (a.sqrt()) as f32),
        Round::Rz | Round::Rm => assert!(
            sq(s) <= a && sq(s.next_up()) > a,
            "sqrt {a:e} {m:?} -> {s:e}"
        ),
        Round::Rp => assert!(
            sq(s) >= a && sq(s.next_down()) < a,
            "sqrt {a:e} {m:?} -> {s:e}"
        ),
    }
}

fn check_sqrt64(a: f64, m: Round) {
    let s = sqrt_f64(a, m);
    if a.is_nan() || a <= 0.0 || a.is_infinite() {
        let want = if a.is_nan() || a < 0.0 {
            CANON_NAN_F64
        } else {
            a.to_bits()
        };
        assert_eq!(s.to_bits(), want, "sqrt {a:e} {m:?}");
        return;
    }
    // Compare s^2 with a exactly through apfloat (Double squares are not exact in f64).
    let cmp = |x: f64| {
        let sq = ap64(x).mul_r(ap64(x), rustc_apfloat::Round::TowardZero);
        let exact = sq.status == rustc_apfloat::Status::OK;
        let v = f64::from_bits(sq.value.to_bits() as u64);
        // v is s^2 truncated: s^2 > a iff v > a, or v == a and inexact.
        if v > a || (v == a && !exact) {
            1
        } else if v == a {
            0
        } else {
            -1
        }
    };
    match m {
        Round::Rn => assert_eq!(s, a.sqrt()),
        Round::Rz | Round::Rm => assert!(
            cmp(s) <= 0 && cmp(s.next_up()) > 0,
            "sqrt {a:e} {m:?} -> {s:e}"
        ),
        Round::Rp => assert!(
            cmp(s) >= 0 && cmp(s.next_down()) < 0,
            "sqrt {a:e} {m:?} -> {s:e}"
        ),
    }
}

/// A few directed results worth stating by hand.
#[test]
fn known_values() {
    let tiny = 2f32.powi(-30);
    assert_eq!(add_f32(1.0, tiny, Round::Rp), 1.0f32.next_up());
    assert_eq!(add_f32(1.0, tiny, Round::Rn), 1.0);
    assert_eq!(add_f32(1.0, tiny, Round::Rz), 1.0);
    assert_eq!(add_f32(-1.0, -tiny, Round::Rm), (-1.0f32).next_down());
    assert_eq!(add_f32(1.0, -1.0, Round::Rm).to_bits(), (-0.0f32).to_bits());
    assert_eq!(add_f32(1.0, -1.0, Round::Rn).to_bits(), 0.0f32.to_bits());
    assert_eq!(mul_f32(f32::MAX, 2.0, Round::Rz), f32::MAX);
    assert_eq!(mul_f32(f32::MAX, 2.0, Round::Rp), f32::INFINITY);
    assert_eq!(
        div_f32(1.0, 3.0, Round::Rm),
        div_f32(1.0, 3.0, Round::Rp).next_down()
    );
    assert_eq!(
        add_f32(f32::INFINITY, f32::NEG_INFINITY, Round::Rn).to_bits(),
        CANON_NAN_F32
    );
    assert_eq!(sqrt_f32(2.0, Round::Rp), sqrt_f32(2.0, Round::Rz).next_up());
}

/// Directed f64 sums of operands near f64::MAX, where TwoSum's own
/// differences overflow; the first is the case the random test found
/// (it came out one ulp high toward zero).
#[test]
fn huge_f64_sums_match_apfloat() {
    let cases = [
        (-5.756603317887626e307, f64::MAX),
        (f64::MAX, -5.756603317887626e307),
        (f64::MAX, -f64::MIN_POSITIVE),
        (-f64::MAX, 1.0),
        (f64::MAX, f64::MAX.next_down()),
        (2f64.powi(1023), -3.0e307),
    ];
    for (a, b) in cases {
        for m in Round::ALL {
            let want = ap64(a).add_r(ap64(b), m_ap(m)).value;
            assert!(same64(add_f64(a, b, m), want), "add {a:e} {b:e} {m:?}");
            let want = ap64(a).sub_r(ap64(-b), m_ap(m)).value;
            assert!(same64(sub_f64(a, -b, m), want), "sub {a:e} {:e} {m:?}", -b);
        }
    }
}

/// Every NaN result is the canonical NaN, whatever the operands' payloads,
/// in every build profile (CI runs the tests in release too: LLVM once
/// folded the canonicalisation away there).
#[test]
fn nan_results_are_canonical() {
    let nans32 = [
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0xffc0_1234),
        f32::from_bits(0x7f80_0001),
        f32::NAN,
    ];
    for m in Round::ALL {
        for &n in &nans32 {
            for got in [
                add_f32(n, 1.0, m),
                sub_f32(1.0, n, m),
                mul_f32(n, 2.0, m),
                div_f32(n, 3.0, m),
                fma_f32(n, 1.0, 1.0, m),
                fma_f32(1.0, 1.0, n, m),
                fma_f32_rn(n, 1.0, 1.0),
                sqrt_f32(n, m),
                f64_to_f32(n as f64, m),
            ] {
                assert_eq!(got.to_bits(), CANON_NAN_F32, "{n:?} {m:?}");
            }
            let d = n as f64;
            for got in [
                add_f64(d, 1.0, m),
                mul_f64(d, 2.0, m),
                div_f64(d, 3.0, m),
                fma_f64(d, 1.0, 1.0, m),
                sqrt_f64(d, m),
            ] {
                assert_eq!(got.to_bits(), CANON_NAN_F64, "{d:?} {m:?}");
            }
        }
        // NaNs made from ordinary operands.
        for got in [
            add_f32(f32::INFINITY, f32::NEG_INFINITY, m),
            mul_f32(0.0, f32::INFINITY, m),
            div_f32(0.0, 0.0, m),
            sqrt_f32(-1.0, m),
            fma_f32(0.0, f32::INFINITY, 1.0, m),
        ] {
            assert_eq!(got.to_bits(), CANON_NAN_F32, "{m:?}");
        }
        for got in [
            add_f64(f64::INFINITY, f64::NEG_INFINITY, m),
            mul_f64(0.0, f64::INFINITY, m),
            div_f64(0.0, 0.0, m),
            sqrt_f64(-1.0, m),
            fma_f64(0.0, f64::INFINITY, 1.0, m),
        ] {
            assert_eq!(got.to_bits(), CANON_NAN_F64, "{m:?}");
        }
    }
    // The pattern LLVM folded: canonicalising a host result inlined into
    // its caller (black_box keeps the operand from being constant-folded).
    for n in nans32 {
        let n = std::hint::black_box(n);
        assert_eq!(emu::float::canon_f32(n.sqrt()).to_bits(), CANON_NAN_F32);
        assert_eq!(emu::float::canon_f32(n + 1.0).to_bits(), CANON_NAN_F32);
        let d = n as f64;
        assert_eq!(emu::float::canon_f64(d.sqrt()).to_bits(), CANON_NAN_F64);
        assert_eq!(emu::float::canon_f64(d * 2.0).to_bits(), CANON_NAN_F64);
        let other = std::hint::black_box(f32::from_bits(0x7fc0_0002));
        assert_eq!(emu::float::min_f32(n, other).to_bits(), CANON_NAN_F32);
        assert_eq!(emu::float::max_f32(n, other).to_bits(), CANON_NAN_F32);
        let other = other as f64;
        assert_eq!(emu::float::min_f64(d, other).to_bits(), CANON_NAN_F64);
        assert_eq!(emu::float::max_f64(d, other).to_bits(), CANON_NAN_F64);
    }
    assert_eq!(emu::float::canon_f32(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(emu::float::canon_f32(f32::INFINITY), f32::INFINITY);
}
