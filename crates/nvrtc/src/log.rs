//! NVRTC's program log, parsed into diagnostics and rendered the house way.
//!
//! NVRTC writes (observed with 12.9):
//! ```text
//! kernels/a/a.cu(3): error: identifier "foo" is undefined
//!     x[0]=foo + bar;
//!          ^
//!
//! nvrtc: warning: Architectures prior to '<compute/sm>_75' are deprecated ...
//! ```
//! The source line is echoed with two extra leading spaces and a caret marks the
//! column. We turn that into `file:line:col: error: message`, keep the excerpt,
//! and drop the trailing summary lines ("2 errors detected ...", "Remark: ...").

use std::fmt;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Remark,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
        })
    }
}

/// One message of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The program name NVRTC printed; `None` for driver-level messages ("nvrtc: warning: ...").
    pub file: Option<String>,
    pub line: Option<u32>,
    /// 1-based, from the caret line; `None` when NVRTC gave no caret.
    pub col: Option<u32>,
    pub severity: Severity,
    /// The diagnostic number NVRTC attached (`177-D`), if any.
    pub code: Option<String>,
    pub message: String,
    /// The echoed source line and caret, as NVRTC printed them.
    pub excerpt: Vec<String>,
}

impl Diagnostic {
    /// `file:line:col: severity: message`, then the excerpt lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(file) = &self.file {
            out.push_str(file);
            out.push(':');
            if let Some(line) = self.line {
                out.push_str(&format!("{line}:"));
                if let Some(col) = self.col {
                    out.push_str(&format!("{col}:"));
                }
            }
            out.push(' ');
        } else {
            out.push_str("nvrtc: ");
        }
        out.push_str(&format!("{}: {}", self.severity, self.message));
        if let Some(code) = &self.code {
            out.push_str(&format!(" [#{code}]"));
        }
        for l in &self.excerpt {
            out.push('\n');
            out.push_str(l);
        }
        out
    }
}

/// Parse a whole log. Lines that belong to no diagnostic are dropped.
pub fn parse_log(log: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut in_excerpt = false;
    for line in log.lines() {
        if let Some(d) = parse_header(line) {
            out.push(d);
            in_excerpt = true;
            continue;
        }
        if line.trim().is_empty() {
            in_excerpt = false;
            continue;
        }
        if !in_excerpt {
            continue;
        }
        let Some(last) = out.last_mut() else { continue };
        if is_caret_line(line) && last.col.is_none() {
            let caret = line.find('^').unwrap_or(0);
            // NVRTC indents the echoed source by two spaces.
            last.col = Some(u32::try_from(caret.saturating_sub(2) + 1).unwrap_or(u32::MAX));
        }
        last.excerpt.push(line.to_string());
    }
    out
}

/// Render every diagnostic of a log, one block per diagnostic.
pub fn render_log(log: &str) -> String {
    let diags = parse_log(log);
    if diags.is_empty() {
        return log.trim_end().to_string();
    }
    diags
        .iter()
        .map(Diagnostic::render)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The defines (`-D NAME=...` names) that are likely the cause of errors in
/// a header: a define is a macro in every file the program includes, so a
/// short name such as `N` replaces the `N` of `template <typename T, size_t N>`
/// in CUB and the header fails to parse. A define is named when it stands as
/// a whole word in the echoed line of an error reported in a file other than
/// `source` (the program itself). In the order of `defines`, each once.
pub fn define_collisions<'a>(
    diagnostics: &[Diagnostic],
    source: &str,
    defines: &[&'a str],
) -> Vec<&'a str> {
    let header_lines: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| d.file.as_deref().is_some_and(|f| f != source))
        .filter_map(|d| d.excerpt.first().map(String::as_str))
        .collect();
    defines
        .iter()
        .copied()
        .filter(|name| header_lines.iter().any(|l| has_word(l, name)))
        .collect()
}

/// Whether `word` occurs in `line` delimited by characters that cannot
/// continue a C identifier.
fn has_word(line: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The note [`define_collisions`] leads to, or `None` when none collides.
pub fn define_collision_note(names: &[&str]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let list = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (noun, verb) = if names.len() == 1 {
        ("define", "appears")
    } else {
        ("defines", "appear")
    };
    Some(format!(
        "note: the {noun} {list} {verb} in the header lines that failed: a define is a macro in every included header too, so a short name can replace a header's own identifier (CUB's `template <typename T, size_t N>`); rename it (`N` -> `PROBLEM_N`) in the source and the spec"
    ))
}

/// The macros a kernel built by nvcc gets from the host's `<math.h>`, which
/// nvcc includes implicitly and NVRTC does not (ptxperf's `<math.h>` and
/// `<cmath>` define them: crate::std_headers).
const MATH_MACROS: [&str; 17] = [
    "INFINITY",
    "NAN",
    "HUGE_VAL",
    "HUGE_VALF",
    "M_E",
    "M_LOG2E",
    "M_LOG10E",
    "M_LN2",
    "M_LN10",
    "M_PI",
    "M_PI_2",
    "M_PI_4",
    "M_1_PI",
    "M_2_PI",
    "M_2_SQRTPI",
    "M_SQRT2",
    "M_SQRT1_2",
];

/// The note for errors that name one of `<math.h>`'s macros as an undefined
/// identifier, or `None` when none does.
pub fn math_macro_note(diagnostics: &[Diagnostic]) -> Option<String> {
    let names: Vec<String> = MATH_MACROS
        .iter()
        .filter(|n| {
            let message = format!("identifier \"{n}\" is undefined");
            diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.message == message)
        })
        .map(|n| format!("`{n}`"))
        .collect();
    if names.is_empty() {
        return None;
    }
    let verb = if names.len() == 1 { "comes" } else { "come" };
    Some(format!(
        "note: {} {verb} from <math.h>, which nvcc includes in every .cu file and NVRTC does not: add `#include <math.h>` (or `<cmath>`; ptxperf provides both)",
        names.join(", ")
    ))
}

fn is_caret_line(line: &str) -> bool {
    line.contains('^') && line.chars().all(|c| c == ' ' || c == '^' || c == '~')
}

/// `name(12): error: msg`, `name(3): warning #177-D: msg`, `nvrtc: warning: msg`.
fn parse_header(line: &str) -> Option<Diagnostic> {
    if let Some(rest) = line.strip_prefix("nvrtc: ") {
        let (kind, message) = rest.split_once(": ")?;
        let (severity, code) = parse_kind(kind)?;
        return Some(Diagnostic {
            file: None,
            line: None,
            col: None,
            severity,
            code,
            message: message.to_string(),
            excerpt: Vec::new(),
        });
    }
    // The location is the last `(digits)` before the first "): " (file names may hold parentheses).
    let close = line.find("): ")?;
    let open = line[..close].rfind('(')?;
    let number: u32 = line[open + 1..close].parse().ok()?;
    let rest = &line[close + 3..];
    let (kind, message) = rest.split_once(": ")?;
    let (severity, code) = parse_kind(kind)?;
    Some(Diagnostic {
        file: Some(line[..open].to_string()),
        line: Some(number),
        col: None,
        severity,
        code,
        message: message.to_string(),
        excerpt: Vec::new(),
    })
}

/// `error`, `catastrophic error`, `warning #177-D`, `remark #1`.
fn parse_kind(kind: &str) -> Option<(Severity, Option<String>)> {
    let (word, code) = match kind.split_once(" #") {
        Some((w, c)) => (w, Some(c.to_string())),
        None => (kind, None),
    };
    let severity = match word {
        "error" | "catastrophic error" | "fatal error" | "internal error" => Severity::Error,
        "warning" => Severity::Warning,
        "remark" | "note" => Severity::Remark,
        _ => return None,
    };
    Some((severity, code))
}
