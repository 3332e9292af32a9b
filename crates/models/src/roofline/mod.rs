//! The roofline family (models.md 6): classic (Williams, Waterman and Patterson
//! 2009) and hierarchical (Yang, Kurth and Williams).
//!
//! ```text
//! RL-1  I = W / Q                       operational intensity, work per byte
//! RL-2  P(I) = min(pi, beta * I)        attainable performance
//! RL-3  I_ridge = pi / beta
//! RL-4  T = max(W / pi, Q / beta)       (classic: the DRAM level only)
//! HR-3  T = max(W / pi, max_l Q_l / beta_l); the binding level is the argmax
//! ```
//! Work is flops when the kernel has any; otherwise it is operations (every
//! thread instruction that computes) against a roof of one operation per lane
//! per cycle: see [`adapter`]. [`svg`] draws the chart.

pub mod adapter;
pub mod svg;

use crate::prediction::{ModelError, non_negative, positive};

const MODEL: &str = "roofline";

/// One level of the memory hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// `DRAM`, `L2`, `shared`.
    pub name: String,
    /// Bytes the kernel moves at this level, `Q_l`.
    pub bytes: f64,
    /// Peak bandwidth `beta_l`, bytes per second.
    pub bandwidth: f64,
}

/// Work, compute roof and memory levels.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineParams {
    /// `W`, in the unit of `peak` (flop, or operations).
    pub work: f64,
    /// `pi`, work per second.
    pub peak: f64,
    /// The memory levels; the classic roofline has only DRAM.
    pub levels: Vec<Level>,
}

/// Per-level figures.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelResult {
    pub name: String,
    /// `I_l = W / Q_l` (infinite when nothing moves).
    pub intensity: f64,
    /// `pi / beta_l`.
    pub ridge: f64,
    /// `Q_l / beta_l`, seconds.
    pub seconds: f64,
    /// `min(pi, beta_l * I_l)`, work per second.
    pub attainable: f64,
}

/// The lower bound and what binds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineResult {
    /// `W / pi`, seconds.
    pub compute_seconds: f64,
    pub levels: Vec<LevelResult>,
    /// `T`, seconds.
    pub seconds: f64,
    /// `compute` or the binding level's name.
    pub binding: String,
}

/// RL-3: the ridge point `pi / beta`.
pub fn ridge(peak: f64, bandwidth: f64) -> f64 {
    peak / bandwidth
}

/// RL-2: attainable performance at intensity `i`.
pub fn attainable(peak: f64, bandwidth: f64, intensity: f64) -> f64 {
    peak.min(bandwidth * intensity)
}

/// Evaluate RL-1 to RL-4 / HR-1 to HR-3.
pub fn evaluate(p: &RooflineParams) -> Result<RooflineResult, ModelError> {
    positive(MODEL, "peak", p.peak)?;
    non_negative(MODEL, "work", p.work)?;
    let compute_seconds = p.work / p.peak;
    let mut seconds = compute_seconds;
    let mut binding = "compute".to_string();
    let mut levels = Vec::with_capacity(p.levels.len());
    for l in &p.levels {
        positive(MODEL, &format!("{} bandwidth", l.name), l.bandwidth)?;
        non_negative(MODEL, &format!("{} bytes", l.name), l.bytes)?;
        let intensity = if l.bytes > 0.0 {
            p.work / l.bytes
        } else {
            f64::INFINITY
        };
        let level_seconds = l.bytes / l.bandwidth;
        if level_seconds > seconds {
            seconds = level_seconds;
            binding = l.name.clone();
        }
        levels.push(LevelResult {
            name: l.name.clone(),
            intensity,
            ridge: ridge(p.peak, l.bandwidth),
            seconds: level_seconds,
            attainable: attainable(p.peak, l.bandwidth, intensity),
        });
    }
    Ok(RooflineResult {
        compute_seconds,
        levels,
        seconds,
        binding,
    })
}

#[cfg(test)]
mod tests;
