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
        "\n### Held out by {}\n\n| held out | GPU | kernel | trained on | scored | learned MAPE % | timing MAPE % | learned Spearman | timing Spearman | learned best ratio | timing best ratio | learned pred/meas | timing pred/meas | transferred best |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
        hold.name()
    );
    for f in folds {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {} | {} | {:.2} | {:.2} | {:.3} | {:.3} | {} |",
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
            f.timing.best_ratio,
            f.learned.median_ratio,
            f.timing.median_ratio,
            transferred(&f.transferred)
        );
    }
    t
}
