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

use crate::dataset::ParamValue;

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
