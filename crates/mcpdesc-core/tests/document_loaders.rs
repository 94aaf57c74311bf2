//! Tests of the JSON and YAML document loaders: the serialization fixtures of the conformance
//! corpus, positions, the restricted YAML profile, limits, hostile input and property tests.
//!
//! The corpus is read from `$MCPDESC_CONFORMANCE_DIR` if set, else from
//! `<CARGO_MANIFEST_DIR>/../../../shared/conformance/mcpdesc-0.8.0`; when it is absent the
//! corpus tests print that they were skipped and pass.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcpdesc_core::document::{
    pointer, Document, Format, Kind, Limits, LoadError, LoadErrorKind, Position, ValueRef,
};
use proptest::prelude::*;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Helpers

fn load(text: &str, format: Format) -> Result<Document<'_>, LoadError> {
    Document::parse_str(text, format, &Limits::default())
}

fn json(text: &str) -> Result<Document<'_>, LoadError> {
    load(text, Format::Json)
}

fn yaml(text: &str) -> Result<Document<'_>, LoadError> {
    load(text, Format::Yaml)
}

#[track_caller]
fn json_ok(text: &str) -> Document<'_> {
    json(text).unwrap_or_else(|e| panic!("JSON {text:?} failed to load: {e}"))
}

#[track_caller]
fn yaml_ok(text: &str) -> Document<'_> {
    yaml(text).unwrap_or_else(|e| panic!("YAML {text:?} failed to load: {e}"))
}

#[track_caller]
fn json_err(text: &str) -> LoadError {
    match json(text) {
        Ok(doc) => panic!("JSON {text:?} loaded as {:?}", doc.root()),
        Err(e) => e,
    }
}

#[track_caller]
fn yaml_err(text: &str) -> LoadError {
    match yaml(text) {
        Ok(doc) => panic!("YAML {text:?} loaded as {:?}", doc.root()),
        Err(e) => e,
    }
}

fn pos(line: u32, column: u32) -> Position {
    Position::new(line, column)
}

fn key_pos(doc: &Document<'_>, ptr: &str) -> Position {
    doc.key_position(ptr)
}

fn limits(f: impl FnOnce(&mut Limits)) -> Limits {
    let mut l = Limits::default();
    f(&mut l);
    l
}

#[track_caller]
fn assert_limit(result: Result<Document<'_>, LoadError>, name: &str, at: Position) {
    match result {
        Err(LoadError {
            kind: LoadErrorKind::Limit { limit, .. },
            position,
        }) if limit == name => assert_eq!(position, at, "position of the {name} error"),
        other => panic!("expected a {name} error, got {other:?}"),
    }
}

#[track_caller]
fn assert_syntax(err: &LoadError, contains: &str, at: Position) {
    let message = match &err.kind {
        LoadErrorKind::JsonSyntax(m) | LoadErrorKind::YamlSyntax(m) => m,
        other => panic!("expected a syntax error, got {other:?}"),
    };
    assert!(
        message.contains(contains),
        "message {message:?} does not contain {contains:?}"
    );
    assert_eq!(err.position, at, "position of {message:?}");
}

// ---------------------------------------------------------------------------------------------
// Conformance corpus: serialization fixtures

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MCPDESC_CONFORMANCE_DIR") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/conformance/mcpdesc-0.8.0"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: conformance corpus not found at {} (set MCPDESC_CONFORMANCE_DIR)",
            dir.display()
        );
        None
    }
}

fn fixtures(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).expect("readable fixture");
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

fn expected_invalid_kind(name: &str) -> Option<fn(&LoadErrorKind) -> bool> {
    Some(match name {
        "alias.yaml" | "merge-alias.yaml" => |k| matches!(k, LoadErrorKind::Alias),
        "custom-tag.yaml" => |k| matches!(k, LoadErrorKind::Tag(t) if t == "!example"),
        "duplicate-key.yaml" => |k| matches!(k, LoadErrorKind::DuplicateKey(key) if key == "a"),
        "empty-stream.yaml" => |k| matches!(k, LoadErrorKind::EmptyStream),
        "multiple-documents.yaml" => |k| matches!(k, LoadErrorKind::MultipleDocuments),
        "non-string-key.yaml" => |k| matches!(k, LoadErrorKind::NonStringKey),
        n if n.contains("infinity")
            || n.starts_with("non-finite")
            || n.starts_with("tagged-non-finite") =>
        {
            |k| matches!(k, LoadErrorKind::NonFiniteNumber(_))
        }
        _ => return None,
    })
}

#[test]
fn corpus_expected_invalid_yaml_is_refused_with_the_right_kind() {
    let Some(dir) = corpus_dir() else { return };
    let files = fixtures(&dir.join("serialization-fixtures/expected-invalid"));
    assert!(!files.is_empty(), "no expected-invalid fixtures");
    for (name, bytes) in files {
        let Some(check) = expected_invalid_kind(&name) else {
            panic!("expected-invalid/{name}: no expected error kind is known for this fixture");
        };
        match Document::parse(&bytes, Format::Yaml, &Limits::default()) {
            Ok(doc) => panic!("expected-invalid/{name} loaded as {:?}", doc.root()),
            Err(e) => {
                assert!(check(&e.kind), "expected-invalid/{name}: wrong error {e:?}");
                assert!(e.position.line >= 1, "expected-invalid/{name}: no position");
            }
        }
    }
}

#[test]
fn corpus_expected_invalid_positions() {
    let Some(dir) = corpus_dir() else { return };
    let dir = dir.join("serialization-fixtures/expected-invalid");
    let cases = [
        ("alias.yaml", pos(1, 4)),
        ("custom-tag.yaml", pos(1, 4)),
        ("duplicate-key.yaml", pos(2, 1)),
        ("multiple-documents.yaml", pos(3, 1)),
        ("non-string-key.yaml", pos(1, 1)),
        ("tagged-non-finite-number.yaml", pos(1, 8)),
    ];
    for (name, at) in cases {
        let bytes = std::fs::read(dir.join(name)).expect("fixture");
        let err = Document::parse(&bytes, Format::Yaml, &Limits::default()).unwrap_err();
        assert_eq!(err.position, at, "{name}: {err}");
    }
}

#[test]
fn corpus_expected_valid_yaml_loads() {
    let Some(dir) = corpus_dir() else { return };
    let files = fixtures(&dir.join("serialization-fixtures/expected-valid"));
    assert!(!files.is_empty(), "no expected-valid fixtures");
    for (name, bytes) in &files {
        if let Err(e) = Document::parse(bytes, Format::Yaml, &Limits::default()) {
            panic!("expected-valid/{name} was refused: {e}");
        }
    }
    let (_, bytes) = files
        .iter()
        .find(|(n, _)| n == "scalars-and-ordinary-merge-key.yaml")
        .expect("scalars-and-ordinary-merge-key.yaml");
    let doc = Document::parse(bytes, Format::Yaml, &Limits::default()).unwrap();
    assert_eq!(
        doc.root(),
        json!({
            "value": { "<<": { "a": 1 } },
            "scalars": [true, false, null, 0, -12, 1.5, 6.02e23, "2026-08-25", ".nan"],
        })
    );
    assert!(
        doc.root()
            .pointer("/value/<<")
            .is_some_and(|v| v.is_object()),
        "`<<` is an ordinary key"
    );
    assert_eq!(doc.position("/value/<</a"), pos(3, 8));
    assert_eq!(key_pos(&doc, "/value/<<"), pos(2, 3));
    assert_eq!(doc.position("/scalars/8"), pos(13, 5));
}

#[test]
fn corpus_equivalent_documents_decode_to_equal_values() {
    let Some(dir) = corpus_dir() else { return };
    let dir = dir.join("serialization-fixtures/equivalent");
    let json_bytes = std::fs::read(dir.join("document.json")).expect("document.json");
    let yaml_bytes = std::fs::read(dir.join("document.yaml")).expect("document.yaml");
    let from_json = Document::parse(&json_bytes, Format::Json, &Limits::default()).unwrap();
    let from_yaml = Document::parse(&yaml_bytes, Format::Yaml, &Limits::default()).unwrap();
    assert_eq!(from_json.root(), from_yaml.root());
    // Same data model, number kinds included: `12` is an integer and `6.02e23` a float in both.
    assert_eq!(from_json.root().to_string(), from_yaml.root().to_string());
    let reference: Value = serde_json::from_slice(&json_bytes).unwrap();
    assert_eq!(from_json.to_value(), reference);
}

// ---------------------------------------------------------------------------------------------
// Positions

#[test]
fn json_positions_of_nested_keys_and_values() {
    let text = "{\n  \"a\": {\n    \"b\": [10, \"x\"]\n  },\n  \"é\": true\n}\n";
    let doc = json_ok(text);
    assert_eq!(doc.position(""), pos(1, 1));
    assert_eq!(doc.position("/a"), pos(2, 8));
    assert_eq!(key_pos(&doc, "/a"), pos(2, 3));
    assert_eq!(doc.position("/a/b"), pos(3, 10));
    assert_eq!(key_pos(&doc, "/a/b"), pos(3, 5));
    assert_eq!(doc.position("/a/b/0"), pos(3, 11));
    assert_eq!(doc.position("/a/b/1"), pos(3, 15));
    // An element has no key: its key position is its value position.
    assert_eq!(key_pos(&doc, "/a/b/1"), pos(3, 15));
    assert_eq!(key_pos(&doc, "/é"), pos(5, 3));
    assert_eq!(doc.position("/é"), pos(5, 8));
    // Unresolved pointers fall back to the deepest node that resolves.
    assert_eq!(doc.position("/a/missing"), pos(2, 8));
    assert_eq!(doc.position("/a/b/7"), pos(3, 10));
}

#[test]
fn json_columns_count_characters_not_bytes() {
    let doc = json_ok(r#"{"é": "ü😀", "k": [1, {"ß": null}]}"#);
    assert_eq!(key_pos(&doc, "/k"), pos(1, 13));
    assert_eq!(doc.position("/k"), pos(1, 18));
    assert_eq!(doc.position("/k/1"), pos(1, 22));
    assert_eq!(key_pos(&doc, "/k/1/ß"), pos(1, 23));
    assert_eq!(doc.position("/k/1/ß"), pos(1, 28));
    // Escaped keys and pointer escapes.
    let doc = json_ok("{\"a/b\": {\"c~d\": 1, \"\\u00e9\": 2}}");
    assert_eq!(
        doc.position(&pointer::push(&pointer::push("", "a/b"), "c~d")),
        pos(1, 17)
    );
    assert_eq!(doc.position("/a~1b/é"), pos(1, 30));
}

#[test]
fn json_positions_with_crlf_and_tabs() {
    let doc = json_ok("{\r\n\t\"a\":\r\n\t\t[1,\r\n\t\t 2]\r\n}");
    assert_eq!(key_pos(&doc, "/a"), pos(2, 2));
    assert_eq!(doc.position("/a"), pos(3, 3));
    assert_eq!(doc.position("/a/1"), pos(4, 4));
}

#[test]
fn yaml_positions_of_nested_keys_and_values() {
    let text = "a:\n  b:\n    - 10\n    - x\n  c: {d: [1, 2]}\né: ü\nk: 1\n";
    let doc = yaml_ok(text);
    assert_eq!(
        doc.root(),
        json!({"a": {"b": [10, "x"], "c": {"d": [1, 2]}}, "é": "ü", "k": 1})
    );
    assert_eq!(doc.position(""), pos(1, 1));
    assert_eq!(key_pos(&doc, "/a"), pos(1, 1));
    assert_eq!(doc.position("/a"), pos(2, 3));
    assert_eq!(key_pos(&doc, "/a/b"), pos(2, 3));
    assert_eq!(doc.position("/a/b"), pos(3, 5));
    assert_eq!(doc.position("/a/b/0"), pos(3, 7));
    assert_eq!(doc.position("/a/b/1"), pos(4, 7));
    assert_eq!(key_pos(&doc, "/a/c"), pos(5, 3));
    assert_eq!(doc.position("/a/c"), pos(5, 6));
    assert_eq!(key_pos(&doc, "/a/c/d"), pos(5, 7));
    assert_eq!(doc.position("/a/c/d"), pos(5, 10));
    assert_eq!(doc.position("/a/c/d/1"), pos(5, 14));
    assert_eq!(key_pos(&doc, "/é"), pos(6, 1));
    assert_eq!(doc.position("/é"), pos(6, 4));
    assert_eq!(doc.position("/k"), pos(7, 4));
    assert_eq!(doc.position("/a/nope"), pos(2, 3));
}

#[test]
fn yaml_positions_of_indentless_sequences_and_quoted_scalars() {
    let doc = yaml_ok("list:\n- 'one'\n- \"two\"\n- |\n  three\nafter: x\n");
    assert_eq!(doc.position("/list"), pos(2, 1));
    assert_eq!(doc.position("/list/0"), pos(2, 3));
    assert_eq!(doc.position("/list/1"), pos(3, 3));
    assert_eq!(doc.position("/list/2"), pos(4, 3));
    assert_eq!(key_pos(&doc, "/after"), pos(6, 1));
    assert_eq!(doc.root().pointer("/list/2").unwrap(), json!("three\n"));

    let text =
        "k:\n-   x\n-\n  - y\na: >+ # c # d\n\n\n   x\nb: |\nc: |-\r\n  z\r\nd:   |2 # #\n   w\n";
    let doc = yaml_ok(text);
    assert_eq!(doc.position("/k"), pos(2, 1));
    assert_eq!(doc.position("/k/0"), pos(2, 5));
    assert_eq!(doc.position("/k/1"), pos(4, 3));
    assert_eq!(doc.position("/k/1/0"), pos(4, 5));
    assert_eq!(doc.position("/a"), pos(5, 4));
    assert_eq!(doc.position("/b"), pos(9, 4));
    assert_eq!(doc.position("/c"), pos(10, 4));
    assert_eq!(doc.position("/d"), pos(12, 6));
    assert_eq!(
        doc.root(),
        json!({"k": ["x", ["y"]], "a": "\n\nx\n", "b": "", "c": "z", "d": " w\n"})
    );
    let doc =
        yaml_ok("k:\n-   - a\n- - b\n-\n  - c\nm:\n  - d\nn:\n - - e\n - f: [g]\n   h:\n   - i\n");
    assert_eq!(doc.position("/k"), pos(2, 1));
    assert_eq!(doc.position("/k/0"), pos(2, 5));
    assert_eq!(doc.position("/k/1"), pos(3, 3));
    assert_eq!(doc.position("/k/2"), pos(5, 3));
    assert_eq!(doc.position("/m"), pos(7, 3));
    assert_eq!(doc.position("/n"), pos(9, 2));
    assert_eq!(doc.position("/n/0"), pos(9, 4));
    assert_eq!(doc.position("/n/1/f"), pos(10, 7));
    assert_eq!(doc.position("/n/1/h"), pos(12, 4));
    assert_eq!(doc.position("/n/1/h/0"), pos(12, 6));
    assert_eq!(
        doc.root(),
        json!({"k": [["a"], ["b"], ["c"]], "m": ["d"], "n": [["e"], {"f": ["g"], "h": ["i"]}]})
    );
    // An indentless sequence whose first entry is a flow collection.
    let doc = yaml_ok("\"\":\n- []\n- {a: [1]}\n");
    assert_eq!(doc.position("/"), pos(2, 1));
    assert_eq!(
        doc.root().pointer("/").map(|v| v.to_value()),
        Some(json!([[], {"a": [1]}]))
    );
    assert_eq!(doc.position("//0"), pos(2, 3));
    assert_eq!(doc.position("//1/a/0"), pos(3, 8));
}

// ---------------------------------------------------------------------------------------------
// JSON: RFC 8259 strictness

#[test]
fn json_values_and_number_kinds() {
    let doc = json_ok(
        r#" {"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "i": -12, "u": 18446744073709551615,
            "big": 18446744073709551616, "f": 1.5e3, "z": -0, "t": true, "n": null, "e": [], "o": {}} "#,
    );
    let v = |key: &str| doc.root().get(key).unwrap();
    assert_eq!(v("s"), json!("a\"\\/\u{8}\u{c}\n\r\té😀"));
    assert!(v("i").is_i64());
    assert_eq!(v("u").as_u64(), Some(u64::MAX));
    assert!(v("big").is_f64());
    assert_eq!(v("f").as_f64(), Some(1500.0));
    assert_eq!(v("t"), json!(true));
    assert_eq!(v("n"), Value::Null);
    assert_eq!(v("e"), json!([]));
    assert_eq!(v("o"), json!({}));
    // Same decoding as serde_json.
    let text = doc.root().to_string();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json_ok(&text).root()
    );
}

#[test]
fn json_object_keeps_source_order() {
    let doc = json_ok(r#"{"z": 1, "a": 2, "m": {"y": 1, "b": 2}}"#);
    let keys: Vec<_> = doc.root().as_object().unwrap().keys().collect();
    assert_eq!(keys, ["z", "a", "m"]);
    assert_eq!(doc.position("/a"), pos(1, 15));
    assert_eq!(doc.position("/m/b"), pos(1, 37));
}

#[test]
fn json_syntax_errors_have_messages_and_positions() {
    let cases: &[(&str, &str, Position)] = &[
        ("", "unexpected end of input", pos(1, 1)),
        ("   \n  ", "unexpected end of input", pos(2, 3)),
        ("[1,]", "trailing comma", pos(1, 4)),
        ("{\"a\":1,}", "trailing comma", pos(1, 8)),
        ("{\"a\" 1}", "expected `:` after object key", pos(1, 6)),
        (
            "[1 2]",
            "expected `,` or `]` after array element",
            pos(1, 4),
        ),
        (
            "{\"a\":1 \"b\":2}",
            "expected `,` or `}` after object member",
            pos(1, 8),
        ),
        ("{\"a\":1", "unexpected end of input", pos(1, 7)),
        ("[1,\n  2", "unexpected end of input", pos(2, 4)),
        ("// comment\n1", "expected a JSON value", pos(1, 1)),
        (
            "[1] // comment",
            "unexpected characters after the JSON value",
            pos(1, 5),
        ),
        (
            "[1]x",
            "unexpected characters after the JSON value",
            pos(1, 4),
        ),
        (
            "1 2",
            "unexpected characters after the JSON value",
            pos(1, 3),
        ),
        (
            "{'a': 1}",
            "expected `\"` to start an object key",
            pos(1, 2),
        ),
        ("{a: 1}", "expected `\"` to start an object key", pos(1, 2)),
        ("01", "leading zeros", pos(1, 1)),
        ("-", "unexpected end of input", pos(1, 2)),
        ("-a", "expected a digit", pos(1, 2)),
        ("1.", "expected a digit after the decimal point", pos(1, 3)),
        (
            "1.e5",
            "expected a digit after the decimal point",
            pos(1, 3),
        ),
        ("1e", "expected a digit in the exponent", pos(1, 3)),
        ("+1", "expected a JSON value", pos(1, 1)),
        (".5", "expected a JSON value", pos(1, 1)),
        ("tru", "expected `true`", pos(1, 1)),
        ("nul", "expected `null`", pos(1, 1)),
        ("\"abc", "unexpected end of input", pos(1, 5)),
        ("\"a\u{1}b\"", "control character U+0001", pos(1, 3)),
        ("[\"a\nb\"]", "control character U+000A", pos(1, 4)),
        ("\"a\\qb\"", "invalid escape sequence", pos(1, 3)),
        ("\"\\u12G4\"", "four hexadecimal digits", pos(1, 6)),
        ("\"é\\x\"", "invalid escape sequence", pos(1, 3)),
        ("[1,\n  ]", "trailing comma", pos(2, 3)),
        (
            "\u{feff}{}",
            "expected a JSON value, found U+FEFF",
            pos(1, 1),
        ),
        ("{\"a\":1}\u{0}", "unexpected characters", pos(1, 8)),
    ];
    for (text, message, at) in cases {
        let err = json_err(text);
        assert!(
            matches!(err.kind, LoadErrorKind::JsonSyntax(_)),
            "{text:?}: expected a syntax error, got {err:?}"
        );
        assert_syntax(&err, message, *at);
    }
}

#[test]
fn json_non_finite_numbers_are_refused() {
    let cases: &[(&str, &str, Position)] = &[
        ("NaN", "NaN", pos(1, 1)),
        ("[1, Infinity]", "Infinity", pos(1, 5)),
        ("{\"a\": -Infinity}", "-Infinity", pos(1, 7)),
        ("1e400", "1e400", pos(1, 1)),
        ("[-1.5e309]", "-1.5e309", pos(1, 2)),
        (&"9".repeat(400), &"9".repeat(400), pos(1, 1)),
    ];
    for (text, literal, at) in cases {
        let err = json_err(text);
        assert_eq!(
            err.kind,
            LoadErrorKind::NonFiniteNumber((*literal).to_owned()),
            "{text}"
        );
        assert_eq!(err.position, *at, "{text}");
    }
    // Underflow is fine: it is a (zero) finite number.
    assert_eq!(json_ok("1e-400").root().as_f64(), Some(0.0));
}

#[test]
fn json_lone_surrogates_are_refused() {
    for (text, at) in [
        (r#""\uD800""#, pos(1, 2)),
        (r#""ab\udbff""#, pos(1, 4)),
        (r#""\uDC00""#, pos(1, 2)),
        (r#""\uD800\u0041""#, pos(1, 2)),
        (r#""\uD800\uD800""#, pos(1, 2)),
        (r#"{"k\uDFFF": 1}"#, pos(1, 4)),
        (r#""\uD800x""#, pos(1, 2)),
    ] {
        let err = json_err(text);
        assert_eq!(err.kind, LoadErrorKind::LoneSurrogate, "{text}");
        assert_eq!(err.position, at, "{text}");
    }
    assert_eq!(json_ok(r#""\uD83D\uDE00""#).root(), json!("😀"));
    assert_eq!(json_ok(r#""\uFFFF\u0000""#).root(), json!("\u{ffff}\u{0}"));
}

#[test]
fn json_duplicate_keys_are_refused_at_the_second_key() {
    let err = json_err("{\"a\": 1,\n \"b\": {\"x\": 1, \"x\": 2}}");
    assert_eq!(err.kind, LoadErrorKind::DuplicateKey("x".into()));
    assert_eq!(err.position, pos(2, 16));
    // Keys are compared after unescaping.
    let err = json_err(r#"{"a": 1, "\u0061": 2}"#);
    assert_eq!(err.kind, LoadErrorKind::DuplicateKey("a".into()));
    assert_eq!(err.position, pos(1, 10));
    // The same key in different objects is fine.
    json_ok(r#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#);
}

// ---------------------------------------------------------------------------------------------
// YAML: the restricted profile

#[test]
fn yaml_document_count() {
    assert_eq!(yaml_err("").kind, LoadErrorKind::EmptyStream);
    assert_eq!(
        yaml_err("# only a comment\n\n").kind,
        LoadErrorKind::EmptyStream
    );
    assert_eq!(yaml_err("...\n").kind, LoadErrorKind::EmptyStream);
    let err = yaml_err("a: 1\n---\nb: 2\n");
    assert_eq!(err.kind, LoadErrorKind::MultipleDocuments);
    assert_eq!(err.position, pos(2, 1));
    assert_eq!(
        yaml_err("a: 1\n--- \n").kind,
        LoadErrorKind::MultipleDocuments
    );
    assert_eq!(
        yaml_ok("---\na: 1\n...\n# trailing\n").root(),
        json!({"a": 1})
    );
    assert_eq!(yaml_ok("---\n").root(), Value::Null);
    assert_eq!(yaml_ok("%YAML 1.2\n--- x\n").root(), json!("x"));
}

#[test]
fn yaml_anchors_and_aliases_are_refused() {
    for (text, at) in [
        ("a: &x 1", pos(1, 4)),
        ("a: &x [1]", pos(1, 4)),
        ("a: &x\n  b: 1", pos(1, 4)),
        ("&k a: 1", pos(1, 1)),
        ("- &x !!str a", pos(1, 3)),
        ("a: !!str &x a", pos(1, 4)),
        ("a: *x", pos(1, 4)),
        ("&root {a: 1}", pos(1, 1)),
    ] {
        let err = match yaml(text) {
            Ok(doc) => panic!("{text:?} loaded as {:?}", doc.root()),
            Err(e) => e,
        };
        // `*x` without an anchor is a syntax error in the parser; everything else is `Alias`.
        if text.contains('*') {
            assert!(matches!(
                err.kind,
                LoadErrorKind::YamlSyntax(_) | LoadErrorKind::Alias
            ));
        } else {
            assert_eq!(err.kind, LoadErrorKind::Alias, "{text:?}");
            assert_eq!(err.position, at, "{text:?}");
        }
    }
}

#[test]
fn yaml_core_tags_are_applied() {
    let doc = yaml_ok(
        "s: !!str 12\ni: !!int \"12\"\nf: !!float 1\ng: !!float 2.5e1\nb: !!bool 'true'\n\
         n: !!null ''\ne: !!str\nq: !!seq [1]\nm: !!map {k: v}\nv: !<tag:yaml.org,2002:str> 5\n\
         h: !!int 0x10\n",
    );
    assert_eq!(
        doc.root(),
        json!({"s": "12", "i": 12, "f": 1.0, "g": 25.0, "b": true, "n": null, "e": "",
               "q": [1], "m": {"k": "v"}, "v": "5", "h": 16})
    );
    assert!(doc.root().get("f").unwrap().is_f64());
    // A tagged key that resolves to a string is a string key.
    assert_eq!(
        yaml_ok("!!str 1: x\n!!str true: y").root(),
        json!({"1": "x", "true": "y"})
    );
}

#[test]
fn yaml_other_tags_are_refused() {
    for (text, written, at) in [
        ("a: !example value", "!example", pos(1, 4)),
        (
            "a: !!python/object:os.system x",
            "!!python/object:os.system",
            pos(1, 4),
        ),
        ("a: !!binary aGVsbG8=", "!!binary", pos(1, 4)),
        ("a: !!set {x}", "!!set", pos(1, 4)),
        ("a: !!timestamp 2001-12-14", "!!timestamp", pos(1, 4)),
        ("a: ! x", "!", pos(1, 4)),
        (
            "a: !<tag:example.com,2000:x> x",
            "!<tag:example.com,2000:x>",
            pos(1, 4),
        ),
        ("- [!local x]", "!local", pos(1, 4)),
        ("!thing\nk: v", "!thing", pos(1, 1)),
        ("é: !tag x", "!tag", pos(1, 4)),
        ("!k a: 1", "!k", pos(1, 1)),
        (
            "%TAG !! tag:example.com,2000:\n---\na: !!str x",
            "!!str",
            pos(3, 4),
        ),
        (
            "%TAG !e! tag:example.com,2000:\n---\na: !e!foo x",
            "!e!foo",
            pos(3, 4),
        ),
    ] {
        let err = yaml_err(text);
        assert_eq!(err.kind, LoadErrorKind::Tag(written.to_owned()), "{text:?}");
        assert_eq!(err.position, at, "{text:?}");
    }
    // A `%TAG` directive that maps a handle to the core-schema prefix names core tags.
    assert_eq!(
        yaml_ok("%TAG !c! tag:yaml.org,2002:\n---\na: !c!str 1").root(),
        json!({"a": "1"})
    );
    // Core tags that do not fit the node.
    for text in [
        "a: !!int x",
        "a: !!float abc",
        "a: !!bool yes",
        "a: !!null 0",
        "a: !!str [1]",
        "a: !!seq x",
        "a: !!map [1]",
    ] {
        let err = yaml_err(text);
        assert!(
            matches!(err.kind, LoadErrorKind::YamlSyntax(_)),
            "{text:?}: {err:?}"
        );
        assert_eq!(err.position, pos(1, 4), "{text:?}");
    }
}

#[test]
fn yaml_core_schema_scalar_resolution() {
    let doc = yaml_ok(
        "- null\n- Null\n- NULL\n- ~\n-\n- true\n- True\n- FALSE\n- 12\n- -3\n- +7\n- 0o17\n\
         - 0x1f\n- 1.5\n- -.5\n- 1e3\n- 6.02E+23\n- 0.8.0\n- 1.0.0\n- 2026-08-25\n- yes\n- off\n\
         - '12'\n- \"true\"\n- |\n  null\n- 0x\n- 0o8\n- 1_000\n- 99999999999999999999\n- -0\n",
    );
    assert_eq!(
        doc.root(),
        json!([
            null,
            null,
            null,
            null,
            null,
            true,
            true,
            false,
            12,
            -3,
            7,
            15,
            31,
            1.5,
            -0.5,
            1000.0,
            6.02e23,
            "0.8.0",
            "1.0.0",
            "2026-08-25",
            "yes",
            "off",
            "12",
            "true",
            "null\n",
            "0x",
            "0o8",
            "1_000",
            1e20,
            -0.0
        ])
    );
    assert!(doc.root().get_index(15).unwrap().is_f64(), "1e3 is a float");
    assert!(
        doc.root().get_index(29).unwrap().is_f64(),
        "an integer beyond u64 is a float"
    );
    // Same number kinds as JSON.
    assert_eq!(
        yaml_ok("[12, -1.5, 6.02e23, -0]").root().to_string(),
        json_ok("[12, -1.5, 6.02e23, -0]").root().to_string()
    );
}

#[test]
fn yaml_non_finite_numbers_are_refused() {
    for (text, literal, at) in [
        ("a: .inf", ".inf", pos(1, 4)),
        ("a: -.Inf", "-.Inf", pos(1, 4)),
        ("a: +.INF", "+.INF", pos(1, 4)),
        ("- .nan", ".nan", pos(1, 3)),
        ("- .NaN", ".NaN", pos(1, 3)),
        ("[.NAN]", ".NAN", pos(1, 2)),
        ("a: !!float .nan", ".nan", pos(1, 4)),
        ("a: !!float '.inf'", ".inf", pos(1, 4)),
        ("a: 1e400", "1e400", pos(1, 4)),
        ("a: !!float 1e400", "1e400", pos(1, 4)),
        (".nan: x", ".nan", pos(1, 1)),
    ] {
        let err = yaml_err(text);
        assert_eq!(
            err.kind,
            LoadErrorKind::NonFiniteNumber(literal.to_owned()),
            "{text:?}"
        );
        assert_eq!(err.position, at, "{text:?}");
    }
    // Quoted, they are strings; `-.nan` is not a core-schema float.
    assert_eq!(
        yaml_ok("a: '.nan'\nb: \".inf\"\nc: -.nan").root(),
        json!({"a": ".nan", "b": ".inf", "c": "-.nan"})
    );
}

#[test]
fn yaml_keys_must_be_strings() {
    for (text, at) in [
        ("1: value", pos(1, 1)),
        ("a: 1\ntrue: x", pos(2, 1)),
        ("null: x", pos(1, 1)),
        ("~: x", pos(1, 1)),
        (": x", pos(1, 1)),
        ("1.5: x", pos(1, 1)),
        ("0x10: x", pos(1, 1)),
        ("!!int 1: x", pos(1, 1)),
        ("{1: x}", pos(1, 2)),
        ("[a: 1, 2: b]", pos(1, 8)),
        ("? [a, b]\n: x", pos(1, 3)),
        ("? {a: 1}\n: x", pos(1, 3)),
        ("[a]: x", pos(1, 1)),
    ] {
        let err = yaml_err(text);
        assert_eq!(err.kind, LoadErrorKind::NonStringKey, "{text:?}: {err}");
        assert_eq!(err.position, at, "{text:?}");
    }
    assert_eq!(
        yaml_ok("\"1\": a\n'true': b\nnull1: c\n<<: d\n? e\n: f\n").root(),
        json!({"1": "a", "true": "b", "null1": "c", "<<": "d", "e": "f"})
    );
}

#[test]
fn yaml_duplicate_keys_are_refused_after_resolution() {
    for (text, key, at) in [
        ("a: 1\n\"a\": 2", "a", pos(2, 1)),
        ("a: 1\nb:\n  x: 1\n  'x': 2", "x", pos(4, 3)),
        ("{a: 1, a: 2}", "a", pos(1, 8)),
        ("\"1\": a\n!!str 1: b", "1", pos(2, 1)),
        ("<<: 1\n<<: 2", "<<", pos(2, 1)),
    ] {
        let err = yaml_err(text);
        assert_eq!(
            err.kind,
            LoadErrorKind::DuplicateKey(key.to_owned()),
            "{text:?}"
        );
        assert_eq!(err.position, at, "{text:?}");
    }
    yaml_ok("a: {x: 1}\nb: {x: 1}\nc: [{x: 1}, {x: 2}]");
}

#[test]
fn yaml_syntax_errors_have_positions() {
    // The parser's messages and positions, with its 0-based columns made 1-based.
    for (text, message, at) in [
        ("a: b: c", "mapping values are not allowed", pos(1, 5)),
        ("a:\n  - 1\n - 2", "did not find expected key", pos(3, 2)),
        ("a:\n  b: 1\n c: 2", "did not find expected key", pos(3, 2)),
        (
            "- a\nb: c",
            "did not find expected '-' indicator",
            pos(2, 1),
        ),
        ("a: 'x\n", "unexpected end of stream", pos(1, 4)),
        ("[1, 2]]", "misplaced bracket", pos(1, 7)),
        ("é: [x\n", "expected ',' or ']'", pos(2, 1)),
    ] {
        let err = yaml_err(text);
        assert_syntax(&err, message, at);
    }
}

// ---------------------------------------------------------------------------------------------
// BOM and UTF-8

#[test]
fn bom_is_skipped_by_document_parse() {
    let doc = Document::parse(
        b"\xEF\xBB\xBF{\"a\": [1]}",
        Format::Json,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(doc.root(), json!({"a": [1]}));
    assert_eq!(key_pos(&doc, "/a"), pos(1, 2));
    assert_eq!(doc.position("/a/0"), pos(1, 8));
    let doc = Document::parse(b"\xEF\xBB\xBFa: [1]\n", Format::Yaml, &Limits::default()).unwrap();
    assert_eq!(doc.root(), json!({"a": [1]}));
    assert_eq!(key_pos(&doc, "/a"), pos(1, 1));
    assert_eq!(doc.position("/a/0"), pos(1, 5));
    // Only one, leading BOM is skipped.
    assert!(Document::parse(
        b"\xEF\xBB\xBF\xEF\xBB\xBF{}",
        Format::Json,
        &Limits::default()
    )
    .is_err());
}

#[test]
fn invalid_utf8_is_refused() {
    for format in [Format::Json, Format::Yaml] {
        let err = Document::parse(b"{\"a\":\n \"\xff\"}", format, &Limits::default()).unwrap_err();
        assert_eq!(err.kind, LoadErrorKind::InvalidUtf8);
        assert_eq!(err.position, pos(2, 3));
        let err = Document::parse(b"\xEF\xBB\xBF\"\xc3\"", format, &Limits::default()).unwrap_err();
        assert_eq!(err.kind, LoadErrorKind::InvalidUtf8);
        assert_eq!(err.position, pos(1, 2));
    }
}

// ---------------------------------------------------------------------------------------------
// Limits

#[test]
fn depth_limit() {
    let l = limits(|l| l.max_depth = 2);
    Document::parse_str("[[1]]", Format::Json, &l).unwrap();
    Document::parse_str("{\"a\": {\"b\": 1}}", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[[[1]]]", Format::Json, &l),
        "max-depth",
        pos(1, 3),
    );
    assert_limit(
        Document::parse_str("{\"a\": {\"b\": {}}}", Format::Json, &l),
        "max-depth",
        pos(1, 13),
    );
    Document::parse_str("a:\n  b: 1", Format::Yaml, &l).unwrap();
    assert_limit(
        Document::parse_str("a:\n  b:\n    c: 1", Format::Yaml, &l),
        "max-depth",
        pos(3, 5),
    );
    assert_limit(
        Document::parse_str("[[[1]]]", Format::Yaml, &l),
        "max-depth",
        pos(1, 3),
    );
    assert_limit(
        Document::parse_str("- - - 1", Format::Yaml, &l),
        "max-depth",
        pos(1, 5),
    );
    let l = limits(|l| l.max_depth = 0);
    Document::parse_str("1", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[]", Format::Json, &l),
        "max-depth",
        pos(1, 1),
    );
    assert_limit(
        Document::parse_str("{}", Format::Yaml, &l),
        "max-depth",
        pos(1, 1),
    );
}

#[test]
fn node_limit() {
    let l = limits(|l| l.max_nodes = 3);
    Document::parse_str("[1, 2]", Format::Json, &l).unwrap();
    Document::parse_str("{\"a\": 1, \"b\": 2}", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[1, 2, 3]", Format::Json, &l),
        "max-nodes",
        pos(1, 8),
    );
    assert_limit(
        Document::parse_str("[[[[]]]]", Format::Json, &l),
        "max-nodes",
        pos(1, 4),
    );
    Document::parse_str("a: 1\nb: 2", Format::Yaml, &l).unwrap();
    assert_limit(
        Document::parse_str("- 1\n- 2\n- 3", Format::Yaml, &l),
        "max-nodes",
        pos(3, 3),
    );
}

#[test]
fn scalar_length_limit() {
    let l = limits(|l| l.max_scalar_bytes = 4);
    Document::parse_str("[\"abcd\", \"é€\"]", Format::Json, &l).unwrap_err();
    Document::parse_str("[\"abcd\", \"éé\"]", Format::Json, &l).unwrap();
    Document::parse_str("{\"abcd\": 1}", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[1, \"abcde\"]", Format::Json, &l),
        "max-scalar-bytes",
        pos(1, 5),
    );
    assert_limit(
        Document::parse_str("{\"abcde\": 1}", Format::Json, &l),
        "max-scalar-bytes",
        pos(1, 2),
    );
    // The decoded length counts, escapes included.
    assert_limit(
        Document::parse_str(r#""\u0041\u0042\u0043\u0044\u0045""#, Format::Json, &l),
        "max-scalar-bytes",
        pos(1, 1),
    );
    assert_limit(
        Document::parse_str("\"ab\\ncd\"", Format::Json, &l),
        "max-scalar-bytes",
        pos(1, 1),
    );
    Document::parse_str("\"a\\nb\"", Format::Json, &l).unwrap();
    // Number literals are scalars too.
    assert_limit(
        Document::parse_str("123456", Format::Json, &l),
        "max-scalar-bytes",
        pos(1, 1),
    );
    Document::parse_str("abcd: wxyz", Format::Yaml, &l).unwrap();
    assert_limit(
        Document::parse_str("a: abcde", Format::Yaml, &l),
        "max-scalar-bytes",
        pos(1, 4),
    );
    assert_limit(
        Document::parse_str("abcde: a", Format::Yaml, &l),
        "max-scalar-bytes",
        pos(1, 1),
    );
}

#[test]
fn collection_length_limit() {
    let l = limits(|l| l.max_collection_len = 2);
    Document::parse_str("[1, 2]", Format::Json, &l).unwrap();
    Document::parse_str("{\"a\": [], \"b\": {}}", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[1, 2, 3]", Format::Json, &l),
        "max-collection-len",
        pos(1, 8),
    );
    assert_limit(
        Document::parse_str("{\"a\": 1, \"b\": 2, \"c\": 3}", Format::Json, &l),
        "max-collection-len",
        pos(1, 18),
    );
    Document::parse_str("[1, 2]", Format::Yaml, &l).unwrap();
    assert_limit(
        Document::parse_str("- 1\n- 2\n- 3", Format::Yaml, &l),
        "max-collection-len",
        pos(3, 3),
    );
    assert_limit(
        Document::parse_str("a: 1\nb: 2\nc: 3", Format::Yaml, &l),
        "max-collection-len",
        pos(3, 1),
    );
    // A capture's message list is a collection like any other, one entry per line.
    let m = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    Document::parse_str(&format!("{m}\n{m}\n"), Format::Capture, &l).unwrap();
    assert_limit(
        Document::parse_str(&format!("{m}\n{m}\n\n{m}\n"), Format::Capture, &l),
        "max-collection-len",
        pos(4, 1),
    );
    assert_limit(
        Document::parse_str(&format!("{m}\n{m}\nnot json\n"), Format::Capture, &l),
        "max-collection-len",
        pos(3, 1),
    );
    let l = limits(|l| l.max_collection_len = 0);
    Document::parse_str("[]", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse_str("[1]", Format::Json, &l),
        "max-collection-len",
        pos(1, 2),
    );
    assert_limit(
        Document::parse_str("{\"a\": 1}", Format::Json, &l),
        "max-collection-len",
        pos(1, 2),
    );
}

#[test]
fn input_size_limit() {
    let l = limits(|l| l.max_input_bytes = 4);
    Document::parse(b"[12]", Format::Json, &l).unwrap();
    assert_limit(
        Document::parse(b"[123]", Format::Json, &l),
        "max-input-bytes",
        pos(1, 1),
    );
}

#[track_caller]
fn assert_refused_quickly(text: &str, format: Format) {
    let started = Instant::now();
    let result = Document::parse_str(text, format, &Limits::default());
    let elapsed = started.elapsed();
    match result {
        Err(LoadError {
            kind: LoadErrorKind::Limit {
                limit: "max-depth", ..
            },
            ..
        }) => {}
        Err(LoadError {
            kind: LoadErrorKind::YamlSyntax(_),
            ..
        }) if format == Format::Yaml => {}
        other => panic!("expected a depth or syntax error, got {other:?}"),
    }
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    const DEPTH: usize = 100_000;
    assert_refused_quickly(&"[".repeat(DEPTH), Format::Json);
    assert_refused_quickly(
        &format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH)),
        Format::Json,
    );
    assert_refused_quickly(&"{\"a\":".repeat(DEPTH), Format::Json);
    assert_refused_quickly(&"[".repeat(DEPTH), Format::Yaml);
    assert_refused_quickly(
        &format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH)),
        Format::Yaml,
    );
    assert_refused_quickly(&"{a: ".repeat(DEPTH), Format::Yaml);
    assert_refused_quickly(&"- ".repeat(DEPTH), Format::Yaml);
    assert_refused_quickly(&"[{a: ".repeat(DEPTH), Format::Yaml);
    // Depth 256 (the default limit) is fine; 257 is not.
    let ok = format!("{}{}", "[".repeat(256), "]".repeat(256));
    json_ok(&ok);
    let too_deep = format!("{}{}", "[".repeat(257), "]".repeat(257));
    assert_limit(json(&too_deep), "max-depth", pos(1, 257));
    let ok = format!("{}{}", "- ".repeat(256), "x");
    yaml_ok(&ok);
}

#[test]
fn yaml_deep_nesting_hits_our_limit_before_the_parser_limit() {
    // saphyr-parser refuses more than 255 flow levels by itself; a smaller limit of ours is
    // reported as such.
    let l = limits(|l| l.max_depth = 64);
    let text = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert_limit(
        Document::parse_str(&text, Format::Yaml, &l),
        "max-depth",
        pos(1, 65),
    );
    let l = limits(|l| l.max_depth = 100_000);
    let text = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let err = Document::parse_str(&text, Format::Yaml, &l).unwrap_err();
    assert_syntax(&err, "more than 255 levels", pos(1, 256));
    // Block nesting has no parser limit; ours applies.
    let text = format!("{}x", "- ".repeat(1000));
    assert_limit(
        Document::parse_str(&text, Format::Yaml, &limits(|l| l.max_depth = 500)),
        "max-depth",
        pos(1, 1001),
    );
    let l = limits(|l| l.max_depth = 1000);
    let doc = Document::parse_str(&text, Format::Yaml, &l).unwrap();
    assert_eq!(doc.position(&"/0".repeat(999)), pos(1, 1999));
    assert_eq!(doc.position(&"/0".repeat(1000)), pos(1, 2001));
}

// ---------------------------------------------------------------------------------------------
// Property tests

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[a-zé😀 \\\\\"\n\t/]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-zé😀~/\"\\\\ ]{0,8}", inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Every (pointer, value) of `value`, in document order.
fn nodes<'d>(value: ValueRef<'d>, ptr: String, out: &mut Vec<(String, ValueRef<'d>)>) {
    out.push((ptr.clone(), value));
    match value.kind() {
        Kind::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                nodes(item, pointer::push(&ptr, &i.to_string()), out);
            }
        }
        Kind::Object(map) => {
            for (k, v) in map.iter() {
                nodes(v, pointer::push(&ptr, k), out);
            }
        }
        _ => {}
    }
}

fn char_at(lines: &[Vec<char>], at: Position) -> Option<char> {
    let line = lines.get((at.line as usize).checked_sub(1)?)?;
    line.get((at.column as usize).checked_sub(1)?).copied()
}

fn first_char_matches(value: ValueRef<'_>, c: char) -> bool {
    match value.kind() {
        Kind::Null => c == 'n',
        Kind::Bool(true) => c == 't',
        Kind::Bool(false) => c == 'f',
        Kind::Number(_) => c == '-' || c.is_ascii_digit(),
        Kind::String(_) => c == '"',
        Kind::Array(_) => c == '[',
        Kind::Object(_) => c == '{',
    }
}

/// In block-style YAML a non-empty sequence starts at its first `-` and a non-empty mapping at
/// its first key (always double-quoted by [`to_block_yaml`]).
fn block_first_char_matches(value: ValueRef<'_>, c: char) -> bool {
    match value.kind() {
        Kind::Array(items) if !items.is_empty() => c == '-',
        Kind::Object(map) if !map.is_empty() => c == '"',
        _ => first_char_matches(value, c),
    }
}

/// Block-style YAML for `value`: scalars and empty collections as JSON (which is valid YAML),
/// sequences under a key indentless (`key:\n- a`), other nesting indented.
fn to_block_yaml(value: &Value) -> String {
    fn is_block(v: &Value) -> bool {
        match v {
            Value::Array(items) => !items.is_empty(),
            Value::Object(map) => !map.is_empty(),
            _ => false,
        }
    }
    fn block(v: &Value, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        match v {
            Value::Array(items) => {
                for item in items {
                    out.push_str(&pad);
                    out.push('-');
                    after(item, indent + 2, out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    out.push_str(&pad);
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    // Sequences under a key are indentless.
                    let nested = if item.is_array() { indent } else { indent + 2 };
                    after(item, nested, out);
                }
            }
            _ => unreachable!(),
        }
    }
    fn after(v: &Value, indent: usize, out: &mut String) {
        if is_block(v) {
            out.push('\n');
            block(v, indent, out);
        } else {
            out.push(' ');
            out.push_str(&serde_json::to_string(v).unwrap());
            out.push('\n');
        }
    }
    let mut out = String::new();
    if is_block(value) {
        block(value, 0, &mut out);
    } else {
        out.push_str(&serde_json::to_string(value).unwrap());
        out.push('\n');
    }
    out
}

/// Checks that every node's position (and every member's key position) points at the first
/// character of its text in `source`.
fn check_positions(doc: &Document<'_>, source: &str) -> Result<(), TestCaseError> {
    check_positions_with(doc, source, first_char_matches)
}

fn check_positions_with(
    doc: &Document<'_>,
    source: &str,
    first_char_matches: fn(ValueRef<'_>, char) -> bool,
) -> Result<(), TestCaseError> {
    let lines: Vec<Vec<char>> = source.split('\n').map(|l| l.chars().collect()).collect();
    let mut all = Vec::new();
    nodes(doc.root(), String::new(), &mut all);
    prop_assert_eq!(doc.len(), all.len());
    for (ptr, value) in all {
        let at = doc.position(&ptr);
        let c = char_at(&lines, at);
        prop_assert!(
            c.is_some_and(|c| first_char_matches(value, c)),
            "{} at {:?} starts with {:?}, value {}",
            ptr,
            at,
            c,
            value
        );
        if !ptr.is_empty()
            && doc
                .root()
                .pointer(pointer::parent(&ptr).unwrap_or(""))
                .is_some_and(ValueRef::is_object)
        {
            let key_at = key_pos(doc, &ptr);
            prop_assert_ne!(key_at, at);
            prop_assert_eq!(
                char_at(&lines, key_at),
                Some('"'),
                "key of {} at {:?}",
                ptr,
                key_at
            );
        }
    }
    Ok(())
}

// 256 cases each by default; set `PROPTEST_CASES` for a longer run.
proptest! {
    #[test]
    fn json_round_trips_with_positions(value in arb_json()) {
        for text in [serde_json::to_string_pretty(&value).unwrap(), serde_json::to_string(&value).unwrap()] {
            let doc = json(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text}")))?;
            prop_assert_eq!(doc.root(), value.clone());
            // Number kinds survive too (an integer stays an integer).
            prop_assert_eq!(doc.root().to_string(), value.to_string());
            check_positions(&doc, &text)?;
        }
    }

    #[test]
    fn json_text_loads_identically_as_yaml(value in arb_json()) {
        // JSON is (nearly) a subset of YAML 1.2; through the YAML loader the same text must
        // decode to the same value, with the same positions.
        let text = serde_json::to_string_pretty(&value).unwrap();
        let doc = yaml(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text}")))?;
        prop_assert_eq!(doc.root(), value.clone());
        check_positions(&doc, &text)?;
    }

    #[test]
    fn block_yaml_loads_with_positions(value in arb_json()) {
        let text = to_block_yaml(&value);
        let doc = yaml(&text).map_err(|e| TestCaseError::fail(format!("{e} in\n{text}")))?;
        prop_assert_eq!(doc.root(), value.clone());
        check_positions_with(&doc, &text, block_first_char_matches)?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        for format in [Format::Json, Format::Yaml] {
            let _ = Document::parse(&bytes, format, &Limits::default());
        }
    }

    #[test]
    fn random_structured_text_never_panics(
        text in "[\\[\\]{}:,\"'\\-?!&*#|>%@` \n\t\r\\\\a-c0-9.eE+uD~é😀\u{feff}]{0,200}",
    ) {
        let small = limits(|l| { l.max_depth = 8; l.max_nodes = 50; l.max_scalar_bytes = 16; l.max_collection_len = 8; });
        for format in [Format::Json, Format::Yaml] {
            let _ = Document::parse_str(&text, format, &Limits::default());
            let _ = Document::parse_str(&text, format, &small);
        }
    }

    #[test]
    fn mutated_json_never_panics(value in arb_json(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = serde_json::to_vec_pretty(&value).unwrap();
        let i = cut.index(bytes.len() + 1);
        bytes.insert(i, byte);
        for format in [Format::Json, Format::Yaml] {
            let _ = Document::parse(&bytes, format, &Limits::default());
            let _ = Document::parse(&bytes[..i], format, &Limits::default());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Throughput (run with `cargo test --release -p mcpdesc-core --test document_loaders -- --ignored
// --nocapture`)

#[test]
#[ignore = "benchmark"]
fn throughput_against_serde_json() {
    let item = json!({
        "name": "tool-name-é",
        "description": "Reads a file from disk and returns its contents, with \"escapes\"\n.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer", "maximum": 1.5e3}}},
        "tags": ["a", "b", "c", true, false, null, 12345678, -0.25],
    });
    let items: Vec<Value> = (0..22_000).map(|_| item.clone()).collect();
    let doc = json!({"mcpdesc": "0.8.0", "tools": items});
    for (label, text) in [
        ("pretty", serde_json::to_string_pretty(&doc).unwrap()),
        ("compact", serde_json::to_string(&doc).unwrap()),
    ] {
        let mb = text.len() as f64 / 1e6;
        let runs = 5;
        let started = Instant::now();
        for _ in 0..runs {
            let v: Value = serde_json::from_str(&text).unwrap();
            std::hint::black_box(v);
        }
        let theirs = started.elapsed() / runs;
        let started = Instant::now();
        for _ in 0..runs {
            let d = json_ok(&text);
            std::hint::black_box(d);
        }
        let ours = started.elapsed() / runs;
        let started = Instant::now();
        let y = yaml_ok(&text);
        let yaml_time = started.elapsed();
        assert_eq!(y.root(), doc);
        println!(
            "{label} {mb:.1} MB: serde_json {theirs:?}, ours {ours:?} ({:.2}x); yaml loader {yaml_time:?}",
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
}
