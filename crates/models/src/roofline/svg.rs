//! A log-log roofline chart as SVG text (plotters' SVG backend): the compute
//! roof, one memory roof per level, and labelled points for kernels.

use plotters::prelude::*;

use super::attainable;
use crate::prediction::ModelError;

/// What to draw. Performance in giga-units (GFLOP/s or Gop/s), intensity in units per byte.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title line (GPU name).
    pub title: String,
    /// `flop` or `op`.
    pub unit: String,
    /// Compute roof, giga-units per second.
    pub peak_g: f64,
    /// Memory roofs: name and bandwidth in GB/s.
    pub roofs: Vec<(String, f64)>,
    /// Kernel points: label, intensity (units per byte), performance (giga-units per second).
    pub points: Vec<(String, f64, f64)>,
}

const COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn chart_error(e: impl std::fmt::Display) -> ModelError {
    ModelError::Chart(e.to_string())
}

/// The decade range `[10^a, 10^b]` that holds `values` with a decade of margin.
fn decades(values: impl Iterator<Item = f64>, min_span: f64) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return (1e-2, 1e2);
    }
    let lo = 10f64.powf(lo.log10().floor() - 1.0);
    let hi = 10f64.powf(hi.log10().ceil() + 1.0).max(lo * min_span);
    (lo, hi)
}

/// Render the chart; 800 x 560 pixels.
pub fn render(chart: &Chart) -> Result<String, ModelError> {
    if !(chart.peak_g.is_finite() && chart.peak_g > 0.0) {
        return Err(ModelError::Chart(
            "the compute roof must be positive".into(),
        ));
    }
    let ridges = chart.roofs.iter().map(|(_, bw)| chart.peak_g / bw);
    let (x_lo, x_hi) = decades(ridges.chain(chart.points.iter().map(|p| p.1)), 1e3);
    let (y_lo, y_hi) = decades(
        std::iter::once(chart.peak_g)
            .chain(chart.points.iter().map(|p| p.2))
            .chain(
                chart
                    .roofs
                    .iter()
                    .map(|(_, bw)| attainable(chart.peak_g, *bw, x_lo)),
            ),
        1e2,
    );
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let mut c = ChartBuilder::on(&root)
            .caption(&chart.title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(chart_error)?;
        c.configure_mesh()
            .x_desc(format!("operational intensity ({}/byte)", chart.unit))
            .y_desc(format!("performance (G{}/s)", chart.unit))
            .draw()
            .map_err(chart_error)?;
        // Each memory roof rises to its ridge point, then the compute roof is flat.
        for (i, (name, bw)) in chart.roofs.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let ridge = (chart.peak_g / bw).clamp(x_lo, x_hi);
            c.draw_series(LineSeries::new(
                [
                    (x_lo, attainable(chart.peak_g, *bw, x_lo)),
                    (ridge, attainable(chart.peak_g, *bw, ridge)),
                ],
                colour.stroke_width(2),
            ))
            .map_err(chart_error)?
            .label(format!("{name} {bw:.1} GB/s"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
        }
        c.draw_series(LineSeries::new(
            [(x_lo, chart.peak_g), (x_hi, chart.peak_g)],
            RED.stroke_width(2),
        ))
        .map_err(chart_error)?
        .label(format!("compute {:.1} G{}/s", chart.peak_g, chart.unit))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], RED.stroke_width(2)));
        for (label, x, y) in &chart.points {
            if !(x.is_finite() && y.is_finite() && *x > 0.0 && *y > 0.0) {
                continue;
            }
            let (x, y) = (x.clamp(x_lo, x_hi), y.clamp(y_lo, y_hi));
            c.draw_series(std::iter::once(Circle::new((x, y), 5, BLACK.filled())))
                .map_err(chart_error)?;
            c.draw_series(std::iter::once(Text::new(
                label.clone(),
                (x, y),
                ("sans-serif", 14),
            )))
            .map_err(chart_error)?;
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(chart_error)?;
        root.present().map_err(chart_error)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        Chart {
            title: "Test GPU".into(),
            unit: "flop".into(),
            peak_g: 19_500.0,
            roofs: vec![("DRAM".into(), 1555.0), ("shared".into(), 19_000.0)],
            points: vec![("saxpy".into(), 0.083, 120.0)],
        }
    }

    #[test]
    fn draws_roofs_and_the_labelled_point() {
        let svg = match render(&chart()) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for needle in [
            "saxpy",
            "DRAM 1555.0 GB/s",
            "compute 19500.0 Gflop/s",
            "<circle",
            "operational intensity",
        ] {
            assert!(svg.contains(needle), "missing {needle}");
        }
    }

    #[test]
    fn bad_peak_is_an_error() {
        assert!(
            render(&Chart {
                peak_g: 0.0,
                ..chart()
            })
            .is_err()
        );
    }

    #[test]
    fn decades_cover_values_with_margin() {
        assert_eq!(decades([0.5, 20.0].into_iter(), 1.0), (0.01, 1000.0));
        assert_eq!(decades(std::iter::empty(), 1.0), (0.01, 100.0));
    }
}
