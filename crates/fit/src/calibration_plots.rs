//! The data behind the calibration SVGs of `ptxperf fit gpu-benches --svg`:
//! the fastest stream kernel's bandwidth against occupancy with its hinge
//! fit, and the latency plateaus against footprint.

use crate::FitError;
use crate::bench_dir::Calibration;
use crate::forms::{Form, Model, fit_form};
use crate::gpubench;
use crate::plot::PlotSpec;
use std::path::{Path, PathBuf};

/// One plot to draw, owning its points.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationPlot {
    /// The SVG's file name, `<gpu>-stream.svg` or `<gpu>-latency.svg`.
    pub file_name: String,
    pub title: String,
    pub x_label: &'static str,
    pub y_label: &'static str,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub model: Option<Model>,
    pub log_x: bool,
}

impl CalibrationPlot {
    /// What [`crate::plot::render_svg`] draws.
    pub fn spec(&self) -> PlotSpec<'_> {
        PlotSpec {
            title: &self.title,
            x_label: self.x_label,
            y_label: self.y_label,
            xs: &self.xs,
            ys: &self.ys,
            model: self.model.as_ref(),
            log_x: self.log_x,
        }
    }
}

/// A gpu-benches file that could not be read or fitted again.
#[derive(Debug, thiserror::Error)]
pub enum PlotDataError {
    #[error("{}: error: cannot read file: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// The plots of calibration `c`, whose stream table is read again from
/// `data_dir` (the file its `source` names) to draw the points.
pub fn calibration_plots(
    data_dir: &Path,
    c: &Calibration,
) -> Result<Vec<CalibrationPlot>, PlotDataError> {
    let mut plots = Vec::new();
    let stream_file = c
        .source
        .get("stream")
        .and_then(|s| s.rsplit("file ").next())
        .map(str::to_string);
    if let Some(name) = stream_file {
        let path = data_dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(|e| PlotDataError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let table = gpubench::parse_stream(&name, &text)?;
        let fastest = c
            .stream
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.peak_gbps.total_cmp(&b.1.peak_gbps));
        if let Some((k, kernel)) = fastest {
            let (xs, ys): (Vec<f64>, Vec<f64>) = table
                .rows
                .iter()
                .filter_map(|r| Some((r.occupancy_pct, *r.gbps.get(k)?)))
                .unzip();
            let fitted = fit_form(Form::Hinge, &xs, &ys)?;
            plots.push(CalibrationPlot {
                file_name: format!("{}-stream.svg", c.gpu),
                title: format!("{}: stream {} bandwidth vs occupancy", c.gpu, kernel.kernel),
                x_label: "occupancy (%)",
                y_label: "GB/s",
                xs,
                ys,
                model: Some(fitted.model),
                log_x: false,
            });
        }
    }
    if let Some(lat) = &c.latency {
        plots.push(CalibrationPlot {
            file_name: format!("{}-latency.svg", c.gpu),
            title: format!("{}: latency levels vs footprint", c.gpu),
            x_label: "footprint (kB)",
            y_label: "cycles",
            xs: lat
                .levels
                .iter()
                .flat_map(|l| [l.from_kb, l.to_kb])
                .collect(),
            ys: lat.levels.iter().flat_map(|l| [l.value, l.value]).collect(),
            model: None,
            log_x: true,
        });
    }
    Ok(plots)
}
