//! Calibration of GPU parameters from the gpu-benches microbenchmarks.
//!
//! - Stream bandwidth against occupancy: a hinge (rise, then plateau) per
//!   kernel column; the fitted value at the highest measured occupancy is the
//!   sustainable DRAM bandwidth, the hinge is the occupancy that saturates it.
//! - Latency against footprint, and cache bandwidth against data-set size:
//!   piecewise-constant levels found by optimal segmentation (dynamic
//!   programming over the points sorted by size, the number of levels chosen by
//!   the Bayesian information criterion). The first level is the L1 (or the
//!   L2 for the l2-cache benchmark), the last the DRAM, the longest one in
//!   between the L2.
//! - Launch overhead: the intercept of time against bytes for small kernels,
//!   fitted where the data is still resident in L2.

use crate::FitError;
use crate::forms::{Fitted, Form, fit_form};
use crate::gpubench::{
    BandwidthPoint, LatencyPoint, SMALL_KERNEL_BLOCK_SIZES, SmallKernelRow, StreamTable,
};
use crate::linear::fit_line;
pub use arch::calibration::{CacheBandwidthFit, LatencyFit, LaunchFit, Level, StreamFit};

/// Fit every kernel column of a stream table.
pub fn fit_stream(table: &StreamTable) -> Result<Vec<StreamFit>, FitError> {
    let xs: Vec<f64> = table.rows.iter().map(|r| r.occupancy_pct).collect();
    let x_max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out = Vec::new();
    for (k, name) in table.kernels.iter().enumerate() {
        let ys: Vec<f64> = table.rows.iter().map(|r| r.gbps[k]).collect();
        let fitted = fit_form(Form::Hinge, &xs, &ys)?;
        let hinge = match fitted.model {
            crate::forms::Model::Hinge { xb, .. } => xb,
            _ => f64::NAN,
        };
        out.push(StreamFit {
            kernel: name.clone(),
            peak_gbps: fitted.model.eval(x_max),
            file_max_gbps: ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            saturation_occupancy_pct: hinge,
            r2: fitted.r2,
        });
    }
    Ok(out)
}

/// Split `(size, value)` points, sorted by size, into constant levels.
///
/// Optimal segmentation by dynamic programming minimises the squared error
/// of each level around its mean; the number of levels k (1 to `max_levels`)
/// minimises `n ln(SSE/n) + k' ln n` with k' = 2k - 1 free parameters (k
/// means and k - 1 boundaries). Values are compared in log space so that a
/// 30-cycle level is resolved as well as a 600-cycle one. Levels have at least
/// `min_len` points; transition points (partial hits between two caches)
/// therefore join a neighbouring level instead of forming their own.
pub fn segment_levels(points: &[(f64, f64)], max_levels: usize, min_len: usize) -> Vec<Level> {
    let mut pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1 > 0.0)
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = pts.len();
    let min_len = min_len.max(1);
    if n == 0 {
        return Vec::new();
    }
    let ys: Vec<f64> = pts.iter().map(|p| p.1.ln()).collect();
    // Prefix sums give the SSE of any range in O(1).
    let mut s1 = vec![0.0; n + 1];
    let mut s2 = vec![0.0; n + 1];
    for i in 0..n {
        s1[i + 1] = s1[i] + ys[i];
        s2[i + 1] = s2[i] + ys[i] * ys[i];
    }
    let sse = |a: usize, b: usize| {
        let m = (b - a) as f64;
        let s = s1[b] - s1[a];
        (s2[b] - s2[a] - s * s / m).max(0.0)
    };
    let max_k = max_levels.min(n / min_len).max(1);
    // cost[k][j]: best SSE of the first j points in k levels; cut[k][j]: start of the last level.
    let mut cost = vec![vec![f64::INFINITY; n + 1]; max_k + 1];
    let mut cut = vec![vec![0usize; n + 1]; max_k + 1];
    cost[0][0] = 0.0;
    for k in 1..=max_k {
        for j in k * min_len..=n {
            for i in (k - 1) * min_len..=j - min_len {
                if cost[k - 1][i].is_finite() {
                    let c = cost[k - 1][i] + sse(i, j);
                    if c < cost[k][j] {
                        cost[k][j] = c;
                        cut[k][j] = i;
                    }
                }
            }
        }
    }
    let nf = n as f64;
    let best_k = (1..=max_k)
        .filter(|&k| cost[k][n].is_finite())
        .min_by(|&a, &b| {
            let bic =
                |k: usize| nf * (cost[k][n] / nf).max(1e-12).ln() + (2 * k - 1) as f64 * nf.ln();
            bic(a).total_cmp(&bic(b))
        })
        .unwrap_or(1);
    let mut bounds = Vec::new();
    let mut j = n;
    for k in (1..=best_k).rev() {
        let i = cut[k][j];
        bounds.push((i, j));
        j = i;
    }
    bounds.reverse();
    bounds
        .into_iter()
        .map(|(a, b)| {
            let mut vals: Vec<f64> = pts[a..b].iter().map(|p| p.1).collect();
            vals.sort_by(f64::total_cmp);
            let mid = vals.len() / 2;
            let median = if vals.len() % 2 == 1 {
                vals[mid]
            } else {
                (vals[mid - 1] + vals[mid]) / 2.0
            };
            Level {
                from_kb: pts[a].0,
                to_kb: pts[b - 1].0,
                value: median,
                n_points: b - a,
            }
        })
        .collect()
}

/// Name the first level L1, the last DRAM and the longest middle one L2.
fn name_levels(levels: &[Level]) -> Option<(Level, Level, Level)> {
    if levels.len() < 3 {
        return None;
    }
    let first = levels[0];
    let last = levels[levels.len() - 1];
    let mid = *levels[1..levels.len() - 1]
        .iter()
        .max_by_key(|l| l.n_points)?;
    Some((first, mid, last))
}

pub fn fit_latency(points: &[LatencyPoint]) -> Result<LatencyFit, FitError> {
    let pts: Vec<(f64, f64)> = points.iter().map(|p| (p.footprint_kb, p.cycles)).collect();
    let levels = segment_levels(&pts, 6, 3);
    let (l1, l2, dram) = name_levels(&levels).ok_or_else(|| FitError::Degenerate {
        form: "levels",
        message: format!(
            "found {} latency levels; need L1, L2 and DRAM",
            levels.len()
        ),
    })?;
    let clock_mhz = points.first().map(|p| p.clock_mhz).unwrap_or(f64::NAN);
    Ok(LatencyFit {
        clock_mhz,
        l1_hit_cycles: l1.value,
        l2_hit_cycles: l2.value,
        dram_cycles: dram.value,
        l1_reach_kb: l1.to_kb,
        l2_reach_kb: l2.to_kb,
        levels,
    })
}

pub fn fit_cache_bandwidth(points: &[BandwidthPoint]) -> Result<CacheBandwidthFit, FitError> {
    let pts: Vec<(f64, f64)> = points.iter().map(|p| (p.data_set_kb, p.gbps)).collect();
    let levels = segment_levels(&pts, 5, 3);
    let (first, last) = match (levels.first(), levels.last()) {
        (Some(f), Some(l)) => (*f, *l),
        _ => {
            return Err(FitError::Degenerate {
                form: "levels",
                message: "no bandwidth points".into(),
            });
        }
    };
    Ok(CacheBandwidthFit {
        first_level_gbps: first.value,
        first_level_reach_kb: first.to_kb,
        last_level_gbps: last.value,
        levels,
    })
}

/// Kernels that move at most this many bytes are launch-bound enough, and
/// L2-resident on the GPUs measured, for time to be linear in bytes.
pub const LAUNCH_FIT_MAX_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

pub fn fit_launch(rows: &[SmallKernelRow]) -> Result<LaunchFit, FitError> {
    let small: Vec<&SmallKernelRow> = rows
        .iter()
        .filter(|r| r.bytes <= LAUNCH_FIT_MAX_BYTES)
        .collect();
    let mut per = Vec::new();
    for (k, &bs) in SMALL_KERNEL_BLOCK_SIZES.iter().enumerate() {
        let xs: Vec<f64> = small.iter().map(|r| r.bytes / 1e6).collect();
        // bytes / (GB/s) = ns; in µs divide by 1e3.
        let ys: Vec<f64> = small.iter().map(|r| r.bytes / r.gbps[k] / 1e3).collect();
        let l = fit_line(&xs, &ys)?;
        per.push((bs, l.b, l.a, l.r2));
    }
    let overhead_us = per.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    Ok(LaunchFit {
        overhead_us,
        per_block_size: per,
        max_bytes: LAUNCH_FIT_MAX_BYTES,
    })
}

/// A fitted form kept with its data for plotting.
pub struct Curve {
    pub title: String,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub fitted: Fitted,
}
