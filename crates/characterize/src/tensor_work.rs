//! The tensor-core work of one instruction: a warp-wide matrix multiply
//! (`mma.sync`, `wmma.mma.sync`) does m x n x k multiply-adds of a kind
//! its multiplicand and accumulator types decide; loads, stores and
//! `ldmatrix` do none (they are memory instructions). The timing model
//! charges the kinds at the GPU's tensor rates (docs/timing-model.md,
//! "Tensor cores").

use ptx::{Instruction, Opcode, Type, WmmaOp};

/// The kinds of tensor work, each at its own rate on a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorKind {
    /// f16 multiplicands, f16 accumulator.
    F16,
    /// f16 or bf16 multiplicands, f32 accumulator.
    F16F32,
    Tf32,
    /// u8 / s8 multiplicands.
    Int8,
    Fp64,
}

impl TensorKind {
    /// How many kinds there are (the length of a count array).
    pub const COUNT: usize = 5;

    pub fn index(self) -> usize {
        self as usize
    }
}

/// The kind and multiply-adds of `inst`, if it is a warp-wide matrix
/// multiply whose types are one of the kinds (the FP8, sub-byte and
/// single-bit forms are not: the emulator refuses them).
pub fn tensor_work(inst: &Instruction) -> Option<(TensorKind, u32)> {
    let multiply = match inst.opcode {
        Opcode::Mma => true,
        Opcode::Wmma => inst.mods.wmma_op == Some(WmmaOp::Mma),
        _ => false,
    };
    let shape = inst.mods.shape?;
    if !multiply {
        return None;
    }
    // `.dtype.ctype` (wmma with f16 multiplicands) or `.dtype.atype.btype.ctype`.
    let (d, ab) = match inst.types.as_slice() {
        [d, _] => (*d, Type::F16),
        [d, a, _, _] => (*d, *a),
        _ => return None,
    };
    let kind = match (ab, d) {
        (Type::F16, Type::F16) => TensorKind::F16,
        (Type::F16 | Type::Bf16, Type::F32) => TensorKind::F16F32,
        (Type::Tf32, _) => TensorKind::Tf32,
        (Type::S8 | Type::U8, _) => TensorKind::Int8,
        (Type::F64, _) => TensorKind::Fp64,
        _ => return None,
    };
    Some((kind, shape.m * shape.n * shape.k))
}
