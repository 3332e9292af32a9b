//! Reading back what the model needs from `gpus/calibrated/<id>.toml`
//! (written by `ptxperf fit gpu-benches --write`): the stream fits and the
//! launch overhead.

use super::inputs::BandwidthCurve;
use crate::FitError;
use crate::calibration::Calibration;

/// The parts of a calibration file the combinator model reads.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibratedGpu {
    pub gpu: String,
    /// One curve per stream kernel column (init, read, scale, triad, ...).
    pub streams: Vec<BandwidthCurve>,
    pub launch_overhead_us: Option<f64>,
    /// The file's `[source]` entry for `stream` and `small-kernels`.
    pub stream_source: Option<String>,
    pub launch_source: Option<String>,
}

impl CalibratedGpu {
    /// The curve of the stream kernel `name`.
    pub fn stream(&self, name: &str) -> Option<&BandwidthCurve> {
        self.streams.iter().find(|c| c.kernel() == name)
    }
}

/// Parse a calibration file; `file` names it in errors.
pub fn parse_calibrated(file: &str, text: &str) -> Result<CalibratedGpu, FitError> {
    let f = Calibration::from_toml(file, text)?;
    Ok(CalibratedGpu {
        gpu: f.gpu,
        streams: f
            .stream
            .iter()
            .map(|s| BandwidthCurve::Calibrated {
                kernel: s.kernel.clone(),
                peak_gbps: s.peak_gbps,
                saturation_pct: s.saturation_occupancy_pct,
            })
            .collect(),
        launch_overhead_us: f.launch.map(|l| l.overhead_us),
        stream_source: f.source.get("stream").cloned(),
        launch_source: f.source.get("small-kernels").cloned(),
    })
}
