//! `load-error`: turns a document that could not be read into a finding of the rule.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{Format, LoadErrorKind};
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Load-error codes this rule reports (see the rule-format documentation).
    errors: Vec<String>,
    /// The formats (`json`, `yaml`, `capture`) of the documents whose errors this rule reports;
    /// every format when absent. Some errors (invalid UTF-8, a duplicate key) can occur in
    /// several formats, each with a rule of its own.
    #[serde(default)]
    formats: Option<Vec<String>>,
}

#[derive(Debug)]
struct LoadError {
    errors: Vec<String>,
    formats: Option<Vec<Format>>,
}

fn format_named(name: &str) -> Option<Format> {
    match name {
        "json" => Some(Format::Json),
        "yaml" => Some(Format::Yaml),
        "capture" => Some(Format::Capture),
        _ => None,
    }
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "load-error",
    summary: "Reports a document of one of the `formats` that failed to load with one of the \
              `errors` codes, at the position of the failure; never runs on loaded documents.",
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
        let formats = o
            .formats
            .map(|names| {
                names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| {
                        format_named(name).ok_or_else(|| {
                            OptionError::at(
                                format!("/formats/{i}"),
                                format!("unknown format `{name}`; known: json, yaml, capture"),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Box::new(LoadError {
            errors: o.errors,
            formats,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for LoadError {
    fn run(&self, _: Node<'_>, _: &EvalCtx<'_>, _: &mut Vec<Finding>) {}

    fn on_load_error(&self, error: &LoadErrorKind, format: Option<Format>) -> Option<Finding> {
        let format_claimed = match (&self.formats, format) {
            (Some(formats), Some(format)) => formats.contains(&format),
            _ => true,
        };
        (format_claimed && self.errors.iter().any(|c| c == error.code()))
            .then(|| Finding::new("").with("detail", error.to_string()))
    }
}
