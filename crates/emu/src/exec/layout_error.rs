//! [`LayoutError`]: why a module cannot be laid out for emulation. The launch
//! turns it into a launch fault with this text.

use super::layout::MAX_SPACE_BYTES;
use crate::mem::MemFault;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("variable `{name}` is larger than {MAX_SPACE_BYTES} bytes")]
    VariableTooLarge { name: String },
    #[error("variable `{name}` of `{function}` is larger than {MAX_SPACE_BYTES} bytes")]
    LocalTooLarge { name: String, function: String },
    #[error("static shared or constant memory exceeds {MAX_SPACE_BYTES} bytes")]
    StaticSpaces,
    /// An initializer names a symbol that was given no address.
    #[error("`{name}` has no address in the emulator")]
    NoAddress { name: String },
    #[error("{symbol:?} is not a module-scope symbol")]
    NotModuleScope { symbol: ptx::Symbol },
    /// A variable's initializer refers to a symbol without an address.
    #[error("the initializer of `{name}`: {reason}")]
    Initializer {
        name: String,
        reason: Box<LayoutError>,
    },
    /// Placement should make every initializer fit: an emulator bug.
    #[error("the initializer of `{name}`: {fault}")]
    InitializerWrite { name: String, fault: MemFault },
}
