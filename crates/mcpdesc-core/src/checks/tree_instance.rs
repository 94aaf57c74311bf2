//! The document tree as an instance representation of `jsonschema`: validators built by
//! [`super::json_schema::build`] read the nodes in place, so no `serde_json` copy of a message
//! or an example is made to validate it. Only the cold paths (an error's instance, `const`
//! and `enum` against containers, `uniqueItems`) build values.

use std::borrow::Cow;

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use serde_json::Value;

use crate::document::tree::{Elements, Members};
use crate::document::{ArrayRef, Kind, ObjectRef, Tree, ValueRef};

/// The representation: instances are [`ValueRef`]s.
pub struct TreeJson;

/// A compiled JSON Schema that validates document nodes.
pub type TreeValidator = jsonschema::Validator<TreeJson>;

/// The errors of `instance`, none when it is valid: `is_valid` stops at the first failure, so
/// the errors are collected only for an instance that has some.
pub(crate) fn failures<'i>(
    validator: &'i TreeValidator,
    instance: ValueRef<'i>,
) -> impl Iterator<Item = jsonschema::ValidationError<'i>> {
    (!validator.is_valid(instance))
        .then(|| validator.iter_errors(instance))
        .into_iter()
        .flatten()
}

impl Json for TreeJson {
    type Node<'a> = ValueRef<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = Option<Tree<'static>>;

    // Trees are built from JSON text or values: no node is its own descendant.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(
        buffer: &mut Option<Tree<'static>>,
        string: &str,
        f: impl FnOnce(ValueRef<'_>) -> T,
    ) -> T {
        let tree = buffer.insert(Tree::from_value(&Value::String(string.to_owned())));
        f(tree.root())
    }
}

impl<'a> Node<'a, TreeJson> for ValueRef<'a> {
    type Object = ObjectRef<'a>;
    type Array = ArrayRef<'a>;
    type Number = &'a serde_json::Number;

    fn as_object(&self) -> Option<ObjectRef<'a>> {
        ValueRef::as_object(*self)
    }

    fn as_array(&self) -> Option<ArrayRef<'a>> {
        ValueRef::as_array(*self)
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        ValueRef::as_str(*self).map(Cow::Borrowed)
    }

    fn as_number(&self) -> Option<&'a serde_json::Number> {
        ValueRef::as_number(*self)
    }

    fn as_boolean(&self) -> Option<bool> {
        ValueRef::as_bool(*self)
    }

    fn is_null(&self) -> bool {
        ValueRef::is_null(*self)
    }

    fn json_type(&self) -> JsonType {
        match self.kind() {
            Kind::Null => JsonType::Null,
            Kind::Bool(_) => JsonType::Boolean,
            Kind::Number(_) => JsonType::Number,
            Kind::String(_) => JsonType::String,
            Kind::Array(_) => JsonType::Array,
            Kind::Object(_) => JsonType::Object,
        }
    }

    fn equals_value(&self, expected: &Value) -> bool {
        // `const` and `enum` of scalars (a message's `jsonrpc`, its `method`) without a copy.
        match (self.kind(), expected) {
            (Kind::String(s), Value::String(e)) => s == e,
            (Kind::String(_), _) | (_, Value::String(_)) => false,
            (Kind::Bool(b), Value::Bool(e)) => b == *e,
            (Kind::Null, Value::Null) => true,
            (Kind::Number(n), Value::Number(e)) => jsonschema::json::cmp::equal_numbers(&n, e),
            (Kind::Array(_) | Kind::Object(_), Value::Array(_) | Value::Object(_)) => {
                jsonschema::json::cmp::equal(&ValueRef::to_value(*self), expected)
            }
            _ => false,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(ValueRef::to_value(*self))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(self.tree_address(), self.id()))
    }
}

impl<'a> Object<'a, TreeJson> for ObjectRef<'a> {
    type Node = ValueRef<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        ObjectRef::len(*self)
    }

    fn get(&self, key: &Box<str>) -> Option<ValueRef<'a>> {
        ObjectRef::get(*self, key)
    }

    fn members(&self) -> Members<'a> {
        self.iter()
    }
}

impl<'a> Array<'a, TreeJson> for ArrayRef<'a> {
    type Node = ValueRef<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        ArrayRef::len(*self)
    }

    fn elements(&self) -> Elements<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::TreeJson;
    use crate::document::Tree;

    #[test]
    fn the_tree_meets_the_representation_contract() {
        let tree = Tree::from_value(&jsonschema::json::conformance::document());
        jsonschema::json::conformance::assert_conformance::<TreeJson>(&tree.root());
    }

    /// Every error, with its location and message, as `serde_json` values give them.
    fn errors_both_ways(schema: &Value, instance: &Value) -> (Vec<String>, Vec<String>) {
        let tree = Tree::from_value(instance);
        let on_tree = jsonschema::options_for::<TreeJson>()
            .build(schema)
            .expect("the schema compiles");
        let on_value = jsonschema::validator_for(schema).expect("the schema compiles");
        let show = |path: String, message: String| format!("{path}: {message}");
        let from_tree: Vec<String> = on_tree
            .iter_errors(tree.root())
            .map(|e| show(e.instance_path().to_string(), e.to_string()))
            .collect();
        let from_value: Vec<String> = on_value
            .iter_errors(instance)
            .map(|e| show(e.instance_path().to_string(), e.to_string()))
            .collect();
        assert_eq!(on_tree.is_valid(tree.root()), from_tree.is_empty());
        (from_tree, from_value)
    }

    #[test]
    fn validation_reads_the_tree_as_it_reads_values() {
        let schema = json!({
            "type": "object",
            "required": ["jsonrpc", "id", "params"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer"]},
                "kind": {"enum": ["a", 1, null, true, {"x": [1]}]},
                "params": {"$ref": "#/$defs/params"},
                "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "minLength": 2}},
                "ratio": {"type": "number", "multipleOf": 0.5, "maximum": 10}
            },
            "propertyNames": {"pattern": "^[a-z]+$"},
            "additionalProperties": false,
            "$defs": {"params": {"type": "object", "properties": {"cursor": {"type": "string"}},
                                 "additionalProperties": {"type": "integer"}}}
        });
        let instances = [
            json!({"jsonrpc": "2.0", "id": 1, "params": {"cursor": "c", "n": 3},
                   "kind": {"x": [1.0]}, "tags": ["ab", "cd"], "ratio": 2.5}),
            json!({"jsonrpc": "1.0", "id": 1.5, "params": {"cursor": 2, "n": "3"},
                   "kind": "b", "tags": ["ab", "ab", "c"], "ratio": 10.25, "Upper": 1}),
            json!({"id": "x", "params": [], "kind": 1.0, "tags": "no"}),
            json!([1, 2]),
            json!("héllo"),
        ];
        for instance in &instances {
            let (from_tree, from_value) = errors_both_ways(&schema, instance);
            assert_eq!(from_tree, from_value, "{instance}");
        }
        let (errors, _) = errors_both_ways(&schema, &instances[1]);
        assert!(errors.len() >= 6, "{errors:?}");
    }
}
