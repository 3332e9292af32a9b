//! Any bytes as the cubin ptxas wrote: the section-header reader that
//! gives a kernel's SASS size (`arch::cubin`) returns a size or nothing,
//! never a panic, and never a section that reaches past the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The name is the input's last line, so the fuzzer can match a section.
    let name = data
        .rsplit(|&b| b == b'\n')
        .next()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    if let Some(size) = arch::cubin::code_bytes(data, &name) {
        assert!(
            size <= data.len() as u64,
            "a section of {size} B in {} B",
            data.len()
        );
    }
});
