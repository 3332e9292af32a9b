//! The generic address space. Each non-global space is seen through a window
//! of 2^32 bytes at a fixed generic base; any other generic address is global.
//! Global allocations are placed below the first window (see `GlobalMemory`),
//! so a generic pointer always names exactly one space.
//!
//! `.address_size 32` modules hold generic addresses in 32 bits, so they get
//! their own map ([`Width::A32`]): 256 MiB windows from [`WINDOWS_32`] up
//! (every space is at most 16 MiB, see `layout::MAX_SPACE_BYTES`), global
//! allocations below them.

use super::Space;

/// Window size: every non-global space is smaller than 4 GiB.
pub const WINDOW: u64 = 1 << 32;
pub const SHARED_BASE: u64 = 0x0001_0000_0000_0000;
pub const LOCAL_BASE: u64 = 0x0002_0000_0000_0000;
pub const PARAM_BASE: u64 = 0x0003_0000_0000_0000;
pub const CONST_BASE: u64 = 0x0004_0000_0000_0000;
/// First window of the 32-bit map; global memory ends below it.
pub const WINDOWS_32: u64 = 0xC000_0000;
const WINDOW_32: u64 = 1 << 28;

/// Which generic map a module uses (its `.address_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Width {
    #[default]
    A64,
    A32,
}

impl Width {
    fn window(self) -> u64 {
        match self {
            Width::A64 => WINDOW,
            Width::A32 => WINDOW_32,
        }
    }

    fn base(self, space: Space) -> Option<u64> {
        let k = match space {
            Space::Global => return None,
            Space::Shared => 0,
            Space::Local => 1,
            Space::Param => 2,
            Space::Const => 3,
        };
        Some(match self {
            Width::A64 => [SHARED_BASE, LOCAL_BASE, PARAM_BASE, CONST_BASE][k],
            Width::A32 => WINDOWS_32 + k as u64 * WINDOW_32,
        })
    }

    /// `cvta.SPACE`: a space address to a generic one. Address 0 of shared or
    /// local memory is a valid location (the first variable), so it maps to the
    /// window base like any other address.
    pub fn to_generic(self, space: Space, addr: u64) -> u64 {
        match self.base(space) {
            Some(b) => b.wrapping_add(addr & (self.window() - 1)),
            None => addr,
        }
    }

    /// Which space a generic address points into, and the address in that space.
    pub fn resolve(self, addr: u64) -> (Space, u64) {
        for space in [Space::Shared, Space::Local, Space::Param, Space::Const] {
            if let Some(b) = self.base(space)
                && addr >= b
                && addr - b < self.window()
            {
                return (space, addr - b);
            }
        }
        (Space::Global, addr)
    }

    /// `cvta.to.SPACE`: a generic address to a space address. An address
    /// outside the window gets the window-size bit set, beyond every space,
    /// so it faults at the access (PTX leaves this undefined; a fault is the
    /// helpful outcome).
    pub fn from_generic(self, space: Space, addr: u64) -> u64 {
        let w = self.window();
        match self.base(space) {
            None => addr,
            Some(b) if addr >= b && addr - b < w => addr - b,
            Some(_) => addr | w,
        }
    }

    /// `isspacep.SPACE`.
    pub fn is_space(self, space: Space, addr: u64) -> bool {
        self.resolve(addr).0 == space
    }
}

/// [`Width::to_generic`] of 64-bit modules.
pub fn to_generic(space: Space, addr: u64) -> u64 {
    Width::A64.to_generic(space, addr)
}

/// [`Width::resolve`] of 64-bit modules.
pub fn resolve(addr: u64) -> (Space, u64) {
    Width::A64.resolve(addr)
}

/// [`Width::from_generic`] of 64-bit modules.
pub fn from_generic(space: Space, addr: u64) -> u64 {
    Width::A64.from_generic(space, addr)
}

/// [`Width::is_space`] of 64-bit modules.
pub fn is_space(space: Space, addr: u64) -> bool {
    Width::A64.is_space(space, addr)
}
