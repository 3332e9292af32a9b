//! SVG scatter of predicted against measured time, log-log, one per model
//! (plotters' SVG backend, which needs no font stack). The diagonal
//! predicted = measured is drawn, so distance from it is the error.

use plotters::prelude::*;

/// What to draw.
pub struct Scatter<'a> {
    pub title: &'a str,
    /// (predicted, measured) milliseconds; non-positive or non-finite points
    /// cannot sit on a log axis and are left out.
    pub points: &'a [(f64, f64)],
}

/// Renders the scatter as an SVG document.
pub fn render_svg(scatter: &Scatter<'_>) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (640, 560)).into_drawing_area();
        draw(&root, scatter).map_err(|e| format!("cannot draw the plot: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the plot: {e}"))?;
    }
    Ok(out)
}

/// The common axis range of both coordinates, widened a little so no point
/// sits on the frame: (lo, hi) with 0 < lo < hi.
pub fn axis_range(points: &[(f64, f64)]) -> (f64, f64) {
    let values = points
        .iter()
        .flat_map(|&(p, m)| [p, m])
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() || hi <= 0.0 {
        return (0.1, 10.0);
    }
    let (lo, hi) = (lo / 1.25, hi * 1.25);
    if hi / lo < 10.0 {
        // Less than a decade: centre a full one so the axis has labels.
        let mid = (lo * hi).sqrt();
        (mid / 10f64.sqrt(), mid * 10f64.sqrt())
    } else {
        (lo, hi)
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    scatter: &Scatter<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (lo, hi) = axis_range(scatter.points);
    let mut chart = ChartBuilder::on(root)
        .caption(scatter.title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("measured time (ms)")
        .y_desc("predicted time (ms)")
        .draw()?;
    chart
        .draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], BLACK.mix(0.5)))?
        .label("predicted = measured")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));
    let drawable = scatter
        .points
        .iter()
        .filter(|(p, m)| p.is_finite() && m.is_finite() && *p > 0.0 && *m > 0.0);
    chart
        .draw_series(drawable.map(|&(p, m)| Circle::new((m, p), 3, BLUE.mix(0.6).filled())))?
        .label(format!("configurations ({})", scatter.points.len()))
        .legend(|(x, y)| Circle::new((x, y), 3, BLUE.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_range(points: &[(f64, f64)], lo: f64, hi: f64) {
        let (a, b) = axis_range(points);
        assert!((a - lo).abs() < 1e-9 * lo.max(1.0), "lo {a} != {lo}");
        assert!((b - hi).abs() < 1e-9 * hi.max(1.0), "hi {b} != {hi}");
    }

    #[test]
    fn range_covers_both_coordinates_with_a_margin() {
        check_range(&[(1.0, 100.0), (50.0, 2.0)], 1.0 / 1.25, 125.0);
    }

    #[test]
    fn a_narrow_range_is_widened_to_a_decade() {
        let mid = (2.0f64 / 1.25 * 2.5).sqrt();
        check_range(&[(2.0, 2.0)], mid / 10f64.sqrt(), mid * 10f64.sqrt());
    }

    #[test]
    fn no_usable_point_gives_a_default_range() {
        check_range(&[], 0.1, 10.0);
        check_range(&[(0.0, -1.0), (f64::NAN, 1.0 / 0.0)], 0.1, 10.0);
    }

    #[test]
    fn the_svg_holds_one_circle_per_point() {
        let points = [(1.0, 2.0), (3.0, 4.0), (0.5, 9.0)];
        let svg = render_svg(&Scatter {
            title: "test",
            points: &points,
        })
        .expect("a plot of three points draws");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        // Three points plus the legend's marker.
        assert_eq!(svg.matches("<circle").count(), 4);
    }
}
