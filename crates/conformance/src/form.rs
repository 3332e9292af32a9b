//! An instruction form: the PTX it executes, its operand types and how they
//! are drawn, how its results compare, and its reference evaluator.

use std::fmt;
use std::sync::Arc;

use crate::operand::Gen;
use crate::ty::Ty;

/// A reference for one thread: input slots to output slots.
pub type LaneFn = Arc<dyn Fn(&[u64]) -> Vec<u64> + Send + Sync>;
/// A reference for one warp: the 32 lanes' inputs to their outputs.
pub type WarpFn = Arc<dyn Fn(&[Vec<u64>]) -> Vec<Vec<u64>> + Send + Sync>;

/// How a form's expected results are computed without a GPU.
#[derive(Clone)]
pub enum Eval {
    Lane(LaneFn),
    /// Called once per warp of 32 lanes.
    Warp(WarpFn),
    /// Called once with every thread of the CTA.
    Cta(WarpFn),
}

/// The families of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Integer,
    Float,
    Convert,
    Half,
    Warp,
    Atomic,
    Mma,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::Integer,
        Family::Float,
        Family::Convert,
        Family::Half,
        Family::Warp,
        Family::Atomic,
        Family::Mma,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Integer => "integer",
            Family::Float => "float",
            Family::Convert => "convert",
            Family::Half => "half",
            Family::Warp => "warp",
            Family::Atomic => "atomic",
            Family::Mma => "mma",
        }
    }
}

/// How one output compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// Bit for bit.
    Bits,
    /// Bit for bit, except that any NaN matches any NaN element by element:
    /// the ISA gives float arithmetic an unspecified NaN payload.
    NanClass,
    /// A sum of products: bit for bit (NaNs as a class) against the
    /// reference, which follows the emulator's documented order; within a
    /// few units in the last place against a GPU, whose accumulation order
    /// and intermediate precision the ISA leaves open.
    Accumulated,
}

impl Cmp {
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Bits => "bits",
            Cmp::NanClass => "nan",
            Cmp::Accumulated => "accumulated",
        }
    }

    pub fn parse(name: &str) -> Option<Cmp> {
        [Cmp::Bits, Cmp::NanClass, Cmp::Accumulated]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

/// One result of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Out {
    pub ty: Ty,
    pub cmp: Cmp,
}

/// Where a form's memory operand lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scratch {
    None,
    /// `{scratch}`: a 64-bit register with the address of the thread's own
    /// 16 bytes of global memory.
    Global,
    /// `{scratch}`: the same in shared memory (a 32-bit shared address).
    Shared,
}

/// One instruction form.
#[derive(Clone)]
pub struct Form {
    /// The form's PTX spelling (`add.sat.s32`), unique in the catalogue;
    /// also the stem of its files.
    pub name: String,
    pub family: Family,
    /// The PTX statements, with `{a0}`.. for inputs, `{d0}`.. for outputs
    /// and `{scratch}` for the memory operand.
    pub body: String,
    pub inputs: Vec<(Ty, Gen)>,
    pub outputs: Vec<Out>,
    /// The lowest `sm_` target the form needs, and the PTX ISA version.
    pub sm: u32,
    pub version: (u32, u32),
    pub scratch: Scratch,
    pub eval: Eval,
}

impl fmt::Debug for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Form({})", self.name)
    }
}

impl Form {
    /// A one-instruction form `name d.., a..;` with per-thread reference `f`.
    pub fn lane(
        family: Family,
        name: impl Into<String>,
        inputs: Vec<(Ty, Gen)>,
        outputs: Vec<Out>,
        f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static,
    ) -> Form {
        let name = name.into();
        let mut ops: Vec<String> = (0..outputs.len()).map(|i| format!("{{d{i}}}")).collect();
        ops.extend((0..inputs.len()).map(|i| format!("{{a{i}}}")));
        let body = format!("{name} {};", ops.join(", "));
        Form {
            name,
            family,
            body,
            inputs,
            outputs,
            sm: 50,
            version: (7, 0),
            scratch: Scratch::None,
            eval: Eval::Lane(Arc::new(f)),
        }
    }

    /// The same form needing at least `sm` and PTX ISA `version`.
    pub fn needs(mut self, sm: u32, version: (u32, u32)) -> Form {
        self.sm = self.sm.max(sm);
        self.version = self.version.max(version);
        self
    }

    /// The same form with another body (operands as for [`Form::lane`]).
    pub fn with_body(mut self, body: impl Into<String>) -> Form {
        self.body = body.into();
        self
    }

    /// A file stem: the name with characters outside `[A-Za-z0-9._-]` replaced.
    pub fn stem(&self) -> String {
        self.name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// Shorthand: an input drawn by [`Gen::Any`].
pub fn any(ty: Ty) -> (Ty, Gen) {
    (ty, Gen::Any)
}

/// Shorthand: an output compared bit for bit.
pub fn bits(ty: Ty) -> Out {
    Out { ty, cmp: Cmp::Bits }
}

/// Shorthand: a float output whose NaNs compare as a class.
pub fn nan(ty: Ty) -> Out {
    Out {
        ty,
        cmp: Cmp::NanClass,
    }
}
