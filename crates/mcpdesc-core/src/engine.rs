//! The library entry point: an [`Engine`] compiled once from a catalogue and reused for
//! any number of documents, from any number of threads.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::diagnostic::{Diagnostic, Severity};
use crate::doc_urls::DocUrls;
use crate::document::{Document, Format, Limits, LoadError, ValueRef};
use crate::eval::{self, Selection};
use crate::rules::releases::UnservedVersion;
use crate::rules::{Catalogue, CatalogueSet, RuleLoadError, RuleSet};

/// The compiled catalogues of every release plus evaluation settings. Each document is
/// judged by the release its declared specification version chooses, unless
/// [`Engine::with_spec_version`] fixes one.
///
/// ```
/// use mcpdesc_core::{Engine, Format};
///
/// let engine = Engine::embedded().expect("the embedded catalogue compiles");
/// let report = engine.validate_str(
///     r#"{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
///         "protocolVersions": ["2025-11-25"]}"#,
///     Format::Json,
/// );
/// assert!(report.is_valid(), "{:?}", report.diagnostics);
/// ```
#[derive(Debug, Clone)]
pub struct Engine {
    releases: Arc<CatalogueSet>,
    /// The release every document is judged by, when fixed.
    chosen: Option<Arc<Catalogue>>,
    limits: Limits,
    selection: Selection,
    /// The protocol version of traffic messages whose data does not say.
    traffic_version: Option<String>,
    /// Where each finding's rule page lives.
    docs: DocUrls,
}

/// The result of validating one document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// Findings in a stable order (position, pointer, rule id, message).
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the document could not be read at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_error: Option<LoadFailure>,
    /// The version of the release that judged the document (for a document that could not
    /// be read, the release used for its load error).
    pub release: String,
}

/// A document that could not be read, in plain data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LoadFailure {
    /// Stable code of the failure (see [`crate::document::LoadErrorKind::code`]).
    pub code: &'static str,
    /// What went wrong, in one sentence.
    pub message: String,
    /// 1-based line of the failure (0 when it has no position, as for a file too large).
    pub line: u32,
    /// 1-based column of the failure (0 with `line`).
    pub column: u32,
}

impl LoadFailure {
    /// A failure with stable code `code` at 1-based `line` and `column` (both 0 without a
    /// position), for tools that fail to read a document before the engine sees it.
    pub fn new(code: &'static str, message: impl Into<String>, line: u32, column: u32) -> Self {
        LoadFailure {
            code,
            message: message.into(),
            line,
            column,
        }
    }
}

impl Report {
    /// No error diagnostics and the document loaded (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.load_error.is_none() && !self.has(Severity::Error)
    }

    /// Whether any diagnostic has at least `severity`.
    pub fn has(&self, severity: Severity) -> bool {
        self.diagnostics.iter().any(|d| d.severity >= severity)
    }
}

/// Errors of [`Engine::validate_file`] before a document is validated.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
}

/// How an [`Engine`] is made: which rules directories, house rules and custom checks.
///
/// ```no_run
/// # use mcpdesc_core::Engine;
/// let engine = Engine::builder()
///     .house_rules("acme-rules")      // on top of the embedded catalogue
///     .build()?;
/// # Ok::<(), mcpdesc_core::RuleLoadError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct EngineBuilder {
    /// Rules directories replacing the embedded catalogue; none: the embedded one.
    rules: Vec<std::path::PathBuf>,
    house: Vec<std::path::PathBuf>,
    checks: crate::checks::CheckRegistry,
    /// Registrations refused, reported by `build`.
    refused: Vec<String>,
}

impl EngineBuilder {
    /// Loads the releases of `dir` instead of the embedded catalogue (several calls load
    /// several directories together).
    pub fn rules_dir(mut self, dir: impl Into<std::path::PathBuf>) -> EngineBuilder {
        self.rules.push(dir.into());
        self
    }

    /// Applies the house rules of `dir` on top of every release (several calls apply
    /// several sets).
    pub fn house_rules(mut self, dir: impl Into<std::path::PathBuf>) -> EngineBuilder {
        self.house.push(dir.into());
        self
    }

    /// Makes `check` callable from the rule files as `check: <C::NAME>`.
    pub fn check<C: crate::checks::CustomCheck>(mut self, check: C) -> EngineBuilder {
        match std::mem::take(&mut self.checks).try_register(check) {
            Ok(r) => self.checks = r,
            Err(e) => self.refused.push(e.to_string()),
        }
        self
    }

    /// Adds the checks of `registry`, replacing those registered so far.
    pub fn checks(mut self, registry: crate::checks::CheckRegistry) -> EngineBuilder {
        self.checks = registry;
        self
    }

    /// The rule files to compile.
    pub fn rule_set(&self) -> Result<RuleSet, RuleLoadError> {
        if !self.refused.is_empty() {
            let problems = self
                .refused
                .iter()
                .map(|m| crate::rules::RuleProblem {
                    file: String::new(),
                    line: 0,
                    column: 0,
                    message: format!("cannot register check: {m}"),
                })
                .collect();
            return Err(RuleLoadError { problems });
        }
        let set = if self.rules.is_empty() {
            RuleSet::embedded()
        } else {
            RuleSet::from_dirs(&self.rules)?
        };
        set.with_checks(self.checks.clone())
            .with_house_rules(&self.house)
    }

    /// Compiles the engine; every problem of every rule file is reported at once.
    pub fn build(&self) -> Result<Engine, RuleLoadError> {
        Engine::from_rule_set(&self.rule_set()?)
    }
}

impl Engine {
    /// An engine made step by step: rules directories, house rules, custom checks.
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// The embedded catalogue with the house rules of `dirs` on top of every release.
    pub fn embedded_with(dirs: &[std::path::PathBuf]) -> Result<Engine, RuleLoadError> {
        Engine::from_rule_set(&RuleSet::embedded().with_house_rules(dirs)?)
    }

    /// Every release embedded in the library.
    pub fn embedded() -> Result<Engine, RuleLoadError> {
        Engine::from_rule_set(&RuleSet::embedded())
    }

    /// The releases in a rules directory.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Engine, RuleLoadError> {
        Engine::from_rule_set(&RuleSet::from_dir(dir.as_ref())?)
    }

    /// The releases of several rules directories (see [`RuleSet::from_dirs`]).
    pub fn from_dirs(dirs: &[std::path::PathBuf]) -> Result<Engine, RuleLoadError> {
        Engine::from_rule_set(&RuleSet::from_dirs(dirs)?)
    }

    /// The releases of a [`RuleSet`] (the embedded or loaded rule files, with any house rules
    /// and registered checks), compiled.
    pub fn from_rule_set(set: &RuleSet) -> Result<Engine, RuleLoadError> {
        Ok(Engine::from_releases(set.compile()?))
    }

    /// An engine of one catalogue.
    #[doc(hidden)]
    pub fn new(catalogue: Catalogue) -> Engine {
        Engine::from_releases(CatalogueSet::new(vec![catalogue]))
    }

    #[doc(hidden)]
    pub fn from_releases(releases: CatalogueSet) -> Engine {
        Engine {
            releases: Arc::new(releases),
            chosen: None,
            limits: Limits::default(),
            selection: Selection::default(),
            traffic_version: None,
            docs: DocUrls::default(),
        }
    }

    /// Judges every document by the release that serves specification version `version`
    /// (whatever the document declares), or by the document's choice again with `None`.
    ///
    /// A document that declares another version the engine serves is then not reported
    /// for it; one that declares a version no release serves still is.
    pub fn with_spec_version(mut self, version: Option<&str>) -> Result<Engine, UnservedVersion> {
        self.chosen = match version {
            Some(v) => Some(self.releases.for_spec_version(v)?.clone()),
            None => None,
        };
        self.selection.release_fixed = self.chosen.is_some();
        Ok(self)
    }

    /// The releases that may judge a document: the fixed one, else every release.
    pub fn judging_releases(&self) -> &[Arc<Catalogue>] {
        match &self.chosen {
            Some(c) => std::slice::from_ref(c),
            None => self.releases.releases(),
        }
    }

    /// Every release this engine serves.
    #[doc(hidden)]
    pub fn releases(&self) -> &CatalogueSet {
        &self.releases
    }

    /// The release that judges a document with this root value.
    pub fn catalogue_for(&self, root: ValueRef<'_>) -> &Catalogue {
        match &self.chosen {
            Some(c) => c,
            None => self.releases.for_document(root),
        }
    }

    /// Sets the protocol version assumed for traffic messages whose capture does not date
    /// them (no handshake before them and no version of their own).
    pub fn with_traffic_version(mut self, version: Option<String>) -> Engine {
        self.traffic_version = version;
        self
    }

    /// Sets where rule pages live for every release, instead of each catalogue's `docs-url`:
    /// a template when it contains `{id}` (`{release}`, `{owner}`, `{id}` and `{name}` are
    /// replaced), else a base URL under which `{release}/{owner}/{id}.md` is appended. Each
    /// finding's [`Diagnostic::url`] is then its rule's page, when that is an absolute URI.
    pub fn with_docs_url(mut self, base: Option<&str>) -> Engine {
        self.docs = DocUrls::new(base);
        self
    }

    /// Sets the limits for reading and evaluating documents (see [`Limits`] for each bound
    /// and its default). `max_depth` is capped at [`Limits::DEPTH_CEILING`].
    pub fn with_limits(mut self, limits: Limits) -> Engine {
        self.limits = {
            let mut limits = limits;
            limits.max_depth = limits.max_depth.min(Limits::DEPTH_CEILING);
            limits
        };
        self
    }

    /// Restricts the rules that run and the protocol versions they are judged for (see
    /// [`Selection::of`]).
    pub fn with_selection(mut self, selection: Selection) -> Engine {
        self.selection = Selection {
            release_fixed: self.chosen.is_some(),
            ..selection
        };
        self
    }

    /// The release fixed by [`Engine::with_spec_version`], else the default release (the
    /// newest that is not a pre-release).
    pub fn catalogue(&self) -> &Catalogue {
        match &self.chosen {
            Some(c) => c,
            None => self.releases.default_release(),
        }
    }

    /// The limits documents are read and evaluated with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Validates raw bytes in `format`.
    pub fn validate_bytes(&self, bytes: &[u8], format: Format) -> Report {
        self.report(Document::parse(bytes, format, &self.limits), format)
    }

    /// Validates text in `format`.
    pub fn validate_str(&self, text: &str, format: Format) -> Report {
        self.report(Document::parse_str(text, format, &self.limits), format)
    }

    /// Reads and validates a file; its format follows its extension.
    pub fn validate_file(&self, path: impl AsRef<Path>) -> Result<Report, FileError> {
        let path = path.as_ref();
        let bytes =
            read_bounded(path, self.limits.max_input_bytes).map_err(|source| FileError::Io {
                path: path.display().to_string(),
                source,
            })?;
        let format = Format::from_path(&path.to_string_lossy());
        Ok(self.validate_bytes(&bytes, format))
    }

    /// Validates an already-decoded value (diagnostics carry no source positions).
    pub fn validate_value(&self, value: &Value) -> Report {
        self.validate_document(&Document::from_value(value))
    }

    /// Validates a loaded document. A traffic capture ([`Format::Capture`]) is annotated
    /// first, each message given what only the sequence tells (its kind, method, direction
    /// and protocol version): a copy of its tree is, as the document is borrowed;
    /// [`Engine::validate_bytes`] and the other readers annotate the tree they read.
    pub fn validate_document(&self, doc: &Document<'_>) -> Report {
        if doc.format() == Format::Capture && !self.is_annotated(doc) {
            let mut annotated = doc.clone();
            self.annotate(&mut annotated);
            return self.validate_annotated(&annotated);
        }
        self.validate_annotated(doc)
    }

    fn validate_annotated(&self, doc: &Document<'_>) -> Report {
        let cat = self.catalogue_for(doc.root());
        Report {
            diagnostics: self.linked(cat, eval::evaluate(cat, doc, &self.selection, &self.limits)),
            load_error: None,
            release: cat.release.version.to_string(),
        }
    }

    fn is_annotated(&self, doc: &Document<'_>) -> bool {
        doc.root()
            .pointer("/messages/0")
            .is_none_or(|e| e.get(crate::traffic::SCOPE_MEMBER).is_some())
    }

    /// `diagnostics` with their rule pages in release `cat`.
    fn linked(&self, cat: &Catalogue, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        for d in &mut diagnostics {
            d.url = self.docs.url(cat, &d.rule);
        }
        diagnostics
    }

    /// Annotates a capture in place.
    fn annotate(&self, doc: &mut Document<'_>) {
        let cat = match &self.chosen {
            Some(c) => c,
            None => self.releases.for_document(doc.root()),
        };
        let traffic = &cat.traffic;
        crate::traffic::annotate(doc, traffic, self.traffic_version.as_deref());
    }

    fn report(&self, loaded: Result<Document<'_>, LoadError>, format: Format) -> Report {
        match loaded {
            Ok(mut doc) => {
                if doc.format() == Format::Capture {
                    self.annotate(&mut doc);
                }
                self.validate_annotated(&doc)
            }
            Err(e) => Report {
                diagnostics: self.linked(
                    self.catalogue(),
                    eval::load_error_diagnostics(self.catalogue(), &e, format, &self.selection),
                ),
                load_error: Some(LoadFailure {
                    code: e.kind.code(),
                    message: e.kind.to_string(),
                    line: e.position.line,
                    column: e.position.column,
                }),
                release: self.catalogue().release.version.to_string(),
            },
        }
    }
}

use crate::document::read_bounded;
