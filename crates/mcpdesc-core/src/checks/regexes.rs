//! Regular expressions compiled once per catalogue: rules repeat patterns (the URI pattern
//! appears in a dozen rules), and compiling a `regex` is costly next to cloning one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use regex::Regex;

/// The patterns compiled while one catalogue compiles, by source text; a clone shares them
/// (a release that extends a catalogue compiles none of its patterns again).
#[derive(Debug, Default, Clone)]
pub struct Regexes(Arc<Mutex<HashMap<String, Regex>>>);

impl Regexes {
    /// The compiled `pattern`, compiling it on first use. One cache serves every thread of
    /// a catalogue compilation: compiling a pattern costs far more than the lock.
    pub fn get(&self, pattern: &str) -> Result<Regex, regex::Error> {
        if let Some(re) = self.0.lock().ok().and_then(|m| m.get(pattern).cloned()) {
            return Ok(re);
        }
        let re = Regex::new(pattern)?;
        if let Ok(mut m) = self.0.lock() {
            m.insert(pattern.to_owned(), re.clone());
        }
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
        assert_eq!(cache.0.lock().unwrap().len(), 1);
        assert!(cache.get("(").is_err());
        assert_eq!(cache.0.lock().unwrap().len(), 1);
    }
}
