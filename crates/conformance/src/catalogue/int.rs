//! Integer forms. References: Rust's native integer arithmetic on i128 and
//! u128, written from the ISA's definitions (PTX ISA 9.7.1 "Integer
//! arithmetic", 9.7.2 "Extended-precision", 9.7.3 "Logic and shift",
//! 9.7.4 "Comparison and selection") — independent of the emulator's ALU.

use crate::form::{Family, Form, any, bits};
use crate::operand::Gen;
use crate::ty::Ty::{self, *};

const INTS: [Ty; 6] = [U16, S16, U32, S32, U64, S64];
const BITS: [Ty; 3] = [B16, B32, B64];

fn wrap(t: Ty, v: i128) -> u64 {
    (v as u64) & t.mask()
}

fn clamp(t: Ty, v: i128) -> u64 {
    let w = t.bits();
    let (lo, hi) = if t.signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    wrap(t, v.clamp(lo, hi))
}

/// The full product, as i128 when it fits (signed, or unsigned up to 32 bits)
/// and through u128 for u64 (the value's low 128 bits either way).
fn product(t: Ty, a: u64, b: u64) -> i128 {
    if t.signed() || t.bits() < 64 {
        t.int_value(a) * t.int_value(b)
    } else {
        ((a as u128) * (b as u128)) as i128
    }
}

fn high(t: Ty, a: u64, b: u64) -> u64 {
    let w = t.bits();
    if !t.signed() && w == 64 {
        return (((a as u128) * (b as u128)) >> 64) as u64;
    }
    wrap(t, product(t, a, b) >> w)
}

fn lane2(name: String, t: Ty, out: Ty, b: Gen, f: fn(Ty, u64, u64) -> u64) -> Form {
    Form::lane(
        Family::Integer,
        name,
        vec![any(t), (t, b)],
        vec![bits(out)],
        move |x| vec![f(t, x[0], x[1])],
    )
}

fn lane3(name: String, ins: [Ty; 3], out: Ty, gens: [Gen; 3], f: fn(Ty, &[u64]) -> u64) -> Form {
    let t = ins[0];
    Form::lane(
        Family::Integer,
        name,
        ins.iter().zip(gens).map(|(&t, g)| (t, g)).collect(),
        vec![bits(out)],
        move |x| vec![f(t, x)],
    )
}

fn wide(t: Ty) -> Ty {
    match t {
        U16 => U32,
        S16 => S32,
        U32 => U64,
        _ => S64,
    }
}

/// Arithmetic on the six integer types.
fn arithmetic(out: &mut Vec<Form>) {
    type Op = fn(Ty, u64, u64) -> u64;
    let ops: [(&str, Gen, Op); 8] = [
        ("add", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a) + t.int_value(b))
        }),
        ("sub", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a) - t.int_value(b))
        }),
        ("mul.lo", Gen::Any, |t, a, b| wrap(t, product(t, a, b))),
        ("mul.hi", Gen::Any, high),
        ("min", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a).min(t.int_value(b)))
        }),
        ("max", Gen::Any, |t, a, b| {
            wrap(t, t.int_value(a).max(t.int_value(b)))
        }),
        ("div", Gen::Divisor, |t, a, b| {
            wrap(t, t.int_value(a) / t.int_value(b))
        }),
        ("rem", Gen::Divisor, |t, a, b| {
            wrap(t, t.int_value(a) % t.int_value(b))
        }),
    ];
    for t in INTS {
        for (op, g, f) in ops {
            out.push(lane2(format!("{op}.{}", t.name()), t, t, g, f));
        }
        out.push(lane3(
            format!("mad.lo.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| wrap(t, product(t, x[0], x[1]).wrapping_add(t.int_value(x[2]))),
        ));
        out.push(lane3(
            format!("mad.hi.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| wrap(t, t.int_value(high(t, x[0], x[1])) + t.int_value(x[2])),
        ));
        out.push(lane3(
            format!("sad.{}", t.name()),
            [t, t, t],
            t,
            [Gen::Any; 3],
            |t, x| {
                let d = (t.int_value(x[0]) - t.int_value(x[1])).abs();
                wrap(t, d + t.int_value(x[2]))
            },
        ));
    }
    for t in [U16, S16, U32, S32] {
        let w = wide(t);
        out.push(Form::lane(
            Family::Integer,
            format!("mul.wide.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(w)],
            move |x| vec![wrap(w, product(t, x[0], x[1]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mad.wide.{}", t.name()),
            vec![any(t), any(t), any(w)],
            vec![bits(w)],
            move |x| vec![wrap(w, product(t, x[0], x[1]) + w.int_value(x[2]))],
        ));
    }
    out.push(lane2(
        "add.sat.s32".into(),
        S32,
        S32,
        Gen::Any,
        |t, a, b| clamp(t, t.int_value(a) + t.int_value(b)),
    ));
    out.push(lane2(
        "sub.sat.s32".into(),
        S32,
        S32,
        Gen::Any,
        |t, a, b| clamp(t, t.int_value(a) - t.int_value(b)),
    ));
    out.push(lane3(
        "mad.hi.sat.s32".into(),
        [S32; 3],
        S32,
        [Gen::Any; 3],
        |t, x| clamp(t, (product(t, x[0], x[1]) >> 32) + t.int_value(x[2])),
    ));
    for t in [U32, S32] {
        // 24-bit operands: the low 24 bits, sign-extended for .s32.
        let m24 = move |v: u64| -> i128 {
            let v = (v & 0xff_ffff) as i128;
            if t.signed() && v >= 1 << 23 {
                v - (1 << 24)
            } else {
                v
            }
        };
        out.push(Form::lane(
            Family::Integer,
            format!("mul24.lo.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, m24(x[0]) * m24(x[1]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mul24.hi.{}", t.name()),
            vec![any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, (m24(x[0]) * m24(x[1])) >> 16)],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("mad24.lo.{}", t.name()),
            vec![any(t), any(t), any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, m24(x[0]) * m24(x[1]) + t.int_value(x[2]))],
        ));
    }
    for t in [S16, S32, S64] {
        out.push(Form::lane(
            Family::Integer,
            format!("neg.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, -t.int_value(x[0]))],
        ));
        out.push(Form::lane(
            Family::Integer,
            format!("abs.{}", t.name()),
            vec![any(t)],
            vec![bits(t)],
            move |x| vec![wrap(t, t.int_value(x[0]).abs())],
        ));
    }
}

/// Extended precision: a carry chain of two instructions adds or subtracts
/// two-limb numbers (PTX ISA 9.7.2).
fn carries(out: &mut Vec<Form>) {
    for t in [U32, U64] {
        let w = t.bits();
        for sub in [false, true] {
            let (op, opc) = if sub {
                ("sub", "subc")
            } else {
                ("add", "addc")
            };
            let n = t.name();
            let body = format!(
                "{op}.cc.{n} {{d0}}, {{a0}}, {{a2}};\n    {opc}.{n} {{d1}}, {{a1}}, {{a3}};"
            );
            out.push(
                Form::lane(
                    Family::Integer,
                    format!("{op}.cc.{n}+{opc}.{n}"),
                    vec![any(t); 4],
                    vec![bits(t), bits(t)],
                    move |x| {
                        let m = t.mask() as u128;
                        let a = (x[0] as u128 & m) | ((x[1] as u128 & m) << w);
                        let b = (x[2] as u128 & m) | ((x[3] as u128 & m) << w);
                        let r = if sub {
                            a.wrapping_sub(b)
                        } else {
                            a.wrapping_add(b)
                        };
                        vec![(r & m) as u64, ((r >> w) & m) as u64]
                    },
                )
                .with_body(body),
            );
        }
    }
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
            vec![
                any(t),
                (U32, Gen::Range(0, msb + 9)),
                (U32, Gen::Range(0, msb + 9)),
            ],
            vec![bits(t)],
            move |x| {
                let (pos, len) = (x[1] & 0xff, x[2] & 0xff);
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
            vec![
                any(t),
                any(t),
                (U32, Gen::Range(0, msb + 9)),
                (U32, Gen::Range(0, msb + 9)),
            ],
            vec![bits(t)],
            move |x| {
                let (pos, len) = (x[2] & 0xff, x[3] & 0xff);
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

/// setp and selp on integers.
fn compare(out: &mut Vec<Form>) {
    type Cmp = fn(i128, i128) -> bool;
    let cmps: [(&str, Cmp); 6] = [
        ("eq", |a, b| a == b),
        ("ne", |a, b| a != b),
        ("lt", |a, b| a < b),
        ("le", |a, b| a <= b),
        ("gt", |a, b| a > b),
        ("ge", |a, b| a >= b),
    ];
    let unsigned: [(&str, Cmp); 4] = [
        ("lo", |a, b| a < b),
        ("ls", |a, b| a <= b),
        ("hi", |a, b| a > b),
        ("hs", |a, b| a >= b),
    ];
    for t in INTS {
        let extra: &[(&str, Cmp)] = if t.signed() { &[] } else { &unsigned };
        for &(c, f) in cmps.iter().chain(extra) {
            out.push(Form::lane(
                Family::Integer,
                format!("setp.{c}.{}", t.name()),
                vec![any(t), any(t)],
                vec![bits(Pred)],
                move |x| vec![u64::from(f(t.int_value(x[0]), t.int_value(x[1])))],
            ));
        }
    }
    for t in [B16, B32, B64, F32, F64] {
        out.push(Form::lane(
            Family::Integer,
            format!("selp.{}", t.name()),
            vec![any(t), any(t), (Pred, Gen::Bool)],
            vec![bits(t)],
            move |x| vec![if x[2] & 1 == 1 { x[0] } else { x[1] }],
        ));
    }
}

/// Every integer form.
pub fn forms() -> Vec<Form> {
    let mut out = Vec::new();
    arithmetic(&mut out);
    carries(&mut out);
    logic(&mut out);
    permutes(&mut out);
    compare(&mut out);
    out
}
