//! Reference models for the tests, written independently of the crate: the
//! CC 1.2 protocol as the CUDA Programming Guide states it (a loop that serves
//! the lowest pending thread's segment, then shrinks it), and the sector
//! protocol by enumerating every byte touched.

#![allow(dead_code)]

pub mod corpus;

use std::collections::BTreeSet;

/// One lane's access: (lane, address).
pub type LaneAccess = (usize, u64);

/// The guide's CC 1.2 loop, for one warp: (transactions, bytes transferred).
pub fn cc12_reference(accesses: &[LaneAccess], size: u64) -> (u64, u64) {
    let segment = match size {
        1 => 32,
        2 => 64,
        _ => 128,
    };
    let mut transactions = 0;
    let mut bytes = 0;
    for half in 0..2 {
        let mut pending: Vec<LaneAccess> = accesses
            .iter()
            .copied()
            .filter(|&(l, _)| l / 16 == half)
            .collect();
        pending.sort();
        while let Some(&(_, first_addr)) = pending.first() {
            let base = first_addr - first_addr % segment;
            let (served, rest): (Vec<LaneAccess>, Vec<LaneAccess>) = pending
                .iter()
                .copied()
                .partition(|&(_, a)| a >= base && a < base + segment);
            let used: BTreeSet<u64> = served.iter().flat_map(|&(_, a)| a..a + size).collect();
            let (mut lo, mut len) = (base, segment);
            loop {
                if len == 32 {
                    break;
                }
                let mid = lo + len / 2;
                if used.iter().all(|&b| b < mid) {
                    len /= 2;
                } else if used.iter().all(|&b| b >= mid) {
                    lo = mid;
                    len /= 2;
                } else {
                    break;
                }
            }
            let _ = lo;
            transactions += 1;
            bytes += len;
            pending = rest;
        }
    }
    (transactions, bytes)
}

/// Sector protocol by enumerating bytes: (sectors, distinct bytes used).
pub fn sectors_reference(accesses: &[LaneAccess], size: u64) -> (u64, u64) {
    let bytes: BTreeSet<u64> = accesses.iter().flat_map(|&(_, a)| a..a + size).collect();
    let sectors: BTreeSet<u64> = bytes.iter().map(|b| b / 32).collect();
    (sectors.len() as u64, bytes.len() as u64)
}

pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Kothapalli et al.'s Listing 1 index formula: the element thread `t` of
/// block `b` touches in iteration `k`, or None past its end.
pub fn listing1_index(
    stride: u64,
    per: u64,
    block_dim: u64,
    n: u64,
    b: u64,
    t: u64,
    k: u64,
) -> Option<u64> {
    let start = per * b * block_dim + (t / stride) * per * stride + (t % stride);
    let end = (start + per * stride).min(n);
    let idx = start + k * stride;
    (idx < end).then_some(idx)
}
