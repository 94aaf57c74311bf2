//! `known-protocol-version`: a string names one of the catalogue's protocol versions.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{excerpt, EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct Options {}

#[derive(Debug)]
struct KnownProtocolVersion;

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "known-protocol-version",
    summary: "A value is a string naming one of the catalogue's `protocol-versions`.",
    params: &["known"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        options::<Options>(m)?;
        Ok(Box::new(KnownProtocolVersion))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for KnownProtocolVersion {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let known = node
            .value
            .as_str()
            .and_then(|s| cx.versions.parse(s))
            .is_some();
        if !known {
            let names: Vec<_> = cx.versions.iter().map(|(_, n)| n).collect();
            out.push(
                Finding::new(node.pointer)
                    .with("known", names.join(", "))
                    .with("value", excerpt(node.value)),
            );
        }
    }
}
