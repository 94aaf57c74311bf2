//! The engine behind one flat API, the one the Python and Node packages wrap.
//!
//! A [`Validator`] is built once from [`Options`] (the embedded catalogue or rules
//! directories, the specification release, the protocol versions and rules to cover) and
//! validates any number of [`Input`]s, from any number of threads. Its [`Outcome`]s are plain
//! data with nothing borrowed, ready to be copied into another language's objects.

mod error;
mod input;
mod outcome;

use std::path::PathBuf;

use mcpdesc_core::{Engine, Limits, RuleSet, Selection};

pub use error::{Error, RuleFileProblem};
pub use input::{Input, InputFormat};
pub use outcome::{Finding, LoadFailure, Outcome};

/// How a [`Validator`] is built. The default is the embedded catalogue, every rule, every
/// protocol version, each document judged by the release its `mcpdesc` version names.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rules directories that replace the embedded catalogue (none: the embedded one).
    pub rules: Vec<PathBuf>,
    /// House-rules directories applied on top of whichever release judges a document.
    pub extend_rules: Vec<PathBuf>,
    /// Judge every document by the release serving this specification version.
    pub spec_version: Option<String>,
    /// Evaluate only for these protocol versions (none: every version).
    pub protocol_versions: Vec<String>,
    /// Rule ids or prefixes (`mcp.elicitation.*`) to run; none: all.
    pub select: Vec<String>,
    /// Rule ids or prefixes to skip.
    pub ignore: Vec<String>,
    /// Report warnings as errors (the strict profile).
    pub strict: bool,
    /// Where rule pages live: a template with `{release}`, `{owner}` and `{id}`, or a base
    /// URL under which `{release}/{owner}/{id}.md` is appended. None: each catalogue's own
    /// `docs-url`. Only an absolute URI is a link; a relative one gives no `doc_url`.
    pub docs_base_url: Option<String>,
    /// Bounds on the documents read (none: the engine's defaults).
    pub limits: Option<Limits>,
}

/// A compiled engine and the choices made with it; cheap to share between threads.
#[derive(Debug, Clone)]
pub struct Validator {
    engine: Engine,
    strict: bool,
}

impl Validator {
    /// Compiles the catalogue the options name. Every problem of the rule files is reported
    /// at once, each with its file, line and column.
    pub fn new(options: &Options) -> Result<Validator, Error> {
        let rules = if options.rules.is_empty() {
            RuleSet::embedded()
        } else {
            RuleSet::from_dirs(&options.rules)?
        };
        let rules = rules.with_house_rules(&options.extend_rules)?;
        let engine = Engine::from_rule_set(&rules)?
            .with_spec_version(options.spec_version.as_deref())
            .map_err(|e| Error::UnservedSpecVersion {
                requested: e.requested,
                supported: e.supported,
            })?;
        let selection = Selection::of(
            engine.catalogue(),
            &options.select,
            &options.ignore,
            &options.protocol_versions,
        )?;
        let mut engine = engine
            .with_selection(selection)
            .with_docs_url(options.docs_base_url.as_deref());
        if let Some(limits) = &options.limits {
            engine = engine.with_limits(limits.clone());
        }
        Ok(Validator {
            engine,
            strict: options.strict,
        })
    }

    /// The engine, for what this API does not cover.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Validates one input. Only an input that cannot be reached at all (an unreadable
    /// file, an unknown format name) is an error; a document that cannot be parsed is an
    /// invalid [`Outcome`] with its [`LoadFailure`].
    pub fn validate(&self, input: &Input) -> Result<Outcome, Error> {
        let (report, format, positioned) = input.validate_with(&self.engine)?;
        let catalogue = self.engine.catalogue();
        let promoted =
            |rule: &str| self.strict && !catalogue.rule(rule).is_some_and(|r| r.def.informational);
        Ok(Outcome::new(
            report,
            format,
            input.name(),
            &promoted,
            positioned,
        ))
    }

    /// The release versions this validator serves, oldest first.
    pub fn releases(&self) -> Vec<String> {
        self.engine
            .judging_releases()
            .iter()
            .map(|c| c.release.version.to_string())
            .collect()
    }

    /// The protocol versions of the default release, oldest first.
    pub fn protocol_versions(&self) -> Vec<String> {
        self.engine
            .catalogue()
            .versions
            .iter()
            .map(|(_, n)| n.to_owned())
            .collect()
    }
}
