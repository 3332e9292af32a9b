//! Registers per thread, the occupancy calculator's main input: from ptxas
//! when it is installed, else the PTX-only estimate of
//! [`ptx::analysis::registers`] (register pressure from liveness; its error
//! against ptxas is measured there). Also how executed `cvt` split between
//! the conversion unit and the integer ALU.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock, PoisonError};

use ptx::analysis::{ConvertKind, convert_kind};
use ptx::ir::{Function, Opcode};

/// Registers of `entry` (mangled name) as ptxas reports them for `sm`, or
/// `None` when ptxas is not installed, fails, or does not list the entry.
pub fn ptxas_registers(ptx: &str, sm: &str, entry: &str) -> Option<(u32, u64)> {
    ptxas_kernel(ptx, sm, entry).map(|k| (k.registers, k.shared_bytes))
}

/// Everything ptxas reports for `entry` (registers, static shared bytes,
/// spill bytes), or `None` as for [`ptxas_registers`].
pub fn ptxas_kernel(ptx: &str, sm: &str, entry: &str) -> Option<arch::ptxas::KernelResources> {
    let kernels = ptxas_report(ptx, sm)?;
    kernels.into_iter().find(|k| k.name == entry)
}

/// Entries [`ptxas_report`] keeps before it starts afresh (a report is a
/// few hundred bytes; this bounds a run over a whole space).
const PTXAS_MEMO_ENTRIES: usize = 1 << 16;

/// ptxas's report of `ptx` built for `sm`, `None` where it fails. Each PTX
/// text and architecture is built once per process: a configuration
/// predicted on several GPUs of one architecture, and configurations that
/// compile to the same PTX (a parameter the source never reads), take the
/// first build's report. Keyed by two 64-bit hashes of both.
fn ptxas_report(ptx: &str, sm: &str) -> Option<Vec<arch::ptxas::KernelResources>> {
    type Memo = HashMap<(u64, u64), Option<Vec<arch::ptxas::KernelResources>>>;
    static MEMO: OnceLock<Mutex<Memo>> = OnceLock::new();
    let hash = |salt: &str| {
        let mut h = std::hash::DefaultHasher::new();
        (salt, sm, ptx).hash(&mut h);
        h.finish()
    };
    let key = (hash("ptxas"), hash("report"));
    let memo = MEMO.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(report) = memo
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return report.clone();
    }
    let report = arch::ptxas::ptxas_resources(None, ptx, sm).ok();
    let mut memo = memo.lock().unwrap_or_else(PoisonError::into_inner);
    if memo.len() >= PTXAS_MEMO_ENTRIES {
        memo.clear();
    }
    memo.insert(key, report.clone());
    report
}

/// How the executed `cvt` warp instructions of an entry split between the
/// conversion unit and the integer ALU, as fractions of all executed `cvt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvertSplit {
    /// Destination and source both integer types (`cvt.u64.u32`,
    /// `cvt.s32.s8`, ...): ptxas emits those as integer moves/extensions on
    /// the integer ALU on every architecture.
    pub integer: f64,
    /// `cvt.rn.f32.{s32,u32}` and `cvt.rz.f32.{s32,u32}`: a 32-bit integer to
    /// FP32 with round-to-nearest or toward zero. From CC 8.6 on, ptxas emits
    /// them as `I2FP.F32.S32`/`I2FP.F32.U32`, not the conversion unit's `I2F`
    /// (seen in the SASS of ptxas 12.9 and 13.0 for sm_86, sm_89 and sm_90;
    /// sm_75 and sm_80 keep `I2F`, and so do `.rm`/`.rp` and 8/16-bit
    /// sources with ptxas 12.9).
    pub int32_to_f32: f64,
    /// `cvt.{rn,rz}.f32.{u8,u16}`: an 8/16-bit unsigned integer to FP32.
    /// ptxas 13.0 emits them as `I2FP.F32.U32` (zero-extended) on sm_86,
    /// sm_89 and sm_90, where ptxas 12.9 keeps `I2F.U8`/`I2F.U16`; both keep
    /// `I2F` on sm_80, and both keep signed sources and `.rm`/`.rp` on `I2F`.
    pub narrow_uint_to_f32: f64,
    /// A conversion between a float and a 64-bit type (`cvt.f64.f32`,
    /// `cvt.rn.f32.f64`, `cvt.rzi.s32.f64`, `cvt.rn.f32.s64`, ...): the CUDA
    /// C++ Programming Guide's "type conversions from and to 64-bit types",
    /// which run at the FP64 unit's rate where that rate is below the
    /// conversion unit's (docs/timing-model.md, "Conversions from and to
    /// 64-bit types"). Integer-to-integer widenings are [`Self::integer`].
    pub float64: f64,
}

/// The [`ConvertSplit`] of the executed `cvt` of `func`; `executions(pc)`
/// gives the warp executions of the instruction at `pc`. `None` when no
/// `cvt` was executed.
pub fn convert_split(func: &Function, executions: impl Fn(u32) -> f64) -> Option<ConvertSplit> {
    let (mut int, mut i2fp, mut narrow, mut wide, mut all) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (pc, inst) in func.instructions.as_slice().iter().enumerate() {
        let Some(kind) = convert_kind(inst) else {
            continue;
        };
        let n = u32::try_from(pc).map_or(0.0, &executions);
        all += n;
        match kind {
            ConvertKind::Integer => int += n,
            ConvertKind::Int32ToF32 => i2fp += n,
            ConvertKind::NarrowUintToF32 => narrow += n,
            ConvertKind::Float64 => wide += n,
            ConvertKind::Other => {}
        }
    }
    (all > 0.0).then(|| ConvertSplit {
        integer: int / all,
        int32_to_f32: i2fp / all,
        narrow_uint_to_f32: narrow / all,
        float64: wide / all,
    })
}

/// The IEEE FP64 operations ptxas builds as a sequence, as fractions of
/// the executed FP64 instructions (class `fp64`) of an entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fp64Sequences {
    /// `div.rn.f64` (any rounding) and `sqrt.rn.f64`: 8 FP64 operations on
    /// their fast path in ptxas 12.9's SASS for sm_86 (a division: 7 `DFMA`
    /// and a `DMUL` after `MUFU.RCP64H`; a square root: 5 `DFMA` and 3
    /// `DMUL` after `MUFU.RSQ64H`).
    pub div_sqrt: f64,
    /// `rcp.rn.f64` (any rounding): 5 `DFMA` after `MUFU.RCP64H`.
    pub rcp: f64,
}

/// The [`Fp64Sequences`] of the executed FP64 instructions of `func`
/// (`executions(pc)` as for [`convert_split`]); `None` when no FP64
/// instruction was executed.
pub fn fp64_sequences(func: &Function, executions: impl Fn(u32) -> f64) -> Option<Fp64Sequences> {
    let (mut div_sqrt, mut rcp, mut all) = (0.0, 0.0, 0.0);
    for (pc, inst) in func.instructions.as_slice().iter().enumerate() {
        if ptx::analysis::class_of(inst) != ptx::analysis::InstClass::Fp64 {
            continue;
        }
        let n = u32::try_from(pc).map_or(0.0, &executions);
        all += n;
        match inst.opcode {
            Opcode::Div | Opcode::Sqrt => div_sqrt += n,
            Opcode::Rcp => rcp += n,
            _ => {}
        }
    }
    (all > 0.0).then(|| Fp64Sequences {
        div_sqrt: div_sqrt / all,
        rcp: rcp / all,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f` of the entry `k` whose body is `body` (declarations included).
    fn with_entry<R>(body: &str, f: impl FnOnce(&Function) -> R) -> R {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
        );
        let module = match ptx::parse("t.ptx", &text) {
            Ok(m) => m,
            Err(d) => panic!("{}", d.render("t.ptx", &text)),
        };
        let Some((_, func)) = module.entries().next() else {
            panic!("no entry parsed")
        };
        f(func)
    }

    /// The [`ConvertSplit`] of an entry whose body is `body`, every
    /// instruction executed `n` times where `n` is its index + 1.
    fn split_of(body: &str) -> Option<ConvertSplit> {
        let decls = ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n.reg .b16 %rs<2>;\n.reg .f64 %fd<2>;";
        with_entry(&format!("{decls}\n{body}"), |func| {
            convert_split(func, |pc| f64::from(pc + 1))
        })
    }

    /// `body`'s executed `cvt` ([`split_of`]) against the expected integer
    /// and int32-to-f32 fractions.
    fn check_cvt(body: &str, expected: Option<(f64, f64)>) {
        let got = split_of(body).map(|s| (s.integer, s.int32_to_f32));
        assert_eq!(got, expected, "for {body:?}");
    }

    /// `body`'s executed `cvt` ([`split_of`]) against the expected
    /// 8/16-bit unsigned-to-f32 fraction.
    fn check_narrow(body: &str, expected: Option<f64>) {
        let got = split_of(body).map(|s| s.narrow_uint_to_f32);
        assert_eq!(got, expected, "for {body:?}");
    }

    #[test]
    fn narrow_unsigned_to_f32_with_rn_or_rz_is_counted_apart() {
        // The forms ptxas 13.0 emits as I2FP.F32.U32 on sm_86+ ...
        check_narrow("cvt.rn.f32.u16 %f1, %rs1;", Some(1.0));
        check_narrow("cvt.rz.f32.u16 %f1, %rs1;", Some(1.0));
        check_narrow("cvt.rn.f32.u8 %f1, %rs1;", Some(1.0));
        // ... and those both compilers keep on I2F: signed sources, other
        // roundings, FP64 destinations, saturation; 32-bit sources are
        // the other fraction.
        check_narrow("cvt.rn.f32.s16 %f1, %rs1;", Some(0.0));
        check_narrow("cvt.rm.f32.u16 %f1, %rs1;", Some(0.0));
        check_narrow("cvt.rn.f64.u16 %fd1, %rs1;", Some(0.0));
        check_narrow("cvt.rn.sat.f32.u16 %f1, %rs1;", Some(0.0));
        check_narrow("cvt.rn.f32.u32 %f1, %r1;", Some(0.0));
        check_narrow("add.s32 %r1, %r2, %r3;", None);
        // Weighted: u16 at pc 0 (1), s32 at pc 1 (2), u8 at pc 2 (3).
        check_narrow(
            "cvt.rn.f32.u16 %f1, %rs1;\ncvt.rn.f32.s32 %f2, %r1;\ncvt.rz.f32.u8 %f3, %rs1;",
            Some(4.0 / 6.0),
        );
    }

    #[test]
    fn integer_widenings_are_split_from_float_conversions() {
        check_cvt("add.s32 %r1, %r2, %r3;", None);
        check_cvt("cvt.u64.u32 %rd1, %r1;", Some((1.0, 0.0)));
        check_cvt("cvt.rzi.s32.f32 %r1, %f1;", Some((0.0, 0.0)));
        // Weighted by executions: the widening at pc 0 runs once, the
        // conversion at pc 1 twice, the sign extension at pc 2 three times.
        check_cvt(
            "cvt.s64.s32 %rd1, %r1;\ncvt.rzi.s32.f32 %r2, %f1;\ncvt.u64.u32 %rd2, %r2;",
            Some((4.0 / 6.0, 0.0)),
        );
    }

    /// `body`'s executed `cvt` ([`split_of`]) against the expected fraction
    /// from or to a 64-bit type with a float on one side.
    fn check_float64(body: &str, expected: Option<f64>) {
        let got = split_of(body).map(|s| s.float64);
        assert_eq!(got, expected, "for {body:?}");
    }

    /// `body`'s executed FP64 instructions ([`split_of`]'s weights) against
    /// the expected (division and square root, reciprocal) fractions.
    fn check_fp64_sequences(body: &str, expected: Option<(f64, f64)>) {
        let decls = ".reg .f64 %fd<4>;\n.reg .f32 %f<2>;";
        let got = with_entry(&format!("{decls}\n{body}"), |func| {
            fp64_sequences(func, |pc| f64::from(pc + 1))
        });
        assert_eq!(got.map(|s| (s.div_sqrt, s.rcp)), expected, "for {body:?}");
    }

    #[test]
    fn fp64_divisions_square_roots_and_reciprocals_are_counted_apart() {
        check_fp64_sequences("div.rn.f64 %fd1, %fd2, %fd3;", Some((1.0, 0.0)));
        check_fp64_sequences("sqrt.rn.f64 %fd1, %fd2;", Some((1.0, 0.0)));
        check_fp64_sequences("rcp.rn.f64 %fd1, %fd2;", Some((0.0, 1.0)));
        check_fp64_sequences("fma.rn.f64 %fd1, %fd2, %fd3, %fd1;", Some((0.0, 0.0)));
        // The approximate reciprocal is the SFU's, not a sequence; FP32 is
        // not counted.
        check_fp64_sequences("rcp.approx.ftz.f64 %fd1, %fd2;", None);
        check_fp64_sequences("div.rn.f32 %f1, %f1, %f1;", None);
        // Weighted: add at pc 0 (1), div at pc 1 (2), rcp at pc 2 (3).
        check_fp64_sequences(
            "add.f64 %fd1, %fd2, %fd3;\ndiv.rn.f64 %fd1, %fd1, %fd3;\nrcp.rn.f64 %fd2, %fd1;",
            Some((2.0 / 6.0, 3.0 / 6.0)),
        );
    }

    #[test]
    fn conversions_from_and_to_64_bit_types_are_counted_apart() {
        check_float64("cvt.f64.f32 %fd1, %f1;", Some(1.0));
        check_float64("cvt.rn.f32.f64 %f1, %fd1;", Some(1.0));
        check_float64("cvt.rzi.s32.f64 %r1, %fd1;", Some(1.0));
        check_float64("cvt.rn.f64.s32 %fd1, %r1;", Some(1.0));
        check_float64("cvt.rn.f32.s64 %f1, %rd1;", Some(1.0));
        check_float64("cvt.rzi.u64.f32 %rd1, %f1;", Some(1.0));
        // Not: 32-bit conversions, and 64-bit integer widenings (the
        // integer fraction).
        check_float64("cvt.rzi.s32.f32 %r1, %f1;", Some(0.0));
        check_float64("cvt.rn.f32.s32 %f1, %r1;", Some(0.0));
        check_float64("cvt.s64.s32 %rd1, %r1;", Some(0.0));
        check_float64("add.f64 %fd1, %fd1, %fd1;", None);
        // Weighted: f32 -> f64 at pc 0 (1), widening at pc 1 (2), f64 ->
        // f32 at pc 2 (3).
        check_float64(
            "cvt.f64.f32 %fd1, %f1;\ncvt.u64.u32 %rd1, %r1;\ncvt.rn.f32.f64 %f2, %fd1;",
            Some(4.0 / 6.0),
        );
    }

    #[test]
    fn int32_to_f32_with_rn_or_rz_is_counted_apart() {
        // The forms ptxas 12.9 emits as I2FP on sm_86+ ...
        check_cvt("cvt.rn.f32.s32 %f1, %r1;", Some((0.0, 1.0)));
        check_cvt("cvt.rz.f32.u32 %f1, %r1;", Some((0.0, 1.0)));
        // ... and those it keeps on the conversion unit's I2F: other
        // roundings, 16-bit sources, FP64 destinations, saturation.
        check_cvt("cvt.rm.f32.u32 %f1, %r1;", Some((0.0, 0.0)));
        check_cvt("cvt.rp.f32.s32 %f1, %r1;", Some((0.0, 0.0)));
        check_cvt("cvt.rn.f32.u16 %f1, %rs1;", Some((0.0, 0.0)));
        check_cvt("cvt.rn.f64.s32 %fd1, %r1;", Some((0.0, 0.0)));
        check_cvt("cvt.rn.sat.f32.s32 %f1, %r1;", Some((0.0, 0.0)));
        // Weighted: I2FP at pc 0 (1), I2F.U16 at pc 1 (2), widening at pc 2 (3).
        check_cvt(
            "cvt.rn.f32.s32 %f1, %r1;\ncvt.rn.f32.u16 %f2, %rs1;\ncvt.u64.u32 %rd1, %r1;",
            Some((3.0 / 6.0, 1.0 / 6.0)),
        );
    }
}
