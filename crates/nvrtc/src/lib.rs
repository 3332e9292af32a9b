//! nvrtc: placeholder, filled by its issue.
