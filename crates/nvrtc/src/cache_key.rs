//! The key under which a PTX cache stores one compilation: everything the
//! PTX depends on that the caller controls, so two compilations that could
//! give different PTX never share an entry.
//!
//! One function for every cache (`ptxperf validate` and `ptxperf tune`
//! share theirs on disk), so their keys cannot drift apart. The NVRTC
//! version is the library's own answer (`nvrtcVersion`), not an assumed
//! major: PTX from NVRTC 13 is never served to a run with NVRTC 12. The
//! contents of included headers are not part of the key (the CUDA headers
//! come with the NVRTC they belong to; a project header that changes needs
//! a fresh cache), except ptxperf's own standard headers
//! ([`crate::std_headers`]), which come with ptxperf: a digest of them is.

use std::fmt::Write as _;

use crate::compile::Compiler;
use crate::error::NvrtcError;
use crate::options::CompileOptions;

/// Bumped when the key's layout changes (old entries then stop matching).
const LAYOUT: &str = "ptxperf-ptx-key 3";

/// The cache key of compiling `source` as program `name` with `options`
/// by NVRTC `version` (major, minor). Each field is on its own line with a
/// length where its text may hold newlines, so no two inputs share a key.
pub fn cache_key(
    version: (i32, i32),
    source: &str,
    name: &str,
    options: &CompileOptions,
) -> Result<String, NvrtcError> {
    let (major, minor) = version;
    let mut key = format!("{LAYOUT}\nnvrtc {major}.{minor}\n");
    // The command line NVRTC receives (arch, std, lineinfo, defines,
    // include directories, extra options), then what is not on it.
    for arg in options.to_args()? {
        field(&mut key, "arg", &arg);
    }
    for expr in &options.name_expressions {
        field(&mut key, "name-expression", expr);
    }
    if let Some(base) = &options.path_base {
        field(&mut key, "path-base", &base.display().to_string());
    }
    field(&mut key, "std-headers", crate::std_headers::digest());
    field(&mut key, "name", name);
    field(&mut key, "source", source);
    Ok(key)
}

/// `label length\ntext\n`: the length makes the field's end unambiguous.
fn field(key: &mut String, label: &str, text: &str) {
    // Writing to a String cannot fail.
    let _ = writeln!(key, "{label} {}", text.len());
    key.push_str(text);
    key.push('\n');
}

impl Compiler {
    /// [`cache_key`] with this compiler's NVRTC version.
    pub fn cache_key(
        &self,
        source: &str,
        name: &str,
        options: &CompileOptions,
    ) -> Result<String, NvrtcError> {
        cache_key(self.nvrtc().version()?, source, name, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(version: (i32, i32), source: &str, options: &CompileOptions) -> String {
        cache_key(version, source, "k.cu", options).expect("valid options")
    }

    #[test]
    fn the_version_is_part_of_the_key() {
        let o = CompileOptions::default();
        assert_ne!(key((12, 9), "x", &o), key((13, 0), "x", &o));
        assert_ne!(key((12, 9), "x", &o), key((12, 8), "x", &o));
        assert_eq!(key((12, 9), "x", &o), key((12, 9), "x", &o));
    }

    #[test]
    fn source_name_and_every_option_are_part_of_the_key() {
        let o = CompileOptions::default();
        let base = key((12, 9), "x", &o);
        assert_ne!(base, key((12, 9), "y", &o));
        assert_ne!(
            base,
            cache_key((12, 9), "x", "other.cu", &o).expect("valid options")
        );
        let variants: Vec<CompileOptions> = vec![
            CompileOptions {
                arch: Some("sm_80".into()),
                ..o.clone()
            },
            CompileOptions {
                lineinfo: false,
                ..o.clone()
            },
            CompileOptions {
                std: None,
                ..o.clone()
            },
            CompileOptions {
                defines: vec![("N".into(), Some("4".into()))],
                ..o.clone()
            },
            CompileOptions {
                include_dirs: vec!["inc".into()],
                ..o.clone()
            },
            CompileOptions {
                extra: vec!["-G".into()],
                ..o.clone()
            },
            CompileOptions {
                name_expressions: vec!["k<1>".into()],
                ..o.clone()
            },
            CompileOptions {
                path_base: Some("/src".into()),
                ..o.clone()
            },
        ];
        let mut keys: Vec<String> = variants.iter().map(|v| key((12, 9), "x", v)).collect();
        keys.push(base);
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "every option changes the key");
    }

    #[test]
    fn field_boundaries_cannot_be_forged() {
        // A source that spells the next field must not equal a real one.
        let o = CompileOptions::default();
        let a = cache_key((12, 9), "x\nname 1\ny", "k.cu", &o).expect("valid");
        let b = cache_key((12, 9), "x", "k.cu\nname 1\ny", &o).expect("valid");
        assert_ne!(a, b);
    }

    #[test]
    fn invalid_options_are_an_error() {
        let o = CompileOptions {
            arch: Some("ampere".into()),
            ..CompileOptions::default()
        };
        assert!(cache_key((12, 9), "x", "k.cu", &o).is_err());
    }
}
