//! The compact document and the value document agree on every document we hold: the same
//! value, the same position for every node and key, the same node under every position, the
//! same load errors.

use std::path::{Path, PathBuf};

use mcpdesc_document::{pointer, Document, Format, Limits, ValueDocument};
use serde_json::Value;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if [".json", ".yaml", ".yml", ".ndjson", ".jsonl"]
            .iter()
            .any(|x| path.to_string_lossy().ends_with(x))
        {
            out.push(path);
        }
    }
}

fn pointers(value: &Value, at: &mut String, out: &mut Vec<String>) {
    out.push(at.clone());
    let len = at.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                pointer::push_token(at, k);
                pointers(v, at, out);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointer::push_index(at, i);
                pointers(v, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Compares both documents of `text`; returns the number of nodes compared.
fn compare(name: &str, text: &str, format: Format) -> usize {
    let limits = Limits::default();
    let (tree, old) = (
        Document::parse_str(text, format, &limits),
        ValueDocument::parse_str(text, format, &limits),
    );
    let (tree, old) = match (tree, old) {
        (Ok(t), Ok(o)) => (t, o),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{name}: load errors differ");
            return 0;
        }
        (a, b) => panic!(
            "{name}: one loads, the other not: {:?} / {:?}",
            a.err(),
            b.err()
        ),
    };
    assert_eq!(tree.to_value(), *old.value(), "{name}: values differ");
    let mut all = Vec::new();
    pointers(old.value(), &mut String::new(), &mut all);
    // A capture's tree also holds the records its messages were taken out of.
    assert_eq!(reachable(tree.root()), all.len(), "{name}: node counts");
    if tree.format() != Format::Capture {
        assert_eq!(tree.len(), all.len(), "{name}: node counts");
    }
    // Every node of small documents; a sample of large ones (the old lookups are linear).
    let step = (all.len() / 150).max(1);
    for p in all.iter().step_by(step) {
        assert_eq!(
            tree.position(p),
            old.position(p),
            "{name}: position of {p:?}"
        );
        assert_eq!(
            tree.key_position(p),
            old.key_position(p),
            "{name}: key position of {p:?}"
        );
        assert_eq!(
            tree.node_positions(p),
            old.node_positions(p),
            "{name}: {p:?}"
        );
        let (value_pos, _) = old.node_positions(p).unwrap_or_default();
        for probe in [
            value_pos,
            mcpdesc_document::Position::new(value_pos.line, value_pos.column + 1),
        ] {
            assert_eq!(
                tree.pointer_at(probe),
                old.pointer_at(probe),
                "{name}: node at {probe:?}"
            );
        }
        let missing = format!("{p}/no-such-member");
        assert_eq!(
            tree.key_position(&missing),
            old.key_position(&missing),
            "{name}: {missing:?}"
        );
    }
    all.len()
}

#[test]
fn every_held_document_reads_the_same_both_ways() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    files(&root.join("spec-fixtures"), &mut paths);
    files(&root.join("rules"), &mut paths);
    files(
        &root.join("../shared/conformance/mcpdesc-0.8.0"),
        &mut paths,
    );
    paths.sort();
    assert!(paths.len() > 200, "only {} documents", paths.len());
    let mut nodes = 0;
    for path in &paths {
        // A fixture that is not UTF-8 on purpose has no tree to compare.
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.to_string_lossy();
        nodes += compare(&name, &text, Format::from_path(&name));
    }
    println!("{} documents, {nodes} nodes compared", paths.len());
}

#[test]
fn tricky_texts_read_the_same_both_ways() {
    let jsons = [
        "{\"a\":\r\n [1, \"\\u00e9t\\u00e9\", {\"b\": null}],\r\n\t\"\u{e9}\": true}",
        "[\n\n  \"\u{2211}\u{2211}\", 1.5e3, -0, {\"k\\n\": {}}\n]",
        "{\"dup\": 1, \"dup\": 2}",
        "{\"a\": [1, 2,]}",
        "\"x",
        "",
    ];
    for (i, t) in jsons.iter().enumerate() {
        compare(&format!("json {i}"), t, Format::Json);
    }
    let big: String = format!(
        "{{{}}}",
        (0..100)
            .map(|i| format!("\"k{i}\": {i}"))
            .collect::<Vec<_>>()
            .join(",\n")
    );
    compare("large object", &big, Format::Json);
    let doc = Document::parse_str(&big, Format::Json, &Limits::default()).expect("valid");
    for i in 0..100 {
        assert_eq!(
            doc.root().get(&format!("k{i}")).and_then(|v| v.as_u64()),
            Some(i)
        );
    }
    assert!(doc.root().get("k100").is_none());
}

fn reachable(v: mcpdesc_document::ValueRef<'_>) -> usize {
    use mcpdesc_document::Kind;
    1 + match v.kind() {
        Kind::Array(a) => a.iter().map(reachable).sum(),
        Kind::Object(o) => o.values().map(reachable).sum(),
        _ => 0,
    }
}
