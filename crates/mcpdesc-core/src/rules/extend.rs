//! Releases that extend others: resolving `extends`, and compiling a release from its
//! compiled base plus the rules it adds, replaces, retires or re-scopes.

use std::collections::HashMap;
use std::sync::Arc;

use crate::checks::{CompileCaches, CompileCx, ParsedFiles};
use crate::path::JsonPath;
use crate::versions::{AddVersionError, VersionList};

use super::compile::{
    applicability_sets, check_top_level, compile, compile_rules, spec_version_reqs, PathTable,
    EXTENSION_KEYS,
};
use super::file::{
    AmendDef, ApplicabilityChange, ApplicabilityDef, ApplicabilityTable, ReleaseDef, RetireDef,
    RuleDef,
};
use super::load::{ParsedFile, Problems, ReleaseFiles};
use super::releases::{Ancestor, ChangeKind, Release, RetiredRule, RuleChange, RuleHistory};
use super::{Catalogue, Rule, RuleSource};

/// What a release says of itself before it is compiled.
struct Identity {
    /// Its version as written, when it names one.
    version: Option<String>,
    /// The release it extends, as written.
    extends: Option<String>,
    /// Index of its catalogue file in the group.
    file: usize,
}

fn identity(group: &ReleaseFiles) -> Option<Identity> {
    let file = group
        .parsed
        .iter()
        .position(|f| f.value("/catalogue").is_some())?;
    let cat = group.parsed[file].value("/catalogue")?;
    let text = |key: &str| cat.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let version = text("release").or_else(|| {
        cat.get("spec-versions")
            .and_then(|v| v.get(0))
            .and_then(|v| v.as_str())
            .filter(|t| semver::Version::parse(t).is_ok())
            .map(str::to_owned)
    });
    Some(Identity {
        version,
        extends: text("extends"),
        file,
    })
}

/// Releases named by `extends` that no group is.
pub(super) fn missing_bases(groups: &[ReleaseFiles]) -> Vec<String> {
    let ids: Vec<Identity> = groups.iter().filter_map(identity).collect();
    let have = |name: &str| ids.iter().any(|i| i.version.as_deref() == Some(name));
    let mut missing: Vec<String> = ids
        .iter()
        .filter_map(|i| i.extends.clone())
        .filter(|e| !have(e))
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

/// The groups of `candidates` that `wanted` names, with the releases they extend in turn.
pub(super) fn bases_among(candidates: Vec<ReleaseFiles>, wanted: &[String]) -> Vec<ReleaseFiles> {
    let ids: Vec<Option<Identity>> = candidates.iter().map(identity).collect();
    let mut wanted: Vec<String> = wanted.to_vec();
    let mut keep = vec![false; candidates.len()];
    while let Some(name) = wanted.pop() {
        for (i, id) in ids.iter().enumerate() {
            let Some(id) = id else { continue };
            if !keep[i] && id.version.as_deref() == Some(name.as_str()) {
                keep[i] = true;
                wanted.extend(id.extends.clone());
            }
        }
    }
    candidates
        .into_iter()
        .zip(keep)
        .filter_map(|(g, k)| k.then_some(g))
        .collect()
}

/// Compiles every release, each base before the releases that extend it.
pub(super) fn compile_releases(
    mut groups: Vec<ReleaseFiles>,
    custom: &crate::checks::CheckRegistry,
    problems: &mut Problems,
) -> Vec<Catalogue> {
    let ids: Vec<Option<Identity>> = groups.iter().map(identity).collect();
    // Release version → group, the first of a version winning.
    let mut by_version: HashMap<String, usize> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        let Some(Identity {
            version: Some(v),
            file,
            ..
        }) = id
        else {
            continue;
        };
        if let Some(&first) = by_version.get(v) {
            let first_file = &groups[first].parsed[ids[first].as_ref().map_or(0, |x| x.file)];
            let f = &groups[i].parsed[*file];
            problems.push(
                f,
                "/catalogue",
                format!("release {v} is defined twice; first in {}", first_file.path),
            );
        } else {
            by_version.insert(v.clone(), i);
        }
    }
    let known = || {
        let mut names: Vec<&String> = by_version.keys().collect();
        names.sort();
        names
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The base of each extending release, or a problem at its `extends`.
    let mut base_of: Vec<Option<usize>> = vec![None; groups.len()];
    for (i, id) in ids.iter().enumerate() {
        let Some(Identity {
            extends: Some(e),
            file,
            ..
        }) = id
        else {
            continue;
        };
        match by_version.get(e) {
            Some(&b) => base_of[i] = Some(b),
            None => problems.push_value(
                &groups[i].parsed[*file],
                "/catalogue/extends",
                format!(
                    "extends release {e}, which is not loaded; releases: {}",
                    known()
                ),
            ),
        }
    }
    // A release whose chain of bases comes back to it is in a cycle.
    for (i, id) in ids.iter().enumerate() {
        let Some(id) = id else { continue };
        let mut seen = vec![i];
        let mut at = base_of[i];
        while let Some(b) = at {
            if b == i {
                let names: Vec<String> = seen
                    .iter()
                    .chain(std::iter::once(&i))
                    .map(|&g| {
                        ids[g]
                            .as_ref()
                            .and_then(|x| x.version.clone())
                            .unwrap_or_default()
                    })
                    .collect();
                problems.push_value(
                    &groups[i].parsed[id.file],
                    "/catalogue/extends",
                    format!(
                        "releases extend each other in a cycle: {}",
                        names.join(" → ")
                    ),
                );
                break;
            }
            if seen.contains(&b) {
                break;
            }
            seen.push(b);
            at = base_of[b];
        }
    }
    let mut compiled: Vec<Option<Catalogue>> = (0..groups.len()).map(|_| None).collect();
    let mut done = vec![false; groups.len()];
    // Bases first: each pass compiles the releases whose base is compiled.
    loop {
        let mut progress = false;
        for i in 0..groups.len() {
            if done[i] {
                continue;
            }
            let Some(id) = &ids[i] else {
                done[i] = true;
                continue;
            };
            // A whole catalogue keeps its other files; the files of an extension are merged.
            let others = match id.extends {
                None => std::mem::take(&mut groups[i].others),
                Some(_) => HashMap::new(),
            };
            let group = &groups[i];
            let result = match (&id.extends, base_of[i]) {
                (None, _) => compile(
                    &group.parsed,
                    others,
                    group.dir.clone(),
                    group.embedded_dir.as_ref(),
                    custom,
                    problems,
                ),
                (Some(_), None) => None,
                (Some(_), Some(b)) if !done[b] => continue,
                (Some(_), Some(b)) => match &compiled[b] {
                    Some(base) => extend(base, group, id.file, custom, problems),
                    None => None,
                },
            };
            compiled[i] = result;
            done[i] = true;
            progress = true;
        }
        if !progress {
            break;
        }
    }
    // The parsed files are garbage now; freeing their many small values took a tenth of the
    // load. A worker of the shared pool frees them while the caller goes on.
    let files: Vec<ParsedFile> = groups.into_iter().flat_map(|g| g.parsed).collect();
    rayon::spawn(move || drop(files));
    compiled.into_iter().flatten().collect()
}

/// The release `group` describes, compiled from its compiled `base`.
fn extend(
    base: &Catalogue,
    group: &ReleaseFiles,
    cat_index: usize,
    custom: &crate::checks::CheckRegistry,
    problems: &mut Problems,
) -> Option<Catalogue> {
    check_top_level(&group.parsed, EXTENSION_KEYS, problems);
    let files = &group.parsed;
    let cat_file = &files[cat_index];
    let rdef = cat_file.deserialize::<ReleaseDef>("/catalogue", problems)?;
    let version = match semver::Version::parse(&rdef.release) {
        Ok(v) => v,
        Err(e) => {
            problems.push_value(
                cat_file,
                "/catalogue/release",
                format!("release `{}` is not a semantic version: {e}", rdef.release),
            );
            return None;
        }
    };
    if version <= base.release.version {
        problems.push_value(
            cat_file,
            "/catalogue/release",
            format!(
                "release {version} extends release {}, which is not older",
                base.release.version
            ),
        );
    }
    let serve_texts = if rdef.spec_versions.is_empty() {
        vec![rdef.release.clone()]
    } else {
        rdef.spec_versions.clone()
    };
    let serves = spec_version_reqs(&serve_texts, cat_file, "/catalogue", problems);

    let mut def = base.def.clone();
    def.release = Some(rdef.release.clone());
    def.spec_versions = serve_texts;
    def.summary = rdef.summary.clone().or(def.summary);
    if rdef.fixtures.is_some() {
        def.fixtures = rdef.fixtures.clone();
    }
    if rdef.docs_url.is_some() {
        def.docs_url = rdef.docs_url.clone();
    }
    if rdef.pages.is_some() {
        def.pages = rdef.pages.clone();
    }
    let fixtures = match &rdef.fixtures {
        Some(rel) => Some(super::resolve_fixtures(
            group.dir.as_ref().or(group.embedded_dir.as_ref()),
            rel,
        )),
        None => base.release.lineage.last().and_then(|a| a.fixtures.clone()),
    };
    let mut lineage = base.release.lineage.clone();
    lineage.push(Ancestor {
        version: version.clone(),
        dir: group.dir.clone().or(group.embedded_dir.clone()),
        fixtures,
    });

    let mut others = (*base.files).clone();
    others.extend(group.others.iter().map(|(k, v)| (k.clone(), v.clone())));
    // An inherited `pages` block was checked with its own release.
    if let Some(pages) = &rdef.pages {
        super::file_pages::check(pages, &others, cat_file, problems);
    }
    let versions = added_versions(base, &rdef, cat_file, problems);
    for added in &rdef.add_protocol_versions {
        def.protocol_versions.push(added.version.clone());
    }
    let surfaces = JsonPath::with_compile_memo(|| {
        super::surfaces::collect(files, base.surfaces.clone(), problems)
    });

    // The paths of the base keep their numbers; new ones follow.
    let mut table = PathTable::of(base);

    // Patterns compile the same in every release; a file's parse is shared when the file is
    // the base's.
    let caches = Arc::new(CompileCaches {
        regexes: base.caches.regexes.clone(),
        parsed: ParsedFiles::inheriting(&base.caches.parsed, |path| {
            !group.others.contains_key(path)
        }),
    });
    let (owners, mut owner_pages) = super::compile::declared_owners(
        &base.owners,
        &rdef.owners,
        cat_file,
        "/catalogue",
        problems,
    );
    for (owner, url) in &base.owner_pages {
        owner_pages
            .entry(owner.clone())
            .or_insert_with(|| url.clone());
    }
    let cx = CompileCx {
        versions: &versions,
        files: &others,
        regexes: &caches.regexes,
        parsed: &caches.parsed,
        custom,
        owners: &owners,
    };
    let index: HashMap<&str, usize> = base
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id(), i))
        .collect();
    // Each rule of the base changes at most once per release: (what, where).
    let mut changed: HashMap<String, RuleSource> = HashMap::new();
    let mut claim = |id: &str, f: &ParsedFile, ptr: &str, problems: &mut Problems| -> bool {
        let pos = f.doc.position(ptr);
        if let Some(first) = changed.get(id) {
            problems.push_value(
                f,
                ptr,
                format!(
                    "rule `{id}` is already changed by this release at {}:{}:{}",
                    first.file, first.line, first.column
                ),
            );
            return false;
        }
        changed.insert(
            id.to_owned(),
            RuleSource {
                file: f.path.clone(),
                line: pos.line,
                column: pos.column,
            },
        );
        true
    };
    let missing = |id: &str, verb: &str| {
        let retired = base.retired.iter().find(|r| r.rule.id() == id);
        match retired {
            Some(r) => format!(
                "cannot {verb} rule `{id}`: release {} retired it",
                r.release
            ),
            None => {
                let meant = super::suggest::closest(id, base.rules.iter().map(|r| r.id()))
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                format!(
                    "cannot {verb} rule `{id}`: release {} has no such rule{meant}",
                    base.release.version
                )
            }
        }
    };
    let source_of = |f: &ParsedFile, ptr: &str| {
        let pos = f.doc.position(ptr);
        RuleSource {
            file: f.path.clone(),
            line: pos.line,
            column: pos.column,
        }
    };
    let change = |kind, reason: String, source| RuleChange {
        release: version.clone(),
        kind,
        reason,
        source,
        fields: Vec::new(),
    };
    let mut rules: Vec<Option<Arc<Rule>>> = if versions == base.versions {
        base.rules.iter().cloned().map(Some).collect()
    } else {
        let at = "/catalogue/add-protocol-versions/0";
        // Each rule is rebased on its own (about half are compiled again), so they share the
        // workers as the base's files did.
        let rebased = super::load::in_parallel(&base.rules, |r| {
            let mut found = Problems(Vec::new());
            let out = rebase(r, &versions, &cx, &surfaces, cat_file, at, &mut found);
            vec![(out, found)]
        });
        rebased
            .into_iter()
            .map(|(out, found)| {
                problems.0.extend(found.0);
                Some(match out? {
                    Rebased::Kept(rule) => Arc::new(*rule),
                    Rebased::Compiled(rule, given) => {
                        let mut rule = *rule;
                        table.intern(&mut rule, given);
                        Arc::new(rule)
                    }
                })
            })
            .collect()
    };
    let mut retired = base.retired.clone();
    let mut added: Vec<Arc<Rule>> = Vec::new();
    let reason_ok = |f: &ParsedFile, ptr: &str, reason: &str, problems: &mut Problems| {
        if reason.trim().is_empty() {
            problems.push_value(f, ptr, "say why in `reason`");
        }
    };

    for f in files {
        for i in list(f, "/retire", problems) {
            let ptr = format!("/retire/{i}");
            let Some(r) = f.deserialize::<RetireDef>(&ptr, problems) else {
                continue;
            };
            reason_ok(f, &format!("{ptr}/reason"), &r.reason, problems);
            let Some(&at) = index.get(r.id.as_str()) else {
                problems.push_value(f, &format!("{ptr}/id"), missing(&r.id, "retire"));
                continue;
            };
            if !claim(&r.id, f, &format!("{ptr}/id"), problems) {
                continue;
            }
            if let Some(rule) = rules[at].take() {
                retired.push(RetiredRule {
                    rule,
                    release: version.clone(),
                    reason: r.reason,
                    source: source_of(f, &ptr),
                });
            }
        }
        for i in list(f, "/applicability", problems) {
            let ptr = format!("/applicability/{i}");
            let Some(c) = f.deserialize::<ApplicabilityChange>(&ptr, problems) else {
                continue;
            };
            reason_ok(f, &format!("{ptr}/reason"), &c.reason, problems);
            let Some(&at) = index.get(c.id.as_str()) else {
                problems.push_value(
                    f,
                    &format!("{ptr}/id"),
                    missing(&c.id, "change the applicability of"),
                );
                continue;
            };
            let (resolved, found) = applicability_sets(&c.applicability, &versions);
            let failed = !found.is_empty();
            for (rel, message) in found {
                problems.push_value(f, &format!("{ptr}{rel}"), message);
            }
            if failed || !claim(&c.id, f, &format!("{ptr}/id"), problems) {
                continue;
            }
            let Some(old) = &rules[at] else { continue };
            let mut rule = Rule::clone(old);
            if let Some(w) = &mut rule.written {
                Arc::make_mut(w).applicability = c.applicability.clone();
            }
            Arc::make_mut(&mut rule.def).applicability = c.applicability;
            rule.evaluated = resolved.evaluated;
            rule.warns = resolved.warns;
            rule.applicability = resolved.table;
            rule.history.changes.push(change(
                ChangeKind::Applicability,
                c.reason,
                source_of(f, &ptr),
            ));
            rules[at] = Some(Arc::new(rule));
        }
        for i in list(f, "/amend", problems) {
            let ptr = format!("/amend/{i}");
            let Some(a) = f.deserialize::<AmendDef>(&ptr, problems) else {
                continue;
            };
            reason_ok(f, &format!("{ptr}/reason"), &a.reason, problems);
            let Some(&at) = index.get(a.id.as_str()) else {
                problems.push_value(f, &format!("{ptr}/id"), missing(&a.id, "amend"));
                continue;
            };
            let Some(old) = rules[at].clone() else {
                continue;
            };
            if !claim(&a.id, f, &format!("{ptr}/id"), problems) {
                continue;
            }
            let mut def = old.written.as_deref().unwrap_or(&old.def).clone();
            let fields = amend(&mut def, &a);
            if fields.is_empty() {
                problems.push_value(
                    f,
                    &ptr,
                    "an amendment changes at least one member of the rule",
                );
                continue;
            }
            let outcome = JsonPath::with_compile_memo(|| {
                super::compile::recompile(
                    def,
                    old.source.clone(),
                    f,
                    &ptr,
                    &versions,
                    &cx,
                    &surfaces,
                )
            });
            problems.0.extend(outcome.problems.0);
            let Some(mut rule) = outcome.rule else {
                continue;
            };
            table.intern(&mut rule, outcome.given);
            rule.history = old.history.clone();
            let mut c = change(ChangeKind::Amended, a.reason, source_of(f, &ptr));
            c.fields = fields;
            rule.history.changes.push(c);
            rules[at] = Some(Arc::new(rule));
        }
        let outcomes = JsonPath::with_compile_memo(|| {
            let mut all = compile_rules(f, "/replace", "/rule", &versions, &cx, &surfaces);
            all.extend(compile_rules(f, "/rules", "", &versions, &cx, &surfaces));
            all
        });
        for outcome in outcomes {
            problems.0.extend(outcome.problems.0);
            let Some((id, _)) = outcome.identity else {
                continue;
            };
            let replacing = outcome.ptr.starts_with("/replace/");
            let id_ptr = format!("{}/id", outcome.ptr);
            if replacing {
                let item = outcome.ptr.trim_end_matches("/rule").to_owned();
                let reason = f
                    .value(&format!("{item}/reason"))
                    .and_then(|v| v.as_str())
                    .map(str::to_owned);
                let Some(reason) = reason else {
                    problems.push_value(f, &item, "a replacement says why in `reason`");
                    continue;
                };
                reason_ok(f, &format!("{item}/reason"), &reason, problems);
                let Some(&at) = index.get(id.as_str()) else {
                    problems.push_value(f, &id_ptr, missing(&id, "replace"));
                    continue;
                };
                if !claim(&id, f, &id_ptr, problems) {
                    continue;
                }
                let (Some(mut rule), Some(old)) = (outcome.rule, &rules[at]) else {
                    continue;
                };
                table.intern(&mut rule, outcome.given);
                let mut history = old.history.clone();
                history.defined_in = version.clone();
                history
                    .changes
                    .push(change(ChangeKind::Replaced, reason, source_of(f, &item)));
                rule.history = history;
                rules[at] = Some(Arc::new(rule));
            } else {
                if index.contains_key(id.as_str()) {
                    problems.push_value(
                        f,
                        &id_ptr,
                        format!(
                            "rule `{id}` is a rule of release {}; change it with `replace` or `applicability`",
                            base.release.version
                        ),
                    );
                    continue;
                }
                if let Some(first) = added.iter().find(|r| r.id() == id) {
                    problems.push_value(
                        f,
                        &id_ptr,
                        format!(
                            "duplicate rule id `{id}`; first defined at {}:{}:{}",
                            first.source.file, first.source.line, first.source.column
                        ),
                    );
                    continue;
                }
                let Some(mut rule) = outcome.rule else {
                    continue;
                };
                table.intern(&mut rule, outcome.given);
                rule.history = RuleHistory::added_in(&version);
                added.push(Arc::new(rule));
            }
        }
    }
    let mut rules: Vec<Arc<Rule>> = rules.into_iter().flatten().collect();
    rules.extend(added);
    // The versions a capture may be dated with: the base's and those the release adds.
    let known = versions.iter().map(|(_, name)| name.to_owned()).collect();
    Some(Catalogue {
        def,
        versions,
        release: Release {
            version,
            serves,
            extends: Some(base.release.version.clone()),
            summary: rdef.summary,
            lineage,
            set_serves: Vec::new(),
        },
        scope: base.scope.clone(),
        references: base.references.clone(),
        paths: table.paths,
        path_kinds: table.kinds,
        surfaces,
        traffic: crate::traffic::TrafficConfig {
            known,
            ..base.traffic.clone()
        },
        traffic_scope: base.traffic_scope.clone(),
        rules,
        retired,
        dir: group.dir.clone(),
        catalogue_file: cat_file.path.clone(),
        files: Arc::new(others),
        caches,
        owners,
        owner_pages,
        house: Vec::new(),
    })
}

/// The base's protocol versions followed by those the release adds, each with the version it
/// behaves like; a problem at each entry that cannot be added.
fn added_versions(
    base: &Catalogue,
    rdef: &ReleaseDef,
    cat_file: &ParsedFile,
    problems: &mut Problems,
) -> VersionList {
    let mut versions = base.versions.clone();
    for (i, added) in rdef.add_protocol_versions.iter().enumerate() {
        let at = format!("/catalogue/add-protocol-versions/{i}");
        let result = versions.add(&added.version, &added.like);
        let message = match result {
            Ok(_) => continue,
            Err(AddVersionError::Duplicate) => (
                format!("{at}/version"),
                format!(
                    "protocol version `{}` is already a version of release {}",
                    added.version, base.release.version
                ),
            ),
            Err(AddVersionError::UnknownModel) => (
                format!("{at}/like"),
                super::suggest::unknown_version(&added.like, &versions),
            ),
            Err(AddVersionError::TooMany) => (
                format!("{at}/version"),
                format!(
                    "a catalogue has at most {} protocol versions",
                    crate::versions::MAX_VERSIONS
                ),
            ),
        };
        problems.push_value(cat_file, &message.0, message.1);
    }
    versions
}

/// A rule of the base in a release that adds protocol versions.
enum Rebased {
    /// Unchanged but for the added versions, which its sets take from their models.
    Kept(Box<Rule>),
    /// Compiled again: what it reads or says depends on the version list.
    Compiled(Box<Rule>, Vec<(crate::DocumentKind, String, JsonPath)>),
}

/// `rule` of the base over the release's `versions`. A rule whose checks, conditions or texts
/// name versions is compiled again, so that each holds for an added version as for its model;
/// its problems (a protocol schema the added version lacks, say) are reported at `at` of
/// `file`, naming the rule.
fn rebase(
    rule: &Rule,
    versions: &VersionList,
    cx: &CompileCx<'_>,
    surfaces: &super::surfaces::SurfaceMap,
    file: &ParsedFile,
    at: &str,
    problems: &mut Problems,
) -> Option<Rebased> {
    if !(rule.version_sensitive || rule.written.is_some()) {
        let mut kept = rule.clone();
        kept.evaluated = versions.extend(rule.evaluated);
        kept.warns = versions.extend(rule.warns);
        for (v, name) in versions.iter().filter(|(v, _)| versions.is_added(*v)) {
            let model = versions.name(versions.model(v));
            if let Some(a) = rule.applicability.get(model).copied() {
                kept.applicability.entry(name.to_owned()).or_insert(a);
            }
        }
        return Some(Rebased::Kept(Box::new(kept)));
    }
    let def = rule.written.as_deref().unwrap_or(&rule.def).clone();
    let outcome =
        super::compile::recompile(def, rule.source.clone(), file, at, versions, cx, surfaces);
    let s = &rule.source;
    for p in outcome.problems.0 {
        problems.0.push(super::load::RuleProblem {
            message: format!(
                "rule `{}` ({}:{}:{}) does not hold for the protocol versions this release adds: {}",
                rule.id(),
                s.file,
                s.line,
                s.column,
                p.message
            ),
            ..p
        });
    }
    let mut compiled = outcome.rule?;
    compiled.history = rule.history.clone();
    Some(Rebased::Compiled(Box::new(compiled), outcome.given))
}

/// Applies the members `a` gives to `def`; the names of the members changed. Applicability
/// entries override the versions they name; a single value replaces the table.
fn amend(def: &mut RuleDef, a: &AmendDef) -> Vec<String> {
    let mut fields = Vec::new();
    // A severity that only restates the old level's default follows the level: amending
    // `should` to `must` makes an error, whether or not the rule spelt `severity: warning` out.
    if a.level.is_some()
        && a.severity.is_none()
        && def.severity == Some(def.level.default_severity())
    {
        def.severity = None;
    }
    macro_rules! set {
        ($($member:ident => $name:literal),* $(,)?) => {$(
            if let Some(v) = &a.$member {
                def.$member = v.clone();
                fields.push($name.to_owned());
            }
        )*};
    }
    set!(
        title => "title", description => "description", requirement => "requirement",
        surface => "surface", path => "path", kind => "kind", level => "level",
        status => "status", enforcement => "enforcement", covers => "covers",
        required_by => "required-by", based_on => "based-on", notes => "notes",
        reference_codes => "reference-codes", examples => "examples", message => "message",
    );
    macro_rules! set_optional {
        ($($member:ident => $name:literal),* $(,)?) => {$(
            if let Some(v) = &a.$member {
                def.$member = Some(v.clone());
                fields.push($name.to_owned());
            }
        )*};
    }
    set_optional!(severity => "severity", help => "help", fix => "fix");
    if let Some(change) = &a.applicability {
        fields.push("applicability".to_owned());
        def.applicability = amended_applicability(change, &def.applicability);
    }
    fields
}

/// A rule's applicability after an amendment: a single value replaces the table; version
/// entries override those versions; a range (`since`/`until`) replaces the range and the
/// default (the versions outside the new range are then `not-applicable` unless the amendment
/// gives a `default`), keeping the table's version entries that the amendment does not name.
fn amended_applicability(change: &ApplicabilityDef, old: &ApplicabilityDef) -> ApplicabilityDef {
    let ApplicabilityDef::Table(t) = change else {
        return change.clone();
    };
    let ranged = t.since.is_some() || t.until.is_some();
    let mut table = match old {
        ApplicabilityDef::All(every) => ApplicabilityTable {
            default: Some(*every),
            ..ApplicabilityTable::default()
        },
        ApplicabilityDef::Table(old) => old.clone(),
    };
    if ranged {
        table.since = t.since.clone();
        table.until = t.until.clone();
        table.default = t.default;
    } else if t.default.is_some() {
        table.default = t.default;
    }
    table
        .versions
        .extend(t.versions.iter().map(|(k, v)| (k.clone(), *v)));
    ApplicabilityDef::Table(table)
}

/// The indices of the list at `ptr` of `f`, or a problem when it is not a list.
fn list(f: &ParsedFile, ptr: &str, problems: &mut Problems) -> std::ops::Range<usize> {
    match f.value(ptr) {
        None => 0..0,
        Some(serde_json::Value::Array(items)) => 0..items.len(),
        Some(_) => {
            problems.push_value(f, ptr, format!("`{}` is a list", &ptr[1..]));
            0..0
        }
    }
}
