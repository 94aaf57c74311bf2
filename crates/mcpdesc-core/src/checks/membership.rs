//! `membership`: names found from the node are (or are not) among a set of names.
//!
//! Design: `values` (a relative path from the node, default the node itself) selects the
//! names tested — strings, or each string of a selected array. `in` selects the set: the
//! selected strings, or the keys of the selected objects with `targets: keys`. With
//! `expect: present` (default) each tested name must be in the set, and a missing one is
//! reported at `report` (a relative path from the node; falls back to the node) — this is the
//! converse of `reference`: here the node's collection must contain names defined elsewhere.
//! With `expect: absent` no tested name may be in the set, and each clash is reported at the
//! set member that clashes. Non-string values are ignored.

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind, ValueRef};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Targets {
    /// The selected strings (or strings of selected arrays).
    #[default]
    Values,
    /// The keys of the selected objects.
    Keys,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Expect {
    /// Every tested name is in the set.
    #[default]
    Present,
    /// No tested name is in the set.
    Absent,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path of the names tested, from the node (default `@`).
    #[serde(default)]
    values: Option<String>,
    /// Relative path of the set, from the node.
    #[serde(rename = "in")]
    set: String,
    /// Whether the set is the selected strings or the keys of the selected objects.
    #[serde(default)]
    targets: Targets,
    /// Whether the names must be in the set or must not be.
    #[serde(default)]
    expect: Expect,
    /// Relative path, from the node, where a missing name is reported (`expect: present`).
    #[serde(default)]
    report: Option<String>,
}

#[derive(Debug)]
struct Membership {
    values: RelPath,
    set: RelPath,
    targets: Targets,
    expect: Expect,
    report: Option<RelPath>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "membership",
    summary: "Each name selected by `values` is in (or, with `expect: absent`, is not in) the \
              strings or keys selected by `in`; a missing name is reported at `report`, a \
              clash at the clashing member.",
    params: &["name"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(Membership {
            values: relpath("values", o.values.as_deref().unwrap_or("@"))?,
            set: relpath("in", &o.set)?,
            targets: o.targets,
            expect: o.expect,
            report: o
                .report
                .as_deref()
                .map(|r| relpath("report", r))
                .transpose()?,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

fn strings(v: ValueRef<'_>) -> Vec<&str> {
    match v.kind() {
        Kind::String(s) => vec![s],
        Kind::Array(a) => a.iter().filter_map(ValueRef::as_str).collect(),
        _ => Vec::new(),
    }
}

impl Check for Membership {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        // (name, pointer of the set member that defines it)
        let mut set: Vec<(&str, String)> = Vec::new();
        for hit in self.set.select_from(cx.root, node.pointer, node.value) {
            match (self.targets, hit.value.kind()) {
                (Targets::Keys, Kind::Object(o)) => {
                    set.extend(o.keys().map(|k| (k, pointer::push(&hit.pointer, k))))
                }
                (Targets::Keys, _) => {}
                (Targets::Values, Kind::Array(a)) => {
                    for (i, v) in a.iter().enumerate() {
                        if let Some(s) = v.as_str() {
                            set.push((s, pointer::push(&hit.pointer, &i.to_string())));
                        }
                    }
                }
                (Targets::Values, Kind::String(s)) => set.push((s, hit.pointer.clone())),
                (Targets::Values, _) => {}
            }
        }
        for hit in self.values.select_from(cx.root, node.pointer, node.value) {
            for name in strings(hit.value) {
                let found = set.iter().find(|(n, _)| *n == name);
                match (self.expect, found) {
                    (Expect::Present, None) => {
                        let at = self
                            .report
                            .as_ref()
                            .and_then(|r| r.first(cx.root, node.pointer))
                            .map_or_else(|| node.pointer.to_owned(), |h| h.pointer);
                        out.push(Finding::new(at).with("name", name));
                    }
                    (Expect::Absent, Some((_, ptr))) => {
                        out.push(Finding::new(ptr.clone()).with("name", name))
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn present_and_absent() {
        let doc = json!({"p": {
            "arguments": [{"name": "city", "required": true}, {"name": "unit"}],
            "ex": {"arguments": {"unit": "c"}},
            "ce": {"argument": {"name": "unit"}, "context": {"arguments": {"unit": "c"}}}
        }});
        let required = json!({"check": "membership",
                              "values": "^.arguments[?@.required == true].name",
                              "in": "@.arguments", "targets": "keys", "report": "arguments"});
        let found = run_on(&required, &doc, "/p/ex");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/p/ex/arguments");
        assert_eq!(found[0].param("name"), Some("city"));
        let absent = json!({"check": "membership", "values": "@.argument.name",
                            "in": "@.context.arguments", "targets": "keys", "expect": "absent"});
        let found = run_on(&absent, &doc, "/p/ce");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/p/ce/context/arguments/unit");
    }
}
