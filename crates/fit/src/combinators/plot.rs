//! The SVG of predicted cost against N (log-log), one line per combinator
//! or pipeline.

use super::sweep::SweepRow;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// plotters could not draw the chart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw SVG: {0}")]
pub struct PlotError(pub String);

/// Predicted cost (µs) against N, one line per combinator or pipeline, log-log.
pub fn cost_svg(gpu: &str, rows: &[SweepRow]) -> Result<String, PlotError> {
    let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        series
            .entry(r.what.as_str())
            .or_default()
            .push((r.n as f64, (r.prediction.total_s * 1e6).max(1e-6)));
    }
    let all: Vec<(f64, f64)> = series.values().flatten().copied().collect();
    let (x0, x1) = bounds(all.iter().map(|p| p.0));
    let (y0, y1) = bounds(all.iter().map(|p| p.1));
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| PlotError(e.to_string());
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{gpu}: predicted cost against N"),
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("N (elements)")
            .y_desc("predicted µs")
            .draw()
            .map_err(|e| err(&e))?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(*name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE)
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

fn bounds(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if lo.is_finite() && hi.is_finite() && lo > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (1.0, 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_sweep_still_draws_axes() {
        let svg = cost_svg("gpu", &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.starts_with("<svg") && svg.contains("gpu: predicted cost against N"));
    }
}
