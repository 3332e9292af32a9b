//! One-line summaries of multi-line diagnostics (an NVRTC log, a rendered
//! pipeline error), for the failure reasons recorded per configuration.
//! Two summaries, for two kinds of record: `tune` shows the line that names
//! the error, `validate` keeps the first line as its reports always have.

/// The line that says what went wrong: the first naming an error, else the
/// first non-blank one, trimmed.
pub fn error_line(s: &str) -> String {
    s.lines()
        .find(|l| l.contains("error"))
        .or_else(|| s.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The first non-blank line, as it is (not trimmed).
pub fn first_nonblank_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_line_is_the_first_naming_an_error() {
        let log = "\n  k.cu(3): warning: unused\n  k.cu(4): error: bad  \n";
        assert_eq!(error_line(log), "k.cu(4): error: bad");
        assert_eq!(error_line("\n plain \nmore"), "plain");
        assert_eq!(error_line(""), "");
    }

    #[test]
    fn the_first_nonblank_line_keeps_its_spaces() {
        assert_eq!(first_nonblank_line("\n  \n a: error \nb"), " a: error ");
        assert_eq!(first_nonblank_line(""), "");
    }
}
