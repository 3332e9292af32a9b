//! profile: placeholder, filled by its issue.
