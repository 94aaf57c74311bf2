//! `version-range`: something exists only in some protocol versions.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{EvalCtx, Finding};
use crate::versions::{VersionList, VersionSet};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// First protocol version that defines it.
    #[serde(default)]
    since: Option<String>,
    /// Last protocol version that defines it.
    #[serde(default)]
    until: Option<String>,
}

#[derive(Debug)]
struct VersionRange {
    allowed: VersionSet,
    since: String,
    until: String,
}

fn compile(
    m: &Map<String, serde_json::Value>,
    cx: &CompileCx<'_>,
) -> Result<Box<dyn Check>, OptionError> {
    let o = options::<Options>(m)?;
    if o.since.is_none() && o.until.is_none() {
        return Err(OptionError::at("", "give `since`, `until` or both"));
    }
    let parse = |field: &str, name: &Option<String>, list: &VersionList| {
        name.as_ref()
            .map(|n| {
                list.parse(n).ok_or_else(|| {
                    OptionError::at(
                        format!("/{field}"),
                        crate::rules::suggest::unknown_version(n, list),
                    )
                })
            })
            .transpose()
    };
    let since = parse("since", &o.since, cx.versions)?;
    let until = parse("until", &o.until, cx.versions)?;
    let mut allowed = cx.versions.all();
    if let Some(s) = since {
        allowed = allowed.intersection(cx.versions.since(s));
    }
    if let Some(u) = until {
        allowed = allowed.intersection(cx.versions.until(u));
    }
    let first = cx
        .versions
        .iter()
        .next()
        .map(|(_, n)| n.to_owned())
        .unwrap_or_default();
    let last = cx
        .versions
        .iter()
        .last()
        .map(|(_, n)| n.to_owned())
        .unwrap_or_default();
    Ok(Box::new(VersionRange {
        allowed,
        since: o.since.unwrap_or(first),
        until: o.until.unwrap_or(last),
    }))
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "version-range",
    summary: "The node exists only in protocol versions from `since` to `until` (inclusive); a \
              finding for each version in scope outside that range.",
    params: &["since", "until"],
    compile,
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for VersionRange {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if let Some(v) = cx.version {
            if !self.allowed.contains(v) {
                out.push(
                    Finding::new(node.pointer)
                        .with("since", self.since.clone())
                        .with("until", self.until.clone()),
                );
            }
        }
    }

    fn version_sensitive(&self) -> bool {
        true
    }
}
