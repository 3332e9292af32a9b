//! Analyses over the IR, kept as side tables: the IR is never mutated.
