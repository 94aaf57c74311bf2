//! JSON files of the rules directory parsed at most once per catalogue, however many checks
//! name them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// A file's parsed value, `None` when it is not JSON; filled by the first check that reads it.
pub type ParsedCell = Arc<OnceLock<Option<Value>>>;

/// The cells of the files named while one catalogue compiles, by path.
#[derive(Debug, Default)]
pub struct ParsedFiles(Mutex<HashMap<String, ParsedCell>>);

impl ParsedFiles {
    /// The cell of `path`: every check naming the same file gets the same one, so a protocol
    /// schema of 100-200 KB that several rules validate against is parsed and held once.
    pub fn cell(&self, path: &str) -> ParsedCell {
        let mut cells = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cells.entry(path.to_owned()).or_default().clone()
    }

    /// The cells of `base` for the files `keep` says are the same here, so that a release
    /// parses an inherited protocol schema no more than its base did.
    pub fn inheriting(base: &ParsedFiles, keep: impl Fn(&str) -> bool) -> ParsedFiles {
        let cells = base
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        ParsedFiles(Mutex::new(
            cells
                .iter()
                .filter(|(path, _)| keep(path))
                .map(|(path, cell)| (path.clone(), cell.clone()))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cell_per_path() {
        let files = ParsedFiles::default();
        let a = files.cell("schemas/a.json");
        a.get_or_init(|| Some(Value::Bool(true)));
        assert_eq!(
            files.cell("schemas/a.json").get(),
            Some(&Some(Value::Bool(true)))
        );
        assert!(files.cell("schemas/b.json").get().is_none());
    }
}
