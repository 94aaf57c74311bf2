//! Check functions an embedder registers from Rust, used from rule files exactly like the
//! built-in ones.
//!
//! Registrations belong to one [`CheckRegistry`], handed to the loader that compiles the rule
//! files: two engines in one process may register different checks under one name. The
//! built-in checks stay in the static [`super::REGISTRY`], looked up first.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, ValueRef};
use crate::eval::context::{EvalCtx, Finding};

/// A check function written by an embedder.
///
/// ```
/// use mcpdesc_core::{CheckNode, CustomCheck, Findings};
///
/// #[derive(serde::Deserialize)]
/// #[serde(deny_unknown_fields)]
/// struct PrefixOptions {
///     prefix: String,
/// }
///
/// struct NamePrefix;
///
/// impl CustomCheck for NamePrefix {
///     const NAME: &'static str = "name-prefix";
///     const PARAMS: &'static [&'static str] = &["prefix"];
///     type Options = PrefixOptions;
///
///     fn run(&self, options: &PrefixOptions, node: CheckNode<'_>, out: &mut Findings<'_>) {
///         if node.value().as_str().is_some_and(|s| !s.starts_with(&options.prefix)) {
///             out.at_node().with("prefix", &options.prefix);
///         }
///     }
/// }
/// ```
pub trait CustomCheck: Send + Sync + 'static {
    /// The name rules call it by (`check: name-prefix`); lowercase kebab-case.
    const NAME: &'static str;
    /// Message placeholders its findings fill, besides the common ones (`{pointer}`,
    /// `{key}`, `{value}`, `{versions}`).
    const PARAMS: &'static [&'static str] = &[];
    /// Its options, as written beside `check:` in a rule (`at`, `when` and `message` are the
    /// evaluator's and never reach it). Deserialized once, when the rules load; a problem is
    /// reported at its file, line and column.
    type Options: DeserializeOwned + Send + Sync + 'static;

    /// Reports each problem of `node` through `out`.
    fn run(&self, options: &Self::Options, node: CheckNode<'_>, out: &mut Findings<'_>);
}

/// The node a custom check runs on.
#[derive(Clone, Copy)]
pub struct CheckNode<'a> {
    node: Node<'a>,
}

impl<'a> CheckNode<'a> {
    /// Its JSON Pointer in the document (or the traffic model).
    pub fn pointer(&self) -> &'a str {
        self.node.pointer
    }

    /// Its value, read like a `serde_json::Value`.
    pub fn value(&self) -> ValueRef<'a> {
        self.node.value
    }
}

/// Where a custom check puts its findings.
pub struct Findings<'a> {
    node: &'a str,
    out: &'a mut Vec<Finding>,
}

/// One finding, whose message placeholders are filled with [`FindingBuilder::with`].
pub struct FindingBuilder<'a> {
    finding: &'a mut Finding,
}

impl<'a> Findings<'a> {
    /// A finding at the node the check runs on.
    pub fn at_node(&mut self) -> FindingBuilder<'_> {
        let at = self.node.to_owned();
        self.push(at)
    }

    /// A finding at the node's member (or element) `key`.
    pub fn at_member(&mut self, key: &str) -> FindingBuilder<'_> {
        let at = pointer::push(self.node, key);
        self.push(at)
    }

    /// A finding at `pointer`, a JSON Pointer in the same document.
    pub fn at_pointer(&mut self, pointer: &str) -> FindingBuilder<'_> {
        self.push(pointer.to_owned())
    }

    fn push(&mut self, at: String) -> FindingBuilder<'_> {
        self.out.push(Finding::new(at));
        let finding = self.out.last_mut().expect("just pushed");
        FindingBuilder { finding }
    }
}

impl FindingBuilder<'_> {
    /// Fills placeholder `name` (one of the check's [`CustomCheck::PARAMS`]) of the message.
    pub fn with(self, name: &'static str, value: impl Into<String>) -> Self {
        self.finding.params.push((name, value.into()));
        self
    }
}

/// A compiled custom check: the embedder's check and the options of one rule.
struct Compiled<C: CustomCheck> {
    check: Arc<C>,
    options: C::Options,
}

impl<C: CustomCheck> fmt::Debug for Compiled<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "custom check `{}`", C::NAME)
    }
}

impl<C: CustomCheck> Check for Compiled<C> {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let mut findings = Findings {
            node: node.pointer,
            out,
        };
        self.check
            .run(&self.options, CheckNode { node }, &mut findings);
    }
}

type Compile = dyn Fn(&Map<String, Value>) -> Result<Box<dyn Check>, OptionError> + Send + Sync;

/// One registered custom check.
#[derive(Clone)]
struct Entry {
    name: &'static str,
    params: &'static [&'static str],
    compile: Arc<Compile>,
}

/// The custom checks one loader may call, besides the built-in ones.
///
/// ```
/// # use mcpdesc_core::{CheckNode, CustomCheck, Findings};
/// # struct NamePrefix;
/// # impl CustomCheck for NamePrefix {
/// #     const NAME: &'static str = "name-prefix";
/// #     type Options = serde_json::Value;
/// #     fn run(&self, _: &serde_json::Value, _: CheckNode<'_>, _: &mut Findings<'_>) {}
/// # }
/// let checks = mcpdesc_core::CheckRegistry::new().register(NamePrefix);
/// assert!(checks.names().any(|n| n == "name-prefix"));
/// ```
#[derive(Clone, Default)]
pub struct CheckRegistry {
    entries: Vec<Entry>,
}

impl fmt::Debug for CheckRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| e.name))
            .finish()
    }
}

/// A registration the loader refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// The name is that of a built-in check, which a custom one may not replace.
    #[error("`{0}` is the name of a built-in check")]
    BuiltIn(&'static str),
    /// A check of that name is already registered.
    #[error("a check named `{0}` is already registered")]
    Duplicate(&'static str),
    /// The name is not lowercase kebab-case, the form of every check name in rule files.
    #[error("`{0}` is not a lowercase kebab-case check name")]
    BadName(&'static str),
}

impl CheckRegistry {
    /// No custom checks: rules call the built-in ones only.
    pub fn new() -> CheckRegistry {
        CheckRegistry::default()
    }

    /// `check` added under [`CustomCheck::NAME`].
    ///
    /// # Panics
    ///
    /// When the name is taken or malformed, as [`CheckRegistry::try_register`] reports: a
    /// mistake of the embedder's code, not of any input.
    pub fn register<C: CustomCheck>(self, check: C) -> CheckRegistry {
        match self.try_register(check) {
            Ok(r) => r,
            Err(e) => panic!("cannot register check: {e}"),
        }
    }

    /// `check` added under [`CustomCheck::NAME`], unless a built-in or registered check has
    /// that name or it is not lowercase kebab-case.
    pub fn try_register<C: CustomCheck>(
        mut self,
        check: C,
    ) -> Result<CheckRegistry, RegisterError> {
        let name = C::NAME;
        let kebab = !name.is_empty()
            && name.split('-').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            });
        if !kebab {
            return Err(RegisterError::BadName(name));
        }
        if super::builtin(name).is_some() {
            return Err(RegisterError::BuiltIn(name));
        }
        if self.entries.iter().any(|e| e.name == name) {
            return Err(RegisterError::Duplicate(name));
        }
        let check = Arc::new(check);
        let compile = move |map: &Map<String, Value>| -> Result<Box<dyn Check>, OptionError> {
            let options = options::<C::Options>(map)?;
            Ok(Box::new(Compiled {
                check: check.clone(),
                options,
            }))
        };
        self.entries.push(Entry {
            name,
            params: C::PARAMS,
            compile: Arc::new(compile),
        });
        Ok(self)
    }

    /// The names of the registered checks, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().map(|e| e.name)
    }

    /// Whether no check is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The registered check `name`: its message placeholders and how it compiles.
    pub(crate) fn get(&self, name: &str) -> Option<Registered<'_>> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| Registered { entry: e })
    }
}

/// A registered check, found by name.
pub(crate) struct Registered<'a> {
    entry: &'a Entry,
}

impl Registered<'_> {
    pub(crate) fn name(&self) -> &'static str {
        self.entry.name
    }

    pub(crate) fn params(&self) -> &'static [&'static str] {
        self.entry.params
    }

    pub(crate) fn compile(&self, map: &Map<String, Value>) -> Result<Box<dyn Check>, OptionError> {
        (self.entry.compile)(map)
    }
}

/// A check function rules may call: built in, or registered with the loader.
pub(crate) enum Found<'a> {
    BuiltIn(&'static CheckSpec),
    Custom(Registered<'a>),
}

impl Found<'_> {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Found::BuiltIn(s) => s.name,
            Found::Custom(r) => r.name(),
        }
    }

    pub(crate) fn params(&self) -> &'static [&'static str] {
        match self {
            Found::BuiltIn(s) => s.params,
            Found::Custom(r) => r.params(),
        }
    }

    pub(crate) fn compile(
        &self,
        map: &Map<String, Value>,
        cx: &CompileCx<'_>,
    ) -> Result<Box<dyn Check>, OptionError> {
        match self {
            Found::BuiltIn(s) => (s.compile)(map, cx),
            Found::Custom(r) => r.compile(map),
        }
    }
}
