//! Arbitrary bytes, read as UTF-8 (lossy), through the launch-spec parser
//! (crates/emu/src/spec), with and without a `--set` override; a spec that
//! parses then has its sizes computed and its small buffers materialised.
//! Nothing may panic: every failure is a `file:line:col` error value.
#![no_main]

use std::path::Path;

use emu::spec::{ArgSpec, Init, LaunchSpec};
use libfuzzer_sys::fuzz_target;

/// Buffers larger than this are not materialised (the parser allows 16 GiB).
const MAX_BYTES: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("fuzz/spec.toml");
    check(emu::spec::parse(&text, path, &[]));
    // An override that every spec with defines may meet.
    let set = [("N".to_string(), "3".to_string())];
    check(emu::spec::parse(&text, path, &set));
});

fn check(parsed: Result<LaunchSpec, emu::spec::SpecError>) {
    let spec = match parsed {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = (spec.threads_per_cta(), spec.ctas());
    for arg in &spec.args {
        let ArgSpec::Buffer(b) = arg else { continue };
        // A file initialiser would read the fuzzer's disk: not this target's business.
        if matches!(b.init, Init::File(_)) || b.bytes() > MAX_BYTES {
            continue;
        }
        if let Ok(bytes) = spec.initial_bytes(b.elem, b.len, &b.init) {
            assert_eq!(bytes.len() as u64, b.bytes(), "buffer `{}`", b.name);
        }
    }
}
