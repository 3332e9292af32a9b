//! Byte offset to one-based (line, column), columns counted in characters.

/// One-based (line, column) of byte `offset` in `text`; columns count
/// characters. An offset past the end counts as the end, and one inside a
/// character as that character's start, so any offset gives a position.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    LineIndex::new(text).line_col(text, offset)
}

/// Byte offsets of line starts, for O(log n) offset-to-line lookups when one
/// text has many positions to report.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// One-based (line, column) of byte `offset` in `text`, the text this
    /// index was built from; columns count characters.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let mut off = offset.min(text.len());
        while !text.is_char_boundary(off) {
            off -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= off);
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0)
            .min(off);
        (line, text[start..off].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_from_one_in_characters() {
        let text = "ab\nçd\n\nx";
        let cases = [
            (0, (1, 1)),
            (1, (1, 2)),
            (2, (1, 3)),
            (3, (2, 1)),
            (5, (2, 2)),
            (4, (2, 1)),
            (7, (3, 1)),
            (8, (4, 1)),
            (9, (4, 2)),
            (99, (4, 2)),
        ];
        for (offset, want) in cases {
            assert_eq!(line_col(text, offset), want, "offset {offset}");
        }
        assert_eq!(line_col("", 3), (1, 1));
        // Cases of the helpers this one replaced (arch, profile).
        assert_eq!(line_col("ab\ncd\n", 99), (3, 1));
        assert_eq!(line_col("ab\ncé\nx", 6), (2, 3));
        assert_eq!(line_col("abc", 99), (1, 4));
    }
}
