//! Which objective `tune` and `validate` rank by: `--objective` (with
//! `--higher-is-better`), else a space file's `[objective]` (`tune` only),
//! else the experiment's. One place, so both commands refuse alike.

use std::path::Path;

use tune::RawObjective as ObjectiveTable;

use crate::error::CliError;

/// The objective of `flag` (a usage error where it does not parse), else
/// `space`'s, else the experiment `file`'s `table` (a user error naming
/// the file where it does not parse); none when none is given.
pub fn resolve(
    flag: Option<&str>,
    higher_is_better: bool,
    space: Option<&tune::Objective>,
    table: Option<&ObjectiveTable>,
    file: &Path,
) -> Result<Option<tune::Objective>, CliError> {
    if let Some(text) = flag {
        return tune::Objective::parse(text, None, higher_is_better)
            .map(Some)
            .map_err(|e| CliError::usage_of(&e));
    }
    if let Some(o) = space {
        return Ok(Some(o.clone()));
    }
    table
        .map(|t| {
            tune::Objective::from_raw(t)
                .map_err(|e| CliError::user(format!("{}: objective: {e}", file.display())))
        })
        .transpose()
}
