//! Arbitrary bytes, read as UTF-8 (lossy), through the parser, the diagnostic
//! renderer and, for valid modules, the printer and a reparse, which must
//! succeed and give the same IR.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match ptx::parse("fuzz.ptx", &text) {
        Ok(module) => {
            let printed = module.to_string();
            match ptx::parse("printed.ptx", &printed) {
                Ok(again) => assert!(again == module, "reparsed IR differs"),
                Err(d) => panic!(
                    "printed module does not parse:\n{}",
                    d.render("printed.ptx", &printed)
                ),
            }
        }
        Err(diags) => {
            let _ = diags.render("fuzz.ptx", &text);
        }
    }
});
