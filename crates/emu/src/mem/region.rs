//! A flat, bounded byte space: shared memory of a CTA, local memory of a
//! thread, the kernel's parameter block, the constant bank.

use super::{MemFault, MemFaultKind, Nearest, Space, check_align};

/// A named range inside a region (a `.shared` array, a `.const` symbol, a param).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub offset: u64,
    pub len: u64,
}

/// Addresses are offsets from 0; every access is checked against the size.
#[derive(Debug, Clone)]
pub struct Region {
    space: Space,
    data: Vec<u8>,
    writable: bool,
    symbols: Vec<Symbol>,
}

impl Region {
    pub fn new(space: Space, size: usize, writable: bool) -> Self {
        Self {
            space,
            data: vec![0; size],
            writable,
            symbols: Vec::new(),
        }
    }

    pub fn space(&self) -> Space {
        self.space
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The contents, mutably (for the executor's bounds-checked fast paths;
    /// writability is the caller's check: only shared memory goes there).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    /// Declare a symbol at `offset` (for fault messages and symbol lookup).
    pub fn add_symbol(&mut self, name: &str, offset: u64, len: u64) {
        self.symbols.push(Symbol {
            name: name.to_string(),
            offset,
            len,
        });
    }

    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// Make the region at least `size` bytes long (a thread's local stack
    /// growing with a call); new bytes are zero.
    pub fn grow(&mut self, size: usize) {
        if size > self.data.len() {
            self.data.resize(size, 0);
        }
    }

    /// Zero the contents (a fresh CTA's shared memory), keeping the symbols.
    pub fn clear(&mut self) {
        self.data.fill(0);
    }

    /// Write without the read-only check: loading module constants and params.
    pub fn init(&mut self, offset: u64, bytes: &[u8]) -> Result<(), MemFault> {
        let range = self.range(offset, bytes.len(), true)?;
        self.data[range].copy_from_slice(bytes);
        Ok(())
    }

    fn fault(&self, addr: u64, size: usize, write: bool) -> MemFault {
        let nearest = self
            .symbols
            .iter()
            .min_by_key(|s| distance(addr, s.offset, s.len))
            .map(|s| Nearest {
                name: s.name.clone(),
                base: s.offset,
                len: s.len,
            })
            .or_else(|| {
                Some(Nearest {
                    name: format!("{} memory", self.space),
                    base: 0,
                    len: self.data.len() as u64,
                })
            });
        MemFault {
            space: self.space,
            kind: MemFaultKind::OutOfBounds,
            write,
            addr,
            size: size as u32,
            nearest,
        }
    }

    fn range(
        &self,
        addr: u64,
        size: usize,
        write: bool,
    ) -> Result<std::ops::Range<usize>, MemFault> {
        let end = addr
            .checked_add(size as u64)
            .filter(|&e| e <= self.data.len() as u64);
        match end {
            Some(end) => Ok(addr as usize..end as usize),
            None => Err(self.fault(addr, size, write)),
        }
    }

    /// Read `out.len()` bytes at `addr`, which must be `align`-aligned.
    #[inline]
    pub fn read(&self, addr: u64, out: &mut [u8], align: u32) -> Result<(), MemFault> {
        check_align(self.space, addr, out.len(), align, false)?;
        let range = self.range(addr, out.len(), false)?;
        out.copy_from_slice(&self.data[range]);
        Ok(())
    }

    #[inline]
    pub fn write(&mut self, addr: u64, bytes: &[u8], align: u32) -> Result<(), MemFault> {
        check_align(self.space, addr, bytes.len(), align, true)?;
        if !self.writable {
            return Err(MemFault {
                space: self.space,
                kind: MemFaultKind::ReadOnly,
                write: true,
                addr,
                size: bytes.len() as u32,
                nearest: None,
            });
        }
        let range = self.range(addr, bytes.len(), true)?;
        self.data[range].copy_from_slice(bytes);
        Ok(())
    }
}

/// Distance from `addr` to the range [base, base+len); 0 inside.
pub(crate) fn distance(addr: u64, base: u64, len: u64) -> u64 {
    if addr < base {
        base - addr
    } else {
        addr.saturating_sub(base.saturating_add(len).saturating_sub(1))
    }
}
