//! Writing a command's report to standard output.

use std::io::Write as _;

/// Writes `text` to standard output. A reader that stopped reading (`mcpdesc rules list |
/// head`) is not an error: the rest of the report is simply not wanted.
pub(crate) fn emit(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
