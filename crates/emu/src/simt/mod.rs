//! Warp-level SIMT state: masks, the reconvergence stack, and the
//! CTA's barriers.

pub mod barrier;
pub mod stack;

/// Threads per warp on every NVIDIA GPU so far.
pub const WARP_SIZE: usize = 32;

/// One bit per lane: bit i set when lane i takes part.
pub type Mask = u32;

/// Default instruction budget, in warp instructions per warp (2^24, about
/// 1.7e7). A warp stuck in a loop is stopped after this many, well under a
/// second in a release build. Real kernels stay far below: a warp of a
/// 1024 x 1024 x 1024 tiled matrix multiplication issues about 10^5.
pub const DEFAULT_WARP_FUEL: u64 = 1 << 24;

/// Lanes set in `mask`, lowest first.
#[inline]
pub fn lanes(mut mask: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(l)
        }
    })
}

/// The mask of the first `n` lanes (a partial last warp has fewer than 32 threads).
#[inline]
pub fn first_lanes(n: usize) -> Mask {
    if n >= WARP_SIZE {
        Mask::MAX
    } else {
        (1u32 << n) - 1
    }
}
