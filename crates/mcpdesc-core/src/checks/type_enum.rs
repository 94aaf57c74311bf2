//! `type` and `enum`: the JSON type of a value, and a closed set of values.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::Tree;
use crate::eval::context::{excerpt, EvalCtx, Finding};
use crate::rules::file::{JsonType, TypeSpec};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TypeOptions {
    /// Accepted JSON type or types (`integer` also accepts numbers without fraction).
    is: TypeSpec,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct EnumOptions {
    /// Accepted values.
    values: Vec<Value>,
}

#[derive(Debug)]
struct TypeCheck(Vec<JsonType>);

#[derive(Debug)]
struct EnumCheck {
    values: Vec<Value>,
    /// The `expected` parameter, the same for every finding.
    expected: String,
}

pub(super) const TYPE: CheckSpec = CheckSpec {
    name: "type",
    summary: "The value has one of the JSON types in `is`.",
    params: &["expected", "actual"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        Ok(Box::new(TypeCheck(options::<TypeOptions>(m)?.is.types())))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<TypeOptions>,
};

pub(super) const ENUM: CheckSpec = CheckSpec {
    name: "enum",
    summary: "The value equals one of `values`.",
    params: &["expected"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let values = options::<EnumOptions>(m)?.values;
        if values.is_empty() {
            return Err(OptionError::at(
                "/values",
                "`values` lists at least one value",
            ));
        }
        // The list is the same for every finding, so it is written once; `excerpt` reads tree
        // nodes, hence a small tree per option value.
        let expected: Vec<_> = values
            .iter()
            .map(|v| excerpt(Tree::from_value(v).root()))
            .collect();
        Ok(Box::new(EnumCheck {
            expected: expected.join(", "),
            values,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<EnumOptions>,
};

impl Check for TypeCheck {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if !self.0.iter().any(|t| t.matches(node.value)) {
            let expected: Vec<_> = self.0.iter().map(|t| t.as_str()).collect();
            out.push(
                Finding::new(node.pointer)
                    .with("expected", expected.join(" or "))
                    .with("actual", JsonType::of(node.value).as_str()),
            );
        }
    }
}

impl Check for EnumCheck {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if !self.values.iter().any(|v| node.value == *v) {
            out.push(Finding::new(node.pointer).with("expected", self.expected.clone()));
        }
    }
}
