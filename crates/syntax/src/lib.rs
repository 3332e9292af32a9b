//! Text positions shared by every reader of the project's input files, so
//! that each counts lines and columns the same way: byte offsets (what
//! parsers and `toml`'s spans give) become one-based `line:col`, columns in
//! characters, through [`line_col`] or, for many lookups in one text,
//! [`LineIndex`]. [`toml_key_offset`] finds a key through `toml`'s own spans;
//! [`ExprError`] is the one error of the expression languages, in columns.

pub mod expr;
pub mod expr_error;
pub mod position;
pub mod toml_span;

pub use expr_error::ExprError;
pub use position::{LineIndex, line_col};
pub use toml_span::toml_key_offset;
