//! JSON values as block-style YAML that reads back, under the JSON-schema scalar
//! resolution descriptions are read with, as the same value.
//!
//! The layout is saphyr's emitter; this module only chooses how each scalar is written,
//! because the emitter targets YAML 1.1 readers and the core schema (`~` for null, dates
//! unquoted), while a description's readers see `~` as a string and date-like versions
//! read better quoted.

use std::borrow::Cow;

use saphyr::{Mapping, Scalar, ScalarStyle, Yaml, YamlEmitter};
use serde_json::Value;

/// `value` as a YAML document, without the `---` marker, ending with a line break.
pub fn to_yaml(value: &Value) -> Result<String, saphyr::EmitError> {
    let node = to_node(value);
    let mut out = String::new();
    let mut emitter = YamlEmitter::new(&mut out);
    emitter.multiline(true);
    emitter.dump(&node)?;
    let body = out.strip_prefix("---\n").unwrap_or(&out);
    let mut text = body.trim_start_matches(' ').to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

fn to_node(value: &Value) -> Yaml<'static> {
    match value {
        Value::Null => plain("null"),
        Value::Bool(b) => Yaml::Value(Scalar::Boolean(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Yaml::Value(Scalar::Integer(i)),
            // Written as JSON writes them, which is also how the JSON schema reads them.
            None => plain(&n.to_string()),
        },
        Value::String(s) if needs_json_quotes(s) => quoted(s),
        Value::String(s) => Yaml::Value(Scalar::String(Cow::Owned(s.clone()))),
        Value::Array(items) => Yaml::Sequence(items.iter().map(to_node).collect()),
        Value::Object(map) => {
            let mut mapping = Mapping::new();
            for (k, v) in map {
                let key = if needs_json_quotes(k) {
                    quoted(k)
                } else {
                    Yaml::Value(Scalar::String(Cow::Owned(k.clone())))
                };
                mapping.insert(key, to_node(v));
            }
            Yaml::Mapping(mapping)
        }
    }
}

/// Strings the emitter would leave plain although a reader could take them for something
/// else: those starting with a digit (dates, versions such as `1.0`) or spelled like a
/// YAML 1.1 null.
fn needs_json_quotes(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
        || matches!(s, "~" | "Null" | "NULL" | "null")
        // Terminal and bidirectional controls are written as escapes, which only a
        // double-quoted scalar has.
        || s.contains(crate::safe::is_unsafe)
}

fn plain(text: &str) -> Yaml<'static> {
    Yaml::Representation(Cow::Owned(text.to_owned()), ScalarStyle::Plain, None)
}

/// A double-quoted scalar: JSON's string escapes are all YAML double-quoted escapes too.
fn quoted(s: &str) -> Yaml<'static> {
    let json = crate::safe::to_json_pretty(s).unwrap_or_default();
    let inner = &json[1..json.len() - 1];
    Yaml::Representation(
        Cow::Owned(inner.to_owned()),
        ScalarStyle::DoubleQuoted,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::{Document, Format, Limits};
    use serde_json::json;

    fn round_trip(value: &Value) -> Value {
        let text = to_yaml(value).unwrap();
        Document::parse_str(&text, Format::Yaml, &Limits::default())
            .unwrap_or_else(|e| panic!("{e}:\n{text}"))
            .to_value()
    }

    #[test]
    fn controls_are_written_as_escapes_and_read_back() {
        let value = json!({"tools": [{"name": "evil\u{202e}txt.exe", "description": "a\u{2028}b\u{9b}31m\u{7}"}],
                           "k\u{202e}": "v"});
        let text = to_yaml(&value).unwrap();
        assert!(
            !text.contains(|c| c != '\n' && crate::safe::is_unsafe(c)),
            "{text:?}"
        );
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn awkward_scalars_read_back_unchanged() {
        let value = json!({
            "dates": ["2025-06-18", "2024-11-05T10:00:00Z"],
            "nulls": [null, "~", "null", "Null", ""],
            "bools": [true, false, "true", "yes", "no", "on", "off"],
            "numbers": [0, -1, 1.5, 1e300, 18446744073709551615u64, "1.0", "0x1f", ".5", "1e3"],
            "punctuation": ["- dash", "a: b", "#hash", "*star", "&amp", "!bang", "%pct",
                            "@at", "`tick", "'single'", "\"double\"", "back\\slash", "{x}",
                            "[y]", "a, b", " leading", "trailing ", "?q", "|pipe", ">gt"],
            "multiline": ["line one\nline two\n", "no final break\nsecond", "\n\nstarts blank",
                          "tab\there", "control \u{1}", "unicode é ✓"],
            "keys": {"2025-06-18": 1, "a: b": 2, "": 3, "~": 4, "$dollar": 5, "_under": 6},
            "empty": {"object": {}, "array": []},
            "nested": [[1, [2, {"a": []}]], {"b": {"c": [{}]}}],
        });
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn dates_are_quoted_and_layout_is_block() {
        let text = to_yaml(&json!({"dates": ["2025-06-18"], "object": {"key": "x"}})).unwrap();
        assert_eq!(text, "dates:\n  - \"2025-06-18\"\nobject:\n  key: x\n");
    }
}
