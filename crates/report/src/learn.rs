//! `ptxperf learn`: what the learner was given, the trained model's
//! summary, and the cross-validation's tables (Markdown).

use std::fmt::Write as _;
use std::path::Path;

use learn::{ModelFile, Target};
use study::learning::{FoldScore, HoldOut, Sample};
use validate::split::Part;

/// How many samples of each part, the target, and which part is scored.
pub fn samples_line(samples: &[Sample], target: Target, part: Part) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} samples ({} development, {} check); target {}; scored: the {} part of the held-out GPU or kernel",
        samples.len(),
        samples
            .iter()
            .filter(|s| s.part == Part::Development)
            .count(),
        samples.iter().filter(|s| s.part == Part::Check).count(),
        target.name(),
        part.name()
    );
    text
}

/// The line that says how many configurations are scored and never
/// trained on (`learn --cross-validate --score-profiles`), by part.
pub fn scored_only_line(scored_only: &[Sample]) -> String {
    let check = scored_only.iter().filter(|s| s.part == Part::Check).count();
    format!(
        "{} more configurations scored, never trained on ({} development, {} check; --score-profiles)\n",
        scored_only.len(),
        scored_only.len() - check,
        check
    )
}

/// The trained model's summary and its largest feature importances.
pub fn trained(file: &ModelFile, target: Target, out: &Path) -> String {
    let mut text = format!(
        "trained on {} development configurations of {} GPUs ({}), kernels {}; weighted per {}; target {}; {} members of {} trees; wrote {}\nlargest feature importances (share of split gain):\n",
        file.training.samples,
        file.training.gpus.len(),
        file.training.gpus.join(", "),
        file.training.kernels.join(", "),
        file.training.weighting.replace('_', " "),
        target.name(),
        file.members.len(),
        file.params.trees,
        out.display()
    );
    for (name, share) in file.importances.iter().take(10) {
        let _ = writeln!(text, "  {share:>6.3}  {name}");
    }
    match &file.interval {
        Some(c) => {
            let _ = writeln!(
                text,
                "interval: the members' range widened by x{:.3} each way, sized to hold {:.0} % of {} configurations predicted without their GPU",
                c.margin.exp(),
                100.0 * c.coverage,
                c.scores
            );
            if let Some(k) = c.kernel_margin {
                let _ = writeln!(
                    text,
                    "          x{:.3} each way for a kernel unlike every trained one (familiarity 0), sized on {} configurations predicted without their kernel",
                    k.exp(),
                    c.kernel_scores
                );
            }
        }
        None => text.push_str("interval: the members' range (not calibrated)\n"),
    }
    if let Some(d) = &file.domain {
        let _ = writeln!(
            text,
            "domain: {} points of {} kernels on {} kernel features; the whole correction within {:.3}, none beyond {:.3} (RMS of standardised differences)",
            d.points.len(),
            d.kernels.len(),
            d.features.len(),
            d.near,
            d.far
        );
    }
    text
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

/// The transferred-best baseline of a dataset: the range of the ratios over
/// the GPUs it was taken from, and how many ("-" when no other GPU ran the
/// kernel).
fn transferred(ratios: &[(String, f64)]) -> String {
    let lo = ratios.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().map(|r| r.1).fold(0.0, f64::max);
    match ratios.len() {
        0 => "-".to_string(),
        1 => format!("{lo:.2} (1 GPU)"),
        n => format!("{lo:.2} to {hi:.2} ({n} GPUs)"),
    }
}

/// One Markdown table per hold-out: learned beside timing, per dataset.
pub fn folds(hold: HoldOut, folds: &[FoldScore]) -> String {
    let mut t = format!(
        "\n### Held out by {}\n\n| held out | GPU | kernel | trained on | scored | learned MAPE % | timing MAPE % | learned Spearman | timing Spearman | learned best ratio | learned best ratio, pessimistic | timing best ratio | learned pred/meas | timing pred/meas | interval coverage % | interval width | transferred best | familiarity |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n",
        hold.name()
    );
    for f in folds {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {} | {} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} | {:.0} | {:.2} | {} | {:.2} |",
            f.held_out,
            f.gpu,
            f.kernel,
            f.trained_on,
            f.scored,
            f.learned.mape,
            f.timing.mape,
            opt(f.learned.spearman),
            opt(f.timing.spearman),
            f.learned.best_ratio,
            f.learned_pessimistic_best,
            f.timing.best_ratio,
            f.learned.median_ratio,
            f.timing.median_ratio,
            100.0 * f.interval_coverage,
            f.interval_width,
            transferred(&f.transferred),
            f.familiarity
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use study::learning::Metrics;

    fn metrics(mape: f64, spearman: Option<f64>, best: f64, median: f64) -> Metrics {
        Metrics {
            mape,
            spearman,
            best_ratio: best,
            median_ratio: median,
        }
    }

    fn check(transferred: Vec<(String, f64)>, expect: &str) {
        let fold = FoldScore {
            held_out: "gpu-a".to_string(),
            gpu: "gpu-a".to_string(),
            kernel: "k".to_string(),
            trained_on: 120,
            scored: 30,
            learned: metrics(12.34, Some(0.9123), 1.05, 0.98),
            timing: metrics(30.0, None, 1.5, 0.7),
            learned_pessimistic_best: 1.02,
            interval_coverage: 0.4,
            interval_width: 1.5,
            transferred,
            familiarity: 0.25,
        };
        let text = folds(HoldOut::Gpu, &[fold]);
        assert!(text.contains("### Held out by gpu"), "{text}");
        assert!(text.contains(expect), "no {expect:?} in\n{text}");
        // Every row has as many cells as the header.
        let cells: Vec<usize> = text
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.matches('|').count())
            .collect();
        assert!(cells.iter().all(|&c| c == cells[0]), "{cells:?}\n{text}");
    }

    #[test]
    fn a_fold_row_shows_both_models_both_picks_and_the_baseline() {
        let row = "| gpu-a | gpu-a | k | 120 | 30 | 12.3 | 30.0 | 0.912 | - | 1.05 | 1.02 | 1.50 | 0.980 | 0.700 | 40 | 1.50 |";
        check(Vec::new(), &format!("{row} - |"));
        check(
            vec![("gpu-b".to_string(), 1.1)],
            &format!("{row} 1.10 (1 GPU) |"),
        );
        check(
            vec![("gpu-b".to_string(), 1.3), ("gpu-c".to_string(), 1.0)],
            &format!("{row} 1.00 to 1.30 (2 GPUs) |"),
        );
    }

    #[test]
    fn the_scored_only_line_counts_by_part() {
        let sample = |row: usize, part: Part| Sample {
            gpu: "g".to_string(),
            kernel: "k".to_string(),
            data: "d.json".to_string(),
            row,
            config: format!("c{row}"),
            part,
            features: Vec::new(),
            measured: 1.0,
            timing: 1.0,
        };
        let rows = [
            sample(0, Part::Check),
            sample(1, Part::Development),
            sample(2, Part::Check),
        ];
        assert_eq!(
            scored_only_line(&rows),
            "3 more configurations scored, never trained on (1 development, 2 check; --score-profiles)\n"
        );
    }
}
