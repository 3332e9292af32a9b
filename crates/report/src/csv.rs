//! CSV fields as RFC 4180 writes them: a field holding a comma, a quote or
//! a line break is quoted, its quotes doubled; any other is written as is.

/// One field.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One line: the fields joined by commas, with a line break.
pub fn line<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::{field, line};

    #[test]
    fn quotes_only_what_needs_it() {
        let check = |s: &str, want: &str| assert_eq!(field(s), want, "{s:?}");
        check("plain", "plain");
        check("", "");
        check("a,b", "\"a,b\"");
        check("say \"hi\"", "\"say \"\"hi\"\"\"");
        check("two\nlines", "\"two\nlines\"");
        assert_eq!(line(&["a", "b,c", ""]), "a,\"b,c\",\n");
    }
}
