//! `matches-entry`: a node agrees with the entry of a collection that it names.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{Tree, ValueRef};
use crate::eval::context::{excerpt, EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path, from the node, of the name that selects the entry.
    name: String,
    /// Relative path, from the node, of the candidate entries.
    entries: String,
    /// Relative path, from each entry, of its name.
    key: String,
    /// Values that must agree between the node and the entry it names.
    compare: Vec<Comparison>,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Comparison {
    /// Relative path from the node.
    at: String,
    /// Relative path from the entry.
    with: String,
    /// Value either side has when its path selects nothing.
    #[serde(default)]
    default: Option<Value>,
}

#[derive(Debug)]
struct CompiledComparison {
    at: RelPath,
    with: RelPath,
    /// A tree, so that it compares and prints as the document's values do.
    default: Option<Tree<'static>>,
}

#[derive(Debug)]
struct MatchesEntry {
    name: RelPath,
    entries: RelPath,
    key: RelPath,
    compare: Vec<CompiledComparison>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "matches-entry",
    summary: "Finds the entry among `entries` whose `key` equals the node's `name`, and checks \
              each `compare` pair for JSON equality (absent sides take `default`); silent when \
              no entry has that name (pair it with `reference` for that).",
    params: &["name", "field", "expected", "actual"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let compare = o
            .compare
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Ok(CompiledComparison {
                    at: relpath(&format!("compare/{i}/at"), &c.at)?,
                    with: relpath(&format!("compare/{i}/with"), &c.with)?,
                    default: c.default.as_ref().map(Tree::from_value),
                })
            })
            .collect::<Result<_, OptionError>>()?;
        Ok(Box::new(MatchesEntry {
            name: relpath("name", &o.name)?,
            entries: relpath("entries", &o.entries)?,
            key: relpath("key", &o.key)?,
            compare,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for MatchesEntry {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(name) = self.name.first(cx.root, node.pointer) else {
            return;
        };
        let Some(entry) = self
            .entries
            .select_from(cx.root, node.pointer, node.value)
            .into_iter()
            .find(|e| {
                self.key
                    .first(cx.root, &e.pointer)
                    .is_some_and(|k| k.value == name.value)
            })
        else {
            return;
        };
        for c in &self.compare {
            let mine = c.at.first(cx.root, node.pointer);
            let theirs = c.with.first(cx.root, &entry.pointer);
            let default = c.default.as_ref().map(Tree::root);
            let a = mine.as_ref().map(|h| h.value).or(default);
            let b = theirs.as_ref().map(|h| h.value).or(default);
            if a != b {
                let ptr = mine.map_or_else(|| node.pointer.to_owned(), |h| h.pointer);
                let show =
                    |v: Option<ValueRef<'_>>| v.map_or_else(|| "nothing".to_owned(), excerpt);
                out.push(
                    Finding::new(ptr)
                        .with("name", excerpt(name.value))
                        .with("field", c.at.as_str().trim_start_matches("@."))
                        .with("expected", show(b))
                        .with("actual", show(a)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn compares_with_the_named_entry_and_defaults() {
        let doc = json!({
            "uses": [{"name": "a", "mode": "x"}, {"name": "b"}, {"name": "zz", "mode": "x"}],
            "defs": [{"id": "a", "mode": "y"}, {"id": "b", "strict": true}]
        });
        let check = json!({"check": "matches-entry", "name": "name", "entries": "$.defs[*]",
                           "key": "id", "compare": [{"at": "mode", "with": "mode"}]});
        let found = run_on(&check, &doc, "/uses/0");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/uses/0/mode");
        assert_eq!(found[0].param("name"), Some("a"));
        assert_eq!(found[0].param("field"), Some("mode"));
        assert_eq!(found[0].param("expected"), Some("y"));
        assert_eq!(found[0].param("actual"), Some("x"));
        assert!(run_on(&check, &doc, "/uses/2").is_empty());

        let defaulted = json!({"check": "matches-entry", "name": "name", "entries": "$.defs[*]",
                               "key": "id",
                               "compare": [{"at": "strict", "with": "strict", "default": false}]});
        assert!(run_on(&defaulted, &doc, "/uses/0").is_empty());
        let found = run_on(&defaulted, &doc, "/uses/1");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/uses/1");
        assert_eq!(found[0].param("expected"), Some("true"));
        assert_eq!(found[0].param("actual"), Some("false"));
    }
}
