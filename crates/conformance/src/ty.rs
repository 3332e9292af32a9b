//! The PTX types operands of a form carry, with how a kernel loads, holds
//! and stores them. Every value travels as the low bits of a u64 slot.

/// An operand type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A predicate; in buffers a u32 that is 0 or 1.
    Pred,
    U8,
    S8,
    B16,
    U16,
    S16,
    B32,
    U32,
    S32,
    B64,
    U64,
    S64,
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    F32,
    F64,
    /// Two fp8 values in 16 bits.
    E4m3x2,
    E5m2x2,
}

impl Ty {
    pub const ALL: [Ty; 20] = [
        Ty::Pred,
        Ty::U8,
        Ty::S8,
        Ty::B16,
        Ty::U16,
        Ty::S16,
        Ty::B32,
        Ty::U32,
        Ty::S32,
        Ty::B64,
        Ty::U64,
        Ty::S64,
        Ty::F16,
        Ty::Bf16,
        Ty::F16x2,
        Ty::Bf16x2,
        Ty::F32,
        Ty::F64,
        Ty::E4m3x2,
        Ty::E5m2x2,
    ];

    /// The type spelled `name` ([`Ty::name`]).
    pub fn parse(name: &str) -> Option<Ty> {
        Ty::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The PTX spelling, as in `add.s32`.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            Ty::U8 => "u8",
            Ty::S8 => "s8",
            Ty::B16 => "b16",
            Ty::U16 => "u16",
            Ty::S16 => "s16",
            Ty::B32 => "b32",
            Ty::U32 => "u32",
            Ty::S32 => "s32",
            Ty::B64 => "b64",
            Ty::U64 => "u64",
            Ty::S64 => "s64",
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::F16x2 => "f16x2",
            Ty::Bf16x2 => "bf16x2",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::E4m3x2 => "e4m3x2",
            Ty::E5m2x2 => "e5m2x2",
        }
    }

    /// Width of the value in bits (a predicate's buffer word: 32).
    pub fn bits(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => 16,
            Ty::Pred | Ty::B32 | Ty::U32 | Ty::S32 | Ty::F16x2 | Ty::Bf16x2 | Ty::F32 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }

    /// All ones of the value's width.
    pub fn mask(self) -> u64 {
        match self {
            Ty::Pred => 1,
            t if t.bits() == 64 => u64::MAX,
            t => (1u64 << t.bits()) - 1,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            Ty::U8 | Ty::S8 | Ty::U16 | Ty::S16 | Ty::U32 | Ty::S32 | Ty::U64 | Ty::S64
        )
    }

    /// The register declaration type. Bit-size registers go with every
    /// instruction type of their size (PTX ISA 5.2.2, "type checking rules"),
    /// and 8-bit values live in 16-bit registers as ld, st and cvt allow.
    pub fn reg(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            t => match t.bits() {
                8 | 16 => "b16",
                32 => "b32",
                _ => "b64",
            },
        }
    }

    /// The type a kernel loads the operand with (a predicate loads a u32).
    pub fn ld(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::S8 => "s8",
            Ty::Pred => "u32",
            t => match t.bits() {
                16 => "b16",
                32 => "b32",
                _ => "b64",
            },
        }
    }

    /// The type a kernel stores a result with (a predicate stores a u32).
    pub fn st(self) -> &'static str {
        match self {
            Ty::U8 | Ty::S8 => "b8",
            Ty::Pred => "b32",
            t => match t.bits() {
                16 => "b16",
                32 => "b32",
                _ => "b64",
            },
        }
    }

    /// The value `bits` sign-extended to i64 when the type is signed, zero-extended otherwise.
    pub fn int_value(self, bits: u64) -> i128 {
        let w = self.bits();
        let v = bits & self.mask();
        if self.signed() && w < 64 {
            ((v << (64 - w)) as i64 >> (64 - w)) as i128
        } else if self.signed() {
            v as i64 as i128
        } else {
            v as i128
        }
    }

    /// The float element layout of the type, if it holds floats.
    pub fn float(self) -> Option<FloatKind> {
        match self {
            Ty::F16 | Ty::F16x2 => Some(FloatKind::F16),
            Ty::Bf16 | Ty::Bf16x2 => Some(FloatKind::Bf16),
            Ty::F32 => Some(FloatKind::F32),
            Ty::F64 => Some(FloatKind::F64),
            Ty::E4m3x2 => Some(FloatKind::E4m3),
            Ty::E5m2x2 => Some(FloatKind::E5m2),
            _ => None,
        }
    }

    /// How many float elements one value packs.
    pub fn lanes(self) -> u32 {
        match self {
            Ty::F16x2 | Ty::Bf16x2 | Ty::E4m3x2 | Ty::E5m2x2 => 2,
            _ => 1,
        }
    }
}

/// An IEEE-style float layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    E4m3,
    E5m2,
    F16,
    Bf16,
    F32,
    F64,
}

impl FloatKind {
    pub fn bits(self) -> u32 {
        match self {
            FloatKind::E4m3 | FloatKind::E5m2 => 8,
            FloatKind::F16 | FloatKind::Bf16 => 16,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
        }
    }

    /// Stored mantissa bits.
    pub fn mant(self) -> u32 {
        match self {
            FloatKind::E4m3 => 3,
            FloatKind::E5m2 => 2,
            FloatKind::F16 => 10,
            FloatKind::Bf16 => 7,
            FloatKind::F32 => 23,
            FloatKind::F64 => 52,
        }
    }

    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    fn exp_mask(self) -> u64 {
        self.mask() >> 1 & !((1u64 << self.mant()) - 1)
    }

    /// Is `bits` a NaN of this layout? (e4m3 has no infinities: all-ones
    /// exponent and mantissa is its only NaN.)
    pub fn is_nan(self, bits: u64) -> bool {
        let b = bits & self.mask();
        let mag = b & (self.mask() >> 1);
        match self {
            FloatKind::E4m3 => mag == 0x7f,
            _ => mag & self.exp_mask() == self.exp_mask() && mag & ((1u64 << self.mant()) - 1) != 0,
        }
    }

    pub fn is_subnormal(self, bits: u64) -> bool {
        let mag = bits & (self.mask() >> 1);
        mag != 0 && mag & self.exp_mask() == 0
    }

    /// `.ftz`: a subnormal becomes the zero of its sign.
    pub fn ftz(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & (1u64 << (self.bits() - 1))
        } else {
            bits & self.mask()
        }
    }
}
