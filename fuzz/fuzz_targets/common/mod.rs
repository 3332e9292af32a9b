//! What the emulation targets share: the input's split into PTX and a
//! launch spec, and the limits that keep a run quick.

use std::fmt::Write as _;
use std::path::Path;

use emu::spec::{ArgSpec, Init, LaunchSpec};

/// Buffers larger than this in all are skipped: their memory alone would
/// take the fuzzer's time.
const MAX_BUFFER_BYTES: u64 = 1 << 22;

/// The PTX and the launch spec of an input: split at its first NUL byte,
/// PTX before and spec TOML after; without a NUL, the whole input is PTX
/// and the spec is built around its first kernel. None where there is no
/// spec to run or the launch is too large for a fuzzer.
pub fn ptx_and_spec(data: &[u8]) -> Option<(String, LaunchSpec)> {
    let (ptx_bytes, spec_bytes) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let ptx = String::from_utf8_lossy(ptx_bytes).into_owned();
    let spec_text = match spec_bytes {
        Some(s) => String::from_utf8_lossy(s).into_owned(),
        None => spec_for_first_kernel(&ptx)?,
    };
    let spec = emu::spec::parse(&spec_text, Path::new("fuzz/spec.toml"), &[]).ok()?;
    small_enough(&spec).then_some((ptx, spec))
}

/// Skip launches whose memory alone would take the fuzzer's time, and file
/// initialisers (they would read the fuzzer's disk).
fn small_enough(spec: &LaunchSpec) -> bool {
    let mut total = 0u64;
    for arg in &spec.args {
        if let ArgSpec::Buffer(b) = arg {
            if matches!(b.init, Init::File(_)) {
                return false;
            }
            total = total.saturating_add(b.bytes());
        }
    }
    let constants_from_files = spec
        .constants
        .iter()
        .any(|c| matches!(c.init, Init::File(_)));
    total <= MAX_BUFFER_BYTES && !constants_from_files
}

/// A spec for the module's first kernel, or None when it has none (or
/// does not parse: the parse error is then the whole story).
fn spec_for_first_kernel(ptx: &str) -> Option<String> {
    let module = ptx::parse("fuzz.ptx", ptx).ok()?;
    let kernel = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .find(|f| f.is_entry())?;
    let mut s = format!(
        "source = \"fuzz.ptx\"\nkernel = {:?}\ngrid = [2]\nblock = [32]\n",
        kernel.name
    );
    for (i, p) in kernel.params.iter().enumerate() {
        // A 64-bit parameter is taken for a pointer; aggregates are not
        // expressible in a spec.
        let arg = match p.size_bytes()? {
            8 => "type = \"u32*\"\nlen = 256",
            4 => "type = \"u32\"\nvalue = 1",
            2 => "type = \"u16\"\nvalue = 1",
            1 => "type = \"u8\"\nvalue = 1",
            _ => return None,
        };
        // Writing to a String cannot fail.
        let _ = write!(s, "[[arg]]\nname = \"p{i}\"\n{arg}\n");
    }
    Some(s)
}
