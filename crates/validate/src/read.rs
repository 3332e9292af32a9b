//! Reading a data file into text, transparently gunzipping it. Gzip is
//! recognised by its magic bytes, not by the file name, so a mislabelled
//! file still reads; a truncated or corrupt stream is an error value.

use std::io::Read;
use std::path::Path;

use crate::error::{FileError, Location};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Reads `path` and returns its text, decompressed when it is gzip.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| FileError::new(&name, Location::File, format!("cannot read: {e}")))?;
    decode_text(&name, &bytes)
}

/// Turns file bytes into text: gunzips when they start with the gzip magic,
/// then requires UTF-8. `name` is only used in errors.
pub fn decode_text(name: &str, bytes: &[u8]) -> Result<String, FileError> {
    let raw = if bytes.starts_with(&GZIP_MAGIC) {
        let mut out = Vec::new();
        // MultiGzDecoder: a file may legally hold several gzip members.
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| {
                FileError::new(
                    name,
                    Location::File,
                    format!("corrupt or truncated gzip data: {e}"),
                )
            })?;
        out
    } else {
        bytes.to_vec()
    };
    String::from_utf8(raw).map_err(|e| {
        FileError::new(
            name,
            Location::File,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}
