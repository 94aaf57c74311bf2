//! Reading a rules directory (or the embedded copy) and reporting every problem at once.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use thiserror::Error;

use crate::document::{pointer, Format, Limits, ValueDocument};

use super::embedded;
use super::releases::CatalogueSet;

/// The contents of a rules-directory file: borrowed from the binary, or read from disk.
pub type Text = std::borrow::Cow<'static, str>;

/// One problem in a rule file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleProblem {
    /// Path relative to the rules directory, or the directory itself for a problem of the
    /// whole directory.
    pub file: String,
    /// 1-based; 0 (with `column`) for a problem of the whole file or directory.
    pub line: u32,
    /// 1-based; 0 (with `line`) for a problem of the whole file or directory.
    pub column: u32,
    /// What is wrong, with the name probably meant when a name is misspelt.
    pub message: String,
}

impl fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file.is_empty(), self.line) {
            (true, _) => f.write_str(&self.message),
            (false, 0) => write!(f, "{}: {}", self.file, self.message),
            (false, _) => write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            ),
        }
    }
}

/// A rule file to parse: its path, its text and, for embedded files, the snapshot of its
/// parsed document made at build time.
type Source<'a> = (&'a String, &'a str, Option<&'static [u8]>);

/// Parses every rule file, in order: from its build-time snapshot where there is one, else
/// from its text.
fn parse_all(files: &[Source<'_>]) -> Vec<Result<ValueDocument, crate::document::LoadError>> {
    in_parallel(files, |(_, text, snapshot)| {
        vec![match snapshot.and_then(ValueDocument::from_snapshot) {
            Some(doc) => Ok(doc),
            None => ValueDocument::parse_str(text, Format::Yaml, &Limits::default()),
        }]
    })
}

/// `work` applied to each of `items` on the shared worker pool, the results concatenated in
/// order. Loading a catalogue is parsing and compiling many independent files, which this
/// spreads over the cores.
///
/// Each file is a task of its own, which an idle worker takes: the cost of compiling a file
/// follows its checks more than its size, and splitting the files into one share per core by
/// size left one core idle for a third of the compilation. The pool's workers, not threads
/// of their own: a thread started and ended for each call cost its start, and at its end the
/// allocator gave back the memory the thread had cached.
pub(super) fn in_parallel<'a, T: Sync, R: Send>(
    items: &'a [T],
    work: impl Fn(&'a T) -> Vec<R> + Sync,
) -> Vec<R> {
    use rayon::prelude::*;
    if rayon::current_num_threads() <= 1 || items.len() <= 1 {
        return items.iter().flat_map(work).collect();
    }
    // The workers share the compilation's memo of parsed paths.
    let memo = crate::path::JsonPath::current_memo();
    let done: Vec<Vec<R>> = items
        .par_iter()
        .with_max_len(1)
        .map(|item| crate::path::JsonPath::with_memo(memo.clone(), || work(item)))
        .collect();
    done.into_iter().flatten().collect()
}

/// Every problem found in a set of rule files; no document is evaluated while any exists.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub struct RuleLoadError {
    /// The problems, each at its file, line and column.
    pub problems: Vec<RuleProblem>,
}

impl fmt::Display for RuleLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} problem(s) in the rule files:", self.problems.len())?;
        for p in &self.problems {
            writeln!(f, "  {p}")?;
        }
        Ok(())
    }
}

/// The files of one or more rules directories, before compilation. Each directory holds
/// one release or several (see [`RuleSet::compile`]).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    roots: Vec<Root>,
    /// Whether a release may extend an embedded release that no root holds.
    embedded_bases: bool,
    /// Directories of house rules, applied on top of every release.
    house: Vec<Root>,
    /// The checks the embedder registered, besides the built-in ones.
    checks: crate::checks::CheckRegistry,
}

/// One rules directory, or the embedded copy.
#[derive(Debug, Clone, Default)]
struct Root {
    /// (path relative to the directory with `/` separators, contents), sorted by path. The
    /// embedded files are borrowed: the protocol schemas alone are most of a megabyte.
    files: Vec<(String, Text)>,
    /// Build-time snapshots of embedded rule files, by path.
    snapshots: HashMap<String, &'static [u8]>,
    dir: Option<PathBuf>,
}

impl Root {
    /// Files read from a directory or given directly, sorted by path.
    fn owned(mut files: Vec<(String, String)>, dir: Option<PathBuf>) -> Root {
        files.sort();
        Root {
            files: files
                .into_iter()
                .map(|(p, t)| (p, Text::Owned(t)))
                .collect(),
            snapshots: HashMap::new(),
            dir,
        }
    }

    /// The rule files of `dir`; what cannot be read goes to `problems`.
    fn read(dir: &Path, problems: &mut Vec<RuleProblem>) -> Root {
        let mut files = Vec::new();
        let mut seen = std::collections::HashSet::new();
        read_dir(dir, dir, &mut files, problems, &mut seen);
        Root::owned(files, Some(dir.to_path_buf()))
    }
}

impl RuleSet {
    /// The catalogue compiled into this library: every embedded release.
    pub fn embedded() -> RuleSet {
        RuleSet {
            roots: vec![embedded_root()],
            embedded_bases: false,
            ..RuleSet::default()
        }
    }

    /// Every file below `dir` (rule files are `*.yaml` / `*.yml`; other files, JSON schemas
    /// and page templates (`*.j2`, `*.jinja`), are available by relative path).
    pub fn from_dir(dir: &Path) -> Result<RuleSet, RuleLoadError> {
        RuleSet::from_dirs(&[dir.to_path_buf()])
    }

    /// The releases of several directories, loaded together. A release may extend one in
    /// another directory, or an embedded release that none of them holds.
    pub fn from_dirs(dirs: &[PathBuf]) -> Result<RuleSet, RuleLoadError> {
        let mut roots = Vec::new();
        let mut problems = Vec::new();
        for dir in dirs {
            roots.push(Root::read(dir, &mut problems));
        }
        if !problems.is_empty() {
            return Err(RuleLoadError { problems });
        }
        Ok(RuleSet {
            roots,
            embedded_bases: true,
            ..RuleSet::default()
        })
    }

    /// Files given directly, as (relative path, contents).
    pub fn from_files(files: Vec<(String, String)>) -> RuleSet {
        RuleSet {
            roots: vec![Root::owned(files, None)],
            embedded_bases: true,
            ..RuleSet::default()
        }
    }

    /// These rules with the house rules of `dirs` applied on top of every release (see
    /// `docs/rule-format.md`, "House rules"): each directory holds one set, whose rules run
    /// whichever release judges a document.
    pub fn with_house_rules(mut self, dirs: &[PathBuf]) -> Result<RuleSet, RuleLoadError> {
        let mut problems = Vec::new();
        for dir in dirs {
            self.house.push(Root::read(dir, &mut problems));
        }
        if !problems.is_empty() {
            return Err(RuleLoadError { problems });
        }
        Ok(self)
    }

    /// These rules with house-rule files given directly, as (relative path, contents): one
    /// set.
    pub fn with_house_rule_files(mut self, files: Vec<(String, String)>) -> RuleSet {
        self.house.push(Root::owned(files, None));
        self
    }

    /// These rules, compiled with the custom checks of `checks` besides the built-in ones.
    pub fn with_checks(mut self, checks: crate::checks::CheckRegistry) -> RuleSet {
        self.checks = checks;
        self
    }

    /// Parses and compiles every release.
    ///
    /// A file with a `catalogue` block starts a release; the release's files are those in
    /// that file's directory and below, except directories that start a release of their
    /// own. A release that `extends` another is compiled from the compiled base: only the
    /// rules it adds or changes are compiled again.
    #[doc(hidden)]
    pub fn compile(&self) -> Result<CatalogueSet, RuleLoadError> {
        crate::path::JsonPath::with_compile_memo(|| self.compile_releases())
    }

    fn compile_releases(&self) -> Result<CatalogueSet, RuleLoadError> {
        let mut problems = Problems::default();
        let several = self.roots.len() > 1;
        let mut groups = Vec::new();
        for root in &self.roots {
            groups.extend(releases_of(root, several, &mut problems));
        }
        let wanted = super::extend::missing_bases(&groups);
        if self.embedded_bases && !wanted.is_empty() {
            let embedded = releases_of(&embedded_root(), false, &mut Problems::default());
            groups.extend(super::extend::bases_among(embedded, &wanted));
        }
        let mut releases = super::extend::compile_releases(groups, &self.checks, &mut problems);
        if !self.house.is_empty() {
            let several = self.house.len() > 1;
            let sets: Vec<super::house::HouseSet> = self
                .house
                .iter()
                .map(|root| house_set(root, several, &mut problems))
                .collect();
            super::house::apply_all(&mut releases, &sets, &self.checks, &mut problems);
        }
        if problems.0.is_empty() && !releases.is_empty() {
            return Ok(CatalogueSet::new(releases));
        }
        let mut problems = problems.0;
        problems.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        problems.dedup();
        Err(RuleLoadError { problems })
    }
}

fn embedded_root() -> Root {
    Root {
        files: embedded::FILES
            .iter()
            .map(|(p, t, _)| ((*p).to_owned(), Text::Borrowed(t)))
            .collect(),
        snapshots: embedded::FILES
            .iter()
            .filter_map(|(p, _, s)| Some(((*p).to_owned(), (*s)?)))
            .collect(),
        dir: None,
    }
}

/// A house-rules directory, parsed.
fn house_set(root: &Root, several: bool, problems: &mut Problems) -> super::house::HouseSet {
    let shown = |rel: &str| match (&root.dir, several) {
        (Some(d), true) => format!("{}/{rel}", d.display()),
        _ => rel.to_owned(),
    };
    let rule_files: Vec<Source<'_>> = root
        .files
        .iter()
        .filter(|(p, _)| is_rule_file(p))
        .map(|(p, t)| (p, &**t, None))
        .collect();
    let mut files = Vec::new();
    for ((path, _, _), loaded) in rule_files.iter().zip(parse_all(&rule_files)) {
        match loaded {
            Ok(doc) => files.push(ParsedFile {
                path: shown(path),
                doc,
            }),
            Err(e) => problems.push_at(
                &shown(path),
                e.position.line,
                e.position.column,
                e.kind.to_string(),
            ),
        }
    }
    super::house::HouseSet {
        files,
        others: root
            .files
            .iter()
            .filter(|(p, _)| !is_rule_file(p))
            .map(|(p, t)| (p.clone(), t.clone()))
            .collect(),
        label: root
            .dir
            .as_ref()
            .map_or_else(|| "house rules".to_owned(), |d| d.display().to_string()),
    }
}

/// The files of one release, before compilation.
pub(super) struct ReleaseFiles {
    /// Rule files, with paths as shown in problems and rule sources.
    pub parsed: Vec<ParsedFile>,
    /// Other files (schemas), by path relative to the release's directory.
    pub others: HashMap<String, Text>,
    /// The release's directory on disk (`None` when embedded).
    pub dir: Option<PathBuf>,
    /// Where the embedded release's fixtures are looked for.
    pub embedded_dir: Option<PathBuf>,
}

/// The directory part of a relative path (`""` at the top).
fn parent_of(rel: &str) -> &str {
    rel.rfind('/').map_or("", |i| &rel[..i])
}

/// Whether `dir` is `base` or below it.
fn is_within(dir: &str, base: &str) -> bool {
    base.is_empty() || dir == base || dir.starts_with(&format!("{base}/"))
}

/// Parses a root's rule files and groups every file into the release it belongs to.
fn releases_of(root: &Root, several: bool, problems: &mut Problems) -> Vec<ReleaseFiles> {
    let shown = |rel: &str| match (&root.dir, several) {
        (Some(d), true) => format!("{}/{rel}", d.display()),
        _ => rel.to_owned(),
    };
    let rule_files: Vec<(&String, &str, Option<&'static [u8]>)> = root
        .files
        .iter()
        .filter(|(p, _)| is_rule_file(p))
        .map(|(p, t)| (p, &**t, root.snapshots.get(p).copied()))
        .collect();
    let mut parsed = Vec::new();
    for ((path, _, _), loaded) in rule_files.iter().zip(parse_all(&rule_files)) {
        match loaded {
            Ok(doc) => parsed.push((
                (*path).clone(),
                ParsedFile {
                    path: shown(path),
                    doc,
                },
            )),
            Err(e) => problems.push_at(
                &shown(path),
                e.position.line,
                e.position.column,
                e.kind.to_string(),
            ),
        }
    }
    // The directories that start a release, each with its first catalogue file.
    let mut starts: Vec<(String, String)> = Vec::new();
    for (rel, f) in &parsed {
        if f.value("/catalogue").is_none() {
            continue;
        }
        let dir = parent_of(rel).to_owned();
        match starts.iter().find(|(d, _)| *d == dir) {
            Some((_, first)) => problems.push(
                f,
                "/catalogue",
                format!("a second `catalogue`; the first is in {first}"),
            ),
            None => starts.push((dir, f.path.clone())),
        }
    }
    if starts.is_empty() {
        let label = root
            .dir
            .as_ref()
            .map_or(String::new(), |d| d.display().to_string());
        problems.push_at(&label, 0, 0, "no rule file defines the `catalogue`");
        return Vec::new();
    }
    // The deepest start that contains a directory owns it.
    let owner = |rel: &str| {
        let dir = parent_of(rel);
        starts
            .iter()
            .enumerate()
            .filter(|(_, (d, _))| is_within(dir, d))
            .max_by_key(|(_, (d, _))| d.len())
            .map(|(i, _)| i)
    };
    let mut groups: Vec<ReleaseFiles> = starts
        .iter()
        .map(|(d, _)| {
            let sub = |base: &Path| {
                if d.is_empty() {
                    base.to_path_buf()
                } else {
                    base.join(d)
                }
            };
            ReleaseFiles {
                parsed: Vec::new(),
                others: HashMap::new(),
                dir: root.dir.as_deref().map(sub),
                embedded_dir: root
                    .dir
                    .is_none()
                    .then(|| sub(Path::new(embedded::RULES_DIR))),
            }
        })
        .collect();
    for (rel, f) in parsed {
        match owner(&rel) {
            Some(i) => groups[i].parsed.push(f),
            None => problems.push_at(
                &f.path,
                1,
                1,
                "this file belongs to no release: no file in its directory or above has a `catalogue`",
            ),
        }
    }
    for (rel, text) in root.files.iter().filter(|(p, _)| !is_rule_file(p)) {
        if let Some(i) = owner(rel) {
            let base = &starts[i].0;
            let inner = if base.is_empty() {
                rel.as_str()
            } else {
                &rel[base.len() + 1..]
            };
            groups[i].others.insert(inner.to_owned(), text.clone());
        }
    }
    groups
}

/// A page template (`pages.template` of a catalogue).
fn is_template(path: &str) -> bool {
    path.ends_with(".j2") || path.ends_with(".jinja")
}

fn is_rule_file(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

fn read_dir(
    root: &Path,
    dir: &Path,
    files: &mut Vec<(String, String)>,
    problems: &mut Vec<RuleProblem>,
    seen: &mut std::collections::HashSet<PathBuf>,
) {
    // Each directory once, so a symbolic link back up the tree is not followed forever.
    if !seen.insert(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())) {
        return;
    }
    let problem = |p: &Path, e: std::io::Error| RuleProblem {
        file: p.display().to_string(),
        line: 0,
        column: 0,
        message: format!("cannot read: {e}"),
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return problems.push(problem(dir, e)),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A link is followed only where it stays inside the rules directory: one to `/` would
        // read the whole file system (`/proc` included).
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            let inside = match (std::fs::canonicalize(root), std::fs::canonicalize(&path)) {
                (Ok(r), Ok(target)) => target.starts_with(&r),
                // A dangling link names nothing to read.
                _ => continue,
            };
            if !inside {
                problems.push(RuleProblem {
                    file: path.display().to_string(),
                    line: 0,
                    column: 0,
                    message: "a symbolic link that leads out of the rules directory; rule files \
                              read nothing outside it, so it is not followed"
                        .into(),
                });
                continue;
            }
        }
        if path.is_dir() {
            read_dir(root, &path, files, problems, seen);
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        // Page templates are read as text for `pages.template`, never as rule files.
        let wanted = is_rule_file(&rel) || rel.ends_with(".json") || is_template(&rel);
        if !wanted {
            continue;
        }
        match read_text(&path) {
            Ok(Ok(text)) => files.push((rel, text)),
            Ok(Err((line, column, message))) => problems.push(RuleProblem {
                file: rel,
                line,
                column,
                message,
            }),
            Err(e) => problems.push(problem(&path, e)),
        }
    }
}

/// The text of a rules-directory file, read up to the document size limit; a file that is
/// larger or not UTF-8 is a problem at a line and column.
fn read_text(path: &Path) -> std::io::Result<Result<String, (u32, u32, String)>> {
    use std::io::Read;
    let max = Limits::default().max_input_bytes;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        let message = format!("rule file is larger than the max-input-bytes limit ({max} bytes)");
        return Ok(Err((1, 1, message)));
    }
    Ok(String::from_utf8(bytes).map_err(|e| {
        let at =
            crate::document::Position::of_byte_offset(e.as_bytes(), e.utf8_error().valid_up_to());
        (
            at.line,
            at.column,
            crate::document::LoadErrorKind::InvalidUtf8.to_string(),
        )
    }))
}

/// A rule file read as a positioned document.
pub(super) struct ParsedFile {
    pub path: String,
    pub doc: ValueDocument,
}

impl ParsedFile {
    /// Deserializes the node at `ptr`, reporting the first problem at its source position.
    pub(super) fn deserialize<T: DeserializeOwned>(
        &self,
        ptr: &str,
        problems: &mut Problems,
    ) -> Option<T> {
        let value = self.doc.value().pointer(ptr)?;
        // Tracking the path costs a third of deserializing; it is only needed for a problem.
        if let Ok(v) = T::deserialize(value) {
            return Some(v);
        }
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let mut at = ptr.to_owned();
                for seg in e.path().iter() {
                    use serde_path_to_error::Segment;
                    match seg {
                        Segment::Seq { index } => at = pointer::push(&at, &index.to_string()),
                        Segment::Map { key } => at = pointer::push(&at, key),
                        Segment::Enum { .. } | Segment::Unknown => {}
                    }
                }
                let message = e.into_inner().to_string();
                // An unknown member is best shown at its key.
                if let Some(name) = message
                    .strip_prefix("unknown field `")
                    .and_then(|r| r.split('`').next())
                {
                    let key = pointer::push(&at, name);
                    if self.doc.value().pointer(&key).is_some() {
                        at = key;
                    }
                }
                // With the name probably meant, when one is close.
                let message = super::suggest::serde_message(&message).into_owned();
                problems.push(self, &at, message);
                None
            }
        }
    }

    pub(super) fn value(&self, ptr: &str) -> Option<&Value> {
        self.doc.value().pointer(ptr)
    }
}

/// Problems collected while compiling.
#[derive(Debug, Default)]
pub(super) struct Problems(pub Vec<RuleProblem>);

impl Problems {
    /// A problem at `ptr` of `file` (at the member's key when it has one).
    pub(super) fn push(&mut self, file: &ParsedFile, ptr: &str, message: impl Into<String>) {
        let pos = file.doc.key_position(ptr);
        self.push_at(&file.path, pos.line, pos.column, message);
    }

    /// A problem at the value (not the key) at `ptr`.
    pub(super) fn push_value(&mut self, file: &ParsedFile, ptr: &str, message: impl Into<String>) {
        let pos = file.doc.position(ptr);
        self.push_at(&file.path, pos.line, pos.column, message);
    }

    pub(super) fn push_at(
        &mut self,
        file: &str,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        self.0.push(RuleProblem {
            file: file.to_owned(),
            line,
            column,
            message: message.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::in_parallel;
    use crate::path::JsonPath;

    #[test]
    fn in_parallel_keeps_order_and_the_memo_on_every_worker() {
        let items: Vec<usize> = (0..97).collect();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let done = pool.install(|| {
                JsonPath::with_compile_memo(|| {
                    in_parallel(&items, |i| {
                        let memo = JsonPath::current_memo().is_some();
                        // Items give different numbers of results.
                        vec![(*i, memo); i % 3]
                    })
                })
            });
            let expected: Vec<(usize, bool)> =
                items.iter().flat_map(|i| vec![(*i, true); i % 3]).collect();
            assert_eq!(done, expected, "{threads} threads");
        }
    }
}
