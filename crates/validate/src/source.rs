//! How Kernel Tuner turns one configuration into the source it compiles
//! (kernel_tuner 1.5.0, `util.prepare_kernel_string`, reproduced from its
//! documented behaviour):
//!
//! - the defines are, in this order, `grid_size_x/y/z`, the three block-size
//!   names (from the thread block), every tunable parameter (a name already
//!   present keeps its place and takes the parameter's value), `kernel_tuner`;
//! - each becomes `#define name value` in a prefix, except names containing
//!   `loop_unroll_factor` (CUDA/HIP): those become
//!   `constexpr int name = value;`, or, when the value is `0`, define nothing
//!   and delete every `#pragma unroll name` that starts a line (the regex
//!   `\n\s*#pragma\s+unroll\s+name` replaced by a newline);
//! - a non-empty prefix ends with `#line 1` so diagnostics keep their lines.
//!
//! What the prefix goes in front of is [`SourceFiles::read`]: an
//! experiment's header (if any) and its source files, concatenated.

use std::path::{Path, PathBuf};

use crate::dataset::ParamValue;

/// The files a kernel's text is made of, as an experiment names them: one or
/// more source files concatenated in order (Kernel Tuner's `kernel_string`
/// built from several files, as CLBlast's Xgemm is), and an optional header
/// whose text comes first (after Kernel Tuner's define prefix, as a first line
/// `#include "header"` of the source would put it: how benchmark_hub compiles
/// the OpenCL Xgemm as CUDA through `cl_to_cuda.h`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFiles {
    /// The first source file: the name NVRTC, diagnostics and PTX files take.
    pub main: PathBuf,
    /// The source files after `main`, in order.
    pub more: Vec<PathBuf>,
    /// Text put before the sources, if any.
    pub header: Option<PathBuf>,
    /// Literal edits of the sources' text (not the header's), in order.
    pub replace: Vec<Replace>,
}

/// One literal edit of the source text: every occurrence of `from` becomes
/// `to`. What an OpenCL source needs to compile as CUDA that a header cannot
/// give (CLBlast's old Xgemm writes `__local realM* alm` for a pointer
/// parameter, where CUDA admits no `__shared__`; its newer version spells it
/// `LOCAL_PTR`, which `cl_to_cuda.h` defines away).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    pub from: String,
    pub to: String,
}

/// Why the text of a kernel could not be put together.
#[derive(Debug, thiserror::Error)]
pub enum ReadSourceError {
    /// A source or header file could not be read.
    #[error("{}: error: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An edit whose `from` is nowhere in the sources (they changed, or the
    /// edit is misspelt).
    #[error("{}: error: replace[{index}]: `{from}` occurs nowhere in the source", main.display())]
    Unmatched {
        main: PathBuf,
        index: usize,
        from: String,
    },
}

impl SourceFiles {
    /// One source file, no header.
    pub fn single(path: impl Into<PathBuf>) -> SourceFiles {
        SourceFiles {
            main: path.into(),
            more: Vec::new(),
            header: None,
            replace: Vec::new(),
        }
    }

    /// Every file read, header first, then the sources in order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.header
            .iter()
            .chain(std::iter::once(&self.main))
            .chain(self.more.iter())
            .map(PathBuf::as_path)
    }

    /// The source text before Kernel Tuner's prefix: the header's text and a
    /// `#line 1` (so the first source keeps its line numbers), then the
    /// sources' texts concatenated as they are (Kernel Tuner's `+=`), with
    /// the `replace` edits made in order.
    pub fn read(&self) -> Result<String, ReadSourceError> {
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|source| ReadSourceError::Read {
                path: path.to_path_buf(),
                source,
            })
        };
        let mut text = String::new();
        for path in std::iter::once(&self.main).chain(self.more.iter()) {
            text.push_str(&read(path)?);
        }
        for (index, r) in self.replace.iter().enumerate() {
            if r.from.is_empty() || !text.contains(&r.from) {
                return Err(ReadSourceError::Unmatched {
                    main: self.main.clone(),
                    index,
                    from: r.from.clone(),
                });
            }
            text = text.replace(&r.from, &r.to);
        }
        let sources = [text];
        let header = match &self.header {
            Some(path) => Some(read(path)?),
            None => None,
        };
        Ok(join_source(header.as_deref(), &sources))
    }
}

/// The header's text (ended by a newline) and `#line 1`, then the sources
/// concatenated; without a header, the sources alone.
pub fn join_source(header: Option<&str>, sources: &[String]) -> String {
    let mut text = String::new();
    if let Some(h) = header {
        text.push_str(h);
        if !h.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("#line 1\n");
    }
    for s in sources {
        text.push_str(s);
    }
    text
}

/// One entry of the prefix Kernel Tuner puts in front of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Define {
    /// `#define name value`
    Macro { name: String, value: String },
    /// `constexpr int name = value;` (a non-zero `loop_unroll_factor`).
    Constexpr { name: String, value: String },
    /// A `loop_unroll_factor` of 0: no definition, and the
    /// `#pragma unroll name` lines are deleted from the source.
    DropUnrollPragma { name: String },
}

impl Define {
    /// Classifies one (name, value) pair by Kernel Tuner's rule.
    pub fn classify(name: &str, value: &str) -> Define {
        if name.contains("loop_unroll_factor") {
            if value == "0" {
                Define::DropUnrollPragma {
                    name: name.to_string(),
                }
            } else {
                Define::Constexpr {
                    name: name.to_string(),
                    value: value.to_string(),
                }
            }
        } else {
            Define::Macro {
                name: name.to_string(),
                value: value.to_string(),
            }
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Define::Macro { name, .. }
            | Define::Constexpr { name, .. }
            | Define::DropUnrollPragma { name } => name,
        }
    }

    /// The line this entry adds to the prefix, if any (with its newline).
    pub fn prefix_line(&self) -> Option<String> {
        match self {
            // Kernel Tuner escapes newlines inside a value as line continuations.
            Define::Macro { name, value } => {
                Some(format!("#define {name} {}\n", value.replace('\n', "\\\n")))
            }
            Define::Constexpr { name, value } => Some(format!(
                "constexpr int {name} = {};\n",
                value.replace('\n', "\\\n")
            )),
            Define::DropUnrollPragma { .. } => None,
        }
    }
}

/// The ordered defines of one configuration: grid, block, the parameters in
/// their given order, then `kernel_tuner 1`.
pub fn kernel_tuner_defines(
    grid: [u64; 3],
    block: [u64; 3],
    block_size_names: [&str; 3],
    params: &[(&str, &ParamValue)],
) -> Vec<Define> {
    // An insertion-ordered map, like the Python dict Kernel Tuner fills.
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: String| match entries.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = value,
        None => entries.push((name.to_string(), value)),
    };
    for (name, g) in ["grid_size_x", "grid_size_y", "grid_size_z"]
        .iter()
        .zip(grid)
    {
        set(name, g.to_string());
    }
    for (name, b) in block_size_names.iter().zip(block) {
        set(name, b.to_string());
    }
    for (name, value) in params {
        set(name, value.to_string());
    }
    set("kernel_tuner", "1".to_string());
    entries
        .iter()
        .map(|(n, v)| Define::classify(n, v))
        .collect()
}

/// The defines of a configuration that can change what `text` (the joined
/// source, [`SourceFiles::read`]) compiles to: every one but a `#define` or
/// `constexpr` whose name `text` never spells. A tunable parameter the
/// source does not read (`use_shmem` and `use_cmem` of benchmark_hub's
/// convolution_milo) then leaves the text NVRTC compiles, and the PTX
/// cache serves its configurations' twins (the same configuration but
/// that value) without compiling again. The prefix is followed by `#line 1`,
/// so no line number of the source moves. Where the text has `#include`
/// (a file not scanned here could read the name) or `##` (token pasting
/// could build it), every define stays. Comments and strings count as
/// spelling a name: that can only keep a define, never drop a used one.
pub fn defines_read_by(text: &str, defines: &[Define]) -> Vec<Define> {
    if text.contains("#include") || text.contains("##") {
        return defines.to_vec();
    }
    let mut spelled = std::collections::HashSet::new();
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        let word = &rest[start..];
        let len = word
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(word.len());
        // A run that starts inside a number (`1e5f`, `0x1f`) is no name;
        // counting it anyway only keeps more defines.
        spelled.insert(&word[..len]);
        rest = &word[len..];
    }
    defines
        .iter()
        .filter(|d| match d {
            Define::Macro { name, .. } | Define::Constexpr { name, .. } => {
                spelled.contains(name.as_str())
            }
            Define::DropUnrollPragma { .. } => true,
        })
        .cloned()
        .collect()
}

/// The exact text Kernel Tuner compiles: the prefix, `#line 1`, then the
/// source with the unroll pragmas of zero factors deleted.
pub fn instantiate_source(source: &str, defines: &[Define]) -> String {
    let mut body = source.to_string();
    let mut prefix = String::new();
    for d in defines {
        match d {
            Define::DropUnrollPragma { name } => body = drop_unroll_pragmas(&body, name),
            other => prefix.extend(other.prefix_line()),
        }
    }
    if !prefix.is_empty() {
        prefix.push_str("#line 1\n");
    }
    prefix + &body
}

/// Replaces every match of `\n\s*#pragma\s+unroll\s+NAME` by `\n`, scanning
/// left to right without overlap as Python's `re.sub` does. Only the matched
/// prefix goes: whatever follows NAME on that line stays.
pub fn drop_unroll_pragmas(source: &str, name: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(nl) = rest.find('\n') {
        out.push_str(&rest[..nl]);
        let after = &rest[nl + 1..];
        match match_pragma(after, name) {
            Some(len) => {
                out.push('\n');
                rest = &after[len..];
            }
            None => {
                out.push('\n');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Length of `\s*#pragma\s+unroll\s+NAME` at the start of `s`, if it matches.
fn match_pragma(s: &str, name: &str) -> Option<usize> {
    let skip_ws = |s: &str| s.len() - s.trim_start().len();
    let mut pos = skip_ws(s);
    for (word, need_space) in [("#pragma", true), ("unroll", true), (name, false)] {
        let tail = s.get(pos..)?;
        if !tail.starts_with(word) {
            return None;
        }
        pos += word.len();
        if need_space {
            let ws = skip_ws(s.get(pos..)?);
            if ws == 0 {
                return None;
            }
            pos += ws;
        }
    }
    Some(pos)
}
