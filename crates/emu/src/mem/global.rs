//! Global memory: a sorted set of allocations with bounds.

use super::region::distance;
use super::{MemFault, MemFaultKind, Nearest, Space, check_align};

/// First global address handed out: clearly non-null and below every generic window.
pub const GLOBAL_BASE: u64 = 0x0000_0007_0000_0000;
/// The same for `.address_size 32` modules, whose pointers are 32 bits: global
/// allocations must end below [`super::generic::WINDOWS_32`].
pub const GLOBAL_BASE_32: u64 = 0x1000_0000;
/// Allocations are aligned like `cudaMalloc`'s (256 bytes) and separated by
/// at least this many unmapped bytes, so that small overruns fault.
const ALIGN: u64 = 256;
const GUARD: u64 = 4096;

/// One global allocation: a kernel buffer or a module `.global` symbol.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub name: String,
    pub base: u64,
    pub data: Vec<u8>,
}

/// All global allocations, sorted by base address.
#[derive(Debug, Clone)]
pub struct GlobalMemory {
    allocs: Vec<Allocation>,
    next: u64,
    /// The places (`exec::idle`'s bits) a run for addresses alone wrote
    /// values to that it had not computed.
    stale: u64,
}

impl Default for GlobalMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl GlobalMemory {
    pub fn new() -> Self {
        Self::with_base(GLOBAL_BASE)
    }

    /// Allocations from `base` up ([`GLOBAL_BASE_32`] for 32-bit modules).
    pub fn with_base(base: u64) -> Self {
        Self {
            allocs: Vec::new(),
            next: base,
            stale: 0,
        }
    }

    /// The places written with values not computed (`exec::idle`).
    #[inline]
    pub(crate) fn stale(&self) -> u64 {
        self.stale
    }

    /// Marks `places` as written with values not computed.
    pub(crate) fn mark_stale(&mut self, places: u64) {
        self.stale |= places;
    }

    /// One past the end of the last allocation.
    pub fn end(&self) -> u64 {
        self.allocs
            .last()
            .map_or(self.next, |a| a.base + a.data.len() as u64)
    }

    /// Place `data` at a fresh address and return it.
    pub fn alloc(&mut self, name: &str, data: Vec<u8>) -> u64 {
        let base = self.next;
        let len = data.len() as u64;
        self.next = (base + len + GUARD).div_ceil(ALIGN) * ALIGN;
        self.allocs.push(Allocation {
            name: name.to_string(),
            base,
            data,
        });
        base
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    /// The `i`-th allocation, mutably (merging parallel results).
    pub fn allocation_mut(&mut self, i: usize) -> Option<&mut Allocation> {
        self.allocs.get_mut(i)
    }

    pub fn allocation(&self, name: &str) -> Option<&Allocation> {
        self.allocs.iter().find(|a| a.name == name)
    }

    /// Index of the allocation holding [addr, addr+size) and the offset in it.
    #[inline]
    pub fn locate(&self, addr: u64, size: usize, write: bool) -> Result<(usize, usize), MemFault> {
        // Allocations are pushed with increasing bases, so the list is sorted.
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i > 0 {
            let a = &self.allocs[i - 1];
            let off = addr - a.base;
            if off
                .checked_add(size as u64)
                .is_some_and(|end| end <= a.data.len() as u64)
            {
                return Ok((i - 1, off as usize));
            }
        }
        Err(self.fault(addr, size, write))
    }

    fn fault(&self, addr: u64, size: usize, write: bool) -> MemFault {
        let nearest = self
            .allocs
            .iter()
            .min_by_key(|a| distance(addr, a.base, a.data.len() as u64))
            .map(|a| Nearest {
                name: a.name.clone(),
                base: a.base,
                len: a.data.len() as u64,
            });
        MemFault {
            space: Space::Global,
            kind: MemFaultKind::OutOfBounds,
            write,
            addr,
            size: size as u32,
            nearest,
        }
    }

    #[inline]
    pub fn read(&self, addr: u64, out: &mut [u8], align: u32) -> Result<(), MemFault> {
        check_align(Space::Global, addr, out.len(), align, false)?;
        let (i, off) = self.locate(addr, out.len(), false)?;
        out.copy_from_slice(&self.allocs[i].data[off..off + out.len()]);
        Ok(())
    }

    #[inline]
    pub fn write(&mut self, addr: u64, bytes: &[u8], align: u32) -> Result<(), MemFault> {
        check_align(Space::Global, addr, bytes.len(), align, true)?;
        let (i, off) = self.locate(addr, bytes.len(), true)?;
        self.allocs[i].data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Mutable bytes at [addr, addr+size): for read-modify-write (atomics).
    #[inline]
    pub fn bytes_mut(&mut self, addr: u64, size: usize, align: u32) -> Result<&mut [u8], MemFault> {
        check_align(Space::Global, addr, size, align, true)?;
        let (i, off) = self.locate(addr, size, true)?;
        Ok(&mut self.allocs[i].data[off..off + size])
    }
}
