//! The generic address space. Each non-global space is seen through a window
//! of 2^32 bytes at a fixed generic base; any other generic address is global.
//! Global allocations are placed below the first window (see `GlobalMemory`),
//! so a generic pointer always names exactly one space.

use super::Space;

/// Window size: every non-global space is smaller than 4 GiB.
pub const WINDOW: u64 = 1 << 32;
pub const SHARED_BASE: u64 = 0x0001_0000_0000_0000;
pub const LOCAL_BASE: u64 = 0x0002_0000_0000_0000;
pub const PARAM_BASE: u64 = 0x0003_0000_0000_0000;
pub const CONST_BASE: u64 = 0x0004_0000_0000_0000;

fn base(space: Space) -> Option<u64> {
    match space {
        Space::Global => None,
        Space::Shared => Some(SHARED_BASE),
        Space::Local => Some(LOCAL_BASE),
        Space::Param => Some(PARAM_BASE),
        Space::Const => Some(CONST_BASE),
    }
}

/// `cvta.SPACE`: a space address to a generic one. Address 0 of shared or
/// local memory is a valid location (the first variable), so it maps to the
/// window base like any other address.
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match base(space) {
        Some(b) => b.wrapping_add(addr & (WINDOW - 1)),
        None => addr,
    }
}

/// Which space a generic address points into, and the address in that space.
pub fn resolve(addr: u64) -> (Space, u64) {
    for space in [Space::Shared, Space::Local, Space::Param, Space::Const] {
        if let Some(b) = base(space)
            && addr >= b
            && addr - b < WINDOW
        {
            return (space, addr - b);
        }
    }
    (Space::Global, addr)
}

/// `cvta.to.SPACE`: a generic address to a space address. An address outside
/// the window keeps its low 32 bits, which then faults at the access (PTX
/// leaves this undefined; a fault is the helpful outcome).
pub fn from_generic(space: Space, addr: u64) -> u64 {
    match base(space) {
        None => addr,
        Some(b) if addr >= b && addr - b < WINDOW => addr - b,
        Some(_) => addr | WINDOW,
    }
}

/// `isspacep.SPACE`.
pub fn is_space(space: Space, addr: u64) -> bool {
    resolve(addr).0 == space
}
