//! Text edits that change one node of a JSON or YAML document and leave the rest of the
//! text as the author wrote it: a member added to an object, an element to an array, a
//! value replaced. New text follows the style around it: JSON and flow collections get
//! JSON syntax (valid YAML too), block collections get block lines at the same indentation.

use mcpdesc_core::document::pointer;
use mcpdesc_core::Document;
use serde_json::Value;

use super::locate;
use super::text::Text;

/// Replace bytes `start..end` with `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Edit {
    fn insert(at: usize, text: String) -> Edit {
        Edit {
            start: at,
            end: at,
            text,
        }
    }
}

/// `value` on one line in JSON syntax, with a space after each `,` and `:`.
pub(crate) fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        scalar => scalar.to_string(),
    }
}

/// A YAML key: plain where that cannot be misread, else double-quoted.
fn yaml_key(key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.$/".contains(c))
        && !key.starts_with(['-', '.']);
    if plain {
        key.to_owned()
    } else {
        Value::from(key).to_string()
    }
}

/// `value` as block YAML lines, relative to the node's own indentation. Objects become
/// `key: value` lines and arrays of objects `- ` items; anything else stays inline.
fn block_lines(value: &Value) -> Vec<String> {
    match value {
        Value::Object(map) if !map.is_empty() => map
            .iter()
            .flat_map(|(k, v)| {
                let nested = block_lines(v);
                let is_block = matches!(v, Value::Object(m) if !m.is_empty())
                    || matches!(v, Value::Array(a) if a.iter().any(Value::is_object));
                if is_block {
                    let mut lines = vec![format!("{}:", yaml_key(k))];
                    lines.extend(nested.into_iter().map(|l| format!("  {l}")));
                    lines
                } else {
                    vec![format!("{}: {}", yaml_key(k), inline(v))]
                }
            })
            .collect(),
        Value::Array(items) if items.iter().any(Value::is_object) => items
            .iter()
            .flat_map(|item| {
                let mut lines = block_lines(item).into_iter();
                let first = lines.next().unwrap_or_default();
                std::iter::once(format!("- {first}")).chain(lines.map(|l| format!("  {l}")))
            })
            .collect(),
        other => vec![inline(other)],
    }
}

/// The text before byte `at` on its line, with everything but whitespace blanked: the
/// indentation that lines up with `at` (a sequence item's `- ` becomes two spaces).
fn indentation_at(text: &Text, at: usize) -> String {
    let line = text.position(at).line as usize;
    text.as_str()[text.line_start(line)..at]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect()
}

fn opens_flow(text: &Text, at: usize) -> bool {
    text.as_str()[at..].starts_with(['{', '['])
}

/// Where the first child of the container at `ptr` starts (its key, for a member).
fn first_child_start(text: &Text, doc: &Document<'_>, ptr: &str, first: &str) -> Option<usize> {
    let child = pointer::push(ptr, first);
    let (value_pos, key_pos) = doc.node_positions(&child)?;
    text.offset_of(if key_pos.line != 0 {
        key_pos
    } else {
        value_pos
    })
}

/// Adds member `key: value` as the first member of the object at `ptr`.
pub(crate) fn insert_member(
    text: &Text,
    doc: &Document<'_>,
    ptr: &str,
    key: &str,
    value: &Value,
) -> Option<Edit> {
    let object = doc.root().pointer(ptr)?.as_object()?;
    let (value_pos, _) = doc.node_positions(ptr)?;
    let open = text.offset_of(value_pos)?;
    let flow = opens_flow(text, open);
    let Some(first_key) = object.keys().next() else {
        // Only a flow mapping (`{}`) can be empty.
        let member = format!("{}: {}", Value::from(key), inline(value));
        return flow.then(|| Edit::insert(open + 1, member));
    };
    let first = first_child_start(text, doc, ptr, first_key)?;
    if flow {
        let member = format!("{}: {}", Value::from(key), inline(value));
        let same_line = text.position(first).line == text.position(open).line;
        let separator = if same_line {
            ", ".to_owned()
        } else {
            format!(",\n{}", indentation_at(text, first))
        };
        return Some(Edit::insert(first, member + &separator));
    }
    let indent = indentation_at(text, first);
    let member = block_lines(&Value::Object(
        [(key.to_owned(), value.clone())].into_iter().collect(),
    ));
    let mut out = String::new();
    for line in member {
        out.push_str(&line);
        out.push('\n');
        out.push_str(&indent);
    }
    Some(Edit::insert(first, out))
}

/// Adds `value` as the first element of the array at `ptr`.
pub(crate) fn insert_element(
    text: &Text,
    doc: &Document<'_>,
    ptr: &str,
    value: &Value,
) -> Option<Edit> {
    let items = doc.root().pointer(ptr)?.as_array()?;
    let (value_pos, _) = doc.node_positions(ptr)?;
    let open = text.offset_of(value_pos)?;
    if items.is_empty() {
        return opens_flow(text, open).then(|| Edit::insert(open + 1, inline(value)));
    }
    let first = first_child_start(text, doc, ptr, "0")?;
    if opens_flow(text, open) {
        let same_line = text.position(first).line == text.position(open).line;
        let separator = if same_line {
            ", ".to_owned()
        } else {
            format!(",\n{}", indentation_at(text, first))
        };
        return Some(Edit::insert(first, inline(value) + &separator));
    }
    // A block sequence: the first element starts after its `- `; insert a whole item at
    // the dash.
    let dash = text.as_str()[..first].rfind('-')?;
    let indent = indentation_at(text, dash);
    let mut out = String::new();
    for line in block_lines(&Value::Array(vec![value.clone()])) {
        out.push_str(&line);
        out.push('\n');
        out.push_str(&indent);
    }
    Some(Edit::insert(dash, out))
}

/// Replaces the value at `ptr` with `value`.
pub(crate) fn replace_value(
    text: &Text,
    doc: &Document<'_>,
    ptr: &str,
    value: &Value,
) -> Option<Edit> {
    let (start, end) = locate::value_extent(text, doc, ptr)?;
    let s = text.as_str();
    let new = if s[start..].starts_with('-') && value.is_array() {
        // A block sequence stays one: an item per line at the same indentation.
        let indent = indentation_at(text, start);
        let items: Vec<String> = value
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| format!("- {}", inline(v)))
            .collect();
        items.join(&format!("\n{indent}"))
    } else {
        inline(value)
    };
    Some(Edit {
        start,
        end,
        text: new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::{Format, Limits};
    use serde_json::json;

    fn apply(
        src: &str,
        format: Format,
        f: impl Fn(&Text, &Document<'_>) -> Option<Edit>,
    ) -> String {
        let text = Text::new(src.into());
        let doc = Document::parse_str(src, format, &Limits::default()).unwrap();
        let e = f(&text, &doc).expect("an edit");
        let mut out = src.to_owned();
        out.replace_range(e.start..e.end, &e.text);
        // The result must still be a document of the same format.
        Document::parse_str(&out, format, &Limits::default()).expect("still parses");
        out
    }

    #[test]
    fn members_join_json_and_block_yaml_objects() {
        let out = apply(
            "{\n  \"a\": 1,\n  \"t\": [{\"n\": 1}]\n}\n",
            Format::Json,
            |t, d| insert_member(t, d, "/t/0", "pv", &json!(["x"])),
        );
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"t\": [{\"pv\": [\"x\"], \"n\": 1}]\n}\n"
        );
        let out = apply("a: 1\nt:\n  - n: 1\n    m: 2\n", Format::Yaml, |t, d| {
            insert_member(t, d, "/t/0", "pv", &json!(["x", "y"]))
        });
        assert_eq!(
            out,
            "a: 1\nt:\n  - pv: [\"x\", \"y\"]\n    n: 1\n    m: 2\n"
        );
        let out = apply("# c\na: 1\n", Format::Yaml, |t, d| {
            insert_member(t, d, "", "x-s", &json!([{"rule": "r", "reason": "why"}]))
        });
        assert_eq!(
            out,
            "# c\nx-s:\n  - rule: \"r\"\n    reason: \"why\"\na: 1\n"
        );
        let out = apply("{}", Format::Json, |t, d| {
            insert_member(t, d, "", "k", &json!(1))
        });
        assert_eq!(out, "{\"k\": 1}");
    }

    #[test]
    fn elements_join_flow_and_block_arrays() {
        let out = apply("{\"s\": [\n    {\"r\": 1}\n  ]}", Format::Json, |t, d| {
            insert_element(t, d, "/s", &json!({"r": 2}))
        });
        assert_eq!(out, "{\"s\": [\n    {\"r\": 2},\n    {\"r\": 1}\n  ]}");
        let out = apply("s:\n  - r: 1\n    q: 2\n", Format::Yaml, |t, d| {
            insert_element(t, d, "/s", &json!({"r": 3, "q": "x"}))
        });
        assert_eq!(out, "s:\n  - r: 3\n    q: \"x\"\n  - r: 1\n    q: 2\n");
        let out = apply("s: []\n", Format::Yaml, |t, d| {
            insert_element(t, d, "/s", &json!({"r": 3}))
        });
        assert_eq!(out, "s: [{\"r\": 3}]\n");
    }

    #[test]
    fn values_are_replaced_in_their_style() {
        let out = apply(
            "{\"pv\": [\"a\",\n \"b\"], \"z\": 1}",
            Format::Json,
            |t, d| replace_value(t, d, "/pv", &json!(["b"])),
        );
        assert_eq!(out, "{\"pv\": [\"b\"], \"z\": 1}");
        let out = apply("pv:\n  - a\n  - b\nz: 1\n", Format::Yaml, |t, d| {
            replace_value(t, d, "/pv", &json!(["b", "c"]))
        });
        assert_eq!(out, "pv:\n  - \"b\"\n  - \"c\"\nz: 1\n");
    }

    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::from),
            (-1000i64..1000).prop_map(Value::from),
            "[a-z\"\\\\é ]{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Every container of `v` with its pointer.
    fn containers(v: &Value, at: String, out: &mut Vec<(String, bool)>) {
        match v {
            Value::Object(m) => {
                out.push((at.clone(), true));
                for (k, c) in m {
                    containers(c, pointer::push(&at, k), out);
                }
            }
            Value::Array(items) => {
                out.push((at.clone(), false));
                for (i, c) in items.iter().enumerate() {
                    containers(c, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    proptest! {
        /// In JSON written compactly or pretty-printed, each edit gives the value it means.
        #[test]
        fn json_edits_mean_what_they_say(
            members in proptest::collection::btree_map("[a-z]{1,4}", value(), 0..4),
            pretty in any::<bool>(),
            pick in any::<usize>(),
            new in value(),
        ) {
            let root = Value::Object(members.into_iter().collect());
            let src = if pretty {
                serde_json::to_string_pretty(&root).unwrap()
            } else {
                serde_json::to_string(&root).unwrap()
            };
            let text = Text::new(src.clone());
            let doc = Document::parse_str(&src, Format::Json, &Limits::default()).unwrap();
            let mut found = Vec::new();
            containers(&root, String::new(), &mut found);
            let (ptr, is_object) = found[pick % found.len()].clone();
            let mut expected = root.clone();
            let edit = if is_object {
                let target = expected.pointer_mut(&ptr).unwrap().as_object_mut().unwrap();
                prop_assume!(!target.contains_key("zz-new"));
                target.insert("zz-new".into(), new.clone());
                insert_member(&text, &doc, &ptr, "zz-new", &new)
            } else {
                expected.pointer_mut(&ptr).unwrap().as_array_mut().unwrap().insert(0, new.clone());
                insert_element(&text, &doc, &ptr, &new)
            };
            let e = edit.expect("an edit for every container");
            let mut out = src.clone();
            out.replace_range(e.start..e.end, &e.text);
            let got: Value = serde_json::from_str(&out).expect("still JSON");
            prop_assert_eq!(&got, &expected, "{}", out);

            // Replacing the container itself.
            let e = replace_value(&text, &doc, &ptr, &new).expect("a replacement");
            let mut out = src;
            out.replace_range(e.start..e.end, &e.text);
            let mut expected = root;
            if ptr.is_empty() {
                expected = new.clone();
            } else {
                *expected.pointer_mut(&ptr).unwrap() = new;
            }
            let got: Value = serde_json::from_str(&out).expect("still JSON");
            prop_assert_eq!(got, expected);
        }
    }
}
