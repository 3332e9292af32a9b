//! Logic, shift, bit-field and permute forms. References: Rust's integer
//! bit operations, written from the ISA's definitions and pseudocode (PTX
//! ISA 9.7.1 bfe, bfi, bfind, brev, clz, popc, dp4a, dp2a; 9.7.8 "Logic and
//! shift": and, or, xor, not, cnot, lop3, shf, shl, shr; 9.7.9.x prmt; mov
//! packing) — independent of the emulator's ALU.

use super::int::{lane2, wrap};
use crate::form::{Family, Form, any, bits};
use crate::operand::Gen;
use crate::ty::Ty::{self, *};

const BITS: [Ty; 3] = [B16, B32, B64];

/// A bit position or field length: mostly within the value, sometimes past it.
fn field(msb: u64) -> (Ty, Gen) {
    (U32, Gen::Range(0, msb + 9))
}

/// Logic, shifts, bit fields, permutes.
fn logic(out: &mut Vec<Form>) {
    type Op = fn(Ty, u64, u64) -> u64;
    let ops: [(&str, Op); 3] = [
        ("and", |_, a, b| a & b),
        ("or", |_, a, b| a | b),
        ("xor", |_, a, b| a ^ b),
    ];
    for t in BITS {
        for (op, f) in ops {
            out.push(lane2(format!("{op}.{}", t.name()), t, t, Gen::Any, f));
        }
        out.push(Form::lane(
            Family::Integer,
            format!("not.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![!x[0] & t.mask()],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("cnot.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![u64::from(x[0] & t.mask() == 0)],
        ));
        let w = t.bits() as u64;
        let shift = (U32, Gen::Range(0, w + 8));
        out.push(Form::lane(
            Family::Integer,
            format!("shl.{}", t.name()),
            vec![any(t), shift],
            vec![bits(t)],
            move |x| {
                let n = x[1] & 0xffff_ffff;
                vec![if n >= w { 0 } else { (x[0] << n) & t.mask() }]
            },
        ));
    }
    for t in [B16, B32, B64, U16, U32, U64, S16, S32, S64] {
        let w = t.bits() as u64;
        out.push(Form::lane(
            Family::Integer,
            format!("shr.{}", t.name()),
            vec![any(t), (U32, Gen::Range(0, w + 8))],
            vec![bits(t)],
            move |x| {
                let n = (x[1] & 0xffff_ffff).min(w - 1 + u64::from(!t.signed()));
                let v = t.int_value(x[0]);
                vec![if n >= w { 0 } else { wrap(t, v >> n) }]
            },
        ));
    }
    for t in [B32, B64] {
        let w = t.bits();
        out.push(Form::lane(
            Family::Integer,
            format!("popc.{}", t.name()),
            vec![any(t)],
            vec![bits(U32)],
            move |x| vec![u64::from((x[0] & t.mask()).count_ones())],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("clz.{}", t.name()),
            vec![any(t)],
            vec![bits(U32)],
            move |x| vec![u64::from((x[0] & t.mask()).leading_zeros() - (64 - w))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("brev.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![(x[0] & t.mask()).reverse_bits() >> (64 - w)],
        ));
    }
    for t in [U32, S32, U64, S64] {
        for shiftamt in [false, true] {
            let w = t.bits();
            let name = format!(
                "bfind{}.{}",
                if shiftamt { ".shiftamt" } else { "" },
                t.name()
            );
            out.push(Form::lane(
                Family::Integer,
                name,
                vec![any(t)],
                vec![bits(U32)],
                move |x| {
                    let v = x[0] & t.mask();
                    // Signed: the most significant bit that differs from the sign.
                    let v = if t.signed() && v >> (w - 1) == 1 {
                        !v & t.mask()
                    } else {
                        v
                    };
                    vec![match (v, shiftamt) {
                        (0, _) => 0xffff_ffff,
                        (v, false) => u64::from(63 - v.leading_zeros()),
                        (v, true) => u64::from(w - 1 - (63 - v.leading_zeros())),
                    }]
                },
            ));
        }
        let msb = u64::from(t.bits() - 1);
        out.push(Form::lane(
            Family::Integer,
            format!("bfe.{}", t.name()),
            vec![any(t), field(msb), field(msb)],
            vec![bits(t)],
            move |x| {
                let (pos, len) = field_operands(msb, x[1], x[2]);
                let sbit = if !t.signed() || len == 0 {
                    0
                } else {
                    (x[0] >> (pos + len - 1).min(msb)) & 1
                };
                let mut d = 0u64;
                for i in 0..=msb {
                    let bit = if i < len && pos + i <= msb {
                        (x[0] >> (pos + i)) & 1
                    } else {
                        sbit
                    };
                    d |= bit << i;
                }
                vec![d]
            },
        ));
    }
    for t in [B32, B64] {
        let msb = u64::from(t.bits() - 1);
        out.push(Form::lane(
            Family::Integer,
            format!("bfi.{}", t.name()),
            vec![any(t), any(t), field(msb), field(msb)],
            vec![bits(t)],
            move |x| {
                let (pos, len) = field_operands(msb, x[2], x[3]);
                let mut f = x[1] & t.mask();
                let mut i = 0;
                while i < len && pos + i <= msb {
                    f = (f & !(1 << (pos + i))) | (((x[0] >> i) & 1) << (pos + i));
                    i += 1;
                }
                vec![f]
            },
        ));
    }
}

/// bfe's and bfi's position and length. The ISA takes both from the low 8
/// bits; the H200 does so for the 32-bit forms but uses the whole 32-bit
/// operands for the 64-bit ones (a position of 0x100 inserts nothing,
/// recorded in data/conformance/nvidia-h200: every thread of bfe.u64,
/// bfe.s64 and bfi.b64 fits this reading, 11 contradict the ISA's).
fn field_operands(msb: u64, pos: u64, len: u64) -> (u64, u64) {
    if msb == 63 {
        (pos & 0xffff_ffff, len & 0xffff_ffff)
    } else {
        (pos & 0xff, len & 0xff)
    }
}

/// prmt (default and the six modes), shf, lop3.
fn permutes(out: &mut Vec<Form>) {
    let byte = |a: u64, b: u64, i: u64| {
        ((a & 0xffff_ffff) | (b & 0xffff_ffff) << 32) >> (8 * (i & 7)) & 0xff
    };
    out.push(Form::lane(
        Family::Integer,
        "prmt.b32",
        vec![any(B32), any(B32), any(B32)],
        vec![bits(B32)],
        move |x| {
            let mut d = 0;
            for i in 0..4 {
                let s = (x[2] >> (4 * i)) & 0xf;
                let mut v = byte(x[0], x[1], s & 7);
                if s & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * i);
            }
            vec![d]
        },
    ));
    type Sel = fn(u64, u64) -> u64;
    let modes: [(&str, Sel); 6] = [
        ("f4e", |s, i| s + i),
        ("b4e", |s, i| s.wrapping_sub(i) & 7),
        ("rc8", |s, _| s),
        ("ecl", |s, i| s.max(i)),
        ("ecr", |s, i| s.min(i)),
        ("rc16", |s, i| 2 * (s & 1) + (i & 1)),
    ];
    for (mode, sel) in modes {
        out.push(Form::lane(
            Family::Integer,
            format!("prmt.b32.{mode}"),
            vec![any(B32), any(B32), any(B32)],
            vec![bits(B32)],
            move |x| {
                let s = x[2] & 3;
                vec![(0..4).fold(0, |d, i| d | byte(x[0], x[1], sel(s, i)) << (8 * i))]
            },
        ));
    }
    for left in [true, false] {
        for clamp in [false, true] {
            let dir = if left { "l" } else { "r" };
            let mode = if clamp { "clamp" } else { "wrap" };
            out.push(Form::lane(
                Family::Integer,
                format!("shf.{dir}.{mode}.b32"),
                vec![any(B32), any(B32), (U32, Gen::Range(0, 40))],
                vec![bits(B32)],
                move |x| {
                    let c = x[2] & 0xffff_ffff;
                    let n = if clamp { c.min(32) } else { c & 31 };
                    let v = (x[0] & 0xffff_ffff) as u128 | ((x[1] & 0xffff_ffff) as u128) << 32;
                    vec![
                        if left {
                            ((v << n) >> 32) as u64
                        } else {
                            (v >> n) as u64
                        } & 0xffff_ffff,
                    ]
                },
            ));
        }
    }
    for lut in [
        0x00u8, 0xff, 0x96, 0xe8, 0xf0, 0xcc, 0xaa, 0x80, 0xfe, 0x1e, 0x6a, 0xca, 0x3c, 0x5a, 0x01,
        0x7f,
    ] {
        out.push(
            Form::lane(
                Family::Integer,
                format!("lop3.b32.{lut:#04x}"),
                vec![any(B32), any(B32), any(B32)],
                vec![bits(B32)],
                move |x| {
                    let d = (0..32).fold(0u64, |d, i| {
                        let idx =
                            ((x[0] >> i) & 1) << 2 | ((x[1] >> i) & 1) << 1 | ((x[2] >> i) & 1);
                        d | u64::from((lut >> idx) & 1) << i
                    });
                    vec![d]
                },
            )
            .with_body(format!(
                "lop3.b32 {{d0}}, {{a0}}, {{a1}}, {{a2}}, {lut:#04x};"
            )),
        );
    }
    // dp4a / dp2a: byte and half-word dot products (sm_61).
    for (at, bt) in [(U32, U32), (U32, S32), (S32, U32), (S32, S32)] {
        let part = move |v: u64, t: Ty, w: u32, i: u32| -> i128 {
            let p = (v >> (w * i)) & ((1 << w) - 1);
            if t.signed() && p >> (w - 1) == 1 {
                p as i128 - (1 << w)
            } else {
                p as i128
            }
        };
        let ct = if at.signed() || bt.signed() { S32 } else { U32 };
        out.push(
            Form::lane(
                Family::Integer,
                format!("dp4a.{}.{}", at.name(), bt.name()),
                vec![any(at), any(bt), any(ct)],
                vec![bits(ct)],
                move |x| {
                    let s: i128 = (0..4)
                        .map(|i| part(x[0], at, 8, i) * part(x[1], bt, 8, i))
                        .sum();
                    vec![wrap(ct, s + ct.int_value(x[2]))]
                },
            )
            .needs(61, (5, 0)),
        );
        for hi in [false, true] {
            let k = if hi { 2 } else { 0 };
            out.push(
                Form::lane(
                    Family::Integer,
                    format!(
                        "dp2a.{}.{}.{}",
                        if hi { "hi" } else { "lo" },
                        at.name(),
                        bt.name()
                    ),
                    vec![any(at), any(bt), any(ct)],
                    vec![bits(ct)],
                    move |x| {
                        let s: i128 = (0..2)
                            .map(|i| part(x[0], at, 16, i) * part(x[1], bt, 8, i + k))
                            .sum();
                        vec![wrap(ct, s + ct.int_value(x[2]))]
                    },
                )
                .needs(61, (5, 0)),
            );
        }
    }
}

/// mov between a wide register and a vector of its parts, low part first
/// (PTX ISA 9.7.9.10 mov: `mov.b32 d, {lo, hi}` and the reverse).
fn packing(out: &mut Vec<Form>) {
    for (wide, part, n) in [(B32, B16, 2usize), (B64, B32, 2), (B64, B16, 4)] {
        let pw = part.bits();
        let list = |p: &str| {
            (0..n)
                .map(|i| format!("{{{p}{i}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push(
            Form::lane(
                Family::Integer,
                format!("mov.{}.pack.{}x{n}", wide.name(), part.name()),
                vec![any(part); n],
                vec![bits(wide)],
                move |x| {
                    vec![
                        x.iter()
                            .enumerate()
                            .fold(0, |d, (i, v)| d | (v & part.mask()) << (pw as usize * i)),
                    ]
                },
            )
            .with_body(format!("mov.{} {{d0}}, {{{}}};", wide.name(), list("a"))),
        );
        out.push(
            Form::lane(
                Family::Integer,
                format!("mov.{}.unpack.{}x{n}", wide.name(), part.name()),
                vec![any(wide)],
                vec![bits(part); n],
                move |x| {
                    (0..n)
                        .map(|i| (x[0] >> (pw as usize * i)) & part.mask())
                        .collect()
                },
            )
            .with_body(format!("mov.{} {{{}}}, {{a0}};", wide.name(), list("d"))),
        );
    }
}

/// Every logic, shift, bit-field and permute form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    logic(&mut out);
    permutes(&mut out);
    packing(&mut out);
    out
}
