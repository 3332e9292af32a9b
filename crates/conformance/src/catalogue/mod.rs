//! The catalogue: every instruction form the kit covers, generated from
//! tables family by family, minus the forms whose emulation is known to
//! differ from the ISA ([`crate::divergence::KNOWN_DIVERGENCES`]).

mod atomic;
mod bits;
mod convert;
mod float;
mod half;
mod int;
mod mma;
mod select;
mod warp;

use crate::form::Form;

/// Every form, known divergences included, in family order.
pub fn all_forms() -> Vec<Form> {
    let mut v = int::forms();
    v.extend(bits::forms());
    v.extend(select::forms());
    v.extend(float::forms());
    v.extend(convert::forms());
    v.extend(half::forms());
    v.extend(warp::forms());
    v.extend(atomic::forms());
    v.extend(mma::forms());
    v.sort_by_key(|f| f.family);
    v
}

/// The forms expected to pass: [`all_forms`] without the known divergences
/// and the unsupported forms.
pub fn forms() -> Vec<Form> {
    all_forms()
        .into_iter()
        .filter(|f| !crate::divergence::left_out(&f.name))
        .collect()
}

/// The forms whose name contains `filter` (every form when it is empty).
pub fn filtered(filter: &str) -> Vec<Form> {
    forms()
        .into_iter()
        .filter(|f| f.name.contains(filter))
        .collect()
}

/// The forms a kit for a GPU holds: every form whose name contains `filter`,
/// the left-out ones included, so that the GPU's results for them are on
/// record when the emulator is fixed.
pub fn kit_forms(filter: &str) -> Vec<Form> {
    all_forms()
        .into_iter()
        .filter(|f| f.name.contains(filter))
        .collect()
}
