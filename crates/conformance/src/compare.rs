//! Running a kernel on the emulator, computing a form's expected results,
//! and comparing results slot by slot under each output's rule.

use std::fmt;
use std::path::PathBuf;

use emu::exec::{LaunchOptions, RunError, run_ptx};
use emu::observer::NoObserver;
use emu::spec::{ArgSpec, BufferSpec, Init, LaunchSpec, ScalarType, SourceKind};

use crate::form::{Cmp, Eval, Form, Out};
use crate::kernel::{ENTRY, Kernel, THREADS};

/// Why a conformance kernel gave no output to compare.
#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("the launch returned no `out` buffer")]
    NoOutBuffer,
}

/// Run `ptx` (file name `file`) on the emulator; the output buffer as
/// `outputs` slots per thread.
pub fn run_emulator(ptx: &str, file: &str, outputs: usize) -> Result<Vec<Vec<u64>>, EmulatorError> {
    let slots = outputs.max(1);
    let spec = LaunchSpec {
        path: PathBuf::from(file),
        source: PathBuf::from(file),
        source_kind: SourceKind::Ptx,
        kernel: ENTRY.to_string(),
        defines: Vec::new(),
        arch: None,
        grid: [1, 1, 1],
        block: [THREADS as u32, 1, 1],
        dynamic_shared: 0,
        args: vec![ArgSpec::Buffer(BufferSpec {
            name: "out".into(),
            elem: ScalarType::U64,
            len: (THREADS * slots) as u64,
            init: Init::Zeros,
            order_dependent: false,
            host_mapped: false,
            texture: None,
        })],
        constants: Vec::new(),
        fuel: None,
    };
    let r = run_ptx(ptx, file, &spec, LaunchOptions::default(), &mut NoObserver)?;
    let bytes = r
        .buffers
        .iter()
        .find(|b| b.name == "out")
        .map(|b| b.bytes.as_slice())
        .ok_or(EmulatorError::NoOutBuffer)?;
    Ok(slots_of(bytes, outputs))
}

/// Bytes of an output buffer as `outputs` u64 slots per thread (missing bytes read as zero).
pub fn slots_of(bytes: &[u8], outputs: usize) -> Vec<Vec<u64>> {
    let slots = outputs.max(1);
    (0..THREADS)
        .map(|t| {
            (0..outputs)
                .map(|j| {
                    let at = (t * slots + j) * 8;
                    let mut w = [0u8; 8];
                    if let Some(b) = bytes.get(at..at + 8) {
                        w.copy_from_slice(b);
                    }
                    u64::from_le_bytes(w)
                })
                .collect()
        })
        .collect()
}

/// The reference results of `form` for every thread's `inputs`.
pub fn expected(form: &Form, inputs: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let mask = |v: Vec<u64>| -> Vec<u64> {
        v.into_iter()
            .zip(&form.outputs)
            .map(|(x, o)| x & o.ty.mask())
            .collect()
    };
    match &form.eval {
        Eval::Lane(f) => inputs.iter().map(|x| mask(f(x))).collect(),
        Eval::Warp(f) => inputs
            .chunks(32)
            .flat_map(|w| f(w).into_iter().map(mask).collect::<Vec<_>>())
            .collect(),
        Eval::Cta(f) => f(inputs).into_iter().map(mask).collect(),
    }
}

/// Does `got` match `want` for output `o`?
pub fn matches(o: Out, want: u64, got: u64) -> bool {
    let (want, got) = (want & o.ty.mask(), got & o.ty.mask());
    match (o.cmp, o.ty.float()) {
        (Cmp::NanClass | Cmp::Accumulated, Some(k)) => (0..o.ty.lanes()).all(|l| {
            let sh = l * k.bits();
            let (w, g) = ((want >> sh) & k.mask(), (got >> sh) & k.mask());
            w == g || (k.is_nan(w) && k.is_nan(g))
        }),
        _ => want == got,
    }
}

/// One thread whose results differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub form: String,
    pub thread: usize,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
    pub got: Vec<u64>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = |v: &[u64]| {
            v.iter()
                .map(|x| format!("{x:#x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        write!(
            f,
            "{}: thread {}: inputs [{}]: expected [{}], got [{}]",
            self.form,
            self.thread,
            hex(&self.inputs),
            hex(&self.expected),
            hex(&self.got)
        )
    }
}

/// Threads where `got` differs from `want` under the rules of `outputs`.
pub fn diff(
    form: &str,
    outputs: &[Out],
    inputs: &[Vec<u64>],
    want: &[Vec<u64>],
    got: &[Vec<u64>],
) -> Vec<Mismatch> {
    diff_with(form, outputs, inputs, want, got, false)
}

/// [`diff`]; `recorded`: `want` came from a GPU (see [`matches_recorded`]).
pub fn diff_with(
    form: &str,
    outputs: &[Out],
    inputs: &[Vec<u64>],
    want: &[Vec<u64>],
    got: &[Vec<u64>],
    recorded: bool,
) -> Vec<Mismatch> {
    let empty = Vec::new();
    (0..THREADS)
        .filter_map(|t| {
            let w = want.get(t).unwrap_or(&empty);
            let g = got.get(t).unwrap_or(&empty);
            let ok = outputs.iter().enumerate().all(|(j, &o)| {
                let (wj, gj) = (
                    w.get(j).copied().unwrap_or(0),
                    g.get(j).copied().unwrap_or(0),
                );
                if recorded {
                    matches_recorded(o, wj, gj)
                } else {
                    matches(o, wj, gj)
                }
            });
            (!ok).then(|| Mismatch {
                form: form.to_string(),
                thread: t,
                inputs: inputs.get(t).cloned().unwrap_or_default(),
                expected: w.clone(),
                got: g.clone(),
            })
        })
        .collect()
}

/// [`matches`] against a GPU's output: as strict, except that sums of
/// products ([`Cmp::Accumulated`]) may differ by a relative 2^-(mantissa-4)
/// (16 units in the last place), the freedom the ISA leaves their order.
pub fn matches_recorded(o: Out, want: u64, got: u64) -> bool {
    if matches(o, want, got) {
        return true;
    }
    let Some(k) = o.ty.float() else {
        return false;
    };
    o.cmp == Cmp::Accumulated
        && (0..o.ty.lanes()).all(|l| {
            let sh = l * k.bits();
            let w = crate::soft::to_f64(k, (want >> sh) & k.mask());
            let g = crate::soft::to_f64(k, (got >> sh) & k.mask());
            let tol = (2f64).powi(-(k.mant() as i32 - 4)) * w.abs().max(1.0);
            w == g || (w - g).abs() <= tol
        })
}

/// The outcome of checking one form against its reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// The kernel did not parse or run.
    Error(String),
    Mismatch(Vec<Mismatch>),
}

/// Generate `form`'s kernel, run it on the emulator and compare with the reference.
pub fn check_form(form: &Form, seed: u64) -> Outcome {
    let k = crate::kernel::generate(form, seed);
    check_kernel(form, &k)
}

/// [`check_form`] for an already generated kernel.
pub fn check_kernel(form: &Form, k: &Kernel) -> Outcome {
    let got = match run_emulator(&k.ptx, &format!("{}.ptx", form.stem()), form.outputs.len()) {
        Ok(g) => g,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    let want = expected(form, &k.inputs);
    let m = diff(&form.name, &form.outputs, &k.inputs, &want, &got);
    if m.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Mismatch(m)
    }
}

/// Check every form of `forms`; one line per form that fails (its first
/// mismatching thread, or the error), none when all pass.
pub fn failures(forms: &[Form], seed: u64) -> Vec<String> {
    forms
        .iter()
        .filter_map(|f| match check_form(f, seed) {
            Outcome::Pass => None,
            Outcome::Error(e) => Some(format!("{}: error: {e}", f.name)),
            Outcome::Mismatch(m) => {
                let first: Vec<String> = m.iter().take(3).map(|x| x.to_string()).collect();
                Some(format!(
                    "{} ({} threads differ)\n    {}",
                    f.name,
                    m.len(),
                    first.join("\n    ")
                ))
            }
        })
        .collect()
}
