//! arch: placeholder, filled by its issue.
