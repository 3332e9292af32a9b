//! Forms left out of the passing catalogue, each with the reason: those the
//! emulator computes differently from the ISA (likely emulator bugs, to fix
//! in `emu`), and those it does not support yet. When the emulator changes,
//! the tests say which entries to remove.

/// (form, reason): the emulator's results differ from the ISA's.
pub const KNOWN_DIVERGENCES: &[(&str, &str)] = &[];

/// Forms the emulator rejects today ("unsupported" faults), with the
/// catalogue's reference ready for the day it supports them.
pub const UNSUPPORTED: &[&str] = &[];

/// The reason `form` is a known divergence, if it is one.
pub fn known(form: &str) -> Option<&'static str> {
    KNOWN_DIVERGENCES
        .iter()
        .find(|(f, _)| *f == form)
        .map(|(_, r)| *r)
}

/// Is `form` left out, as a divergence or as unsupported?
pub fn left_out(form: &str) -> bool {
    known(form).is_some() || UNSUPPORTED.contains(&form)
}
