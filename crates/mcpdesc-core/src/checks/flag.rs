//! `flag`: every node the check runs on is a finding.
//!
//! For rules whose selection already says what is wrong: a traffic entry the framing layer
//! could not read, a request id reused while in flight, a feature that no longer exists in
//! the version evaluated. The selection (`given`, `subject`, `when`, `at`) carries the logic;
//! the message says what to change.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct Options {}

#[derive(Debug)]
struct Flag;

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "flag",
    summary: "Every node the check runs on (the rule's node, or each node `at` selects) is a \
              finding, at that node.",
    params: &[],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        options::<Options>(m)?;
        Ok(Box::new(Flag))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Flag {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        out.push(Finding::new(node.pointer));
    }
}
