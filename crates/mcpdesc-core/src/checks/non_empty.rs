//! `non-empty`: a present array, object or string has at least one entry.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::Kind;
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct Options {}

#[derive(Debug)]
struct NonEmpty;

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "non-empty",
    summary: "An array, object or string has at least one entry or character.",
    params: &["type"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        options::<Options>(m)?;
        Ok(Box::new(NonEmpty))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for NonEmpty {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let kind = match node.value.kind() {
            Kind::Array(a) if a.is_empty() => "array",
            Kind::Object(o) if o.is_empty() => "object",
            Kind::String("") => "string",
            _ => return,
        };
        out.push(Finding::new(node.pointer).with("type", kind));
    }
}
