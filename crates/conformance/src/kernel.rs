//! A form and a seed to a self-contained PTX kernel and its input bytes.
//!
//! The kernel `conf(.param .u64 out)` runs one CTA of [`THREADS`] threads.
//! Thread t reads its operands from slots `t*n + i` (8 bytes each, value in
//! the low bytes) of the module's own initialised `.global` array, so the
//! PTX file alone reproduces the run, executes the form once and stores
//! result j to byte `8*(t*m + j)` of `out` (a predicate as a u32 0 or 1).

use std::fmt::Write as _;

use prng::Rng;

use crate::form::{Form, Scratch};
use crate::operand::sample;
use crate::ty::Ty;

/// Threads per kernel: four warps, so that warp-level forms see whole warps.
pub const THREADS: usize = 128;

/// The kernel's entry name.
pub const ENTRY: &str = "conf";

/// A generated kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub ptx: String,
    /// Per thread, the input slots (values masked to their type).
    pub inputs: Vec<Vec<u64>>,
}

impl Kernel {
    /// The input slots as little-endian bytes, thread after thread.
    pub fn input_bytes(&self) -> Vec<u8> {
        self.inputs
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    /// Bytes of the output buffer for `outputs` results per thread.
    pub fn out_bytes(outputs: usize) -> usize {
        THREADS * outputs.max(1) * 8
    }
}

/// The operands of every thread for `form`, drawn from `seed` mixed with the form's name.
pub fn operands(form: &Form, seed: u64) -> Vec<Vec<u64>> {
    let mix = form.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = Rng::new(seed ^ mix);
    (0..THREADS)
        .map(|_| {
            let mut v: Vec<u64> = Vec::with_capacity(form.inputs.len());
            for &(ty, g) in &form.inputs {
                let x = sample(&mut rng, ty, g, v.first().copied());
                v.push(x);
            }
            v
        })
        .collect()
}

/// The kernel of `form` with operands from `seed`.
pub fn generate(form: &Form, seed: u64) -> Kernel {
    let inputs = operands(form, seed);
    let ptx = render(form, &inputs);
    Kernel { ptx, inputs }
}

/// The PTX text of `form` reading `inputs`.
pub fn render(form: &Form, inputs: &[Vec<u64>]) -> String {
    let n = form.inputs.len();
    let m = form.outputs.len();
    let mut s = String::new();
    let (maj, min) = form.version;
    let _ = writeln!(s, "// ptxperf conformance kernel: {}", form.name);
    let _ = writeln!(
        s,
        ".version {maj}.{min}\n.target sm_{}\n.address_size 64\n",
        form.sm
    );
    if n > 0 {
        // 32-bit words: every literal fits a signed 64-bit integer.
        let words: Vec<String> = inputs
            .iter()
            .flatten()
            .flat_map(|v| [*v & 0xffff_ffff, *v >> 32])
            .map(|w| format!("{w:#x}"))
            .collect();
        let _ = writeln!(s, ".global .align 8 .b32 conf_in[{}] = {{", words.len());
        for chunk in words.chunks(8) {
            let _ = writeln!(s, "    {},", chunk.join(", "));
        }
        s.pop();
        s.pop();
        let _ = writeln!(s, "\n}};");
    }
    match form.scratch {
        Scratch::None => {}
        Scratch::Global => {
            let _ = writeln!(s, ".global .align 16 .b8 conf_scratch[{}];", THREADS * 16);
        }
        Scratch::Shared => {
            let _ = writeln!(s, ".shared .align 16 .b8 conf_scratch[{}];", THREADS * 16);
        }
    }
    let _ = writeln!(s, "\n.visible .entry {ENTRY}(.param .u64 out)\n{{");
    s.push_str("    .reg .b32 %rtid, %rw;\n    .reg .b64 %rin, %rout, %roff, %rscratch;\n");
    for (i, (ty, _)) in form.inputs.iter().enumerate() {
        let _ = writeln!(s, "    .reg .{} %a{i};", ty.reg());
    }
    for (j, o) in form.outputs.iter().enumerate() {
        let _ = writeln!(s, "    .reg .{} %d{j};", o.ty.reg());
    }
    s.push_str("    mov.u32 %rtid, %tid.x;\n");
    s.push_str("    ld.param.u64 %rout, [out];\n    cvta.to.global.u64 %rout, %rout;\n");
    let _ = writeln!(s, "    mul.wide.u32 %roff, %rtid, {};", m.max(1) * 8);
    s.push_str("    add.u64 %rout, %rout, %roff;\n");
    if n > 0 {
        let _ = writeln!(
            s,
            "    mov.u64 %rin, conf_in;\n    mul.wide.u32 %roff, %rtid, {};",
            n * 8
        );
        s.push_str("    add.u64 %rin, %rin, %roff;\n");
    }
    if form.scratch != Scratch::None {
        s.push_str("    mov.u64 %rscratch, conf_scratch;\n    mul.wide.u32 %roff, %rtid, 16;\n");
        s.push_str("    add.u64 %rscratch, %rscratch, %roff;\n");
    }
    for (i, (ty, _)) in form.inputs.iter().enumerate() {
        if *ty == Ty::Pred {
            let _ = writeln!(
                s,
                "    ld.global.u32 %rw, [%rin+{}];\n    setp.ne.u32 %a{i}, %rw, 0;",
                i * 8
            );
        } else {
            let _ = writeln!(s, "    ld.global.{} %a{i}, [%rin+{}];", ty.ld(), i * 8);
        }
    }
    let _ = writeln!(s, "    {}", substitute(&form.body, n, m));
    for (j, o) in form.outputs.iter().enumerate() {
        if o.ty == Ty::Pred {
            let _ = writeln!(
                s,
                "    selp.u32 %rw, 1, 0, %d{j};\n    st.global.b32 [%rout+{}], %rw;",
                j * 8
            );
        } else {
            let _ = writeln!(s, "    st.global.{} [%rout+{}], %d{j};", o.ty.st(), j * 8);
        }
    }
    s.push_str("    ret;\n}\n");
    s
}

/// `{aI}`, `{dJ}` and `{scratch}` to register names.
fn substitute(body: &str, n: usize, m: usize) -> String {
    let mut b = body.replace("{scratch}", "%rscratch");
    for i in (0..n).rev() {
        b = b.replace(&format!("{{a{i}}}"), &format!("%a{i}"));
    }
    for j in (0..m).rev() {
        b = b.replace(&format!("{{d{j}}}"), &format!("%d{j}"));
    }
    b
}
