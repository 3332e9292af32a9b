//! The split of the ground truth into a part models are developed on and a
//! check part that is only scored to report (docs/validation/split.md).
//!
//! The split is made once, in a committed file (`data/split.toml`), so that
//! no model change can move a configuration from one part to the other:
//!
//! - a dataset is either wholly `development` (data measured to find out
//!   why a model was wrong, then used to change it), wholly `check` (a GPU
//!   no model has seen), `split` by configuration, or `excluded` (times
//!   that cannot be what the file says was measured: in neither part);
//! - `split` puts a configuration in the check part when a hash of the
//!   file's salt, the kernel and its parameter values (sorted by name) falls
//!   under `check_percent`. The GPU is not hashed: a configuration is in the
//!   same part on every GPU, so a model learned from one GPU's development
//!   part never saw another GPU's check configurations.
//!
//! The hash is 64-bit FNV-1a: stable across machines, versions and thread
//! counts, which is all a split needs (it is not a security boundary).

use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::dataset::{Dataset, Row};
use crate::error::{FileError, Location};

/// The part of the data a configuration belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// Configurations models may be developed, tuned or trained on.
    Development,
    /// Configurations only scored to report.
    Check,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Development => "development",
            Part::Check => "check",
        }
    }

    /// The part named `s` (`development` or `check`).
    pub fn parse(s: &str) -> Option<Part> {
        match s {
            "development" | "dev" => Some(Part::Development),
            "check" => Some(Part::Check),
            _ => None,
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a dataset contributes to each part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Every configuration is development data.
    Development,
    /// Every configuration is check data.
    Check,
    /// Configurations go to either part by their hash.
    Split,
    /// In neither part: the file's times cannot be what it says was
    /// measured (its `why` says how that is known). Nothing scores it.
    Excluded,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Development => "development",
            Role::Check => "check",
            Role::Split => "split",
            Role::Excluded => "excluded",
        }
    }
}

/// One `[[dataset]]` of the split file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetRole {
    /// A data file's path ends with this (`/`-separated components), or,
    /// ending in `/*`, the file lies in a folder of that name.
    pub path: String,
    pub role: Role,
    /// Why the dataset has this role.
    #[serde(default)]
    pub why: String,
}

/// The split file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// Mixed into every hash: a new salt is a new split.
    pub salt: String,
    /// Percent of a `split` dataset's configurations in the check part.
    pub check_percent: u32,
    /// Datasets with a role other than `split` (the default), or a note.
    #[serde(default, rename = "dataset")]
    pub datasets: Vec<DatasetRole>,
}

impl Split {
    /// Reads and checks a split file.
    pub fn load(path: &Path) -> Result<Split, FileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| FileError::new(&file, Location::File, e.to_string()))?;
        Split::parse(&text, &file)
    }

    /// Parses split-file text; `file` names it in errors (a TOML error
    /// carries its line and column).
    pub fn parse(text: &str, file: &str) -> Result<Split, FileError> {
        let split: Split = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(Location::File, |s| {
                let (l, c) = syntax::position::line_col(text, s.start);
                Location::LineCol(l, c)
            });
            FileError::new(file, at, e.message().to_string())
        })?;
        if split.check_percent == 0 || split.check_percent >= 100 {
            return Err(FileError::new(
                file,
                Location::Key("check_percent".into()),
                format!("{} is out of range: 1 to 99", split.check_percent),
            ));
        }
        Ok(split)
    }

    /// The role of the data file at `data`: the first `[[dataset]]` whose
    /// path matches, else `split`.
    pub fn role_of(&self, data: &Path) -> Role {
        self.entry_of(data).map_or(Role::Split, |d| d.role)
    }

    /// Why the data file at `data` is excluded, when it is.
    pub fn exclusion(&self, data: &Path) -> Option<&str> {
        self.entry_of(data)
            .filter(|d| d.role == Role::Excluded)
            .map(|d| d.why.as_str())
    }

    /// The first `[[dataset]]` whose path matches `data`.
    fn entry_of(&self, data: &Path) -> Option<&DatasetRole> {
        let components: Vec<String> = data
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        for d in &self.datasets {
            let (pattern, folder) = match d.path.strip_suffix("/*") {
                Some(dir) => (dir, true),
                None => (d.path.as_str(), false),
            };
            let want: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
            let have: &[String] = if folder {
                match components.split_last() {
                    Some((_, dirs)) => dirs,
                    None => continue,
                }
            } else {
                &components
            };
            if want.len() <= have.len()
                && want
                    .iter()
                    .zip(&have[have.len() - want.len()..])
                    .all(|(w, h)| *w == h.as_str())
            {
                return Some(d);
            }
        }
        None
    }

    /// The part of one configuration of a `split` dataset: `kernel` and its
    /// (name, value) pairs in any order.
    pub fn part_by_hash<'a>(
        &self,
        kernel: &str,
        values: impl IntoIterator<Item = (&'a str, String)>,
    ) -> Part {
        let mut pairs: Vec<(&str, String)> = values.into_iter().collect();
        pairs.sort();
        let mut h = Fnv::new();
        h.write(self.salt.as_bytes());
        h.write(&[0]);
        h.write(kernel.as_bytes());
        for (name, value) in pairs {
            h.write(&[0]);
            h.write(name.as_bytes());
            h.write(b"=");
            h.write(value.as_bytes());
        }
        if h.0 % 100 < u64::from(self.check_percent) {
            Part::Check
        } else {
            Part::Development
        }
    }

    /// The part of `row` of `dataset`, read from the file at `data`; `None`
    /// when the file is excluded.
    pub fn part_of(&self, data: &Path, dataset: &Dataset, row: &Row) -> Option<Part> {
        Some(match self.role_of(data) {
            Role::Development => Part::Development,
            Role::Check => Part::Check,
            Role::Excluded => return None,
            Role::Split => self.part_by_hash(
                &dataset.kernel,
                dataset
                    .named_values(row)
                    .into_iter()
                    .map(|(n, v)| (n, v.to_string())),
            ),
        })
    }

    /// The rows of `dataset` (read from `data`) in `part`, ascending.
    pub fn rows_in(&self, data: &Path, dataset: &Dataset, part: Part) -> Vec<usize> {
        dataset
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| self.part_of(data, dataset, r) == Some(part))
            .map(|(i, _)| i)
            .collect()
    }
}

/// 64-bit FNV-1a.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
