//! What the long-running commands share: a progress bar on stderr (`tune`,
//! `validate`), a spinner that shows the library's progress (`predict`,
//! `characterize`, `run`), and the command line as written into reports.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use emu::progress::Progress;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar on stderr, hidden when stderr is not a terminal or with --quiet.
pub fn progress_bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} configurations (eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Run `work` with a spinner on stderr showing what the library reports
/// through [`emu::progress`]: the stage ("compiling with NVRTC", "emulating
/// every CTA", "cache model (h100-sxm5-80gb)", "models (...)") and, while
/// CTAs run, how many of how many. Only when stderr is a terminal and not
/// `quiet`; otherwise `work` runs as it is. Nothing goes to stdout.
pub fn with_progress<T>(quiet: bool, work: impl FnOnce() -> T) -> T {
    if quiet || !std::io::stderr().is_terminal() {
        return work();
    }
    let progress = Arc::new(Progress::default());
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}") {
        bar.set_style(style);
    }
    let finished = AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                bar.set_message(progress_line(&progress));
                bar.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let out = emu::progress::scoped(Arc::clone(&progress), work);
        finished.store(true, Ordering::Relaxed);
        out
    });
    bar.finish_and_clear();
    out
}

/// "emulating every CTA: 1,024 / 65,536 CTAs (1.6 %)", or the stage alone.
fn progress_line(p: &Progress) -> String {
    let stage = p.stage();
    let stage = if stage.is_empty() {
        "starting".to_string()
    } else {
        stage
    };
    match p.ctas() {
        (_, 0) => stage,
        (done, total) => format!(
            "{stage}: {done} / {total} CTAs ({:.1} %)",
            100.0 * done as f64 / total as f64
        ),
    }
}

/// The command as typed, for a report (arguments with spaces quoted).
pub fn command_line() -> String {
    let mut parts: Vec<String> = std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect();
    if let Some(first) = parts.first_mut() {
        // The binary's own path depends on the machine; its name does not.
        if let Some(name) = Path::new(first.as_str()).file_name() {
            *first = name.to_string_lossy().into_owned();
        }
    }
    parts.join(" ")
}
