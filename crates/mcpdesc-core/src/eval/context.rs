//! What a check sees while it runs on one node.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::document::Document;
use crate::versions::{Version, VersionList};

use super::scope::ScopeMap;

/// Read-only state of one evaluation, shared by every check.
pub struct EvalCtx<'d> {
    pub doc: &'d Document,
    pub root: &'d Value,
    pub versions: &'d VersionList,
    pub spec_versions: &'d [semver::Version],
    /// The protocol version being evaluated; `None` for checks that do not depend on it.
    pub version: Option<Version>,
    pub scopes: &'d ScopeMap,
    pub cache: &'d DocCache,
}

/// A finding before it becomes a diagnostic: where, and the values its message needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub pointer: String,
    pub params: Vec<(&'static str, String)>,
}

impl Finding {
    pub fn new(pointer: impl Into<String>) -> Finding {
        Finding {
            pointer: pointer.into(),
            params: Vec::new(),
        }
    }

    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Finding {
        self.params.push((name, value.into()));
        self
    }

    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Per-document memo of expensive derived values (compiled document-supplied schemas).
#[derive(Default)]
pub struct DocCache {
    schemas: RefCell<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

impl DocCache {
    /// The validator compiled from `schema`, keyed by its canonical JSON text; `None` when
    /// the schema does not compile. `build` runs at most once per distinct schema.
    pub fn schema(
        &self,
        schema: &Value,
        build: impl FnOnce(&Value) -> Option<jsonschema::Validator>,
    ) -> Option<Arc<jsonschema::Validator>> {
        let key = schema.to_string();
        if let Some(hit) = self.schemas.borrow().get(&key) {
            return hit.clone();
        }
        let built = build(schema).map(Arc::new);
        self.schemas.borrow_mut().insert(key, built.clone());
        built
    }
}

/// Short JSON text of `value` for messages.
pub fn excerpt(value: &Value) -> String {
    const MAX: usize = 80;
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        text
    }
}
