//! Embeds the default catalogue, so it needs no files at run time.
//!
//! The catalogue is the crate's `rules/` directory: in the repository a link to the workspace's
//! top-level `rules/` (its one source), in a packaged crate the files themselves. A build without
//! it fails rather than embedding an empty catalogue.
//!
//! Each rule file is also parsed here and embedded as a document snapshot, so loading the
//! default catalogue decodes JSON instead of parsing YAML. A file that does not parse gets no
//! snapshot; loading then parses its text and reports the problem with its position.
//!
//! The JSONPath queries of the rule files are parsed here too, with the parser loading uses
//! (`jsonpath-rust`), and embedded in a compact form (module `path::encoded_query`), so
//! loading the default catalogue parses no query. A query that does not parse gets no
//! pre-parsed form; loading then parses it and reports the error with its position.

// `decode` is the library's.
#[allow(dead_code)]
#[path = "src/path/encoded_query.rs"]
mod encoded_query;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json" | "j2" | "jinja")
        ) {
            let rel = path
                .strip_prefix(root)
                .expect("below root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, path));
        }
    }
}

/// The document of a rule file that parses (rule files are YAML; other files have none).
fn document(rel: &str, path: &Path) -> Option<mcpdesc_document::ValueDocument> {
    use mcpdesc_document::{Format, Limits, ValueDocument};
    if !(rel.ends_with(".yaml") || rel.ends_with(".yml")) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    ValueDocument::parse_str(&text, Format::Yaml, &Limits::default()).ok()
}

/// Adds to `out` the queries `value`'s strings and keys may be compiled to. Which members
/// hold queries is the loader's business, so every string that reads as a path counts: a
/// query (`$…`), a relative path (`@…`, `^…`, compiled as `$…`) or a member name (`mode`,
/// compiled as `$['mode']`). Texts that are no query cost a failed parse here and nothing
/// at load.
fn queries(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => {
            if s.starts_with('$') {
                out.insert(s.clone());
            } else if let Some(rest) = s.strip_prefix('@') {
                out.insert(format!("${rest}"));
            } else if s.starts_with('^') {
                out.insert(format!("${}", s.trim_start_matches('^')));
            } else if s.len() <= 64
                && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                out.insert(format!("$['{s}']"));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| queries(v, out)),
        Value::Object(members) => {
            // Some maps are keyed by queries (`references.sites`).
            let keys = members.keys().filter(|key| key.starts_with('$'));
            out.extend(keys.cloned());
            members.values().for_each(|v| queries(v, out));
        }
        _ => {}
    }
}

// The queries the loader composes, as `rules/surfaces.rs` composes them: the occurrences of
// a surface (its `description` paths, and a query over the traffic model for each wire
// selector), and for each rule with a `subject`, each occurrence of its surface followed by
// the subject's segments. Should the two drift apart, the queries of the default catalogue
// are parsed at load again, and a unit test (`embedded_queries_cover_the_catalogue`) fails.

/// A JSONPath string literal.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The segments a relative path (`@`, `@…`, or a member name) adds to a query.
fn suffix(rel: &str) -> Option<String> {
    if rel == "@" {
        return Some(String::new());
    }
    if let Some(rest) = rel.strip_prefix('@') {
        return Some(rest.to_owned());
    }
    (!rel.starts_with(['$', '^']) && !rel.is_empty()).then(|| format!("[{}]", quote(rel)))
}

/// The query over the traffic model a wire selector (`{kind, method, dir, at}`) names.
fn selector_path(sel: &Value) -> Option<String> {
    let mut tests = vec![format!("@.kind == {}", quote(sel.get("kind")?.as_str()?))];
    match sel.get("method") {
        None => {}
        Some(Value::String(m)) => tests.push(format!("@.method == {}", quote(m))),
        Some(Value::Array(ms)) => {
            let any: Vec<String> = ms
                .iter()
                .map(|m| Some(format!("@.method == {}", quote(m.as_str()?))))
                .collect::<Option<_>>()?;
            tests.push(match any.as_slice() {
                [] => return None,
                [one] => one.clone(),
                _ => format!("({})", any.join(" || ")),
            });
        }
        Some(_) => return None,
    }
    if let Some(dir) = sel.get("dir") {
        tests.push(format!("@.dir == {}", quote(dir.as_str()?)));
    }
    let at = suffix(sel.get("at").map_or(Some("@"), Value::as_str)?)?;
    Some(format!(
        "$.{}[?{}].msg{at}",
        mcpdesc_document::MESSAGES,
        tests.join(" && ")
    ))
}

/// Adds to `out` the queries composed from the surfaces and subjects of `docs`.
fn composed_queries(docs: &[&Value], out: &mut BTreeSet<String>) {
    let mut occurrences: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for doc in docs {
        let Some(surfaces) = doc.get("surfaces").and_then(Value::as_object) else {
            continue;
        };
        for (name, def) in surfaces {
            let list = occurrences.entry(name).or_default();
            let description = def.get("description").and_then(Value::as_array);
            list.extend(
                description
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str())
                    .map(String::from),
            );
            let traffic = def.get("traffic").and_then(Value::as_array);
            list.extend(traffic.into_iter().flatten().filter_map(selector_path));
        }
    }
    out.extend(occurrences.values().flatten().cloned());
    fn subjects<'v>(value: &'v Value, found: &mut Vec<(&'v str, &'v str)>) {
        match value {
            Value::Object(members) => {
                let surface = members.get("surface").and_then(Value::as_str);
                let subject = members.get("subject").and_then(Value::as_str);
                if let (Some(surface), Some(subject)) = (surface, subject) {
                    found.push((surface, subject));
                }
                members.values().for_each(|v| subjects(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| subjects(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    docs.iter().for_each(|doc| subjects(doc, &mut found));
    for (surface, subject) in found {
        let (Some(list), Some(suffix)) = (occurrences.get(surface), suffix(subject)) else {
            continue;
        };
        out.extend(
            list.iter()
                .map(|occurrence| format!("{occurrence}{suffix}")),
        );
    }
}

/// Rust source of the table of pre-parsed queries: (query text, encoded syntax tree), sorted
/// by text for a binary search.
fn parsed_queries(texts: &BTreeSet<String>) -> String {
    let mut src = String::from(
        "/// (query text, encoded syntax tree) of the queries of the embedded rule files, by text.\n\
         pub(crate) static QUERIES: &[(&str, &[u8])] = &[\n",
    );
    for text in texts {
        // Most texts collected are no query; one the parser cannot take, even by panicking,
        // is left to the loader, which reports it.
        let parsed = std::panic::catch_unwind(|| jsonpath_rust::parser::parse_json_path(text));
        let Ok(Ok(query)) = parsed else {
            continue;
        };
        let bytes: String = encoded_query::encode(&query)
            .iter()
            .map(|b| format!("\\x{b:02x}"))
            .collect();
        writeln!(src, "    ({text:?}, b\"{bytes}\"),").ok();
    }
    src.push_str("];\n");
    src
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let rules = manifest.join("rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut files = Vec::new();
    collect(&rules, &rules, &mut files);
    files.sort();
    assert!(
        files.iter().any(|(rel, _)| rel == "catalogue.yaml"),
        "the default catalogue is missing: {} holds no catalogue.yaml",
        rules.display()
    );
    let mut src = String::new();
    let canonical = rules.canonicalize().unwrap_or(rules.clone());
    writeln!(
        src,
        "/// Where the embedded rules came from (for locating example fixtures)."
    )
    .ok();
    writeln!(
        src,
        "pub const RULES_DIR: &str = {:?};",
        canonical.display().to_string()
    )
    .ok();
    writeln!(
        src,
        "/// (relative path, contents, document snapshot) of every embedded rule-directory file."
    )
    .ok();
    writeln!(
        src,
        "pub(crate) static FILES: &[(&str, &str, Option<&[u8]>)] = &["
    )
    .ok();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let snapshots = out.join("rule-snapshots");
    std::fs::create_dir_all(&snapshots).expect("create the snapshot directory");
    let mut documents = Vec::new();
    for (i, (rel, path)) in files.iter().enumerate() {
        println!("cargo:rerun-if-changed={}", path.display());
        let document = document(rel, path);
        let snapshot = document.as_ref().map(|doc| {
            let file = snapshots.join(format!("{i}.bin"));
            std::fs::write(&file, doc.to_snapshot()).expect("write a rule snapshot");
            format!("Some(include_bytes!({:?}))", file.display().to_string())
        });
        writeln!(
            src,
            "    ({rel:?}, include_str!({:?}), {}),",
            path.display().to_string(),
            snapshot.as_deref().unwrap_or("None")
        )
        .ok();
        documents.extend(document);
    }
    writeln!(src, "];").ok();
    std::fs::write(out.join("embedded_rules.rs"), src).expect("write embedded rules");
    let values: Vec<&Value> = documents.iter().map(|doc| doc.value()).collect();
    let mut texts = BTreeSet::new();
    values.iter().for_each(|value| queries(value, &mut texts));
    composed_queries(&values, &mut texts);
    std::fs::write(out.join("embedded_queries.rs"), parsed_queries(&texts))
        .expect("write embedded queries");
}
