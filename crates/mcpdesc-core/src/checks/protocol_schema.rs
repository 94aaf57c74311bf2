//! `protocol-schema`: a message (or part of one) validates against the definition that the
//! protocol's own JSON Schema gives for it, in the schema of the version being evaluated.
//!
//! Design: the definition is looked up by a key built from the node's context (for traffic,
//! the entry's `kind` and `method`, and a result's `resultType`): the parts of `key`, joined
//! by spaces, with the longest prefix that has an entry in `definitions` winning, so
//! `a/method input_required` can refine `a/method`. An entry may list alternatives
//! (`JSONRPCError|JSONRPCErrorResponse`): the first the version's schema defines is used.
//! When the version's schema defines none of them, the message does not exist in that
//! version, which is itself a finding. Schema files are parsed, and each (version,
//! definition) compiled, on first use and then shared (a file is parsed once for every
//! check of the catalogue that names it): a catalogue that names five protocol schemas of
//! 100-200 KB loads without parsing any of them, and the compiled validator holds only the
//! definitions reachable from the one it checks.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::json_schema::{build, declared_draft, shorten};
use super::schema_errors;
use super::tree_instance::{failures, TreeValidator as Validator};
use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError, ParsedCell};
use crate::eval::context::{EvalCtx, Finding, POSITION};
use crate::relpath::RelPath;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// The protocol schema of each version: a file-name pattern in which `{version}` is
    /// replaced by each protocol version (every version then needs its file, those a release
    /// adds included), or a map from version to file, in which versions left out are not
    /// checked (but a version that a release adds must be named). Files are JSON files of
    /// the rules directory.
    schema_files: SchemaFiles,
    /// The parts of the lookup key, joined by single spaces: a relative path whose string
    /// value is the part, or `{path, as}` whose part is `as` when `path` selects anything.
    /// Parts whose path selects nothing are left out.
    key: Vec<KeyPart>,
    /// Lookup key → definition name, or alternatives `A|B`.
    definitions: BTreeMap<String, String>,
    /// Lookup key → a definition (or alternatives `A|B`) the value must satisfy as well, for
    /// every entry whose key is the node's key or a shorter prefix of it (the JSON-RPC envelope
    /// of a method whose definition leaves it out, say). An error already reported at the same
    /// location with the same text is reported once; a definition the version lacks is skipped.
    #[serde(default)]
    also: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
enum SchemaFiles {
    Pattern(String),
    ByVersion(BTreeMap<String, String>),
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// One definition in one version's schema, once looked at.
#[derive(Debug)]
enum Slot {
    /// The schema defines no such name.
    Undefined,
    /// Defined, but it does not compile: nothing is checked against it.
    Broken,
    Ready(Arc<Validator>),
}

#[derive(Debug)]
struct ProtocolSchema {
    key: Vec<Part>,
    /// Lookup key → the alternatives, as indices into `names`.
    /// Looked up once per message.
    definitions: HashMap<String, Vec<usize>, crate::FastHash>,
    /// Lookup key → the alternatives of a definition to check as well, as indices into `names`.
    also: HashMap<String, Vec<usize>, crate::FastHash>,
    /// Every definition name `definitions` and `also` give.
    names: Vec<String>,
    /// By version index: the schema file's text and, once parsed, its value.
    files: Vec<Option<SchemaFile>>,
    /// By version index × `names.len()` + name index; filled on first use, then read without
    /// a lock by every message (and every thread) after.
    slots: Vec<OnceLock<Slot>>,
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
    let named: Vec<(crate::versions::Version, String, String)> = match &o.schema_files {
        SchemaFiles::Pattern(pattern) => {
            if !pattern.contains("{version}") {
                return Err(OptionError::at(
                    "/schema-files",
                    "a file-name pattern names each version's file with `{version}`",
                ));
            }
            cx.versions
                .iter()
                .map(|(v, name)| (v, pattern.replace("{version}", name), String::new()))
                .collect()
        }
        SchemaFiles::ByVersion(map) => {
            let mut named = Vec::new();
            for (version, file) in map {
                let at = format!("/schema-files/{version}");
                let v = cx.versions.parse(version).ok_or_else(|| {
                    OptionError::at(
                        &at,
                        crate::rules::suggest::unknown_version(version, cx.versions),
                    )
                })?;
                named.push((v, file.clone(), at));
            }
            // A version a release added has no file by default: its model's schema is not
            // its schema, and skipping it would pass every message unchecked.
            if let Some((_, missing)) = cx
                .versions
                .iter()
                .find(|(v, _)| cx.versions.is_added(*v) && !named.iter().any(|n| n.0 == *v))
            {
                return Err(OptionError::at(
                    "/schema-files",
                    format!(
                        "names no schema file for protocol version `{missing}`, which a release adds; \
                         give `schema-files` as a pattern with `{{version}}` and add the version's file, or name it here"
                    ),
                ));
            }
            named
        }
    };
    for (v, file, at) in named {
        let at = if at.is_empty() {
            "/schema-files".to_owned()
        } else {
            at
        };
        let text = if cx.versions.is_added(v) && !cx.files.contains_key(&file) {
            let version = cx.versions.name(v);
            return Err(OptionError::at(
                &at,
                format!(
                    "no schema file `{file}` for protocol version `{version}`, which a release adds; \
                     put the version's protocol schema there, in the release's directory"
                ),
            ));
        } else {
            super::rules_file(cx.files, &at, &file, "schema file")?
        };
        files[v.index()] = Some(SchemaFile {
            text: text.clone(),
            parsed: cx.parsed.cell(&file),
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
    let mut names: Vec<String> = Vec::new();
    let mut table = |entries: BTreeMap<String, String>| {
        entries
            .into_iter()
            .map(|(k, v)| {
                let alternatives = v
                    .split('|')
                    .map(|name| {
                        let name = name.trim();
                        names.iter().position(|n| n == name).unwrap_or_else(|| {
                            names.push(name.to_owned());
                            names.len() - 1
                        })
                    })
                    .collect();
                (k, alternatives)
            })
            .collect::<HashMap<String, Vec<usize>, crate::FastHash>>()
    };
    let definitions = table(o.definitions);
    let also = table(o.also);
    let slots = (0..files.len() * names.len())
        .map(|_| OnceLock::new())
        .collect();
    Ok(Box::new(ProtocolSchema {
        key,
        definitions,
        also,
        names,
        files,
        slots,
    }))
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "protocol-schema",
    summary: "The value validates against the definition, in the protocol schema of the version \
              being evaluated, that `definitions` gives for the node's `key` (longest key first; \
              `A|B` takes the first the schema defines) and those `also` gives for the key and \
              its prefixes; a finding per distinct validation error, at the failing location, or \
              one at the node when the version defines none of the `definitions` alternatives.",
    params: &["error", "definition"],
    compile,
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
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

/// The validator of `definition` in the protocol schema `schema`: the definition is compiled
/// as the root, next to the definitions it reaches, so that a message is validated without a
/// reference to follow first (19 % of the time of validating a capture); a definition with
/// members of a root's own is reached through `allOf` instead.
fn slot_of(schema: &Value, definition: &str) -> Slot {
    let Some((name, defs)) = container(schema) else {
        return Slot::Undefined;
    };
    if !defs.contains_key(definition) {
        return Slot::Undefined;
    }
    let prefix = format!("#/{name}/");
    let mut kept = Map::new();
    for d in reachable(defs, &prefix, definition) {
        kept.insert(d.to_owned(), defs[d].clone());
    }
    let draft = declared_draft(schema.get("$schema").and_then(Value::as_str));
    let mut root = match defs.get(definition) {
        Some(Value::Object(own))
            if !["$schema", "$id", "$defs", "definitions"]
                .iter()
                .any(|k| own.contains_key(*k)) =>
        {
            own.clone()
        }
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert(
                "allOf".to_owned(),
                serde_json::json!([{ "$ref": format!("{prefix}{definition}") }]),
            );
            wrapper
        }
    };
    if let Some(s) = schema.get("$schema") {
        root.insert("$schema".to_owned(), s.clone());
    }
    root.insert(name.to_owned(), Value::Object(kept));
    match build(&Value::Object(root), draft) {
        Ok(v) => Slot::Ready(Arc::new(v)),
        Err(_) => Slot::Broken,
    }
}

impl ProtocolSchema {
    fn schema(&self, version: usize) -> Option<&Value> {
        let file = self.files.get(version)?.as_ref()?;
        file.parsed
            .get_or_init(|| serde_json::from_str(&file.text).ok())
            .as_ref()
    }

    /// What `version`'s schema has for definition `name` (an index into `names`).
    fn slot(&self, version: usize, name: usize) -> &Slot {
        let Some(cell) = self.slots.get(version * self.names.len() + name) else {
            return &Slot::Undefined;
        };
        cell.get_or_init(|| self.compile_slot(version, &self.names[name]))
    }

    fn compile_slot(&self, version: usize, definition: &str) -> Slot {
        self.schema(version)
            .map_or(Slot::Undefined, |schema| slot_of(schema, definition))
    }

    /// The lookup key the node's key selects and its alternatives: the parts joined by
    /// spaces, the longest key with an entry winning.
    fn lookup(&self, node: Node<'_>, cx: &EvalCtx<'_>) -> Option<Lookup<'_>> {
        // Room for a method name, a result type and the separators without growing.
        let mut key = String::with_capacity(64);
        let mut ends: Vec<usize> = Vec::with_capacity(self.key.len());
        for k in &self.key {
            let part = match k {
                Part::Value(p) => p
                    .first_value_from(cx.root, node.pointer, node.value)
                    .and_then(|v| v.as_str()),
                Part::Present(p, name) => p
                    .first_value_from(cx.root, node.pointer, node.value)
                    .map(|_| name.as_str()),
            };
            if let Some(part) = part {
                if !key.is_empty() {
                    key.push(' ');
                }
                key.push_str(part);
                ends.push(key.len());
            }
        }
        let also: Vec<&[usize]> = ends
            .iter()
            .filter_map(|&end| self.also.get(&key[..end]).map(Vec::as_slice))
            .collect();
        while let Some(end) = ends.pop() {
            key.truncate(end);
            if let Some(alternatives) = self.definitions.get(&key) {
                return Some(Lookup {
                    key,
                    alternatives,
                    also,
                });
            }
        }
        None
    }

    /// The first of `alternatives` that `version`'s schema defines, and what it holds.
    fn first_defined(&self, version: usize, alternatives: &[usize]) -> Option<(usize, &Slot)> {
        alternatives
            .iter()
            .find_map(|&d| match self.slot(version, d) {
                Slot::Undefined => None,
                slot => Some((d, slot)),
            })
    }
}

/// What a node's key selects: the longest key with a definition, its alternatives, and the
/// alternatives `also` gives for that key's prefixes.
struct Lookup<'c> {
    key: String,
    alternatives: &'c [usize],
    also: Vec<&'c [usize]>,
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
        let Some(Lookup {
            key,
            alternatives,
            also,
        }) = self.lookup(node, cx)
        else {
            return;
        };
        let Some((definition, slot)) = self.first_defined(version, alternatives) else {
            let names: Vec<&str> = alternatives
                .iter()
                .map(|&d| self.names[d].as_str())
                .collect();
            out.push(
                Finding::new(node.pointer)
                    .with(
                        "error",
                        format!(
                            "`{key}` is not a message of this protocol version: its schema defines no {}",
                            names.join(" or ")
                        ),
                    )
                    .with("definition", names.join("|")),
            );
            return;
        };
        let mut checked = vec![definition];
        let mut reported: HashSet<(String, String)> = HashSet::new();
        let mut validate = |definition: usize, slot: &Slot, out: &mut Vec<Finding>| {
            let Slot::Ready(validator) = slot else {
                return;
            };
            for error in failures(validator, node.value) {
                let at = format!("{}{}", node.pointer, error.instance_path());
                // An alternative none of which matches is explained by the one that got
                // furthest, at the node it fails at; the finding stays the alternative's.
                let (text, position) = match schema_errors::best_alternative(&error) {
                    Some((deeper, words)) => {
                        (shorten(&words), Some(format!("{}{deeper}", node.pointer)))
                    }
                    None => (shorten(&error.to_string()), None),
                };
                if reported.insert((at.clone(), text.clone())) {
                    let mut finding = Finding::new(at)
                        .with("error", text)
                        .with("definition", self.names[definition].clone());
                    if let Some(position) = position {
                        finding = finding.with(POSITION, position);
                    }
                    out.push(finding);
                }
            }
        };
        validate(definition, slot, out);
        for alternatives in also {
            let Some((extra, slot)) = self.first_defined(version, alternatives) else {
                continue;
            };
            if !checked.contains(&extra) {
                checked.push(extra);
                validate(extra, slot, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonschema::Draft;

    /// A definition compiled as the root finds the errors the same definition finds behind a
    /// reference: every definition of a protocol schema of each dialect, on instances of every
    /// JSON type, the definition's own text among them.
    #[test]
    fn a_definition_as_the_root_validates_as_behind_a_reference() {
        use crate::checks::tree_instance::failures;
        use crate::document::Tree;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/schemas/mcp");
        let fixed = [
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {}}),
            serde_json::json!({"jsonrpc": "1.0", "id": [], "method": 3, "params": {"a": 2}}),
            serde_json::json!({"a": {"b": [1, "x", null, true]}}),
            serde_json::json!([1, 2]),
            serde_json::json!("text"),
            serde_json::json!(null),
        ];
        let mut compared = 0;
        for (version, draft) in [
            ("2024-11-05.json", Draft::Draft7),
            ("2025-11-25.json", Draft::Draft202012),
        ] {
            let text = std::fs::read_to_string(dir.join(version)).expect("a protocol schema");
            let schema: Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(
                declared_draft(schema.get("$schema").and_then(Value::as_str)),
                draft
            );
            let (name, defs) = container(&schema).expect("definitions");
            for (definition, own) in defs {
                let Slot::Ready(root) = slot_of(&schema, definition) else {
                    panic!("{version} {definition} compiles");
                };
                let mut wrapper = schema.as_object().cloned().expect("an object");
                wrapper.insert(
                    "allOf".to_owned(),
                    serde_json::json!([{ "$ref": format!("#/{name}/{definition}") }]),
                );
                let behind = build(&Value::Object(wrapper), draft).expect("compiles");
                let own_parts = [
                    own.clone(),
                    own.get("properties").cloned().unwrap_or_default(),
                ];
                for instance in fixed.iter().chain(&own_parts) {
                    let tree = Tree::from_value(instance);
                    let errors = |v: &Validator| -> Vec<String> {
                        failures(v, tree.root())
                            .map(|e| format!("{} {e}", e.instance_path()))
                            .collect()
                    };
                    assert_eq!(
                        errors(&root),
                        errors(&behind),
                        "{version} {definition} {instance}"
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 500, "{compared} comparisons");
        assert!(matches!(
            slot_of(&serde_json::json!({"$defs": {}}), "X"),
            Slot::Undefined
        ));
    }

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
