//! Memory spaces of the PTX machine model and the faults their accesses raise.
//!
//! - [`GlobalMemory`] holds allocations (kernel buffers, `__device__` symbols)
//!   placed at distinct, aligned, well-separated addresses, so that an access
//!   past the end of one never lands silently in another.
//! - [`Region`] is a flat, bounded byte space with named symbols, used for
//!   shared (per CTA), local (per thread), param and const memory.
//! - The generic address space ([`generic`]) maps windows of generic
//!   addresses to shared, local, param and const; everything else is global.

pub mod generic;
mod global;
mod region;

use std::fmt;

pub use global::{Allocation, GLOBAL_BASE_32, GlobalMemory};
pub use region::{Region, Symbol};

/// A PTX state space that holds data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
    Const,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Shared => "shared",
            Self::Local => "local",
            Self::Param => "param",
            Self::Const => "const",
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What went wrong with an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemFaultKind {
    OutOfBounds,
    /// The address is not a multiple of the access's natural alignment.
    Misaligned {
        align: u32,
    },
    /// A store to a read-only space (const, kernel param).
    ReadOnly,
}

/// The allocation (or symbol) nearest to a faulting address, to say where the
/// access probably meant to go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    pub name: String,
    pub base: u64,
    pub len: u64,
}

/// A faulting memory access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemFault {
    pub space: Space,
    pub kind: MemFaultKind,
    pub write: bool,
    pub addr: u64,
    pub size: u32,
    pub nearest: Option<Nearest>,
}

impl fmt::Display for MemFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.write { "store" } else { "load" };
        match self.kind {
            MemFaultKind::OutOfBounds => write!(
                f,
                "out-of-bounds {} {op} of {} bytes at {:#x}",
                self.space, self.size, self.addr
            )?,
            MemFaultKind::Misaligned { align } => write!(
                f,
                "misaligned {} {op} of {} bytes at {:#x} (needs {align}-byte alignment)",
                self.space, self.size, self.addr
            )?,
            MemFaultKind::ReadOnly => write!(
                f,
                "{op} to read-only {} memory at {:#x}",
                self.space, self.addr
            )?,
        }
        if let Some(n) = &self.nearest {
            let end = n.base.saturating_add(n.len);
            let rel = if self.addr >= end {
                format!("{} bytes past the end of", self.addr - end)
            } else if self.addr < n.base {
                format!("{} bytes before", n.base - self.addr)
            } else {
                format!("at offset {} of", self.addr - n.base)
            };
            write!(
                f,
                "; {rel} `{}` [{:#x}, {:#x}), {} bytes",
                n.name, n.base, end, n.len
            )?;
        }
        Ok(())
    }
}

/// Check natural alignment; `align` is a power of two.
pub(crate) fn check_align(
    space: Space,
    addr: u64,
    size: usize,
    align: u32,
    write: bool,
) -> Result<(), MemFault> {
    if align > 1 && addr & (align as u64 - 1) != 0 {
        return Err(MemFault {
            space,
            kind: MemFaultKind::Misaligned { align },
            write,
            addr,
            size: size as u32,
            nearest: None,
        });
    }
    Ok(())
}
