//! [`SmArch`]: the architecture ptxas built a profile's kernel for.

use serde::{Deserialize, Serialize};

/// A GPU architecture as ptxas and NVRTC name it, written `sm_NN` (`sm_61`,
/// `sm_90`): the last digit is the minor version of the compute capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SmArch {
    /// Major version of the compute capability (6 for `sm_61`).
    pub major: u32,
    /// Minor version (1 for `sm_61`).
    pub minor: u32,
}

impl SmArch {
    /// `sm_{major}{minor}`.
    pub const fn new(major: u32, minor: u32) -> SmArch {
        SmArch { major, minor }
    }

    /// `sm_61`, `sm_90`, `sm_90a` (one suffix `a` or `f` is ignored: see
    /// [`SmArch::is_specific`]); `None` for anything else.
    pub fn parse(text: &str) -> Option<SmArch> {
        let name = text.strip_prefix("sm_")?;
        let digits = name.strip_suffix(['a', 'f']).unwrap_or(name);
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        Some(SmArch {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
        })
    }

    /// Whether `text` names an architecture-specific (`sm_90a`) or
    /// family-specific (`sm_100f`) target: PTX for it builds for that one
    /// architecture (or family) only, not for every newer one.
    pub fn is_specific(text: &str) -> bool {
        SmArch::parse(text).is_some() && text.ends_with(['a', 'f'])
    }
}

impl std::fmt::Display for SmArch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

impl Serialize for SmArch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SmArch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        SmArch::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "architecture {text:?} is not \"sm_\" and its compute capability's digits (for example \"sm_61\")"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Option<(u32, u32)>) {
        let got = SmArch::parse(text);
        assert_eq!(got.map(|a| (a.major, a.minor)), expect, "{text}");
        if let Some(a) = got.filter(|_| !text.ends_with(['a', 'f'])) {
            assert_eq!(a.to_string(), text);
        }
    }

    #[test]
    fn architecture_names_parse_and_print_back() {
        check("sm_61", Some((6, 1)));
        check("sm_90", Some((9, 0)));
        check("sm_90a", Some((9, 0)));
        check("sm_100f", Some((10, 0)));
        check("sm_120", Some((12, 0)));
        check("sm_6", None);
        check("compute_80", None);
        check("sm_8x", None);
        check("sm_90aa", None);
        check("sm_90fa", None);
        check("", None);
        assert!(SmArch::is_specific("sm_90a"));
        assert!(SmArch::is_specific("sm_100f"));
        assert!(!SmArch::is_specific("sm_90"));
        assert!(!SmArch::is_specific("sm_9a"));
    }
}
