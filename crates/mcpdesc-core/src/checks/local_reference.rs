//! `local-reference`: in-document references resolve, point where their use site allows, and
//! never form a cycle.
//!
//! Design: a reference is an object whose `member` (e.g. `$ref`-like key) holds a string of
//! the form `#<JSON Pointer>` starting with `prefix`. References are recognised only at use
//! sites: `sites` maps relative paths (usually `$…` JSONPaths from the root) to the target
//! prefixes allowed there, so a reference-shaped object elsewhere (say inside an embedded
//! schema) is never interpreted. For each site holding a reference whose text starts with
//! `prefix`, the check reports, each only when listed in `report`: `wrong-target` when the
//! text starts with none of the site's allowed prefixes; `missing-target` when the pointer
//! selects nothing in the document; `cycle` when following the chain of references from
//! target to target (each hop must itself hold a reference; the chain stops at the first
//! non-reference) leads back to the site. A chain that reaches a cycle not passing through
//! the site is left to the sites on that cycle; a chain longer than `max-chain` hops is
//! reported as a cycle, so the work per site is bounded whatever the document. Malformed
//! reference texts (not starting with `prefix`) are left to a `pattern` check. The check is
//! meant to run once, on the root.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::ValueRef;
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Problem {
    /// The reference points outside the prefixes its site allows.
    WrongTarget,
    /// The reference points at nothing.
    MissingTarget,
    /// Following references from the site leads back to it (or exceeds `max-chain`).
    Cycle,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Member name that makes an object a reference.
    member: String,
    /// Prefix every reference text starts with (e.g. `#/definitions/`).
    prefix: String,
    /// Use sites (relative paths, usually from the root) and the target prefixes allowed
    /// at each.
    sites: BTreeMap<String, Vec<String>>,
    /// Problems this check reports (default: all).
    #[serde(default)]
    report: Option<Vec<Problem>>,
    /// Longest chain of references followed from one site (default 64).
    #[serde(default)]
    max_chain: Option<usize>,
}

#[derive(Debug)]
struct LocalReference {
    member: String,
    prefix: String,
    sites: Vec<(RelPath, Vec<String>)>,
    report: Vec<Problem>,
    max_chain: usize,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "local-reference",
    summary: "References (objects holding `member`) at the `sites` use sites point at an \
              allowed prefix, resolve in the document, and do not lead back to themselves \
              through chains of references; reports the problems listed in `report`.",
    params: &["ref", "allowed", "chain"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        if !o.prefix.starts_with('#') {
            return Err(OptionError::at(
                "/prefix",
                "a local reference prefix starts with `#`",
            ));
        }
        let sites = o
            .sites
            .into_iter()
            .map(|(path, allowed)| Ok((relpath("sites", &path)?, allowed)))
            .collect::<Result<Vec<_>, OptionError>>()?;
        Ok(Box::new(LocalReference {
            member: o.member,
            prefix: o.prefix,
            sites,
            report: o.report.unwrap_or_else(|| {
                vec![Problem::WrongTarget, Problem::MissingTarget, Problem::Cycle]
            }),
            max_chain: o.max_chain.unwrap_or(64),
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl LocalReference {
    /// The reference text held by `value`, if it is a reference this check follows.
    fn reference<'v>(&self, value: ValueRef<'v>) -> Option<&'v str> {
        value
            .as_object()?
            .get(&self.member)?
            .as_str()
            .filter(|s| s.starts_with(&self.prefix))
    }

    /// Whether following references from `start` (a site whose reference is `text`) comes
    /// back to `start` (`false`), or runs longer than `max_chain` (`true`); the chain of
    /// pointers followed.
    fn cycle(
        &self,
        root: ValueRef<'_>,
        start: &str,
        text: &str,
        max_chain: usize,
    ) -> Option<(Vec<String>, bool)> {
        let mut seen: HashSet<String> = HashSet::from([start.to_owned()]);
        let mut chain = vec![start.to_owned()];
        let mut target = text[1..].to_owned();
        for _ in 0..max_chain {
            if target == start {
                chain.push(target);
                return Some((chain, false));
            }
            if !seen.insert(target.clone()) {
                return None;
            }
            chain.push(target.clone());
            let next = root.pointer(&target).and_then(|v| self.reference(v))?;
            target = next[1..].to_owned();
        }
        Some((chain, true))
    }
}

impl Check for LocalReference {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let wants = |p: Problem| self.report.contains(&p);
        for (path, allowed) in &self.sites {
            for site in path.select_from(cx.root, node.pointer, node.value) {
                let Some(text) = self.reference(site.value) else {
                    continue;
                };
                let finding = || Finding::new(site.pointer.clone()).with("ref", text.to_owned());
                if !allowed.iter().any(|a| text.starts_with(a.as_str())) {
                    if wants(Problem::WrongTarget) {
                        out.push(finding().with("allowed", allowed.join(", ")));
                    }
                    continue;
                }
                if cx.root.pointer(&text[1..]).is_none() {
                    if wants(Problem::MissingTarget) {
                        out.push(finding());
                    }
                    continue;
                }
                if wants(Problem::Cycle) {
                    // The evaluation's `max-reference-chain` bounds every chain; when it is
                    // the tighter bound, a longer chain is a limit met, not a cycle.
                    let engine =
                        usize::try_from(cx.limits.max_reference_chain).unwrap_or(usize::MAX);
                    let max = self.max_chain.min(engine);
                    match self.cycle(cx.root, &site.pointer, text, max) {
                        Some((_, true)) if engine <= self.max_chain => cx.cache.exceeded(
                            "max-reference-chain",
                            cx.limits.max_reference_chain,
                            &site.pointer,
                        ),
                        Some((chain, _)) => out.push(finding().with("chain", chain.join(" → "))),
                        None => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    fn check(report: &str) -> serde_json::Value {
        json!({
            "check": "local-reference",
            "member": "$ref",
            "prefix": "#/defs/",
            "sites": {
                "$.uses[*]": ["#/defs/a/"],
                "$.defs.a.*": ["#/defs/a/"],
                "$.defs.b.*": ["#/defs/b/"]
            },
            "report": [report]
        })
    }

    fn doc() -> serde_json::Value {
        json!({
            "defs": {
                "a": {"x": {"$ref": "#/defs/a/y"}, "y": {"$ref": "#/defs/a/x"}, "z": {}},
                "b": {"w": {"$ref": "#/defs/b/w"}}
            },
            "uses": [
                {"$ref": "#/defs/a/z"},
                {"$ref": "#/defs/a/missing"},
                {"$ref": "#/defs/b/w"},
                {"$ref": "#/defs/a/x"},
                {"$ref": "https://elsewhere"},
                {"$ref": "#/defs/a/z", "nested": {"$ref": "#/defs/nowhere"}}
            ]
        })
    }

    #[test]
    fn wrong_target() {
        let found = run_on(&check("wrong-target"), &doc(), "");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/uses/2");
        assert_eq!(found[0].param("allowed"), Some("#/defs/a/"));
    }

    #[test]
    fn missing_target() {
        let found = run_on(&check("missing-target"), &doc(), "");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/uses/1");
    }

    #[test]
    fn cycles_reported_on_the_cycle_only() {
        let found = run_on(&check("cycle"), &doc(), "");
        let ptrs: Vec<_> = found.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(ptrs, vec!["/defs/a/x", "/defs/a/y", "/defs/b/w"]);
        assert_eq!(
            found[0].param("chain"),
            Some("/defs/a/x → /defs/a/y → /defs/a/x")
        );
    }

    #[test]
    fn long_chains_are_bounded() {
        let mut defs = serde_json::Map::new();
        for i in 0..10 {
            defs.insert(
                format!("n{i}"),
                json!({"$ref": format!("#/defs/a/n{}", i + 1)}),
            );
        }
        defs.insert("n10".into(), json!({}));
        let doc = json!({"defs": {"a": defs}, "uses": [{"$ref": "#/defs/a/n0"}]});
        let mut c = check("cycle");
        c["max-chain"] = json!(4);
        let found = run_on(&c, &doc, "");
        assert!(found.iter().any(|f| f.pointer == "/uses/0"));
        c["max-chain"] = json!(64);
        assert!(run_on(&c, &doc, "").is_empty());
    }
}
