//! Readers for the plain tables written by the gpu-benches microbenchmarks
//! (te42kyfo/gpu-benches; the files are in the shared ground-truth folder).
//!
//! Each reader keeps the numbers the calibration needs and reports a malformed
//! line as `file:line: error: ...`. The column meanings were read from the
//! benchmarks' own output statements:
//! - stream: `blockSize threads %occ | GB/s: <one column per kernel>`;
//! - latency: `iterations clock(MHz) footprint(kB) total(ms) cycles-per-load`,
//!   after a `clock:` line;
//! - small-kernels: `doubles volume(kB) <GB/s for block sizes 32, 64, ..., 1024>`,
//!   where the volume counts both arrays read and written;
//! - cache: `data-set(kB) time spread effective-GB/s DRAM-read DRAM-write L2-read L2-store`;
//! - l2-cache: `block-data(kB) data-set(kB) time spread effective-GB/s ...`.

use crate::FitError;

/// One row of a stream table.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRow {
    pub block_size: u32,
    pub threads: u64,
    /// Occupancy in percent of the SM's thread slots.
    pub occupancy_pct: f64,
    /// Bandwidth in GB/s, one value per kernel column.
    pub gbps: Vec<f64>,
}

/// A stream table: bandwidth of several kernels against occupancy.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamTable {
    pub kernels: Vec<String>,
    pub rows: Vec<StreamRow>,
}

/// One pointer-chase measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyPoint {
    pub clock_mhz: f64,
    pub footprint_kb: f64,
    pub cycles: f64,
}

/// Launch-to-launch behaviour of small kernels: one row per volume.
#[derive(Debug, Clone, PartialEq)]
pub struct SmallKernelRow {
    /// Bytes moved by one kernel (both arrays).
    pub bytes: f64,
    /// GB/s per block size.
    pub gbps: Vec<f64>,
}

/// The block sizes of the small-kernels columns, in order.
pub const SMALL_KERNEL_BLOCK_SIZES: [u32; 6] = [32, 64, 128, 256, 512, 1024];

/// Effective bandwidth against data-set size (cache and l2-cache benchmarks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandwidthPoint {
    pub data_set_kb: f64,
    pub gbps: f64,
}

fn err(file: &str, line: usize, message: impl Into<String>) -> FitError {
    FitError::Parse {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

fn num(file: &str, line: usize, tok: &str, what: &str) -> Result<f64, FitError> {
    tok.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            err(
                file,
                line,
                format!("expected a number for {what}, found `{tok}`"),
            )
        })
}

/// Strip a unit suffix such as `kB`, `ms`, `%` from a token.
fn strip_unit<'a>(tok: &'a str, units: &[&str]) -> &'a str {
    units
        .iter()
        .find_map(|u| tok.strip_suffix(u))
        .unwrap_or(tok)
}

pub fn parse_stream(file: &str, text: &str) -> Result<StreamTable, FitError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| err(file, 1, "empty stream table"))?;
    let kernels: Vec<String> = match header.split_once('|') {
        Some((_, k)) => k.split_whitespace().map(str::to_string).collect(),
        None => {
            return Err(err(
                file,
                1,
                "expected a header with `|` before the kernel names",
            ));
        }
    };
    if kernels.is_empty() {
        return Err(err(file, 1, "the header names no kernels"));
    }
    let mut rows = Vec::new();
    for (idx, line) in lines {
        let n = idx + 1;
        let Some((left, right)) = line.split_once('|') else {
            return Err(err(
                file,
                n,
                "expected `|` between the launch and the bandwidths",
            ));
        };
        let l: Vec<&str> = left.split_whitespace().collect();
        if l.len() < 3 {
            return Err(err(file, n, "expected block size, threads and occupancy"));
        }
        let block_size = num(file, n, l[0], "block size")? as u32;
        let threads = num(file, n, l[1], "threads")? as u64;
        let occupancy_pct = num(file, n, strip_unit(l[2], &["%"]), "occupancy")?;
        let gbps = right
            .split_whitespace()
            .filter(|t| *t != "GB/s:")
            .map(|t| num(file, n, t, "bandwidth"))
            .collect::<Result<Vec<_>, _>>()?;
        if gbps.len() != kernels.len() {
            return Err(err(
                file,
                n,
                format!(
                    "expected {} bandwidths, found {}",
                    kernels.len(),
                    gbps.len()
                ),
            ));
        }
        rows.push(StreamRow {
            block_size,
            threads,
            occupancy_pct,
            gbps,
        });
    }
    Ok(StreamTable { kernels, rows })
}

pub fn parse_latency(file: &str, text: &str) -> Result<Vec<LatencyPoint>, FitError> {
    let mut out = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let n = idx + 1;
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.is_empty() || t[0] == "clock:" {
            continue;
        }
        if t.len() != 5 {
            return Err(err(
                file,
                n,
                format!("expected 5 columns, found {}", t.len()),
            ));
        }
        out.push(LatencyPoint {
            clock_mhz: num(file, n, t[1], "clock")?,
            footprint_kb: num(file, n, t[2], "footprint")?,
            cycles: num(file, n, t[4], "cycles")?,
        });
    }
    Ok(out)
}

pub fn parse_small_kernels(file: &str, text: &str) -> Result<Vec<SmallKernelRow>, FitError> {
    let mut out = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let n = idx + 1;
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.is_empty() {
            continue;
        }
        if t.len() != 2 + SMALL_KERNEL_BLOCK_SIZES.len() {
            return Err(err(
                file,
                n,
                format!(
                    "expected {} columns, found {}",
                    2 + SMALL_KERNEL_BLOCK_SIZES.len(),
                    t.len()
                ),
            ));
        }
        let doubles = num(file, n, t[0], "element count")?;
        let gbps = t[2..]
            .iter()
            .map(|x| num(file, n, x, "bandwidth"))
            .collect::<Result<Vec<_>, _>>()?;
        // Two arrays of doubles: one read, one written.
        out.push(SmallKernelRow {
            bytes: doubles * 16.0,
            gbps,
        });
    }
    Ok(out)
}

/// Cache tables: `skip` leading size columns before the effective bandwidth
/// (1 for gpu-cache, 2 for gpu-l2-cache, whose first column is the per-block
/// data size). The data-set size is the last of those size columns.
fn parse_bandwidth_table(
    file: &str,
    text: &str,
    sizes: usize,
) -> Result<Vec<BandwidthPoint>, FitError> {
    let mut out = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let n = idx + 1;
        if idx == 0 || line.trim().is_empty() {
            continue; // header
        }
        // Tokens come in (value, unit) pairs for sizes and bandwidths.
        let t: Vec<&str> = line.split_whitespace().collect();
        let need = sizes * 2 + 4;
        if t.len() < need {
            return Err(err(
                file,
                n,
                format!("expected at least {need} fields, found {}", t.len()),
            ));
        }
        let data_set_kb = num(file, n, t[(sizes - 1) * 2], "data-set size")?;
        // After the sizes: time, spread, then the effective bandwidth and its unit.
        let bw_at = sizes * 2 + 2;
        if t.get(bw_at + 1) != Some(&"GB/s") {
            return Err(err(file, n, "expected the effective bandwidth in GB/s"));
        }
        out.push(BandwidthPoint {
            data_set_kb,
            gbps: num(file, n, t[bw_at], "bandwidth")?,
        });
    }
    Ok(out)
}

pub fn parse_cache(file: &str, text: &str) -> Result<Vec<BandwidthPoint>, FitError> {
    parse_bandwidth_table(file, text, 1)
}

pub fn parse_l2_cache(file: &str, text: &str) -> Result<Vec<BandwidthPoint>, FitError> {
    parse_bandwidth_table(file, text, 2)
}
