//! Compile options and their translation to NVRTC's command line.
//!
//! ptxperf compiles with `-lineinfo` by default: the PTX then carries `.loc`
//! directives, so the profile can attribute every PTX line back to a source
//! line. `-lineinfo` does not change the generated code, only adds line tables.

use std::path::PathBuf;

use crate::error::NvrtcError;

/// What to compile for and how. `Default` gives: no arch (NVRTC's default),
/// no defines, `-lineinfo` on, `--std=c++17`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// `sm_80`, `compute_80`, or `sm_90a`; always emitted as a virtual
    /// architecture (`--gpu-architecture=compute_80`), since ptxperf wants PTX.
    pub arch: Option<String>,
    /// `-D NAME` or `-D NAME=VALUE`, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`, in order (the CUDA headers' directory is one of them).
    pub include_dirs: Vec<PathBuf>,
    /// `-lineinfo` (default on).
    pub lineinfo: bool,
    /// `--std=...` (default `c++17`); `None` leaves NVRTC's default.
    pub std: Option<String>,
    /// Raw options passed after the others, unchecked.
    pub extra: Vec<String>,
    /// C++ name expressions (e.g. `transpose<16>`) whose mangled names NVRTC should report.
    pub name_expressions: Vec<String>,
    /// `.file` paths in the PTX under this directory are written relative to it
    /// (default: the current directory), so checked-in PTX does not depend on
    /// where the repository lives.
    pub path_base: Option<PathBuf>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: None,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            lineinfo: true,
            std: Some("c++17".to_string()),
            extra: Vec::new(),
            name_expressions: Vec::new(),
            path_base: None,
        }
    }
}

impl CompileOptions {
    /// Add a define given as `NAME` or `NAME=VALUE` (the CLI's `-D`).
    pub fn define(&mut self, text: &str) -> Result<(), NvrtcError> {
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.to_string())),
            None => (text.trim(), None),
        };
        if !is_identifier(name) {
            return Err(NvrtcError::InvalidOption(format!(
                "-D {text}: `{name}` is not a macro name"
            )));
        }
        self.defines.push((name.to_string(), value));
        Ok(())
    }

    /// The options as NVRTC receives them, in a fixed order: arch, std,
    /// lineinfo, defines, include directories, extra.
    pub fn to_args(&self) -> Result<Vec<String>, NvrtcError> {
        let mut args = Vec::new();
        if let Some(arch) = &self.arch {
            args.push(format!("--gpu-architecture={}", virtual_arch(arch)?));
        }
        if let Some(std) = &self.std {
            args.push(format!("--std={std}"));
        }
        if self.lineinfo {
            args.push("-lineinfo".to_string());
        }
        for (name, value) in &self.defines {
            if !is_identifier(name) {
                return Err(NvrtcError::InvalidOption(format!(
                    "`{name}` is not a macro name"
                )));
            }
            match value {
                Some(v) => args.push(format!("-D{name}={v}")),
                None => args.push(format!("-D{name}")),
            }
        }
        for dir in &self.include_dirs {
            args.push(format!("-I{}", dir.display()));
        }
        args.extend(self.extra.iter().cloned());
        Ok(args)
    }
}

/// `sm_80` / `compute_80` / `sm_90a` -> `compute_80` / `compute_90a`.
pub fn virtual_arch(arch: &str) -> Result<String, NvrtcError> {
    let digits = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"));
    let bad = || {
        NvrtcError::InvalidOption(format!(
            "architecture `{arch}`: expected sm_XX or compute_XX, e.g. sm_80"
        ))
    };
    let digits = digits.ok_or_else(bad)?;
    let (number, suffix) = match digits
        .strip_suffix('a')
        .or_else(|| digits.strip_suffix('f'))
    {
        Some(n) => (n, &digits[n.len()..]),
        None => (digits, ""),
    };
    if number.len() < 2 || number.len() > 3 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    Ok(format!("compute_{number}{suffix}"))
}

/// A C preprocessor identifier: letter or `_`, then letters, digits, `_`.
fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
