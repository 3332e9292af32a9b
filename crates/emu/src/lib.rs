//! emu: placeholder, filled by its issue.
