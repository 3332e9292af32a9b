//! Calibrated microbenchmark figures (`gpus/calibrated/<id>.toml`, written by
//! `ptxperf fit gpu-benches`), read as plain data.
//!
//! Only the fields the timing model uses are read; the file format is
//! `fit::bench_dir::Calibration`. The files of the repository are embedded
//! ([`bundled`]) so that the model stays a pure function of its inputs; a
//! caller may also parse another file with [`Calibration::from_toml`].

use serde::Deserialize;

/// The subset of a calibration file the timing model uses. Every figure is
/// optional: a GPU may have been measured by only some microbenchmarks.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Calibration {
    /// Catalog id of the GPU.
    pub gpu: String,
    /// Plateau of the best stream kernel, GB/s (1 GB = 1e9 B).
    #[serde(default)]
    pub stream_peak_gbps: Option<f64>,
    /// Pointer-chase latency levels.
    #[serde(default)]
    pub latency: Option<LatencyLevels>,
    /// L1 bandwidth levels (gpu-cache).
    #[serde(default)]
    pub l1_bandwidth: Option<BandwidthLevels>,
    /// L2 bandwidth levels (gpu-l2-cache).
    #[serde(default)]
    pub l2_bandwidth: Option<BandwidthLevels>,
    /// Launch overhead (gpu-small-kernels).
    #[serde(default)]
    pub launch: Option<LaunchOverhead>,
}

/// Latency plateaus of the pointer chase, cycles at `clock_mhz`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LatencyLevels {
    /// Clock of the measurement, MHz.
    pub clock_mhz: f64,
    /// L1 hit, cycles.
    pub l1_hit_cycles: f64,
    /// L2 hit, cycles.
    pub l2_hit_cycles: f64,
    /// DRAM, cycles.
    pub dram_cycles: f64,
}

/// Bandwidth plateaus of a cache benchmark, GB/s.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct BandwidthLevels {
    /// Bandwidth of the innermost level measured (the cache itself), GB/s.
    pub first_level_gbps: f64,
}

/// Launch overhead fit.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LaunchOverhead {
    /// Smallest intercept over block sizes, microseconds per kernel.
    pub overhead_us: f64,
}

impl Calibration {
    /// Parse a calibration file; unknown fields are ignored (the fit writes more).
    pub fn from_toml(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}

/// The calibration files of the repository, by catalog id.
const BUNDLED: [(&str, &str); 4] = [
    (
        "a100-sxm4-80gb",
        include_str!("../../../../gpus/calibrated/a100-sxm4-80gb.toml"),
    ),
    (
        "h100-pcie-80gb",
        include_str!("../../../../gpus/calibrated/h100-pcie-80gb.toml"),
    ),
    (
        "h200-sxm-141gb",
        include_str!("../../../../gpus/calibrated/h200-sxm-141gb.toml"),
    ),
    (
        "tesla-v100-sxm2-16gb",
        include_str!("../../../../gpus/calibrated/tesla-v100-sxm2-16gb.toml"),
    ),
];

/// The bundled calibration of GPU `id`, if the repository has one that parses.
pub fn bundled(id: &str) -> Option<Calibration> {
    BUNDLED
        .iter()
        .find(|(k, _)| *k == id)
        .and_then(|(_, text)| Calibration::from_toml(text).ok())
}

/// Ids of the GPUs with a bundled calibration.
pub fn bundled_ids() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(k, _)| *k)
}
