//! Compiled `when` conditions.

use regex::Regex;
use serde_json::Value;

use crate::checks::CompileCx;
use crate::document::{Tree, ValueRef};
use crate::relpath::RelPath;
use crate::rules::file::{ConditionDef, JsonType};
use crate::versions::VersionSet;

use super::context::EvalCtx;

/// A compiled condition.
#[derive(Debug, Clone)]
pub enum Condition {
    /// `all`: every condition of the list holds.
    All(Vec<Condition>),
    /// `any`: some condition of the list holds.
    Any(Vec<Condition>),
    /// `not`: the condition does not hold.
    Not(Box<Condition>),
    /// A test on the values of a path.
    Value(Box<ValueTest>),
    /// `version`: the protocol version being evaluated is one of the set.
    Version(VersionSet),
}

/// A test on the values a relative path selects.
#[derive(Debug, Clone)]
pub struct ValueTest {
    /// The values tested, relative to the node the condition is evaluated on (`@` when not given).
    pub path: RelPath,
    /// The value tested when the path selects nothing; a tree, as tests read document nodes.
    pub default: Option<Tree<'static>>,
    /// What the values are tested for; the condition holds when some value passes.
    pub test: Test,
}

/// What a [`ValueTest`] asks of a value.
#[derive(Debug, Clone)]
pub enum Test {
    /// `equals`: the value equals this one.
    Equals(Value),
    /// `in`: the value equals one of these.
    In(Vec<Value>),
    /// `exists`: with `true`, that the path selects something; with `false`, that it selects
    /// nothing.
    Exists(bool),
    /// `type`: the value has one of these JSON types.
    Type(Vec<JsonType>),
    /// `matches`: the value is a string this expression matches.
    Matches(Regex),
}

impl Test {
    fn holds(&self, v: ValueRef<'_>) -> bool {
        match self {
            Test::Equals(e) => v == *e,
            Test::In(list) => list.iter().any(|e| v == *e),
            Test::Exists(want) => *want,
            Test::Type(types) => types.iter().any(|t| t.matches(v)),
            Test::Matches(re) => v.as_str().is_some_and(|s| re.is_match(s)),
        }
    }
}

/// A compile problem at a pointer relative to the condition.
#[derive(Debug, Clone)]
pub struct ConditionError {
    /// Where in the condition the problem is, as a JSON Pointer (empty for the condition itself).
    pub pointer: String,
    /// What is wrong, for the load error.
    pub message: String,
}

impl Condition {
    /// Compiles a condition as a rule file writes it, resolving version names against the
    /// catalogue's.
    pub fn compile(def: &ConditionDef, cx: &CompileCx<'_>) -> Result<Condition, ConditionError> {
        let versions = cx.versions;
        let err = |pointer: &str, message: String| ConditionError {
            pointer: pointer.to_owned(),
            message,
        };
        let list = |items: &[ConditionDef], name: &str| -> Result<Vec<Condition>, ConditionError> {
            items
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    Condition::compile(c, cx).map_err(|e| ConditionError {
                        pointer: format!("/{name}/{i}{}", e.pointer),
                        message: e.message,
                    })
                })
                .collect()
        };
        let tests = [
            def.equals.is_some(),
            def.one_of.is_some(),
            def.exists.is_some(),
            def.type_is.is_some(),
            def.matches.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        let forms = [
            def.all.is_some(),
            def.any.is_some(),
            def.not.is_some(),
            tests > 0,
            def.version.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if forms != 1 || tests > 1 {
            return Err(err(
                "",
                "a condition has exactly one of `all`, `any`, `not`, `version`, or one test \
                 (`equals`, `in`, `exists`, `type`, `matches`) with an optional `path`"
                    .into(),
            ));
        }
        if (def.path.is_some() || def.default.is_some()) && tests == 0 {
            return Err(err("", "`path` and `default` go with a test".into()));
        }
        if let Some(items) = &def.all {
            return Ok(Condition::All(list(items, "all")?));
        }
        if let Some(items) = &def.any {
            return Ok(Condition::Any(list(items, "any")?));
        }
        if let Some(inner) = &def.not {
            return Condition::compile(inner, cx)
                .map(|c| Condition::Not(Box::new(c)))
                .map_err(|e| ConditionError {
                    pointer: format!("/not{}", e.pointer),
                    message: e.message,
                });
        }
        if let Some(v) = &def.version {
            let parse = |name: &str, field: &str| {
                versions.parse(name).ok_or_else(|| {
                    err(
                        &format!("/version/{field}"),
                        crate::rules::suggest::unknown_version(name, versions),
                    )
                })
            };
            let mut set = versions.all();
            if let Some(since) = &v.since {
                set = set.intersection(versions.since(parse(since, "since")?));
            }
            if let Some(before) = &v.before {
                set = set.difference(versions.since(parse(before, "before")?));
            }
            if let Some(names) = &v.one_of {
                let mut listed = VersionSet::EMPTY;
                for (i, n) in names.iter().enumerate() {
                    listed.insert(parse(n, &format!("in/{i}"))?);
                }
                set = set.intersection(versions.listed(listed));
            }
            return Ok(Condition::Version(set));
        }
        let path = RelPath::compile(def.path.as_deref().unwrap_or("@"))
            .map_err(|e| err("/path", e.to_string()))?;
        let test = if let Some(v) = &def.equals {
            Test::Equals(v.clone())
        } else if let Some(v) = &def.one_of {
            Test::In(v.clone())
        } else if let Some(b) = def.exists {
            Test::Exists(b)
        } else if let Some(t) = &def.type_is {
            Test::Type(t.types())
        } else {
            let re = def.matches.as_deref().unwrap_or_default();
            Test::Matches(
                cx.regexes
                    .get(re)
                    .map_err(|e| err("/matches", e.to_string()))?,
            )
        };
        Ok(Condition::Value(Box::new(ValueTest {
            path,
            default: def.default.as_ref().map(Tree::from_value),
            test,
        })))
    }

    /// True when the condition looks at the protocol version being evaluated.
    pub fn uses_version(&self) -> bool {
        match self {
            Condition::All(cs) | Condition::Any(cs) => cs.iter().any(Condition::uses_version),
            Condition::Not(c) => c.uses_version(),
            Condition::Value(_) => false,
            Condition::Version(_) => true,
        }
    }

    /// Evaluates the condition on the node at `pointer`.
    pub fn holds(&self, pointer: &str, cx: &EvalCtx<'_>) -> bool {
        self.eval(pointer, None, cx)
    }

    /// [`Condition::holds`] for the node at `pointer` whose value is `value`.
    pub fn holds_at(&self, pointer: &str, value: ValueRef<'_>, cx: &EvalCtx<'_>) -> bool {
        self.eval(pointer, Some(value), cx)
    }

    fn eval(&self, pointer: &str, value: Option<ValueRef<'_>>, cx: &EvalCtx<'_>) -> bool {
        match self {
            Condition::All(cs) => cs.iter().all(|c| c.eval(pointer, value, cx)),
            Condition::Any(cs) => cs.iter().any(|c| c.eval(pointer, value, cx)),
            Condition::Not(c) => !c.eval(pointer, value, cx),
            Condition::Version(set) => cx.version.is_some_and(|v| set.contains(v)),
            Condition::Value(v) => {
                let ValueTest {
                    path,
                    default,
                    test,
                } = &**v;
                match path.test_values(cx.root, pointer, value, &mut |v| test.holds(v)) {
                    Some(passed) => passed,
                    None => match (default, test) {
                        (Some(d), _) => test.holds(d.root()),
                        (None, Test::Exists(want)) => !want,
                        (None, _) => false,
                    },
                }
            }
        }
    }
}
