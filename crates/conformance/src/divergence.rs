//! Forms whose emulation differs from the ISA: left out of the passing
//! catalogue, each with the reason, until the emulator is fixed.

/// (form, reason).
pub const KNOWN_DIVERGENCES: &[(&str, &str)] = &[];

/// The reason `form` is a known divergence, if it is one.
pub fn known(form: &str) -> Option<&'static str> {
    KNOWN_DIVERGENCES
        .iter()
        .find(|(f, _)| *f == form)
        .map(|(_, r)| *r)
}
