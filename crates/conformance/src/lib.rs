//! conformance: a differential conformance kit for the emulator.
//!
//! - [`catalogue`]: the instruction forms, generated from tables per family
//!   (integer, float with every rounding mode, conversions, f16/bf16/fp8,
//!   warp-level, atomics, mma), each with a reference evaluator.
//! - [`kernel`]: a form and a seed to a self-contained PTX kernel of random
//!   and special operands.
//! - [`compare`]: run a kernel on the emulator and compare its results
//!   bit-exactly (NaNs as a class where the ISA leaves the payload open).
//! - [`recorded`]: the kit on disk (kernels, inputs, manifest) and the
//!   comparison of the emulator with outputs a GPU recorded there
//!   (`scripts/gpu/conformance.py`, `data/conformance/<gpu>/`).
//! - [`divergence`]: forms the emulator is known to get wrong.

pub mod catalogue;
pub mod compare;
pub mod divergence;
pub mod form;
pub mod kernel;
pub mod operand;
pub mod recorded;
pub mod soft;
pub mod ty;
