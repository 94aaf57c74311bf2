//! What a check sees while it runs on one node.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use thiserror::Error;

use crate::document::{Document, Limits};
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
    /// The limits of this evaluation (schemas compiled from the document, reference chains).
    pub limits: &'d Limits,
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

/// The outcome of compiling a schema from the document.
pub enum Compiled {
    Valid(Arc<jsonschema::Validator>),
    /// The schema does not compile; the compiler's message.
    Invalid(String),
    /// Not compiled: a limit was met (and recorded).
    Refused,
}

/// An evaluation limit a document went past: the evaluation is incomplete.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("limit {limit} ({value}) exceeded; raise it with --{limit} if the input is trusted")]
pub struct LimitExceeded {
    /// The limit's name, as its command-line flag spells it (`max-schemas`).
    pub limit: &'static str,
    pub value: u64,
    /// The node where it was exceeded.
    pub pointer: String,
}

/// Per-document memo of expensive derived values (compiled document-supplied schemas), and
/// the record of evaluation limits exceeded.
#[derive(Default)]
pub struct DocCache {
    schemas: RefCell<HashMap<String, Result<Arc<jsonschema::Validator>, String>>>,
    /// Schemas refused by a limit, so a refusal is recorded once per schema.
    refused: RefCell<std::collections::HashSet<String>>,
    limits: Limits,
    exceeded: RefCell<Vec<LimitExceeded>>,
    /// Reused for the JSON text of each schema looked up, so a lookup allocates nothing.
    key: RefCell<String>,
}

impl DocCache {
    /// A cache enforcing `limits` on the schemas it compiles.
    pub fn with_limits(limits: &Limits) -> DocCache {
        DocCache {
            limits: limits.clone(),
            ..DocCache::default()
        }
    }

    /// The validator compiled from `schema`, keyed by its canonical JSON text; `None` when
    /// the schema does not compile or exceeds `max-schema-bytes` or `max-schemas` (recorded,
    /// see [`DocCache::exceeded`]). `build` runs at most once per distinct schema.
    pub fn schema(
        &self,
        schema: &Value,
        build: impl FnOnce(&Value) -> Option<jsonschema::Validator>,
    ) -> Option<Arc<jsonschema::Validator>> {
        self.schema_at("", schema, build)
    }

    /// [`DocCache::schema`] for the schema at `pointer`, where a refusal is reported.
    pub fn schema_at(
        &self,
        pointer: &str,
        schema: &Value,
        build: impl FnOnce(&Value) -> Option<jsonschema::Validator>,
    ) -> Option<Arc<jsonschema::Validator>> {
        match self.compile_at(pointer, schema, |s| build(s).ok_or_else(String::new)) {
            Compiled::Valid(v) => Some(v),
            Compiled::Invalid(_) | Compiled::Refused => None,
        }
    }

    /// The validator compiled from the schema at `pointer`, or why there is none. `build`
    /// runs at most once per distinct schema, and only within `max-schemas` and
    /// `max-schema-bytes`.
    pub fn compile_at(
        &self,
        pointer: &str,
        schema: &Value,
        build: impl FnOnce(&Value) -> Result<jsonschema::Validator, String>,
    ) -> Compiled {
        let mut key = self.key.take();
        key.clear();
        {
            use std::fmt::Write as _;
            let _ = write!(key, "{schema}");
        }
        let compiled = self.compile_keyed(pointer, &key, schema, build);
        *self.key.borrow_mut() = key;
        compiled
    }

    fn compile_keyed(
        &self,
        pointer: &str,
        key: &str,
        schema: &Value,
        build: impl FnOnce(&Value) -> Result<jsonschema::Validator, String>,
    ) -> Compiled {
        if let Some(hit) = self.schemas.borrow().get(key) {
            return match hit {
                Ok(v) => Compiled::Valid(v.clone()),
                Err(e) => Compiled::Invalid(e.clone()),
            };
        }
        if !self.admit(pointer, key) {
            return Compiled::Refused;
        }
        let built = build(schema).map(Arc::new);
        self.schemas
            .borrow_mut()
            .insert(key.to_owned(), built.clone());
        match built {
            Ok(v) => Compiled::Valid(v),
            Err(e) => Compiled::Invalid(e),
        }
    }

    /// Whether one more schema with compact JSON text `text` may be compiled from the
    /// document; records the limit it would exceed otherwise. Checks that compile a document
    /// schema outside [`DocCache::schema_at`] ask this first.
    pub fn admit(&self, pointer: &str, text: &str) -> bool {
        let over = if text.len() as u64 > self.limits.max_schema_bytes {
            Some(("max-schema-bytes", self.limits.max_schema_bytes))
        } else if self.schemas.borrow().len() as u64 >= self.limits.max_schemas {
            Some(("max-schemas", self.limits.max_schemas))
        } else {
            None
        };
        let Some((limit, value)) = over else {
            return true;
        };
        if self.refused.borrow_mut().insert(text.to_owned()) {
            self.exceeded(limit, value, pointer);
        }
        false
    }

    /// Records that the evaluation exceeded `limit` at `pointer`.
    pub fn exceeded(&self, limit: &'static str, value: u64, pointer: &str) {
        self.exceeded.borrow_mut().push(LimitExceeded {
            limit,
            value,
            pointer: pointer.to_owned(),
        });
    }

    /// The limits exceeded so far, in the order they were met.
    pub fn take_exceeded(&self) -> Vec<LimitExceeded> {
        std::mem::take(&mut *self.exceeded.borrow_mut())
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
