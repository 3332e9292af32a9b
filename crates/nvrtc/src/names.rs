//! C++ entry names: the plain name of an Itanium-mangled symbol, and finding a
//! kernel by the name a user would write.
//!
//! Only the part of the Itanium C++ ABI that names a function is decoded:
//! `_Z <len><id> [template args] <params>` and `_Z N <len><id>... E <params>`,
//! with template arguments skipped (they may sit between nested components).
//! Parameter types are not needed to name a kernel, so they are not decoded.

use std::fmt;

/// The plain (qualified, unmangled, without template arguments or parameters)
/// name of an entry: `_Z18convolution_kernelPfS_S_` -> `convolution_kernel`,
/// `_ZN2ns6kernelEPf` -> `ns::kernel`, `_Z9transposeILi16EEvPfPKf` -> `transpose`.
/// A name that is not mangled (an `extern "C"` kernel), or not understood, is
/// returned unchanged.
pub fn plain_name(entry: &str) -> String {
    demangle_components(entry)
        .map(|parts| parts.join("::"))
        .unwrap_or_else(|| entry.to_string())
}

/// The name components of a mangled function name, or `None`.
fn demangle_components(entry: &str) -> Option<Vec<String>> {
    let rest = entry.strip_prefix("_Z")?;
    let mut c = Cursor {
        s: rest.as_bytes(),
        i: 0,
    };
    if c.peek() == Some(b'L') {
        c.i += 1; // internal linkage (`static`)
    }
    if c.peek() == Some(b'N') {
        c.i += 1;
        while matches!(c.peek(), Some(b'r' | b'V' | b'K')) {
            c.i += 1; // cv-qualifiers of a member function
        }
        let mut parts = Vec::new();
        loop {
            match c.peek()? {
                b'E' => break,
                b'I' => c.skip_template_args()?,
                b'0'..=b'9' => parts.push(c.source_name()?),
                b'S' if c.peek_at(1) == Some(b't') => {
                    c.i += 2;
                    parts.push("std".to_string());
                }
                _ => return None,
            }
        }
        if parts.is_empty() { None } else { Some(parts) }
    } else {
        let name = c.source_name()?;
        Some(vec![name])
    }
}

/// A position in the mangled text.
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    /// A decimal length.
    fn number(&mut self) -> Option<usize> {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    /// `<len><identifier>`.
    fn source_name(&mut self) -> Option<String> {
        let len = self.number()?;
        if len == 0 {
            return None;
        }
        let end = self.i.checked_add(len)?;
        let id = std::str::from_utf8(self.s.get(self.i..end)?).ok()?;
        self.i = end;
        Some(id.to_string())
    }

    /// Skip `I ... E`, balancing nested argument lists, nested names, literals
    /// (`Li16E`), expressions and packs, and stepping over `<len><id>` names
    /// and substitutions so their characters are not taken for structure.
    fn skip_template_args(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            let b = self.peek()?;
            match b {
                b'I' | b'N' | b'X' | b'J' => {
                    depth += 1;
                    self.i += 1;
                }
                b'L' => {
                    // A literal: L <type> <value> E, or L _Z <encoding> E.
                    self.i += 1;
                    while self.peek()? != b'E' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                b'E' => {
                    depth = depth.checked_sub(1)?;
                    self.i += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
                b'0'..=b'9' => {
                    self.source_name()?;
                }
                b'S' | b'T' => {
                    // S_, S0_, T_, T1_ ... or St, Sa, Ss ...
                    self.i += 1;
                    if self.peek().is_some_and(|c| c.is_ascii_lowercase()) {
                        self.i += 1;
                    } else {
                        while self.peek()? != b'_' {
                            self.i += 1;
                        }
                        self.i += 1;
                    }
                }
                b'D' => self.i += 2, // Dh, Dn, Dp ...
                _ => self.i += 1,
            }
        }
    }
}

/// Why a kernel name could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No entry has that name; `candidates` lists every entry as `mangled (plain)`.
    NotFound {
        wanted: String,
        candidates: Vec<String>,
    },
    /// Several entries share that plain name; give the mangled one.
    Ambiguous {
        wanted: String,
        matches: Vec<String>,
    },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::NotFound { wanted, candidates } if candidates.is_empty() => {
                write!(f, "no kernel named `{wanted}`: the module has no kernels")
            }
            ResolveError::NotFound { wanted, candidates } => {
                write!(
                    f,
                    "no kernel named `{wanted}`; the module has: {}",
                    candidates.join(", ")
                )
            }
            ResolveError::Ambiguous { wanted, matches } => {
                write!(
                    f,
                    "kernel name `{wanted}` is ambiguous, it matches: {}; give the mangled name",
                    matches.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for ResolveError {}

/// Find the entry the user means by `wanted`: the exact (mangled) name first,
/// then the plain name (`ns::kernel`), then the last component of the plain name
/// (`kernel`). Several matches at the first level that matches is an error.
pub fn resolve_kernel<'a, S: AsRef<str>>(
    entries: &'a [S],
    wanted: &str,
) -> Result<&'a str, ResolveError> {
    let names: Vec<&'a str> = entries.iter().map(AsRef::as_ref).collect();
    if names.contains(&wanted) {
        return Ok(wanted_in(&names, wanted));
    }
    let plains: Vec<String> = names.iter().map(|n| plain_name(n)).collect();
    let rules: [&dyn Fn(&str) -> bool; 2] = [&|p: &str| p == wanted, &|p: &str| {
        p.rsplit("::").next() == Some(wanted)
    }];
    for rule in rules {
        let hits: Vec<usize> = (0..names.len()).filter(|&i| rule(&plains[i])).collect();
        match hits.as_slice() {
            [] => continue,
            [one] => return Ok(names[*one]),
            many => {
                return Err(ResolveError::Ambiguous {
                    wanted: wanted.to_string(),
                    matches: many
                        .iter()
                        .map(|&i| describe(names[i], &plains[i]))
                        .collect(),
                });
            }
        }
    }
    Err(ResolveError::NotFound {
        wanted: wanted.to_string(),
        candidates: names
            .iter()
            .zip(&plains)
            .map(|(n, p)| describe(n, p))
            .collect(),
    })
}

/// The entry equal to `wanted`, borrowed from the entries (so its lifetime is theirs).
fn wanted_in<'a>(names: &[&'a str], wanted: &str) -> &'a str {
    names
        .iter()
        .copied()
        .find(|n| *n == wanted)
        .unwrap_or_default()
}

fn describe(name: &str, plain: &str) -> String {
    if name == plain {
        name.to_string()
    } else {
        format!("{name} ({plain})")
    }
}
