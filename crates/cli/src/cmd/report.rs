//! What the long-running sweep commands (`tune`, `validate`) share: a
//! progress bar on stderr and the command line as written into their reports.

use std::io::IsTerminal;
use std::path::Path;

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
