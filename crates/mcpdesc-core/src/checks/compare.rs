//! `compare`: two numbers found from the node stand in a given order.
//!
//! Design: `left` and `right` are relative paths from the node; each side is measured
//! (`value`: the number itself; `length`: characters of a string, items of an array or
//! members of an object; `utf8-bytes`: bytes of a string in UTF-8; `base64-bytes`: decoded
//! bytes of a base64 string) and the two numbers are compared with `op`. The check is silent
//! when a side selects nothing or does not measure to a number (other checks report types and
//! encodings), so it only ever reports a real disagreement, at the left side. With
//! `guard-equal` the comparison happens only when two further values are equal.

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{Kind, ValueRef};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Op {
    /// Left < right.
    Lt,
    /// Left ≤ right.
    Le,
    /// Left = right.
    Eq,
    /// Left ≠ right.
    Ne,
    /// Left ≥ right.
    Ge,
    /// Left > right.
    Gt,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Measure {
    /// The number itself.
    #[default]
    Value,
    /// Characters of a string, items of an array, members of an object.
    Length,
    /// Bytes of a string encoded as UTF-8.
    Utf8Bytes,
    /// Decoded bytes of a base64 string.
    Base64Bytes,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path of the left side, from the node.
    left: String,
    /// Relative path of the right side, from the node.
    right: String,
    /// The relation that must hold between left and right.
    op: Op,
    /// How the left side becomes a number.
    #[serde(default)]
    left_measure: Measure,
    /// How the right side becomes a number.
    #[serde(default)]
    right_measure: Measure,
    /// Two relative paths from the node: compare only when both select equal values (e.g.
    /// only the entry whose `uri` is the requested one).
    #[serde(default)]
    guard_equal: Option<[String; 2]>,
}

#[derive(Debug)]
struct Compare {
    guard: Option<[RelPath; 2]>,
    left: RelPath,
    right: RelPath,
    op: Op,
    left_measure: Measure,
    right_measure: Measure,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "compare",
    summary: "The numbers at `left` and `right` (each optionally measured: length, UTF-8 \
              bytes, decoded base64 bytes) satisfy `op`; silent when a side is absent or not \
              measurable; a finding at the left side.",
    params: &["left", "right"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let guard = match &o.guard_equal {
            Some([a, b]) => Some([relpath("guard-equal", a)?, relpath("guard-equal", b)?]),
            None => None,
        };
        Ok(Box::new(Compare {
            guard,
            left: relpath("left", &o.left)?,
            right: relpath("right", &o.right)?,
            op: o.op,
            left_measure: o.left_measure,
            right_measure: o.right_measure,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

fn measure(v: ValueRef<'_>, m: Measure) -> Option<f64> {
    match (m, v.kind()) {
        (Measure::Value, Kind::Number(n)) => n.as_f64(),
        (Measure::Length, Kind::String(s)) => Some(s.chars().count() as f64),
        (Measure::Length, Kind::Array(a)) => Some(a.len() as f64),
        (Measure::Length, Kind::Object(o)) => Some(o.len() as f64),
        (Measure::Utf8Bytes, Kind::String(s)) => Some(s.len() as f64),
        (Measure::Base64Bytes, Kind::String(s)) => super::base64::decoded_len(s).map(|n| n as f64),
        _ => None,
    }
}

fn show(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

impl Check for Compare {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if let Some([a, b]) = &self.guard {
            let (Some(a), Some(b)) = (
                a.first(cx.root, node.pointer),
                b.first(cx.root, node.pointer),
            ) else {
                return;
            };
            if a.value != b.value {
                return;
            }
        }
        let (Some(l), Some(r)) = (
            self.left.first(cx.root, node.pointer),
            self.right.first(cx.root, node.pointer),
        ) else {
            return;
        };
        let (Some(a), Some(b)) = (
            measure(l.value, self.left_measure),
            measure(r.value, self.right_measure),
        ) else {
            return;
        };
        let holds = match self.op {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Ge => a >= b,
            Op::Gt => a > b,
        };
        if !holds {
            out.push(
                Finding::new(l.pointer)
                    .with("left", show(a))
                    .with("right", show(b)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn orders_and_measures() {
        let doc = json!({"p": {"minLength": 5, "maxLength": 2, "text": "héllo", "size": 5,
                               "blob": "aGVsbG8=", "enum": ["a", "b"], "names": ["A"]}});
        let check = json!({"check": "compare", "left": "minLength", "right": "maxLength",
                           "op": "le"});
        let found = run_on(&check, &doc, "/p");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/p/minLength");
        assert_eq!(found[0].param("left"), Some("5"));
        let bytes = json!({"check": "compare", "left": "text", "left-measure": "utf8-bytes",
                           "right": "size", "op": "eq"});
        assert_eq!(run_on(&bytes, &doc, "/p").len(), 1);
        let blob = json!({"check": "compare", "left": "blob", "left-measure": "base64-bytes",
                          "right": "size", "op": "eq"});
        assert!(run_on(&blob, &doc, "/p").is_empty());
        let len = json!({"check": "compare", "left": "names", "left-measure": "length",
                         "right": "enum", "right-measure": "length", "op": "eq"});
        assert_eq!(run_on(&len, &doc, "/p").len(), 1);
        let absent = json!({"check": "compare", "left": "minimum", "right": "maximum",
                            "op": "le"});
        assert!(run_on(&absent, &doc, "/p").is_empty());
        let guarded = json!({"check": "compare", "left": "text", "left-measure": "utf8-bytes",
                             "right": "size", "op": "eq", "guard-equal": ["minLength", "maxLength"]});
        assert!(run_on(&guarded, &doc, "/p").is_empty());
    }
}
