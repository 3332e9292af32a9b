//! Where every command's results go: stdout, and the files it was asked to
//! write. One place, so that every command treats a closed pipe and a failed
//! write alike.

use std::io::Write as _;
use std::path::Path;

use crate::error::CliError;

/// Write the whole output to stdout; a closed pipe (`| head`) ends it quietly.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::diagnostic(format!(
            "error: cannot write output: {e}"
        ))),
        _ => Ok(()),
    }
}

/// Write `bytes` to `path`, creating its folder first (a report asked for
/// under a new folder is written rather than refused).
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            CliError::diagnostic(format!("{}: error: cannot create: {e}", dir.display()))
        })?;
    }
    std::fs::write(path, bytes)
        .map_err(|e| CliError::diagnostic(format!("{}: error: cannot write: {e}", path.display())))
}

/// `value` as pretty JSON with a final newline.
pub fn json_text(value: &impl serde::Serialize) -> Result<String, CliError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::diagnostic(format!("error: {e}")))?;
    text.push('\n');
    Ok(text)
}
