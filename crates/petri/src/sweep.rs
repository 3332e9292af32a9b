//! A fixed amount of work split over different thread counts, as in the radix
//! sort study of seed 003 §5 ("The product threadsNumber * memsize should be
//! equal to the size of A"): the work is given as totals of thread-level
//! instructions (x_a, x_s, x_g summed over all threads of the block). For `T`
//! threads each thread gets `ceil(total / T)` of each kind, there are
//! `ceil(T / 32)` warps, and since the 32 threads of a warp execute in lock
//! step, each warp executes the per-thread counts. Also the SVG plot of steps
//! against threads.

use crate::warp::{self, LatencyCounting, ModelReport, WarpCounts, WarpError, WarpModelConfig};
use plotters::prelude::*;
use serde::Serialize;

/// Threads per warp.
pub const WARP_SIZE: u32 = 32;

/// What the sweep needs besides the thread counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SweepConfig {
    /// Total thread-level instructions of each kind (x_a, x_s, x_g over all threads).
    pub total: WarpCounts,
    pub threads: Vec<u32>,
    pub schedulers: u32,
    pub global_latency: u32,
    pub shared_latency: u32,
    pub latency_counting: LatencyCounting,
    pub runs: usize,
    pub seed: u64,
}

/// One thread count of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    pub threads: u32,
    pub warps: u32,
    pub per_warp: WarpCounts,
    pub mean_steps: f64,
    pub min_steps: u64,
    pub max_steps: u64,
    pub mean_idle_steps: f64,
}

/// Why a sweep could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    #[error("the sweep needs at least one thread count")]
    NoThreads,
    #[error("a thread count must be positive")]
    ZeroThreads,
    #[error("{threads} threads: {source}")]
    Model { threads: u32, source: WarpError },
}

/// The per-warp counts and the number of warps for `threads` threads.
pub fn split(total: WarpCounts, threads: u32) -> (u32, WarpCounts) {
    let t = threads.max(1);
    let per = |x: u32| x.div_ceil(t);
    (
        t.div_ceil(WARP_SIZE),
        WarpCounts::new(per(total.arithmetic), per(total.shared), per(total.global)),
    )
}

/// The model configuration for one thread count.
pub fn config_for(cfg: &SweepConfig, threads: u32) -> WarpModelConfig {
    let (warps, per_warp) = split(cfg.total, threads);
    WarpModelConfig {
        warps: vec![per_warp; warps as usize],
        schedulers: cfg.schedulers,
        global_latency: cfg.global_latency,
        shared_latency: cfg.shared_latency,
        latency_counting: cfg.latency_counting,
    }
}

/// Run the model for every thread count, in the order given.
pub fn sweep(cfg: &SweepConfig) -> Result<Vec<SweepRow>, SweepError> {
    if cfg.threads.is_empty() {
        return Err(SweepError::NoThreads);
    }
    cfg.threads
        .iter()
        .map(|&threads| {
            if threads == 0 {
                return Err(SweepError::ZeroThreads);
            }
            let model = config_for(cfg, threads);
            let report: ModelReport = warp::simulate(&model, cfg.runs, cfg.seed, None)
                .map_err(|source| SweepError::Model { threads, source })?;
            Ok(SweepRow {
                threads,
                warps: model.warps.len() as u32,
                per_warp: model.warps[0],
                mean_steps: report.mean_steps,
                min_steps: report.min_steps,
                max_steps: report.max_steps,
                mean_idle_steps: report.mean_idle_steps,
            })
        })
        .collect()
}

/// The thread count with the fewest mean steps (the first one on a tie).
pub fn best(rows: &[SweepRow]) -> Option<&SweepRow> {
    rows.iter()
        .fold(None, |acc: Option<&SweepRow>, r| match acc {
            Some(b) if b.mean_steps <= r.mean_steps => Some(b),
            _ => Some(r),
        })
}

/// plotters could not draw the plot. The backend's error type is generic over
/// the drawing backend, so its text is what is kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the plot: {0}")]
pub struct DrawError(pub String);

/// An SVG line plot of mean steps (and idle steps) against threads.
pub fn plot_svg(rows: &[SweepRow], title: &str) -> Result<String, DrawError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        draw(&root, rows, title).map_err(|e| DrawError(e.to_string()))?;
        root.present().map_err(|e| DrawError(e.to_string()))?;
    }
    Ok(out)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    rows: &[SweepRow],
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let x0 = rows
        .iter()
        .map(|r| f64::from(r.threads))
        .fold(f64::INFINITY, f64::min);
    let x1 = rows
        .iter()
        .map(|r| f64::from(r.threads))
        .fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else {
        (0.0, x0.max(1.0) * 2.0)
    };
    let y1 = rows.iter().map(|r| r.mean_steps).fold(1.0, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("model steps")
        .x_labels(8)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.2e}"))
        .draw()?;
    let steps: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (f64::from(r.threads), r.mean_steps))
        .collect();
    let idle: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (f64::from(r.threads), r.mean_idle_steps))
        .collect();
    chart
        .draw_series(LineSeries::new(steps.clone(), BLUE.stroke_width(2)))?
        .label("steps")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart.draw_series(steps.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
    chart
        .draw_series(LineSeries::new(idle, RED))?
        .label("idle steps")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// One line of [`plot_series_svg`]: a label and (threads, mean steps) points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub label: String,
    pub points: Vec<(u32, f64)>,
}

/// An SVG plot of several variants' mean steps against threads (log-scale x),
/// one coloured line each, as the radix-sort study compares three kernels.
pub fn plot_series_svg(series: &[Series], title: &str) -> Result<String, DrawError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        draw_series(&root, series, title).map_err(|e| DrawError(e.to_string()))?;
        root.present().map_err(|e| DrawError(e.to_string()))?;
    }
    Ok(out)
}

fn draw_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[Series],
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let xs = || {
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| f64::from(p.0)))
    };
    let x0 = xs().fold(f64::INFINITY, f64::min);
    let x1 = xs().fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else {
        (1.0, x0.max(1.0) * 2.0)
    };
    let y1 = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("model steps")
        .x_labels(8)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.2e}"))
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(t, y)| (f64::from(t), y)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_split(total: (u32, u32, u32), threads: u32, warps: u32, per: (u32, u32, u32)) {
        let (w, c) = split(WarpCounts::new(total.0, total.1, total.2), threads);
        assert_eq!(
            (w, (c.arithmetic, c.shared, c.global)),
            (warps, per),
            "{total:?} over {threads}"
        );
    }

    #[test]
    fn work_is_split_per_thread_and_warps_round_up() {
        check_split((65_536, 0, 2048), 32, 1, (2048, 0, 64));
        check_split((65_536, 0, 2048), 1024, 32, (64, 0, 2));
        check_split((100, 10, 1), 48, 2, (3, 1, 1));
        check_split((0, 0, 0), 1, 1, (0, 0, 0));
    }

    #[test]
    fn sweep_rows_follow_the_thread_counts_and_plot() {
        let cfg = SweepConfig {
            total: WarpCounts::new(8192, 512, 1024),
            threads: vec![32, 128, 512],
            schedulers: 4,
            global_latency: 20,
            shared_latency: 2,
            latency_counting: LatencyCounting::CountUp,
            runs: 2,
            seed: 1,
        };
        let rows = sweep(&cfg).expect("runs");
        assert_eq!(
            rows.iter()
                .map(|r| (r.threads, r.warps))
                .collect::<Vec<_>>(),
            vec![(32, 1), (128, 4), (512, 16)]
        );
        // More warps share the work and hide latency: fewer steps.
        assert!(rows[1].mean_steps < rows[0].mean_steps);
        assert!(best(&rows).is_some());
        let svg = plot_svg(&rows, "test").expect("draws");
        assert!(svg.starts_with("<svg") && svg.contains("model steps"));
        let series = [
            Series {
                label: "variant-a".into(),
                points: rows.iter().map(|r| (r.threads, r.mean_steps)).collect(),
            },
            Series {
                label: "variant-b".into(),
                points: vec![(32, 10.0), (512, 5.0)],
            },
        ];
        let svg = plot_series_svg(&series, "two").expect("draws");
        assert!(svg.contains("variant-a") && svg.contains("variant-b"));
        assert!(matches!(
            sweep(&SweepConfig {
                threads: vec![0],
                ..cfg
            }),
            Err(SweepError::ZeroThreads)
        ));
    }
}
