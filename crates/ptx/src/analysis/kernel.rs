//! Finding a kernel by the name a user types.
//!
//! Kernels with C++ linkage carry mangled names (`_Z5saxpyifPfS_`). A name
//! matches a kernel exactly, or, when nothing matches exactly, as the plain
//! name of an Itanium-mangled free function `_Z<len><name>...`.

use crate::ir::{Function, Handle, Module};

/// The outcome of looking a kernel up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelLookup {
    Found(Handle<Function>),
    /// No kernel of that name; the names of all kernels, in declaration order.
    NotFound {
        available: Vec<String>,
    },
    /// Several mangled kernels have that plain name (overloads).
    Ambiguous {
        candidates: Vec<String>,
    },
}

/// Whether `mangled` is `_Z<len><plain>...` with `len == plain.len()`.
pub fn is_mangled_name_of(mangled: &str, plain: &str) -> bool {
    let Some(rest) = mangled.strip_prefix("_Z") else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (len, name) = rest.split_at(digits);
    len.parse::<usize>().ok() == Some(plain.len()) && name.starts_with(plain) && !plain.is_empty()
}

/// Find the kernel (`.entry`) called `name`.
pub fn find_kernel(module: &Module, name: &str) -> KernelLookup {
    if let Some((h, _)) = module.entries().find(|(_, f)| f.name == name) {
        return KernelLookup::Found(h);
    }
    let matches: Vec<(Handle<Function>, &Function)> = module
        .entries()
        .filter(|(_, f)| is_mangled_name_of(&f.name, name))
        .collect();
    match matches.as_slice() {
        [(h, _)] => KernelLookup::Found(*h),
        [] => KernelLookup::NotFound {
            available: module.entries().map(|(_, f)| f.name.clone()).collect(),
        },
        many => KernelLookup::Ambiguous {
            candidates: many.iter().map(|(_, f)| f.name.clone()).collect(),
        },
    }
}

/// Why no single function was selected by [`select_function`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// No name given and the module has no kernel.
    #[error("the module has no kernel")]
    NoKernel,
    /// No name given and the module has several kernels (their names).
    #[error("the module has several kernels: {}", .0.join(", "))]
    SeveralKernels(Vec<String>),
    /// Several kernels have that plain name (overloads).
    #[error("`{name}` matches several kernels: {}; give the full name", candidates.join(", "))]
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    /// No kernel or function with a body is called that (the kernels' names).
    #[error(
        "no kernel named `{name}`; available kernels: {}",
        none_if_empty(available)
    )]
    NotFound {
        name: String,
        available: Vec<String>,
    },
}

fn none_if_empty(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The function a tool shows: the kernel called `name` (plain names of C++
/// kernels accepted), else a `.func` with a body called exactly that (or
/// mangled from it, when only one is); without a name, the only kernel.
pub fn select_function(
    module: &Module,
    name: Option<&str>,
) -> Result<Handle<Function>, SelectError> {
    let available = || {
        module
            .entries()
            .map(|(_, f)| f.name.clone())
            .collect::<Vec<_>>()
    };
    let Some(name) = name else {
        let entries: Vec<_> = module.entries().collect();
        return match entries.as_slice() {
            [(h, _)] => Ok(*h),
            [] => Err(SelectError::NoKernel),
            _ => Err(SelectError::SeveralKernels(available())),
        };
    };
    match find_kernel(module, name) {
        KernelLookup::Found(h) => Ok(h),
        KernelLookup::Ambiguous { candidates } => Err(SelectError::Ambiguous {
            name: name.to_string(),
            candidates,
        }),
        KernelLookup::NotFound { .. } => {
            let funcs: Vec<Handle<Function>> = module
                .functions
                .iter()
                .filter(|(_, f)| {
                    f.has_body && (f.name == name || is_mangled_name_of(&f.name, name))
                })
                .map(|(h, _)| h)
                .collect();
            match funcs.as_slice() {
                [h] => Ok(*h),
                _ => Err(SelectError::NotFound {
                    name: name.to_string(),
                    available: available(),
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SelectError, is_mangled_name_of, select_function};

    #[test]
    fn selection_by_plain_name_body_or_uniqueness() {
        let text = ".version 8.5\n.target sm_80\n.address_size 64\n\
            .func helper()\n{\n\tret;\n}\n\
            .visible .entry _Z4testPf(.param .u64 p)\n{\n\tret;\n}\n\
            .visible .entry other()\n{\n\tret;\n}\n";
        let m =
            crate::parse("t.ptx", text).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", text)));
        let name = |n: Option<&str>| {
            select_function(&m, n).map(|h| m.functions.get(h).map(|f| f.name.clone()))
        };
        assert_eq!(name(Some("test")), Ok(Some("_Z4testPf".into())));
        assert_eq!(name(Some("helper")), Ok(Some("helper".into())));
        assert_eq!(
            name(None),
            Err(SelectError::SeveralKernels(vec![
                "_Z4testPf".into(),
                "other".into()
            ]))
        );
        let err = name(Some("nope")).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("no kernel named `nope`; available kernels: _Z4testPf, other")
        );
    }

    #[test]
    fn mangled_names() {
        for (mangled, plain, want) in [
            ("_Z5saxpyifPfS_", "saxpy", true),
            ("_Z5saxpyifPfS_", "sax", false),
            ("_Z6saxpy2PKf", "saxpy", false),
            ("_Z10transposeiPf", "transpose", false),
            ("_Z9transposePf", "transpose", true),
            ("saxpy", "saxpy", false),
            ("_Z", "", false),
            ("_Zx", "x", false),
        ] {
            assert_eq!(
                is_mangled_name_of(mangled, plain),
                want,
                "{mangled} vs {plain}"
            );
        }
    }
}
