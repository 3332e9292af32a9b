//! petri: placeholder, filled by its issue.
