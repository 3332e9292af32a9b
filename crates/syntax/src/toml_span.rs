//! Where a key stands in a TOML text, from `toml`'s own spans: a check made
//! after deserialising (a value out of range) can then point at the key the
//! way a syntax error does, with no second, line-scanning reader of TOML.

use toml::de::{DeTable, DeValue};

/// Byte offset of the key at `path` (table names then the key, e.g.
/// `["limits", "max_warps_per_sm"]`) in TOML `text`; `None` when the text
/// does not parse or has no such key.
pub fn toml_key_offset(text: &str, path: &[&str]) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let (last, tables) = path.split_last()?;
    let mut table = root.get_ref();
    for name in tables {
        match table.get(*name).map(|v| v.get_ref()) {
            Some(DeValue::Table(t)) => table = t,
            _ => return None,
        }
    }
    table
        .keys()
        .find(|k| k.get_ref().as_ref() == *last)
        .map(|k| k.span().start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_col;

    #[test]
    fn keys_are_found_by_their_spans() {
        let text = "id = \"x\"\n[sm]\nfp32_lanes = 64\n[limits]\n  max_warps_per_sm = 64\n\
                    [sources]\n\"sm.fp32_lanes\" = \"a\"\n";
        let at = |path: &[&str]| toml_key_offset(text, path).map(|o| line_col(text, o));
        assert_eq!(at(&["id"]), Some((1, 1)));
        assert_eq!(at(&["sm", "fp32_lanes"]), Some((3, 1)));
        assert_eq!(at(&["limits", "max_warps_per_sm"]), Some((5, 3)));
        assert_eq!(at(&["sources", "sm.fp32_lanes"]), Some((7, 1)));
        assert_eq!(at(&["limits", "nothing"]), None);
        assert_eq!(at(&["id", "x"]), None);
        assert_eq!(toml_key_offset("= broken", &["id"]), None);
    }
}
