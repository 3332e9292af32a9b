//! [`ClassCounts`]: counts by ptx [`InstClass`], the typed form in which the
//! instruction mixes leave this crate.
//!
//! The mixes used to cross crates as `BTreeMap<String, f64>` keyed by class
//! name, so a renamed class was silently read as 0 (or counted as arithmetic
//! by a consumer's fallback). Indexing by the enum makes every consumer's
//! mapping checked by the compiler; the names appear only when serialised.

use ptx::analysis::InstClass;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A count per instruction class. An entry is either present (it was counted,
/// and appears in the JSON) or absent (read as 0, left out of the JSON), as
/// the former maps held only the nonzero classes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassCounts([Option<f64>; InstClass::COUNT]);

impl Default for ClassCounts {
    fn default() -> Self {
        ClassCounts([None; InstClass::COUNT])
    }
}

impl ClassCounts {
    /// The entries of the classes whose raw count is nonzero, each `value(n)`;
    /// `raw` is indexed by [`InstClass::index`].
    pub fn from_nonzero(raw: &[u64], value: impl Fn(u64) -> f64) -> ClassCounts {
        let mut out = ClassCounts::default();
        for (&c, &n) in InstClass::ALL.iter().zip(raw) {
            if n > 0 {
                out.set(c, value(n));
            }
        }
        out
    }

    /// The count of `class`, 0 when absent.
    pub fn get(&self, class: InstClass) -> f64 {
        self.0.get(class.index()).copied().flatten().unwrap_or(0.0)
    }

    /// Make `class` present with count `n`.
    pub fn set(&mut self, class: InstClass, n: f64) {
        if let Some(slot) = self.0.get_mut(class.index()) {
            *slot = Some(n);
        }
    }

    /// The present entries, in declaration order of [`InstClass`].
    pub fn iter(&self) -> impl Iterator<Item = (InstClass, f64)> + '_ {
        InstClass::ALL
            .iter()
            .zip(&self.0)
            .filter_map(|(&c, n)| n.map(|n| (c, n)))
    }

    /// The present entries in class-name order: the order of the name-keyed
    /// maps these replace, kept where floats are summed so that the sums
    /// (and every number downstream) stay bit-identical.
    pub fn by_name(&self) -> Vec<(InstClass, f64)> {
        let mut entries: Vec<(InstClass, f64)> = self.iter().collect();
        entries.sort_by(|a, b| a.0.name().cmp(b.0.name()));
        entries
    }

    /// The same entries, each count mapped through `f`.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> ClassCounts {
        ClassCounts(self.0.map(|n| n.map(&f)))
    }

    /// True when no class is present.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

impl Serialize for ClassCounts {
    /// A JSON object keyed by class name in name order, the order of the
    /// `BTreeMap<String, f64>` it replaces, so the output is unchanged.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = self.by_name();
        let mut map = s.serialize_map(Some(entries.len()))?;
        for (class, n) in entries {
            map.serialize_entry(class.name(), &n)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn serialises_like_the_name_keyed_map() {
        let raw: Vec<u64> = (0..InstClass::COUNT as u64).map(|i| i % 3).collect();
        let typed = ClassCounts::from_nonzero(&raw, |n| n as f64 * 1.5);
        let named: BTreeMap<String, f64> = InstClass::ALL
            .iter()
            .zip(&raw)
            .filter(|&(_, &n)| n > 0)
            .map(|(c, &n)| (c.name().to_string(), n as f64 * 1.5))
            .collect();
        assert_eq!(
            serde_json::to_string(&typed).ok(),
            serde_json::to_string(&named).ok()
        );
        assert_eq!(typed.get(InstClass::IntAlu), 0.0);
        assert_eq!(typed.get(InstClass::IntMul), 1.5);
        assert!(ClassCounts::default().is_empty());
    }
}
