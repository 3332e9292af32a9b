//! ptx: PTX text to a checked IR, with diagnostics and analyses.
//!
//! Knows nothing of execution. The front end (lexer, parser, decoder) and the
//! IR live in this crate's root modules; analyses that read the IR without
//! mutating it live under [`analysis`].

pub mod analysis;
