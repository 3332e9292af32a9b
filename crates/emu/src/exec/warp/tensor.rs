//! Tensor-core and matrix-movement instructions: `mma.sync`, `wmma.load`,
//! `wmma.mma`, `wmma.store`, `ldmatrix` and `stmatrix`. They exchange data
//! between the lanes of a warp, so they run over the warp as a whole.
//!
//! Arithmetic: products of f16 (or bf16) inputs are exact in f32 (11 + 11
//! significant bits, or 8 + 8, fit in 24), so `d = c + sum_k a*b` is
//! computed as `acc = c; for k in 0..K { acc = acc + a[i][k]*b[k][j] }` in
//! f32 with round-to-nearest-even at each addition, k ascending, then
//! rounded once to f16 for an f16 destination (an f16 `c` widens exactly).
//! Hardware adds in a different, unspecified order and precision, so
//! results agree with a GPU up to summation order.
//!
//! Fragment layouts. `mma.sync` follows the PTX ISA ("Matrix fragments for
//! mma.m16n8k16 / m16n8k8 with floating point type"): with g = lane / 4 and
//! t = lane % 4, element i of A sits at row g + 8*((i/2)%2), column 2t +
//! i%2 + 8*(i/4); element i of B at row 2t + i%2 + 8*(i/2), column g;
//! element i of C/D at row g + 8*(i/2), column 2t + i%2 (elements are the
//! halves of the registers, low half first). m16n8k8 with tf32 holds one
//! element per register: a_i at row g + 8*(i%2), column t + 4*(i/2); b_i
//! at row t + 4*i, column g (the ISA's table, read in a mirror of the PTX
//! ISA 9.2, and as the wmma_extension library loads its fragments);
//! m16n8k4 tf32 is its first half (a0, a1 and b0, k < 4). m8n8k4 f64: a0 at
//! row g, column t; b0 at row t, column g; c_i at row g, column 2t + i (as
//! CUTLASS's cute lays out SM80_8x8x4_F64F64F64F64_TN: SM80_8x4 for A and
//! B, SM80_8x8_Row for C), with a fused multiply-add per k step. `wmma` fragments are opaque
//! (the ISA leaves their layout to the implementation and ptxas does not
//! document it); the emulator lays every fragment out alike: its matrix in
//! storage order (A and the accumulator by rows, B by columns, so that a
//! lane's elements run along k) is cut into runs of as many elements as a
//! lane holds, run q in lane q (and in lanes q + runs, q + 2 runs ... where
//! the lanes hold more than the matrix: f16 A and B keep 16 elements per
//! lane at every shape). At m16n16k16 f16, lane l holds row l%16 of A (its
//! 16 k values, two per register), column l%16 of B, and row l/2, columns
//! 8*(l%2)..8*(l%2)+8 of the accumulator. Loads and stores use the same
//! layout, so a program's results do not depend on it.
//!
//! Arithmetic of the other `wmma` kinds: 8-bit integers multiply and add
//! exactly, then clamp to s32 with `.satfinite` or wrap; f64 m8n8k4 takes a
//! fused multiply-add per k step, rounded to nearest (`.rn`, the only
//! rounding that runs).
//!
//! `ldmatrix` / `stmatrix` (ISA "Warp-level matrix load instruction"):
//! lanes 8j..8j+8 give the row addresses of matrix j; lane l's register j
//! holds row l/4, columns 2(l%4) and 2(l%4)+1 of matrix j (of its transpose
//! with `.trans`).

use half::{bf16, f16};

use super::execute::{ExecResult, mem_err};
use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::L;
use crate::exec::ops::*;
use crate::fault::FaultKind;
use crate::mem::Space;
use crate::observer::{AccessKind, MemEvent, Observer, Site};
use crate::simt::{Mask, WARP_SIZE, lanes};

use super::memory_ops::access_space;
use super::tensor_int::IntMma;
use super::tensor_wmma::{FragLayout, WmmaKinds};

/// Values of a list of register operands, register by register.
pub(super) type Regs = Vec<L>;

fn half_of(v: u64, h: usize) -> u16 {
    (v >> (16 * h)) as u16
}

fn to_f32(bits: u16, ab: MmaIn) -> f32 {
    match ab {
        MmaIn::F16 => f16::from_bits(bits).to_f32(),
        // tf32 elements are whole registers, read apart (never here).
        MmaIn::Bf16 | MmaIn::Tf32 => bf16::from_bits(bits).to_f32(),
    }
}

/// Element `i` of an accumulator fragment held in `regs` (f32: one per
/// register; f16: two per register, low half first), widened to f32.
fn acc_elem(regs: &Regs, f32_regs: bool, lane: usize, i: usize) -> f32 {
    if f32_regs {
        regs.get(i).map_or(0.0, |r| f32::from_bits(r[lane] as u32))
    } else {
        regs.get(i / 2)
            .map_or(0.0, |r| f16::from_bits(half_of(r[lane], i % 2)).to_f32())
    }
}

/// Write accumulator element `i` of `lane` into the output registers.
fn put_acc(out: &mut Regs, f32_regs: bool, lane: usize, i: usize, v: f32) {
    if f32_regs {
        if let Some(r) = out.get_mut(i) {
            r[lane] = v.to_bits() as u64;
        }
    } else if let Some(r) = out.get_mut(i / 2) {
        let sh = 16 * (i % 2);
        let bits = f16::from_f32(v).to_bits() as u64;
        r[lane] = (r[lane] & !(0xffff << sh)) | (bits << sh);
    }
}

/// `c + sum_k a[k] * b[k]` in the order the module comment states.
fn dot(c: f32, a: impl Iterator<Item = f32>, b: impl Iterator<Item = f32>) -> f32 {
    a.zip(b).fold(c, |acc, (x, y)| acc + x * y)
}

fn partial_warp(what: &str, exec: Mask) -> (FaultKind, Option<usize>) {
    (
        FaultKind::Unsupported(format!(
            "{what} executed by lanes {exec:#010x}: the instruction is .aligned and needs all 32 lanes of the warp"
        )),
        None,
    )
}

impl Warp {
    fn fetch_all(&self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, srcs: &[Src]) -> Regs {
        srcs.iter().map(|s| self.fetch(lx, cta, *s)).collect()
    }

    /// The A, B and C fragments of a warp-wide multiply, which needs every lane.
    fn mma_operands(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        exec: Mask,
        what: &str,
        [a, b, c]: [&[Src]; 3],
    ) -> Result<(Regs, Regs, Regs), (FaultKind, Option<usize>)> {
        if exec != Mask::MAX {
            return Err(partial_warp(what, exec));
        }
        Ok((
            self.fetch_all(lx, cta, a),
            self.fetch_all(lx, cta, b),
            self.fetch_all(lx, cta, c),
        ))
    }

    fn write_all(&mut self, d: &[R], vals: &Regs, exec: Mask) {
        for (r, v) in d.iter().zip(vals) {
            self.write(*r, v, exec);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn tensor<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        exec: Mask,
        op: &TensorOp,
    ) -> ExecResult {
        match op {
            TensorOp::MmaInt {
                m,
                k,
                a_signed,
                b_signed,
                satfinite,
                d,
                a,
                b,
                c,
            } => {
                let (av, bv, cv) = self.mma_operands(lx, cta, exec, "mma.sync", [a, b, c])?;
                let shape = IntMma {
                    m: *m as usize,
                    k: *k as usize,
                    a_signed: *a_signed,
                    b_signed: *b_signed,
                    satfinite: *satfinite,
                };
                let out = shape.run(&av, &bv, &cv);
                self.write_all(d, &out, exec);
            }
            TensorOp::Mma {
                shape,
                ab,
                d_f32,
                c_f32,
                d,
                a,
                b,
                c,
            } => {
                let k = match shape {
                    MmaShape::M16n8k4 => 4,
                    MmaShape::M16n8k8 => 8,
                    MmaShape::M16n8k16 => 16,
                };
                let (av, bv, cv) = self.mma_operands(lx, cta, exec, "mma.sync", [a, b, c])?;
                // Gather the whole A (16 x k), B (k x 8) and C (16 x 8).
                let mut am = [[0f32; 16]; 16];
                let mut bm = [[0f32; 8]; 16];
                let mut cm = [[0f32; 8]; 16];
                for l in 0..WARP_SIZE {
                    let (g, t) = (l / 4, l % 4);
                    if *ab == MmaIn::Tf32 {
                        // ISA "Matrix fragments for mma.m16n8k8", .tf32: a_i at
                        // row g + 8 (i % 2), column t + 4 (i / 2); b_i at row
                        // t + 4 i, column g. The multiplier reads a tf32's 19 bits.
                        let tf32 = |v: u64| f32::from_bits(v as u32 & !0x1fff);
                        for (i, r) in av.iter().enumerate() {
                            am[g + 8 * (i % 2)][t + 4 * (i / 2)] = tf32(r[l]);
                        }
                        for (i, r) in bv.iter().enumerate() {
                            bm[t + 4 * i][g] = tf32(r[l]);
                        }
                    } else {
                        for i in 0..2 * av.len() {
                            let (row, col) = (g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4));
                            am[row][col] = to_f32(half_of(av[i / 2][l], i % 2), *ab);
                        }
                        for i in 0..2 * bv.len() {
                            let (row, col) = (2 * t + i % 2 + 8 * (i / 2), g);
                            bm[row][col] = to_f32(half_of(bv[i / 2][l], i % 2), *ab);
                        }
                    }
                    for i in 0..4 {
                        cm[g + 8 * (i / 2)][2 * t + i % 2] = acc_elem(&cv, *c_f32, l, i);
                    }
                }
                let mut out: Regs = vec![[0u64; WARP_SIZE]; d.len()];
                for l in 0..WARP_SIZE {
                    let (g, t) = (l / 4, l % 4);
                    for i in 0..4 {
                        let (row, col) = (g + 8 * (i / 2), 2 * t + i % 2);
                        let v = dot(
                            cm[row][col],
                            am[row][..k].iter().copied(),
                            bm[..k].iter().map(|r| r[col]),
                        );
                        put_acc(&mut out, *d_f32, l, i, v);
                    }
                }
                self.write_all(d, &out, exec);
            }
            TensorOp::MmaF64 { d, a, b, c } => {
                // ISA "Matrix fragments for mma.m8n8k4 with .f64": with g =
                // lane / 4 and t = lane % 4, a0 at row g, column t; b0 at
                // row t, column g; c_i and d_i at row g, column 2t + i.
                let (av, bv, cv) = self.mma_operands(lx, cta, exec, "mma.sync", [a, b, c])?;
                let f = f64::from_bits;
                let mut am = [[0f64; 4]; 8];
                let mut bm = [[0f64; 8]; 4];
                for l in 0..WARP_SIZE {
                    let (g, t) = (l / 4, l % 4);
                    am[g][t] = f(av[0][l]);
                    bm[t][g] = f(bv[0][l]);
                }
                let mut out: Regs = vec![[0u64; WARP_SIZE]; d.len()];
                for l in 0..WARP_SIZE {
                    let (g, t) = (l / 4, l % 4);
                    for (i, r) in out.iter_mut().enumerate() {
                        let col = 2 * t + i;
                        let v =
                            (0..4).fold(f(cv[i][l]), |acc, kk| am[g][kk].mul_add(bm[kk][col], acc));
                        r[l] = v.to_bits();
                    }
                }
                self.write_all(d, &out, exec);
            }
            TensorOp::WmmaMma {
                shape,
                ab,
                d_elem,
                c_elem,
                satfinite,
                d,
                a,
                b,
                c,
            } => {
                // The layouts of A and B were applied by the loads: the
                // fragments hold A and B in the emulator's own order.
                let (av, bv, cv) = self.mma_operands(lx, cta, exec, "wmma.mma", [a, b, c])?;
                let kinds = WmmaKinds {
                    shape: *shape,
                    ab: *ab,
                    c: *c_elem,
                    d: *d_elem,
                    satfinite: *satfinite,
                };
                let out = kinds.run(&av, &bv, &cv, d.len());
                self.write_all(d, &out, exec);
            }
            TensorOp::WmmaLoad {
                frag,
                shape,
                elem,
                row,
                space,
                access,
                d,
                addr,
                stride,
            } => {
                let base = self.addrs(lx, cta, addr);
                let ld = self.stride(lx, cta, stride, *shape, *frag, *row);
                let bits = elem.bits();
                let esize = bits / 8;
                let per_reg = elem.per_reg();
                let layout = FragLayout::new(*shape, *frag, *elem, d.len());
                let traffic = WmmaTraffic {
                    site,
                    access: *access,
                    space: *space,
                    kind: AccessKind::Load,
                    exec,
                    esize,
                    per_reg,
                };
                let mut out: Regs = vec![[0u64; WARP_SIZE]; d.len()];
                for (j, reg) in out.iter_mut().enumerate() {
                    let mut addrs = [0u64; WARP_SIZE];
                    for l in lanes(exec) {
                        for h in 0..per_reg {
                            let (r, c) = layout.coord(l, per_reg * j + h);
                            let a = elem_addr(base[l], ld[l], *row, r, c, esize);
                            if h == 0 {
                                addrs[l] = a;
                            }
                            let mut buf = [0u8; 8];
                            self.load_lane(lx, cta, *space, l, a, &mut buf[..esize], esize as u32)
                                .map_err(mem_err(l))?;
                            reg[l] |= u64::from_le_bytes(buf) << (bits * h);
                        }
                    }
                    traffic.register(obs, &addrs);
                }
                traffic.requests(obs, &base, &ld);
                self.write_all(d, &out, exec);
            }
            TensorOp::WmmaStore {
                shape,
                elem,
                row,
                space,
                access,
                src,
                addr,
                stride,
            } => {
                let base = self.addrs(lx, cta, addr);
                let ld = self.stride(lx, cta, stride, *shape, WmmaFrag::Acc, *row);
                let vals = self.fetch_all(lx, cta, src);
                let bits = elem.bits();
                let esize = bits / 8;
                let per_reg = elem.per_reg();
                let layout = FragLayout::new(*shape, WmmaFrag::Acc, *elem, src.len());
                let traffic = WmmaTraffic {
                    site,
                    access: *access,
                    space: *space,
                    kind: AccessKind::Store,
                    exec,
                    esize,
                    per_reg,
                };
                for (j, reg) in vals.iter().enumerate() {
                    let mut addrs = [0u64; WARP_SIZE];
                    for l in lanes(exec) {
                        for h in 0..per_reg {
                            let (r, c) = layout.coord(l, per_reg * j + h);
                            let a = elem_addr(base[l], ld[l], *row, r, c, esize);
                            if h == 0 {
                                addrs[l] = a;
                            }
                            let bytes = (reg[l] >> (bits * h)).to_le_bytes();
                            self.store_lane(lx, cta, *space, l, a, &bytes[..esize], esize as u32)
                                .map_err(mem_err(l))?;
                        }
                    }
                    traffic.register(obs, &addrs);
                }
                traffic.requests(obs, &base, &ld);
            }
            TensorOp::Matrix8x8 {
                store,
                trans,
                space,
                regs,
                addr,
            } => {
                let what = if *store { "stmatrix" } else { "ldmatrix" };
                if exec != Mask::MAX {
                    return Err(partial_warp(what, exec));
                }
                self.matrix8x8(lx, cta, obs, site, *store, *trans, *space, regs, addr)?;
            }
        }
        Ok(())
    }

    /// The leading dimension of a wmma access, in elements; without one,
    /// the matrix is packed (its row length, or its column length when
    /// column-major).
    fn stride(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        s: &Option<Src>,
        shape: WmmaShape,
        frag: WmmaFrag,
        row: bool,
    ) -> L {
        match s {
            Some(s) => self.fetch(lx, cta, *s).map(|v| v & 0xffff_ffff),
            None => {
                let (r, c) = shape.dims(frag);
                [if row { c } else { r } as u64; WARP_SIZE]
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn matrix8x8<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        store: bool,
        trans: bool,
        space: MemSpace,
        regs: &[Src],
        addr: &Addr,
    ) -> ExecResult {
        let rows = self.addrs(lx, cta, addr);
        let n = regs.len();
        // Lanes 8j..8j+8 address the rows of matrix j.
        let used: Mask = if n >= 4 {
            Mask::MAX
        } else {
            (1u32 << (8 * n)) - 1
        };
        // ISA: a generic address must point into shared memory (undefined
        // otherwise); refusing it is more helpful than reading elsewhere.
        if let Some(q) =
            lanes(used).find(|&q| super::access::target(space, rows[q]).0 != Space::Shared)
        {
            let what = if store { "stmatrix" } else { "ldmatrix" };
            let why = format!("{what} row address {:#x} is not in shared memory", rows[q]);
            return Err((FaultKind::Unsupported(why), Some(q)));
        }
        // mats[j][row][col] as 16-bit elements.
        let mut mats = vec![[[0u16; 8]; 8]; n];
        // Where lane l's register j element h lives in mats[j].
        let place = |l: usize, h: usize| -> (usize, usize) {
            let (r, c) = (l / 4, 2 * (l % 4) + h);
            if trans { (c, r) } else { (r, c) }
        };
        if store {
            let vals = self.fetch_all(lx, cta, regs);
            for (j, v) in vals.iter().enumerate() {
                for (l, &x) in v.iter().enumerate() {
                    for h in 0..2 {
                        let (r, c) = place(l, h);
                        mats[j][r][c] = half_of(x, h);
                    }
                }
            }
            for q in lanes(used) {
                let (j, i) = (q / 8, q % 8);
                let mut bytes = [0u8; 16];
                for (c, e) in mats[j][i].iter().enumerate() {
                    bytes[2 * c..2 * c + 2].copy_from_slice(&e.to_le_bytes());
                }
                self.store_lane(lx, cta, space, q, rows[q], &bytes, 16)
                    .map_err(mem_err(q))?;
            }
        } else {
            for q in lanes(used) {
                let (j, i) = (q / 8, q % 8);
                let mut bytes = [0u8; 16];
                self.load_lane(lx, cta, space, q, rows[q], &mut bytes, 16)
                    .map_err(mem_err(q))?;
                for c in 0..8 {
                    mats[j][i][c] = u16::from_le_bytes([bytes[2 * c], bytes[2 * c + 1]]);
                }
            }
            let mut out: Regs = vec![[0u64; WARP_SIZE]; n];
            for (j, o) in out.iter_mut().enumerate() {
                for (l, v) in o.iter_mut().enumerate() {
                    for h in 0..2 {
                        let (r, c) = place(l, h);
                        *v |= (mats[j][r][c] as u64) << (16 * h);
                    }
                }
            }
            let d: Vec<R> = regs
                .iter()
                .filter_map(|s| match s {
                    Src::Reg(r) => Some(*r),
                    _ => None,
                })
                .collect();
            self.write_all(&d, &out, Mask::MAX);
        }
        obs.memory(&MemEvent {
            site,
            space: access_space(space, &rows, used),
            kind: if store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            size: 16,
            active: used,
            addrs: &rows,
        });
        Ok(())
    }
}

/// Where lane (g, t) of request q of a wmma access points: (storage row,
/// element).
type LanePlace = fn(usize, usize, usize) -> (usize, usize);

/// What one `wmma.load` or `wmma.store` reports to the observer: either
/// one request per fragment register ([`WmmaAccess::PerRegister`], as the
/// register loop moves them) or the requests its SASS makes.
struct WmmaTraffic {
    site: Site,
    access: WmmaAccess,
    space: MemSpace,
    kind: AccessKind,
    exec: Mask,
    esize: usize,
    per_reg: usize,
}

impl WmmaTraffic {
    /// One register's request (lane l at `addrs[l]`), where requests are
    /// per register.
    fn register<O: Observer>(&self, obs: &mut O, addrs: &L) {
        if self.access == WmmaAccess::PerRegister {
            self.report(obs, addrs, self.esize * self.per_reg);
        }
    }

    /// The SASS's requests ([`WmmaAccess`]), where its pattern is known:
    /// request by request, lane (g, t) = (l / 4, l % 4) addresses storage
    /// row `s`, element `e` of the tile at `base` with leading dimension
    /// `ld` (the layout's major dimension is the storage row).
    fn requests<O: Observer>(&self, obs: &mut O, base: &L, ld: &L) {
        // (bytes a lane, storage rows and columns, requests per 8 x 8 block,
        // (storage row, element) of lane (g, t) in request q of block (r, c))
        let (size, rows, cols, per_block, at): (usize, u8, u8, usize, LanePlace) = match self.access
        {
            WmmaAccess::PerRegister => return,
            WmmaAccess::Pairs16 { rows, cols } => (4, rows, cols, 1, |_, g, t| (g, 2 * t)),
            WmmaAccess::Rows32 { rows, cols } => (8, rows, cols, 1, |_, g, t| (g, 2 * t)),
            WmmaAccess::Cols32 { rows, cols } => (4, rows, cols, 2, |i, g, t| (2 * t + i, g)),
        };
        for r in 0..usize::from(rows / 8) {
            for c in 0..usize::from(cols / 8) {
                for q in 0..per_block {
                    let mut addrs = [0u64; WARP_SIZE];
                    for l in lanes(self.exec) {
                        let (s, e) = at(q, l / 4, l % 4);
                        addrs[l] =
                            elem_addr(base[l], ld[l], true, s + 8 * r, e + 8 * c, self.esize);
                    }
                    self.report(obs, &addrs, size);
                }
            }
        }
    }

    fn report<O: Observer>(&self, obs: &mut O, addrs: &L, size: usize) {
        obs.memory(&MemEvent {
            site: self.site,
            space: access_space(self.space, addrs, self.exec),
            kind: self.kind,
            size: size as u32,
            active: self.exec,
            addrs,
        });
    }
}

/// Address of element (r, c) of a matrix at `base` with leading dimension
/// `ld` elements, row- or column-major.
fn elem_addr(base: u64, ld: u64, row_major: bool, r: usize, c: usize, esize: usize) -> u64 {
    let idx = if row_major {
        r as u64 * ld + c as u64
    } else {
        c as u64 * ld + r as u64
    };
    base.wrapping_add(idx.wrapping_mul(esize as u64))
}
