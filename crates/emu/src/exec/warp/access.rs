//! Per-lane memory accesses of a warp, in whatever space the op names; a
//! generic address is resolved lane by lane.

use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::L;
use crate::exec::ops::{Addr, MemSpace};
use crate::mem::generic::{Width, resolve};
use crate::mem::{MemFault, MemFaultKind, Space};
use crate::simt::WARP_SIZE;

/// The concrete space and address an access goes to.
#[inline]
pub(super) fn target(space: MemSpace, addr: u64) -> (Space, u64) {
    match space {
        MemSpace::Generic => resolve(addr),
        MemSpace::Generic32 => Width::A32.resolve(addr),
        MemSpace::Global => (Space::Global, addr),
        MemSpace::Shared => (Space::Shared, addr),
        MemSpace::Local => (Space::Local, addr),
        MemSpace::Param => (Space::Param, addr),
        MemSpace::Const => (Space::Const, addr),
    }
}

impl Warp {
    /// Effective address of every lane.
    pub(super) fn addrs(&self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, a: &Addr) -> L {
        // Borrowed, not copied: every memory instruction comes here.
        let base_op = self.operand(lx, cta, a.base);
        let base = &*base_op;
        let mut out = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            out[l] = base[l].wrapping_add(a.offset as u64);
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_lane(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        space: MemSpace,
        lane: usize,
        addr: u64,
        buf: &mut [u8],
        align: u32,
    ) -> Result<(), MemFault> {
        let (space, a) = target(space, addr);
        match space {
            Space::Global => cta.global.read(a, buf, align),
            Space::Shared => cta.shared.read(a, buf, align),
            Space::Local => self.local[lane].read(a, buf, align),
            Space::Param => lx.params.read(a, buf, align),
            Space::Const => lx.consts.read(a, buf, align),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_lane(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        space: MemSpace,
        lane: usize,
        addr: u64,
        bytes: &[u8],
        align: u32,
    ) -> Result<(), MemFault> {
        let (space, a) = target(space, addr);
        match space {
            Space::Global => cta.global.write(a, bytes, align),
            Space::Shared => cta.shared.write(a, bytes, align),
            Space::Local => self.local[lane].write(a, bytes, align),
            // Kernel parameters and constants are read-only.
            Space::Param | Space::Const => {
                let _ = lx;
                Err(MemFault {
                    space,
                    kind: MemFaultKind::ReadOnly,
                    write: true,
                    addr: a,
                    size: bytes.len() as u32,
                    nearest: None,
                })
            }
        }
    }
}
