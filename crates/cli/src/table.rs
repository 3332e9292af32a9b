//! The width of the CLI's tables: the terminal's when stdout is one, else
//! [`report::table::PIPE_WIDTH`] (a file, a pipe, a test), so that the
//! output does not depend on where it goes. The style lives in
//! `report::table`.

use std::io::IsTerminal;

use comfy_table::Table;
use report::table::PIPE_WIDTH;

/// The width tables and wrapped lines are kept within.
pub fn width() -> u16 {
    if std::io::stdout().is_terminal() {
        Table::new().width().unwrap_or(PIPE_WIDTH)
    } else {
        PIPE_WIDTH
    }
}
