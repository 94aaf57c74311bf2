//! Turning command-line arguments into the documents to validate: files, directories (walked
//! with `.gitignore` honoured), glob patterns and `-` for standard input. Also which corpus
//! arguments of `test` and `diff` yield no document, with the same message.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use anyhow::{bail, Result};
use globset::GlobBuilder;

use crate::file_selection::FileFilter;

/// Where a document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    File(PathBuf),
    Stdin,
    /// An argument that names nothing readable; the message says why.
    Missing(String),
}

/// One document to validate.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    /// The path shown in reports.
    pub display: String,
    pub source: Source,
    /// The index of the directory or glob argument that found it; `None` for a file named on
    /// the command line, which is checked whatever it holds (unless `--force-exclude`).
    pub origin: Option<usize>,
}

/// A file passed over before being read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PassedOver {
    pub display: String,
    pub why: &'static str,
}

/// The bytes of the document file at `path` (at most `limit` and one more, as
/// [`mcpdesc_core::document::read_bounded`]), read after the allocator is prepared for its size.
pub(crate) fn read_document(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    crate::allocator::prepare_for_document(len.min(limit));
    mcpdesc_core::document::read_bounded(path, limit)
}

/// Standard input (at most `limit` bytes and one more), with the allocator prepared for its
/// size once it is read: its length is not known before.
pub(crate) fn read_stdin(limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::io::stdin()
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)?;
    crate::allocator::prepare_for_document(buf.len() as u64);
    Ok(buf)
}

/// The format of standard input read without a name that says it, judged by its content:
/// JSON when it is one JSON value, a capture when it is several (NDJSON) or JSON-RPC
/// messages, YAML otherwise. Text that starts like JSON but does not parse is taken for JSON,
/// so that the syntax error reported is the JSON one.
pub(crate) fn sniff_format(bytes: &[u8]) -> mcpdesc_core::Format {
    use mcpdesc_core::Format;
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(first) = text.iter().find(|b| !b.is_ascii_whitespace()) else {
        return Format::Json;
    };
    if !matches!(first, b'{' | b'[') {
        return Format::Yaml;
    }
    let mut values = serde_json::Deserializer::from_slice(text).into_iter::<serde_json::Value>();
    let is_message = |v: &serde_json::Value| v.get("jsonrpc").is_some();
    match (values.next(), values.next()) {
        (Some(Ok(_)), Some(Ok(_))) => Format::Capture,
        (Some(Ok(serde_json::Value::Array(items))), None)
            if items.first().is_some_and(is_message) =>
        {
            Format::Capture
        }
        (Some(Ok(v)), None) if is_message(&v) => Format::Capture,
        _ => Format::Json,
    }
}

/// The extensions of the files a directory or glob yields.
const DOCUMENT_EXTENSIONS: [&str; 5] = [".json", ".yaml", ".yml", ".ndjson", ".jsonl"];

/// Whether a walked file is a document: `*.json`, `*.yaml`, `*.yml`, or a capture
/// (`*.ndjson`, `*.jsonl`), not an `*.expected.yaml` sidecar.
pub(crate) fn is_document(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !name.ends_with(".expected.yaml")
        && !name.ends_with(".expected.yml")
        && DOCUMENT_EXTENSIONS.iter().any(|e| name.ends_with(e))
}

/// A directory or glob argument that yields no document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EmptyInput {
    /// The argument as given.
    pub arg: String,
    pub glob: bool,
    pub why: Emptiness,
}

/// What little is known about why an input yields no document, to point at the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Emptiness {
    /// No file with a document's name is there, ignored or not.
    NoDocuments,
    /// Documents are there, but hidden or excluded by `.gitignore`/`.ignore` files.
    Ignored,
    /// Documents are there, but hidden (a corpus walk skips hidden names only).
    Hidden,
    /// The only documents are excluded ones (the baseline).
    OnlyExcluded,
    /// The literal directory a glob is matched from does not exist.
    NoBase(String),
    /// Files with a document's name are there, but none is a description or a capture.
    Unrecognised(usize),
}

impl std::fmt::Display for EmptyInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.glob { "matches" } else { "holds" };
        let extensions = DOCUMENT_EXTENSIONS.map(|e| format!("*{e}")).join(", ");
        write!(
            f,
            "`{}` {verb} no MCP Description documents or captures ({extensions})",
            self.arg
        )?;
        match &self.why {
            Emptiness::NoDocuments => Ok(()),
            Emptiness::Ignored => write!(
                f,
                ": the ones {} are hidden or excluded by .gitignore or .ignore files (name a \
                 file to validate it anyway)",
                if self.glob {
                    "it would match"
                } else {
                    "below it"
                }
            ),
            Emptiness::Hidden => f.write_str(
                ": the ones below it are hidden (name a file, or a hidden directory, to include it \
                 anyway)",
            ),
            Emptiness::OnlyExcluded => f.write_str(" other than the baseline"),
            Emptiness::NoBase(base) => write!(f, "; `{base}` does not exist"),
            Emptiness::Unrecognised(n) => write!(
                f,
                ": the {} {} other JSON or YAML, without a top-level `mcpdesc` member (name \
                 a file to validate it anyway)",
                crate::render::plural(*n, "file", "files"),
                if *n == 1 { "it yields is" } else { "it yields are" }
            ),
        }
    }
}

fn has_glob_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

fn display(path: &Path) -> String {
    let s = path.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// Every included file under `dir`, skipping what `.gitignore`/`.ignore` files, hidden
/// names and the excludes leave out. The directory itself was named, so an exclude that
/// matches it applies only under `--force-exclude`.
fn walk(dir: &Path, filter: &Arc<FileFilter>) -> Vec<PathBuf> {
    let entries = Arc::clone(filter);
    ignore::WalkBuilder::new(dir)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            (e.depth() == 0 && !entries.force)
                || !entries.excluded_entry(e.path(), e.file_type().is_some_and(|t| t.is_dir()))
        })
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && filter.included(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Whether `dir` holds a document that `walk` skips and `wanted` accepts. Only asked once an
/// input turned out empty, and it stops at the first such document, so the unfiltered walk
/// costs little where it matters: ignored trees such as `target/` are full of `*.json`.
fn holds_skipped(dir: &Path, wanted: impl Fn(&Path) -> bool) -> bool {
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        // Hidden names are skipped by `walk`, but `.git` never holds a document and is large.
        .filter_entry(|e| e.file_name() != ".git")
        .build()
        .flatten()
        .any(|e| {
            e.file_type().is_some_and(|t| t.is_file()) && is_document(e.path()) && wanted(e.path())
        })
}

/// Why `found` (the documents of a directory or glob, before `exclude`) left nothing.
fn emptiness(found: usize, dir: &Path, wanted: impl Fn(&Path) -> bool) -> Emptiness {
    if found > 0 {
        Emptiness::OnlyExcluded
    } else if holds_skipped(dir, wanted) {
        Emptiness::Ignored
    } else {
        Emptiness::NoDocuments
    }
}

/// Standard error's lines for inputs that yield no document: one per input, so each is named
/// where a log search finds it, then how to allow them.
pub(crate) fn empty_input_error(empty: &[EmptyInput]) -> String {
    error_lines(
        empty,
        "--allow-empty-input (or set `allow-empty-input = true` under [validate] in \
         mcpdesc.toml)",
    )
}

/// [`empty_input_error`] for the corpus arguments of `test` and `diff`, which read no
/// configuration file.
pub(crate) fn empty_corpus_error(empty: &[EmptyInput]) -> String {
    error_lines(empty, "--allow-empty-input")
}

fn error_lines(empty: &[EmptyInput], allow: &str) -> String {
    let mut out: String = empty.iter().map(|e| format!("error: {e}\n")).collect();
    out.push_str(&format!("hint: pass {allow} to let such inputs pass\n"));
    out
}

/// The directory arguments of a corpus (of `test` or `diff`) that hold no document of their
/// own, as [`mcpdesc_authoring::corpus::collect`] walks them, in the order given, each once. Files
/// are taken as they are and so are never empty; a path that does not exist is left to the
/// walk, which refuses it.
pub(crate) fn empty_corpus(
    roots: &[PathBuf],
) -> Result<Vec<EmptyInput>, mcpdesc_authoring::corpus::CorpusError> {
    let mut out: Vec<EmptyInput> = Vec::new();
    for root in roots {
        let arg = root.to_string_lossy().into_owned();
        if !root.is_dir() || out.iter().any(|e| e.arg == arg) {
            continue;
        }
        if mcpdesc_authoring::corpus::collect(std::slice::from_ref(root))?.is_empty() {
            // The corpus walk skips hidden names but no ignore file, so any document the
            // unfiltered walk finds is a hidden one.
            let why = if holds_skipped(root, |_| true) {
                Emptiness::Hidden
            } else {
                Emptiness::NoDocuments
            };
            out.push(EmptyInput {
                arg,
                glob: false,
                why,
            });
        }
    }
    Ok(out)
}

/// What the arguments expand to.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    pub inputs: Vec<Input>,
    /// The directories and globs that yielded no document, in the order given, each once.
    pub empty: Vec<EmptyInput>,
    /// Named files that `--force-exclude` left out.
    pub passed_over: Vec<PassedOver>,
}

impl Expansion {
    /// Adds the documents of one directory or glob that `keep` accepts; when none is left, adds
    /// instead `empty` of how many were found.
    fn add(
        &mut self,
        origin: usize,
        found: Vec<PathBuf>,
        keep: impl Fn(&PathBuf) -> bool,
        empty: impl FnOnce(usize) -> EmptyInput,
    ) {
        let total = found.len();
        let before = self.inputs.len();
        self.inputs
            .extend(found.into_iter().filter(keep).map(|p| Input {
                display: display(&p),
                source: Source::File(p),
                origin: Some(origin),
            }));
        if self.inputs.len() == before {
            self.empty.push(empty(total));
        }
    }
}

/// Expands the arguments into documents, each listed once: arguments in the order given, the
/// documents of a directory or glob sorted by path. Directories and globs leave out the files
/// of `exclude` (absolute paths, such as the baseline file). A directory or glob that yields
/// no document is listed in `empty` rather than failing here, so that the caller can name
/// every such argument at once, or allow them. `filter` chooses the files of directories and
/// globs, and of named files too when it forces its excludes.
pub(crate) fn expand(
    args: &[PathBuf],
    stdin_filename: Option<&str>,
    exclude: &[PathBuf],
    filter: &Arc<FileFilter>,
) -> Result<Expansion> {
    let keep = |p: &PathBuf| {
        exclude.is_empty() || !exclude.contains(&mcpdesc_project::config::absolute(p))
    };
    let mut out = Expansion::default();
    let mut stdin = false;
    for (origin, arg) in args.iter().enumerate() {
        let text = arg.to_string_lossy();
        if text == "-" {
            if stdin {
                bail!("`-` (standard input) given more than once");
            }
            stdin = true;
            let excluded = filter.force
                && stdin_filename.is_some_and(|name| filter.excluded(Path::new(name), false));
            if excluded {
                out.passed_over.push(PassedOver {
                    display: stdin_filename.unwrap_or_default().to_owned(),
                    why: "excluded",
                });
                continue;
            }
            out.inputs.push(Input {
                display: stdin_filename.unwrap_or("<stdin>").to_owned(),
                source: Source::Stdin,
                origin: None,
            });
        } else if arg.is_dir() {
            out.add(origin, walk(arg, filter), keep, |found| EmptyInput {
                arg: text.into_owned(),
                glob: false,
                why: emptiness(found, arg, |_| true),
            });
        } else if arg.exists() {
            if filter.force && filter.excluded(arg, false) {
                out.passed_over.push(PassedOver {
                    display: display(arg),
                    why: "excluded",
                });
                continue;
            }
            out.inputs.push(Input {
                display: display(arg),
                source: Source::File(arg.clone()),
                origin: None,
            });
        } else if has_glob_meta(&text) {
            let glob = Glob::new(&text)?;
            let found = walk(&glob.root, filter)
                .into_iter()
                .filter(|p| glob.matches(p))
                .collect();
            out.add(origin, found, keep, |found| EmptyInput {
                arg: text.into_owned(),
                glob: true,
                why: if glob.root.exists() {
                    emptiness(found, &glob.root, |p| glob.matches(p))
                } else {
                    Emptiness::NoBase(display(&glob.root))
                },
            });
        } else {
            out.inputs.push(Input {
                display: display(arg),
                origin: None,
                source: Source::Missing(format!(
                    "cannot read {}: {}",
                    arg.display(),
                    std::fs::metadata(arg)
                        .err()
                        .map_or_else(|| "not a file".to_owned(), |e| e.to_string())
                )),
            });
        }
    }
    if stdin_filename.is_some() && !stdin {
        bail!("--stdin-filename needs `-` among the inputs");
    }
    // The same file named two ways (`a.json`, `./a.json`, an absolute path) is one document.
    let mut seen = std::collections::HashSet::new();
    out.inputs.retain(|i| {
        let key = match &i.source {
            Source::File(path) => std::fs::canonicalize(path)
                .map_or_else(|_| i.display.clone(), |p| p.display().to_string()),
            _ => i.display.clone(),
        };
        seen.insert(key)
    });
    let mut seen = std::collections::HashSet::new();
    out.empty.retain(|e| seen.insert(e.arg.clone()));
    Ok(out)
}

/// A glob pattern, matched against the documents below its longest literal directory.
struct Glob {
    root: PathBuf,
    matcher: globset::GlobMatcher,
}

impl Glob {
    fn new(pattern: &str) -> Result<Glob> {
        let normalized = pattern.strip_prefix("./").unwrap_or(pattern);
        let matcher = GlobBuilder::new(normalized)
            .literal_separator(true)
            .build()?
            .compile_matcher();
        let mut base = if normalized.starts_with('/') {
            PathBuf::from("/")
        } else {
            PathBuf::new()
        };
        for part in normalized.split('/').filter(|p| !p.is_empty()) {
            if has_glob_meta(part) {
                break;
            }
            base.push(part);
        }
        let root = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        Ok(Glob { root, matcher })
    }

    fn matches(&self, path: &Path) -> bool {
        self.matcher.is_match(display(path))
    }
}

#[cfg(test)]
mod tests {
    use super::{expand, is_document};
    use crate::file_selection::{FileFilter, FileSelectionArgs};
    use std::path::Path;
    use std::sync::Arc;

    fn filter(args: &FileSelectionArgs, root: &Path) -> Arc<FileFilter> {
        Arc::new(FileFilter::new(args, None, &root.canonicalize().unwrap()).unwrap())
    }

    #[test]
    fn a_file_named_two_ways_is_one_document() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, "{}").unwrap();
        let other = dir.path().join(".").join("a.json");
        let out = expand(
            &[file.clone(), other, dir.path().to_path_buf()],
            None,
            &[],
            &filter(&FileSelectionArgs::default(), dir.path()),
        )
        .unwrap();
        assert_eq!(out.inputs.len(), 1, "{:?}", out.inputs);
    }

    #[test]
    fn named_files_pass_the_excludes_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let file = dir.join("node_modules").join("a.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "{}").unwrap();
        let args = [file.clone(), dir.clone()];
        let plain = expand(
            &args,
            None,
            &[],
            &filter(&FileSelectionArgs::default(), &dir),
        )
        .unwrap();
        assert_eq!(plain.inputs.len(), 1, "{:?}", plain.inputs);
        assert_eq!(plain.inputs[0].origin, None);
        let forced = FileSelectionArgs {
            force_exclude: true,
            ..Default::default()
        };
        let forced = expand(&args, None, &[], &filter(&forced, &dir)).unwrap();
        assert!(forced.inputs.is_empty(), "{:?}", forced.inputs);
        assert_eq!(forced.passed_over.len(), 1);
        assert_eq!(forced.empty.len(), 1, "the directory now yields nothing");
    }

    #[test]
    fn standard_input_is_read_as_what_it_holds() {
        use mcpdesc_core::Format;
        let sniff = super::sniff_format;
        assert_eq!(sniff(b"  {\"mcpdesc\": \"0.8.0\"}\n"), Format::Json);
        assert_eq!(sniff(b"mcpdesc: 0.8.0\ninfo: {}\n"), Format::Yaml);
        assert_eq!(sniff(b"---\nmcpdesc: 0.8.0\n"), Format::Yaml);
        assert_eq!(
            sniff(b"{\"jsonrpc\": \"2.0\"}\n{\"jsonrpc\": \"2.0\"}\n"),
            Format::Capture
        );
        assert_eq!(
            sniff(b"[{\"jsonrpc\": \"2.0\", \"id\": 1}]"),
            Format::Capture
        );
        assert_eq!(sniff(b"{\"jsonrpc\": \"2.0\", \"id\": 1}"), Format::Capture);
        assert_eq!(sniff(b"{\"mcpdesc\": "), Format::Json);
        assert_eq!(sniff(b"\xEF\xBB\xBF[1, 2]"), Format::Json);
        assert_eq!(sniff(b""), Format::Json);
    }

    #[test]
    fn documents_by_extension_without_sidecars() {
        assert!(is_document(Path::new("a/b.json")));
        assert!(is_document(Path::new("a/b.YML")));
        assert!(!is_document(Path::new("a/b.expected.yaml")));
        assert!(!is_document(Path::new("a/b.toml")));
    }
}
