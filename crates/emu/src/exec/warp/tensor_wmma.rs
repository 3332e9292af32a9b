//! `wmma` fragments and their multiply: where a fragment's elements sit in
//! its matrix (the layout of the tensor module's comment) and D = A B + C
//! for every kind (f16, bf16 and tf32 in f32; 8-bit integers exactly, then
//! clamped or wrapped to s32; f64 with a fused multiply-add per k step).
//! A warp's whole matrices are gathered into fixed buffers (no allocation
//! per instruction), floating-point inputs converted once.

use half::{bf16, f16};

use super::tensor::Regs;
use crate::exec::ops::{WmmaElem, WmmaFrag, WmmaShape};
use crate::simt::WARP_SIZE;

/// Elements of the largest fragment matrix (m32n8k16's A, m8n32k16's B).
const MAX_ELEMS: usize = 512;

/// Where the elements of a wmma fragment sit in its matrix (the layout of
/// the module comment): the matrix in storage order (A and the accumulator
/// by rows, B by columns) cut into runs of `per_lane` elements, run `q` in
/// lanes q, q + runs, ...: the fragment is replicated when the lanes hold
/// more than the matrix (f16 A and B).
pub(super) struct FragLayout {
    frag: WmmaFrag,
    rows: usize,
    cols: usize,
    per_lane: usize,
    runs: usize,
}

impl FragLayout {
    pub(super) fn new(shape: WmmaShape, frag: WmmaFrag, elem: WmmaElem, regs: usize) -> Self {
        let (rows, cols) = shape.dims(frag);
        let per_lane = (regs * elem.per_reg()).max(1);
        let runs = (rows * cols).div_ceil(per_lane).clamp(1, WARP_SIZE);
        FragLayout {
            frag,
            rows,
            cols,
            per_lane,
            runs,
        }
    }

    /// (row, column) of element `e` of lane `l`.
    pub(super) fn coord(&self, l: usize, e: usize) -> (usize, usize) {
        let idx = ((l % self.runs) * self.per_lane + e) % (self.rows * self.cols);
        match self.frag {
            WmmaFrag::B => (idx % self.rows, idx / self.rows),
            _ => (idx / self.cols, idx % self.cols),
        }
    }
}

/// The raw bits of a whole fragment's matrix, row-major, from the lanes'
/// registers, into `m` (at most [`MAX_ELEMS`] elements: the decoder admits
/// only the ISA's shapes).
fn gather(regs: &Regs, shape: WmmaShape, frag: WmmaFrag, elem: WmmaElem, m: &mut [u64]) {
    let layout = FragLayout::new(shape, frag, elem, regs.len());
    let (bits, per_reg) = (elem.bits(), elem.per_reg());
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for l in 0..WARP_SIZE {
        for (j, r) in regs.iter().enumerate() {
            for h in 0..per_reg {
                let (row, col) = layout.coord(l, per_reg * j + h);
                if let Some(x) = m.get_mut(row * layout.cols + col) {
                    *x = (r[l] >> (bits * h)) & mask;
                }
            }
        }
    }
}

/// The accumulator registers (`n_regs` of them) that hold the row-major
/// matrix `m`.
fn scatter(m: &[u64], n_regs: usize, shape: WmmaShape, elem: WmmaElem) -> Regs {
    let layout = FragLayout::new(shape, WmmaFrag::Acc, elem, n_regs);
    let (bits, per_reg) = (elem.bits(), elem.per_reg());
    let mut out: Regs = vec![[0u64; WARP_SIZE]; n_regs];
    for l in 0..WARP_SIZE {
        for (j, r) in out.iter_mut().enumerate() {
            for h in 0..per_reg {
                let (row, col) = layout.coord(l, per_reg * j + h);
                r[l] |= m.get(row * layout.cols + col).copied().unwrap_or(0) << (bits * h);
            }
        }
    }
    out
}

/// A floating-point fragment element as the multiplier reads it: f16 and
/// bf16 widened exactly, tf32 as its 19 high bits.
fn float_elem(bits: u64, elem: WmmaElem) -> f32 {
    match elem {
        WmmaElem::F16 => f16::from_bits(bits as u16).to_f32(),
        WmmaElem::Bf16 => bf16::from_bits(bits as u16).to_f32(),
        WmmaElem::Tf32 => f32::from_bits(bits as u32 & !0x1fff),
        _ => f32::from_bits(bits as u32),
    }
}

/// One `wmma.mma`: its shape and the kinds of its operands.
pub(super) struct WmmaKinds {
    pub shape: WmmaShape,
    pub ab: WmmaElem,
    pub c: WmmaElem,
    pub d: WmmaElem,
    pub satfinite: bool,
}

impl WmmaKinds {
    /// D = A B + C over the warp's fragments, as `d_regs` registers.
    pub(super) fn run(&self, a: &Regs, b: &Regs, c: &Regs, d_regs: usize) -> Regs {
        let (m, n, k) = (
            self.shape.m as usize,
            self.shape.n as usize,
            self.shape.k as usize,
        );
        let mut am = [0u64; MAX_ELEMS];
        let mut bm = [0u64; MAX_ELEMS];
        let mut cm = [0u64; MAX_ELEMS];
        gather(a, self.shape, WmmaFrag::A, self.ab, &mut am);
        gather(b, self.shape, WmmaFrag::B, self.ab, &mut bm);
        gather(c, self.shape, WmmaFrag::Acc, self.c, &mut cm);
        // B transposed (n x k), so that each dot product reads two rows.
        let mut bt = [0u64; MAX_ELEMS];
        for kk in 0..k {
            for j in 0..n {
                bt[j * k + kk] = bm[kk * n + j];
            }
        }
        let mut dm = [0u64; MAX_ELEMS];
        match self.ab {
            WmmaElem::S8 | WmmaElem::U8 => {
                let signed = self.ab == WmmaElem::S8;
                let int = |bits: u64| {
                    if signed {
                        bits as u8 as i8 as i64
                    } else {
                        bits as u8 as i64
                    }
                };
                for i in 0..m {
                    for j in 0..n {
                        let (ar, br) = (&am[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k]);
                        let sum = ar
                            .iter()
                            .zip(br)
                            .fold(cm[i * n + j] as u32 as i32 as i64, |acc, (x, y)| {
                                acc + int(*x) * int(*y)
                            });
                        let v = if self.satfinite {
                            sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                        } else {
                            sum as i32
                        };
                        dm[i * n + j] = v as u32 as u64;
                    }
                }
            }
            WmmaElem::F64 => {
                let f = f64::from_bits;
                for i in 0..m {
                    for j in 0..n {
                        let (ar, br) = (&am[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k]);
                        let v = ar
                            .iter()
                            .zip(br)
                            .fold(f(cm[i * n + j]), |acc, (x, y)| f(*x).mul_add(f(*y), acc));
                        dm[i * n + j] = v.to_bits();
                    }
                }
            }
            _ => {
                // Products of f16, bf16 or tf32 inputs are exact in f32;
                // the sum is rounded at each addition, k ascending.
                let mut af = [0f32; MAX_ELEMS];
                let mut bf = [0f32; MAX_ELEMS];
                for (x, bits) in af.iter_mut().zip(&am[..m * k]) {
                    *x = float_elem(*bits, self.ab);
                }
                for (x, bits) in bf.iter_mut().zip(&bt[..n * k]) {
                    *x = float_elem(*bits, self.ab);
                }
                for i in 0..m {
                    for j in 0..n {
                        let (ar, br) = (&af[i * k..(i + 1) * k], &bf[j * k..(j + 1) * k]);
                        let v = ar
                            .iter()
                            .zip(br)
                            .fold(float_elem(cm[i * n + j], self.c), |acc, (x, y)| acc + x * y);
                        dm[i * n + j] = match self.d {
                            WmmaElem::F16 => f16::from_f32(v).to_bits() as u64,
                            _ => v.to_bits() as u64,
                        };
                    }
                }
            }
        }
        scatter(&dm[..m * n], d_regs, self.shape, self.d)
    }
}
