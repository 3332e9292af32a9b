//! The event interface between the emulator and whoever watches it (the
//! `profile` crate's collector). The executor is generic over the observer,
//! so the default methods of [`NoObserver`] compile away to nothing.
//!
//! Instructions are identified by function index and instruction index in
//! the IR (`func`, `pc`), plus the PTX source line, so an observer can look
//! up anything else (opcode class, operands) in the module it already has.

use crate::mem::Space;
use crate::simt::{Mask, WARP_SIZE};

/// Where an event happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    /// Linear CTA index (x + y*nx + z*nx*ny).
    pub cta: u32,
    /// Warp index within the CTA.
    pub warp: u32,
    pub func: u32,
    pub pc: u32,
    /// 1-based PTX line (0 when unknown).
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    /// Read-modify-write (`atom`, `red`).
    Atomic,
}

/// A warp-wide memory access: one address per active lane.
#[derive(Debug, Clone, Copy)]
pub struct MemEvent<'a> {
    pub site: Site,
    pub space: Space,
    pub kind: AccessKind,
    /// Bytes accessed per lane.
    pub size: u32,
    pub active: Mask,
    pub addrs: &'a [u64; WARP_SIZE],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchEvent {
    pub site: Site,
    pub active: Mask,
    pub taken: Mask,
    /// Some active lanes went each way.
    pub divergent: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierKind {
    Sync,
    Arrive,
    Red,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierEvent {
    pub site: Site,
    pub kind: BarrierKind,
    pub barrier: u32,
    pub active: Mask,
}

/// Receives the events of a launch. Every method has an empty default.
pub trait Observer {
    /// False only for observers that ignore every event: a launch may then
    /// run CTAs on several host threads (events would arrive out of order).
    const WATCHES: bool = true;

    /// A warp instruction issued with `active` lanes (predicated-off lanes excluded).
    #[inline]
    fn instruction(&mut self, _site: Site, _active: Mask) {}
    #[inline]
    fn memory(&mut self, _event: &MemEvent<'_>) {}
    #[inline]
    fn branch(&mut self, _event: &BranchEvent) {}
    #[inline]
    fn barrier(&mut self, _event: &BarrierEvent) {}
    /// The reconvergence stack of a warp changed depth.
    #[inline]
    fn stack_depth(&mut self, _cta: u32, _warp: u32, _depth: u32) {}
    #[inline]
    fn cta_begin(&mut self, _cta: u32) {}
    #[inline]
    fn cta_end(&mut self, _cta: u32) {}
}

/// Watches nothing, costs nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const WATCHES: bool = false;
}

impl<O: Observer + ?Sized> Observer for &mut O {
    const WATCHES: bool = O::WATCHES;
    fn instruction(&mut self, site: Site, active: Mask) {
        (**self).instruction(site, active)
    }
    fn memory(&mut self, event: &MemEvent<'_>) {
        (**self).memory(event)
    }
    fn branch(&mut self, event: &BranchEvent) {
        (**self).branch(event)
    }
    fn barrier(&mut self, event: &BarrierEvent) {
        (**self).barrier(event)
    }
    fn stack_depth(&mut self, cta: u32, warp: u32, depth: u32) {
        (**self).stack_depth(cta, warp, depth)
    }
    fn cta_begin(&mut self, cta: u32) {
        (**self).cta_begin(cta)
    }
    fn cta_end(&mut self, cta: u32) {
        (**self).cta_end(cta)
    }
}
