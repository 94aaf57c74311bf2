//! `load-error`: turns a document that could not be read into a finding of the rule.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Map;

use super::{options, schema_of, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::LoadErrorKind;
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Load-error codes this rule reports (see the rule-format documentation).
    errors: Vec<String>,
}

#[derive(Debug)]
struct LoadError(Vec<String>);

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "load-error",
    summary: "Reports a document that failed to load with one of the `errors` codes, at the \
              position of the failure; never runs on loaded documents.",
    params: &["detail"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        for (i, code) in o.errors.iter().enumerate() {
            if !LoadErrorKind::CODES.contains(&code.as_str()) {
                return Err(OptionError::at(
                    format!("/errors/{i}"),
                    format!(
                        "unknown load-error code `{code}`; known: {}",
                        LoadErrorKind::CODES.join(", ")
                    ),
                ));
            }
        }
        Ok(Box::new(LoadError(o.errors)))
    },
    schema: schema_of::<Options>,
};

impl Check for LoadError {
    fn run(&self, _: Node<'_>, _: &EvalCtx<'_>, _: &mut Vec<Finding>) {}

    fn on_load_error(&self, error: &LoadErrorKind) -> Option<Finding> {
        self.0
            .iter()
            .any(|c| c == error.code())
            .then(|| Finding::new("").with("detail", error.to_string()))
    }
}
