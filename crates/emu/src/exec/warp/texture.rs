//! Texture fetches from texture objects of one to three dimensions:
//! `tex.{1d,2d,3d}` with integer coordinates (texel indices: `tex1Dfetch`)
//! or float coordinates (`tex1D`, `tex2D`, `tex3D`), point or linear
//! filtering, and the four address modes, as the CUDA C++ Programming
//! Guide's "Texture Fetching" appendix describes them. A fetch reads the
//! texture's buffer (texels row after row, x fastest) on the read-only
//! path: the observer sees one global load of a texel per lane, one per
//! texel a linear filter weighs (2, 4 or 8), by the lanes whose texel lies
//! inside the texture.

use half::f16;

use super::execute::{ExecResult, mem_err};
use super::surface::global_access;
use super::{CtaState, LaunchCtx, Texture, Warp};
use crate::exec::alu::L;
use crate::exec::ops::{MemSpace, R, Src, TexOut};
use crate::fault::FaultKind;
use crate::observer::{AccessKind, Observer, Site};
use crate::simt::{Mask, WARP_SIZE, lanes};
use crate::spec::{AddressMode, FilterMode, ScalarType};

/// The form of a fetch instruction.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fetch {
    pub rank: u8,
    pub float_coords: bool,
    pub out: TexOut,
}

/// Texels one lane's fetch weighs: up to 8 (a trilinear filter), each a
/// texel index ([`OUTSIDE`]: outside a border-addressed texture, reads
/// zeros) and its weight. Filled in place: a warp's 32 are on the stack of
/// every fetch.
#[derive(Clone, Copy, Default)]
struct Taps {
    n: u8,
    texel: [u64; 8],
    weight: [f32; 8],
}

/// The texel index of a tap that reads zeros.
const OUTSIDE: u64 = u64::MAX;

impl Warp {
    /// Each lane's object handle and its (up to three) coordinates, the
    /// missing ones zero: the operands of a texture fetch or surface access.
    pub(super) fn handle_and_coords(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        handle: Src,
        coords: &[Src],
    ) -> (L, [L; 3]) {
        let mut cs: [L; 3] = [[0; WARP_SIZE]; 3];
        for (c, s) in cs.iter_mut().zip(coords) {
            *c = self.fetch(lx, cta, *s);
        }
        (self.fetch(lx, cta, handle), cs)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn texture_fetch<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        fetch: Fetch,
        d: &[Option<R>],
        handle: Src,
        coords: &[Src],
    ) -> ExecResult {
        let (handles, cs) = self.handle_and_coords(lx, cta, handle, coords);
        let mut taps = [Taps::default(); WARP_SIZE];
        // Each lane's texture, resolved once: the index of its object.
        let mut object = [0usize; WARP_SIZE];
        let mut most = 0;
        let mut texel_bytes = 0;
        for l in lanes(exec) {
            let k = texture_index(lx.textures, handles[l], false).map_err(|m| (m, Some(l)))?;
            let t = &lx.textures[k];
            check_fetch(t, fetch).map_err(|m| (m, Some(l)))?;
            object[l] = k;
            texel_bytes = texel_bytes.max(t.texel_bytes());
            let at = [cs[0][l], cs[1][l], cs[2][l]];
            lane_taps(t, fetch, at, &mut taps[l]);
            most = most.max(taps[l].n as usize);
        }
        // One load per tap: the lanes whose k-th texel lies inside.
        let mut addrs = [[0u64; WARP_SIZE]; 8];
        for (k, tap_addrs) in addrs.iter_mut().enumerate().take(most) {
            let mut inside: Mask = 0;
            for l in lanes(exec) {
                if let Some(&i) = taps[l].texel.get(k).filter(|&&i| i != OUTSIDE) {
                    let t = &lx.textures[object[l]];
                    tap_addrs[l] = t.base + i * t.texel_bytes();
                    inside |= 1 << l;
                }
            }
            global_access(
                obs,
                site,
                AccessKind::Load,
                texel_bytes as usize,
                inside,
                tap_addrs,
            );
        }
        let mut vals = [[0u64; WARP_SIZE]; 4];
        let mut buf = [0u8; 16];
        // The bytes of the last texture read, found once a warp: most warps
        // fetch from one texture.
        let mut region: Option<(usize, &[u8], u64)> = None;
        for l in lanes(exec) {
            let t = &lx.textures[object[l]];
            if region.is_none_or(|(k, _, _)| k != object[l]) {
                region = cta
                    .global
                    .locate(t.base, 1, false)
                    .ok()
                    .and_then(|(i, _)| cta.global.allocations().get(i))
                    .map(|a| (object[l], a.data.as_slice(), a.base));
            }
            let filtered = t.view.filter == FilterMode::Linear && fetch.float_coords;
            let size = t.elem.size();
            let channels = t.view.channels as usize;
            let mut sums = [0f32; 4];
            let lane = &taps[l];
            for ((texel, weight), tap_addrs) in lane
                .texel
                .iter()
                .zip(lane.weight)
                .zip(&addrs)
                .take(lane.n as usize)
            {
                if *texel == OUTSIDE {
                    continue;
                }
                let n = size * channels;
                let at = tap_addrs[l];
                let direct = region.and_then(|(_, data, base)| {
                    let off = usize::try_from(at.checked_sub(base)?).ok()?;
                    data.get(off..off.checked_add(n)?)
                });
                let bytes = match direct {
                    Some(b) => b,
                    None => {
                        let b = &mut buf[..n];
                        self.load_lane(lx, cta, MemSpace::Global, l, at, b, 1)
                            .map_err(mem_err(l))?;
                        &*b
                    }
                };
                for (c, chunk) in bytes.chunks_exact(size).enumerate() {
                    let mut w = [0u8; 8];
                    w[..size].copy_from_slice(chunk);
                    let v = channel_value(u64::from_le_bytes(w), t.elem, t.view.normalized);
                    if filtered {
                        sums[c] += weight * f32::from_bits(v as u32);
                    } else {
                        vals[c][l] = v;
                    }
                }
            }
            if filtered {
                for (v, sum) in vals.iter_mut().zip(sums).take(channels) {
                    v[l] = u64::from(sum.to_bits());
                }
            }
        }
        for (k, dst) in d.iter().enumerate() {
            if let (Some(dst), Some(v)) = (dst, vals.get(k)) {
                self.write(*dst, v, exec);
            }
        }
        Ok(())
    }
}

impl Texture {
    pub(super) fn texel_bytes(&self) -> u64 {
        self.elem.size() as u64 * u64::from(self.view.channels)
    }
}

/// The texels (and weights) one lane's fetch at `at` reads, into `taps`:
/// one for point sampling and integer coordinates, 2^rank for a linear
/// filter.
fn lane_taps(t: &Texture, fetch: Fetch, at: [u64; 3], taps: &mut Taps) {
    let rank = fetch.rank as usize;
    let linear = fetch.float_coords && t.view.filter == FilterMode::Linear;
    // Per dimension: the first texel index, the weight of the second (a
    // linear filter), or the index alone.
    let mut first = [0i64; 3];
    let mut alpha = [0f32; 3];
    for k in 0..rank {
        if !fetch.float_coords {
            first[k] = i64::from(at[k] as u32 as i32);
            continue;
        }
        let mut x = f32::from_bits(at[k] as u32);
        if t.view.normalized_coords {
            x *= t.view.dims[k] as f32;
        }
        if linear {
            // The Guide's "Linear Filtering": x_B = x - 0.5, the weight of
            // the upper texel frac(x_B) held in 9-bit fixed point (8
            // fractional bits).
            let xb = x - 0.5;
            let i = xb.floor();
            first[k] = i as i64;
            alpha[k] = ((xb - i) * 256.0).round() / 256.0;
        } else {
            first[k] = x.floor() as i64;
        }
    }
    let corners = if linear { 1usize << rank } else { 1 };
    for corner in 0..corners {
        let mut index = 0u64;
        let mut stride = 1u64;
        let mut weight = 1f32;
        let mut inside = true;
        for k in 0..rank {
            let upper = corner >> k & 1 == 1;
            // Saturating: an infinite coordinate floors to i64::MAX.
            let i = first[k].saturating_add(i64::from(upper));
            if linear {
                weight *= if upper { alpha[k] } else { 1.0 - alpha[k] };
            }
            match address(i, t.view.dims[k], t.view.address) {
                Some(i) => index += i * stride,
                None => inside = false,
            }
            stride *= t.view.dims[k];
        }
        taps.texel[corner] = if inside { index } else { OUTSIDE };
        taps.weight[corner] = weight;
    }
    taps.n = corners as u8;
}

/// Texel index `i` of a dimension of `n` texels under `mode`: `None`
/// where a border-addressed texture reads zeros.
fn address(i: i64, n: u64, mode: AddressMode) -> Option<u64> {
    let n = i64::try_from(n).ok().filter(|&n| n > 0)?;
    let i = match mode {
        AddressMode::Border => (0..n).contains(&i).then_some(i)?,
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n { 2 * n - 1 - m } else { m }
        }
    };
    Some(i as u64)
}

/// The texture (`surface` false) or surface object of `handle`: a handle of
/// the other kind is as wrong as none.
pub(super) fn object_of(
    textures: &[Texture],
    handle: u64,
    surface: bool,
) -> Result<&Texture, FaultKind> {
    texture_index(textures, handle, surface).map(|k| &textures[k])
}

/// The index in `textures` of the object of `handle` (object `k` has handle
/// `k + 1`), checked to be a surface or a texture as `surface` says.
fn texture_index(textures: &[Texture], handle: u64, surface: bool) -> Result<usize, FaultKind> {
    let kind = if surface { "surface" } else { "texture" };
    let k = handle
        .checked_sub(1)
        .and_then(|k| usize::try_from(k).ok())
        .filter(|&k| k < textures.len())
        .ok_or_else(|| {
            FaultKind::Texture(format!(
                "handle {handle:#x} is no {kind} object of this launch (give the kernel's {kind} parameter a `type = \"{kind}\"` argument)"
            ))
        })?;
    let t = &textures[k];
    if t.view.surface != surface {
        let other = if surface { "texture" } else { "surface" };
        return Err(FaultKind::Texture(format!(
            "`{}` is a {other} object, but the instruction reads a {kind} (give it `type = \"{kind}\"`)",
            t.name
        )));
    }
    Ok(k)
}

/// A fault where a fetch or access of `rank` dimensions meets `t` of
/// another: `tex.2d` (`surface` false) or a 2D surface access. The message
/// is built only then: this runs for every lane of every fetch.
pub(super) fn check_rank(t: &Texture, rank: u8, surface: bool) -> Result<(), FaultKind> {
    if rank == t.view.rank {
        return Ok(());
    }
    let what = if surface {
        format!("a {rank}D surface access")
    } else {
        format!("tex.{rank}d")
    };
    Err(FaultKind::Texture(format!(
        "`{}` has {} dimension(s), but the access is {what} (a {rank}D one needs dims = [{}])",
        t.name,
        t.view.rank,
        ["W", "W, H", "W, H, D"][(rank as usize).clamp(1, 3) - 1]
    )))
}

/// Whether `fetch` suits `t`: as many coordinates as it has dimensions,
/// and a destination its texels read as: floats from float channels or
/// from integer channels read normalized, integers from integer channels
/// read as they are (CUDA's `cudaReadModeElementType`).
fn check_fetch(t: &Texture, fetch: Fetch) -> Result<(), FaultKind> {
    check_rank(t, fetch.rank, false)?;
    let floats = t.elem.is_float() || t.view.normalized;
    let fine = match fetch.out {
        TexOut::F32 => floats,
        TexOut::S32 | TexOut::U32 => !floats,
    };
    if fine {
        return Ok(());
    }
    let held = if t.view.normalized {
        format!("{} channels read normalized (floats)", t.elem)
    } else {
        format!("{} channels", t.elem)
    };
    let (read, fix) = match fetch.out {
        TexOut::F32 => (
            "f32",
            "fetch it as an integer type (`tex1Dfetch<int>`), or give the texture `read = \"normalized\"`",
        ),
        TexOut::S32 => ("s32", "fetch it as `float`"),
        TexOut::U32 => ("u32", "fetch it as `float`"),
    };
    Err(FaultKind::Texture(format!(
        "texture `{}` has {held}, but the fetch reads .{read}: {fix}",
        t.name
    )))
}

/// One channel's value in its destination register: float bits for float
/// channels and normalized reads, the integer extended to 32 bits otherwise.
fn channel_value(raw: u64, elem: ScalarType, normalized: bool) -> u64 {
    let float = |v: f32| u64::from(v.to_bits());
    match (elem, normalized) {
        (ScalarType::F16, _) => float(f16::from_bits(raw as u16).to_f32()),
        (ScalarType::U8, true) => float(raw as u8 as f32 / 255.0),
        (ScalarType::U16, true) => float(raw as u16 as f32 / 65535.0),
        (ScalarType::I8, true) => float((raw as u8 as i8 as f32 / 127.0).max(-1.0)),
        (ScalarType::I16, true) => float((raw as u16 as i16 as f32 / 32767.0).max(-1.0)),
        (ScalarType::I8, false) => u64::from(raw as u8 as i8 as i32 as u32),
        (ScalarType::I16, false) => u64::from(raw as u16 as i16 as i32 as u32),
        _ => raw & 0xffff_ffff,
    }
}
