//! The one table style of ptxperf: comfy-table's `UTF8_FULL_CONDENSED`,
//! kept within a width (the terminal's, or [`PIPE_WIDTH`] columns for a
//! file, a pipe or a test): long cells (sources, citations, CUDA lines)
//! wrap inside their column.

use comfy_table::{ContentArrangement, Table, presets};

/// Width of the tables written to a file or a pipe.
pub const PIPE_WIDTH: u16 = 120;

/// An empty table in ptxperf's style, `width` columns wide at most.
pub fn new(width: u16) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width);
    t
}

/// Keep every column but the last whole (identifiers, numbers): only the
/// last one (a source, a citation, a sentence) wraps. Call after the header.
pub fn wrap_last_column_only(t: &mut Table) {
    let n = t.column_count();
    for i in 0..n.saturating_sub(1) {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
        }
    }
}

/// `line` wrapped at spaces to `width` columns, continuation lines
/// indented by four spaces (a word longer than the width stays whole).
pub fn wrap(line: &str, width: u16) -> String {
    let width = usize::from(width);
    let mut out = String::new();
    let mut col = 0;
    for word in line.split(' ') {
        let len = word.chars().count();
        if col > 0 && col + 1 + len > width {
            out.push_str("\n    ");
            col = 4;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_at_spaces_with_an_indent() {
        assert_eq!(wrap("a b c", 80), "a b c");
        assert_eq!(wrap("aaa bbb ccc ddd", 8), "aaa bbb\n    ccc\n    ddd");
        // A word wider than the line stays whole.
        assert_eq!(wrap("x abcdefghij y", 6), "x\n    abcdefghij\n    y");
        assert_eq!(wrap("", 6), "");
    }
}
