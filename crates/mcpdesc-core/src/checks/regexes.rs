//! Regular expressions compiled once per catalogue: rules repeat patterns (the URI pattern
//! appears in a dozen rules), and compiling a `regex` is costly next to cloning one.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::Regex;

/// The patterns compiled while one catalogue compiles, by source text.
#[derive(Debug, Default)]
pub struct Regexes(RefCell<HashMap<String, Regex>>);

impl Regexes {
    /// The compiled `pattern`, compiling it on first use.
    pub fn get(&self, pattern: &str) -> Result<Regex, regex::Error> {
        if let Some(re) = self.0.borrow().get(pattern) {
            return Ok(re.clone());
        }
        let re = Regex::new(pattern)?;
        self.0.borrow_mut().insert(pattern.to_owned(), re.clone());
        Ok(re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_each_pattern_once_and_reports_errors() {
        let cache = Regexes::default();
        let a = cache.get("^a+$").unwrap();
        let b = cache.get("^a+$").unwrap();
        assert!(a.is_match("aaa") && b.is_match("a"));
        assert_eq!(cache.0.borrow().len(), 1);
        assert!(cache.get("(").is_err());
        assert_eq!(cache.0.borrow().len(), 1);
    }
}
