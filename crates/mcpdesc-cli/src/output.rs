//! Writing a command's report to standard output or to the file `--output-file` names.

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;

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

/// Writes the report `text` to `file`, or else to standard output unless `silent`.
pub(crate) fn report(text: &str, file: Option<&Path>, silent: bool) -> anyhow::Result<()> {
    match file {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write the report to {}", path.display())),
        None if silent => Ok(()),
        None => Ok(emit(text)?),
    }
}
