//! The GPU catalog: every `gpus/*.toml`, loaded, validated and looked up by id.
//!
//! [`Catalog::bundled`] uses the files embedded at build time (build.rs lists
//! the repository's `gpus/` directory), so the binary needs no data files;
//! [`Catalog::load_dir`] reads a directory instead (a user's own GPUs).
//! Each GPU is given the figures of its compute capability from
//! `compute-capabilities.toml` ([`crate::cc`]) as it loads.

use std::path::Path;

use crate::cc::{self, CcTable};
use crate::error::ArchError;
use crate::gpu::Gpu;
use crate::validate::{find_key, validate};

/// The embedded catalog: `(file name, text)` for each `gpus/*.toml`.
pub const BUNDLED_FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/bundled_gpus.rs"));

/// A set of GPUs, sorted by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    gpus: Vec<Gpu>,
}

/// Parse and validate one GPU file with the bundled compute-capability
/// table. `file` is the name used in diagnostics; the id must equal the file
/// stem.
pub fn parse_gpu(file: &str, text: &str) -> Result<Gpu, ArchError> {
    parse_gpu_with(file, text, cc::bundled_table()?)
}

/// Parse and validate one GPU file, and attach the entry of its compute
/// capability from `table`: a GPU of a compute capability the table lacks
/// is an error at its `compute_capability` key.
pub fn parse_gpu_with(file: &str, text: &str, table: &CcTable) -> Result<Gpu, ArchError> {
    let mut gpu: Gpu = toml::from_str(text).map_err(|e| ArchError::toml(file, text, &e))?;
    validate(&gpu, file, text)?;
    let cc = gpu.compute_capability;
    let Some(figures) = table.get(cc) else {
        let (line, col) = find_key(text, "compute_capability");
        return Err(ArchError::Invalid {
            file: file.to_string(),
            line,
            col,
            field: "compute_capability".to_string(),
            message: format!(
                "{cc} has no entry in {}: add its figures there (`[cc.\"{cc}\"]`)",
                cc::FILE_NAME
            ),
        });
    };
    gpu.cc_figures = figures.clone();
    Ok(gpu)
}

impl Catalog {
    /// The catalog embedded in the binary.
    pub fn bundled() -> Result<Self, ArchError> {
        Self::from_texts(BUNDLED_FILES.iter().map(|(f, t)| (format!("gpus/{f}"), *t)))
    }

    /// Every `*.toml` directly inside `dir` (subdirectories are not read),
    /// with the compute-capability table `dir` holds
    /// (`compute-capabilities.toml`), else the bundled one.
    pub fn load_dir(dir: &Path) -> Result<Self, ArchError> {
        let io = |e: std::io::Error| ArchError::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.is_file() && path.extension().is_some_and(|x| x == "toml") {
                paths.push(path);
            }
        }
        paths.sort();
        let table_path = dir.join(cc::FILE_NAME);
        paths.retain(|p| *p != table_path);
        let own_table = if table_path.is_file() {
            let text = std::fs::read_to_string(&table_path).map_err(|e| ArchError::Io {
                path: table_path.display().to_string(),
                message: e.to_string(),
            })?;
            Some(CcTable::parse(&table_path.display().to_string(), &text)?)
        } else {
            None
        };
        let table = match &own_table {
            Some(t) => t,
            None => cc::bundled_table()?,
        };
        let mut texts = Vec::with_capacity(paths.len());
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|e| ArchError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            texts.push((path.display().to_string(), text));
        }
        Self::from_texts_with(texts.iter().map(|(f, t)| (f.clone(), t.as_str())), table)
    }

    /// Build a catalog from `(file name, text)` pairs with the bundled
    /// compute-capability table; ids must be unique.
    pub fn from_texts<'a>(
        files: impl IntoIterator<Item = (String, &'a str)>,
    ) -> Result<Self, ArchError> {
        Self::from_texts_with(files, cc::bundled_table()?)
    }

    /// [`Catalog::from_texts`] with the compute-capability table `table`.
    pub fn from_texts_with<'a>(
        files: impl IntoIterator<Item = (String, &'a str)>,
        table: &CcTable,
    ) -> Result<Self, ArchError> {
        let mut gpus: Vec<(String, Gpu)> = Vec::new();
        for (file, text) in files {
            let gpu = parse_gpu_with(&file, text, table)?;
            if let Some((other, _)) = gpus.iter().find(|(_, g)| g.id == gpu.id) {
                return Err(ArchError::DuplicateId {
                    file,
                    id: gpu.id,
                    other: other.clone(),
                });
            }
            gpus.push((file, gpu));
        }
        let mut gpus: Vec<Gpu> = gpus.into_iter().map(|(_, g)| g).collect();
        gpus.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Self { gpus })
    }

    /// All GPUs, sorted by id.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// The GPU of that id. Case, spaces and underscores are forgiven
    /// (`"A100 PCIe 40GB"` finds `a100-pcie-40gb`); otherwise the error lists
    /// the closest ids.
    pub fn get(&self, id: &str) -> Result<&Gpu, ArchError> {
        let wanted = normalise(id);
        if let Some(g) = self.gpus.iter().find(|g| g.id == wanted) {
            return Ok(g);
        }
        Err(ArchError::UnknownGpu {
            id: id.to_string(),
            suggestions: self.suggestions(&wanted),
        })
    }

    /// Up to three ids close to `wanted`: those containing it first, then
    /// those contained in it (`a10` for `a100`), then by edit distance (at
    /// most a third of the length).
    fn suggestions(&self, wanted: &str) -> Vec<String> {
        let mut scored: Vec<(usize, &str)> = self
            .gpus
            .iter()
            .filter_map(|g| {
                let id = g.id.as_str();
                if !wanted.is_empty() && id.contains(wanted) {
                    return Some((0, id));
                }
                if !wanted.is_empty() && wanted.contains(id) {
                    return Some((1, id));
                }
                let d = edit_distance(wanted, id);
                (d <= wanted.chars().count().max(3) / 3).then_some((d + 1, id))
            })
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(3)
            .map(|(_, id)| id.to_string())
            .collect()
    }
}

/// Lowercase, with runs of spaces and underscores turned into one hyphen.
fn normalise(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.trim().chars() {
        let c = if c == ' ' || c == '_' {
            '-'
        } else {
            c.to_ascii_lowercase()
        };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c);
        }
    }
    out
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_forgives_case_and_spaces() {
        let check = |s, want: &str| assert_eq!(normalise(s), want);
        check("A100 PCIe 40GB", "a100-pcie-40gb");
        check("rtx_4090", "rtx-4090");
        check("  H100  SXM ", "h100-sxm");
    }

    #[test]
    fn edit_distance_cases() {
        let check = |a, b, want| assert_eq!(edit_distance(a, b), want);
        check("", "", 0);
        check("abc", "abc", 0);
        check("abc", "abd", 1);
        check("a100", "a10", 1);
        check("kitten", "sitting", 3);
    }
}
