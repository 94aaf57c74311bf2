//! `required` and `forbidden`: members an object must have, or must not have.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::pointer;
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Member names.
    fields: Vec<String>,
}

#[derive(Debug)]
struct Required(Vec<String>);

#[derive(Debug)]
struct Forbidden(Vec<String>);

pub(super) const REQUIRED: CheckSpec = CheckSpec {
    name: "required",
    summary: "The object has each of `fields`; a finding per missing member, at the object.",
    params: &["field"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        Ok(Box::new(Required(options::<Options>(m)?.fields)))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

pub(super) const FORBIDDEN: CheckSpec = CheckSpec {
    name: "forbidden",
    summary: "The object has none of `fields`; a finding per present member, at that member.",
    params: &["field"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        Ok(Box::new(Forbidden(options::<Options>(m)?.fields)))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Required {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(obj) = node.value.as_object() else {
            return;
        };
        for f in &self.0 {
            if !obj.contains_key(f) {
                out.push(Finding::new(node.pointer).with("field", f.clone()));
            }
        }
    }
}

impl Check for Forbidden {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(obj) = node.value.as_object() else {
            return;
        };
        for f in &self.0 {
            if obj.contains_key(f) {
                out.push(Finding::new(pointer::push(node.pointer, f)).with("field", f.clone()));
            }
        }
    }
}
