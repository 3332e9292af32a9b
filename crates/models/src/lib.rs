//! models: placeholder, filled by its issue.
