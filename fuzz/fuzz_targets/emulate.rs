//! PTX text plus a launch spec, emulated with a small instruction budget.
//! The input is split at its first NUL byte: PTX before, spec TOML after.
//! Without a NUL, the whole input is PTX and the spec is built around its
//! first kernel (one CTA of 32 threads, each pointer a 256-word buffer,
//! each scalar 1). Every run ends in a result or an error value (parse
//! diagnostics, a launch error, a fault with thread and PTX line), never a
//! panic, and quickly: 2 CTAs at most, a per-warp budget of 20 000
//! instructions, small buffers.
#![no_main]

use emu::exec::{CtaSelection, LaunchOptions, run_ptx};
use emu::observer::NoObserver;
use libfuzzer_sys::fuzz_target;

mod common;

const FUEL: u64 = 20_000;

fuzz_target!(|data: &[u8]| {
    let Some((ptx, spec)) = common::ptx_and_spec(data) else {
        return;
    };
    let opts = LaunchOptions {
        parallel: false,
        fuel: Some(FUEL),
        ctas: CtaSelection::Evenly(2),
        ..LaunchOptions::default()
    };
    if let Err(e) = run_ptx(&ptx, "fuzz.ptx", &spec, opts, &mut NoObserver) {
        let _ = e.to_string();
    }
});
