//! Argument parsing shared by several subcommands: the one `NAME=VALUE`
//! parser behind every `--set`, so that all commands accept and refuse the
//! same spellings with the same message.

use crate::error::CliError;

/// `--set NAME=VALUE` options as (name, value) pairs, both trimmed. A
/// missing `=` or an empty name is a usage error.
pub(crate) fn parse_sets(sets: &[String]) -> Result<Vec<(String, String)>, CliError> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() => {
                Ok((n.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(CliError::usage(format!(
                "--set needs NAME=VALUE, got `{s}`"
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_trimmed_pairs() {
        let sets = parse_sets(&[" N = 4 ".into(), "M=".into(), "K=a=b".into()]);
        let Ok(sets) = sets else {
            panic!("valid sets refused: {sets:?}");
        };
        assert_eq!(
            sets,
            [
                ("N".to_string(), "4".to_string()),
                ("M".to_string(), String::new()),
                ("K".to_string(), "a=b".to_string()),
            ]
        );
    }

    #[test]
    fn sets_need_a_name_and_an_equals_sign() {
        assert!(parse_sets(&["N".into()]).is_err());
        assert!(parse_sets(&[" =4".into()]).is_err());
        assert!(parse_sets(&[]).is_ok_and(|s| s.is_empty()));
    }
}
