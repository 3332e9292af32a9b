//! validate: placeholder, filled by its issue.
