//! The time breakdown of `validate` and `tune`, rendered by
//! `report::timings` in the CLI's table width.

/// The `--timings` table.
pub fn table(t: &study::Timings) -> String {
    report::timings::table(t, crate::table::width())
}
