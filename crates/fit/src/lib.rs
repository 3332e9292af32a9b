//! fit: placeholder, filled by its issue.
