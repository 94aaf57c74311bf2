//! `protocol-schema`: a message (or part of one) validates against the definition that the
//! protocol's own JSON Schema gives for it, in the schema of the version being evaluated.
//!
//! Design: the definition is looked up by a key built from the node's context (for traffic,
//! the entry's `kind` and `method`, and a result's `resultType`): the parts of `key`, joined
//! by spaces, with the longest prefix that has an entry in `definitions` winning, so
//! `tools/call input_required` can refine `tools/call`. An entry may list alternatives
//! (`JSONRPCError|JSONRPCErrorResponse`): the first the version's schema defines is used.
//! When the version's schema defines none of them, the message does not exist in that
//! version, which is itself a finding. Schema files are parsed, and each (version,
//! definition) compiled, on first use and then shared (a file is parsed once for every
//! check of the catalogue that names it): a catalogue that names five protocol schemas of
//! 100-200 KB loads without parsing any of them, and the compiled validator holds only the
//! definitions reachable from the one it checks.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use jsonschema::Draft;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::json_schema::{build, shorten};
use super::tree_instance::{failures, TreeValidator as Validator};
use super::{
    options, relpath, schema_of, Check, CheckSpec, CompileCx, Node, OptionError, ParsedCell,
};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// The protocol schema of each version (a JSON file of the rules directory); versions
    /// without one are not checked.
    schema_files: BTreeMap<String, String>,
    /// The parts of the lookup key, joined by single spaces: a relative path whose string
    /// value is the part, or `{path, as}` whose part is `as` when `path` selects anything.
    /// Parts whose path selects nothing are left out.
    key: Vec<KeyPart>,
    /// Lookup key → definition name, or alternatives `A|B`.
    definitions: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum KeyPart {
    Value(String),
    Present {
        /// Relative path tested for presence.
        path: String,
        /// The part when it selects something.
        #[serde(rename = "as")]
        name: String,
    },
}

#[derive(Debug)]
enum Part {
    Value(RelPath),
    Present(RelPath, String),
}

/// Validators by (version index, definition); `None` when the version's schema has none.
type Compiled = HashMap<(usize, String), Option<Arc<Validator>>>;

#[derive(Debug)]
struct ProtocolSchema {
    key: Vec<Part>,
    definitions: HashMap<String, Vec<String>>,
    /// By version index: the schema file's text and, once parsed, its value.
    files: Vec<Option<SchemaFile>>,
    compiled: Mutex<Compiled>,
}

#[derive(Debug)]
struct SchemaFile {
    text: crate::rules::Text,
    /// Shared with every check of the catalogue that names the same file.
    parsed: ParsedCell,
}

fn compile(m: &Map<String, Value>, cx: &CompileCx<'_>) -> Result<Box<dyn Check>, OptionError> {
    let o = options::<Options>(m)?;
    let mut files: Vec<Option<SchemaFile>> = (0..cx.versions.len()).map(|_| None).collect();
    for (version, file) in &o.schema_files {
        let at = format!("/schema-files/{version}");
        let v = cx
            .versions
            .parse(version)
            .ok_or_else(|| OptionError::at(&at, format!("unknown protocol version `{version}`")))?;
        let text = cx.files.get(file).ok_or_else(|| {
            OptionError::at(
                &at,
                format!("no schema file `{file}` in the rules directory"),
            )
        })?;
        files[v.index()] = Some(SchemaFile {
            text: text.clone(),
            parsed: cx.parsed.cell(file),
        });
    }
    let key = o
        .key
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            KeyPart::Value(p) => relpath(&format!("key/{i}"), p).map(Part::Value),
            KeyPart::Present { path, name } => {
                relpath(&format!("key/{i}/path"), path).map(|p| Part::Present(p, name.clone()))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if key.is_empty() {
        return Err(OptionError::at("/key", "`key` names at least one path"));
    }
    let definitions = o
        .definitions
        .into_iter()
        .map(|(k, v)| (k, v.split('|').map(|s| s.trim().to_owned()).collect()))
        .collect();
    Ok(Box::new(ProtocolSchema {
        key,
        definitions,
        files,
        compiled: Mutex::new(HashMap::new()),
    }))
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "protocol-schema",
    summary: "The value validates against the definition, in the protocol schema of the version \
              being evaluated, that `definitions` gives for the node's `key` (longest key first; \
              `A|B` takes the first the schema defines); a finding per validation error, at the \
              failing location, or one at the node when the version defines none of them.",
    params: &["error", "definition"],
    compile,
    schema: schema_of::<Options>,
};

/// The definitions container of a schema: `$defs` (2020-12) or `definitions` (draft-07).
fn container(schema: &Value) -> Option<(&'static str, &Map<String, Value>)> {
    for name in ["$defs", "definitions"] {
        if let Some(defs) = schema.get(name).and_then(Value::as_object) {
            return Some((name, defs));
        }
    }
    None
}

/// Every definition reachable from `start` through local `$ref`s into `container`.
fn reachable<'a>(defs: &'a Map<String, Value>, prefix: &str, start: &str) -> Vec<&'a str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = Vec::new();
    if let Some((k, _)) = defs.get_key_value(start) {
        stack.push(k.as_str());
    }
    while let Some(name) = stack.pop() {
        if !seen.insert(name) {
            continue;
        }
        let mut values = vec![&defs[name]];
        while let Some(v) = values.pop() {
            match v {
                Value::Object(m) => {
                    for (k, child) in m {
                        if k == "$ref" {
                            if let Some(target) =
                                child.as_str().and_then(|r| r.strip_prefix(prefix))
                            {
                                if let Some((k, _)) = defs.get_key_value(target) {
                                    stack.push(k.as_str());
                                }
                            }
                        } else {
                            values.push(child);
                        }
                    }
                }
                Value::Array(items) => values.extend(items),
                _ => {}
            }
        }
    }
    let mut out: Vec<&str> = seen.into_iter().collect();
    out.sort_unstable();
    out
}

impl ProtocolSchema {
    fn schema(&self, version: usize) -> Option<&Value> {
        let file = self.files.get(version)?.as_ref()?;
        file.parsed
            .get_or_init(|| serde_json::from_str(&file.text).ok())
            .as_ref()
    }

    /// The validator of `definition` in `version`'s schema, `None` when it has none.
    fn validator(&self, version: usize, definition: &str) -> Option<Arc<Validator>> {
        let key = (version, definition.to_owned());
        if let Some(hit) = lock(&self.compiled).get(&key) {
            return hit.clone();
        }
        let built = self.schema(version).and_then(|schema| {
            let (name, defs) = container(schema)?;
            defs.get(definition)?;
            let prefix = format!("#/{name}/");
            let mut kept = Map::new();
            for d in reachable(defs, &prefix, definition) {
                kept.insert(d.to_owned(), defs[d].clone());
            }
            let draft = match schema.get("$schema").and_then(Value::as_str) {
                Some(s) if s.contains("draft-07") => Draft::Draft7,
                _ => Draft::Draft202012,
            };
            let mut root = Map::new();
            if let Some(s) = schema.get("$schema") {
                root.insert("$schema".to_owned(), s.clone());
            }
            root.insert(name.to_owned(), Value::Object(kept));
            root.insert(
                "allOf".to_owned(),
                serde_json::json!([{ "$ref": format!("{prefix}{definition}") }]),
            );
            build(&Value::Object(root), draft).ok().map(Arc::new)
        });
        lock(&self.compiled).insert(key, built.clone());
        built
    }

    fn defines(&self, version: usize, definition: &str) -> bool {
        self.schema(version)
            .and_then(container)
            .is_some_and(|(_, defs)| defs.contains_key(definition))
    }

    /// The definitions the node's key selects.
    fn lookup(&self, node: Node<'_>, cx: &EvalCtx<'_>) -> Option<(String, &[String])> {
        let mut parts: Vec<String> = Vec::new();
        for k in &self.key {
            match k {
                Part::Value(p) => {
                    if let Some(s) = p
                        .first_value_from(cx.root, node.pointer, node.value)
                        .and_then(|v| v.as_str())
                    {
                        parts.push(s.to_owned());
                    }
                }
                Part::Present(p, name) => {
                    if p.first_value_from(cx.root, node.pointer, node.value)
                        .is_some()
                    {
                        parts.push(name.clone());
                    }
                }
            }
        }
        while !parts.is_empty() {
            let key = parts.join(" ");
            if let Some(defs) = self.definitions.get(&key) {
                return Some((key, defs));
            }
            parts.pop();
        }
        None
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Check for ProtocolSchema {
    fn version_sensitive(&self) -> bool {
        true
    }

    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(version) = cx.version.map(|v| v.index()) else {
            return;
        };
        if self.schema(version).is_none() {
            return;
        }
        let Some((key, candidates)) = self.lookup(node, cx) else {
            return;
        };
        let Some(definition) = candidates.iter().find(|d| self.defines(version, d)) else {
            out.push(
                Finding::new(node.pointer)
                    .with(
                        "error",
                        format!(
                            "`{key}` is not a message of this protocol version: its schema defines no {}",
                            candidates.join(" or ")
                        ),
                    )
                    .with("definition", candidates.join("|")),
            );
            return;
        };
        let Some(validator) = self.validator(version, definition) else {
            return;
        };
        for error in failures(&validator, node.value) {
            let suffix = error.instance_path().to_string();
            out.push(
                Finding::new(format!("{}{}", node.pointer, suffix))
                    .with("error", shorten(&error.to_string()))
                    .with("definition", definition.clone()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachable_follows_refs_transitively_and_stops_at_cycles() {
        let defs: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"items": [{"$ref": "#/$defs/C"}], "x": {"$ref": "#/$defs/B"}},
            "C": {"type": "string"},
            "D": {"type": "null"}
        }))
        .unwrap();
        assert_eq!(reachable(&defs, "#/$defs/", "A"), vec!["A", "B", "C"]);
        assert!(reachable(&defs, "#/$defs/", "missing").is_empty());
    }
}
