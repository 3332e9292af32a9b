//! Error values of the importers and of experiment files. Every error names
//! the file and where in it: a line (and column) for text formats, a JSON
//! path for values of a well-formed JSON document.

use std::fmt;

/// Where in a file an error is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The file as a whole (unreadable, not gzip, truncated).
    File,
    /// 1-based line.
    Line(usize),
    /// 1-based line and column.
    LineCol(usize, usize),
    /// A JSON path such as `$.cache["1,2"].time`.
    JsonPath(String),
    /// A dotted TOML key path such as `arg[2].len`.
    Key(String),
}

/// An error reading a data or experiment file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FileError {
    pub file: String,
    pub at: Location,
    pub message: String,
}

impl FileError {
    pub fn new(file: &str, at: Location, message: impl Into<String>) -> FileError {
        FileError {
            file: file.to_string(),
            at,
            message: message.into(),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Location::File => write!(f, "{}: error: {}", self.file, self.message),
            Location::Line(l) => write!(f, "{}:{}: error: {}", self.file, l, self.message),
            Location::LineCol(l, c) => {
                write!(f, "{}:{}:{}: error: {}", self.file, l, c, self.message)
            }
            Location::JsonPath(p) | Location::Key(p) => {
                write!(f, "{}: error: at {}: {}", self.file, p, self.message)
            }
        }
    }
}
