//! The text of a saved profile (`--save-profiles DIR`): the profile's TOML
//! between a first line that says which ptxperf and which profile rules
//! ([`pipeline::PROFILE_RULES`]) made it and a last line that closes it.
//! Both are TOML comments, so any TOML reader (and `--profiles`, which
//! rescores archives saved before the stamp existed) reads the profile as
//! before. `--resume` is stricter ([`resumable`]): it reads a profile again
//! only when it was saved whole under the rules of this build, so that a
//! file cut short between two lines (which would parse, its later fields
//! taking their defaults) or counted by another emulator is emulated again.

/// The last line of a saved profile.
const END: &str = "# end of profile";

/// What opens a saved profile, before the rules' version.
const OPENING: &str = "# Saved by ptxperf ";

/// The saved text of a profile whose TOML is `toml`.
pub fn wrap(toml: &str) -> String {
    let mut text = format!(
        "{OPENING}{} (profile rules {}); `validate --resume` reads it again only under the same rules.\n",
        env!("CARGO_PKG_VERSION"),
        pipeline::PROFILE_RULES
    );
    text.push_str(toml);
    if !toml.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(END);
    text.push('\n');
    text
}

/// Why `--resume` does not read a saved profile again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotResumable {
    /// No closing line: cut short, or saved before profiles had one.
    Unfinished,
    /// Whole, but with no stamp (saved before profiles had one).
    Unstamped,
    /// Saved under these other profile rules.
    OtherRules(String),
}

impl std::fmt::Display for NotResumable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotResumable::Unfinished => write!(f, "it does not end with `{END}` (cut short?)"),
            NotResumable::Unstamped => write!(f, "it does not say which profile rules made it"),
            NotResumable::OtherRules(r) => write!(
                f,
                "saved under profile rules {r}, this build counts under {}",
                pipeline::PROFILE_RULES
            ),
        }
    }
}

/// The profile rules a saved profile names in its first line, if any.
pub fn rules_of(text: &str) -> Option<&str> {
    let first = text.lines().next()?;
    let rest = first.strip_prefix(OPENING)?;
    let (_, after) = rest.split_once("(profile rules ")?;
    let (rules, _) = after.split_once(')')?;
    Some(rules)
}

/// Whether `--resume` may read the saved profile `text` instead of
/// emulating its configuration again.
pub fn resumable(text: &str) -> Result<(), NotResumable> {
    let closed = text
        .strip_suffix('\n')
        .is_some_and(|t| t.lines().next_back() == Some(END));
    if !closed {
        return Err(NotResumable::Unfinished);
    }
    match rules_of(text) {
        None => Err(NotResumable::Unstamped),
        Some(r) if r == pipeline::PROFILE_RULES => Ok(()),
        Some(r) => Err(NotResumable::OtherRules(r.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<(), NotResumable>) {
        assert_eq!(resumable(text), expect, "{text:?}");
    }

    #[test]
    fn only_whole_profiles_of_these_rules_are_resumable() {
        let body = "kernel = \"k\"\n\n[launch]\ngrid = [1]\n";
        let whole = wrap(body);
        check(&whole, Ok(()));
        assert_eq!(rules_of(&whole), Some(pipeline::PROFILE_RULES));
        // A body without its last newline is saved with one.
        check(&wrap(body.trim_end()), Ok(()));
        // Cut anywhere before the closing line's newline.
        for cut in [whole.len() - 1, whole.len() - 5, whole.len() / 2, 1] {
            check(&whole[..cut], Err(NotResumable::Unfinished));
        }
        // Saved before the stamp existed: no closing line, or one added by hand.
        check(body, Err(NotResumable::Unfinished));
        check(&format!("{body}{END}\n"), Err(NotResumable::Unstamped));
        // Another build's rules.
        let old = whole.replace(
            &format!("(profile rules {})", pipeline::PROFILE_RULES),
            "(profile rules 2000-01-01)",
        );
        check(&old, Err(NotResumable::OtherRules("2000-01-01".into())));
        // The closing line must be the last one, not any line.
        check(&format!("{whole}x = 1\n"), Err(NotResumable::Unfinished));
        // The stamp must be the first line.
        check(&format!("\n{whole}"), Err(NotResumable::Unstamped));
    }

    #[test]
    fn the_stamp_and_end_are_comments_the_profile_reader_skips() {
        let profile = profile::KernelProfile {
            kernel: "k".into(),
            ..Default::default()
        };
        let toml = toml::to_string(&profile).expect("serialise");
        let read = profile::KernelProfile::from_toml(&wrap(&toml)).expect("parse");
        assert_eq!(read, profile);
    }
}
