//! Diagnostics as values: a message, the span it is about, and an optional
//! label and note. Rendering (via codespan-reporting) puts the DESIGN.md
//! contract line first, `file:line:col: error: message`, then an ASCII source
//! snippet.

use crate::ir::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config, DisplayStyle};

/// One error found in a PTX text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// A short text shown under the underlined span in the snippet.
    pub label: Option<String>,
    /// An extra line (`= note`) after the snippet.
    pub note: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            span,
            label: None,
            note: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// Every error of one file, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// One-based (line, column) of a byte offset; columns count characters.
    pub fn line_col(text: &str, offset: u32) -> (usize, usize) {
        syntax::line_col(text, offset as usize)
    }

    /// Renders every diagnostic: first line `file:line:col: error: message`,
    /// then a source snippet; diagnostics are separated by a blank line.
    pub fn render(&self, file_name: &str, text: &str) -> String {
        let file = SimpleFile::new(file_name, text);
        let lines = LineIndex::new(text);
        let mut out = String::new();
        for d in &self.0 {
            let (line, col) = lines.line_col(text, d.span.start as usize);
            out.push_str(&format!("{file_name}:{line}:{col}: error: {}\n", d.message));
            let mut start = (d.span.start as usize).min(text.len());
            let mut end = (d.span.end as usize).clamp(start, text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let label =
                Label::primary((), start..end).with_message(d.label.clone().unwrap_or_default());
            let mut cs = CsDiagnostic::error()
                .with_message(&d.message)
                .with_labels(vec![label]);
            if let Some(n) = &d.note {
                cs = cs.with_notes(vec![n.clone()]);
            }
            let config = Config {
                display_style: DisplayStyle::Rich,
                chars: Chars::ascii(),
                tab_width: 4,
                ..Config::default()
            };
            match term::emit_into_string(&config, &file, &cs) {
                // The rich header repeats the message; the contract line above replaces it.
                Ok(rich) => {
                    for l in rich.lines().skip(1) {
                        out.push_str(l.trim_end());
                        out.push('\n');
                    }
                }
                Err(_) => out.push('\n'),
            }
        }
        out
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error: {} (at byte {})", self.message, self.span.start)
    }
}

impl std::error::Error for Diagnostic {}

pub use syntax::LineIndex;
