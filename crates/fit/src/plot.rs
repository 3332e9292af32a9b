//! SVG plots of measured points with a fitted curve (plotters' SVG backend,
//! which needs no font stack).

use crate::forms::Model;
use plotters::prelude::*;

/// What to draw.
pub struct PlotSpec<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub xs: &'a [f64],
    pub ys: &'a [f64],
    pub model: Option<&'a Model>,
    /// Log-scale x axis (for footprints spanning decades).
    pub log_x: bool,
}

/// plotters could not draw the plot. The backend's error type is generic over
/// the drawing backend, so its text is what is kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the plot: {0}")]
pub struct DrawError(pub String);

/// Render the plot as an SVG document.
pub fn render_svg(spec: &PlotSpec<'_>) -> Result<String, DrawError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        draw(&root, spec).map_err(|e| DrawError(e.to_string()))?;
        root.present().map_err(|e| DrawError(e.to_string()))?;
    }
    Ok(out)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    spec: &PlotSpec<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let finite = |v: &f64| v.is_finite() && (!spec.log_x || *v > 0.0);
    let xs: Vec<f64> = spec.xs.iter().copied().filter(finite).collect();
    let (mut x0, mut x1) = min_max(&xs).unwrap_or((0.0, 1.0));
    let (mut y0, mut y1) = min_max(spec.ys).unwrap_or((0.0, 1.0));
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    y0 = y0.min(0.0);
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    y1 *= 1.05;
    let caption = (spec.title, ("sans-serif", 20));
    if spec.log_x {
        x0 = x0.max(f64::MIN_POSITIVE);
        let mut chart = ChartBuilder::on(root)
            .caption(caption.0, caption.1)
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(spec.x_label)
            .y_desc(spec.y_label)
            .draw()?;
        series(&mut chart, spec, x0, x1, true)?;
    } else {
        let mut chart = ChartBuilder::on(root)
            .caption(caption.0, caption.1)
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(spec.x_label)
            .y_desc(spec.y_label)
            .draw()?;
        series(&mut chart, spec, x0, x1, false)?;
    }
    Ok(())
}

fn series<'a, DB: DrawingBackend + 'a, X: plotters::coord::ranged1d::Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>,
    spec: &PlotSpec<'_>,
    x0: f64,
    x1: f64,
    log_x: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pts = spec
        .xs
        .iter()
        .zip(spec.ys)
        .filter(|(x, y)| x.is_finite() && y.is_finite() && (!log_x || **x > 0.0));
    chart
        .draw_series(pts.map(|(&x, &y)| Circle::new((x, y), 3, BLUE.filled())))?
        .label("measured")
        .legend(|(x, y)| Circle::new((x, y), 3, BLUE.filled()));
    if let Some(model) = spec.model {
        let n = 200;
        let curve = (0..=n).map(|i| {
            let t = i as f64 / n as f64;
            let x = if log_x {
                (x0.ln() + t * (x1.ln() - x0.ln())).exp()
            } else {
                x0 + t * (x1 - x0)
            };
            (x, model.eval(x))
        });
        chart
            .draw_series(LineSeries::new(
                curve.filter(|p| p.1.is_finite()),
                RED.stroke_width(2),
            ))?
            .label(format!("fit: {}", model.form().name()))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    Ok(())
}

fn min_max(v: &[f64]) -> Option<(f64, f64)> {
    let mut it = v.iter().copied().filter(|x| x.is_finite());
    let first = it.next()?;
    Some(it.fold((first, first), |(a, b), x| (a.min(x), b.max(x))))
}
