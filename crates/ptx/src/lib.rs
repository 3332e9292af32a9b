//! ptx: PTX text to a checked IR, with diagnostics and analyses.
//!
//! Knows nothing of execution. The front end (lexer, parser, decoder) and the
//! IR live in this crate's root modules; analyses that read the IR without
//! mutating it live under [`analysis`].
//!
//! Tour of the front end, in data-path order:
//! - [`lexer`]: text to tokens; never fails (a bad token carries its error).
//! - `parser`: recursive descent to a syntax tree (`ast`), recovering at `;`
//!   and `}` so that every error of a file is reported.
//! - `decode` / `decode_inst`: syntax tree to the typed [`ir`], resolving
//!   registers, symbols and labels (with `{ }` block scoping) and checking
//!   each instruction's modifiers, types, operands and vector widths.
//! - [`diag`]: diagnostics as values; [`Diagnostics::render`] prints
//!   `file:line:col: error: message` followed by a source snippet.
//! - [`print`]: `impl Display for Module`, PTX text that reparses to the same IR.
//!
//! Entry point: [`parse`]. Start reading the IR at [`ir`].

pub mod analysis;
mod ast;
mod decode;
mod decode_inst;
mod decode_vec;
pub mod diag;
pub mod ir;
pub mod lexer;
mod parser;
pub mod print;

pub use ir::*;

pub use diag::{Diagnostic, Diagnostics};

/// Parses and checks a PTX module. Returns the module when the text has no
/// error, otherwise every diagnostic found (the parser recovers and goes on),
/// sorted by position. `file_name` is only for the caller's symmetry with
/// [`Diagnostics::render`]: spans are byte offsets into `text`.
pub fn parse(file_name: &str, text: &str) -> Result<Module, Diagnostics> {
    let _ = file_name;
    if text.len() >= u32::MAX as usize {
        return Err(Diagnostics(vec![Diagnostic::error(
            Span::DUMMY,
            "file is too large (4 GiB or more)",
        )]));
    }
    let tokens = lexer::tokenize(text);
    let mut parser = parser::Parser::new(text, tokens);
    let items = parser.parse_module();
    let mut diags = std::mem::take(&mut parser.diags);
    let mut decoder = decode::Decoder::new();
    let eof = Span::new(text.len(), text.len());
    decoder.decode(&items, eof);
    diags.append(&mut decoder.diags);
    if diags.is_empty() {
        Ok(decoder.module)
    } else {
        diags.sort_by_key(|d| (d.span.start, d.span.end));
        diags.dedup();
        Err(Diagnostics(diags))
    }
}
