//! What the evaluator selects, checked against recorded selections and a reference evaluator.
//!
//! `tests/snapshots/jsonpath-selections.jsonl` records, for every document under
//! `spec-fixtures/` with every query the shipped catalogue compiles, and for a few inline
//! documents with a query of each RFC 9535 construct, the pointers of the selected nodes in
//! order: one line `<document>\t<query>\t<JSON array of pointers>` per pair that selects
//! anything, sorted. When first recorded they matched, node for node and in order, those of an
//! evaluator built on `jsonpath-rust`; a change to any of them is a change of behaviour.
//! With `MCPDESC_BLESS=1` the file is rewritten instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{CompileMemo, JsonPath, PathSet};
use crate::document::{Document, Format, Limits, Tree};

const SNAPSHOT: &str = "tests/snapshots/jsonpath-selections.jsonl";

/// (pointer, value) of each node `select` selects.
fn selected(path: &JsonPath, doc: &Value) -> Vec<(String, Value)> {
    let tree = Tree::from_value(doc);
    path.select(tree.root())
        .into_iter()
        .map(|s| (s.pointer, s.value.to_value()))
        .collect()
}

/// Asserts that every entry point selects what `select` does, and that each pointer leads to
/// its node.
fn assert_entry_points_agree(path: &JsonPath, doc: &Value, context: &str) {
    let tree = Tree::from_value(doc);
    let root = tree.root();
    let query = path.as_str();
    let all = selected(path, doc);
    for node in path.select(root) {
        assert!(
            root.pointer(&node.pointer)
                .is_some_and(|v| v.same_node(node.value)),
            "{query} on {context}: {} does not lead to its node",
            node.pointer
        );
    }
    let values: Vec<Value> = path
        .select_values(root)
        .into_iter()
        .map(|v| v.to_value())
        .collect();
    let want: Vec<Value> = all.iter().map(|(_, v)| v.clone()).collect();
    assert_eq!(values, want, "{query} on {context}: select_values");
    let mut seen = Vec::new();
    path.for_each_below(root, "/x~1y", &mut |pointer, value| {
        seen.push((pointer.to_owned(), value.to_value()));
    });
    let below: Vec<(String, Value)> = all
        .iter()
        .map(|(p, v)| (format!("/x~1y{p}"), v.clone()))
        .collect();
    assert_eq!(seen, below, "{query} on {context}: for_each_below");
    let first = all.first().map(|(_, v)| v.clone());
    let mut got = None;
    let any = path.any_value(root, &mut |v| {
        got = Some(v.to_value());
        true
    });
    assert_eq!(
        (any, got),
        (first.is_some(), first),
        "{query} on {context}: any_value"
    );
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec-fixtures")
}

/// Every `*.json` and `*.yaml` document under `spec-fixtures/` that loads, named by its path
/// there.
fn fixture_documents() -> Vec<(String, Value)> {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "json" || e == "yaml") {
                out.push(path);
            }
        }
    }
    let root = fixtures_dir();
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(&file).ok()?;
            let name = file
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .into_owned();
            let doc =
                Document::parse_str(&text, Format::from_path(&name), &Limits::default()).ok()?;
            Some((name, doc.to_value()))
        })
        .collect()
}

/// Every query the shipped catalogue compiles, and its compiled catalogues.
fn catalogue_queries() -> (Vec<JsonPath>, crate::rules::CatalogueSet) {
    let memo = CompileMemo::default();
    let set = JsonPath::with_memo(Some(memo.clone()), || crate::RuleSet::embedded().compile())
        .expect("the shipped catalogue compiles");
    let mut texts: Vec<String> = memo.0.lock().unwrap().keys().cloned().collect();
    texts.sort();
    let paths = texts
        .iter()
        .filter_map(|text| JsonPath::compile(text).ok())
        .collect();
    (paths, set)
}

/// Small documents with the cases the fixtures lack: escaped names, nested arrays, scalars.
fn inline_documents() -> Vec<(String, Value)> {
    let docs = [
        json!({
            "tools": [
                {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
                {"name": "b", "inputSchema": {"type": "object"}},
                {"name": "c"},
                "not an object",
                [1, 2, 3]
            ],
            "a/b": {"c~d": 1, "it's": 2, "back\\slash": 3, "ctl\u{1}": 4, "tab\t": 5, "é😀": 6},
            "0": "zero",
            "empty": {},
            "list": [],
            "nested": [[1, [2, 3]], {"k": [4, {"k": 5}]}],
            "": {"": "empty key"}
        }),
        json!([]),
        json!({}),
        json!(null),
        json!("str"),
        json!([[0, 1], {"a": [1]}, {"*": 2, "a": {"b": [3, 4]}}, [[5]]]),
        json!({"a": {"b": [{"c": 1}, {"c": 2}], "c": 3}, "b": [[{"c": 4}]], "0": [7]}),
        json!({"a": 1, "b": [1, 2, {"a": "ab"}], "a/b": {"~1": [3]}}),
        json!([{"a": 1, "b": 1}, {"a": [1], "b": [1]}, "abc", [0, 1, 2, 3], {"a": "cc"}]),
    ];
    docs.into_iter()
        .enumerate()
        .map(|(i, doc)| (format!("inline-{}", i + 1), doc))
        .collect()
}

/// A query of each construct RFC 9535 has.
const QUERIES: &[&str] = &[
    "$",
    "$.a",
    "$['a/b']['~1']",
    "$[0]",
    "$[-1]",
    "$[*]",
    "$.*.*",
    "$..*",
    "$..a",
    "$..[0]",
    "$['a','b']",
    "$[*]['a', 0, 'a']",
    "$..['a', 'b']",
    "$[0, -1, 0]",
    "$[1:]",
    "$[::-1]",
    "$[-2:]",
    "$[3:0:-2]",
    "$[:2:-1]",
    "$..[1:]",
    "$[?@.a]",
    "$[?!@.a]",
    "$[?@.a == 1]",
    "$[?@ == 1.0]",
    "$[?@ > 0]",
    "$[?@ <= 'b']",
    "$[?@ != null]",
    "$[?@ == true]",
    "$[?@.a == $.b]",
    "$[?@.a == @.b]",
    "$[?@.a && @.b || !@['0']]",
    "$[?(@.a || @.b) && !(@ == 1)]",
    "$[?@.*]",
    "$[?@..a]",
    "$[?$.a]",
    "$..[?@ > 1, 'b']",
    "$[?length(@) > 1]",
    "$[?length(@.a) == 2]",
    "$[?count(@.*) == 2]",
    "$[?count(@..a) > 0]",
    "$[?value(@..a) == 1]",
    "$[?match(@, 'a.?')]",
    "$[?search(@, 'b')]",
    "$..[?match(@.a, '[a-c]+')]",
    "$[?search(@.a, $.b)]",
];

/// Queries of the forms catalogues use, over the names of the inline documents.
const CATALOGUE_FORMS: &[&str] = &[
    "$.tools",
    "$.tools[*]",
    "$.tools[*].inputSchema",
    "$.tools[*].inputSchema.properties.*",
    "$.tools[*].*",
    "$.tools[0].name",
    "$.tools[-1]",
    "$.tools[-5].name",
    "$.tools[-6]",
    "$.tools[5]",
    "$.*",
    "$.*.*.*",
    "$[*][*][*]",
    "$[-1][0]",
    "$['0']",
    "$['0'][0]",
    "$[0]['0']",
    "$['a/b']['c~d']",
    "$['a/b']['it\\'s']",
    "$['a/b'][\"back\\\\slash\"]",
    "$['a/b']['ctl\\u0001']",
    "$['a/b'].*",
    "$['']['']",
    "$.a.b[*].c",
    "$.a.*",
    "$.b[0][0].c",
    "$.missing.x",
    "$.empty.*",
    "$.list[*]",
    "$.nested[*][*][*]",
    "$..k",
    "$..[-1]",
    "$.nested..k",
    "$..k[*]",
    "$..b..c",
    "$.tools[?@.name]",
    "$.tools[?!@.name]",
    "$.tools[?@.name == 'a']",
    "$.tools[?@.name != 'a'].inputSchema",
    "$.tools[?@.name == 'a' || @.name == 'c'].name",
    "$.tools[?@.name && @.inputSchema.type == 'object']",
    "$.tools[?@[0] == 1]",
    "$.tools[?@[-1] >= 3]",
    "$[?@ > 1]",
    "$[?@ >= 1.0]",
    "$[?@ < 'b']",
    "$[?@ <= 3]",
    "$[?@ == null]",
    "$[?@ == $.a]",
    "$[?@.c == $.a.c]",
    "$[?$.missing]",
    "$[?@..c]",
    "$..[?@.c > 1]",
    "$..[?@ == 1]",
    "$[*][?(@.c == 1 || @.c == 2) && !(@.c == 2)]",
    "$['a/b'][?@ > 2]",
    "$['tools','a/b']",
    "$['a/b']['c~d','it\\'s',0]",
    "$.tools[*]['name','inputSchema']",
    "$.tools[0,1,0]",
    "$['a','b'][*]",
    "$.a['b','c'][0]",
];

/// The selections the snapshot records, by (document, query), computed now.
fn current_selections() -> BTreeMap<(String, String), Vec<String>> {
    let mut out = BTreeMap::new();
    let mut record = |document: &str, doc: &Value, path: &JsonPath| {
        let pointers: Vec<String> = selected(path, doc).into_iter().map(|(p, _)| p).collect();
        if !pointers.is_empty() {
            out.insert((document.to_owned(), path.as_str().to_owned()), pointers);
        }
    };
    let docs = fixture_documents();
    let (paths, _) = catalogue_queries();
    assert!(docs.len() > 100, "{} documents", docs.len());
    assert!(paths.len() > 100, "{} queries", paths.len());
    for (name, doc) in &docs {
        for path in &paths {
            record(name, doc, path);
        }
    }
    for (name, doc) in &inline_documents() {
        for query in QUERIES.iter().chain(CATALOGUE_FORMS) {
            let path = JsonPath::compile(query).unwrap();
            assert_entry_points_agree(&path, doc, name);
            record(name, doc, &path);
        }
    }
    out
}

fn render(selections: &BTreeMap<(String, String), Vec<String>>) -> String {
    selections
        .iter()
        .map(|((document, query), pointers)| {
            let pointers = serde_json::to_string(pointers).expect("strings serialize");
            format!("{document}\t{query}\t{pointers}\n")
        })
        .collect()
}

/// Reads the snapshot's lines; a query may hold a tab, a document name and the pointers not.
fn parse(text: &str) -> BTreeMap<(String, String), Vec<String>> {
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let parsed = line.split_once('\t').and_then(|(document, rest)| {
                let (query, pointers) = rest.rsplit_once('\t')?;
                let pointers = serde_json::from_str(pointers).ok()?;
                Some(((document.to_owned(), query.to_owned()), pointers))
            });
            parsed
                .unwrap_or_else(|| panic!("{SNAPSHOT}:{}: not `<document>\\t<query>\\t[…]`", n + 1))
        })
        .collect()
}

#[test]
fn selections_match_the_snapshot() {
    let current = current_selections();
    let location = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
    if std::env::var_os("MCPDESC_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&location, render(&current))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", location.display()));
        return;
    }
    let text = std::fs::read_to_string(&location).unwrap_or_else(|e| {
        panic!(
            "cannot read {} (record it with MCPDESC_BLESS=1): {e}",
            location.display()
        )
    });
    let recorded = parse(&text);
    let mut problems = Vec::new();
    for (key, now) in &current {
        match recorded.get(key) {
            None => problems.push(format!("{key:?}: not in the snapshot\n    now: {now:?}")),
            Some(old) if old != now => problems.push(format!(
                "{key:?}: differs\n    recorded: {old:?}\n    now:      {now:?}"
            )),
            Some(_) => {}
        }
    }
    for key in recorded.keys().filter(|key| !current.contains_key(*key)) {
        problems.push(format!("{key:?}: recorded, now selects nothing"));
    }
    let selected: usize = current.values().map(Vec::len).sum();
    assert!(selected > 1000, "{selected} nodes selected");
    assert!(
        problems.is_empty(),
        "{} of {} selections differ from {SNAPSHOT} (MCPDESC_BLESS=1 rewrites it):\n{}",
        problems.len(),
        current.len(),
        problems.join("\n")
    );
}

#[test]
fn loaded_trees_agree_with_their_values() {
    // Trees the JSON loader builds borrow their strings from the text; compared here with the
    // value they stand for.
    let (paths, _) = catalogue_queries();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![fixtures_dir()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for file in files.iter().take(40) {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.to_string_lossy();
        let Ok(doc) = Document::parse_str(&text, Format::from_path(&name), &Limits::default())
        else {
            continue;
        };
        let value = doc.to_value();
        let from_value = Tree::from_value(&value);
        for path in &paths {
            let loaded: Vec<(String, Value)> = path
                .select(doc.root())
                .into_iter()
                .map(|s| (s.pointer, s.value.to_value()))
                .collect();
            let rebuilt: Vec<(String, Value)> = path
                .select(from_value.root())
                .into_iter()
                .map(|s| (s.pointer, s.value.to_value()))
                .collect();
            assert_eq!(loaded, rebuilt, "{} on {name}", path.as_str());
        }
        checked += 1;
    }
    assert!(checked > 10, "{checked} documents");
}

/// A path set reports, for each of its queries, what the query selects on its own, in order.
#[test]
fn path_sets_select_what_each_query_selects() {
    let docs = fixture_documents();
    let (_, set) = catalogue_queries();
    let mut compared = 0usize;
    for catalogue in set.releases() {
        let paths = &catalogue.paths;
        let all = PathSet::new(paths, 0..paths.len());
        let odd = PathSet::new(paths, (0..paths.len()).filter(|i| i % 2 == 1));
        for (name, doc) in &docs {
            let tree = Tree::from_value(doc);
            let alone: Vec<Vec<String>> = paths
                .iter()
                .map(|path| {
                    path.select(tree.root())
                        .into_iter()
                        .map(|s| s.pointer)
                        .collect()
                })
                .collect();
            for (set, odd_only) in [(&all, false), (&odd, true)] {
                let mut together: BTreeMap<usize, Vec<String>> = BTreeMap::new();
                set.for_each(tree.root(), &mut |i, pointer, value| {
                    assert!(tree
                        .root()
                        .pointer(pointer)
                        .is_some_and(|v| v.same_node(value)));
                    together.entry(i).or_default().push(pointer.to_owned());
                });
                for (i, want) in alone.iter().enumerate() {
                    let want = if odd_only && i % 2 == 0 {
                        &[][..]
                    } else {
                        &want[..]
                    };
                    let got = together.get(&i).map_or(&[][..], Vec::as_slice);
                    assert_eq!(got, want, "{} on {name}", paths[i].as_str());
                    compared += got.len();
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} nodes compared");
}

/// A reference evaluator for names, indices, wildcards and descendant segments, written
/// straight from RFC 9535 (sections 2.3.1 to 2.3.3 and 2.5), node list by node list.
mod reference {
    use serde_json::Value;

    #[derive(Debug, Clone)]
    pub(super) enum Selector {
        Name(String),
        Index(i64),
        Wildcard,
    }

    #[derive(Debug, Clone)]
    pub(super) enum Segment {
        Child(Vec<Selector>),
        Descendant(Vec<Selector>),
    }

    /// The query text of `segments`, in bracket notation.
    pub(super) fn text(segments: &[Segment]) -> String {
        let mut out = String::from("$");
        for segment in segments {
            let selectors = match segment {
                Segment::Child(selectors) => selectors,
                Segment::Descendant(selectors) => {
                    out.push_str("..");
                    selectors
                }
            };
            let selectors: Vec<String> = selectors
                .iter()
                .map(|selector| match selector {
                    Selector::Name(name) => {
                        format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
                    }
                    Selector::Index(index) => index.to_string(),
                    Selector::Wildcard => "*".to_string(),
                })
                .collect();
            out.push_str(&format!("[{}]", selectors.join(",")));
        }
        out
    }

    type Nodes<'a> = Vec<(String, &'a Value)>;

    pub(super) fn select<'a>(segments: &[Segment], root: &'a Value) -> Nodes<'a> {
        let mut nodes = vec![(String::new(), root)];
        for segment in segments {
            let (selectors, inputs) = match segment {
                Segment::Child(selectors) => (selectors, nodes),
                Segment::Descendant(selectors) => {
                    let mut all = Vec::new();
                    for (at, node) in nodes {
                        self_and_descendants(at, node, &mut all);
                    }
                    (selectors, all)
                }
            };
            nodes = inputs
                .iter()
                .flat_map(|(at, node)| {
                    selectors
                        .iter()
                        .flat_map(move |selector| children(selector, at, node))
                })
                .collect();
        }
        nodes
    }

    /// A node before its descendants, children in order.
    fn self_and_descendants<'a>(at: String, node: &'a Value, out: &mut Nodes<'a>) {
        out.push((at.clone(), node));
        for (at, child) in children(&Selector::Wildcard, &at, node) {
            self_and_descendants(at, child, out);
        }
    }

    fn children<'a>(selector: &Selector, at: &str, node: &'a Value) -> Nodes<'a> {
        let token = |name: &str| format!("{at}/{}", name.replace('~', "~0").replace('/', "~1"));
        match (selector, node) {
            (Selector::Name(name), Value::Object(members)) => members
                .get(name)
                .map(|child| (token(name), child))
                .into_iter()
                .collect(),
            (Selector::Index(index), Value::Array(items)) => {
                let len = items.len() as i64;
                let i = if *index < 0 { len + index } else { *index };
                (0..len)
                    .contains(&i)
                    .then(|| (format!("{at}/{i}"), &items[i as usize]))
                    .into_iter()
                    .collect()
            }
            (Selector::Wildcard, Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, child)| (format!("{at}/{i}"), child))
                .collect(),
            (Selector::Wildcard, Value::Object(members)) => members
                .iter()
                .map(|(name, child)| (token(name), child))
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[test]
fn reference_evaluator_follows_rfc_9535() {
    use reference::{Segment, Selector};
    let doc = json!({"a": [{"a": 1}, {"b": {"a": 2}}], "b": {"a/b": 3}});
    let pointers = |query: &[Segment]| -> Vec<String> {
        reference::select(query, &doc)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    };
    let mut query = vec![Segment::Descendant(vec![
        Selector::Name("a".into()),
        Selector::Index(-1),
    ])];
    assert_eq!(reference::text(&query), "$..['a',-1]");
    assert_eq!(pointers(&query), ["/a", "/a/1", "/a/0/a", "/a/1/b/a"]);
    query.push(Segment::Child(vec![Selector::Wildcard]));
    assert_eq!(reference::text(&query), "$..['a',-1][*]");
    assert_eq!(pointers(&query), ["/a/0", "/a/1", "/a/1/b"]);
    let query = [Segment::Child(vec![
        Selector::Wildcard,
        Selector::Name("b".into()),
    ])];
    assert_eq!(pointers(&query), ["/a", "/b", "/b"]);
    let query = vec![Segment::Child(vec![Selector::Name("b".into())]); 2];
    assert_eq!(pointers(&query), Vec::<String>::new());
}

mod properties {
    use super::reference::{Segment, Selector};
    use super::*;
    use proptest::prelude::*;

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..4).prop_map(Value::from),
            "[a-c]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::vec((key(), inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    fn key() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["a", "b", "0", "a/b", "~1", "it's", "back\\slash", ""])
            .prop_map(String::from)
    }

    fn selector() -> impl Strategy<Value = Selector> {
        prop_oneof![
            3 => key().prop_map(Selector::Name),
            2 => (-3i64..4).prop_map(Selector::Index),
            1 => Just(Selector::Wildcard),
        ]
    }

    fn segment() -> impl Strategy<Value = Segment> {
        let selectors = || prop::collection::vec(selector(), 1..4);
        prop_oneof![
            3 => selectors().prop_map(Segment::Child),
            1 => selectors().prop_map(Segment::Descendant),
        ]
    }

    proptest! {
        #[test]
        fn selects_what_the_reference_evaluator_selects(
            doc in json(),
            segments in prop::collection::vec(segment(), 0..5),
        ) {
            let text = reference::text(&segments);
            let path = JsonPath::compile(&text).unwrap();
            let want: Vec<(String, Value)> = reference::select(&segments, &doc)
                .into_iter()
                .map(|(p, v)| (p, v.clone()))
                .collect();
            prop_assert_eq!(selected(&path, &doc), want, "{}", text);
        }

        #[test]
        fn entry_points_agree(doc in json(), query in prop::sample::select(QUERIES)) {
            let path = JsonPath::compile(query).unwrap();
            assert_entry_points_agree(&path, &doc, &doc.to_string());
        }

        #[test]
        fn never_panics(
            doc in json(),
            text in "[$@.\\[\\]()?*,:'\"\\\\ab01=!<>&|-]{0,16}",
        ) {
            if let Ok(path) = JsonPath::compile(&text) {
                let tree = Tree::from_value(&doc);
                let _ = path.select(tree.root());
            }
        }

        #[test]
        fn functions_never_panic(
            doc in json(),
            function in prop::sample::select(vec!["length(@)", "count(@.*)", "value(@..a)"]),
            pattern in "[a-c.()\\[\\]^$*+?{}|\\\\,0-9pLN-]{0,8}",
            op in prop::sample::select(vec!["==", "<", ">="]),
        ) {
            let quoted = pattern.replace('\\', "\\\\").replace('\'', "\\'");
            for text in [
                format!("$..[?match(@, '{quoted}')]"),
                format!("$..[?search(@.a, '{quoted}') || {function} {op} 2]"),
            ] {
                let path = JsonPath::compile(&text).unwrap();
                let tree = Tree::from_value(&doc);
                let _ = path.select(tree.root());
            }
        }
    }
}
