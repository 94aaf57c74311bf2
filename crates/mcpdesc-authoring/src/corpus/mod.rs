//! Tools for spec authors that work on whole corpora of documents and whole catalogues:
//!
//! - walking a corpus ([`collect`]): files and directories of `*.json`, `*.yaml`, `*.yml`;
//! - the expected-diagnostics sidecar format ([`sidecar`]);
//! - the fixture regression runner ([`runner`]) and the catalogue registry checks
//!   ([`registry`]);
//! - rule pages generated from the rule files ([`pages`]);
//! - the impact of a rule change on a corpus ([`impact`]).
//!
//! Everything here returns plain data; rendering for a terminal is the caller's business.

pub mod impact;
pub mod layout;
pub mod pages;
pub mod paths;
pub mod registry;
pub mod runner;
pub mod sidecar;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Errors reading a corpus or writing generated files.
#[derive(Debug, Error)]
pub enum CorpusError {
    /// A file or directory given to run does not exist.
    #[error("{path}: no such file or directory")]
    Missing {
        /// The path, as displayed.
        path: String,
    },
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path, as displayed.
        path: String,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written, or a directory made or removed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The path, as displayed.
        path: String,
        /// Why writing failed.
        #[source]
        source: std::io::Error,
    },
}

impl CorpusError {
    pub(crate) fn read(path: &Path, source: std::io::Error) -> CorpusError {
        CorpusError::Read {
            path: path.display().to_string(),
            source,
        }
    }

    pub(crate) fn write(path: &Path, source: std::io::Error) -> CorpusError {
        CorpusError::Write {
            path: path.display().to_string(),
            source,
        }
    }
}

/// One document of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusDoc {
    /// The file on disk.
    pub path: PathBuf,
    /// The path for display, `/`-separated: the argument as given, then the path below it.
    pub display: String,
}

/// The suffix of expected-diagnostics sidecars, which are never documents themselves.
pub const SIDECAR_SUFFIX: &str = ".expected.yaml";

/// Whether `name` is a document file name (`*.json`, `*.yaml`, `*.yml`, not a sidecar).
pub fn is_document_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !lower.ends_with(SIDECAR_SUFFIX)
        && [".json", ".yaml", ".yml", ".ndjson", ".jsonl"]
            .iter()
            .any(|e| lower.ends_with(e))
}

/// Every document named by `roots`: a file is taken as it is, a directory is walked
/// recursively (hidden entries skipped, entries in name order) for document files.
/// A file reached twice is listed once.
pub fn collect(roots: &[PathBuf]) -> Result<Vec<CorpusDoc>, CorpusError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for root in roots {
        let display = display_root(root);
        let meta = std::fs::metadata(root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CorpusError::Missing {
                path: root.display().to_string(),
            },
            _ => CorpusError::read(root, e),
        })?;
        if meta.is_dir() {
            walk(root, &display, &mut out, &mut seen)?;
        } else if seen.insert(canonical(root)) {
            out.push(CorpusDoc {
                path: root.clone(),
                display,
            });
        }
    }
    Ok(out)
}

fn walk(
    dir: &Path,
    display: &str,
    out: &mut Vec<CorpusDoc>,
    seen: &mut HashSet<PathBuf>,
) -> Result<(), CorpusError> {
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| CorpusError::read(dir, e))?
        .map(|e| {
            e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .map_err(|e| CorpusError::read(dir, e))
        })
        .collect::<Result<_, _>>()?;
    entries.sort();
    for (name, path) in entries {
        if name.starts_with('.') {
            continue;
        }
        let shown = if display.is_empty() || display == "." {
            name.clone()
        } else {
            format!("{display}/{name}")
        };
        if path.is_dir() {
            walk(&path, &shown, out, seen)?;
        } else if is_document_name(&name) && seen.insert(canonical(&path)) {
            out.push(CorpusDoc {
                path,
                display: shown,
            });
        }
    }
    Ok(())
}

fn display_root(root: &Path) -> String {
    let s = root
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    // The root component is itself "/", so an absolute path starts with "//" here.
    s.replace("//", "/")
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The expected-verdict folder convention: the nearest enclosing folder named
/// `expected-valid`, `expected-invalid` or `expected-warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Folder {
    /// No diagnostics at all, and the document loads.
    ExpectedValid,
    /// At least one error, or the document does not load.
    ExpectedInvalid,
    /// At least one warning and no errors; the document loads.
    ExpectedWarning,
}

impl Folder {
    /// The folder's name: `expected-valid`, `expected-invalid` or `expected-warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Folder::ExpectedValid => "expected-valid",
            Folder::ExpectedInvalid => "expected-invalid",
            Folder::ExpectedWarning => "expected-warning",
        }
    }

    /// The convention folder nearest to `path`, if any.
    pub fn of(path: &Path) -> Option<Folder> {
        let parent = path.parent()?;
        parent
            .components()
            .rev()
            .find_map(|c| match c.as_os_str().to_str()? {
                "expected-valid" => Some(Folder::ExpectedValid),
                "expected-invalid" => Some(Folder::ExpectedInvalid),
                "expected-warning" => Some(Folder::ExpectedWarning),
                _ => None,
            })
    }

    /// `None` when `report` satisfies the folder's verdict, else why not.
    pub fn judge(self, report: &mcpdesc_core::Report) -> Option<String> {
        use mcpdesc_core::Severity;
        let count = |s: Severity| {
            report
                .diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .count()
        };
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        let loaded = report.load_error.is_none();
        match self {
            Folder::ExpectedValid if !loaded => Some(format!(
                "expected no diagnostics, but the document does not load: {}",
                report
                    .load_error
                    .as_ref()
                    .map_or("", |e| e.message.as_str())
            )),
            Folder::ExpectedValid if !report.diagnostics.is_empty() => Some(format!(
                "expected no diagnostics, got {}",
                report.diagnostics.len()
            )),
            Folder::ExpectedInvalid if loaded && errors == 0 => Some(format!(
                "expected at least one error, got none ({warnings} warning(s))"
            )),
            Folder::ExpectedWarning if !loaded => Some(format!(
                "expected warnings only, but the document does not load: {}",
                report
                    .load_error
                    .as_ref()
                    .map_or("", |e| e.message.as_str())
            )),
            Folder::ExpectedWarning if errors > 0 => Some(format!(
                "expected warnings and no errors, got {errors} error(s)"
            )),
            Folder::ExpectedWarning if warnings == 0 => {
                Some("expected at least one warning, got none".to_owned())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_names() {
        assert!(is_document_name("a.json"));
        assert!(is_document_name("a.YML"));
        assert!(is_document_name("a.yaml"));
        assert!(!is_document_name("a.expected.yaml"));
        assert!(!is_document_name("a.txt"));
    }

    #[test]
    fn folder_convention_is_the_nearest_folder() {
        let p = Path::new("x/expected-invalid/more/expected-valid/a.json");
        assert_eq!(Folder::of(p), Some(Folder::ExpectedValid));
        assert_eq!(Folder::of(Path::new("a.json")), None);
        assert_eq!(Folder::of(Path::new("expected-warning")), None);
    }

    #[test]
    fn collect_walks_in_name_order_and_skips_sidecars() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("c");
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        for f in [
            "b/z.json",
            "a.yaml",
            "a.expected.yaml",
            "notes.md",
            ".hidden/x.json",
        ] {
            std::fs::write(root.join(f), "{}").unwrap();
        }
        let docs = collect(&[root.clone(), root.join("a.yaml")]).unwrap();
        let names: Vec<_> = docs.iter().map(|d| d.path.clone()).collect();
        assert_eq!(names, vec![root.join("a.yaml"), root.join("b/z.json")]);
        assert!(
            docs[1].display.ends_with("c/b/z.json"),
            "{}",
            docs[1].display
        );
        assert!(matches!(
            collect(&[root.join("nope")]),
            Err(CorpusError::Missing { .. })
        ));
    }
}
