//! From parsed rule files to a compiled [`Catalogue`]: every path, regex, schema and template
//! is compiled here, and every problem is reported with its source position.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use regex::Regex;
use serde_json::{Map, Value};

use crate::checks::{self, CompileCaches, CompileCx};
use crate::eval::condition::Condition;
use crate::eval::scope::ScopeConfig;
use crate::eval::substitute::ReferenceConfig;
use crate::eval::template::{Template, COMMON_PARAMS};
use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::versions::{VersionList, VersionSet};

use super::file::{Applicability, ApplicabilityDef, CatalogueDef, RuleDef};
use super::load::{ParsedFile, Problems};
use super::releases::{Ancestor, Release, RuleHistory, SpecVersionReq};
use super::surfaces::{self, SurfaceMap};
use super::{Catalogue, CompiledCheck, Rule, RuleSource};
use crate::traffic::{DocumentKind, TrafficConfig};

/// Top-level keys of the files of a release that extends another: those of a whole
/// catalogue, then the changes only such a release may make.
pub(super) const EXTENSION_KEYS: &[&str] = &[
    "catalogue",
    "surfaces",
    "rules",
    "replace",
    "retire",
    "applicability",
    "amend",
];
const TOP_LEVEL: &[&str] = EXTENSION_KEYS.split_at(3).0;
const CHANGES: &[&str] = EXTENSION_KEYS.split_at(3).1;

/// Reports top-level keys outside `allowed` (and change keys in a whole catalogue).
pub(super) fn check_top_level(files: &[ParsedFile], allowed: &[&str], problems: &mut Problems) {
    for f in files {
        match f.value("") {
            Some(Value::Object(map)) => {
                for k in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
                    let message = if CHANGES.contains(&k.as_str()) {
                        format!(
                            "`{k}` changes a rule of the release this one extends, and this release extends none (`catalogue.extends`)"
                        )
                    } else {
                        match super::suggest::closest(k, allowed.iter().copied()) {
                            Some(c) => format!("unknown top-level key `{k}`; did you mean `{c}`?"),
                            None => format!(
                                "unknown top-level key `{k}`, expected one of {}",
                                allowed
                                    .iter()
                                    .map(|a| format!("`{a}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        }
                    };
                    problems.push(f, &format!("/{k}"), message);
                }
            }
            _ => problems.push_value(
                f,
                "",
                "a rule file is a mapping with `catalogue`, `surfaces` and/or `rules`",
            ),
        }
    }
}

/// The release identity of a whole catalogue: `release`, else its first exact
/// `spec-versions` entry.
fn release_version(def: &CatalogueDef) -> Result<(semver::Version, &'static str), String> {
    if let Some(r) = &def.release {
        return semver::Version::parse(r)
            .map(|v| (v, "/catalogue/release"))
            .map_err(|e| format!("release `{r}` is not a semantic version: {e}"));
    }
    def.spec_versions
        .first()
        .and_then(|t| semver::Version::parse(t).ok())
        .map(|v| (v, "/catalogue/spec-versions/0"))
        .ok_or_else(|| {
            "name the release (`release`) when the first of `spec-versions` is not an exact version"
                .to_owned()
        })
}

pub(super) fn compile(
    files: &[ParsedFile],
    others: HashMap<String, super::Text>,
    dir: Option<PathBuf>,
    fixtures_base: Option<&PathBuf>,
    custom: &checks::CheckRegistry,
    problems: &mut Problems,
) -> Option<Catalogue> {
    check_top_level(files, TOP_LEVEL, problems);
    let catalogue_files: Vec<&ParsedFile> = files
        .iter()
        .filter(|f| f.value("/catalogue").is_some())
        .collect();
    let Some((cat_file, rest)) = catalogue_files.split_first() else {
        problems.push_at("", 0, 0, "no rule file defines the `catalogue`");
        return None;
    };
    for f in rest {
        problems.push(
            f,
            "/catalogue",
            format!("a second `catalogue`; the first is in {}", cat_file.path),
        );
    }
    let (def, versions, serves, scope, references, paths) = compile_catalogue(cat_file, problems)?;
    if let Some(pages) = &def.pages {
        super::file_pages::check(pages, &others, cat_file, problems);
    }
    let version = match release_version(&def) {
        Ok((v, _)) => v,
        Err(message) => {
            problems.push(cat_file, "/catalogue", message);
            return None;
        }
    };
    let mut traffic = match def.traffic.as_ref().map(TrafficConfig::compile) {
        None => TrafficConfig::default(),
        Some(Ok(t)) => t,
        Some(Err((at, message))) => {
            problems.push_value(cat_file, &format!("/catalogue/traffic{at}"), message);
            TrafficConfig::default()
        }
    };
    traffic.known = versions.iter().map(|(_, name)| name.to_owned()).collect();
    let surfaces =
        JsonPath::with_compile_memo(|| surfaces::collect(files, SurfaceMap::default(), problems));
    let mut table = PathTable {
        paths,
        ..PathTable::default()
    };
    // Rules compile independently, so the files are spread over the cores; merging in file
    // order keeps duplicate detection and path numbering deterministic.
    let caches = std::sync::Arc::new(CompileCaches::default());
    let (owners, owner_pages) = declared_owners(&[], &def.owners, cat_file, "/catalogue", problems);
    let cx = CompileCx {
        versions: &versions,
        files: &others,
        regexes: &caches.regexes,
        parsed: &caches.parsed,
        custom,
        owners: &owners,
    };
    // Paths are compiled once per text (see `with_compile_memo`).
    let outcomes = super::load::in_parallel(files, |f| {
        JsonPath::with_compile_memo(|| compile_rules(f, "/rules", "", &versions, &cx, &surfaces))
    });
    let mut rules = Vec::new();
    let mut seen: HashMap<String, RuleSource> = HashMap::new();
    for outcome in outcomes {
        let Some((id, source)) = outcome.identity else {
            problems.0.extend(outcome.problems.0);
            continue;
        };
        if let Some(first) = seen.get(&id) {
            problems.push_value(
                outcome.file,
                &format!("{}/id", outcome.ptr),
                format!(
                    "duplicate rule id `{id}`; first defined at {}:{}:{}",
                    first.file, first.line, first.column
                ),
            );
            continue;
        }
        seen.insert(id, source);
        problems.0.extend(outcome.problems.0);
        if let Some(mut rule) = outcome.rule {
            table.intern(&mut rule, outcome.given);
            rule.history = RuleHistory::added_in(&version);
            rules.push(std::sync::Arc::new(rule));
        }
    }
    let fixtures = def
        .fixtures
        .as_deref()
        .map(|rel| super::resolve_fixtures(fixtures_base.or(dir.as_ref()), rel));
    let release = Release {
        version: version.clone(),
        serves,
        extends: None,
        summary: def.summary.clone(),
        lineage: vec![Ancestor {
            version,
            dir: dir.clone().or(fixtures_base.cloned()),
            fixtures,
        }],
        set_serves: Vec::new(),
    };
    Some(Catalogue {
        def,
        versions,
        release,
        scope,
        references,
        paths: table.paths,
        path_kinds: table.kinds,
        surfaces,
        traffic,
        traffic_scope: crate::traffic::scope_config(),
        rules,
        retired: Vec::new(),
        dir,
        catalogue_file: cat_file.path.clone(),
        files: std::sync::Arc::new(others),
        caches,
        owners,
        owner_pages,
        house: Vec::new(),
    })
}

/// The owners of a rule set: `inherited` (the built-in ones when empty) and those `decls`
/// (at `at`/owners of `f`) declare, with the page template of each that names one.
pub(super) fn declared_owners(
    inherited: &[super::file::Owner],
    decls: &[super::file::OwnerDecl],
    f: &ParsedFile,
    at: &str,
    problems: &mut Problems,
) -> (Vec<super::file::Owner>, BTreeMap<String, String>) {
    let mut owners: Vec<super::file::Owner> = if inherited.is_empty() {
        vec![super::file::Owner::mcp(), super::file::Owner::mcpdesc()]
    } else {
        inherited.to_vec()
    };
    let mut pages = BTreeMap::new();
    for (i, d) in decls.iter().enumerate() {
        let owner = d.owner();
        if owners.contains(owner) {
            let message = if owner.is_built_in() {
                format!("`{owner}` is a built-in owner; it needs no declaration")
            } else {
                format!("owner `{owner}` is declared twice")
            };
            problems.push_value(f, &format!("{at}/owners/{i}"), message);
            continue;
        }
        owners.push(owner.clone());
        if let Some(url) = d.docs_url() {
            pages.insert(owner.as_str().to_owned(), url.to_owned());
        }
    }
    (owners, pages)
}

/// The distinct paths of a catalogue, numbered in the order rules first read them.
#[derive(Default)]
pub(super) struct PathTable {
    pub paths: Vec<JsonPath>,
    pub kinds: Vec<DocumentKind>,
    numbers: HashMap<(DocumentKind, String), usize>,
}

impl PathTable {
    /// The paths of `cat`, with their numbers, for a release extending it: its rules keep
    /// them, and new paths follow.
    pub(super) fn of(cat: &Catalogue) -> PathTable {
        let mut numbers = HashMap::new();
        for r in cat.rules.iter().chain(cat.retired.iter().map(|r| &r.rule)) {
            for ((kind, text), &gid) in r.reads.iter().zip(&r.given) {
                numbers.insert((*kind, text.clone()), gid);
            }
        }
        PathTable {
            paths: cat.paths.clone(),
            kinds: cat.path_kinds.clone(),
            numbers,
        }
    }

    /// Numbers the paths `rule` reads, sharing each distinct (kind, text) with earlier rules.
    pub(super) fn intern(&mut self, rule: &mut Rule, given: Vec<(DocumentKind, String, JsonPath)>) {
        rule.reads = given
            .iter()
            .map(|(kind, text, _)| (*kind, text.clone()))
            .collect();
        rule.given = given
            .into_iter()
            .map(|(kind, text, path)| {
                *self.numbers.entry((kind, text)).or_insert_with(|| {
                    self.paths.push(path);
                    self.kinds.push(kind);
                    self.paths.len() - 1
                })
            })
            .collect();
    }
}

/// One rule item of a rule file after compilation, before it joins the catalogue.
pub(super) struct RuleOutcome<'f> {
    pub file: &'f ParsedFile,
    /// Pointer of the rule definition in its file.
    pub ptr: String,
    /// The rule's id and where it is defined; `None` when the item did not deserialize.
    pub identity: Option<(String, RuleSource)>,
    pub rule: Option<Rule>,
    /// The rule's paths by document kind and text, to be numbered when the catalogue is
    /// assembled.
    pub given: Vec<(DocumentKind, String, JsonPath)>,
    pub problems: Problems,
}

/// Compiles every rule of the list at `list` in `f`; each item's rule is at `item` below it
/// (`""` for a list of rules, `/rule` for a list of replacements).
pub(super) fn compile_rules<'f>(
    f: &'f ParsedFile,
    list: &str,
    item: &str,
    versions: &VersionList,
    cx: &CompileCx<'_>,
    surfaces: &SurfaceMap,
) -> Vec<RuleOutcome<'f>> {
    let outcome = |ptr: String, problems: Problems| RuleOutcome {
        file: f,
        ptr,
        identity: None,
        rule: None,
        given: Vec::new(),
        problems,
    };
    let Some(value) = f.value(list) else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        let mut problems = Problems::default();
        let name = &list[1..];
        problems.push_value(f, list, format!("`{name}` is a list"));
        return vec![outcome(list.to_owned(), problems)];
    };
    (0..items.len())
        .map(|i| {
            let ptr = format!("{list}/{i}{item}");
            if f.value(&ptr).is_none() {
                let mut problems = Problems::default();
                problems.push_value(
                    f,
                    &format!("{list}/{i}"),
                    format!("missing `{}`", &item[1..]),
                );
                return outcome(ptr, problems);
            }
            let mut problems = Problems::default();
            let Some(def) = f.deserialize::<RuleDef>(&ptr, &mut problems) else {
                return outcome(ptr, problems);
            };
            let pos = f.doc.position(&ptr);
            let source = RuleSource {
                file: f.path.clone(),
                line: pos.line,
                column: pos.column,
            };
            let id = def.id.clone();
            let mut rc = RuleCompiler {
                file: f,
                ptr: &ptr,
                problems: &mut problems,
                versions,
                cx,
                surfaces,
            };
            let mut given = Vec::new();
            let rule = rc.rule(def, source.clone(), &mut given);
            RuleOutcome {
                identity: Some((id, source)),
                rule,
                given,
                ..outcome(ptr.clone(), problems)
            }
        })
        .collect()
}

/// A rule compiled again from its definition (for a release that adds protocol versions or
/// amends it), its problems reported at `ptr` of `file`.
pub(super) fn recompile<'f>(
    def: RuleDef,
    source: RuleSource,
    file: &'f ParsedFile,
    ptr: &str,
    versions: &VersionList,
    cx: &CompileCx<'_>,
    surfaces: &SurfaceMap,
) -> RuleOutcome<'f> {
    let mut problems = Problems::default();
    let id = def.id.clone();
    let mut given = Vec::new();
    let rule = RuleCompiler {
        file,
        ptr,
        problems: &mut problems,
        versions,
        cx,
        surfaces,
    }
    .rule(def, source.clone(), &mut given);
    RuleOutcome {
        file,
        ptr: ptr.to_owned(),
        identity: Some((id, source)),
        rule,
        given,
        problems,
    }
}

/// The entries of `spec-versions` (at `at`/spec-versions), each a version or a range.
pub(super) fn spec_version_reqs(
    texts: &[String],
    f: &ParsedFile,
    at: &str,
    problems: &mut Problems,
) -> Vec<SpecVersionReq> {
    let mut out = Vec::new();
    for (i, v) in texts.iter().enumerate() {
        match SpecVersionReq::parse(v) {
            Ok(r) => out.push(r),
            Err(e) => problems.push_value(f, &format!("{at}/spec-versions/{i}"), e),
        }
    }
    out
}

type CompiledCatalogue = (
    CatalogueDef,
    VersionList,
    Vec<SpecVersionReq>,
    ScopeConfig,
    Option<ReferenceConfig>,
    Vec<JsonPath>,
);

fn compile_catalogue(f: &ParsedFile, problems: &mut Problems) -> Option<CompiledCatalogue> {
    let def = f.deserialize::<CatalogueDef>("/catalogue", problems)?;
    let Some(versions) = VersionList::new(def.protocol_versions.clone()) else {
        problems.push(
            f,
            "/catalogue/protocol-versions",
            format!(
                "`protocol-versions` lists 1 to {} distinct versions",
                crate::versions::MAX_VERSIONS
            ),
        );
        return None;
    };
    for (i, v) in def.legacy_protocol_versions.iter().enumerate() {
        if versions.parse(v).is_none() {
            problems.push_value(
                f,
                &format!("/catalogue/legacy-protocol-versions/{i}"),
                super::suggest::unknown_version(v, &versions),
            );
        }
    }
    let spec_versions = spec_version_reqs(&def.spec_versions, f, "/catalogue", problems);
    let path = |p: &str, ptr: &str, problems: &mut Problems| {
        JsonPath::compile(p)
            .map_err(|e| problems.push_value(f, ptr, e.to_string()))
            .ok()
    };
    let root = path(&def.scope.root, "/catalogue/scope/root", problems);
    let declarations: Vec<JsonPath> = def
        .scope
        .declarations
        .iter()
        .enumerate()
        .filter_map(|(i, p)| path(p, &format!("/catalogue/scope/declarations/{i}"), problems))
        .collect();
    let references = def.references.as_ref().map(|r| {
        if !r.prefix.starts_with('#') {
            problems.push_value(
                f,
                "/catalogue/references/prefix",
                "a reference prefix is a local pointer fragment starting with `#`",
            );
        }
        let sites = r
            .sites
            .iter()
            .filter_map(|(p, allowed)| {
                let ptr = format!(
                    "/catalogue/references/sites/{}",
                    crate::document::pointer::escape(p)
                );
                path(p, &ptr, problems).map(|jp| (jp, allowed.clone()))
            })
            .collect();
        ReferenceConfig {
            member: r.member.clone(),
            prefix: r.prefix.clone(),
            sites,
            max_chain: r.max_chain.unwrap_or(64),
        }
    });
    let scope = ScopeConfig {
        root: root?,
        member: def.scope.member.clone(),
        declarations,
    };
    Some((def, versions, spec_versions, scope, references, Vec::new()))
}

struct RuleCompiler<'a> {
    file: &'a ParsedFile,
    ptr: &'a str,
    problems: &'a mut Problems,
    versions: &'a VersionList,
    cx: &'a CompileCx<'a>,
    surfaces: &'a SurfaceMap,
}

/// Compiled once per process: building it for every rule cost more than the rule.
fn id_pattern() -> &'static Regex {
    static ID: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r"^[a-z][a-z0-9]*(\.[a-z0-9]+(-[a-z0-9]+)*)+$").expect("valid")
    });
    &ID
}

impl RuleCompiler<'_> {
    fn problem(&mut self, rel: &str, message: impl Into<String>) {
        let ptr = format!("{}{rel}", self.ptr);
        self.problems.push_value(self.file, &ptr, message);
    }

    fn rule(
        &mut self,
        mut def: RuleDef,
        source: RuleSource,
        given_paths: &mut Vec<(DocumentKind, String, JsonPath)>,
    ) -> Option<Rule> {
        let before = self.problems.0.len();
        if !id_pattern().is_match(&def.id) {
            self.problem(
                "/id",
                format!("rule id `{}` is not dotted lowercase kebab-case", def.id),
            );
        }
        if !def.id.starts_with(&format!("{}.", def.owner.as_str())) {
            self.problem(
                "/id",
                format!(
                    "rule id `{}` does not start with its owner `{}.`",
                    def.id,
                    def.owner.as_str()
                ),
            );
        } else if !self.cx.owners.contains(&def.owner) {
            let at = if self.file.value(&format!("{}/owner", self.ptr)).is_some() {
                "/owner"
            } else {
                "/id"
            };
            self.problem(at, undeclared_owner(&def.owner, self.cx.owners));
        }
        for field in [
            ("title", &def.title),
            ("description", &def.description),
            ("requirement", &def.requirement),
        ] {
            if field.1.trim().is_empty() {
                self.problem(&format!("/{}", field.0), format!("`{}` is empty", field.0));
            }
        }
        let applicability = self.applicability(&def);
        let written = self.expand_texts(&mut def, applicability.evaluated);
        let reads_ok = self.problems.0.len();
        self.given(&def, given_paths);
        if self.problems.0.len() == reads_ok {
            for (rel, message) in super::climb::problems(&def, given_paths) {
                self.problem(&rel, message);
            }
        }
        let when = def.when.as_ref().and_then(|c| self.condition(c, "/when"));
        let mut checks = Vec::new();
        if def.then.is_empty() {
            self.problem("/then", "a rule calls at least one check");
        }
        for (i, map) in def.then.iter().enumerate() {
            if let Some(c) = self.check(map, &format!("/then/{i}")) {
                checks.push(c);
            }
        }
        let message = self.template(
            &def.message,
            "/message",
            // Every named check's placeholders, compiled or not: a check with a problem of its
            // own would otherwise make the message's placeholders look unknown too.
            def.then
                .iter()
                .filter_map(|m| m.get("check").and_then(Value::as_str))
                .flat_map(|name| params_of(self.cx, name)),
        );
        for (i, ex) in def
            .examples
            .valid
            .iter()
            .chain(&def.examples.invalid)
            .enumerate()
        {
            if !(ex.pointer.is_empty() || ex.pointer.starts_with('/')) {
                self.problem(
                    "/examples",
                    format!("example {i}: `{}` is not a JSON Pointer", ex.pointer),
                );
            }
        }
        if self.problems.0.len() != before {
            return None;
        }
        let severity = def.severity.unwrap_or(def.level.default_severity());
        let version_sensitive = when.as_ref().is_some_and(Condition::uses_version)
            || checks.iter().any(|c| {
                c.check.version_sensitive() || c.when.as_ref().is_some_and(Condition::uses_version)
            });
        Some(Rule {
            def: std::sync::Arc::new(def),
            written: written.map(std::sync::Arc::from),
            severity,
            evaluated: applicability.evaluated,
            warns: applicability.warns,
            applicability: applicability.table,
            source,
            // Set when the rule joins its release.
            history: RuleHistory::added_in(&semver::Version::new(0, 0, 0)),
            given: Vec::new(),
            reads: Vec::new(),
            when,
            checks: checks.into(),
            message: message?,
            version_sensitive,
        })
    }

    fn applicability(&mut self, def: &RuleDef) -> ResolvedApplicability {
        let (resolved, found) = applicability_sets(&def.applicability, self.versions);
        for (rel, message) in found {
            self.problem(&rel, message);
        }
        resolved
    }

    /// Replaces the version placeholders of the rule's texts; the rule as written when it
    /// had any (a release that adds a version expands them again).
    fn expand_texts(&mut self, def: &mut RuleDef, evaluated: VersionSet) -> Option<Box<RuleDef>> {
        let marked = |t: &str| t.contains(SINCE_MARK);
        let check_message =
            |m: &Map<String, Value>| m.get("message").and_then(Value::as_str).is_some_and(marked);
        let any = [&def.title, &def.description, &def.requirement, &def.message]
            .into_iter()
            .any(|t| marked(t))
            || def.help.as_deref().is_some_and(marked)
            || def.notes.iter().any(|t| marked(t))
            || def.then.iter().any(check_message);
        if !any {
            return None;
        }
        let written = Box::new(def.clone());
        let versions = self.versions;
        let expand = |at: &str, text: &mut String, problems: &mut Vec<(String, String)>| {
            match expand_versions(text, versions, evaluated) {
                Ok(Some(t)) => *text = t,
                Ok(None) => {}
                Err(e) => problems.push((at.to_owned(), e)),
            }
        };
        let mut found = Vec::new();
        expand("/title", &mut def.title, &mut found);
        expand("/description", &mut def.description, &mut found);
        expand("/requirement", &mut def.requirement, &mut found);
        expand("/message", &mut def.message, &mut found);
        if let Some(help) = &mut def.help {
            expand("/help", help, &mut found);
        }
        for (i, note) in def.notes.iter_mut().enumerate() {
            expand(&format!("/notes/{i}"), note, &mut found);
        }
        for (i, check) in def.then.iter_mut().enumerate() {
            if let Some(Value::String(m)) = check.get_mut("message") {
                expand(&format!("/then/{i}/message"), m, &mut found);
            }
        }
        for (at, message) in found {
            self.problem(&at, message);
        }
        Some(written)
    }

    /// Compiles the paths the rule reads into `out`: its `given` and `given-traffic` paths,
    /// and with a `subject`, every occurrence of its surface.
    fn given(&mut self, def: &RuleDef, out: &mut Vec<(DocumentKind, String, JsonPath)>) {
        let mut wanted: Vec<(DocumentKind, String, String)> = Vec::new();
        for (i, text) in def.given.iter().enumerate() {
            wanted.push((
                DocumentKind::Description,
                text.clone(),
                format!("/given/{i}"),
            ));
        }
        for (i, text) in def.given_traffic.iter().enumerate() {
            wanted.push((
                DocumentKind::Traffic,
                text.clone(),
                format!("/given-traffic/{i}"),
            ));
        }
        let named = def.surface.name().map(|n| (n, self.surfaces.0.get(n)));
        if let Some((name, None)) = named {
            self.problem(
                "/surface",
                surfaces::unknown_surface(name, def.subject.is_some(), self.surfaces),
            );
        }
        if let Some(subject) = &def.subject {
            match (named.and_then(|(_, s)| s), surfaces::suffix(subject)) {
                (None, _) if named.is_some() => {}
                (None, _) => self.problem(
                    "/surface",
                    "a rule with a `subject` targets its surface: name a surface of the map, not free text",
                ),
                (Some(_), Err(e)) => self.problem("/subject", e),
                (Some(surface), Ok(suffix)) => {
                    for (kind, occurrence) in &surface.occurrences {
                        wanted.push((*kind, format!("{occurrence}{suffix}"), "/subject".into()));
                    }
                }
            }
        } else if def.given.is_empty() && def.given_traffic.is_empty() {
            self.problem(
                "",
                "a rule reads `given` paths, `given-traffic` paths, or its surface (with `subject`)",
            );
        }
        for (kind, text, at) in wanted {
            match JsonPath::compile(&text) {
                Ok(p) => out.push((kind, text, p)),
                Err(e) => self.problem(&at, e.to_string()),
            }
        }
    }

    fn condition(&mut self, def: &super::file::ConditionDef, rel: &str) -> Option<Condition> {
        Condition::compile(def, self.cx)
            .map_err(|e| self.problem(&format!("{rel}{}", e.pointer), e.message))
            .ok()
    }

    fn template<'p>(
        &mut self,
        text: &str,
        rel: &str,
        params: impl Iterator<Item = &'p str>,
    ) -> Option<Template> {
        let t = match Template::parse(text) {
            Ok(t) => t,
            Err(e) => {
                self.problem(rel, format!("message template: {e}"));
                return None;
            }
        };
        let known: BTreeSet<&str> = params.chain(COMMON_PARAMS.iter().copied()).collect();
        let unknown: Vec<_> = t
            .params()
            .into_iter()
            .filter(|p| !known.contains(p))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<_> = known.into_iter().collect();
            self.problem(
                rel,
                format!(
                    "message template uses unknown placeholder(s) {}; available: {}",
                    unknown.join(", "),
                    known.join(", ")
                ),
            );
            return None;
        }
        Some(t)
    }

    fn check(&mut self, map: &Map<String, Value>, rel: &str) -> Option<CompiledCheck> {
        let Some(name) = map.get("check").and_then(Value::as_str) else {
            self.problem(rel, "a check names its function in `check`");
            return None;
        };
        let Some(spec) = self.cx.find(name) else {
            let known = || self.cx.check_names();
            let hint = super::suggest::hint(name, known(), || {
                format!("known: {}", known().collect::<Vec<_>>().join(", "))
            });
            self.problem(
                &format!("{rel}/check"),
                format!("unknown check function `{name}`; {hint}"),
            );
            return None;
        };
        let check = match spec.compile(map, self.cx) {
            Ok(c) => Some(c),
            Err(e) => {
                self.problem(
                    &format!("{rel}{}", e.pointer),
                    format!("{name}: {}", e.message),
                );
                None
            }
        };
        let at = match map.get("at") {
            None => None,
            Some(Value::String(s)) => match RelPath::compile(s) {
                Ok(p) => Some(p),
                Err(e) => {
                    self.problem(&format!("{rel}/at"), e.to_string());
                    return None;
                }
            },
            Some(_) => {
                self.problem(&format!("{rel}/at"), "`at` is a relative path string");
                return None;
            }
        };
        let when = match map.get("when") {
            None => None,
            Some(v) => {
                let def = serde_json::from_value::<super::file::ConditionDef>(v.clone());
                match def {
                    Ok(d) => Some(self.condition(&d, &format!("{rel}/when"))?),
                    Err(e) => {
                        let message = super::suggest::serde_message(&e.to_string()).into_owned();
                        self.problem(&format!("{rel}/when"), message);
                        return None;
                    }
                }
            }
        };
        let message = match map.get("message") {
            None => None,
            Some(Value::String(s)) => {
                Some(self.template(s, &format!("{rel}/message"), spec.params().iter().copied())?)
            }
            Some(_) => {
                self.problem(&format!("{rel}/message"), "`message` is a string");
                return None;
            }
        };
        Some(CompiledCheck {
            name: spec.name(),
            check: check?,
            at,
            when,
            message,
        })
    }
}

/// What an applicability table resolves to over a version list.
pub(super) struct ResolvedApplicability {
    pub evaluated: VersionSet,
    pub warns: VersionSet,
    /// Every version's entry, by name.
    pub table: BTreeMap<String, Applicability>,
}

/// Resolves an applicability table over `versions` (see [`super::file::ApplicabilityTable`]),
/// with its problems as (pointer relative to the table's owner, message).
pub(super) fn applicability_sets(
    def: &ApplicabilityDef,
    versions: &VersionList,
) -> (ResolvedApplicability, Vec<(String, String)>) {
    let mut problems = Vec::new();
    let mut resolved: Vec<Option<Applicability>> = vec![None; versions.len()];
    match def {
        ApplicabilityDef::All(a) => resolved.iter_mut().for_each(|r| *r = Some(*a)),
        ApplicabilityDef::Table(t) => {
            for name in t.versions.keys() {
                if versions.parse(name).is_none() {
                    problems.push((
                        format!("/applicability/{}", crate::document::pointer::escape(name)),
                        super::suggest::unknown_version(name, versions),
                    ));
                }
            }
            let mut bound = |name: &Option<String>, member: &str| match name {
                None => Some(None),
                Some(n) => match versions.parse(n) {
                    Some(v) => Some(Some(v)),
                    None => {
                        problems.push((
                            format!("/applicability/{member}"),
                            super::suggest::unknown_version(n, versions),
                        ));
                        None
                    }
                },
            };
            let (since, until) = (bound(&t.since, "since"), bound(&t.until, "until"));
            let range = match (since, until) {
                (Some(None), Some(None)) => None,
                (Some(s), Some(u)) => {
                    let mut set = versions.all();
                    if let Some(s) = s {
                        set = set.intersection(versions.since(s));
                    }
                    if let Some(u) = u {
                        set = set.intersection(versions.until(u));
                    }
                    Some(set)
                }
                _ => Some(VersionSet::EMPTY),
            };
            // Versions ascend, and a model comes before the versions added like it.
            for (v, name) in versions.iter() {
                resolved[v.index()] = if let Some(a) = t.versions.get(name) {
                    Some(*a)
                } else if versions.is_added(v) {
                    resolved[versions.model(v).index()]
                } else if let Some(range) = range {
                    Some(if range.contains(v) {
                        Applicability::Applies
                    } else {
                        t.default.unwrap_or(Applicability::NotApplicable)
                    })
                } else {
                    t.default
                };
            }
        }
    }
    let mut out = ResolvedApplicability {
        evaluated: VersionSet::EMPTY,
        warns: VersionSet::EMPTY,
        table: BTreeMap::new(),
    };
    let mut missing = Vec::new();
    for (v, name) in versions.iter() {
        let Some(a) = resolved[v.index()] else {
            missing.push(name);
            continue;
        };
        match a {
            Applicability::Applies => out.evaluated.insert(v),
            Applicability::Warns => {
                out.evaluated.insert(v);
                out.warns.insert(v);
            }
            Applicability::NotApplicable => {}
        }
        out.table.insert(name.to_owned(), a);
    }
    if !missing.is_empty() {
        problems.push((
            "/applicability".to_owned(),
            format!(
                "the applicability table does not name {}; name them, or give a `default` or a `since`/`until` range",
                missing.join(", ")
            ),
        ));
    }
    (out, problems)
}

/// The marker of a version placeholder in rule texts: `{since:2026-07-28}` reads as the
/// versions from 2026-07-28 on in which the rule is evaluated, so that a text about "the newest revision" stays true when a
/// release adds one.
const SINCE_MARK: &str = "{since:";

/// `text` with its version placeholders replaced by the versions from the one named on in
/// which the rule is `evaluated`, or `None` when it has none; an unknown version is an error.
pub(super) fn expand_versions(
    text: &str,
    versions: &VersionList,
    evaluated: VersionSet,
) -> Result<Option<String>, String> {
    if !text.contains(SINCE_MARK) {
        return Ok(None);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(SINCE_MARK) {
        // `{{since:` is a literal brace in a message template.
        let escaped = rest[..at].ends_with('{') && rest[..at].matches('{').count() % 2 == 1;
        let Some(end) = rest[at..].find('}') else {
            return Err(format!("`{SINCE_MARK}` without its closing `}}`"));
        };
        if escaped {
            out.push_str(&rest[..at + end + 1]);
            rest = &rest[at + end + 1..];
            continue;
        }
        let name = &rest[at + SINCE_MARK.len()..at + end];
        let v = versions.parse(name).ok_or_else(|| {
            let known: Vec<&str> = versions.iter().map(|(_, n)| n).collect();
            format!(
                "unknown protocol version `{name}` in `{{since:{name}}}`; the catalogue has {}",
                known.join(", ")
            )
        })?;
        out.push_str(&rest[..at]);
        out.push_str(&versions.describe_since(v, evaluated));
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(Some(out))
}

fn params_of(cx: &CompileCx<'_>, name: &str) -> impl Iterator<Item = &'static str> {
    cx.find(name)
        .map(|s| s.params())
        .unwrap_or_default()
        .iter()
        .copied()
}

/// Why a rule of `owner` is refused where only `declared` are.
pub(super) fn undeclared_owner(
    owner: &super::file::Owner,
    declared: &[super::file::Owner],
) -> String {
    let names = || declared.iter().map(|o| o.as_str());
    let hint = super::suggest::hint(owner.as_str(), names(), || {
        format!(
            "declared: {}",
            names()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    format!("owner `{owner}` is not declared by this rule set (list it in `owners`); {hint}")
}
