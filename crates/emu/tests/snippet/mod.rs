//! Runs a PTX snippet on constant inputs in one thread, once per case, and
//! reads back chosen registers: the conformance tests' harness.
//!
//! Registers available to a snippet: `%r0..%r15` (.b32), `%rd0..%rd14`
//! (.b64; %rd15 is the harness's), `%h0..%h15` (.b16), `%f0..%f7` (.f32), `%p0..%p7` (.pred).
//! Inputs are set with `mov` of an immediate before each case; outputs are
//! stored into 8-byte slots, zero-extended (a predicate reads 1 or 0).

#![allow(dead_code)]

use std::fmt::Write;
use std::path::Path;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

/// The `mov` type of a register by its name, and the store type.
fn reg_type(reg: &str) -> &'static str {
    if reg.starts_with("%rd") {
        "b64"
    } else if reg.starts_with("%r") || reg.starts_with("%f") {
        "b32"
    } else if reg.starts_with("%h") {
        "b16"
    } else if reg.starts_with("%p") {
        "pred"
    } else {
        panic!("snippet register {reg} is not one of %r, %rd, %h, %f, %p")
    }
}

/// Each case's outputs after running `body` with `ins` set to the case's values.
pub fn eval(ins: &[&str], body: &str, outs: &[&str], cases: &[Vec<u64>]) -> Vec<Vec<u64>> {
    eval_in(1, ins, body, outs, cases)
}

/// Runs `body` once in each of the 32 threads of a warp (for warp-wide
/// instructions such as `mma`); each thread's outputs, thread 0 first.
pub fn eval_warp(body: &str, outs: &[&str]) -> Vec<Vec<u64>> {
    eval_in(32, &[], body, outs, &[vec![]])
}

fn eval_in(
    threads: usize,
    ins: &[&str],
    body: &str,
    outs: &[&str],
    cases: &[Vec<u64>],
) -> Vec<Vec<u64>> {
    // Each thread writes its own run of slots.
    let stride = cases.len() * outs.len() * 8;
    let mut code = format!(
        "mov.u32 %sv, %tid.x;\nmul.wide.u32 %rd15, %sv, {stride};\nadd.s64 %out, %out, %rd15;\n"
    );
    for (k, case) in cases.iter().enumerate() {
        assert_eq!(case.len(), ins.len(), "case {k}: one value per input");
        for (reg, v) in ins.iter().zip(case) {
            let _ = writeln!(code, "mov.{} {reg}, {v};", reg_type(reg));
        }
        let _ = writeln!(code, "{body}");
        for (j, reg) in outs.iter().enumerate() {
            let off = (k * outs.len() + j) * 8;
            match reg_type(reg) {
                "pred" => {
                    let _ = writeln!(
                        code,
                        "selp.u32 %sv, 1, 0, {reg};\nst.global.b32 [%out+{off}], %sv;"
                    );
                }
                t => {
                    let _ = writeln!(code, "st.global.{t} [%out+{off}], {reg};");
                }
            }
        }
    }
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .b16 %h<16>;\n.reg .f32 %f<8>;\n.reg .pred %p<8>;\n\
         .reg .b32 %sv;\n.reg .b64 %out;\nld.param.u64 %out, [out];\n{code}ret;\n}}\n"
    );
    let n = (threads * cases.len() * outs.len()).max(1);
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{threads}]\n[[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = {n}\n"
    );
    let spec = emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).expect("spec");
    let opts = LaunchOptions::default();
    let r = run_ptx(&ptx, "k.ptx", &spec, opts, &mut NoObserver);
    let r = r.unwrap_or_else(|e| panic!("{body}: {e}"));
    let words: Vec<u64> = r.buffers[0]
        .bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    words
        .chunks(outs.len().max(1))
        .take(threads * cases.len())
        .map(|c| c.to_vec())
        .collect()
}

/// Checks `body` on each `(inputs, expected outputs)`.
pub fn check(ins: &[&str], body: &str, outs: &[&str], cases: &[(&[u64], &[u64])]) {
    let inputs: Vec<Vec<u64>> = cases.iter().map(|(i, _)| i.to_vec()).collect();
    let got = eval(ins, body, outs, &inputs);
    for ((i, want), got) in cases.iter().zip(&got) {
        let want = want.to_vec();
        assert_eq!(
            *got,
            want,
            "{body}\n  inputs {}: got {}, want {}",
            hex(i),
            hex(got),
            hex(&want)
        );
    }
}

fn hex(v: &[u64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:#x}")).collect();
    format!("[{}]", parts.join(", "))
}
