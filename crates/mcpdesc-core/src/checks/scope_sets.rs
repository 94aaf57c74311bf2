//! `scope-subset`, `scope-coverage`: relations between effective protocol-version scopes
//! (see also `scopes-disjoint`).
//!
//! Design: the evaluator already computes, for every declaration the catalogue lists, its own
//! scope list, its effective scope and the scope it inherits (`eval::scope::ScopeMap`). These
//! checks only compare those sets, so they know nothing about which members declare scopes.
//! `scope-subset` runs on a declaration's own scope list (the declaration is the list's
//! parent) and reports the versions the enclosing scope lacks. `scope-coverage` runs on a
//! collection and reports the versions of the document-wide scope that no item's effective
//! scope contains, at `report-at` (default the collection). Neither depends on the version
//! being evaluated.

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::pointer;
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;
use crate::versions::VersionSet;

fn names(cx: &EvalCtx<'_>, set: VersionSet) -> String {
    cx.versions.names(set).join(", ")
}

/// Where the first hit of `path` from `item` is, else `item` itself.
fn report_pointer(path: &Option<RelPath>, cx: &EvalCtx<'_>, item: &str) -> String {
    path.as_ref()
        .and_then(|p| p.first(cx.root, item))
        .map_or_else(|| item.to_owned(), |h| h.pointer)
}

// ---------------------------------------------------------------------------------------
// scope-subset

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SubsetOptions {}

#[derive(Debug)]
struct ScopeSubset;

pub(super) const SUBSET: CheckSpec = CheckSpec {
    name: "scope-subset",
    summary: "Runs on a declaration's own scope list: every version it names is in the scope \
              the declaration would otherwise inherit (its enclosing declaration's effective \
              scope, else the document-wide scope).",
    params: &["outside", "parent"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        options::<SubsetOptions>(m)?;
        Ok(Box::new(ScopeSubset))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<SubsetOptions>,
};

impl Check for ScopeSubset {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(decl) = pointer::parent(node.pointer) else {
            return;
        };
        let Some(own) = cx.scopes.declared(decl) else {
            return;
        };
        let parent = cx.scopes.enclosing(decl);
        let outside = own.difference(parent);
        if !outside.is_empty() {
            out.push(
                Finding::new(node.pointer)
                    .with("outside", names(cx, outside))
                    .with("parent", names(cx, parent)),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// scope-coverage

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CoverageOptions {
    /// Relative path of the items, from the node (default `@[*]`).
    #[serde(default)]
    items: Option<String>,
    /// Relative path, from the node, of where to report a gap (default: the node).
    #[serde(default)]
    report_at: Option<String>,
}

#[derive(Debug)]
struct ScopeCoverage {
    items: RelPath,
    report_at: Option<RelPath>,
}

pub(super) const COVERAGE: CheckSpec = CheckSpec {
    name: "scope-coverage",
    summary: "The effective scopes of a collection's items together cover every version of the \
              document-wide scope; one finding naming the uncovered versions.",
    params: &["missing"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<CoverageOptions>(m)?;
        Ok(Box::new(ScopeCoverage {
            items: relpath("items", o.items.as_deref().unwrap_or("@[*]"))?,
            report_at: o
                .report_at
                .as_deref()
                .map(|k| relpath("report-at", k))
                .transpose()?,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<CoverageOptions>,
};

impl Check for ScopeCoverage {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let covered = self
            .items
            .select_from(cx.root, node.pointer, node.value)
            .iter()
            .fold(VersionSet::EMPTY, |acc, item| {
                acc.union(cx.scopes.scope_of(&item.pointer))
            });
        let missing = cx.scopes.root().difference(covered);
        if !missing.is_empty() {
            out.push(
                Finding::new(report_pointer(&self.report_at, cx, node.pointer))
                    .with("missing", names(cx, missing)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn subset_reports_versions_outside_parent() {
        let doc = json!({
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "tools": [
                {"name": "a", "protocolVersions": ["2025-11-25", "2026-07-28"]},
                {"name": "b", "protocolVersions": ["2025-06-18"]}
            ]
        });
        let check = json!({"check": "scope-subset"});
        let found = run_on(&check, &doc, "/tools/0/protocolVersions");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/tools/0/protocolVersions");
        assert_eq!(found[0].param("outside"), Some("2026-07-28"));
        assert_eq!(found[0].param("parent"), Some("2025-06-18, 2025-11-25"));
        assert!(run_on(&check, &doc, "/tools/1/protocolVersions").is_empty());
    }

    #[test]
    fn coverage_names_missing_versions() {
        let doc = json!({
            "protocolVersions": ["2025-03-26", "2025-06-18", "2025-11-25"],
            "tools": [
                {"name": "a", "protocolVersions": ["2025-06-18"]},
                {"name": "b", "protocolVersions": ["2025-03-26"]}
            ]
        });
        let check = json!({"check": "scope-coverage", "report-at": "$.protocolVersions"});
        let found = run_on(&check, &doc, "/tools");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/protocolVersions");
        assert_eq!(found[0].param("missing"), Some("2025-11-25"));
        let unscoped = json!({"protocolVersions": ["2025-06-18"], "tools": [{"name": "a"}]});
        assert!(run_on(&check, &unscoped, "/tools").is_empty());
    }
}
