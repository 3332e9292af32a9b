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

#[cfg(test)]
mod tests {
    use super::is_mangled_name_of;

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
