use serde_json::Value;

use super::{Limits, LoadError, SpanTree};

/// Parses YAML under the restricted profile into a value and its span tree.
pub(super) fn parse(_text: &str, _limits: &Limits) -> Result<(Value, SpanTree), LoadError> {
    todo!()
}
