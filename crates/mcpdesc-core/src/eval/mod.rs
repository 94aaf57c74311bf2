//! The evaluator: runs every rule on the nodes its paths select, once per protocol version in
//! scope where the rule's outcome depends on the version, and merges identical findings.

pub mod condition;
pub mod context;
pub mod scope;
pub mod substitute;
pub mod template;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::checks::Node;
use crate::diagnostic::{Diagnostic, Severity};
use crate::document::{pointer, Document, Limits, LoadError, Tree, ValueRef};
use crate::path::PathSet;
use crate::rules::file::Enforcement;
use crate::rules::{Catalogue, Rule};
use crate::traffic::DocumentKind;
use crate::versions::VersionSet;

use context::{excerpt, DocCache, EvalCtx, Finding, LimitExceeded, POSITION, SUGGESTION};
use scope::ScopeMap;
use template::fill_versions;

/// Which rules and versions an evaluation covers.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Rule ids or prefixes (`mcp.elicitation.*` or `mcp.elicitation.`) to run; empty = all.
    pub select: Vec<String>,
    /// Rule ids or prefixes to skip.
    pub ignore: Vec<String>,
    /// Evaluate only for these protocol versions.
    #[doc(hidden)]
    pub versions: Option<VersionSet>,
    /// The caller, not the document, chose the release judging it: a declared specification
    /// version that any loaded release serves is then accepted.
    #[doc(hidden)]
    pub release_fixed: bool,
}

fn matches_pattern(id: &str, pattern: &str) -> bool {
    let prefix = pattern.trim_end_matches('*');
    if pattern.ends_with('*') || pattern.ends_with('.') {
        id.starts_with(prefix)
    } else {
        id == pattern || id.starts_with(&format!("{pattern}."))
    }
}

/// A protocol version that the catalogue does not know, named in a [`Selection`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version `{version}`; known versions: {}", known.join(", "))]
#[non_exhaustive]
pub struct UnknownProtocolVersion {
    /// The version as named.
    pub version: String,
    /// Every protocol version the catalogue declares, in its order.
    pub known: Vec<String>,
}

impl Selection {
    /// The rules and protocol versions a run covers: `select` and `ignore` patterns, and the
    /// protocol versions of `cat` named in `versions` (every version when none is).
    pub fn of(
        cat: &Catalogue,
        select: &[String],
        ignore: &[String],
        versions: &[String],
    ) -> Result<Selection, UnknownProtocolVersion> {
        let mut set = None;
        for v in versions {
            let Some(parsed) = cat.versions.parse(v) else {
                return Err(UnknownProtocolVersion {
                    version: v.clone(),
                    known: cat.versions.iter().map(|(_, n)| n.to_owned()).collect(),
                });
            };
            set.get_or_insert(VersionSet::EMPTY).insert(parsed);
        }
        Ok(Selection {
            select: select.to_vec(),
            ignore: ignore.to_vec(),
            versions: set,
            ..Selection::default()
        })
    }

    /// The `select` and `ignore` patterns that name no rule id of `cat` nor any of `others`
    /// (rules an embedder reports itself): a typo there would otherwise silently select
    /// nothing, or ignore nothing.
    pub fn unmatched<'s>(&'s self, cat: &Catalogue, others: &[&str]) -> Vec<&'s str> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|p| {
                !cat.rules.iter().any(|r| matches_pattern(r.id(), p))
                    && !others.iter().any(|id| matches_pattern(id, p))
            })
            .map(String::as_str)
            .collect()
    }

    /// Whether the rule `id` runs: `select` is empty or names it, and `ignore` does not.
    pub fn includes(&self, id: &str) -> bool {
        (self.select.is_empty() || self.select.iter().any(|p| matches_pattern(id, p)))
            && !self.ignore.iter().any(|p| matches_pattern(id, p))
    }
}

/// A finding with the versions it holds for, before merging.
struct Raw {
    rule: usize,
    pointer: String,
    /// Where the diagnostic's position is, when not at `pointer` (see [`POSITION`]).
    position: Option<String>,
    message: String,
    versions: VersionSet,
}

pub(crate) fn evaluate(
    cat: &Catalogue,
    doc: &Document<'_>,
    sel: &Selection,
    limits: &Limits,
) -> Vec<Diagnostic> {
    // A large document's nodes are shared out over the cores, each thread walking the
    // document and running the rules on its share (the walk is a small part of the cost; the
    // checks, and the document schemas they compile into the shared cache, are most of it).
    // Findings are merged and sorted, so the result does not depend on the split, except where an
    // evaluation limit is met: which schemas fit under `max-schemas` depends on the order
    // they are met in, so such a document is evaluated again on one thread.
    let threads = threads_for(doc);
    match evaluate_on(cat, doc, sel, limits, threads) {
        (_, true) if threads > 1 => evaluate_on(cat, doc, sel, limits, 1).0,
        (diagnostics, _) => diagnostics,
    }
}

/// Evaluates on `threads` threads; also tells whether an evaluation limit was met.
fn evaluate_on(
    cat: &Catalogue,
    doc: &Document<'_>,
    sel: &Selection,
    limits: &Limits,
    threads: usize,
) -> (Vec<Diagnostic>, bool) {
    let cache = DocCache::with_limits(limits);
    let kind = DocumentKind::of(doc.format());
    // Rules see the document with its resolvable references replaced by their targets;
    // positions are still looked up in the source (see `substitute`).
    let substitute = || {
        cat.references
            .as_ref()
            .filter(|_| kind == DocumentKind::Description)
            .and_then(|r| r.substitute_within(doc.root(), limits, &cache))
            .map(|value| Tree::from_value(&value))
    };
    let scope_config = match kind {
        DocumentKind::Description => &cat.scope,
        DocumentKind::Traffic => &cat.traffic_scope,
    };
    let scopes_of = |root: ValueRef<'_>| ScopeMap::compute(root, scope_config, &cat.versions);
    // With several threads, the scopes are computed while references are looked for; most
    // documents have none, and the scopes of the source are then the ones needed.
    let (substituted, scopes) = if threads > 1 {
        let (source_scopes, substituted) = rayon::join(|| scopes_of(doc.root()), substitute);
        let scopes = match &substituted {
            Some(tree) => scopes_of(tree.root()),
            None => source_scopes,
        };
        (substituted, scopes)
    } else {
        let substituted = substitute();
        let scopes = scopes_of(substituted.as_ref().map_or(doc.root(), Tree::root));
        (substituted, scopes)
    };
    let root = substituted.as_ref().map_or(doc.root(), Tree::root);
    let filter = sel.versions.unwrap_or(cat.versions.all());
    let base = EvalCtx {
        doc,
        root,
        versions: &cat.versions,
        release: &cat.release,
        release_fixed: sel.release_fixed,
        version: None,
        scopes: &scopes,
        cache: &cache,
        limits,
    };
    let selected: Vec<usize> = (0..cat.rules.len())
        .filter(|&i| {
            let rule = &cat.rules[i];
            sel.includes(rule.id()) && !rule.evaluated.intersection(filter).is_empty()
        })
        .collect();
    let raws: Vec<Raw> = if threads <= 1 {
        walk(cat, &base, kind, sel, filter, &selected, None)
    } else {
        // On the shared worker pool: in a batch the other workers may be busy, and then
        // whichever task runs first claims every block and the others only walk.
        let blocks = Blocks(AtomicUsize::new(0));
        (0..threads)
            .into_par_iter()
            .flat_map_iter(|_| walk(cat, &base, kind, sel, filter, &selected, Some(&blocks)))
            .collect()
    };
    let exceeded = cache.take_exceeded();
    cache.release(threads);
    let mut out = merge(cat, doc, raws);
    let limited = !exceeded.is_empty();
    out.extend(limit_diagnostics(cat, doc, exceeded));
    sort(&mut out);
    (out, limited)
}

/// Documents with at least this many nodes are evaluated on all cores.
const PARALLEL_NODES: usize = 20_000;

/// The threads to evaluate (and free) `doc` on.
pub(crate) fn threads_for(doc: &Document<'_>) -> usize {
    if doc.len() >= PARALLEL_NODES {
        rayon::current_num_threads()
    } else {
        1
    }
}

/// Nodes are handed to threads in blocks of this many (node, path) visits.
const BLOCK: usize = 1024;

/// Hands out blocks of visits to the threads walking one document. Every thread walks the
/// whole document and so meets the same visits in the same order; the first to reach a block
/// claims it and runs the rules on its visits, the others pass over them. A thread slowed
/// by expensive checks thus claims fewer blocks, and each (rule, node) pair runs on exactly
/// one thread.
struct Blocks(AtomicUsize);

impl Blocks {
    /// Whether the calling thread, reaching `block`, runs it. Blocks are claimed in order:
    /// a thread has settled every earlier block before asking about this one.
    fn claim(&self, block: usize) -> bool {
        let mut next = self.0.load(Ordering::Acquire);
        loop {
            if next > block {
                return false;
            }
            match self
                .0
                .compare_exchange(next, block + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(now) => next = now,
            }
        }
    }
}

/// Runs `rules` (indices into the catalogue) on every node their paths select; with
/// `blocks`, only on the visits this thread claims (see [`Blocks`]).
fn walk(
    cat: &Catalogue,
    base: &EvalCtx<'_>,
    kind: DocumentKind,
    sel: &Selection,
    filter: VersionSet,
    rules: &[usize],
    blocks: Option<&Blocks>,
) -> Vec<Raw> {
    let mut raws: Vec<Raw> = Vec::new();
    // The rules reading each path, in catalogue order. All paths are evaluated in one pass
    // over the document, and every rule reading a path runs on a node as soon as the node is
    // reached, while its subtree is in cache (evaluating rule by rule streamed a large document
    // through memory once per rule). The result does not depend on this order: findings are
    // merged and sorted.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); cat.paths.len()];
    for &index in rules {
        for &gid in &cat.rules[index].given {
            readers[gid].push(index);
        }
    }
    let read =
        (0..cat.paths.len()).filter(|&gid| !readers[gid].is_empty() && cat.path_kinds[gid] == kind);
    let (mut visits, mut current) = (0usize, (usize::MAX, false));
    PathSet::new(&cat.paths, read).for_each(base.root, &mut |gid, pointer, value| {
        if let Some(blocks) = blocks {
            let block = visits / BLOCK;
            visits += 1;
            if block != current.0 {
                current = (block, blocks.claim(block));
            }
            if !current.1 {
                return;
            }
        }
        let scope = base.scopes.scope_of(pointer);
        let in_scope = scope.intersection(filter);
        let node = Node { pointer, value };
        for &index in &readers[gid] {
            let rule = &cat.rules[index];
            let all_versions = rule.evaluated == cat.versions.all();
            let versions = in_scope.intersection(rule.evaluated);
            if rule.version_sensitive {
                for v in versions.iter() {
                    let cx = EvalCtx {
                        version: Some(v),
                        ..base.clone_shallow()
                    };
                    run_rule(index, rule, node, &cx, VersionSet::single(v), &mut raws);
                }
            } else if !versions.is_empty()
                || (all_versions && sel.versions.is_none() && in_scope.is_empty())
            {
                run_rule(index, rule, node, base, versions, &mut raws);
            }
        }
    });
    raws
}

/// The rule that reports an exceeded limit: the first whose `load-error` check claims the
/// `limit` failure, so which rule id it is stays in the rule files.
fn limit_rule<'c>(
    cat: &'c Catalogue,
    limit: &'static str,
    value: u64,
) -> Option<(&'c Rule, Severity)> {
    let kind = crate::document::LoadErrorKind::Limit { limit, value };
    cat.rules.iter().find_map(|r| {
        r.checks
            .iter()
            .any(|c| c.check.on_load_error(&kind, None).is_some())
            .then(|| (&**r, Severity::Error.max(cap(r, r.severity))))
    })
}

/// One error per evaluation limit exceeded, at the first node where it was: the evaluation
/// skipped work past the limit, so the document cannot be called valid. It is reported under
/// the rule that claims input-limit failures; without one, under the limit's own name.
fn limit_diagnostics(
    cat: &Catalogue,
    doc: &Document<'_>,
    exceeded: Vec<LimitExceeded>,
) -> Vec<Diagnostic> {
    let mut out: Vec<(&'static str, usize, Diagnostic)> = Vec::new();
    let mut places: std::collections::HashSet<(&'static str, String)> = Default::default();
    for e in exceeded {
        if !places.insert((e.limit, e.pointer.clone())) {
            continue;
        }
        if let Some((_, n, _)) = out.iter_mut().find(|(limit, _, _)| *limit == e.limit) {
            *n += 1;
            continue;
        }
        let pos = doc.key_position(&e.pointer);
        let (rule, severity) = match limit_rule(cat, e.limit, e.value) {
            Some((r, sev)) => (r.def.id.clone(), sev),
            None => (e.limit.to_owned(), Severity::Error),
        };
        let diagnostic = Diagnostic {
            rule,
            severity,
            message: format!("evaluation incomplete: {e}"),
            pointer: e.pointer,
            line: pos.line,
            column: pos.column,
            versions: Vec::new(),
            url: None,
        };
        out.push((e.limit, 1, diagnostic));
    }
    out.into_iter()
        .map(|(_, n, mut d)| {
            if n > 1 {
                d.message.push_str(&format!(" (at {n} places)"));
            }
            d
        })
        .collect()
}

impl<'d> EvalCtx<'d> {
    fn clone_shallow(&self) -> EvalCtx<'d> {
        EvalCtx {
            doc: self.doc,
            root: self.root,
            versions: self.versions,
            release: self.release,
            release_fixed: self.release_fixed,
            version: self.version,
            scopes: self.scopes,
            cache: self.cache,
            limits: self.limits,
        }
    }
}

fn run_rule(
    index: usize,
    rule: &Rule,
    node: Node<'_>,
    cx: &EvalCtx<'_>,
    versions: VersionSet,
    raws: &mut Vec<Raw>,
) {
    if let Some(w) = &rule.when {
        if !w.holds_at(node.pointer, node.value, cx) {
            return;
        }
    }
    let mut findings: Vec<Finding> = Vec::new();
    for c in rule.checks.iter() {
        if let Some(w) = &c.when {
            if !w.holds_at(node.pointer, node.value, cx) {
                continue;
            }
        }
        match &c.at {
            None => c.check.run(node, cx, &mut findings),
            Some(path) => {
                path.for_each_from(cx.root, node.pointer, node.value, &mut |pointer, value| {
                    c.check.run(Node { pointer, value }, cx, &mut findings);
                });
            }
        }
        if findings.is_empty() {
            // The usual case; a drain of nothing still costs its setup and drop.
            continue;
        }
        let template = c.message.as_ref().unwrap_or(&rule.message);
        for f in findings.drain(..) {
            let mut message = template.render(|name| common_param(&f, name, cx));
            if let Some(meant) = f.param(SUGGESTION) {
                let quoted = format!("`{meant}`");
                // A message that names the member already (`only `listChanged` is
                // defined`) has said it.
                if !template.params().contains(SUGGESTION) && !message.contains(&quoted) {
                    message = format!("{message}; did you mean {quoted}?");
                }
            }
            raws.push(Raw {
                rule: index,
                position: f.param(POSITION).map(str::to_owned),
                pointer: f.pointer,
                message,
                versions,
            });
        }
    }
}

fn common_param(f: &Finding, name: &str, cx: &EvalCtx<'_>) -> Option<String> {
    if let Some(v) = f.param(name) {
        return Some(v.to_owned());
    }
    match name {
        "pointer" => Some(f.pointer.clone()),
        "key" => pointer::last(&f.pointer).map(|k| k.into_owned()),
        "value" => cx.root.pointer(&f.pointer).map(excerpt),
        _ => None,
    }
}

/// Merges findings that differ only in their version, and fixes severities per version.
fn merge(cat: &Catalogue, doc: &Document<'_>, raws: Vec<Raw>) -> Vec<Diagnostic> {
    type Key = (usize, String, String, Option<String>);
    let mut order: Vec<Key> = Vec::new();
    let mut merged: HashMap<Key, VersionSet> = HashMap::new();
    for r in raws {
        let key = (r.rule, r.pointer, r.message, r.position);
        match merged.get_mut(&key) {
            Some(set) => *set = set.union(r.versions),
            None => {
                order.push(key.clone());
                merged.insert(key, r.versions);
            }
        }
    }
    let mut out = Vec::new();
    for key in order {
        let versions = merged[&key];
        let (index, ptr, message, position) = key;
        let rule = &cat.rules[index];
        let severity = cap(rule, rule.severity);
        let warned = versions.intersection(rule.warns);
        let groups: Vec<(VersionSet, Severity)> =
            if warned.is_empty() || severity <= Severity::Warning {
                vec![(versions, severity)]
            } else {
                vec![
                    (versions.difference(warned), severity),
                    (warned, Severity::Warning),
                ]
            };
        let pos = doc.key_position(position.as_deref().unwrap_or(&ptr));
        for (set, sev) in groups {
            if set.is_empty() && !versions.is_empty() {
                continue;
            }
            let names = cat.versions.names(set);
            out.push(Diagnostic {
                rule: rule.def.id.clone(),
                severity: sev,
                message: fill_versions(&message, &names),
                pointer: ptr.clone(),
                line: pos.line,
                column: pos.column,
                versions: names,
                url: None,
            });
        }
    }
    sort(&mut out);
    out
}

fn cap(rule: &Rule, severity: Severity) -> Severity {
    match rule.def.enforcement {
        Enforcement::Advisory => severity.min(Severity::Warning),
        Enforcement::Internal => severity,
    }
}

pub(crate) fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// Diagnostics for a document that could not be loaded: every rule whose check claims the
/// error reports it at the failure's position.
pub(crate) fn load_error_diagnostics(
    cat: &Catalogue,
    error: &LoadError,
    format: crate::document::Format,
    sel: &Selection,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in cat.rules.iter().filter(|r| sel.includes(r.id())) {
        for c in rule.checks.iter() {
            if let Some(f) = c.check.on_load_error(&error.kind, Some(format)) {
                let template = c.message.as_ref().unwrap_or(&rule.message);
                let message = template.render(|name| f.param(name).map(str::to_owned));
                out.push(Diagnostic {
                    rule: rule.def.id.clone(),
                    severity: cap(rule, rule.severity),
                    message: fill_versions(&message, &[]),
                    pointer: f.pointer.clone(),
                    line: error.position.line,
                    column: error.position.column,
                    versions: Vec::new(),
                    url: None,
                });
            }
        }
    }
    sort(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Format;

    /// Sharing the rules out over threads changes nothing in the result, including where
    /// evaluation limits are met (those documents are evaluated again on one thread).
    #[test]
    fn threads_do_not_change_the_diagnostics() {
        let set = crate::rules::RuleSet::embedded()
            .compile()
            .expect("catalogue");
        let cat = set.default_release().clone();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec-fixtures");
        let tight = {
            let mut limits = Limits::default();
            limits.max_schemas = 1;
            limits
        };
        let mut checked = 0;
        for folder in ["expected-invalid", "expected-warning", "expected-valid"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(folder))
                .expect("fixtures")
                .flatten()
                .map(|e| e.path())
                .filter(|p| !p.to_string_lossy().ends_with(".expected.yaml"))
                .collect();
            files.sort();
            for path in files {
                // Bytes: some fixtures are not valid UTF-8 on purpose.
                let bytes = std::fs::read(&path).expect("fixture");
                let format = Format::from_path(&path.to_string_lossy());
                let Ok(doc) = Document::parse(&bytes, format, &Limits::default()) else {
                    continue;
                };
                for limits in [&Limits::default(), &tight] {
                    let one = evaluate_on(&cat, &doc, &Selection::default(), limits, 1);
                    let three = evaluate_on(&cat, &doc, &Selection::default(), limits, 3);
                    if !one.1 {
                        assert_eq!(one, three, "{}", path.display());
                    }
                    assert_eq!(one.0.is_empty(), three.0.is_empty());
                }
                checked += 1;
            }
        }
        assert!(checked > 50, "only {checked} fixtures");
    }
}
