//! nvrtc: CUDA C++ to PTX with NVIDIA's runtime compiler, loaded at run time.
//!
//! No CUDA toolkit and no GPU are needed: the library comes from the PyPI wheel
//! `nvidia-cuda-nvrtc-cu12` (installed into the project's `.venv` by
//! `bash scripts/setup.sh`) or any other NVRTC 12 on the machine.
//!
//! A short tour:
//! - [`locate`]: where `libnvrtc.so.12` and the CUDA headers are searched, in
//!   order, with every step recorded for the error message;
//! - [`library`]: the loaded library, a safe wrapper over its C symbols;
//! - [`options`]: [`CompileOptions`] and their NVRTC command line (`-lineinfo`
//!   on by default);
//! - [`compile`]: [`Compiler`] = library + headers; `compile(source, name,
//!   options)` gives PTX and the log, or the log as an error;
//! - [`log`]: NVRTC's log parsed into `file:line:col` diagnostics;
//! - [`names`]: plain names of mangled C++ entries and kernel lookup by name;
//! - [`std_headers`]: `<cstdint>`, `<cmath>`, `<type_traits>` ... for NVRTC,
//!   which ships no standard library, backed by CCCL's libcu++;
//! - [`cache_key`]: the key of one compilation for a PTX cache (NVRTC
//!   version, options, source).
//!
//! Every failure is an [`NvrtcError`] value; nothing here panics on bad input
//! or on a missing library.

pub mod cache_key;
pub mod compile;
pub mod error;
pub mod library;
pub mod locate;
pub mod log;
pub mod names;
pub mod options;
pub mod std_headers;

pub use cache_key::cache_key;
pub use compile::{Compiled, Compiler, define_note};
pub use error::{INSTALL_HINT, NvrtcError};
pub use library::{Nvrtc, builtins_beside};
pub use locate::{Located, SearchContext, SearchStep, locate_headers, locate_library};
pub use log::{
    Diagnostic, Severity, define_collision_note, define_collisions, math_macro_note, parse_log,
    render_log,
};
pub use names::{ResolveError, plain_name, resolve_kernel};
pub use options::CompileOptions;
