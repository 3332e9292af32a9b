//! The parts of a launch spec that compiling its source needs (`source`,
//! `defines`, `arch`, and `kernel` where it is a template to instantiate), read without building the whole launch: `ptxperf
//! compile --spec` compiles a spec whose launch need not be valid yet.

use std::path::{Path, PathBuf};

/// A launch spec's source file, its defines as macro values, its architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecSource {
    /// The source, relative to the spec's folder.
    pub source: PathBuf,
    /// `-D NAME=VALUE` pairs, in the spec's order.
    pub defines: Vec<(String, String)>,
    pub arch: Option<String>,
    /// The spec's `kernel`, if it is a string.
    pub kernel: Option<String>,
}

/// Why a spec's source part could not be read; each names the spec file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecSourceError {
    #[error("{}: error: invalid launch spec: {message}", file.display())]
    Toml { file: PathBuf, message: String },
    #[error("{}: error: `source` (a string) is missing", file.display())]
    NoSource { file: PathBuf },
    #[error("{}: error: `defines` must be a table", file.display())]
    DefinesNotTable { file: PathBuf },
    #[error(
        "{}: error: define `{name}` must be a number, a string or a boolean",
        file.display()
    )]
    BadDefine { file: PathBuf, name: String },
}

/// Read `source`, `defines` and `arch` from the text of the launch spec at
/// `path`; `source` is made relative to the spec's directory. Define values:
/// integers and strings as written, floats with a decimal point, booleans as 1/0.
pub fn spec_source(path: &Path, text: &str) -> Result<SpecSource, SpecSourceError> {
    let file = || path.to_path_buf();
    let table: toml::Table = toml::from_str(text).map_err(|e| SpecSourceError::Toml {
        file: file(),
        message: e.to_string(),
    })?;
    let source = table
        .get("source")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| SpecSourceError::NoSource { file: file() })?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut defines = Vec::new();
    if let Some(value) = table.get("defines") {
        let t = value
            .as_table()
            .ok_or_else(|| SpecSourceError::DefinesNotTable { file: file() })?;
        for (name, v) in t {
            let text = match v {
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => format!("{f:?}"),
                toml::Value::String(s) => s.clone(),
                toml::Value::Boolean(b) => u8::from(*b).to_string(),
                _ => {
                    return Err(SpecSourceError::BadDefine {
                        file: file(),
                        name: name.clone(),
                    });
                }
            };
            defines.push((name.clone(), text));
        }
    }
    let arch = table
        .get("arch")
        .and_then(toml::Value::as_str)
        .map(str::to_string);
    let kernel = table
        .get("kernel")
        .and_then(toml::Value::as_str)
        .map(str::to_string);
    Ok(SpecSource {
        source: dir.join(source),
        defines,
        arch,
        kernel,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<SpecSource, SpecSourceError> {
        spec_source(Path::new("dir/spec.toml"), text)
    }

    fn check_defines(defines_line: &str, expected: &[(&str, &str)]) {
        let s =
            spec(&format!("source = \"k.cu\"\n{defines_line}\n")).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(&str, &str)> = s
            .defines
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(got, expected, "{defines_line}");
    }

    #[test]
    fn spec_defines_become_macro_values() {
        check_defines("defines = { N = 4096 }", &[("N", "4096")]);
        check_defines(
            "defines = { A = 1.5, B = \"2.0f\", C = true, D = false, E = -3 }",
            &[
                ("A", "1.5"),
                ("B", "2.0f"),
                ("C", "1"),
                ("D", "0"),
                ("E", "-3"),
            ],
        );
        check_defines("defines = { X = 2.0 }", &[("X", "2.0")]);
        check_defines("", &[]);
    }

    #[test]
    fn spec_source_is_relative_to_the_spec_and_arch_is_read() {
        let s = spec("source = \"k.cu\"\narch = \"sm_90\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.source, Path::new("dir/k.cu"));
        assert_eq!(s.arch.as_deref(), Some("sm_90"));
    }

    #[test]
    fn bad_specs_are_errors_naming_the_file() {
        for (text, fragment) in [
            ("kernel = \"k\"\n", "`source` (a string) is missing"),
            ("source = \n", "invalid launch spec"),
            (
                "source = \"k.cu\"\ndefines = 3\n",
                "`defines` must be a table",
            ),
            (
                "source = \"k.cu\"\ndefines = { N = [1] }\n",
                "define `N` must be",
            ),
        ] {
            let err = spec(text)
                .err()
                .unwrap_or_else(|| panic!("{text}: expected an error"));
            let msg = err.to_string();
            assert!(msg.contains(fragment), "{text}: {msg}");
            assert!(msg.starts_with("dir/spec.toml: error:"), "{text}: {msg}");
        }
    }
}
