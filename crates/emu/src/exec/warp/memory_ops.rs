//! The memory instructions of a warp: `ld`, `st`, `atom`/`red`, `cp.async`,
//! with fast paths for scalar global and shared accesses that stay inside
//! one allocation, and the per-lane path that reports faults.

use ptx::{AtomOp, Type};

use super::execute::{ExecResult, mem_err};
use super::{CtaState, LaunchCtx, RegFault, Warp};
use crate::exec::alu::{self, L};
use crate::exec::ops::*;
use crate::fault::FaultKind;
use crate::mem::Space;
use crate::observer::{AccessKind, MemEvent, Observer, Site};
use crate::simt::{Mask, WARP_SIZE, lanes};

impl Warp {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        space: &MemSpace,
        bytes: &u8,
        sext: &[u8],
        d: &[Option<R>],
        addr: &Addr,
        read: bool,
    ) -> ExecResult {
        let addrs = self.addrs(lx, cta, addr);
        let ext = |k: usize, raw: u64| widen(raw, *bytes, sext.get(k).copied().unwrap_or(0));
        let n = d.len();
        let size = *bytes as usize * n;
        let ev_space = access_space(*space, &addrs, exec);
        obs.memory(&MemEvent {
            site,
            space: ev_space,
            kind: AccessKind::Load,
            size: size as u32,
            active: exec,
            addrs: &addrs,
        });
        // Places written with values not computed (a run for addresses).
        let stale = if read && lx.idle.is_some() {
            cta.global.stale()
        } else {
            0
        };
        if (1..=MAX_FAST_VECTOR).contains(&n)
            && let Some((data, base)) = fast_region(cta, *space, &addrs, exec, size)
        {
            // Every lane lies in the region at `base`: its place alone.
            if stale != 0 {
                let place = match space {
                    MemSpace::Shared => crate::exec::idle::SHARED_PLACE,
                    _ => cta
                        .global
                        .locate(base, 1, false)
                        .map_or(0, |(i, _)| crate::exec::idle::global_place(i)),
                };
                if place & stale != 0 {
                    return Err(stale_read(exec));
                }
            }
            if !read {
                // Checked and requested; nothing needed reads the data.
                return Ok(());
            }
            // Straight into the registers: each result used to be gathered
            // into an array, returned and copied in (256 B a register;
            // 1 KiB more for a `.v4`), a tenth of a GEMM's emulation.
            let bytes = *bytes as usize;
            for (k, dst) in d.iter().enumerate() {
                let Some(dst) = *dst else { continue };
                let Some(r) = self.top_mut().regs.get_mut(dst as usize) else {
                    self.bad_reg(RegFault::Write(dst), ());
                    continue;
                };
                for l in lanes(exec) {
                    let off = addrs[l].wrapping_sub(base) as usize + k * bytes;
                    let v = read_le(data, off, bytes);
                    r[l] = if sext.is_empty() { v } else { ext(k, v) };
                }
            }
            return Ok(());
        }
        if stale != 0 {
            fresh(cta, *space, &addrs, exec)?;
        }
        let mut vals = vec![[0u64; WARP_SIZE]; n];
        let mut buf = [0u8; 64];
        for l in lanes(exec) {
            let b = &mut buf[..size];
            self.load_lane(lx, cta, *space, l, addrs[l], b, size as u32)
                .map_err(mem_err(l))?;
            for (k, v) in vals.iter_mut().enumerate() {
                let mut w = [0u8; 8];
                let part = &b[k * *bytes as usize..(k + 1) * *bytes as usize];
                w[..part.len()].copy_from_slice(part);
                v[l] = ext(k, u64::from_le_bytes(w));
            }
        }
        for (k, dst) in d.iter().enumerate() {
            if let Some(dst) = dst {
                self.write(*dst, &vals[k], exec);
            }
        }
        Ok(())
    }

    /// `op` in a run for addresses, where nothing needed reads its results
    /// ([`crate::exec::idle::Idle::Unread`]): a load makes its request and
    /// its checks and reads no data (where its lanes stay in one region;
    /// elsewhere it reads, as the faults are reported there).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn unread_load<O: Observer>(
        &mut self,
        op: &Op,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        pc: u32,
        active: Mask,
        exec: Mask,
    ) -> ExecResult {
        match op {
            Op::Ld {
                space,
                bytes,
                sext,
                d,
                addr,
            } if exec != 0 => {
                self.load(lx, cta, obs, site, exec, space, bytes, sext, d, addr, false)?;
                self.next(pc);
                Ok(())
            }
            _ => self.exec(op, lx, cta, obs, site, pc, active, exec),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        space: &MemSpace,
        bytes: &u8,
        src: &[Src],
        addr: &Addr,
    ) -> ExecResult {
        let addrs = self.addrs(lx, cta, addr);
        let size = *bytes as usize * src.len();
        let ev_space = access_space(*space, &addrs, exec);
        obs.memory(&MemEvent {
            site,
            space: ev_space,
            kind: AccessKind::Store,
            size: size as u32,
            active: exec,
            addrs: &addrs,
        });
        if let [one] = src {
            let v = *self.operand(lx, cta, *one);
            if scatter(
                cta,
                *space,
                &addrs,
                std::slice::from_ref(&v),
                exec,
                *bytes as usize,
            ) {
                return Ok(());
            }
        }
        if (2..=MAX_FAST_VECTOR).contains(&src.len()) {
            let mut vals = [[0u64; WARP_SIZE]; MAX_FAST_VECTOR];
            for (v, s) in vals.iter_mut().zip(src) {
                *v = self.fetch(lx, cta, *s);
            }
            let vals = &vals[..src.len()];
            if scatter(cta, *space, &addrs, vals, exec, *bytes as usize) {
                return Ok(());
            }
        }
        let vals: Vec<L> = src.iter().map(|s| self.fetch(lx, cta, *s)).collect();
        let mut buf = [0u8; 64];
        for l in lanes(exec) {
            for (k, v) in vals.iter().enumerate() {
                let b = *bytes as usize;
                buf[k * b..(k + 1) * b].copy_from_slice(&v[l].to_le_bytes()[..b]);
            }
            self.store_lane(lx, cta, *space, l, addrs[l], &buf[..size], size as u32)
                .map_err(mem_err(l))?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        space: &MemSpace,
        op: &AtomOp,
        ty: &Type,
        d: &Option<R>,
        addr: &Addr,
        b: &Src,
        c: &Option<Src>,
    ) -> ExecResult {
        let addrs = self.addrs(lx, cta, addr);
        let size = ty.bytes() as usize;
        let ev_space = access_space(*space, &addrs, exec);
        obs.memory(&MemEvent {
            site,
            space: ev_space,
            kind: AccessKind::Atomic,
            size: size as u32,
            active: exec,
            addrs: &addrs,
        });
        if d.is_some() && needs_fresh(lx, site) {
            fresh(cta, *space, &addrs, exec)?;
        }
        let bv = self.fetch(lx, cta, *b);
        let cv = match c {
            Some(c) => self.fetch(lx, cta, *c),
            None => [0; WARP_SIZE],
        };
        let mut old = [0u64; WARP_SIZE];
        // Lanes update in lane order: one deterministic serialisation.
        for l in lanes(exec) {
            old[l] = self.atomic_lane(lx, cta, *space, l, addrs[l], (*op, *ty), bv[l], cv[l])?;
        }
        if let Some(d) = d {
            self.write(*d, &old, exec);
        }
        Ok(())
    }

    /// One lane's read-modify-write of `(op, ty)` at `at`; the old value.
    #[allow(clippy::too_many_arguments)]
    fn atomic_lane(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        space: MemSpace,
        l: usize,
        at: u64,
        (op, ty): (AtomOp, Type),
        b: u64,
        c: u64,
    ) -> Result<u64, (FaultKind, Option<usize>)> {
        let size = ty.bytes() as usize;
        let mut buf = [0u8; 8];
        self.load_lane(lx, cta, space, l, at, &mut buf[..size], size as u32)
            .map_err(mem_err(l))?;
        let o = u64::from_le_bytes(buf);
        // f32 adds on global memory flush subnormals (ISA 9.7.13.5), those
        // on shared memory keep them: per lane, as a generic address may
        // land in either.
        let global = super::access::target(space, at).0 == Space::Global;
        let new = alu::atomic(op, ty, o, b, c, global)
            .map_err(|e| (FaultKind::Unsupported(e.to_string()), Some(l)))?;
        self.store_lane(
            lx,
            cta,
            space,
            l,
            at,
            &new.to_le_bytes()[..size],
            size as u32,
        )
        .map_err(mem_err(l))?;
        Ok(o)
    }

    /// A vector atomic (`atom.global.add.v2.f32`): one event of the whole
    /// width, then element by element, each applied in lane order (one
    /// deterministic serialisation; the elements are separate atomics).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic_vec<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        d: &[Option<R>],
        addr: &Addr,
        b: &[Src],
    ) -> ExecResult {
        let addrs = self.addrs(lx, cta, addr);
        let size = ty.bytes() as usize;
        if d.iter().any(Option::is_some) && needs_fresh(lx, site) {
            fresh(cta, space, &addrs, exec)?;
        }
        obs.memory(&MemEvent {
            site,
            space: access_space(space, &addrs, exec),
            kind: AccessKind::Atomic,
            size: (size * b.len()) as u32,
            active: exec,
            addrs: &addrs,
        });
        for (k, bk) in b.iter().enumerate() {
            let bv = self.fetch(lx, cta, *bk);
            let mut old = [0u64; WARP_SIZE];
            for l in lanes(exec) {
                let at = addrs[l].wrapping_add((k * size) as u64);
                old[l] = self.atomic_lane(lx, cta, space, l, at, (op, ty), bv[l], 0)?;
            }
            if let Some(Some(dk)) = d.get(k) {
                self.write(*dk, &old, exec);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn cp_async<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        dst: &Addr,
        src: &Addr,
        dst_space: &MemSpace,
        src_space: &MemSpace,
        size: &Src,
        src_size: &Option<Src>,
    ) -> ExecResult {
        let (da, sa) = (self.addrs(lx, cta, dst), self.addrs(lx, cta, src));
        let n = self.fetch(lx, cta, *size);
        let sn = match src_size {
            Some(s) => self.fetch(lx, cta, *s),
            None => n,
        };
        // The copy is memory traffic like a load and a store: the global
        // read of the lanes that read anything (a source size of 0 only
        // zero-fills) and the shared write of every lane. The copy size is
        // an immediate (4, 8 or 16 B), the same for every lane.
        let first = (exec.trailing_zeros() as usize).min(WARP_SIZE - 1);
        let bytes = n[first].min(16) as u32;
        let reading = lanes(exec)
            .filter(|&l| sn[l] > 0)
            .fold(0, |m: Mask, l| m | 1 << l);
        obs.memory(&MemEvent {
            site,
            space: access_space(*src_space, &sa, reading),
            kind: AccessKind::Load,
            size: bytes,
            active: reading,
            addrs: &sa,
        });
        obs.memory(&MemEvent {
            site,
            space: access_space(*dst_space, &da, exec),
            kind: AccessKind::Store,
            size: bytes,
            active: exec,
            addrs: &da,
        });
        for l in lanes(exec) {
            let total = (n[l] as usize).min(16);
            let read = (sn[l] as usize).min(total);
            let mut buf = [0u8; 16];
            self.load_lane(lx, cta, *src_space, l, sa[l], &mut buf[..read], 1)
                .map_err(mem_err(l))?;
            self.store_lane(
                lx,
                cta,
                *dst_space,
                l,
                da[l],
                &buf[..total],
                total.max(1) as u32,
            )
            .map_err(mem_err(l))?;
        }
        Ok(())
    }

    /// `cp.async.bulk`: each active lane copies its `size` bytes at once, in
    /// 16-byte pieces (the PTX ISA has both addresses 16-byte aligned and the
    /// size a multiple of 16), then completes them on its mbarrier where it
    /// names one. The observer sees the traffic as warp-wide accesses of up
    /// to 32 pieces (512 bytes) each, a load and a store, in order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bulk_copy<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        dst: &Addr,
        dst_space: MemSpace,
        src: &Addr,
        src_space: MemSpace,
        size: &Src,
        mbar: &Option<(Addr, MemSpace)>,
    ) -> ExecResult {
        const PIECE: u64 = 16;
        let (da, sa) = (self.addrs(lx, cta, dst), self.addrs(lx, cta, src));
        let n = self.fetch(lx, cta, *size);
        let ma = mbar.as_ref().map(|(a, s)| (self.addrs(lx, cta, a), *s));
        for l in lanes(exec) {
            let bytes = u64::from(n[l] as u32);
            if !bytes.is_multiple_of(PIECE) {
                return Err((
                    FaultKind::Unsupported(format!(
                        "cp.async.bulk of {bytes} bytes: the size must be a multiple of 16"
                    )),
                    Some(l),
                ));
            }
            let pieces = bytes / PIECE;
            let mut done = 0;
            while done < pieces {
                let k = (pieces - done).min(WARP_SIZE as u64);
                let mut from = [0u64; WARP_SIZE];
                let mut to = [0u64; WARP_SIZE];
                for j in 0..k as usize {
                    let off = (done + j as u64) * PIECE;
                    from[j] = sa[l].wrapping_add(off);
                    to[j] = da[l].wrapping_add(off);
                }
                let active: Mask = if k == WARP_SIZE as u64 {
                    Mask::MAX
                } else {
                    (1 << k) - 1
                };
                for (kind, space, addrs) in [
                    (AccessKind::Load, src_space, &from),
                    (AccessKind::Store, dst_space, &to),
                ] {
                    obs.memory(&MemEvent {
                        site,
                        space: access_space(space, addrs, active),
                        kind,
                        size: PIECE as u32,
                        active,
                        addrs,
                    });
                }
                for j in 0..k as usize {
                    let mut buf = [0u8; PIECE as usize];
                    self.load_lane(lx, cta, src_space, l, from[j], &mut buf, PIECE as u32)
                        .map_err(mem_err(l))?;
                    self.store_lane(lx, cta, dst_space, l, to[j], &buf, PIECE as u32)
                        .map_err(mem_err(l))?;
                }
                done += k;
            }
            if let Some((addrs, space)) = &ma {
                self.complete_tx(lx, cta, *space, l, addrs[l], bytes)?;
            }
        }
        Ok(())
    }
}

/// Where a load's fast path reads (scalar or `.v2`/`.v4`, global or
/// shared): the data and base address of the one allocation every active
/// lane's `size` bytes lie in, each aligned to `size` as the per-lane path
/// requires. `None` sends the access down the per-lane path, which also
/// reports any fault.
#[inline]
fn fast_region<'c>(
    cta: &'c CtaState<'_>,
    space: MemSpace,
    addrs: &L,
    exec: Mask,
    size: usize,
) -> Option<(&'c [u8], u64)> {
    let first = exec.trailing_zeros() as usize;
    let (data, base) = region_of(cta, space, *addrs.get(first)?, size)?;
    let (size, len) = (size as u64, data.len() as u64);
    // Vector and scalar sizes are powers of two: alignment is a mask, not
    // a division, and every lane is checked without a branch (this check
    // was three quarters of a GEMM's load time with a division a lane).
    if !size.is_power_of_two() || len < size {
        return None;
    }
    let last = len - size;
    let mut bad = false;
    for (l, &a) in addrs.iter().enumerate() {
        let on = (exec >> l) & 1 != 0;
        bad |= on & ((a & (size - 1) != 0) | (a.wrapping_sub(base) > last));
    }
    (!bad).then_some((data, base))
}

/// In a run for addresses ([`crate::exec::idle`]): the fault that stops it
/// where an access that reads data reaches a place a store wrote with
/// values the run did not compute.
#[inline]
fn fresh(cta: &CtaState<'_>, space: MemSpace, addrs: &L, exec: Mask) -> ExecResult {
    let stale = cta.global.stale();
    if stale != 0 && places_of(cta, space, addrs, exec) & stale != 0 {
        return Err(stale_read(exec));
    }
    Ok(())
}

/// The fault of [`fresh`], at the first active lane.
#[cold]
fn stale_read(exec: Mask) -> (FaultKind, Option<usize>) {
    let lane = exec.trailing_zeros() as usize;
    (
        FaultKind::Internal(crate::exec::idle::STALE_READ.to_string()),
        Some(lane.min(WARP_SIZE - 1)),
    )
}

/// In a run for addresses: whether the atomic at `site` has results a
/// needed value comes of (one whose results nothing needed reads may read
/// a stale place: [`crate::exec::idle::Idle::Blind`]).
fn needs_fresh(lx: &LaunchCtx<'_>, site: Site) -> bool {
    lx.idle
        .is_some_and(|t| t.of_op(site.func, site.pc) == crate::exec::idle::Idle::Runs)
}

/// The places ([`crate::exec::idle`]'s bits) the active lanes of an access
/// reach: each lane's allocation (looked up again only where a lane leaves
/// the last one found), the CTA's shared memory, the local memory. Loads
/// whose lanes stay in one region take their place from it instead
/// ([`Warp::load`]'s fast path); this serves the rest and the stores.
pub(super) fn places_of(cta: &CtaState<'_>, space: MemSpace, addrs: &L, exec: Mask) -> u64 {
    use crate::exec::idle::{LOCAL_PLACE, SHARED_PLACE, global_place};
    let mut bits = 0;
    let mut last: Option<(u64, u64, u64)> = None;
    for l in lanes(exec) {
        let (sp, a) = super::access::target(space, addrs[l]);
        bits |= match sp {
            Space::Global => match last {
                Some((base, end, bit)) if (base..end).contains(&a) => bit,
                _ => match cta.global.locate(a, 1, false) {
                    Ok((i, _)) => {
                        let bit = global_place(i);
                        if let Some(al) = cta.global.allocations().get(i) {
                            last = Some((al.base, al.base + al.data.len() as u64, bit));
                        }
                        bit
                    }
                    Err(_) => 0,
                },
            },
            Space::Shared => SHARED_PLACE,
            Space::Local => LOCAL_PLACE,
            _ => 0,
        };
    }
    bits
}

/// Widest vector (`.v2`, `.v4`) the fast paths take; wider ones use the
/// per-lane path.
const MAX_FAST_VECTOR: usize = 4;

/// The data and base address an access of `bytes` at `first` falls in
/// (global: its allocation; shared: the CTA's window). `None`: another
/// space, or a first lane outside every allocation.
#[inline]
fn region_of<'c>(
    cta: &'c CtaState<'_>,
    space: MemSpace,
    first: u64,
    bytes: usize,
) -> Option<(&'c [u8], u64)> {
    match space {
        MemSpace::Global => {
            let (i, _) = cta.global.locate(first, bytes, false).ok()?;
            let a = cta.global.allocations().get(i)?;
            Some((&a.data, a.base))
        }
        MemSpace::Shared => Some((cta.shared.bytes(), 0)),
        _ => None,
    }
}

/// The little-endian value of `bytes` (1 to 8) bytes at `off`; the usual
/// widths by fixed-size copies, which compile to one load each (a copy of
/// a run-time length is a call to `memcpy`).
#[inline(always)]
fn read_le(data: &[u8], off: usize, bytes: usize) -> u64 {
    match bytes {
        1 => u64::from(data[off]),
        2 => {
            let mut w = [0u8; 2];
            w.copy_from_slice(&data[off..off + 2]);
            u64::from(u16::from_le_bytes(w))
        }
        4 => {
            let mut w = [0u8; 4];
            w.copy_from_slice(&data[off..off + 4]);
            u64::from(u32::from_le_bytes(w))
        }
        8 => {
            let mut w = [0u8; 8];
            w.copy_from_slice(&data[off..off + 8]);
            u64::from_le_bytes(w)
        }
        _ => {
            let mut w = [0u8; 8];
            w[..bytes].copy_from_slice(&data[off..off + bytes]);
            u64::from_le_bytes(w)
        }
    }
}

/// Writes the low `bytes` (1 to 8) bytes of `v` at `off`, as [`read_le`].
#[inline(always)]
fn write_le(data: &mut [u8], off: usize, bytes: usize, v: u64) {
    match bytes {
        1 => data[off] = v as u8,
        2 => data[off..off + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => data[off..off + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        8 => data[off..off + 8].copy_from_slice(&v.to_le_bytes()),
        _ => data[off..off + bytes].copy_from_slice(&v.to_le_bytes()[..bytes]),
    }
}

/// A loaded value of `bytes` bytes sign-extended to a `to`-bit register
/// when that is wider (PTX ISA 9.4.1); `to` = 0 leaves it zero-extended.
#[inline]
fn widen(raw: u64, bytes: u8, to: u8) -> u64 {
    let from = bytes as u32 * 8;
    if (to as u32) > from {
        alu::sx(raw, from) as u64 & alu::mask_of(to as u32)
    } else {
        raw
    }
}

/// Fast path of a scalar or vector store (`st`, `st.v2`, `st.v4`) to global
/// or shared memory (see [`gather`] and [`gather_vector`]): checks every
/// lane first, then writes lane by lane in lane order, each lane's elements
/// in order, as the per-lane path does. `false`: use the slow path.
#[inline]
fn scatter(
    cta: &mut CtaState<'_>,
    space: MemSpace,
    addrs: &L,
    vals: &[L],
    exec: Mask,
    bytes: usize,
) -> bool {
    let size = bytes * vals.len();
    let first = exec.trailing_zeros() as usize;
    let (data, base): (&mut [u8], u64) = match space {
        MemSpace::Global => {
            let Some(Ok((i, _))) = addrs.get(first).map(|&a| cta.global.locate(a, size, true))
            else {
                return false;
            };
            let Some(a) = cta.global.allocation_mut(i) else {
                return false;
            };
            let base = a.base;
            (&mut a.data, base)
        }
        MemSpace::Shared => (cta.shared.bytes_mut(), 0),
        _ => return false,
    };
    let len = data.len();
    let ok = lanes(exec).all(|l| {
        let a = addrs[l];
        let off = a.wrapping_sub(base) as usize;
        a.is_multiple_of(size as u64) && off.checked_add(size).is_some_and(|e| e <= len)
    });
    if !ok {
        return false;
    }
    for l in lanes(exec) {
        let off = addrs[l].wrapping_sub(base) as usize;
        for (k, v) in vals.iter().enumerate() {
            write_le(data, off + k * bytes, bytes, v[l]);
        }
    }
    true
}

/// The space an access event reports: generic accesses by their first lane.
pub(super) fn access_space(space: MemSpace, addrs: &L, exec: Mask) -> Space {
    let l = (exec.trailing_zeros() as usize).min(WARP_SIZE - 1);
    super::access::target(space, addrs[l]).0
}
