//! Surface reads and writes (`suld.b`, `sust.b`: `surf1Dread` ...
//! `surf3Dwrite`) on surface objects of one to three dimensions: `x` counts
//! bytes, `y` and `z` rows and slices, as the CUDA C++ Programming Guide's
//! "Surface Memory" says. An access is an unformatted copy of its
//! elements' bytes at `x` of its row; outside the surface the instruction's
//! boundary mode decides: `.trap` stops the kernel, `.clamp` moves the
//! access to the nearest one inside, `.zero` reads zeros and drops the
//! write. The observer sees a global load or store of the access's bytes.

use ptx::ir::SurfaceClamp;

use super::execute::{ExecResult, mem_err};
use super::texture::{check_rank, object_of};
use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::L;
use crate::exec::ops::{MemSpace, R, Src, SurfaceAccess};
use crate::fault::FaultKind;
use crate::mem::Space;
use crate::observer::{AccessKind, MemEvent, Observer, Site};
use crate::simt::{Mask, WARP_SIZE, lanes};

impl Warp {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn surface_load<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        access: SurfaceAccess,
        d: &[Option<R>],
        handle: Src,
        coords: &[Src],
    ) -> ExecResult {
        let n = d.len();
        let (addrs, inside) = self.surface_addrs(lx, cta, exec, access, n, handle, coords)?;
        let size = access.bytes as usize * n;
        global_access(obs, site, AccessKind::Load, size, inside, &addrs);
        let mut vals = vec![[0u64; WARP_SIZE]; n];
        let mut buf = [0u8; 32];
        for l in lanes(inside) {
            let bytes = &mut buf[..size];
            self.load_lane(lx, cta, MemSpace::Global, l, addrs[l], bytes, 1)
                .map_err(mem_err(l))?;
            for (v, chunk) in vals
                .iter_mut()
                .zip(bytes.chunks_exact(access.bytes as usize))
            {
                let mut w = [0u8; 8];
                w[..chunk.len()].copy_from_slice(chunk);
                v[l] = u64::from_le_bytes(w);
            }
        }
        for (dst, v) in d.iter().zip(&vals) {
            if let Some(dst) = dst {
                self.write(*dst, v, exec);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn surface_store<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        access: SurfaceAccess,
        src: &[Src],
        handle: Src,
        coords: &[Src],
    ) -> ExecResult {
        let n = src.len();
        let (addrs, inside) = self.surface_addrs(lx, cta, exec, access, n, handle, coords)?;
        let size = access.bytes as usize * n;
        global_access(obs, site, AccessKind::Store, size, inside, &addrs);
        let values: Vec<L> = src.iter().map(|s| self.fetch(lx, cta, *s)).collect();
        let mut buf = [0u8; 32];
        for l in lanes(inside) {
            let bytes = &mut buf[..size];
            for (chunk, v) in bytes.chunks_exact_mut(access.bytes as usize).zip(&values) {
                chunk.copy_from_slice(&v[l].to_le_bytes()[..chunk.len()]);
            }
            self.store_lane(lx, cta, MemSpace::Global, l, addrs[l], bytes, 1)
                .map_err(mem_err(l))?;
        }
        Ok(())
    }

    /// Each lane's address of an access of `n` elements, and the lanes
    /// that access memory (a `.zero` access outside reads or writes none).
    #[allow(clippy::too_many_arguments)]
    fn surface_addrs(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        exec: Mask,
        access: SurfaceAccess,
        n: usize,
        handle: Src,
        coords: &[Src],
    ) -> Result<(L, Mask), (FaultKind, Option<usize>)> {
        let (handles, cs) = self.handle_and_coords(lx, cta, handle, coords);
        let size = i64::from(access.bytes) * n as i64;
        let mut addrs = [0u64; WARP_SIZE];
        let mut inside: Mask = 0;
        for l in lanes(exec) {
            let fault = |m: FaultKind| (m, Some(l));
            let t = object_of(lx.textures, handles[l], true).map_err(fault)?;
            check_rank(t, access.rank, true).map_err(fault)?;
            let row = (t.view.dims[0] * t.texel_bytes()) as i64;
            // x in bytes, y and z in rows and slices: signed 32-bit.
            let mut at = [0i64; 3];
            for (k, a) in at.iter_mut().enumerate().take(access.rank as usize) {
                *a = i64::from(cs[k][l] as u32 as i32);
            }
            if at[0] % size != 0 {
                return Err(fault(FaultKind::Texture(format!(
                    "surface `{}`: byte {} of a row is not a multiple of the access's {size} bytes",
                    t.name, at[0]
                ))));
            }
            let limits = [
                row - size,
                t.view.dims[1] as i64 - 1,
                t.view.dims[2] as i64 - 1,
            ];
            let outside = at.iter().zip(limits).any(|(&a, hi)| a < 0 || a > hi);
            if outside {
                match access.clamp {
                    SurfaceClamp::Zero => continue,
                    SurfaceClamp::Clamp => {
                        for (a, hi) in at.iter_mut().zip(limits) {
                            *a = (*a).clamp(0, hi.max(0));
                        }
                    }
                    SurfaceClamp::Trap => {
                        return Err(fault(FaultKind::Texture(format!(
                            "surface `{}`: ({}, {}, {}) lies outside its {} x {} x {} texels of {} bytes (x counts bytes; the access is `.trap`, `cudaBoundaryModeTrap`)",
                            t.name,
                            at[0],
                            at[1],
                            at[2],
                            t.view.dims[0],
                            t.view.dims[1],
                            t.view.dims[2],
                            t.texel_bytes()
                        ))));
                    }
                }
            }
            let offset = (at[2] as u64 * t.view.dims[1] + at[1] as u64) * row as u64 + at[0] as u64;
            addrs[l] = t.base + offset;
            inside |= 1 << l;
        }
        Ok((addrs, inside))
    }
}

/// The observer's event of a warp's access of `size` bytes a lane to
/// global memory by the lanes of `inside` (none: no event).
pub(super) fn global_access<O: Observer>(
    obs: &mut O,
    site: Site,
    kind: AccessKind,
    size: usize,
    inside: Mask,
    addrs: &L,
) {
    if inside != 0 {
        obs.memory(&MemEvent {
            site,
            space: Space::Global,
            kind,
            size: size as u32,
            active: inside,
            addrs,
        });
    }
}
