//! SVG of one parameter's errors (`validate --svg DIR --by-param`): a bar
//! per value from 1 (predicted = measured) to the value's median
//! predicted/measured, red where the model is too fast (below 1), blue
//! where it is too slow. The bars' lengths side by side show how the bias
//! moves with the parameter, which is what the table's "spread" sums up.

use plotters::prelude::*;

use validate::by_param::ParamErrors;

/// Renders the bars of `param` as an SVG document under `title`.
pub fn render_svg(title: &str, param: &ParamErrors) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (720, 480)).into_drawing_area();
        draw(&root, title, param).map_err(|e| format!("cannot draw the plot: {e}"))?;
        root.present()
            .map_err(|e| format!("cannot draw the plot: {e}"))?;
    }
    Ok(out)
}

/// The y range: every median and 1, widened a little so no bar ends on the
/// frame.
pub fn y_range(param: &ParamErrors) -> (f64, f64) {
    let (lo, hi) = param
        .values
        .iter()
        .map(|v| v.median_ratio)
        .filter(|r| r.is_finite())
        .fold((1.0f64, 1.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
    let pad = 0.1 * (hi - lo).max(0.1);
    ((lo - pad).max(0.0), hi + pad)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    param: &ParamErrors,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let n = param.values.len();
    let (lo, hi) = y_range(param);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 16))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), lo..hi)?;
    let label = |x: &f64| {
        let i = x.round();
        match param.values.get(i as usize) {
            Some(v) if (x - i).abs() < 1e-6 && i >= 0.0 => v.value.to_string(),
            _ => String::new(),
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(1))
        .x_label_formatter(&label)
        .x_desc(format!(
            "{} (configurations per value in the table)",
            param.param
        ))
        .y_desc("median predicted / measured")
        .draw()?;
    chart.draw_series(LineSeries::new(
        vec![(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
        BLACK.mix(0.6),
    ))?;
    chart.draw_series(param.values.iter().enumerate().map(|(i, v)| {
        let colour = if v.median_ratio < 1.0 { RED } else { BLUE };
        let x = i as f64;
        Rectangle::new(
            [(x - 0.3, 1.0), (x + 0.3, v.median_ratio)],
            colour.mix(0.7).filled(),
        )
    }))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use validate::ParamValue;
    use validate::by_param::ValueErrors;

    fn param(medians: &[(i64, f64)]) -> ParamErrors {
        ParamErrors {
            param: "block_size_x".into(),
            values: medians
                .iter()
                .map(|&(value, median_ratio)| ValueErrors {
                    value: ParamValue::Int(value),
                    scored: 10,
                    median_ratio,
                    mape: 0.0,
                })
                .collect(),
            spread: 1.0,
            explained: 0.0,
        }
    }

    #[test]
    fn the_range_holds_one_and_every_median() {
        let (lo, hi) = y_range(&param(&[(1, 0.6), (2, 0.8)]));
        assert!(lo < 0.6 && hi > 1.0, "{lo} {hi}");
        let (lo, hi) = y_range(&param(&[(1, 1.4)]));
        assert!(lo < 1.0 && hi > 1.4, "{lo} {hi}");
    }

    #[test]
    fn one_bar_per_value_labelled_with_the_value() {
        let svg = render_svg("test", &param(&[(1, 0.79), (16, 0.63), (32, 1.2)]))
            .expect("three bars draw");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        // plotters writes each text on a line of its own.
        for label in ["\n1\n</text>", "\n16\n</text>", "\n32\n</text>"] {
            assert!(svg.contains(label), "no x label {label:?}");
        }
        // Two bars below 1 (too fast), one above.
        assert_eq!(svg.matches("fill=\"#FF0000\"").count(), 2, "{svg}");
        assert_eq!(svg.matches("fill=\"#0000FF\"").count(), 1, "{svg}");
    }
}
