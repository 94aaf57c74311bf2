//! What a check sees while it runs on one node.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use thiserror::Error;

use crate::checks::TreeValidator as Validator;
use crate::document::{Document, Kind, Limits, ValueRef};
use crate::versions::{Version, VersionList};
use crate::FastHash as Fast;

use super::scope::ScopeMap;

/// Read-only state of one evaluation, shared by every check.
pub struct EvalCtx<'d> {
    /// The document being evaluated.
    pub doc: &'d Document<'d>,
    /// The root the rules read: the document's, with its references replaced by their targets
    /// when the catalogue follows references.
    pub root: ValueRef<'d>,
    /// The protocol versions of the catalogue judging the document.
    pub versions: &'d VersionList,
    /// The release judging the document.
    pub release: &'d crate::rules::Release,
    /// See [`crate::Selection::release_fixed`].
    pub release_fixed: bool,
    /// The protocol version being evaluated; `None` for checks that do not depend on it.
    pub version: Option<Version>,
    /// The effective scope of every declaration of the document.
    pub scopes: &'d ScopeMap,
    /// Values derived from the document once for every check, and the limits met so far.
    pub cache: &'d DocCache,
    /// The limits of this evaluation (schemas compiled from the document, reference chains).
    pub limits: &'d Limits,
}

/// The placeholder of a finding's "did you mean" name. A template that does not place it
/// gets it appended, so every rule built on a check that guesses names offers the guess.
pub const SUGGESTION: &str = "suggestion";

/// The finding value, never a placeholder, of the JSON Pointer below the finding's node where
/// the problem shows (the misspelt keyword deep inside a schema): the diagnostic's line and
/// column are there, while its pointer stays the node's, the subject of the rule, so that
/// suppressions, baselines and the conformance corpus keep naming the same node.
pub const POSITION: &str = "\u{0}position";

/// A finding before it becomes a diagnostic: where, and the values its message needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The JSON Pointer of the node the finding is about.
    pub pointer: String,
    /// The values of the message placeholders the check fills, by placeholder name.
    pub params: Vec<(&'static str, String)>,
}

impl Finding {
    /// A finding at `pointer` with no placeholder values yet.
    pub fn new(pointer: impl Into<String>) -> Finding {
        Finding {
            pointer: pointer.into(),
            params: Vec::new(),
        }
    }

    /// The finding with `value` for the placeholder `name`.
    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Finding {
        self.params.push((name, value.into()));
        self
    }

    /// The value given for the placeholder `name`, if any (the first, if given twice).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The outcome of compiling a schema from the document.
pub enum Compiled {
    /// The schema compiles; its validator.
    Valid(Arc<Validator>),
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
    /// The limit's value in this evaluation.
    pub value: u64,
    /// The node where it was exceeded.
    pub pointer: String,
}

/// A schema node's key and its hash, by (tree generation, node id).
type NodeKeys = HashMap<(u64, u32), (SchemaKey, u64), Fast>;

/// Per-document memo of expensive derived values (compiled document-supplied schemas), and
/// the record of evaluation limits exceeded. Shared by the threads evaluating one document.
#[derive(Default)]
pub struct DocCache {
    schemas: Mutex<Recent>,
    /// Every distinct schema compiled so far, for `max-schemas`.
    seen: Mutex<HashSet<SchemaKey, Fast>>,
    /// Schemas found valid without being compiled (see [`DocCache::schema_problem_at`]).
    vouched: Mutex<HashSet<SchemaKey, Fast>>,
    /// Schemas refused by a limit, so a refusal is recorded once per schema.
    refused: Mutex<HashSet<SchemaKey, Fast>>,
    limits: Limits,
    exceeded: Mutex<Vec<LimitExceeded>>,
    /// Keys the schema texts without writing them: two independently keyed hashes.
    hashers: SchemaHashers,
    /// The key of each schema node already met, by (tree generation, node id): several rules
    /// compile the same node (a tool's schema for itself, then for each of its examples; a
    /// listed tool's schema for every call of it), and hashing a schema costs as much as
    /// reading it.
    node_keys: Mutex<NodeKeys>,
    /// Values a check derives from the whole document once and reuses at every node (the
    /// candidate entries of a sequence, say), by the check's key.
    memos: Mutex<HashMap<(u64, u8), Memo, Fast>>,
}

/// A memo with the text that names it.
type Memo = (Arc<str>, Arc<dyn std::any::Any + Send + Sync>);

/// What a memo holds, as its check names it: a text, and a hash of that text to look it up by.
/// A memo is taken only when its text is the asker's, so two checks whose texts hash alike
/// never read each other's.
#[derive(Debug, Clone)]
pub struct MemoId {
    text: Arc<str>,
    key: u64,
}

impl MemoId {
    /// The memo named by `text`, which says everything the memo's value depends on.
    pub fn new(text: String) -> MemoId {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        MemoId {
            text: text.into(),
            key: h.finish(),
        }
    }
}

/// How many compiled schemas stay in memory. The uses of one schema come close together in the
/// walk (a tool's schema, then its examples), and keeping every validator of a large document
/// cost 16 MB of its 103 MB peak for no measurable gain in time.
const KEEP_SCHEMAS: usize = 32;

type Outcome = Result<Arc<Validator>, String>;

/// The most recently compiled schemas; the oldest goes when a new one arrives at capacity.
#[derive(Default)]
struct Recent {
    by_key: HashMap<SchemaKey, Outcome, Fast>,
    order: std::collections::VecDeque<SchemaKey>,
}

impl Recent {
    fn insert(&mut self, key: SchemaKey, outcome: Outcome) {
        if self.by_key.insert(key, outcome).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > KEEP_SCHEMAS {
            if let Some(old) = self.order.pop_front() {
                self.by_key.remove(&old);
            }
        }
    }
}

/// A schema's identity: a keyed 64-bit hash of its content and the length of its compact
/// JSON text, so equal schemas share one compiled validator and distinct ones collide with
/// negligible probability (the key is random per evaluation, so a document cannot aim for a
/// collision).
type SchemaKey = (u64, u64);

#[derive(Default)]
struct SchemaHashers(RandomState);

impl SchemaHashers {
    /// The key of `schema` and the length of its compact JSON text.
    fn key(&self, schema: ValueRef<'_>) -> (SchemaKey, u64) {
        // The schema is written out once and hashed in one call: SipHash costs little per
        // byte but much per call, and a schema is hundreds of small parts.
        let mut bytes = Vec::with_capacity(256);
        let len = feed(schema, &mut bytes);
        let mut h = self.0.build_hasher();
        h.write(&bytes);
        ((h.finish(), len), len)
    }
}

/// Writes `value` to `out` unambiguously (a tag per kind keeps `"1"` and `1` apart, and
/// strings and keys are length-prefixed) and returns the length in bytes of its compact JSON
/// text, as `serde_json` writes it.
fn feed(value: ValueRef<'_>, out: &mut Vec<u8>) -> u64 {
    let text = |out: &mut Vec<u8>, text: &str| {
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    };
    match value.kind() {
        Kind::Null => {
            out.push(b'n');
            4
        }
        Kind::Bool(v) => {
            out.push(if v { b't' } else { b'f' });
            if v {
                4
            } else {
                5
            }
        }
        Kind::Number(n) => {
            let digits = n.to_string();
            out.push(b'#');
            text(out, &digits);
            digits.len() as u64
        }
        Kind::String(s) => {
            out.push(b'"');
            text(out, s);
            quoted_len(s)
        }
        Kind::Array(items) => {
            out.push(b'[');
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            let mut len = 2 + items.len().saturating_sub(1) as u64;
            for item in items.iter() {
                len += feed(item, out);
            }
            len
        }
        Kind::Object(map) => {
            out.push(b'{');
            out.extend_from_slice(&(map.len() as u64).to_le_bytes());
            let mut len = 2 + map.len().saturating_sub(1) as u64;
            for (k, v) in map.iter() {
                text(out, k);
                len += quoted_len(k) + 1 + feed(v, out);
            }
            len
        }
    }
}

/// Length of `text` as a JSON string literal written by `serde_json`: quotes, two-byte
/// escapes for `"`, `\\` and the named control characters, `\u00XX` for the others.
fn quoted_len(text: &str) -> u64 {
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<u64>()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock leaves the memo consistent (entries are whole).
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl DocCache {
    /// A cache enforcing `limits` on the schemas it compiles.
    pub fn with_limits(limits: &Limits) -> DocCache {
        DocCache {
            limits: limits.clone(),
            ..DocCache::default()
        }
    }

    /// The validator compiled from the schema at `pointer`, or why there is none. `build`
    /// runs once per distinct schema (twice at most when two threads meet it at once), and
    /// only within `max-schemas` and `max-schema-bytes`.
    pub fn compile_at(
        &self,
        pointer: &str,
        schema: ValueRef<'_>,
        build: impl FnOnce(&Value) -> Result<Validator, String>,
    ) -> Compiled {
        match self.admit_node(pointer, schema) {
            Ok(key) => self.build_keyed(key, schema, build),
            Err(known) => known,
        }
    }

    /// Why the schema at `pointer` does not compile, `None` when it does or a limit refused
    /// it. A schema `vouch` answers for is valid without being compiled (a validator is only
    /// compiled for it when some rule validates an instance with it); it counts towards
    /// `max-schemas` all the same, so limits are met where they were met before. `vouch` must
    /// answer only for schemas that `build` compiles.
    pub fn schema_problem_at(
        &self,
        pointer: &str,
        schema: ValueRef<'_>,
        vouch: impl FnOnce(ValueRef<'_>) -> bool,
        build: impl FnOnce(&Value) -> Result<Validator, String>,
    ) -> Option<String> {
        let key = match self.admit_node(pointer, schema) {
            Ok(key) => key,
            Err(Compiled::Invalid(e)) => return Some(e),
            Err(_) => return None,
        };
        if lock(&self.vouched).contains(&key) {
            return None;
        }
        if vouch(schema) {
            lock(&self.seen).insert(key);
            lock(&self.vouched).insert(key);
            return None;
        }
        match self.build_keyed(key, schema, build) {
            Compiled::Invalid(e) => Some(e),
            Compiled::Valid(_) | Compiled::Refused => None,
        }
    }

    /// The key of `schema`, when it is neither compiled already (`Err` with the outcome) nor
    /// refused by a limit (`Err(Compiled::Refused)`).
    fn admit_node(&self, pointer: &str, schema: ValueRef<'_>) -> Result<SchemaKey, Compiled> {
        let node = (schema.generation(), schema.id());
        let known = lock(&self.node_keys).get(&node).copied();
        let (key, len) = known.unwrap_or_else(|| {
            let keyed = self.hashers.key(schema);
            lock(&self.node_keys).insert(node, keyed);
            keyed
        });
        if let Some(hit) = lock(&self.schemas).by_key.get(&key) {
            return Err(match hit {
                Ok(v) => Compiled::Valid(v.clone()),
                Err(e) => Compiled::Invalid(e.clone()),
            });
        }
        if !self.admit_keyed(pointer, key, len) {
            return Err(Compiled::Refused);
        }
        Ok(key)
    }

    /// Compiles an admitted schema and remembers the outcome.
    fn build_keyed(
        &self,
        key: SchemaKey,
        schema: ValueRef<'_>,
        build: impl FnOnce(&Value) -> Result<Validator, String>,
    ) -> Compiled {
        // Compiled outside the lock: compiling is most of the cost, and other threads may
        // need other schemas meanwhile.
        let built = build(&schema.to_value()).map(Arc::new);
        lock(&self.schemas).insert(key, built.clone());
        lock(&self.seen).insert(key);
        match built {
            Ok(v) => Compiled::Valid(v),
            Err(e) => Compiled::Invalid(e),
        }
    }

    /// Whether one more schema may be compiled from the document; records the limit it would
    /// exceed otherwise.
    fn admit_keyed(&self, pointer: &str, key: SchemaKey, len: u64) -> bool {
        let over = if len > self.limits.max_schema_bytes {
            Some(("max-schema-bytes", self.limits.max_schema_bytes))
        } else if self.new_past_limit(key) {
            Some(("max-schemas", self.limits.max_schemas))
        } else {
            None
        };
        let Some((limit, value)) = over else {
            return true;
        };
        if lock(&self.refused).insert(key) {
            self.exceeded(limit, value, pointer);
        }
        false
    }

    /// Whether `key` would be one distinct schema more than `max-schemas` allows.
    fn new_past_limit(&self, key: SchemaKey) -> bool {
        let seen = lock(&self.seen);
        seen.len() as u64 >= self.limits.max_schemas && !seen.contains(&key)
    }

    /// The value `make` computes for `id` and `version` (a protocol version index, `u8::MAX`
    /// when the value does not depend on one), computed once per document (twice at most
    /// when two threads ask at once) and shared.
    pub fn memo<T: std::any::Any + Send + Sync>(
        &self,
        id: &MemoId,
        version: u8,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        let key = (id.key, version);
        if let Some((text, hit)) = lock(&self.memos).get(&key) {
            if *text == id.text {
                if let Ok(v) = Arc::clone(hit).downcast::<T>() {
                    return v;
                }
            }
        }
        let made = Arc::new(make());
        // A memo of another text under the same key keeps its place; this one is not kept.
        lock(&self.memos)
            .entry(key)
            .or_insert_with(|| (Arc::clone(&id.text), made.clone()));
        made
    }

    /// Records that the evaluation exceeded `limit` at `pointer`.
    pub fn exceeded(&self, limit: &'static str, value: u64, pointer: &str) {
        lock(&self.exceeded).push(LimitExceeded {
            limit,
            value,
            pointer: pointer.to_owned(),
        });
    }

    /// Frees the compiled schemas on `threads` threads (thousands of validators for a large
    /// document).
    pub fn release(&self, threads: usize) {
        use rayon::prelude::*;
        let compiled: Vec<_> = std::mem::take(&mut *lock(&self.schemas))
            .by_key
            .into_values()
            .collect();
        if threads <= 1 {
            return drop(compiled);
        }
        compiled.into_par_iter().with_min_len(64).for_each(drop);
    }

    /// The limits exceeded so far, in the order they were met.
    pub fn take_exceeded(&self) -> Vec<LimitExceeded> {
        std::mem::take(&mut *lock(&self.exceeded))
    }
}

/// Short JSON text of `value` for messages.
pub fn excerpt(value: ValueRef<'_>) -> String {
    match value.as_str() {
        Some(s) => excerpt_str(s),
        None => excerpt_str(&value.to_string()),
    }
}

/// [`excerpt`] of a string (a key, or a string value).
pub fn excerpt_str(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_memo_is_shared_by_its_text_only() {
        let cache = DocCache::default();
        let tags = MemoId::new("tags".to_owned());
        assert_eq!(*cache.memo(&tags, u8::MAX, || 1u32), 1);
        assert_eq!(*cache.memo(&tags, u8::MAX, || 2u32), 1, "made once");
        assert_eq!(*cache.memo(&tags, 0, || 3u32), 3, "versions apart");
        // Another text whose hash is the same: its own value, and the first one stays.
        let other = MemoId {
            text: "other".into(),
            key: tags.key,
        };
        assert_eq!(*cache.memo(&other, u8::MAX, || 4u32), 4);
        assert_eq!(*cache.memo(&tags, u8::MAX, || 5u32), 1);
    }

    #[test]
    fn schema_length_is_the_compact_text_length() {
        let cache = DocCache::default();
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(-12.5e3),
            json!(18446744073709551615u64),
            json!("a\"b\\c\n\u{1}\u{7f}é"),
            json!([]),
            json!({}),
            json!({"type": "object", "properties": {"a\tb": {"enum": [1, "x", null, [true]]}}}),
        ] {
            let tree = crate::document::Tree::from_value(&v);
            assert_eq!(
                cache.hashers.key(tree.root()).1,
                v.to_string().len() as u64,
                "{v}"
            );
        }
    }

    #[test]
    fn recent_schemas_are_kept_up_to_capacity_and_limits_count_distinct_ones() {
        let limits = {
            let mut limits = Limits::default();
            limits.max_schemas = KEEP_SCHEMAS as u64 + 10;
            limits
        };
        let cache = DocCache::with_limits(&limits);
        let builds = std::cell::Cell::new(0);
        let compile = |i: usize| {
            let schema = json!({"type": "object", "title": i.to_string()});
            let tree = crate::document::Tree::from_value(&schema);
            cache.compile_at("", tree.root(), |s| {
                builds.set(builds.get() + 1);
                jsonschema::options_for::<crate::checks::TreeJson>()
                    .build(s)
                    .map_err(|e| e.to_string())
            })
        };
        for i in 0..KEEP_SCHEMAS + 5 {
            assert!(matches!(compile(i), Compiled::Valid(_)));
        }
        assert_eq!(builds.get(), KEEP_SCHEMAS + 5);
        assert_eq!(lock(&cache.schemas).by_key.len(), KEEP_SCHEMAS);
        // The newest are kept; the oldest is compiled again, and is not a new distinct schema.
        assert!(matches!(compile(KEEP_SCHEMAS + 4), Compiled::Valid(_)));
        assert_eq!(builds.get(), KEEP_SCHEMAS + 5);
        assert!(matches!(compile(0), Compiled::Valid(_)));
        assert_eq!(builds.get(), KEEP_SCHEMAS + 6);
        // The limit counts distinct schemas, however often one was compiled again.
        for i in KEEP_SCHEMAS + 5..KEEP_SCHEMAS + 10 {
            assert!(matches!(compile(i), Compiled::Valid(_)));
        }
        assert!(matches!(compile(100_000), Compiled::Refused));
        assert!(matches!(compile(1), Compiled::Valid(_)));
        assert_eq!(cache.take_exceeded().len(), 1);
    }

    #[test]
    fn vouched_schemas_count_towards_the_limit_and_are_compiled_when_needed() {
        let limits = {
            let mut limits = Limits::default();
            limits.max_schemas = 2;
            limits
        };
        let cache = DocCache::with_limits(&limits);
        let builds = std::cell::Cell::new(0);
        let build = |s: &Value| {
            builds.set(builds.get() + 1);
            jsonschema::options_for::<crate::checks::TreeJson>()
                .build(s)
                .map_err(|e| e.to_string())
        };
        let doc = json!({"a": {"type": "string"}, "b": {"type": 5}, "c": {"type": "number"}});
        let tree = crate::document::Tree::from_value(&doc);
        let at = |p: &str| tree.root().pointer(p).unwrap();
        // Vouched for: valid, not compiled, counted.
        assert_eq!(
            cache.schema_problem_at("/a", at("/a"), |_| true, build),
            None
        );
        assert_eq!(builds.get(), 0);
        // Not vouched for: compiled, and its problem reported.
        assert!(cache
            .schema_problem_at("/b", at("/b"), |_| false, build)
            .is_some());
        assert_eq!(builds.get(), 1);
        // A third distinct schema is past the limit, vouched for or not.
        assert_eq!(
            cache.schema_problem_at("/c", at("/c"), |_| true, build),
            None
        );
        assert_eq!(cache.take_exceeded().len(), 1);
        assert!(matches!(
            cache.compile_at("/c", at("/c"), build),
            Compiled::Refused
        ));
        // The vouched schema is asked again without being checked again, and compiled, within
        // the limit, once an instance needs it.
        let asked = std::cell::Cell::new(false);
        let vouch = |_: ValueRef<'_>| {
            asked.set(true);
            true
        };
        assert_eq!(cache.schema_problem_at("/a", at("/a"), vouch, build), None);
        assert!(!asked.get());
        assert!(matches!(
            cache.compile_at("/a", at("/a"), build),
            Compiled::Valid(_)
        ));
        assert_eq!(builds.get(), 2);
        assert!(cache.take_exceeded().is_empty());
    }

    #[test]
    fn a_node_is_keyed_once_and_equal_nodes_of_other_trees_share_its_compilation() {
        let cache = DocCache::default();
        let builds = std::cell::Cell::new(0);
        let compile = |tree: &crate::document::Tree, at: &str| {
            let node = tree.root().pointer(at).unwrap();
            cache.compile_at(at, node, |s| {
                builds.set(builds.get() + 1);
                jsonschema::options_for::<crate::checks::TreeJson>()
                    .build(s)
                    .map_err(|e| e.to_string())
            })
        };
        let doc = json!({"a": {"type": "string"}, "b": {"type": "string"}});
        let tree = crate::document::Tree::from_value(&doc);
        for at in ["/a", "/a", "/b"] {
            assert!(matches!(compile(&tree, at), Compiled::Valid(_)));
        }
        let again = crate::document::Tree::from_value(&doc);
        assert!(matches!(compile(&again, "/a"), Compiled::Valid(_)));
        assert_eq!(builds.get(), 1);
        assert_eq!(lock(&cache.node_keys).len(), 3);
    }

    #[test]
    fn equal_schemas_share_a_key_and_kinds_stay_apart() {
        let cache = DocCache::default();
        let key = |v: Value| {
            cache
                .hashers
                .key(crate::document::Tree::from_value(&v).root())
                .0
        };
        assert_eq!(key(json!({"a": [1, "b"]})), key(json!({"a": [1, "b"]})));
        assert_ne!(key(json!({"a": 1})), key(json!({"a": "1"})));
        assert_ne!(key(json!(["ab"])), key(json!(["a", "b"])));
        assert_ne!(key(json!(["a\"\"b"])), key(json!(["a", "b"])));
        assert_ne!(key(json!({"a": {}})), key(json!({"a": {}, "": {}})));
        assert_ne!(key(json!({"a": 1, "b": 2})), key(json!({"b": 2, "a": 1})));
    }
}
